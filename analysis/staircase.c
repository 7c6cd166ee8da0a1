/*
 * findings: findings from measurements - erase-block and page size from
 * boundary costs, open erase blocks from open-AU runs, the regression of
 * the interval test, and the advice that follows from a geometry.  Numbers
 * in, numbers (and advice lines) out; nothing here reads a device or
 * prints.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "analysis/findings.h"
#include "lib/units.h"

/* Separations below this many noise units are not findings. */
#define MIN_Z 3.0

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

const struct analysis_finding_name
analysis_finding_names[ANALYSIS_FINDING_COUNT] = {
	[ANALYSIS_ERASE] = { "erase_size", true },
	[ANALYSIS_PAGE] = { "page_size", true },
	[ANALYSIS_EFFECTIVE_PAGE] = { "effective_page_size", true },
	[ANALYSIS_OPEN_LINEAR] = { "open_au_linear", false },
	[ANALYSIS_OPEN_RANDOM] = { "open_au_random", false },
	[ANALYSIS_MIN_WRITE] = { "min_write_size", true },
	[ANALYSIS_FAT_AREA] = { "fat_area", true },
};

void analysis_finding_record(const char *name,
			     const struct analysis_finding *finding,
			     bool bytes, const char *why,
			     struct record *record)
{
	double unknown = NAN;

	*record = (struct record){ .kind = "finding", .count = 3 };
	record->fields[0] = (struct vm_field){ VM_UNIT_LABEL, "name", NULL,
					       name, 0 };
	record->fields[1] = (struct vm_field){ bytes ? VM_UNIT_BYTES :
		VM_UNIT_COUNT, "value", NULL, NULL, finding->known ?
		(double)finding->value : unknown };
	record->fields[2] = (struct vm_field){ VM_UNIT_COUNT, "confidence",
		NULL, NULL, finding->known ? finding->confidence : unknown };
	if (why)
		record->fields[record->count++] = (struct vm_field){
			VM_UNIT_LABEL, "why", NULL, why, 0 };
}

void analysis_level_record(const struct analysis_level *level,
			   struct record *record)
{
	*record = (struct record){ .kind = "level", .count = 4 };
	record->fields[0] = (struct vm_field){ VM_UNIT_BYTES, "size_bytes", NULL,
					       NULL, (double)level->size };
	record->fields[1] = (struct vm_field){ VM_UNIT_TIME, "cost_ns", NULL,
					       NULL, level->cost_ns };
	record->fields[2] = (struct vm_field){ VM_UNIT_LABEL, "name", NULL,
		analysis_level_name(level->kind), 0 };
	record->fields[3] = (struct vm_field){ VM_UNIT_COUNT, "z", NULL, NULL,
					       level->z };
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

/* ---- the staircase of an align table ---- */

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
#define KIB 1024ULL
#define MIB (1024ULL * 1024)
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
	center = quantile(values, s->n, 0.5);
	for (size_t i = 0; i < s->n; i++)
		values[i] = fabs(s->diff[i] - center);
	return 1.4826 * quantile(values, s->n, 0.5);
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
		noise = quantile(values, count, 0.5);
	} else {
		count = 0;
		for (size_t i = 0; i < s->n; i++) {
			size_t next = next_of_family(s, i);

			if (next != i)
				values[count++] = fabs(s->diff[next] -
						       s->diff[i]);
		}
		if (count >= 3)
			noise = 1.4826 * quantile(values, count, 0.5) /
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
	s->read_ns = n ? quantile(reads, n, 0.5) : 0;
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

/* ---- advice ---- */

size_t analysis_recommend(uint64_t erase, uint64_t page,
			  unsigned open_linear, char lines[][384], size_t max)
{
	char e_text[UNITS_BUF], start_text[UNITS_BUF];
	uint64_t start, cluster;
	size_t n = 0;

	if (!erase || max < 5)
		return 0;
	/* lcm with the 1 MiB grid */
	start = erase / units_gcd(erase, MIB) * MIB;
	units_format_exact_size(e_text, erase);
	units_format_exact_size(start_text, start);
	snprintf(lines[n++], 384, "partition start: sector %llu (%s): "
		 "sfdisk 'start=%llu', parted 'mkpart primary %s 100%%' - "
		 "erase blocks of %s and the 1MiB grid line up there",
		 (unsigned long long)(start / 512), start_text,
		 (unsigned long long)(start / 512), start_text, e_text);
	snprintf(lines[n++], 384, "ext4: mkfs.ext4 -b 4096 -E stride=%llu,"
		 "stripe_width=%llu - allocations sized and placed by page "
		 "and erase block",
		 (unsigned long long)(page > 4096 ? page / 4096 : 1),
		 (unsigned long long)(erase / 4096 ? erase / 4096 : 1));
	snprintf(lines[n++], 384, "f2fs: mkfs.f2fs -s %llu -z 1 - a section "
		 "of %llu 2MiB segments is a whole number of erase blocks",
		 (unsigned long long)(erase / units_gcd(erase, 2 * MIB)),
		 (unsigned long long)(erase / units_gcd(erase, 2 * MIB)));
	if (open_linear && open_linear < 6)
		snprintf(lines[n++], 384, "f2fs: mount -o active_logs=%u - "
			 "the card keeps only %u erase blocks open",
			 open_linear >= 4 ? 4 : 2, open_linear);
	cluster = page > 16384 ? page : 16384;
	if (cluster > 65536)
		cluster = 65536;
	snprintf(lines[n++], 384, "vfat: mkfs.vfat -s %llu (clusters of %s), "
		 "never -a; raise -R so the data area starts on a %s "
		 "boundary", (unsigned long long)(cluster / 512),
		 units_format_exact_size(start_text, cluster), e_text);
	return n;
}
