/*
 * lfsr: maximal-length Galois linear feedback shift registers, and the
 * pseudo-random order built on them that visits each of n slots exactly
 * once.  Deterministic by design: the same n gives the same order.
 */
#ifndef FLASHBENCH_LFSR_H
#define FLASHBENCH_LFSR_H

#include <stdint.h>

/* Largest number of slots a shuffle can visit (2^LFSR_MAX_BITS - 1). */
#define LFSR_MAX_BITS 24
#define LFSR_MAX_SLOTS ((1u << LFSR_MAX_BITS) - 1)

struct lfsr {
	uint32_t state;		/* never 0 */
	uint32_t mask;		/* feedback taps for this width */
};

/* Register of width bits (2..LFSR_MAX_BITS); period 2^bits - 1. */
void lfsr_init(struct lfsr *lfsr, unsigned bits);
uint32_t lfsr_next(struct lfsr *lfsr);

/*
 * A shuffle of the slots 0..count-1 (1 <= count <= LFSR_MAX_SLOTS): each
 * call to lfsr_shuffle_next returns the next slot; after count calls every
 * slot was returned once.
 */
struct lfsr_shuffle {
	struct lfsr lfsr;
	uint32_t count;
};

void lfsr_shuffle_init(struct lfsr_shuffle *shuffle, uint32_t count);
uint32_t lfsr_shuffle_next(struct lfsr_shuffle *shuffle);

/*
 * A shuffle's successive slots are related: each LFSR state is the one
 * before shifted by a bit, so which slot comes next follows from the
 * last, and a card's random writes land where they cost it less than
 * fio's random offsets do.  A permutation of the slots 0..count-1
 * (1 <= count <= LFSR_MAX_SLOTS) without that: a counter through a
 * bijective mix of bits bits (2^bits >= count), the values past count
 * skipped.  Each slot once in count calls; deterministic, as a shuffle.
 */
struct lfsr_permute {
	uint32_t next, count;
	unsigned bits;
};

void lfsr_permute_init(struct lfsr_permute *permute, uint32_t count);
uint32_t lfsr_permute_next(struct lfsr_permute *permute);

#endif
