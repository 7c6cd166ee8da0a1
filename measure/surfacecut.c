/*
 * surfacecut: how a --surface range is cut - its windows, their
 * transfers, what a run writes over it, the most --keep-data's undo
 * file holds - and its bad ranges, kept as blocks are found and merged
 * (surfacecut.h).  Pure arithmetic on the range and the result, apart
 * from the run (surface.c) so --passes and the front door share it.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lib/units.h"
#include "measure/surface.h"
#include "measure/surfacecut.h"

uint64_t surface_window_bytes(uint64_t span, uint32_t lbs)
{
	uint64_t window = span / SURFACE_MAX_WINDOWS;

	if (window < MIB)
		window = MIB;
	/* whole transfers: a multiple of the transfer size it gets */
	if (window > SURFACE_CHUNK_BYTES)
		window = (window + SURFACE_CHUNK_BYTES - 1) /
			 SURFACE_CHUNK_BYTES * SURFACE_CHUNK_BYTES;
	return window / lbs * lbs;
}

uint32_t surface_window_count(uint64_t span, uint32_t lbs)
{
	uint64_t window = surface_window_bytes(span, lbs);
	uint64_t count = (span + window - 1) / window;

	/* as cut_windows cuts them */
	return (uint32_t)(count > SURFACE_MAX_WINDOWS + 1 ?
			  SURFACE_MAX_WINDOWS + 1 : count);
}

uint64_t surface_chunk_bytes(uint64_t window_bytes)
{
	return window_bytes < SURFACE_CHUNK_BYTES ? window_bytes :
						    SURFACE_CHUNK_BYTES;
}

uint64_t surface_write_bytes(enum surface_mode mode, uint64_t span)
{
	/* --keep-data writes each block twice: its stamp, then its data */
	return mode == SURFACE_READ ? 0 : mode == SURFACE_WRITE ? span :
					  2 * span;
}

uint64_t surface_undo_bound_bytes(void)
{
	/* the header, a progress record, and per chunk its record (64-byte
	   head and trailer) and its done mark (the same, no data): the file
	   holds one chunk, and the next one's is staged beside it */
	return 256 + (64 + 64 + 64) +
	       SURFACE_KEEP_CHUNKS * (SURFACE_KEEP_BYTES + 4 * 64);
}

void surface_add_bad(struct surface_result *r, uint64_t offset, uint32_t lbs,
		     int state)
{
	struct surface_range *last = r->range_count ?
				     &r->ranges[r->range_count - 1] : NULL;

	r->bad_blocks++;
	if (offset < r->first_bad)
		r->first_bad = offset;
	if (last && last->state == state &&
	    last->offset + last->length == offset) {
		last->length += lbs;
		return;
	}
	if (r->range_count == SURFACE_MAX_RANGES) {
		r->ranges_cut = true;
		return;
	}
	r->ranges[r->range_count++] = (struct surface_range){ offset, lbs,
							      state };
}

/* Sort the ranges (a block read again comes after its window's rest). */
static int by_offset(const void *a, const void *b)
{
	const struct surface_range *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

size_t surface_merge_ranges(struct surface_range *ranges, size_t count)
{
	size_t kept = 0;

	if (!count)		/* ranges may be NULL then: qsort wants one */
		return 0;
	qsort(ranges, count, sizeof(*ranges), by_offset);
	for (size_t i = 0; i < count; i++) {
		struct surface_range *last = kept ? &ranges[kept - 1] : NULL;

		if (last && last->state == ranges[i].state &&
		    last->offset + last->length == ranges[i].offset)
			last->length += ranges[i].length;
		else
			ranges[kept++] = ranges[i];
	}
	return kept;
}
