/*
 * le64: 64-bit values in little-endian byte order, the order the stamps
 * and the undo file store them in whatever the host's own is.
 */
#ifndef FLASHBENCH_LE64_H
#define FLASHBENCH_LE64_H

#include <stdint.h>

static inline void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif
