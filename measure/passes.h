/*
 * passes: --surface --write --passes=N | --until=WHEN, the endurance
 * test.  Each pass writes every block of the range with a stamp naming
 * the pass (its salt, drawn from the run's seed and the pass number),
 * the windows in a seeded order that changes from pass to pass, then
 * reads every block back and classifies it: one run of surface_run
 * (surface.h) each.  This file keeps what the passes found - each
 * pass's figures, the blocks that went bad (a block once bad stays
 * counted bad), the passes at which the milestones came - and decides
 * when the run ends.  passesstate.h keeps it in a state file, so a run
 * stopped by a crash or a pulled card goes on.  It measures; records/
 * turns what it found into records.
 */
#ifndef FLASHBENCH_PASSES_H
#define FLASHBENCH_PASSES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"
#include "measure/surface.h"

/*
 * A pass stamps the range in this many slices of windows in a row (or
 * fewer, for a range of fewer windows), in an order drawn anew each
 * pass, as mfst does: the card's mapping cannot follow a pattern, and
 * each slice is stamped at the device's sequential rate.
 */
#define PASSES_SLICES 16
/* The most passes --passes asks for. */
#define PASSES_MAX 1000000
/* New bad ranges a pass lists (for the map); past them it counts. */
#define PASSES_PASS_RANGES 64
/* Room for a device's identity (identity/devfind.h's key, as text). */
#define PASSES_IDENTITY_BYTES 320

/* --until: what ends the run besides --passes. */
enum passes_until {
	PASSES_UNTIL_NONE,
	PASSES_UNTIL_FIRST_ERROR,	/* the first bad block */
	PASSES_UNTIL_PERCENT,		/* this share of the blocks bad */
	PASSES_UNTIL_READ_ONLY,		/* the card's end: read-only or
					   silent */
};

/* How a run ended; PASSES_GOING: it has a pass to do or to finish. */
enum passes_end {
	PASSES_GOING,
	PASSES_ALL_DONE,		/* the passes asked for */
	PASSES_UNTIL_REACHED,		/* --until's error or share */
	PASSES_READ_ONLY,		/* writes refused, reads answer */
	PASSES_STOPPED_ANSWERING,	/* nothing answers (dead, or pulled) */
	PASSES_INTERRUPTED,		/* a signal */
	PASSES_FAILED,			/* anything else: why says */
	PASSES_END_COUNT
};

/* What a pass came to. */
enum passes_outcome {
	PASSES_CLEAN,			/* every block read back intact */
	PASSES_ERRORS,			/* some did not */
	PASSES_REFUSED,			/* the card refused its writes */
	PASSES_SILENT,			/* the card stopped answering */
	PASSES_OUTCOME_COUNT
};

/* The milestones: the pass that first reached each. */
enum passes_milestone {
	PASSES_AT_FIRST_ERROR,
	PASSES_AT_TENTH_PERCENT,	/* 0.1% of the blocks bad */
	PASSES_AT_ONE_PERCENT,
	PASSES_AT_TEN_PERCENT,
	PASSES_MILESTONES
};

/* The share of bad blocks each milestone stands for (first error: 0). */
extern const double passes_milestone_fraction[PASSES_MILESTONES];

/* One pass's figures. */
struct passes_pass {
	uint32_t pass;			/* from 1 */
	enum passes_outcome outcome;
	/* rates over the windows: min, median, max (bytes/s; NAN none) */
	double write_bps[3], read_bps[3];
	uint64_t bad_blocks;		/* did not read back intact now */
	uint64_t new_bad_blocks;	/* of them, never bad before */
	uint64_t total_bad_blocks;	/* bad in this pass or before */
	uint64_t write_errors;		/* blocks whose stamp was refused */
	uint64_t read_errors;		/* blocks that could not be read */
	uint64_t new_ranges;		/* ranges of new bad blocks */
	uint64_t bytes_written, bytes_read;
	uint64_t device_time_ns, wall_ns;
	uint32_t slices_stamped;	/* of the pass's order (partial) */
};

/* Blocks in a row that went bad in one pass, for one reason. */
struct passes_range {
	uint32_t pass;
	int state;			/* enum stamp_state, SURFACE_OLD_DATA */
	uint64_t offset, length;
};

/* A stretch of blocks, bad in some pass. */
struct passes_extent {
	uint64_t offset, length;
};

/* A run: what it is, what it found, and where it stands. */
struct passes_run {
	char identity[PASSES_IDENTITY_BYTES];	/* "" none (sim:) */
	uint64_t size_bytes;
	uint32_t block_bytes;
	uint64_t start, end;		/* the range: [start, end) */
	uint64_t seed;
	uint64_t passes;		/* asked for; 0: until --until */
	enum passes_until until;
	double until_fraction;		/* PASSES_UNTIL_PERCENT's share */
	/* the passes done, and their new bad ranges (pass by pass) */
	struct passes_pass *done;
	size_t done_count, done_cap;
	struct passes_range *ranges;
	size_t range_count, range_cap;
	/* every block bad so far, merged and in order; and their count */
	struct passes_extent *bad;
	size_t bad_count, bad_cap;
	uint64_t bad_blocks;
	uint32_t milestone[PASSES_MILESTONES];	/* the pass; 0: not yet */
	enum passes_end ended;
	/* the pass in progress (current 0: none): how many slices of its
	   order are stamped, each window's write time, and what it cost
	   before the run that stopped in it */
	uint32_t current, stamped, window_count;
	uint64_t *window_write_ns;	/* by window index */
	uint64_t carried_device_ns, carried_wall_ns;
	uint64_t carried_written, carried_read;
};

/* What the loop is told and tells. */
struct passes_options {
	volatile sig_atomic_t *stop;	/* set by a signal: stop cleanly */
	const char *state_path;		/* NULL: no state file */
	/* the progress line: bytes done of a pass's total */
	void (*progress)(void *ctx, uint32_t pass, uint64_t done,
			 uint64_t total);
	/* a pass done (or ended early, its outcome says how): 0 or an
	   error that ends the run */
	int (*pass_done)(void *ctx, const struct passes_run *run,
			 const struct passes_pass *pass);
	void *ctx;
};

/*
 * A new run over [start, end) of dev, with its identity, seed and ends.
 * 0 or -ENOMEM.
 */
int passes_run_init(struct passes_run *run, const struct dev *dev,
		    const char *identity, uint64_t start, uint64_t end,
		    uint64_t seed);

void passes_run_free(struct passes_run *run);

/* The logical blocks of the run's range. */
uint64_t passes_blocks(const struct passes_run *run);

/* The new bad ranges pass found (count in *n). */
const struct passes_range *passes_ranges_of(const struct passes_run *run,
					    uint32_t pass, size_t *n);

/*
 * The passes on dev (opened for writing, the range allowed), from
 * where run stands, until one of its ends; run->end says which.  With a
 * state path the state file is written after each batch of windows and
 * each pass.  0; -EINTR when a signal stopped it; another negative
 * errno when it failed, why saying so (the device, the state file).
 */
int passes_go(struct dev *dev, const struct passes_options *options,
	      struct passes_run *run, char *why, size_t size);

/* "all-done", "until-reached", "read-only", "stopped-answering"... */
const char *passes_end_name(enum passes_end end);

/* "clean", "errors", "read-only", "stopped-answering" */
const char *passes_outcome_name(enum passes_outcome outcome);

/*
 * The device now refuses to be opened for writing (a card the kernel
 * holds read-only at the end of its life): the pass it was to run ends
 * the run, read-only.  0 or -ENOMEM.
 */
int passes_refused_at_open(struct passes_run *run);

/* The salt of a pass's stamps, from the run's seed (never 0). */
uint64_t passes_salt(uint64_t seed, uint32_t pass);

/* The order the pass stamps count slices in: a seeded shuffle. */
void passes_order(uint64_t seed, uint32_t pass, uint32_t *order,
		  uint32_t count);

/* The windows of a slice, and the slices of the run's range. */
uint32_t passes_slice_windows(const struct passes_run *run);
uint32_t passes_slices(const struct passes_run *run);

#endif
