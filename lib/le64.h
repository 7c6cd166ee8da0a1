/*
 * le64: 64-bit values in little-endian byte order, the order the stamps
 * and the undo file store them in whatever the host's own is.
 */
#ifndef FLASHBENCH_LE64_H
#define FLASHBENCH_LE64_H

#include <stdint.h>
#include <string.h>

/* On a little-endian host one move: the stamps go through here per word. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LE64_NATIVE 1
#else
#define LE64_NATIVE 0
#endif

static inline void put64(unsigned char *p, uint64_t v)
{
#if LE64_NATIVE
	memcpy(p, &v, sizeof(v));
#else
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
#endif
}

static inline uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

#if LE64_NATIVE
	memcpy(&v, p, sizeof(v));
#else
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
#endif
	return v;
}

#endif
