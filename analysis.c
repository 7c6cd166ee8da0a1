/*
 * analysis: findings from measurements - erase-block and page size from
 * boundary costs, open erase blocks from open-AU runs, the regression of
 * the interval test.  Numbers in, numbers out; nothing here reads a device
 * or prints.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* Separations below this many noise units are not findings. */
#define MIN_Z 3.0
/* An erase boundary must cost at least this share of a read. */
#define MIN_ERASE_SHARE 0.05

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

struct split {
	double low_q75, high_q25;	/* the two groups' facing quartiles */
	double low_median, high_median;
	size_t low_count, high_count;
	size_t misplaced;		/* points on the wrong side of mid */
};

/*
 * Split the points below limit (0: all) into multiples of size and the
 * rest, and measure how far apart their diffs lie.
 */
static void split_by(const struct analysis_align_point *points, size_t n,
		     uint64_t size, uint64_t limit, struct split *s)
{
	double *high = calloc(n + 1, sizeof(double));
	double *low = calloc(n + 1, sizeof(double));
	double mid;

	memset(s, 0, sizeof(*s));
	if (!high || !low)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (limit && points[i].align >= limit)
			continue;
		if (points[i].align % size == 0)
			high[s->high_count++] = points[i].diff;
		else
			low[s->low_count++] = points[i].diff;
	}
	if (s->high_count && s->low_count) {
		s->high_q25 = quantile(high, s->high_count, 0.25);
		s->low_q75 = quantile(low, s->low_count, 0.75);
		s->high_median = quantile(high, s->high_count, 0.5);
		s->low_median = quantile(low, s->low_count, 0.5);
		mid = (s->high_median + s->low_median) / 2;
		for (size_t i = 0; i < s->high_count; i++)
			s->misplaced += high[i] < mid;
		for (size_t i = 0; i < s->low_count; i++)
			s->misplaced += low[i] > mid;
	}
out:
	free(high);
	free(low);
}

/*
 * Noise of a diff, the same for every candidate size: the measured
 * standard errors, else the spread of the faster half of the diffs; never
 * below 0.2% of a read, the resolution a timed read can promise.
 */
static double diff_noise(const struct analysis_align_point *points,
			 size_t n)
{
	double *values = calloc(n + 1, sizeof(double));
	double *deviations = calloc(n + 1, sizeof(double));
	double noise = 0, floor_ns = 0, center;
	size_t count = 0;

	if (!values || !deviations || n == 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		values[i] = points[i].pre;
	floor_ns = 0.002 * quantile(values, n, 0.5);
	for (size_t i = 0; i < n; i++)
		if (points[i].noise > 0)
			values[count++] = points[i].noise;
	if (count) {
		noise = quantile(values, count, 0.5);
	} else {
		for (size_t i = 0; i < n; i++)
			values[i] = points[i].diff;
		center = quantile(values, n, 0.5);
		for (size_t i = 0; i < n; i++)
			if (points[i].diff <= center)
				deviations[count++] = points[i].diff;
		center = quantile(deviations, count, 0.5);
		for (size_t i = 0; i < count; i++)
			deviations[i] = fabs(deviations[i] - center);
		noise = count >= 3 ? 1.4826 * quantile(deviations, count, 0.5)
				   : 0;
	}
out:
	free(values);
	free(deviations);
	return noise > floor_ns ? noise : floor_ns > 0 ? floor_ns : 1;
}

/*
 * Best boundary size among the points below limit (0: all): the one whose
 * multiples' diffs stand furthest above the rest, in noise units.
 */
static void best_boundary(const struct analysis_align_point *points,
			  size_t n, uint64_t limit, uint64_t *best_size,
			  double *best_z, double *level, double *noise)
{
	double sigma = diff_noise(points, n);

	*best_size = 0;
	*best_z = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t size = points[i].align;
		struct split s;
		double z;

		if (limit && size >= limit)
			continue;
		split_by(points, n, size, limit, &s);
		if (s.high_count < 2 || s.low_count < 2)
			continue;
		z = (s.high_q25 - s.low_q75) / sigma;
		/* a size whose multiples include fast points fits worse */
		z *= pow(1 - (double)s.misplaced /
			 (double)(s.high_count + s.low_count), 2);
		if (z > *best_z || (z == *best_z && size < *best_size)) {
			*best_z = z;
			*best_size = size;
			*level = s.high_median - s.low_median;
			*noise = sigma;
		}
	}
}

static double typical_read(const struct analysis_align_point *points,
			   size_t n)
{
	double *pre = calloc(n + 1, sizeof(double)), result = 0;

	if (pre && n) {
		for (size_t i = 0; i < n; i++)
			pre[i] = points[i].pre;
		result = quantile(pre, n, 0.5);
	}
	free(pre);
	return result;
}

void analysis_align(const struct analysis_align_point *points, size_t count,
		    struct analysis_geometry *g)
{
	uint64_t size;
	double z, level = 0, noise = 0;

	memset(g, 0, sizeof(*g));
	best_boundary(points, count, 0, &size, &z, &level, &noise);
	g->erase_z = z;
	g->noise_ns = noise;
	/* an erase-block boundary costs a real fraction of a read; caches
	   and loop devices show only scatter far below that */
	if (size == 0 || z < MIN_Z || level < MIN_ERASE_SHARE *
	    typical_read(points, count))
		return;
	g->erase = (struct analysis_finding){ true, size,
					      analysis_confidence(z) };
	g->boundary_ns = level;
	/* the page: the same question below the erase size */
	best_boundary(points, count, size, &size, &z, &level, &noise);
	g->page_z = z;
	if (size == 0 || z < MIN_Z || g->erase.value % size)
		return;
	g->page = (struct analysis_finding){ true, size,
					     analysis_confidence(z) };
	g->page_ns = level;
}

/* Random runs with fewer N than run, which it is then held against. */
static bool random_below(const struct analysis_run *runs, size_t count,
			 const struct analysis_run *run)
{
	for (size_t i = 0; i < count; i++)
		if (runs[i].random && runs[i].nr && runs[i].nr < run->nr &&
		    runs[i].count)
			return true;
	return false;
}

/*
 * Whether ref is one of the runs that run is held against: the same
 * order with fewer N; for the first random run, linear runs up to its N.
 */
static bool is_reference(const struct analysis_run *run,
			 const struct analysis_run *ref, bool against_linear)
{
	if (ref->nr == 0 || ref->count == 0)
		return false;
	if (!run->random)
		return !ref->random && ref->nr < run->nr;
	if (against_linear)
		return !ref->random && ref->nr <= run->nr;
	return ref->random && ref->nr < run->nr;
}

/* Highest rate at this size among the runs that run is held against. */
static double reference_rate(const struct analysis_run *runs, size_t count,
			     const struct analysis_run *run,
			     bool against_linear, uint64_t size)
{
	double best = 0;

	for (size_t i = 0; i < count; i++) {
		if (&runs[i] == run ||
		    !is_reference(run, &runs[i], against_linear))
			continue;
		for (size_t j = 0; j < runs[i].count; j++)
			if (runs[i].size[j] == size && runs[i].rate[j] > best)
				best = runs[i].rate[j];
	}
	return best;
}

void analysis_open_au_verdict(const struct analysis_run *runs, size_t count,
			      size_t index, struct analysis_verdict *v)
{
	const struct analysis_run *run = &runs[index];

	memset(v, 0, sizeof(*v));
	v->worst_ratio = 1;
	if (run->nr == 0)
		return;
	v->against_linear = run->random && !random_below(runs, count, run);
	for (size_t j = 0; j < run->count && j < ANALYSIS_MAX_SIZES; j++) {
		double ref = reference_rate(runs, count, run,
					    v->against_linear, run->size[j]);

		if (ref <= 0)
			continue;
		v->compared = true;
		if (run->rate[j] / ref < v->worst_ratio) {
			v->worst_ratio = run->rate[j] / ref;
			v->worst_size = run->size[j];
		}
	}
	v->fell = v->compared && v->worst_ratio < ANALYSIS_FALL_RATIO;
}

/*
 * How sure a count is: clear when N fell well below the threshold and
 * N - 1 was measured holding against runs with fewer still.
 */
static double count_confidence(double fall_ratio, bool adjacent_hold,
			       bool hold_compared, double hold_ratio)
{
	double clarity = 1 - fall_ratio / ANALYSIS_FALL_RATIO;

	if (clarity < 0)
		clarity = 0;
	if (adjacent_hold && hold_compared)
		return 0.55 + 0.4 * clarity + 0.05 * (hold_ratio > 0.8);
	if (adjacent_hold)
		return 0.45 + 0.35 * clarity;
	return 0.3;
}

static void open_count(const struct analysis_run *runs, size_t count,
		       bool random, struct analysis_open *open)
{
	struct analysis_finding *found = random ? &open->random : &open->linear;
	unsigned smallest_fall = 0, largest_hold = 0;
	double fall_ratio = 1, hold_ratio = 0;
	bool fall_against_linear = false, hold_compared = false;
	struct analysis_verdict v;

	for (size_t i = 0; i < count; i++) {
		if (runs[i].random != random || runs[i].nr == 0 ||
		    runs[i].count == 0)
			continue;
		analysis_open_au_verdict(runs, count, i, &v);
		if (v.fell && (!smallest_fall || runs[i].nr < smallest_fall ||
			       (runs[i].nr == smallest_fall &&
				v.worst_ratio < fall_ratio))) {
			smallest_fall = runs[i].nr;
			fall_ratio = v.worst_ratio;
			fall_against_linear = v.against_linear;
		}
	}
	for (size_t i = 0; i < count; i++) {
		if (runs[i].random != random || runs[i].nr == 0 ||
		    runs[i].count == 0 ||
		    (smallest_fall && runs[i].nr >= smallest_fall))
			continue;
		analysis_open_au_verdict(runs, count, i, &v);
		if (runs[i].nr > largest_hold ||
		    (runs[i].nr == largest_hold && v.compared &&
		     v.worst_ratio < hold_ratio)) {
			largest_hold = runs[i].nr;
			hold_ratio = v.worst_ratio;
			hold_compared = v.compared;
		}
	}
	memset(found, 0, sizeof(*found));
	if (!smallest_fall) {
		*(random ? &open->random_at_least : &open->linear_at_least) =
			largest_hold;
		return;
	}
	if (fall_against_linear && smallest_fall > 1) {
		/* slow already in random order: the count is not the cause */
		open->random_slow_nr = smallest_fall;
		open->random_slow_ratio = fall_ratio;
		return;
	}
	found->known = true;
	found->value = smallest_fall - 1;
	found->confidence = count_confidence(fall_ratio,
					     largest_hold == smallest_fall - 1,
					     hold_compared, hold_ratio);
}

void analysis_open_au(const struct analysis_run *runs, size_t count,
		      struct analysis_open *open)
{
	memset(open, 0, sizeof(*open));
	open_count(runs, count, false, open);
	open_count(runs, count, true, open);
}
