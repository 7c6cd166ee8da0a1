/* unit-lfsr: full period of every tap-table width; shuffles visit each slot once. */
#include <stdlib.h>

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

static int visits_each_once(uint32_t count)
{
	struct lfsr_shuffle shuffle;
	unsigned char *seen = calloc(count, 1);
	int ok = seen != NULL, in_order = 1;

	lfsr_shuffle_init(&shuffle, count);
	for (uint32_t i = 0; ok && i < count; i++) {
		uint32_t slot = lfsr_shuffle_next(&shuffle);

		ok = slot < count && !seen[slot];
		if (ok)
			seen[slot] = 1;
		in_order &= slot == i;
	}
	free(seen);
	/* more than a handful of slots must not come out in plain order */
	return ok && (count < 4 || !in_order);
}

int main(void)
{
	static const uint32_t counts[] = { 1, 2, 3, 7, 8, 9, 100, 256, 1000,
					   8192, 65535, 65536, 100000 };

	for (unsigned bits = 2; bits <= LFSR_MAX_BITS; bits++)
		UNIT_CHECK(full_period(bits), "lfsr width %u has full period",
			   bits);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		UNIT_CHECK(visits_each_once(counts[i]),
			   "shuffle of %u slots visits each once", counts[i]);
	return UNIT_DONE();
}
