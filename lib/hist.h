/*
 * hist: a fixed-size latency histogram.  Fixed memory whatever the
 * number of samples, nothing allocated or sorted while measuring: below
 * 64 ns every value has its bucket; above, each power of two has 64, so a
 * percentile read from it is within 1.6% of the true one.
 */
#ifndef FLASHBENCH_HIST_H
#define FLASHBENCH_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t counts[HIST_BUCKETS];
	uint64_t samples;
};

void hist_clear(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);

/*
 * Nearest-rank percentile, pct in (0, 100]: the smallest value of the
 * bucket holding it; 0 for an empty histogram.
 */
uint64_t hist_percentile(const struct hist *h, unsigned pct);

#endif
