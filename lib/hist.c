/*
 * hist: latency histogram with 64 buckets per power of two (hist.h).
 */
#include <string.h>

#include "lib/hist.h"

static unsigned top_bit(uint64_t x)
{
	unsigned top = 0;

	/* no compiler builtin: the 32-bit targets need none either */
	while (x >>= 1)
		top++;
	return top;
}

static unsigned bucket_of(uint64_t ns)
{
	unsigned top;

	if (ns < HIST_SUB)
		return (unsigned)ns;
	top = top_bit(ns);
	return (top - HIST_SUB_BITS + 1) * HIST_SUB +
	       (unsigned)((ns >> (top - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* The smallest value a bucket holds. */
static uint64_t value_of(unsigned bucket)
{
	unsigned top;

	if (bucket < HIST_SUB)
		return bucket;
	top = bucket / HIST_SUB + HIST_SUB_BITS - 1;
	return (uint64_t)(HIST_SUB + bucket % HIST_SUB) <<
	       (top - HIST_SUB_BITS);
}

void hist_clear(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->counts[bucket_of(ns)]++;
	h->samples++;
}

uint64_t hist_percentile(const struct hist *h, unsigned pct)
{
	uint64_t rank = (h->samples * pct + 99) / 100, seen = 0;

	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; h->samples && i < HIST_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			return value_of(i);
	}
	return 0;
}
