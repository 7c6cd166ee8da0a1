/*
 * detected: what a --detect run found, in the findings' terms: the
 * geometry, the open-erase-block counts, the smallest efficient write,
 * the FAT area, the evidence and the advice; and the decisions that reach
 * them from the probes' numbers (detected.c).  measure/detect.c runs the
 * probes and fills it; records/detect.c renders it.
 */
#ifndef FLASHBENCH_DETECTED_H
#define FLASHBENCH_DETECTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/findings.h"

#define DETECT_MAX_ALIGNS 64	/* alignments the read probes time */
#define DETECT_ADVICE_MAX 8
#define DETECT_BOUNDARIES 8	/* boundaries read at each alignment */
#define DETECT_MAX_RUNS 64	/* open-count probes of one detection */
#define DETECT_OPEN_ROUNDS 3	/* timed rounds of a probe at most */
#define DETECT_WRITE_SIZES 7	/* sizes the smallest-write probe times */

struct detect_findings {
	struct analysis_geometry geometry;
	struct analysis_finding open_linear, open_random;
	struct analysis_finding min_write, fat_area;
	/* out-of-order rate against in-order at the lowest N, and why
	   not, where not known */
	struct analysis_order_cost random_linear;
	char random_linear_reason[ANALYSIS_REASON_BYTES];
	/* a count not determined because no probe fell off: at least this
	   many (0: none) */
	unsigned open_linear_at_least, open_random_at_least;
	double write_noise;		/* how far write rates wandered, 0.05:
					   5% (see analysis/detected.c) */
	uint64_t erase_used;		/* measured, or given */
	bool sysfs_known;
	uint64_t sysfs_erase;		/* preferred_erase_size */
	struct analysis_prior prior;	/* what the reading is told */
	char identity[192];		/* "SanDisk SU08G, serial ..., 2011-11" */
	bool wrote;			/* the write probes ran */
	/* the read timing the geometry was found from */
	struct analysis_align_point evidence[DETECT_MAX_ALIGNS];
	size_t evidence_count;
	unsigned boundaries;		/* each point a median over these */
	char advice[DETECT_ADVICE_MAX][ANALYSIS_ADVICE_BYTES];
	size_t advice_count;
};

/* The fastest reads around each boundary of one alignment. */
struct detect_boundary_times {
	uint64_t align;
	double pre[DETECT_BOUNDARIES], on[DETECT_BOUNDARIES];
	double post[DETECT_BOUNDARIES];
	size_t boundaries;		/* how many were read */
};

/*
 * The open-count probes so far, each an open-AU run of one write size,
 * with the rate of each timed round it took.
 */
struct detect_runs {
	struct analysis_run run[DETECT_MAX_RUNS];
	double round_rate[DETECT_MAX_RUNS][DETECT_OPEN_ROUNDS];
	unsigned rounds[DETECT_MAX_RUNS];
	size_t count;
	uint64_t erase_bytes;		/* the erase size they wrote with */
	/* in order [0], out of order [1]: the fall that decided the count
	   did not repeat when run again */
	bool unconfirmed[2];
	double noise_log;		/* how far write rates wander, as a
					   log ratio (detected_open_findings) */
};

/*
 * An alignment's align line: the median of its boundaries' reads and of
 * their diffs, and the diff's standard error from their spread.
 */
void detected_point(const struct detect_boundary_times *times,
		    struct analysis_align_point *point);

/*
 * Whether the read rounds may stop, after round (0-based) moved the
 * geometry from before to now: the answer is settled, or has stood for
 * a few rounds and is sure.  *same counts the rounds it stood (0 first).
 */
bool detected_reads_done(const struct analysis_geometry *before,
			 const struct analysis_geometry *now, unsigned round,
			 unsigned *same);

/*
 * The best rate among the runs a new run of nr blocks will be held
 * against: the same order with fewer blocks; for the first run out of
 * order, in order with no more.  0: none yet.
 */
double detected_reference_rate(const struct detect_runs *runs, unsigned nr,
			       bool random);

/* The verdict on runs->run[index] against the others, as --analyze's. */
void detected_judge(const struct detect_runs *runs, size_t index,
		    struct analysis_verdict *verdict);

/*
 * A probe's run added (runs->count below DETECT_MAX_RUNS): nr blocks in
 * one order, writes of write_bytes, its rounds' rates; its rate is their
 * median.  Returns whether it falls off, with the verdict.
 */
bool detected_add_run(struct detect_runs *runs, unsigned nr, bool random,
		      uint64_t write_bytes, const double *rates,
		      unsigned rounds, struct analysis_verdict *verdict);

/* The smallest N of one order that fell, and its ratio; 0: none fell. */
unsigned detected_smallest_fall(const struct detect_runs *runs, bool random,
				double *ratio);

/*
 * A fall that did not repeat: the first before runs of that order with
 * N = nr are set aside, read from now on as runs with no N.
 */
void detected_set_aside(struct detect_runs *runs, bool random, unsigned nr,
			size_t before);

/*
 * Whether two erase blocks in turn were slower than one by a little only:
 * what a card that pays for each switch between blocks shows at small
 * writes.  The search is worth running again with larger writes.
 */
bool detected_switch_cost(const struct detect_runs *runs);

/*
 * The counts from the runs so far, as --analyze reads a table, each kept
 * only where its evidence stands clear of the write rates' own noise;
 * where not, why.
 */
void detected_open_findings(struct detect_runs *runs,
			    struct detect_findings *f);

/*
 * The smallest efficient write from the time t[i] of writes of w[i]
 * bytes (n at most DETECT_WRITE_SIZES, ascending): the size below which
 * a write costs no less.
 */
void detected_min_write(const double *w, const double *t, size_t n,
			struct analysis_finding *found);

/*
 * On a device with no erase-block signal, a step above the page resting
 * on one line of the evidence is dropped: that line's noise, more likely.
 */
void detected_drop_lone_levels(struct detect_findings *f);

/* Why the read findings are not determined, where they are not. */
void detected_explain_geometry(struct detect_findings *f);

/* The write findings, none measured: why. */
void detected_skip_writes(struct detect_findings *f, const char *why);

/*
 * Whether a write cache took the write probes' writes: the smallest
 * write, of write_bytes, took write_ns, less than the fastest read of
 * read_bytes in the evidence, when programming flash takes longer than
 * reading it.  Then the probes timed the cache, not the card: the open
 * counts, the smallest efficient write, the order cost and the FAT area
 * are not determined, with that reason.
 */
bool detected_write_cache(struct detect_findings *f, uint64_t write_bytes,
			  double write_ns, uint64_t read_bytes);

#endif
