/*
 * analysis: findings from measurements - the regression of the interval
 * test, and (in later parts) erase size, page size and open erase blocks.
 * Numbers in, numbers out; nothing here reads a device or prints.
 */
#include "analysis.h"

int analysis_linear_fit(const double *x, const double *y, size_t n,
			double *slope, double *intercept)
{
	double mean_x = 0, mean_y = 0, sxx = 0, sxy = 0;

	if (n < 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		mean_x += x[i] / (double)n;
		mean_y += y[i] / (double)n;
	}
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mean_x) * (x[i] - mean_x);
		sxy += (x[i] - mean_x) * (y[i] - mean_y);
	}
	if (sxx == 0)
		return -1;
	*slope = sxy / sxx;
	*intercept = mean_y - *slope * mean_x;
	return 0;
}
