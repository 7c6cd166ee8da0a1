/*
 * staircase: the levels of an align table's diff column, each named -
 * page, effective page, erase block, allocation group - and the erase
 * block and page they give, with confidences that weigh the noise, the
 * steps the fit turned down and what the device says of itself.  Numbers
 * in, a geometry out; nothing here reads a device or prints.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/staircase.h"
#include "analysis/fit.h"
#include "lib/units.h"

/* Separations below this many noise units are not findings. */
#define MIN_Z 3.0

/*
 * A read that crosses a boundary pays for every level whose size divides
 * it: the diff column is a sum of steps.  The fit picks the set of level
 * sizes whose groups (points sharing the same levels) sit tightest around
 * their medians, a level costing LEVEL_PENALTY noise units, so one stray
 * point does not make a level and a step of any height that many points
 * share does.
 */
#define MAX_FIT_POINTS 512
#define MAX_CANDIDATES 64
#define LEVEL_PENALTY 4.0
/* a level must also cost this share of a read, and an erase-block level
   more: caches and loop devices show only scatter far below that */
#define MIN_STEP_SHARE 0.005
#define MIN_ERASE_SHARE 0.02
/* and at least this much: crossing into another flash page costs a NAND
   read of several microseconds at least, while page caches, loop devices
   and SSD controllers show steps of a few hundred nanoseconds */
#define MIN_STEP_NS 1000.0
/* standard error of a median over that of a mean, for normal noise */
#define MEDIAN_SE 1.2533
/* sizes an erase block can have on a device that says nothing else */
#define ERASE_MIN_BYTES (128 * KIB)
#define ERASE_MAX_BYTES (64 * MIB)
/* above this a reading is beyond doubt, and only then shown as 1.00 */
#define OVERWHELMING_Z 20.0
#define MAX_CONFIDENCE 0.99
/* the most an erase reading is worth when a line above it falls back */
#define FALLBACK_CONFIDENCE 0.8

struct stair {
	uint64_t align[MAX_FIT_POINTS];
	double diff[MAX_FIT_POINTS];
	size_t n;
	uint64_t candidate[MAX_CANDIDATES];
	size_t candidates;
	double sigma_ns, read_ns;
};

/* A set of level sizes and how well it fits. */
struct fit {
	uint64_t size[ANALYSIS_MAX_LEVELS];	/* ascending */
	double cost_ns[ANALYSIS_MAX_LEVELS], z[ANALYSIS_MAX_LEVELS];
	size_t above[ANALYSIS_MAX_LEVELS];	/* points with this level */
	size_t k;
	double baseline_ns;			/* diff with no level crossed */
	double score;
	bool valid;
};

struct member {
	unsigned signature;	/* bit j: level j divides the alignment */
	double diff;
};

struct group {
	unsigned signature;
	size_t count;
	double median;
};

static int compare_members(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->signature != y->signature)
		return (x->signature > y->signature) -
		       (x->signature < y->signature);
	return (x->diff > y->diff) - (x->diff < y->diff);
}

static int compare_sizes(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Groups come in ascending signature order: a binary search. */
static const struct group *find_group(const struct group *groups,
				      size_t count, unsigned signature)
{
	size_t low = 0, high = count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (groups[mid].signature == signature)
			return &groups[mid];
		if (groups[mid].signature < signature)
			low = mid + 1;
		else
			high = mid;
	}
	return NULL;
}

/* Points grouped by the levels they cross; returns the group count. */
static size_t group_points(const struct stair *s, const struct fit *f,
			   struct group *groups, double *deviation)
{
	struct member m[MAX_FIT_POINTS];
	size_t count = 0;

	for (size_t i = 0; i < s->n; i++) {
		m[i].signature = 0;
		m[i].diff = s->diff[i];
		for (size_t j = 0; j < f->k; j++)
			if (s->align[i] % f->size[j] == 0)
				m[i].signature |= 1u << j;
	}
	qsort(m, s->n, sizeof(*m), compare_members);
	*deviation = 0;
	for (size_t start = 0, end; start < s->n; start = end) {
		struct group *g = &groups[count++];

		for (end = start; end < s->n &&
		     m[end].signature == m[start].signature; end++)
			;
		g->signature = m[start].signature;
		g->count = end - start;
		g->median = g->count % 2 ? m[start + g->count / 2].diff :
			    (m[start + g->count / 2 - 1].diff +
			     m[start + g->count / 2].diff) / 2;
		for (size_t i = start; i < end; i++)
			*deviation += fabs(m[i].diff - g->median);
	}
	return count;
}

/*
 * A level's step: between the best-supported pair of groups that differ
 * only by it.  Steps go up (costs add); a level no pair shows, or one
 * that goes down, makes the set invalid.
 */
static void level_steps(const struct stair *s, struct fit *f,
			const struct group *groups, size_t count)
{
	const struct group *none = find_group(groups, count, 0);

	f->baseline_ns = none ? none->median : 0;
	for (size_t j = 0; j < f->k; j++) {
		size_t support = 0;

		f->above[j] = 0;
		for (size_t i = 0; i < count; i++) {
			const struct group *parent;
			size_t weakest;

			if (!(groups[i].signature & (1u << j)))
				continue;
			f->above[j] += groups[i].count;
			parent = find_group(groups, count,
					    groups[i].signature ^ (1u << j));
			if (!parent)
				continue;
			weakest = parent->count < groups[i].count ?
				  parent->count : groups[i].count;
			if (weakest <= support)
				continue;
			support = weakest;
			f->cost_ns[j] = groups[i].median - parent->median;
			f->z[j] = f->cost_ns[j] / (MEDIAN_SE * s->sigma_ns *
				  sqrt(1.0 / (double)groups[i].count +
				       1.0 / (double)parent->count));
		}
		if (!support || f->cost_ns[j] <= 0)
			f->valid = false;
	}
}

static void evaluate(const struct stair *s, struct fit *f)
{
	struct group groups[MAX_FIT_POINTS];
	double deviation;
	size_t count;

	qsort(f->size, f->k, sizeof(*f->size), compare_sizes);
	f->valid = true;
	count = group_points(s, f, groups, &deviation);
	level_steps(s, f, groups, count);
	f->score = deviation / s->sigma_ns + LEVEL_PENALTY * (double)f->k;
}

static bool has_level(const struct fit *f, uint64_t size)
{
	for (size_t j = 0; j < f->k; j++)
		if (f->size[j] == size)
			return true;
	return false;
}

/* The best valid set one level larger than f, or f->valid false. */
static struct fit grow(const struct stair *s, const struct fit *f)
{
	struct fit best = { .valid = false };

	if (f->k == ANALYSIS_MAX_LEVELS)
		return best;
	for (size_t c = 0; c < s->candidates; c++) {
		struct fit trial = *f;

		if (has_level(f, s->candidate[c]))
			continue;
		trial.size[trial.k++] = s->candidate[c];
		evaluate(s, &trial);
		if (trial.valid && (!best.valid || trial.score < best.score))
			best = trial;
	}
	return best;
}

/* Move single levels to other sizes while that fits better. */
static void exchange(const struct stair *s, struct fit *f)
{
	bool moved = true;

	for (unsigned pass = 0; moved && pass < 4; pass++) {
		moved = false;
		for (size_t j = 0; j < f->k; j++)
			for (size_t c = 0; c < s->candidates; c++) {
				struct fit trial = *f;

				if (has_level(f, s->candidate[c]))
					continue;
				trial.size[j] = s->candidate[c];
				evaluate(s, &trial);
				if (trial.valid &&
				    trial.score < f->score - 1e-9) {
					*f = trial;
					moved = true;
				}
			}
	}
}

static bool weak_level(const struct stair *s, const struct fit *f,
		       size_t j)
{
	return f->z[j] < MIN_Z || f->cost_ns[j] < MIN_STEP_NS ||
	       f->cost_ns[j] < MIN_STEP_SHARE * s->read_ns;
}

/* Drop the weakest level below the bar (any, if the set is invalid). */
static void prune(const struct stair *s, struct fit *f)
{
	while (f->k) {
		size_t drop = SIZE_MAX;

		for (size_t j = 0; j < f->k; j++)
			if ((!f->valid || weak_level(s, f, j)) &&
			    (drop == SIZE_MAX || f->z[j] < f->z[drop]))
				drop = j;
		if (drop == SIZE_MAX)
			return;
		f->size[drop] = f->size[--f->k];
		evaluate(s, f);
	}
}

static void fit_staircase(const struct stair *s, struct fit *f)
{
	memset(f, 0, sizeof(*f));
	evaluate(s, f);
	for (;;) {
		struct fit next = grow(s, f);

		if (!next.valid || next.score >= f->score)
			break;
		*f = next;
	}
	exchange(s, f);
	prune(s, f);
}

/* Odd part of an alignment: 1 for 2^n, 3 for 3 x 2^n. */
static uint64_t family(uint64_t align)
{
	while (align && align % 2 == 0)
		align /= 2;
	return align;
}

/* Index of the next larger alignment of point i's family, or i. */
static size_t next_of_family(const struct stair *s, size_t i)
{
	size_t next = i;

	for (size_t j = 0; j < s->n; j++) {
		if (j == i || family(s->align[j]) != family(s->align[i]) ||
		    s->align[j] < s->align[i] ||
		    (s->align[j] == s->align[i] && j < i))
			continue;
		if (next == i || s->align[j] < s->align[next])
			next = j;
	}
	return next;
}

/* Scaled median absolute deviation of all diffs, steps included. */
static double spread(const struct stair *s)
{
	double values[MAX_FIT_POINTS];
	double center;

	if (s->n == 0)
		return 0;
	memcpy(values, s->diff, s->n * sizeof(*values));
	center = analysis_median(values, s->n);
	for (size_t i = 0; i < s->n; i++)
		values[i] = fabs(s->diff[i] - center);
	return 1.4826 * analysis_median(values, s->n);
}

/*
 * Noise of a diff: the measured standard errors where most points have
 * one, else the scatter between neighbouring alignments of one family
 * (steps touch only a few of those pairs); never below 0.2% of a read,
 * the resolution a timed read can promise.
 */
static double stair_noise(const struct analysis_align_point *points,
			  size_t n, const struct stair *s)
{
	double values[MAX_FIT_POINTS];
	double noise = 0, floor_ns = 0.002 * s->read_ns;
	size_t count = 0;

	for (size_t i = 0; i < n && count < MAX_FIT_POINTS; i++)
		if (points[i].noise > 0 && isfinite(points[i].noise))
			values[count++] = points[i].noise;
	if (count && count * 2 >= s->n) {
		noise = analysis_median(values, count);
	} else {
		count = 0;
		for (size_t i = 0; i < s->n; i++) {
			size_t next = next_of_family(s, i);

			if (next != i)
				values[count++] = fabs(s->diff[next] -
						       s->diff[i]);
		}
		if (count >= 3)
			noise = 1.4826 * analysis_median(values, count) /
				sqrt(2.0);
		else
			noise = spread(s);	/* no neighbours: assume the worst */
	}
	return noise > floor_ns ? noise : floor_ns > 0 ? floor_ns : 1;
}

/*
 * The points to fit.  A diff larger than any of its reads cannot be (a
 * lost unit, as in a copy that dropped the micro signs): recompute it.
 */
static void load_points(const struct analysis_align_point *points,
			size_t count, struct stair *s)
{
	double reads[MAX_FIT_POINTS];
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < count && n < MAX_FIT_POINTS; i++) {
		const struct analysis_align_point *p = &points[i];
		double top = fmax(p->pre, fmax(p->on, p->post)), diff = p->diff;

		if (p->align == 0 || !isfinite(diff))
			continue;
		if (top > 0 && fabs(diff) > top)
			diff = p->on - (p->pre + p->post) / 2;
		s->align[n] = p->align;
		s->diff[n] = diff;
		reads[n++] = p->pre;
	}
	s->n = n;
	s->read_ns = n ? analysis_median(reads, n) : 0;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t c = 0; c < s->candidates; c++)
			seen |= s->candidate[c] == s->align[i];
		if (!seen && s->candidates < MAX_CANDIDATES)
			s->candidate[s->candidates++] = s->align[i];
	}
	s->sigma_ns = stair_noise(points, count, s);
}

const char *analysis_level_name(enum analysis_level_kind kind)
{
	static const char *const names[] = {
		[ANALYSIS_LEVEL_STEP] = "step",
		[ANALYSIS_LEVEL_PAGE] = "page",
		[ANALYSIS_LEVEL_EFFECTIVE_PAGE] = "effective page",
		[ANALYSIS_LEVEL_ERASE] = "erase block",
		[ANALYSIS_LEVEL_ERASE_ALTERNATIVE] = "erase block?",
		[ANALYSIS_LEVEL_GROUP] = "allocation group",
	};

	return (unsigned)kind < sizeof(names) / sizeof(names[0]) ?
	       names[kind] : "step";
}

/* The largest allocation unit the SD specification allows a capacity. */
static uint64_t sd_max_au(uint64_t capacity)
{
	static const struct { uint64_t capacity, au; } limits[] = {
		{ 64 * MIB, 512 * KIB }, { 256 * MIB, 1 * MIB },
		{ 512 * MIB, 2 * MIB }, { 32768 * MIB, 4 * MIB },
	};

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (capacity <= limits[i].capacity)
			return limits[i].au;
	return 64 * MIB;
}

/* Sizes an erase block can have here, and the specification's bound. */
static void erase_range(const struct analysis_prior *prior,
			struct analysis_geometry *g)
{
	g->erase_min = ERASE_MIN_BYTES;
	g->erase_max = ERASE_MAX_BYTES;
	if (!prior)
		return;
	if (prior->device == ANALYSIS_DEVICE_SD && prior->capacity_bytes) {
		g->spec_max_au = sd_max_au(prior->capacity_bytes);
		/* SDSC cards are old and small: 16 KiB allocation units */
		if (prior->capacity_bytes <= 2048 * MIB)
			g->erase_min = 16 * KIB;
	}
	if (prior->device != ANALYSIS_DEVICE_SD && prior->preferred_erase) {
		/* eMMC reports its erase group: take its word for the range */
		if (prior->preferred_erase < g->erase_min)
			g->erase_min = prior->preferred_erase;
		if (prior->preferred_erase > g->erase_max)
			g->erase_max = prior->preferred_erase;
	}
}

static double capped(double confidence, bool overwhelming)
{
	if (confidence < 0)
		return 0;
	return overwhelming ? fmin(confidence, 1) :
	       fmin(confidence, MAX_CONFIDENCE);
}

/* Name each level: erase block first, then what lies below and above. */
static void name_levels(struct analysis_geometry *g, size_t *erase,
			size_t *alternative)
{
	size_t page = SIZE_MAX;

	*erase = *alternative = SIZE_MAX;
	for (size_t j = 0; j < g->level_count; j++)
		if (g->levels[j].size >= g->erase_min &&
		    g->levels[j].size <= g->erase_max)
			*erase = j;
	for (size_t j = 0; j < g->level_count; j++) {
		struct analysis_level *l = &g->levels[j];

		if (j == *erase)
			l->kind = ANALYSIS_LEVEL_ERASE;
		else if (l->size > g->erase_max ||
			 (*erase != SIZE_MAX && j > *erase))
			l->kind = ANALYSIS_LEVEL_GROUP;
		else if (l->size < g->erase_min && page == SIZE_MAX)
			l->kind = ANALYSIS_LEVEL_PAGE, page = j;
		else if (l->size < g->erase_min && j == page + 1)
			l->kind = ANALYSIS_LEVEL_EFFECTIVE_PAGE;
		else
			l->kind = ANALYSIS_LEVEL_STEP;
	}
	for (size_t j = *erase; *erase != SIZE_MAX && j-- > 0;)
		if (g->levels[j].size >= g->erase_min) {
			g->levels[j].kind = ANALYSIS_LEVEL_ERASE_ALTERNATIVE;
			*alternative = j;
			break;
		}
}

static struct analysis_finding level_finding(const struct analysis_level *l,
					     size_t support)
{
	bool overwhelming = l->z >= OVERWHELMING_Z && support >= 3;

	return (struct analysis_finding){ .known = true, .value = l->size,
		.confidence = capped(analysis_confidence(l->z), overwhelming) };
}

static double strongest_rejected(const struct stair *s, const struct fit *f,
				 uint64_t low, uint64_t high, size_t support,
				 size_t *covered);
static double doubt_free(double rejected_z, size_t tried);

/*
 * Median of the diffs of the points that cross a boundary of size
 * (whole: align a multiple of it) or, not whole, that have align in
 * [size / 8, size): the lines just under it.
 */
static double diff_median(const struct stair *s, uint64_t size, bool whole,
			  size_t *count)
{
	double values[MAX_FIT_POINTS];

	*count = 0;
	for (size_t i = 0; i < s->n; i++)
		if (whole ? s->align[i] % size == 0 :
		    s->align[i] >= size / 8 && s->align[i] < size)
			values[(*count)++] = s->diff[i];
	return *count ? analysis_median(values, *count) : 0;
}

/*
 * Lines on erase-block boundaries (multiples of its size) that fall back
 * into the level below it (closer to the lines just under it than to
 * their own level): every read crossing a larger boundary crosses an
 * erase-block boundary too, so each such line is a reading the step does
 * not explain - heavy-tailed noise, or a step that is not there.
 */
static size_t fallbacks(const struct stair *s, uint64_t size)
{
	size_t below, above, fell = 0;
	double low = diff_median(s, size, false, &below);
	double high = diff_median(s, size, true, &above);

	/* only multiples: a 6 MiB boundary is no 4 MiB one */
	for (size_t i = 0; below && above && i < s->n; i++)
		if (s->align[i] % size == 0 && s->diff[i] < (low + high) / 2)
			fell++;
	return fell;
}

/* How sure the erase reading is, given the alternative and the prior. */
static void weigh_erase(struct analysis_geometry *g, const struct stair *s,
			const struct fit *f, size_t e, size_t alt,
			const struct analysis_prior *prior)
{
	const struct analysis_level *top = &g->levels[e];
	size_t below = s->n - f->above[e], covered, fell;
	double confidence = analysis_confidence(top->z), weight_alt = 0;
	/* the top level: unless a weaker step hides above it */
	double above = strongest_rejected(s, f, top->size + 1, g->erase_max,
					  2, &covered);
	bool overwhelming = top->z >= OVERWHELMING_Z && f->above[e] >= 3 &&
			    below >= 3 && alt == SIZE_MAX;

	/* a top level of two points is hard to tell from a stray pair */
	if (f->above[e] < 3)
		confidence *= 0.8;
	/* a step this small could be the reader's, not the card's */
	if (top->cost_ns < MIN_ERASE_SHARE * g->read_ns)
		confidence *= top->cost_ns / (MIN_ERASE_SHARE * g->read_ns);
	if (above > 0)
		confidence = fmin(confidence, doubt_free(above, covered));
	/* a level some of whose lines fall back is not beyond doubt */
	fell = fallbacks(s, top->size);
	if (fell) {
		overwhelming = false;
		confidence = fmin(confidence, FALLBACK_CONFIDENCE -
				  0.1 * (double)(fell - 1));
	}
	if (alt != SIZE_MAX) {
		const struct analysis_level *a = &g->levels[alt];

		weight_alt = fmin(0.45, 0.9 * a->cost_ns /
				  (a->cost_ns + top->cost_ns));
	}
	if (prior && prior->preferred_erase) {
		if (prior->preferred_erase == top->size) {
			g->prior_verdict = 1;
			weight_alt /= 2;
			confidence = 1 - (1 - confidence) / 2;
		} else if (alt != SIZE_MAX &&
			   prior->preferred_erase == g->levels[alt].size) {
			g->prior_verdict = 2;
			weight_alt = fmin(0.5, weight_alt + 0.2);
		} else {
			g->prior_verdict = -1;
			confidence *= 0.8;
		}
	}
	if (g->spec_max_au && top->size > g->spec_max_au)
		confidence *= 0.85;
	if (alt != SIZE_MAX) {
		g->erase_alternative = (struct analysis_finding){ .known = true,
			.value = g->levels[alt].size,
			.confidence = weight_alt *
				      analysis_confidence(g->levels[alt].z) };
		confidence = fmin(confidence, 1 - weight_alt);
	}
	g->erase = (struct analysis_finding){ .known = true, .value = top->size,
		.confidence = capped(confidence, overwhelming) };
	g->erase_z = top->z;
}

/*
 * The strongest step the fit turned down among sizes in [low, high], in
 * noise units, and how many alignments of that range it had.
 */
static double strongest_rejected(const struct stair *s, const struct fit *f,
				 uint64_t low, uint64_t high, size_t support,
				 size_t *covered)
{
	double strongest = 0;

	*covered = 0;
	for (size_t c = 0; c < s->candidates; c++) {
		struct fit trial = *f;
		uint64_t size = s->candidate[c];

		if (size < low || size > high)
			continue;
		++*covered;
		if (has_level(f, size) || f->k == ANALYSIS_MAX_LEVELS)
			continue;
		trial.size[trial.k++] = size;
		evaluate(s, &trial);
		for (size_t j = 0; trial.valid && j < trial.k; j++)
			if (trial.size[j] == size && trial.z[j] > strongest &&
			    trial.above[j] >= support)
				strongest = trial.z[j];
	}
	return strongest;
}

/*
 * How sure that a step the fit turned down is not real, from its z and
 * how many sizes were tried: the largest of a dozen noise-only candidates
 * often reaches 2, of two it rarely does.
 */
static double doubt_free(double rejected_z, size_t tried)
{
	double usual = 2.2 + 0.5 * log2(1.0 + (double)tried);

	return 1 / (1 + exp((rejected_z - usual) * 1.5));
}

/*
 * No level where an erase block can be: how sure that none hides there -
 * the strongest step turned down in that range, and how many alignments
 * cover it.
 */
static double hidden_confidence(const struct stair *s, const struct fit *f,
				const struct analysis_geometry *g)
{
	size_t covered;
	double rejected = strongest_rejected(s, f, g->erase_min, g->erase_max,
					     1, &covered);

	/* the smallest step this noise lets through, against the smallest
	   erase-block steps cards show (a few percent of a read) */
	double smallest = 3 * s->sigma_ns / (MIN_ERASE_SHARE * s->read_ns);

	return fmin(1, (double)covered / 6) / (1 + smallest * smallest) *
	       capped(doubt_free(rejected, covered), false);
}

/* Page and effective page: the lowest steps, below any erase size. */
static void page_findings(struct analysis_geometry *g, const struct stair *s,
			  const struct fit *f)
{
	for (size_t j = 0; j < g->level_count; j++) {
		const struct analysis_level *l = &g->levels[j];

		if (l->kind == ANALYSIS_LEVEL_PAGE) {
			size_t covered;
			/* the lowest step: unless a weaker one hides below */
			double below = strongest_rejected(s, f, 1, l->size - 1,
							  1, &covered);

			g->page = level_finding(l, f->above[j]);
			if (below > 0)
				g->page.confidence = fmin(g->page.confidence,
					doubt_free(below, covered));
			g->page_z = l->z;
			g->page_ns = f->baseline_ns + l->cost_ns;
		} else if (l->kind == ANALYSIS_LEVEL_EFFECTIVE_PAGE) {
			g->effective_page = level_finding(l, f->above[j]);
		}
	}
}

void analysis_align_prior(const struct analysis_align_point *points,
			  size_t count, const struct analysis_prior *prior,
			  struct analysis_geometry *g)
{
	struct stair s;
	struct fit f;
	size_t erase, alternative;

	memset(g, 0, sizeof(*g));
	load_points(points, count, &s);
	erase_range(prior, g);
	for (size_t i = 0; i < s.n; i++) {
		if (!g->span_low || s.align[i] < g->span_low)
			g->span_low = s.align[i];
		if (s.align[i] > g->span_high)
			g->span_high = s.align[i];
	}
	g->noise_ns = s.sigma_ns;
	g->read_ns = s.read_ns;
	if (s.n < 4)
		return;
	fit_staircase(&s, &f);
	g->level_count = f.k;
	for (size_t j = 0; j < f.k; j++)
		g->levels[j] = (struct analysis_level){ f.size[j],
			f.cost_ns[j], f.z[j], ANALYSIS_LEVEL_STEP };
	name_levels(g, &erase, &alternative);
	page_findings(g, &s, &f);
	if (erase != SIZE_MAX) {
		weigh_erase(g, &s, &f, erase, alternative, prior);
		g->boundary_ns = f.baseline_ns;
		for (size_t j = 0; j <= erase; j++)
			g->boundary_ns += g->levels[j].cost_ns;
	} else if (f.k) {
		g->erase_hidden = true;
		g->hidden_confidence = hidden_confidence(&s, &f, g);
	}
}

void analysis_align(const struct analysis_align_point *points, size_t count,
		    struct analysis_geometry *g)
{
	analysis_align_prior(points, count, NULL, g);
}
