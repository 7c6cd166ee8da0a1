/*
 * sustained: where a card's write rate falls - the end of its write
 * cache - in a series of sequential chunks, each its bytes and device
 * time.  Medians of windows of chunks, never one chunk, decide, so one
 * slow or fast chunk moves nothing.  Fed a chunk at a time while the
 * writes go on, it says when the rate after the fall has settled (the
 * writer may stop); at the end it gives the burst rate, the cache size
 * in bytes written and the sustained rate, or why one is not known.
 * Numbers in, numbers out: it neither writes nor prints.
 */
#ifndef FLASHBENCH_SUSTAINED_H
#define FLASHBENCH_SUSTAINED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Chunks one median is taken over: a window. */
#define SUSTAINED_WINDOW 8
/* A fall: a window's median below this share of the highest before it. */
#define SUSTAINED_FALL_RATIO 0.7
/* Settled: the last two windows after the fall within this of each other. */
#define SUSTAINED_SETTLE_FRACTION 0.1
/* A fall in the last chunks of a run, too few for a window: this many. */
#define SUSTAINED_TAIL_CHUNKS 3
/* The most chunks kept: a run with more stops adding (and says so). */
#define SUSTAINED_MAX_CHUNKS (1u << 20)

/* The series, and what it has shown so far. */
struct sustained {
	double *rate;			/* bytes/s of each chunk */
	uint64_t *before_bytes;		/* bytes written before each chunk */
	size_t count, cap;
	uint64_t written_bytes;
	double peak;			/* highest window median before a fall */
	bool fell;			/* a window fell below the ratio */
	size_t fall_at;			/* then: the first chunk past the cache */
	bool settled;			/* the rate after the fall is stable */
	bool full;			/* chunks past cap were not kept */
};

/*
 * Room for cap chunks (at most SUSTAINED_MAX_CHUNKS), allocated before
 * the run, so adding one allocates nothing.  0 or -ENOMEM.
 */
int sustained_init(struct sustained *s, size_t cap);
void sustained_free(struct sustained *s);

/*
 * One chunk more, in the order written; a chunk without bytes or time
 * is left out.  True once the rate after a fall has settled, or the
 * series is full: the writer has what it needs.
 */
bool sustained_add(struct sustained *s, uint64_t bytes, uint64_t ns);

enum sustained_status {
	SUSTAINED_FOUND,	/* burst, cache and sustained rate known */
	SUSTAINED_NOT_SETTLED,	/* the fall seen; the run ended before the
				   rate after it settled */
	SUSTAINED_NO_FALL,	/* the rate did not fall: no cache seen */
	SUSTAINED_TOO_FEW,	/* fewer chunks than a window */
};

struct sustained_result {
	enum sustained_status status;
	double burst_bytes_per_s;	/* NAN unless a fall was seen */
	uint64_t cache_bytes;		/* bytes written before the fall */
	double sustained_bytes_per_s;	/* NAN unless FOUND */
	uint64_t written_bytes;		/* by the whole run */
	uint64_t after_fall_bytes;	/* written since the fall */
	size_t chunks;
	bool full;			/* more chunks than kept */
};

/*
 * What the series shows: a fall confirmed while it was fed, or, at its
 * end, SUSTAINED_TAIL_CHUNKS or more last chunks all below the ratio
 * (the run ended too soon after the fall for a window to show it).
 */
void sustained_result(const struct sustained *s, struct sustained_result *r);

#endif
