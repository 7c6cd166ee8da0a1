/*
 * surfacecut: how a --surface range is cut into windows and transfers,
 * what a run writes and its undo file holds, and its bad ranges kept
 * and merged.
 */
#ifndef FLASHBENCH_SURFACECUT_H
#define FLASHBENCH_SURFACECUT_H

#include <stddef.h>
#include <stdint.h>

#include "measure/surface.h"

/* The window for a range of span bytes: max(span / 1024, 1 MiB). */
uint64_t surface_window_bytes(uint64_t span, uint32_t lbs);

/* The windows such a range is cut into (--passes orders them). */
uint32_t surface_window_count(uint64_t span, uint32_t lbs);

/* The transfer size within such a window. */
uint64_t surface_chunk_bytes(uint64_t window_bytes);

/* The most a run writes over the range (for the announcement). */
uint64_t surface_write_bytes(enum surface_mode mode, uint64_t span);

/*
 * Bad ranges sorted by offset, neighbours of one state merged (a block
 * read again comes after its window's rest): their new count.
 */
size_t surface_merge_ranges(struct surface_range *ranges, size_t count);

/* The most --keep-data's undo file holds, in bytes. */
uint64_t surface_undo_bound_bytes(void);

/*
 * One more bad block at offset (lbs bytes, of state) counted in r: its
 * range grown when it follows the last one of its state, else a new
 * range (none past SURFACE_MAX_RANGES: r->ranges_cut).
 */
void surface_add_bad(struct surface_result *r, uint64_t offset, uint32_t lbs,
		     int state);

#endif
