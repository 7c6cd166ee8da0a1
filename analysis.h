/*
 * analysis: turns measurements into findings.  Pure computation on
 * numbers: no I/O, no printing.
 */
#ifndef FLASHBENCH_ANALYSIS_H
#define FLASHBENCH_ANALYSIS_H

#include <stddef.h>

/*
 * Least-squares line y = intercept + slope * x through n points.
 * Returns 0, or -1 when fewer than two distinct x values make it undefined.
 */
int analysis_linear_fit(const double *x, const double *y, size_t n,
			double *slope, double *intercept);

#endif
