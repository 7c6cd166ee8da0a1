/*
 * reportsurface: what --surface found, as records - one per window
 * (its read and write rates), one per bad range, one summary with the
 * verdict - and their text layout.  measure/surface.c fills a struct
 * surface_result; this file only turns it into records for report.c.
 */
#ifndef FLASHBENCH_REPORTSURFACE_H
#define FLASHBENCH_REPORTSURFACE_H

#include <stdbool.h>
#include <stdint.h>

#include "output/report.h"
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

/* Where the records go: vm_exec.emit's shape. */
struct sink {
	int (*emit)(void *ctx, const struct record *record);
	void *ctx;
};

/* Every record of a result: windows, bad ranges, the summary. */
int surface_emit(struct sink *report, const struct surface_result *r);

/* "read-only", "write" or "keep-data". */
const char *surface_mode_name(enum surface_mode mode);

#endif
