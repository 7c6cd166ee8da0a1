/*
 * capacity: --capacity-check, the search for a card's real capacity.  It
 * runs the capacity-check program (programs.c) in rounds, each probing
 * evenly across the range where the end of the real capacity can still
 * be, classifies what the probes read back (stamp.h), narrows the range
 * to the logical block, measures a write cache if one hides the fake,
 * and restores every block it wrote from the undo file (undo.h), then
 * flushes the device before the file is removed.  The verdict and the
 * evidence go out through a struct capacity_sink (records/capacity.c
 * makes records of them).
 */
#ifndef FLASHBENCH_CAPACITY_H
#define FLASHBENCH_CAPACITY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dev.h"
#include "measure/undo/undo.h"

/* One probe of a round, as the round's evidence shows it. */
struct capacity_probe {
	unsigned round;			/* from 1 */
	uint64_t offset_bytes;
	const char *result;		/* its read-back: a stamp state's name,
					   "old-data" */
	bool shares_storage;		/* it read back another block's stamp */
	uint64_t named_offset_bytes;	/* that block, when it shares */
	bool good;
};

/* What the check found, and what it cost. */
struct capacity_result {
	const char *device_path;
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

/*
 * Where the check hands what it finds, as it finds it: each probe of a
 * round's evidence (both sides of the edge, or all with every_probe),
 * the verdict once everything is put back, and a restore that left
 * blocks as they were.  Each returns 0 or an error that ends the check
 * (restoring all the same); a NULL callback takes nothing.
 */
struct capacity_sink {
	int (*probe)(void *ctx, const struct capacity_probe *probe);
	int (*verdict)(void *ctx, const struct capacity_result *result);
	int (*restore)(void *ctx, const struct undo_result *restore);
	void *ctx;
};

struct capacity_options {
	uint64_t cache_limit_bytes;	/* caches up to this are defeated */
	const char *undo_path;
	volatile sig_atomic_t *stop;	/* set by a signal: stop, restore */
	struct capacity_sink sink;	/* the results go here */
	FILE *out;			/* flushed after each round */
	bool every_probe;		/* evidence: each probe, not only the
					   two at the edge */
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

#endif
