/*
 * findings: turns measurements into findings - erase-block and page size
 * from align tables, open erase blocks from open-AU runs, the interval
 * regression - each with a confidence.  Pure computation on numbers: no
 * I/O, no printing.
 */
#ifndef FLASHBENCH_ANALYSIS_H
#define FLASHBENCH_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/record.h"

#define ANALYSIS_REASON_BYTES 160

/*
 * A finding: a value (bytes or a count), whether it is known, how sure,
 * and when it is not known, why not ("" when there is nothing to say).
 */
struct analysis_finding {
	bool known;
	uint64_t value;
	double confidence;	/* 0..1 */
	char reason[ANALYSIS_REASON_BYTES];
};

/* One line of an align table, times in ns. */
struct analysis_align_point {
	uint64_t align;
	double pre, on, post, diff;
	double noise;		/* standard error of diff if measured, or 0 */
};

/* What a step of the staircase is taken for. */
enum analysis_level_kind {
	ANALYSIS_LEVEL_STEP,		/* a step no rule names */
	ANALYSIS_LEVEL_PAGE,
	ANALYSIS_LEVEL_EFFECTIVE_PAGE,	/* pages read together (multi-plane) */
	ANALYSIS_LEVEL_ERASE,
	ANALYSIS_LEVEL_ERASE_ALTERNATIVE, /* a lower step that could be it */
	ANALYSIS_LEVEL_GROUP,		/* allocation group above it */
};

/* One step: reads crossing a multiple of size cost cost_ns more. */
struct analysis_level {
	uint64_t size;
	double cost_ns;
	double z;			/* the step in noise units */
	enum analysis_level_kind kind;
};

#define ANALYSIS_MAX_LEVELS 8

/* "page", "effective page", "erase block", "allocation group"... */
const char *analysis_level_name(enum analysis_level_kind kind);

enum analysis_device {
	ANALYSIS_DEVICE_UNKNOWN,	/* also USB sticks: no rule of their own */
	ANALYSIS_DEVICE_SD,
	ANALYSIS_DEVICE_EMMC,
};

/* What is known besides the table; zeros where nothing is. */
struct analysis_prior {
	enum analysis_device device;
	uint64_t capacity_bytes;
	uint64_t preferred_erase;	/* the device's own claim (sysfs) */
};

struct analysis_geometry {
	struct analysis_finding erase;
	struct analysis_finding page;
	struct analysis_finding effective_page;
	/* the second reading where two fit; its confidence is its weight */
	struct analysis_finding erase_alternative;
	/* steps were found, none where an erase block can be: the table
	   does not show it (hidden_confidence: how sure of that) */
	bool erase_hidden;
	double hidden_confidence;
	uint64_t erase_min, erase_max;	/* sizes an erase block can have */
	uint64_t span_low, span_high;	/* smallest and largest alignment */
	uint64_t spec_max_au;		/* the SD specification's bound, or 0 */
	int prior_verdict;		/* preferred_erase: 1 agrees with the
					   reading, -1 with neither, 2 with
					   the alternative, 0 none */
	struct analysis_level levels[ANALYSIS_MAX_LEVELS];
	size_t level_count;
	double boundary_ns;	/* typical diff at erase-block boundaries */
	double page_ns;		/* typical diff at page boundaries */
	double noise_ns;	/* noise of a diff */
	double read_ns;		/* typical read */
	double erase_z;		/* separation in noise units */
	double page_z;
};

/*
 * The staircase of an align table (any number of tables of one card,
 * power-of-two and 3 x 2^n alignments, any order): the levels of the diff
 * column, each named, and from them the erase block (the start of the top
 * level among sizes an erase block can have), the page (the lowest step)
 * and the effective page (a step just above it).  prior may be NULL.
 */
void analysis_align_prior(const struct analysis_align_point *points,
			  size_t count, const struct analysis_prior *prior,
			  struct analysis_geometry *geometry);

/* The same with nothing known besides the table. */
void analysis_align(const struct analysis_align_point *points, size_t count,
		    struct analysis_geometry *geometry);

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

/* Confidence from a separation measured in noise units. */
double analysis_confidence(double z);

/*
 * Least-squares line y = intercept + slope * x through n points.
 * Returns 0, or -1 when fewer than two distinct x values make it undefined.
 */
int analysis_linear_fit(const double *x, const double *y, size_t n,
			double *slope, double *intercept);

/*
 * The same with a weight per point (NULL: all 1).  Weighting by 1/y^2
 * fits relative errors, so small values count as much as large ones.
 */
int analysis_weighted_fit(const double *x, const double *y,
			  const double *weight, size_t n, double *slope,
			  double *intercept);

/*
 * The interval test's regression of read time (ns) against length
 * (bytes): weighted by 1/y^2, so the small sizes, which decide the access
 * time, count as much as the large ones.  The text line and the chart
 * both take it from here.  Returns 0, or -1 as analysis_weighted_fit.
 * n is at most ANALYSIS_FIT_MAX; more points are ignored.
 */
#define ANALYSIS_FIT_MAX 256
int analysis_interval_fit(const double *length_bytes, const double *time_ns,
			  size_t n, double *ns_per_byte, double *access_ns);

/* The findings a reading reports, in the order the reports give them. */
enum analysis_finding_id {
	ANALYSIS_ERASE, ANALYSIS_PAGE, ANALYSIS_EFFECTIVE_PAGE,
	ANALYSIS_OPEN_LINEAR, ANALYSIS_OPEN_RANDOM, ANALYSIS_MIN_WRITE,
	ANALYSIS_FAT_AREA, ANALYSIS_FINDING_COUNT
};

/* Each one's machine name ("erase_size") and whether it counts bytes. */
struct analysis_finding_name {
	const char *name;
	bool bytes;
};
extern const struct analysis_finding_name
	analysis_finding_names[ANALYSIS_FINDING_COUNT];

/*
 * A finding as a record of kind "finding": name, value (bytes when bytes,
 * else a count; unknown empty), confidence (unknown empty) and, when why
 * is not NULL, why it is not known ("" when it is).  name and why are
 * pointed to, not copied.
 */
void analysis_finding_record(const char *name,
			     const struct analysis_finding *finding,
			     bool bytes, const char *why,
			     struct record *record);

/* A step of the staircase as a record of kind "level". */
void analysis_level_record(const struct analysis_level *level,
			   struct record *record);

/*
 * Advice from a geometry: partition start, mkfs options.  Writes up to
 * max lines of at most ANALYSIS_ADVICE_BYTES - 1 characters; returns how
 * many (none without an erase size).
 */
#define ANALYSIS_ADVICE_BYTES 384
size_t analysis_recommend(uint64_t erase_size, uint64_t page_size,
			  unsigned open_linear,
			  char lines[][ANALYSIS_ADVICE_BYTES], size_t max);

/* Median of n values (n > 0); the array is reordered. */
double analysis_median(double *values, size_t n);

#endif
