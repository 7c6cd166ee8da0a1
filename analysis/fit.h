/*
 * fit: the statistics the readings rest on - the median, the
 * confidence a separation in noise units is worth, least-squares lines
 * and the interval test's regression.  Numbers in, numbers out.
 */
#ifndef FLASHBENCH_FIT_H
#define FLASHBENCH_FIT_H

#include <stddef.h>

/* Confidence from a separation measured in noise units. */
double analysis_confidence(double z);

/*
 * Least-squares line y = intercept + slope * x through n points.
 * Returns 0, or -1 when fewer than two distinct x values make it undefined.
 */
int analysis_linear_fit(const double *x, const double *y, size_t n,
			double *slope, double *intercept);

/*
 * The same with a weight per point (NULL: all 1).  Weighting by 1/y^2
 * fits relative errors, so small values count as much as large ones.
 */
int analysis_weighted_fit(const double *x, const double *y,
			  const double *weight, size_t n, double *slope,
			  double *intercept);

/*
 * The interval test's regression of read time (ns) against length
 * (bytes): weighted by 1/y^2, so the small sizes, which decide the access
 * time, count as much as the large ones.  The text line and the chart
 * both take it from here.  Returns 0, or -1 as analysis_weighted_fit.
 * n is at most ANALYSIS_FIT_MAX; more points are ignored.
 */
#define ANALYSIS_FIT_MAX 256
int analysis_interval_fit(const double *length_bytes, const double *time_ns,
			  size_t n, double *ns_per_byte, double *access_ns);

/* Median of n values (n > 0); the array is reordered. */
double analysis_median(double *values, size_t n);

#endif
