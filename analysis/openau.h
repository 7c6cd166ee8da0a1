/*
 * openau: open erase blocks from open-AU runs - repeated runs combined,
 * each run held against those with fewer erase blocks, the counts in and
 * out of order with their confidence, and what writing out of order costs
 * by itself.  Numbers in, findings out; nothing here writes or prints.
 */
#ifndef FLASHBENCH_OPENAU_H
#define FLASHBENCH_OPENAU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/finding.h"

/* One open-AU run: rates by block size, as the test prints them. */
#define ANALYSIS_MAX_SIZES 40
#define ANALYSIS_MAX_RUNS 256
struct analysis_run {
	unsigned nr;		/* --open-au-nr; 0 if unknown */
	bool random;
	unsigned combined;	/* runs combined into this one; 0: not combined */
	size_t count;
	uint64_t size[ANALYSIS_MAX_SIZES];
	double rate[ANALYSIS_MAX_SIZES];	/* bytes per second */
};

/* What writing out of order costs: random / linear rate at the lowest N. */
struct analysis_order_cost {
	bool known;
	double ratio;		/* median over the sizes below the erase size */
	unsigned nr;		/* the N of the random run (1 when run) */
	double confidence;	/* 0..1 */
};

struct analysis_open {
	struct analysis_finding linear;
	struct analysis_finding random;
	/* no run fell off: the largest N seen holding (0: none) */
	unsigned linear_at_least, random_at_least;
	/*
	 * That N held against runs with fewer: linear (random) is known and
	 * is a lower bound, "at least N".
	 */
	bool linear_lower_bound, random_lower_bound;
	struct analysis_order_cost random_linear;
	/*
	 * The lowest random run already writes at the card's thrashing
	 * rate (the linear runs past the cliff, or the slowest seen): with
	 * N = 1 the random count is 0; with more, random_slow_nr is its N
	 * and random_slow_ratio its rate against linear, and the count,
	 * below that N, is unknown.
	 */
	bool random_thrashing;
	unsigned random_slow_nr;
	double random_slow_ratio;
};

/*
 * Repeated runs (the same N and order) as one: the median rate at each
 * size.  Runs with N unknown stay apart.  Fills combined[] (one entry per
 * distinct run, at most min(count, ANALYSIS_MAX_RUNS)) and group_of[i],
 * the entry runs[i] went into; returns the number of entries.
 */
size_t analysis_open_au_combine(const struct analysis_run *runs, size_t count,
				struct analysis_run *combined,
				unsigned *group_of);

/*
 * Open erase blocks from several open-AU runs with different N (combined
 * first, so each N and order comes once): a run falls off when it is much
 * slower at the block sizes below the erase size than the runs of its
 * order with fewer erase blocks; the count is one less than the smallest
 * N that does, and when none does, at least the largest N that held.
 * Linear and random order are read alike, each against its own runs; the
 * lowest random run is the random reference, unless it writes no faster
 * than the card thrashes (its linear runs past the cliff, or the slowest
 * rates seen): then, with N = 1, no erase block stays open in random
 * order, 0.  random_linear: the random run against the linear runs.
 */
void analysis_open_au(const struct analysis_run *runs, size_t count,
		      struct analysis_open *open);

/*
 * The same for runs that leave out the erase-size row (probes that write
 * a few block sizes only): whole is the erase size, and only sizes below
 * it count.  analysis_open_au takes the largest size of the runs for it.
 */
void analysis_open_au_below(const struct analysis_run *runs, size_t count,
			    uint64_t whole, struct analysis_open *open);

/*
 * A run whose median rate over its sizes (below the erase size) is under
 * this fraction of its reference has fallen off.
 */
#define ANALYSIS_FALL_RATIO 0.7

/* How one run compares with the runs it is held against. */
struct analysis_verdict {
	bool compared;		/* some block size had a reference rate */
	bool has_reference;	/* some run to hold it against exists */
	bool fell;		/* median_ratio below the fall-off threshold */
	size_t sizes;		/* block sizes compared */
	size_t at_floor;	/* sizes left out: the reference there is
				   no faster than the card thrashes */
	double worst_ratio;	/* lowest rate / reference rate; 1 if none */
	uint64_t worst_size;	/* the block size of that ratio */
	double median_ratio;	/* median of rate / reference over the sizes
				 * below the erase size; 1 if none */
};

/* The verdict on runs[index], as analysis_open_au reaches it. */
void analysis_open_au_verdict(const struct analysis_run *runs, size_t count,
			      size_t index, struct analysis_verdict *verdict);

/* The same with the erase size given, as analysis_open_au_below. */
void analysis_open_au_verdict_below(const struct analysis_run *runs,
				    size_t count, size_t index, uint64_t whole,
				    struct analysis_verdict *verdict);

#endif
