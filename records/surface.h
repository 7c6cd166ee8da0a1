/*
 * records/surface: what --surface found, as records - one per window
 * (its read and write rates), one per bad range, one summary with the
 * verdict - and their text layout.  measure/surface.c fills a struct
 * surface_result (measure/surface.h); this file only turns it into
 * records for report.c.
 */
#ifndef FLASHBENCH_RECORDS_SURFACE_H
#define FLASHBENCH_RECORDS_SURFACE_H

#include <stdbool.h>

#include "lib/record.h"
#include "measure/surface.h"

/* Every record of a result (windows, bad ranges, the summary), each
   handed to sink; 0 or sink's first error. */
int surface_emit(const struct record_sink *sink,
		 const struct surface_result *r);

/*
 * The read, or write, rates' min, median and max (bytes/s; NAN: none)
 * as fields of rec, as --surface's summary shows them.
 */
void surface_add_rates(struct record *rec, bool writes,
		       const double values[3]);

/* What a bad block held: "read-error", "old-data", ... */
const char *surface_state_name(int state);

/* "read-only", "write" or "keep-data". */
const char *surface_mode_name(enum surface_mode mode);

#endif
