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

/* ---- open-AU runs ---- */

static bool same_group(const struct analysis_run *a,
		       const struct analysis_run *b)
{
	return a->nr && a->nr == b->nr && a->random == b->random;
}

/* Where size sits in run, or run->count. */
static size_t size_index(const struct analysis_run *run, uint64_t size)
{
	size_t j = 0;

	while (j < run->count && run->size[j] != size)
		j++;
	return j;
}

/* Sizes largest first, each rate with its size. */
static void sort_sizes(struct analysis_run *run)
{
	for (size_t i = 1; i < run->count; i++)
		for (size_t j = i; j > 0 && run->size[j] > run->size[j - 1];
		     j--) {
			uint64_t size = run->size[j];
			double rate = run->rate[j];

			run->size[j] = run->size[j - 1];
			run->rate[j] = run->rate[j - 1];
			run->size[j - 1] = size;
			run->rate[j - 1] = rate;
		}
}

/* The median rate at each size over the runs of one group. */
static void combine_group(const struct analysis_run *runs, size_t count,
			  const unsigned *group_of, unsigned group,
			  struct analysis_run *out)
{
	double rates[ANALYSIS_MAX_RUNS];

	for (size_t i = 0; i < count; i++)
		for (size_t j = 0; group_of[i] == group && j < runs[i].count;
		     j++)
			if (size_index(out, runs[i].size[j]) == out->count &&
			    out->count < ANALYSIS_MAX_SIZES)
				out->size[out->count++] = runs[i].size[j];
	for (size_t k = 0; k < out->count; k++) {
		size_t n = 0, j;

		for (size_t i = 0; i < count; i++) {
			if (group_of[i] != group)
				continue;
			j = size_index(&runs[i], out->size[k]);
			if (j < runs[i].count)
				rates[n++] = runs[i].rate[j];
		}
		out->rate[k] = analysis_median(rates, n);
	}
	sort_sizes(out);
}

size_t analysis_open_au_combine(const struct analysis_run *runs, size_t count,
				struct analysis_run *combined,
				unsigned *group_of)
{
	size_t groups = 0;

	if (count > ANALYSIS_MAX_RUNS)
		count = ANALYSIS_MAX_RUNS;
	for (size_t i = 0; i < count; i++) {
		size_t g = 0;

		while (g < groups && !same_group(&combined[g], &runs[i]))
			g++;
		if (g == groups) {
			memset(&combined[g], 0, sizeof(combined[g]));
			combined[g].nr = runs[i].nr;
			combined[g].random = runs[i].random;
			groups++;
		}
		combined[g].combined++;
		group_of[i] = (unsigned)g;
	}
	for (size_t g = 0; g < groups; g++)
		combine_group(runs, count, group_of, (unsigned)g,
			      &combined[g]);
	return groups;
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

/*
 * The largest block size of all runs, the erase size: writing a whole
 * erase block needs none open, so that row says nothing of the count.
 */
static uint64_t whole_block_size(const struct analysis_run *runs,
				 size_t count)
{
	uint64_t largest = 0;

	for (size_t i = 0; i < count; i++)
		for (size_t j = 0; j < runs[i].count; j++)
			if (runs[i].size[j] > largest)
				largest = runs[i].size[j];
	return largest;
}

void analysis_open_au_verdict(const struct analysis_run *runs, size_t count,
			      size_t index, struct analysis_verdict *v)
{
	const struct analysis_run *run = &runs[index];
	uint64_t whole = whole_block_size(runs, count);
	double ratios[ANALYSIS_MAX_SIZES];
	size_t compared = 0;

	memset(v, 0, sizeof(*v));
	v->worst_ratio = v->median_ratio = 1;
	if (run->nr == 0)
		return;
	v->against_linear = run->random && !random_below(runs, count, run);
	for (size_t i = 0; i < count; i++)
		if (&runs[i] != run &&
		    is_reference(run, &runs[i], v->against_linear))
			v->has_reference = true;
	for (size_t j = 0; j < run->count && j < ANALYSIS_MAX_SIZES; j++) {
		double ref;

		if (run->size[j] >= whole)
			continue;
		ref = reference_rate(runs, count, run, v->against_linear,
				     run->size[j]);
		if (ref <= 0)
			continue;
		ratios[compared] = run->rate[j] / ref;
		if (!compared || ratios[compared] < v->worst_ratio) {
			v->worst_ratio = ratios[compared];
			v->worst_size = run->size[j];
		}
		compared++;
	}
	if (!compared)
		return;
	/*
	 * The median, not the worst: a card past its limit is slow across
	 * the sizes, while one stray row (the first rows of real runs often
	 * are) or the smallest writes alone, slower for other reasons (a
	 * small-write cache that serves one erase block), do not decide.
	 */
	v->compared = true;
	v->median_ratio = analysis_median(ratios, compared);
	v->fell = v->median_ratio < ANALYSIS_FALL_RATIO;
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* How far a held run's median stays above the threshold, 0..1. */
static double hold_clarity(double hold_ratio)
{
	return clamp01((hold_ratio - ANALYSIS_FALL_RATIO) /
		       (0.95 - ANALYSIS_FALL_RATIO));
}

/*
 * How sure a count is: clear when N fell well below the threshold and
 * N - 1 was measured holding well above it against runs with fewer still;
 * less when N - 1 is the lowest run, with nothing to hold it against;
 * little when N - 1 was not run (the count is anywhere in the gap).
 */
static double count_confidence(double fall_ratio, bool adjacent_hold,
			       bool hold_compared, double hold_ratio)
{
	double fall = clamp01(1 - fall_ratio / ANALYSIS_FALL_RATIO);

	if (adjacent_hold && hold_compared)
		return 0.5 + 0.25 * fall + 0.2 * hold_clarity(hold_ratio);
	if (adjacent_hold)
		return 0.45 + 0.3 * fall;
	return 0.3;
}

/* How sure "at least N" is: N held against runs with fewer, and how well. */
static double bound_confidence(double hold_ratio)
{
	return 0.5 + 0.45 * hold_clarity(hold_ratio);
}

static bool in_order(const struct analysis_run *run, bool random)
{
	return run->random == random && run->nr && run->count;
}

/* The lowest N in one order: the run the others are measured against. */
static unsigned lowest_nr(const struct analysis_run *runs, size_t count,
			  bool random)
{
	unsigned lowest = 0;

	for (size_t i = 0; i < count; i++)
		if (in_order(&runs[i], random) &&
		    (!lowest || runs[i].nr < lowest))
			lowest = runs[i].nr;
	return lowest;
}

/* What the runs of one order say: the first N to fall, the last to hold. */
struct order_summary {
	unsigned smallest_fall, largest_hold;
	double fall_ratio, hold_ratio;
	bool fall_against_linear, hold_compared;
};

static void summarize(const struct analysis_run *runs, size_t count,
		      bool random, struct order_summary *s)
{
	unsigned lowest = lowest_nr(runs, count, random);
	struct analysis_verdict v;

	memset(s, 0, sizeof(*s));
	s->fall_ratio = 1;
	for (size_t i = 0; i < count; i++) {
		if (!in_order(&runs[i], random))
			continue;
		analysis_open_au_verdict(runs, count, i, &v);
		if (v.fell && (!s->smallest_fall ||
			       runs[i].nr < s->smallest_fall ||
			       (runs[i].nr == s->smallest_fall &&
				v.median_ratio < s->fall_ratio))) {
			s->smallest_fall = runs[i].nr;
			s->fall_ratio = v.median_ratio;
			s->fall_against_linear = v.against_linear;
		}
	}
	for (size_t i = 0; i < count; i++) {
		if (!in_order(&runs[i], random) ||
		    (s->smallest_fall && runs[i].nr >= s->smallest_fall))
			continue;
		analysis_open_au_verdict(runs, count, i, &v);
		/* a run with nothing to compare shows no hold, except the
		 * lowest, which the others are measured against */
		if ((!v.compared && runs[i].nr != lowest) ||
		    runs[i].nr < s->largest_hold ||
		    (runs[i].nr == s->largest_hold &&
		     v.median_ratio >= s->hold_ratio))
			continue;
		s->largest_hold = runs[i].nr;
		s->hold_ratio = v.median_ratio;
		s->hold_compared = v.compared;
	}
}

static void open_count(const struct analysis_run *runs, size_t count,
		       bool random, struct analysis_open *open)
{
	struct analysis_finding *found = random ? &open->random : &open->linear;
	struct order_summary s;

	summarize(runs, count, random, &s);
	memset(found, 0, sizeof(*found));
	if (!s.smallest_fall) {
		*(random ? &open->random_at_least : &open->linear_at_least) =
			s.largest_hold;
		if (!s.hold_compared)
			return;
		/* nothing fell up to the largest N tried: a lower bound */
		*(random ? &open->random_lower_bound :
			   &open->linear_lower_bound) = true;
		found->known = true;
		found->value = s.largest_hold;
		found->confidence = bound_confidence(s.hold_ratio);
		return;
	}
	if (s.fall_against_linear && s.smallest_fall > 1) {
		/* slow already in random order: the count is not the cause */
		open->random_slow_nr = s.smallest_fall;
		open->random_slow_ratio = s.fall_ratio;
		return;
	}
	found->known = true;
	found->value = s.smallest_fall - 1;
	found->confidence = count_confidence(s.fall_ratio,
					     s.largest_hold ==
					     s.smallest_fall - 1,
					     s.hold_compared, s.hold_ratio);
}

void analysis_open_au(const struct analysis_run *runs, size_t count,
		      struct analysis_open *open)
{
	memset(open, 0, sizeof(*open));
	open_count(runs, count, false, open);
	open_count(runs, count, true, open);
}
