/*
 * interval: the interval test's regression over the fastest read of each
 * size - the rate and access time it implies, and each size's overhead
 * beyond them - as records, for the report to render.
 */
#ifndef FLASHBENCH_INTERVAL_H
#define FLASHBENCH_INTERVAL_H

#include <stddef.h>

#include "lib/record.h"

#define INTERVAL_MAX_POINTS 64	/* sizes the interval test reads at most */

struct interval_points {
	double length_bytes[INTERVAL_MAX_POINTS];
	double fastest_ns[INTERVAL_MAX_POINTS];
	size_t count;
};

/* Keep a record's size and fastest read (its first two fields). */
void interval_add(struct interval_points *points,
		  const struct record *record);

/*
 * The regression, then one overhead record a size, each handed to sink;
 * nothing when no line fits.  The first error sink returns, or 0.
 */
int interval_summary(const struct interval_points *points,
		     const struct record_sink *sink);

#endif
