/*
 * openau: open erase blocks from open-AU runs.  Repeated runs are
 * combined; each run is held against the runs of its order with fewer
 * erase blocks, at the sizes below the erase size, and falls off when its
 * median rate drops under ANALYSIS_FALL_RATIO of theirs; the counts, their
 * bounds and their confidence follow.  Numbers in, findings out.
 */
#include <string.h>

#include "analysis/openau.h"
#include "analysis/fit.h"

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

/*
 * Whether ref is one of the runs that run is held against: the same
 * order with fewer N.  The lowest run of each order is the reference of
 * the others and is held against none.
 */
static bool is_reference(const struct analysis_run *run,
			 const struct analysis_run *ref)
{
	if (ref->nr == 0 || ref->count == 0)
		return false;
	return ref->random == run->random && ref->nr < run->nr;
}

/*
 * The rate at this size among refs: the highest (the best any of them
 * did), or the lowest; 0 when none has the size.
 */
static double rate_among(const struct analysis_run *const *refs,
			 size_t ref_count, uint64_t size, bool lowest)
{
	double pick = 0;

	for (size_t i = 0; i < ref_count; i++) {
		size_t j = 0;

		while (j < refs[i]->count && refs[i]->size[j] != size)
			j++;
		if (j == refs[i]->count)
			continue;
		if (!pick || (lowest ? refs[i]->rate[j] < pick :
			      refs[i]->rate[j] > pick))
			pick = refs[i]->rate[j];
	}
	return pick;
}

/*
 * What a run is held against: refs, at their best rate at each size (or
 * their lowest); and, where floor is given, only at the sizes where the
 * reference is clearly faster than the floor's best - a size already at
 * the rate the card thrashes at cannot fall any further, and says
 * nothing of the count.
 */
struct reference {
	const struct analysis_run *const *refs;
	size_t count;
	bool lowest;
	const struct analysis_run *const *floor;
	size_t floor_count;
};

/*
 * run against a reference at each size below whole: the worst and the
 * median of rate / reference.  The median, not the worst: a card past
 * its limit is slow across the sizes, while one stray row (the first
 * rows of real runs often are) or the smallest writes alone, slower for
 * other reasons (a small-write cache that serves one erase block), do
 * not decide.
 */
static void compare_run(const struct analysis_run *run,
			const struct reference *r, uint64_t whole,
			struct analysis_verdict *v)
{
	double ratios[ANALYSIS_MAX_SIZES];
	size_t compared = 0;

	memset(v, 0, sizeof(*v));
	v->worst_ratio = v->median_ratio = 1;
	v->has_reference = r->count > 0;
	for (size_t j = 0; j < run->count && j < ANALYSIS_MAX_SIZES; j++) {
		double ref, floor;

		if (run->size[j] >= whole)
			continue;
		ref = rate_among(r->refs, r->count, run->size[j], r->lowest);
		floor = rate_among(r->floor, r->floor_count, run->size[j],
				   false);
		if (ref <= 0)
			continue;
		if (ref * ANALYSIS_FALL_RATIO <= floor) {
			v->at_floor++;
			continue;
		}
		ratios[compared] = run->rate[j] / ref;
		if (!compared || ratios[compared] < v->worst_ratio) {
			v->worst_ratio = ratios[compared];
			v->worst_size = run->size[j];
		}
		compared++;
	}
	v->sizes = compared;
	if (!compared)
		return;
	v->compared = true;
	v->median_ratio = analysis_median(ratios, compared);
	v->fell = v->median_ratio < ANALYSIS_FALL_RATIO;
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

/* The smallest N of the linear runs that falls off; 0 if none does. */
static unsigned linear_cliff(const struct analysis_run *runs, size_t count,
			     uint64_t whole)
{
	unsigned cliff = 0;
	struct analysis_verdict v;

	for (size_t i = 0; i < count; i++) {
		if (runs[i].random || !runs[i].nr ||
		    (cliff && runs[i].nr >= cliff))
			continue;
		analysis_open_au_verdict_below(runs, count, i, whole, &v);
		if (v.fell)
			cliff = runs[i].nr;
	}
	return cliff;
}

/* The linear runs from the cliff on: the rate the card thrashes at. */
static size_t past_cliff(const struct analysis_run *runs, size_t count,
			 unsigned cliff, const struct analysis_run **out)
{
	size_t n = 0;

	for (size_t i = 0; cliff && i < count && n < ANALYSIS_MAX_RUNS; i++)
		if (!runs[i].random && runs[i].nr >= cliff && runs[i].count)
			out[n++] = &runs[i];
	return n;
}

/*
 * A random run is held against the random runs with fewer N at the sizes
 * where those are clearly faster than the card's linear runs past the
 * cliff: where random order alone already writes at the thrashing rate,
 * nothing more can fall.
 */
void analysis_open_au_verdict_below(const struct analysis_run *runs,
				    size_t count, size_t index, uint64_t whole,
				    struct analysis_verdict *v)
{
	const struct analysis_run *refs[ANALYSIS_MAX_RUNS];
	const struct analysis_run *floor[ANALYSIS_MAX_RUNS];
	const struct analysis_run *run = &runs[index];
	struct reference r = { .refs = refs, .floor = floor };

	for (size_t i = 0; i < count && r.count < ANALYSIS_MAX_RUNS; i++)
		if (i != index && is_reference(run, &runs[i]))
			refs[r.count++] = &runs[i];
	if (!run->nr)
		r.count = 0;
	if (run->random && r.count)
		r.floor_count = past_cliff(runs, count,
					   linear_cliff(runs, count, whole),
					   floor);
	compare_run(run, &r, whole, v);
}

void analysis_open_au_verdict(const struct analysis_run *runs, size_t count,
			      size_t index, struct analysis_verdict *v)
{
	analysis_open_au_verdict_below(runs, count, index,
				       whole_block_size(runs, count), v);
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
	unsigned smallest_fall, largest_hold, lowest;
	double fall_ratio, hold_ratio;
	bool hold_compared;
};

static void summarize(const struct analysis_run *runs, size_t count,
		      uint64_t whole, bool random, struct order_summary *s)
{
	struct analysis_verdict v;

	memset(s, 0, sizeof(*s));
	s->fall_ratio = 1;
	s->lowest = lowest_nr(runs, count, random);
	for (size_t i = 0; i < count; i++) {
		if (!in_order(&runs[i], random))
			continue;
		analysis_open_au_verdict_below(runs, count, i, whole, &v);
		if (v.fell && (!s->smallest_fall ||
			       runs[i].nr < s->smallest_fall ||
			       (runs[i].nr == s->smallest_fall &&
				v.median_ratio < s->fall_ratio))) {
			s->smallest_fall = runs[i].nr;
			s->fall_ratio = v.median_ratio;
		}
	}
	for (size_t i = 0; i < count; i++) {
		if (!in_order(&runs[i], random) ||
		    (s->smallest_fall && runs[i].nr >= s->smallest_fall))
			continue;
		analysis_open_au_verdict_below(runs, count, i, whole, &v);
		/* a run with nothing to compare shows no hold, except the
		 * lowest, which the others are measured against */
		if ((!v.compared && runs[i].nr != s->lowest) ||
		    runs[i].nr < s->largest_hold ||
		    (runs[i].nr == s->largest_hold &&
		     v.median_ratio >= s->hold_ratio))
			continue;
		s->largest_hold = runs[i].nr;
		s->hold_ratio = v.median_ratio;
		s->hold_compared = v.compared;
	}
}

/* The first run of one order with N = nr (combined runs have one). */
static const struct analysis_run *run_of(const struct analysis_run *runs,
					 size_t count, bool random,
					 unsigned nr)
{
	for (size_t i = 0; i < count; i++)
		if (in_order(&runs[i], random) && runs[i].nr == nr)
			return &runs[i];
	return NULL;
}

/*
 * The lowest random run against the linear runs with no more erase
 * blocks: what writing out of order costs by itself, before any count
 * limit comes in.
 */
static void order_cost(const struct analysis_run *runs, size_t count,
		       uint64_t whole, const struct analysis_run *first,
		       struct analysis_open *open)
{
	const struct analysis_run *refs[ANALYSIS_MAX_RUNS];
	struct reference r = { .refs = refs };
	struct analysis_verdict v;

	for (size_t i = 0; i < count && r.count < ANALYSIS_MAX_RUNS; i++)
		if (in_order(&runs[i], false) && runs[i].nr <= first->nr)
			refs[r.count++] = &runs[i];
	compare_run(first, &r, whole, &v);
	if (!v.compared)
		return;
	open->random_linear.known = true;
	open->random_linear.ratio = v.median_ratio;
	open->random_linear.nr = first->nr;
	/* one size is a row that may stray; three or more agree or not */
	open->random_linear.confidence = v.sizes >= 3 ? 0.9 :
					 v.sizes == 2 ? 0.7 : 0.5;
}

/*
 * Every run but the random ones with first's N: their slowest rate at
 * each size bounds the thrashing rate when no linear run fell.
 */
static size_t other_runs(const struct analysis_run *runs, size_t count,
			 const struct analysis_run *first,
			 const struct analysis_run **out)
{
	size_t n = 0;

	for (size_t i = 0; i < count && n < ANALYSIS_MAX_RUNS; i++)
		if (runs[i].nr && runs[i].count &&
		    !(runs[i].random && runs[i].nr == first->nr))
			out[n++] = &runs[i];
	return n;
}

/*
 * Whether the lowest random run writes no faster than the card does
 * when it thrashes: then it is the limit, not a reference to hold the
 * others against.  *confidence: how sure, from how clearly it is slow
 * against the linear runs and how close it is to the thrashing rate.
 */
static bool at_thrashing(const struct analysis_run *runs, size_t count,
			 uint64_t whole, unsigned linear_fall,
			 const struct analysis_run *first,
			 const struct analysis_open *open, double *confidence)
{
	const struct analysis_run *refs[ANALYSIS_MAX_RUNS];
	struct reference r = { .refs = refs, .lowest = !linear_fall };
	struct analysis_verdict v;
	double slow, near;

	/* a run that fast against linear ones is no collapse */
	if (!open->random_linear.known ||
	    open->random_linear.ratio >= ANALYSIS_FALL_RATIO)
		return false;
	r.count = linear_fall ? past_cliff(runs, count, linear_fall, refs) :
		  other_runs(runs, count, first, refs);
	compare_run(first, &r, whole, &v);
	/* the same margin a fall needs: not clearly faster than thrashing */
	if (!v.compared || v.median_ratio * ANALYSIS_FALL_RATIO >= 1)
		return false;
	slow = clamp01(1 - open->random_linear.ratio / ANALYSIS_FALL_RATIO);
	near = clamp01(1 - v.median_ratio * ANALYSIS_FALL_RATIO);
	/* the slowest rates seen only bound the thrashing rate from above */
	*confidence = (r.lowest ? 0.35 : 0.5) + 0.2 * slow + 0.2 * near;
	return true;
}

static void set_count(struct analysis_finding *found, unsigned value,
		      double confidence)
{
	found->known = true;
	found->value = value;
	found->confidence = confidence;
}

/*
 * The count in one order: one less than the first N that falls off
 * against the runs with fewer; when none falls, at least the largest N
 * that held.  The lowest random run is the reference of the others,
 * unless it already writes at the thrashing rate: then no erase block
 * stays open out of order when it has N = 1, and fewer than its N are
 * when it has more.
 */
static void open_count(const struct analysis_run *runs, size_t count,
		       uint64_t whole, bool random, unsigned linear_fall,
		       struct analysis_open *open)
{
	struct analysis_finding *found = random ? &open->random : &open->linear;
	const struct analysis_run *first;
	struct order_summary s;
	double confidence;

	summarize(runs, count, whole, random, &s);
	memset(found, 0, sizeof(*found));
	if (s.smallest_fall) {
		set_count(found, s.smallest_fall - 1,
			  count_confidence(s.fall_ratio, s.largest_hold ==
					   s.smallest_fall - 1,
					   s.hold_compared, s.hold_ratio));
		return;
	}
	first = random ? run_of(runs, count, true, s.lowest) : NULL;
	if (first && at_thrashing(runs, count, whole, linear_fall, first,
				  open, &confidence)) {
		open->random_thrashing = true;
		if (first->nr == 1) {
			set_count(found, 0, confidence);
			return;
		}
		/* slow already at N > 1: fewer are open, how many unknown */
		open->random_slow_nr = first->nr;
		open->random_slow_ratio = open->random_linear.ratio;
		return;
	}
	*(random ? &open->random_at_least : &open->linear_at_least) =
		s.largest_hold;
	if (!s.hold_compared)
		return;
	/* nothing fell up to the largest N tried: a lower bound */
	*(random ? &open->random_lower_bound : &open->linear_lower_bound) =
		true;
	set_count(found, s.largest_hold, bound_confidence(s.hold_ratio));
}

void analysis_open_au_below(const struct analysis_run *runs, size_t count,
			    uint64_t whole, struct analysis_open *open)
{
	unsigned lowest_random = lowest_nr(runs, count, true);

	memset(open, 0, sizeof(*open));
	if (lowest_random)
		order_cost(runs, count, whole,
			   run_of(runs, count, true, lowest_random), open);
	open_count(runs, count, whole, false, 0, open);
	open_count(runs, count, whole, true, linear_cliff(runs, count, whole),
		   open);
}

void analysis_open_au(const struct analysis_run *runs, size_t count,
		      struct analysis_open *open)
{
	analysis_open_au_below(runs, count, whole_block_size(runs, count),
			       open);
}
