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

#endif
