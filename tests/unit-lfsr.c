/*
 * unit-lfsr: full period of every tap-table width; shuffles and
 * permutations visit each slot once; a permutation's successive slots
 * are unrelated, a shuffle's are not.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/lfsr.h"
#include "unit.h"

static int full_period(unsigned bits)
{
	struct lfsr lfsr;
	uint32_t period = (1u << bits) - 1, steps = 0;

	lfsr_init(&lfsr, bits);
	do {
		lfsr_next(&lfsr);
		steps++;
	} while (lfsr.state != 1 && steps <= period);
	return steps == period;
}

/* A shuffle's or (permuted) a permutation's order of count slots. */
struct order {
	int permuted;
	struct lfsr_shuffle shuffle;
	struct lfsr_permute permute;
};

static void order_init(struct order *o, int permuted, uint32_t count)
{
	o->permuted = permuted;
	lfsr_shuffle_init(&o->shuffle, count);
	lfsr_permute_init(&o->permute, count);
}

static uint32_t order_next(struct order *o)
{
	return o->permuted ? lfsr_permute_next(&o->permute) :
	       lfsr_shuffle_next(&o->shuffle);
}

static int visits_each_once(uint32_t count, int permuted)
{
	struct order order;
	unsigned char *seen = calloc(count, 1);
	int ok = seen != NULL, in_order = 1;

	order_init(&order, permuted, count);
	for (uint32_t i = 0; ok && i < count; i++) {
		uint32_t slot = order_next(&order);

		ok = slot < count && !seen[slot];
		if (ok)
			seen[slot] = 1;
		in_order &= slot == i;
	}
	free(seen);
	/* more than a handful of slots must not come out in plain order */
	return ok && (count < 4 || !in_order);
}

/*
 * 65536 slots in 64 groups of 1024 (4 KiB blocks in 4 MiB erase
 * blocks): how many of the 64 x 64 (group, next group) pairs the order
 * shows.  Unrelated successive slots show nearly all of them, 16 times
 * each on average; a shuffle's next slot follows from the last, so it
 * shows only a few successors of each group.
 */
static unsigned group_pairs(int permuted)
{
	static unsigned char pair[64][64];
	struct order order;
	unsigned distinct = 0;
	uint32_t last = 0;

	memset(pair, 0, sizeof(pair));
	order_init(&order, permuted, 65536);
	for (uint32_t i = 0; i < 65536; i++) {
		uint32_t slot = order_next(&order);

		if (i && !pair[last >> 10][slot >> 10]++)
			distinct++;
		last = slot;
	}
	return distinct;
}

int main(void)
{
	static const uint32_t counts[] = { 1, 2, 3, 7, 8, 9, 100, 256, 1000,
					   8192, 65535, 65536, 100000 };

	for (unsigned bits = 2; bits <= LFSR_MAX_BITS; bits++)
		UNIT_CHECK(full_period(bits), "lfsr width %u has full period",
			   bits);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		UNIT_CHECK(visits_each_once(counts[i], 0),
			   "shuffle of %u slots visits each once", counts[i]);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		UNIT_CHECK(visits_each_once(counts[i], 1),
			   "permutation of %u slots visits each once",
			   counts[i]);
	UNIT_CHECK(visits_each_once(LFSR_MAX_SLOTS, 1),
		   "permutation of the most slots visits each once");
	UNIT_CHECK(group_pairs(1) > 4096 * 9 / 10,
		   "permutation: %u of 4096 (group, next group) pairs, as "
		   "unrelated slots give", group_pairs(1));
	UNIT_CHECK(group_pairs(0) < 4096 / 4,
		   "shuffle: only %u of 4096: its next slot follows from "
		   "the last", group_pairs(0));
	return UNIT_DONE();
}
