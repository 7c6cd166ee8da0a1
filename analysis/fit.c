/*
 * fit: medians, confidence from noise units, least-squares
 * lines and the interval test's regression.  Pure arithmetic: the
 * readings in staircase.c, openau.c and detected.c build on it.
 */
#include <math.h>
#include <stdlib.h>

#include "analysis/fit.h"

int analysis_linear_fit(const double *x, const double *y, size_t n,
			double *slope, double *intercept)
{
	return analysis_weighted_fit(x, y, NULL, n, slope, intercept);
}

int analysis_weighted_fit(const double *x, const double *y,
			  const double *weight, size_t n, double *slope,
			  double *intercept)
{
	double sw = 0, mean_x = 0, mean_y = 0, sxx = 0, sxy = 0;

	if (n < 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double w = weight ? weight[i] : 1;

		sw += w;
		mean_x += w * x[i];
		mean_y += w * y[i];
	}
	if (sw <= 0)
		return -1;
	mean_x /= sw;
	mean_y /= sw;
	for (size_t i = 0; i < n; i++) {
		double w = weight ? weight[i] : 1;

		sxx += w * (x[i] - mean_x) * (x[i] - mean_x);
		sxy += w * (x[i] - mean_x) * (y[i] - mean_y);
	}
	if (sxx == 0)
		return -1;
	*slope = sxy / sxx;
	*intercept = mean_y - *slope * mean_x;
	return 0;
}

int analysis_interval_fit(const double *length_bytes, const double *time_ns,
			  size_t n, double *ns_per_byte, double *access_ns)
{
	double weight[ANALYSIS_FIT_MAX];

	if (n > ANALYSIS_FIT_MAX)
		n = ANALYSIS_FIT_MAX;
	/* relative errors: the small sizes decide the access time */
	for (size_t i = 0; i < n; i++)
		weight[i] = time_ns[i] > 0 ? 1 / (time_ns[i] * time_ns[i]) : 0;
	return analysis_weighted_fit(length_bytes, time_ns, weight, n,
				     ns_per_byte, access_ns);
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* q-quantile (0..1) of n values, linear between order statistics. */
static double quantile(double *values, size_t n, double q)
{
	double position, fraction;
	size_t below;

	qsort(values, n, sizeof(*values), compare_doubles);
	position = q * (double)(n - 1);
	below = (size_t)position;
	fraction = position - (double)below;
	if (below + 1 >= n)
		return values[n - 1];
	return values[below] * (1 - fraction) + values[below + 1] * fraction;
}

double analysis_median(double *values, size_t n)
{
	return quantile(values, n, 0.5);
}

double analysis_confidence(double z)
{
	/* 4 noise units: even odds; 8: near certain */
	return z <= 0 ? 0 : 1 / (1 + exp(-(z - 4) * 1.2));
}
