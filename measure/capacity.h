/*
 * capacity: --capacity-check, the search for a card's real capacity.  It
 * runs the capacity-check program (programs.c) in rounds, each probing
 * evenly across the range where the end of the real capacity can still
 * be, classifies what the probes read back (stamp.h), narrows the range
 * to the logical block, measures a write cache if one hides the fake,
 * and restores every block it wrote from the undo file (undo.h), then
 * flushes the device before the file is removed.  The verdict and the
 * evidence go out as records.
 */
#ifndef FLASHBENCH_CAPACITY_H
#define FLASHBENCH_CAPACITY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dev.h"
#include "output/render.h"
#include "measure/undo/undo.h"

struct capacity_options {
	uint64_t cache_limit_bytes;	/* caches up to this are defeated */
	const char *undo_path;
	volatile sig_atomic_t *stop;	/* set by a signal: stop, restore */
	struct render *report;		/* the records go here */
	struct render *also_report;	/* and a copy here, or NULL */
	FILE *out;			/* flushed after each round */
	bool every_probe;		/* evidence: each probe, not only the
					   two at the edge */
};

/* What the check found, and what it cost. */
struct capacity_result {
	const char *verdict;		/* "genuine", "fake", "damaged" */
	const char *fake_kind;		/* "wraparound", "limbo", "io-error",
					   or NULL */
	double cache_bytes;		/* NaN when no cache was seen */
	uint64_t usable_bytes, announced_bytes;
	uint64_t bytes_written;		/* probes and flushes */
	uint64_t bytes_restored;
	uint64_t device_time_ns;
	unsigned rounds;
	struct undo_result restore;
	bool restored;			/* every block put back and checked */
};

/* Smallest device the check takes with a given cache limit. */
uint64_t capacity_min_device_bytes(uint64_t cache_limit_bytes);

/* The most the check can write (probes, flushes), for the announcement. */
uint64_t capacity_max_write_bytes(uint64_t device_bytes, uint32_t lbs,
				  uint64_t cache_limit_bytes);

/*
 * Run the check on dev, opened for writing with the whole device
 * allowed.  The undo file is created first; every block is saved there
 * before it is written, and put back and read back at the end, also when
 * stopped.  Returns 0, -EINTR when stopped (restored all the same), or a
 * negative errno: dev->error holds a device failure; undo_error is set
 * for a failure of the undo file (its errno is returned); -ERANGE says a
 * round's program did not fit the device (a flaw of the search).
 */
int capacity_run(struct dev *dev, const struct capacity_options *options,
		 struct capacity_result *result, char *undo_error,
		 size_t size);

/*
 * The restore's records: what was put back, how much read back as saved,
 * and each range a damaged record left as it was.
 */
int capacity_emit_restore(struct render *report,
			  const struct undo_result *restore);

#endif
