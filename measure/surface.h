/*
 * surface: --surface, every block of a range checked, with the rate
 * across it.  Read-only, it reads every block in large transfers, a
 * window at a time, and maps the blocks that cannot be read (each
 * failed transfer read again a logical block at a time).  With --write
 * it stamps every block (stamp.h), then reads everything back and
 * classifies each block as the capacity check does.  With --keep-data
 * it does the same a chunk at a time, each chunk saved to the undo file
 * (undo.h) first and put back and read back before the next, so the
 * card keeps every byte and the file stays small.
 */
#ifndef FLASHBENCH_SURFACE_H
#define FLASHBENCH_SURFACE_H

#include <signal.h>
#include <stdint.h>

#include "dev.h"
#include "measure/undo/undo.h"
#include "output/reportsurface.h"

/* --keep-data's undo file holds at most this many chunks' blocks. */
#define SURFACE_KEEP_CHUNKS 2
/* The largest transfer --surface makes. */
#define SURFACE_CHUNK_BYTES (4ULL << 20)
/* --keep-data's chunk: saved, fsync'd, tested and put back at once
   (large, so the fsyncs and the file's renewals are few) */
#define SURFACE_KEEP_BYTES (16ULL << 20)

struct surface_options {
	enum surface_mode mode;
	uint64_t start, end;		/* the range, whole logical blocks */
	const char *undo_path;		/* --keep-data */
	/* --resume: where the stopped run stood (its range is this one) */
	const struct undo_progress *resume;
	volatile sig_atomic_t *stop;	/* set by a signal: stop cleanly */
	/* bytes done of total, every window, for the progress line */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
};

/* The window for a range of span bytes: max(span / 1024, 1 MiB). */
uint64_t surface_window_bytes(uint64_t span, uint32_t lbs);

/* The transfer size within such a window. */
uint64_t surface_chunk_bytes(uint64_t window_bytes);

/* The most a run writes over the range (for the announcement). */
uint64_t surface_write_bytes(enum surface_mode mode, uint64_t span);

/* The most --keep-data's undo file holds, in bytes. */
uint64_t surface_undo_bound_bytes(void);

/*
 * Run it on dev (opened for writing, with the range allowed, unless
 * read-only).  result is filled as far as the run got (partial when
 * stopped).  0, -EINTR when stopped (--keep-data: every byte back), or
 * a negative errno: dev->error holds a device failure, why a failure of
 * the undo file or a block not put back.
 */
int surface_run(struct dev *dev, const struct surface_options *options,
		struct surface_result *result, char *why, size_t size);

#endif
