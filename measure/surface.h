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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"
#include "measure/undo/undo.h"
#include "vm/stamp.h"

/* Bad ranges a result lists; past them only the count grows. */
#define SURFACE_MAX_RANGES 256
/* Windows a range is cut into at most: a 1024th of it, or 1 MiB. */
#define SURFACE_MAX_WINDOWS 1024
/* Slow ranges named: windows read below this fraction of the median. */
#define SURFACE_SLOW_RANGES 16
#define SURFACE_SLOW_FRACTION 0.8

enum surface_mode { SURFACE_READ, SURFACE_WRITE, SURFACE_KEEP };

/* Why a run ended before the end of its range: then it has no verdict. */
enum surface_stop {
	SURFACE_FINISHED,
	SURFACE_INTERRUPTED,		/* a signal */
	SURFACE_DEVICE_GONE,		/* it stopped answering */
	SURFACE_UNDO_FAILED,		/* the undo file could not be written */
	SURFACE_FAILED,			/* any other failure */
};

/* One window's device time: 0 where it was not timed. */
struct surface_window {
	uint64_t offset, bytes;
	uint64_t read_ns, write_ns;
};

/* Blocks in a row that are bad for one reason. */
struct surface_range {
	uint64_t offset, length;
	int state;			/* enum stamp_state; the first one's */
};

struct surface_result {
	enum surface_mode mode;
	uint64_t start, end;		/* the range checked: [start, end) */
	uint64_t window_bytes, chunk_bytes;
	uint32_t block_bytes;		/* the device's logical block */
	uint64_t resumed_from;		/* --resume: where this run began */
	uint64_t checked_end;		/* blocks below it were checked */
	struct surface_window windows[SURFACE_MAX_WINDOWS + 1];
	unsigned window_count;
	struct surface_range ranges[SURFACE_MAX_RANGES];
	unsigned range_count;
	bool ranges_cut;		/* more bad ranges than listed */
	uint64_t bad_blocks;		/* every one, listed or not */
	uint64_t states[STAMP_STATE_COUNT + 1];	/* blocks by what they
						   held; the last: old data */
	uint64_t first_bad;		/* offset, or UINT64_MAX */
	uint64_t good_end;		/* end of the last good block */
	bool aliased;			/* some block read another's stamp */
	uint64_t usable_bytes;		/* a fake's, as --capacity-check */
	bool nothing_kept;		/* no block kept its stamp: no usable
					   size, and no capacity lie shown */
	uint64_t announced_bytes;	/* the device's size */
	/* "genuine", "damaged", "fake"; read-only: "readable", "damaged";
	   --keep-data: "readable-and-writable" where --write says genuine
	   (blind to wraparound beyond a chunk); NULL: stopped, none */
	const char *verdict;
	const char *fake_kind;		/* as --capacity-check's, or NULL */
	uint64_t bytes_written, bytes_read, bytes_restored;
	uint64_t blocks_not_back;	/* --keep-data: not as they were */
	uint64_t device_time_ns;
	uint64_t wall_ns;
	bool partial;			/* stopped before the end */
	enum surface_stop stopped;	/* and why */
	uint64_t stopped_at;		/* the offset it stopped at */
};

/* The index of the "old data" count in states[]. */
#define SURFACE_OLD_DATA STAMP_STATE_COUNT

/* --keep-data's undo file (one chunk) and the next chunk's, staged
   beside it, hold at most this many chunks' blocks. */
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
	/*
	 * --passes (each 0 or NULL when not used): the stamps' salt (0: a
	 * fresh random one); a block that still holds its own stamp under
	 * old_salt, the pass before's, is old data; the windows stamped
	 * in order, in units of order_windows windows in a row (0: one;
	 * order[i] is a unit's index from start, order_count of them),
	 * those before order_from already stamped by a stopped run, and
	 * stamped told after each unit (non-zero: the run stops with that
	 * error, why set by the caller); bad told of every block whose
	 * stamp could not be written (STAMP_WRITE_ERROR) and of every
	 * block that did not read back intact, and its state (enum
	 * stamp_state, or SURFACE_OLD_DATA).
	 */
	uint64_t salt, old_salt;
	const uint32_t *order;
	uint32_t order_count, order_from, order_windows;
	int (*stamped)(void *ctx, uint32_t done);
	void (*bad)(void *ctx, uint64_t offset, uint32_t length, int state);
	/*
	 * --passes (NULL when not used): a window's stamps failed, offset
	 * the first block refused, told before they are tried again a
	 * block at a time (a card that turned read-only or died would
	 * have every block tried in vain): non-zero stops the run with
	 * that error, the refused transfers' blocks counted as write
	 * errors.
	 */
	int (*refused)(void *ctx, uint64_t offset);
};

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
