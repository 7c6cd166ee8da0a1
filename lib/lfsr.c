/*
 * lfsr: Galois LFSRs from a table of maximal-length feedback taps, the
 * shuffle that uses one to order slots, and a permutation of slots
 * whose successive values are unrelated.  The table is checked for full
 * period by tests/unit-lfsr.c for every width.
 */
#include "lib/lfsr.h"

/* Feedback masks of maximal-length Galois LFSRs, indexed by width. */
static const uint32_t lfsr_taps[LFSR_MAX_BITS + 1] = {
	[2] = 0x3, [3] = 0x6, [4] = 0xc, [5] = 0x14, [6] = 0x30,
	[7] = 0x60, [8] = 0xb8, [9] = 0x110, [10] = 0x240, [11] = 0x500,
	[12] = 0x829, [13] = 0x100d, [14] = 0x2015, [15] = 0x6000,
	[16] = 0xd008, [17] = 0x12000, [18] = 0x20400, [19] = 0x40023,
	[20] = 0x90000, [21] = 0x140000, [22] = 0x300000, [23] = 0x420000,
	[24] = 0xe10000,
};

void lfsr_init(struct lfsr *lfsr, unsigned bits)
{
	if (bits < 2)
		bits = 2;
	if (bits > LFSR_MAX_BITS)
		bits = LFSR_MAX_BITS;
	lfsr->mask = lfsr_taps[bits];
	lfsr->state = 1;
}

uint32_t lfsr_next(struct lfsr *lfsr)
{
	uint32_t out = lfsr->state & 1u;

	lfsr->state >>= 1;
	if (out)
		lfsr->state ^= lfsr->mask;
	return lfsr->state;
}

void lfsr_shuffle_init(struct lfsr_shuffle *shuffle, uint32_t count)
{
	unsigned bits = 2;

	/* states run 1..2^bits-1, so 2^bits-1 >= count covers every slot */
	while (bits < LFSR_MAX_BITS && ((1u << bits) - 1) < count)
		bits++;
	lfsr_init(&shuffle->lfsr, bits);
	shuffle->count = count;
}

uint32_t lfsr_shuffle_next(struct lfsr_shuffle *shuffle)
{
	uint32_t slot;

	/* states past count are skipped; at most half the states are */
	do
		slot = lfsr_next(&shuffle->lfsr) - 1;
	while (slot >= shuffle->count);
	return slot;
}

void lfsr_permute_init(struct lfsr_permute *permute, uint32_t count)
{
	unsigned bits = 1;

	while (bits < LFSR_MAX_BITS && (1u << bits) < count)
		bits++;
	*permute = (struct lfsr_permute){ .count = count, .bits = bits };
}

/*
 * A bijection of [0, 2^bits): a multiplication by an odd number and a
 * right shift xor-ed in are each invertible modulo 2^bits; three rounds
 * of both spread every input bit over every output bit.
 */
static uint32_t mix(uint32_t x, unsigned bits)
{
	uint32_t mask = (1u << bits) - 1;

	for (int round = 0; round < 3; round++) {
		x = (x * 0x9e3779b1u) & mask;
		x ^= x >> ((bits + 1) / 2);
		x = (x * 0x85ebca6bu) & mask;
		x ^= x >> ((bits + 2) / 3);
	}
	return x;
}

uint32_t lfsr_permute_next(struct lfsr_permute *permute)
{
	uint32_t mask = (1u << permute->bits) - 1, slot;

	/* fewer than half the values are past count: a short skip */
	do
		slot = mix(permute->next++ & mask, permute->bits);
	while (slot >= permute->count);
	return slot;
}
