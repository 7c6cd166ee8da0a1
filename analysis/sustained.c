/*
 * sustained: the fall of a write rate, from windows of chunks.  While
 * the series grows, the median of its last SUSTAINED_WINDOW chunks is
 * held against the highest median before it; the first window below
 * SUSTAINED_FALL_RATIO of that marks a fall, and the split that best
 * separates the fast chunks from the slow ones around it is where the
 * cache ended.  Two windows after it whose medians agree are a settled
 * sustained rate.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit.h"
#include "analysis/sustained.h"

int sustained_init(struct sustained *s, size_t cap)
{
	*s = (struct sustained){ 0 };
	if (cap > SUSTAINED_MAX_CHUNKS)
		cap = SUSTAINED_MAX_CHUNKS;
	if (cap < 1)
		cap = 1;
	s->rate = calloc(cap, sizeof(*s->rate));
	s->before_bytes = calloc(cap, sizeof(*s->before_bytes));
	if (!s->rate || !s->before_bytes) {
		sustained_free(s);
		return -ENOMEM;
	}
	s->cap = cap;
	return 0;
}

void sustained_free(struct sustained *s)
{
	free(s->rate);
	free(s->before_bytes);
	s->rate = NULL;
	s->before_bytes = NULL;
	s->count = s->cap = 0;
}

/* The median of the window of chunks that ends before end. */
static double window_median(const struct sustained *s, size_t end)
{
	double w[SUSTAINED_WINDOW];

	memcpy(w, &s->rate[end - SUSTAINED_WINDOW], sizeof(w));
	return analysis_median(w, SUSTAINED_WINDOW);
}

/*
 * Where the cache ended: among the last window and a half, the first
 * chunk j that best splits them into fast ones before it and slow ones
 * from it on (the fewest chunks on the wrong side of the midpoint
 * between the two rates), so neither a slow chunk in the burst nor a
 * fast one after it moves the split.
 */
static size_t locate_fall(const struct sustained *s, double low)
{
	size_t lo = s->count > SUSTAINED_WINDOW * 3 / 2 ?
		    s->count - SUSTAINED_WINDOW * 3 / 2 : 0;
	double mid = (s->peak + low) / 2;
	size_t best = lo, wrong = 0, least;

	/* the split at lo: every chunk from lo on counts as slow */
	for (size_t i = lo; i < s->count; i++)
		wrong += s->rate[i] >= mid;
	least = wrong;
	for (size_t j = lo + 1; j <= s->count; j++) {
		/* chunk j - 1 moves to the fast side */
		if (s->rate[j - 1] >= mid)
			wrong--;
		else
			wrong++;
		if (wrong < least) {
			least = wrong;
			best = j;
		}
	}
	/* the peak came from fast chunks: at least the first was one */
	return best ? best : 1;
}

/* After the fall: the last two windows agree, all past the fall. */
static bool has_settled(const struct sustained *s)
{
	double last, before;

	if (s->count < s->fall_at + 2 * SUSTAINED_WINDOW)
		return false;
	last = window_median(s, s->count);
	before = window_median(s, s->count - SUSTAINED_WINDOW);
	return fabs(last - before) <= SUSTAINED_SETTLE_FRACTION * before;
}

bool sustained_add(struct sustained *s, uint64_t bytes, uint64_t ns)
{
	double median;

	if (!bytes || !ns)
		return false;
	if (s->count == s->cap) {
		s->full = true;
		return true;
	}
	s->rate[s->count] = (double)bytes * 1e9 / (double)ns;
	s->before_bytes[s->count++] = s->written_bytes;
	s->written_bytes += bytes;
	if (s->fell) {
		s->settled = s->settled || has_settled(s);
		return s->settled;
	}
	if (s->count < SUSTAINED_WINDOW)
		return false;
	median = window_median(s, s->count);
	if (median > s->peak) {
		s->peak = median;
	} else if (median < SUSTAINED_FALL_RATIO * s->peak) {
		s->fell = true;
		s->fall_at = locate_fall(s, median);
	}
	return false;
}

/*
 * A fall at the very end: the last SUSTAINED_TAIL_CHUNKS or more chunks
 * all below the ratio, fewer than a window would show.  0: none.
 */
static size_t tail_fall(const struct sustained *s)
{
	size_t tail = 0;

	if (s->fell || s->count < SUSTAINED_WINDOW)
		return 0;
	while (tail < s->count - 1 &&
	       s->rate[s->count - 1 - tail] < SUSTAINED_FALL_RATIO * s->peak)
		tail++;
	return tail >= SUSTAINED_TAIL_CHUNKS ? s->count - tail : 0;
}

/* The median rate of chunks [from, to); fallback when out of memory. */
static double median_of(const struct sustained *s, size_t from, size_t to,
			double fallback)
{
	double *copy = malloc((to - from) * sizeof(*copy)), m;

	if (!copy)
		return fallback;
	memcpy(copy, &s->rate[from], (to - from) * sizeof(*copy));
	m = analysis_median(copy, to - from);
	free(copy);
	return m;
}

void sustained_result(const struct sustained *s, struct sustained_result *r)
{
	/* 0: no fall (the first chunk is never past a cache) */
	size_t fall_at = s->fell ? s->fall_at : tail_fall(s);

	*r = (struct sustained_result){ .status = SUSTAINED_NO_FALL,
		.burst_bytes_per_s = NAN, .sustained_bytes_per_s = NAN,
		.written_bytes = s->written_bytes, .chunks = s->count,
		.full = s->full };
	if (s->count < SUSTAINED_WINDOW) {
		r->status = SUSTAINED_TOO_FEW;
		return;
	}
	if (!fall_at)
		return;
	r->status = s->settled ? SUSTAINED_FOUND : SUSTAINED_NOT_SETTLED;
	r->burst_bytes_per_s = median_of(s, 0, fall_at, s->peak);
	r->cache_bytes = s->before_bytes[fall_at];
	r->after_fall_bytes = s->written_bytes - r->cache_bytes;
	if (s->settled)
		r->sustained_bytes_per_s = median_of(s,
			s->count - 2 * SUSTAINED_WINDOW, s->count, NAN);
}
