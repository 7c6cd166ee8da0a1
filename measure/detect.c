/*
 * detect: automatic geometry detection.  Read probes time reads across
 * power-of-two and 3 x 2^n boundaries in rounds until the answer is clear
 * or the budget is spent; write probes search the open erase-block counts
 * by growing then bisecting.  Measurement is VM programs; decisions are
 * analysis/findings.c's; this file only orchestrates.  reportdetect.c reports.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/detect.h"
#include "measure/writerange.h"
#include "identity/info.h"
#include "identity/infosysfs.h"
#include "vm/programs.h"
#include "lib/units.h"
#include "vm.h"
#include "vm/compile.h"

#define MIB (1024ULL * 1024)
#define MAX_ALIGNS DETECT_MAX_ALIGNS
#define BOUNDARIES 8		/* per alignment */
#define REPS_PER_ROUND 4
#define MAX_ROUNDS 12
#define STABLE_ROUNDS 4	/* rounds with the same answer end the reads */
#define MAX_OPEN 64		/* open-AU search stops here */
#define MAX_RUNS 64		/* open-count probes of one detection */
#define OPEN_ROUNDS 3		/* rounds per write size; the median counts */
#define OPEN_SIZES 3		/* write sizes of an open-count probe */
#define OPEN_WARM_WRITES 16	/* opening writes of a probe, at least */
#define TABLE_SMALLEST (16 * 1024)	/* the original's default -b */
#define PROBE_ROUNDS 4		/* writes per erase block per FAT probe */
#define PROBE_WRITE (16 * 1024)	/* size of a FAT or baseline write */
#define GC_RATIO 2.0		/* slower than this x baseline: collected */
#define FAT_CANDIDATES 8
#define PROG_SIZES 8		/* 2K .. 256K */

/*
 * The probes are programs.c's (detect-align, detect-fill, ...); their
 * parameters are the detection's own set, d->params, set here before
 * each run of a probe.
 */
#define PARAM(name) d->params.slot[PARAM_##name].value

/* Values collected from a probe's records: first field of each. */
#define MAX_SAMPLES 4096
struct samples {
	double value[MAX_SAMPLES][3];
	size_t count;
};

static int collect(void *ctx, const struct record *record)
{
	struct samples *s = ctx;

	if (s->count < MAX_SAMPLES) {
		for (unsigned i = 0; i < 3 && i < record->count; i++)
			s->value[s->count][i] = record->fields[i].value;
		s->count++;
	}
	return 0;
}

struct detect {
	struct dev *dev;
	const struct detect_options *options;
	volatile sig_atomic_t *stop;
	struct program_params params;	/* the probes' */
	struct samples samples;
	/* write layout: open-count probes take erase blocks of the pool in
	   turn, so one reuses a block only long after the card closed it */
	uint64_t pool_base, pool_blocks, pool_next, size_base, max_open;
	uint64_t fat_base, fat_slot, slots_per_block;
	uint64_t open_write;		/* middle write size of a probe */
	double baseline_ns;
	struct analysis_run runs[MAX_RUNS];
	size_t run_count;
};

/* What the probes start from, before detect_run sets the rest. */
static void probe_defaults(struct detect *d)
{
	program_params_init(&d->params);
	PARAM(BOUNDARY_COUNT) = BOUNDARIES;
	PARAM(REPS) = REPS_PER_ROUND;
	PARAM(ROUNDS) = PROBE_ROUNDS;
	PARAM(NR) = 1;
	PARAM(SLOT) = 0;
	PARAM(WRITE_BYTES) = PROBE_WRITE;
	PARAM(FAT) = 0;
	PARAM(WRITE_POSITION) = 0;
	PARAM(BASE) = 0;
}

static int run_probe(struct detect *d, const char *name)
{
	const struct program_def *probe = programs_find(name);
	struct vm_program *program;
	struct vm_diag diag;
	struct vm_plan plan;
	struct vm_exec exec = { .dev = d->dev, .emit = collect,
				.ctx = &d->samples, .stop = d->stop };
	int err;

	d->samples.count = 0;
	if (!probe || vm_compile(probe->text, d->params.slot, PARAM_COUNT_OF,
				 &program, &diag))
		return -EINVAL;		/* a bug in programs.c */
	err = vm_plan(program, d->dev, 10000000, &plan);
	if (!err)
		err = vm_run(program, &plan, &exec);
	vm_free(program);
	return err;
}

/* ---- read probes ---- */

struct align_stats {
	uint64_t align;
	double pre[BOUNDARIES], on[BOUNDARIES], post[BOUNDARIES];
	size_t boundaries;
};

static double median_of(const double *values, size_t n)
{
	double copy[BOUNDARIES * 4];

	if (n == 0)
		return NAN;
	memcpy(copy, values, n * sizeof(*values));
	return analysis_median(copy, n);
}

static void to_point(const struct align_stats *a,
		     struct analysis_align_point *p)
{
	double diffs[BOUNDARIES], mean = 0, var = 0;
	size_t n = a->boundaries;

	for (size_t i = 0; i < n; i++) {
		diffs[i] = a->on[i] - (a->pre[i] + a->post[i]) / 2;
		mean += diffs[i] / (double)n;
	}
	for (size_t i = 0; i < n; i++)
		var += (diffs[i] - mean) * (diffs[i] - mean);
	p->align = a->align;
	p->pre = median_of(a->pre, n);
	p->on = median_of(a->on, n);
	p->post = median_of(a->post, n);
	p->diff = median_of(diffs, n);
	/* standard error of a median, from the boundaries' spread */
	p->noise = n > 1 ? 1.2533 * sqrt(var / (double)(n - 1)) /
			   sqrt((double)n) : 0;
}

static size_t list_aligns(const struct detect *d, uint64_t *aligns)
{
	uint64_t top = d->dev->size_bytes / 2;
	uint64_t bs = (uint64_t)PARAM(READ_BYTES);
	size_t n = 0;

	if (top > 256 * MIB)
		top = 256 * MIB;
	for (uint64_t a = 2 * bs; a <= top && n < MAX_ALIGNS; a *= 2)
		aligns[n++] = a;
	for (uint64_t a = 3 * bs; a <= top && n < MAX_ALIGNS; a *= 2)
		aligns[n++] = a;
	return n;
}

static int align_round(struct detect *d, struct align_stats *stats,
		       size_t count)
{
	for (size_t i = 0; i < count; i++) {
		int err;

		PARAM(ALIGN) = (double)stats[i].align;
		err = run_probe(d, "detect-align");
		if (err)
			return err;
		for (size_t b = 0; b < d->samples.count && b < BOUNDARIES;
		     b++) {
			double *v = d->samples.value[b];
			bool first = stats[i].boundaries <= b;

			/* the fastest of all rounds: noise only adds time */
			stats[i].pre[b] = first || v[0] < stats[i].pre[b] ?
					  v[0] : stats[i].pre[b];
			stats[i].on[b] = first || v[1] < stats[i].on[b] ?
					 v[1] : stats[i].on[b];
			stats[i].post[b] = first || v[2] < stats[i].post[b] ?
					   v[2] : stats[i].post[b];
			if (first)
				stats[i].boundaries = b + 1;
		}
	}
	return 0;
}

/* How sure the erase-block answer is, whether found or not visible. */
static double erase_sureness(const struct analysis_geometry *g)
{
	return g->erase.known ? g->erase.confidence :
	       g->erase_hidden ? g->hidden_confidence : 0;
}

static bool settled(const struct analysis_geometry *g)
{
	/* "not visible" is never settled at once: a weak step may yet
	   come out of the noise as the rounds sharpen the times */
	if (!g->erase.known)
		return false;
	/* a weak page signal needs more rounds: only the budget ends them */
	return g->erase.confidence >= 0.95 && g->page.confidence >= 0.9;
}

static bool same_answer(const struct analysis_geometry *a,
			const struct analysis_geometry *b)
{
	return a->erase.known == b->erase.known &&
	       a->erase_hidden == b->erase_hidden &&
	       a->erase.value == b->erase.value &&
	       a->page.known == b->page.known &&
	       a->page.value == b->page.value;
}

static int read_probes(struct detect *d, struct analysis_align_point *points,
		       size_t *count, const struct analysis_prior *prior,
		       struct analysis_geometry *g)
{
	uint64_t aligns[MAX_ALIGNS];
	struct align_stats *stats;
	size_t n = list_aligns(d, aligns);
	uint64_t start_ns = d->dev->stats.time_ns;
	int err = 0;

	stats = calloc(n, sizeof(*stats));
	if (!stats)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		stats[i].align = aligns[i];
	PARAM(LIMIT) = (double)d->dev->size_bytes;
	for (unsigned round = 0, same = 0; round < MAX_ROUNDS; round++) {
		struct analysis_geometry before = *g;

		err = align_round(d, stats, n);
		if (err)
			break;
		*count = 0;
		for (size_t i = 0; i < n; i++)
			if (stats[i].boundaries)
				to_point(&stats[i], &points[(*count)++]);
		analysis_align_prior(points, *count, prior, g);
		/* more rounds only sharpen the fastest times; once the answer
		   has not moved for a while they stop paying */
		same = round && same_answer(&before, g) ? same + 1 : 0;
		if (settled(g) || (same >= STABLE_ROUNDS &&
				   erase_sureness(g) >= 0.95) ||
		    d->dev->stats.time_ns - start_ns > d->options->budget_ns)
			break;
	}
	free(stats);
	return err;
}

/* ---- write probes ---- */

static double probe_time(const struct detect *d, size_t skip)
{
	double values[MAX_SAMPLES];
	size_t n = 0;

	for (size_t i = skip; i < d->samples.count; i++)
		values[n++] = d->samples.value[i][0];
	return n ? analysis_median(values, n) : NAN;
}

/*
 * The write sizes of an open-count probe, in quarters of its middle size:
 * the median is the middle one, the others keep one size that misleads
 * (small writes slow for other reasons) from deciding.
 */
static const unsigned open_quarters[OPEN_SIZES] = { 1, 4, 8 };

static uint64_t pow2_floor(uint64_t x)
{
	uint64_t p = 1;

	while (p <= x / 2)
		p *= 2;
	return p;
}

/*
 * The middle write size of an open-count probe (it also writes a quarter
 * and twice that): near the geometric middle of the sizes a manual
 * table has below the erase size (16 KiB, the original's default, up to
 * half the erase size), where the median of its ratios sits, so both
 * read the same.  At most 1/16 of the erase size: a probe's opening
 * writes and its three sizes of OPEN_ROUNDS writes (10 times the middle
 * size) fit one erase block.
 */
static uint64_t open_write_size(uint64_t erase)
{
	uint64_t middle = pow2_floor((uint64_t)sqrt((double)TABLE_SMALLEST *
						   (double)(erase / 2)));
	uint64_t fit = pow2_floor(erase / 16);

	return middle < fit ? middle : fit;
}

/* The next n erase blocks of the pool, from its start when they do not
   fit: a block comes back only after the rest of the pool. */
static uint64_t take_blocks(struct detect *d, uint64_t n)
{
	uint64_t first;

	if (d->pool_next + n > d->pool_blocks)
		d->pool_next = 0;
	first = d->pool_next;
	d->pool_next += n;
	return d->pool_base + first * (uint64_t)PARAM(ERASE);
}

/* $rounds rounds of one write size from pos; the median round, in ns. */
static int open_size(struct detect *d, bool random, uint64_t pos, uint64_t w,
		     unsigned rounds, double *round_ns)
{
	int err;

	PARAM(WRITE_POSITION) = (double)pos;
	PARAM(WRITE_BYTES) = (double)w;
	PARAM(ROUNDS) = rounds;
	err = run_probe(d, random ? "detect-open-random" :
			     "detect-open-linear");
	PARAM(WRITE_BYTES) = PROBE_WRITE;
	PARAM(ROUNDS) = PROBE_ROUNDS;
	*round_ns = probe_time(d, 0);
	if (!err && !(*round_ns > 0))
		err = -EIO;		/* no time measured: nothing to read */
	return err;
}

static void log_run(FILE *log, const struct analysis_run *run,
		    const struct analysis_verdict *v)
{
	char size[UNITS_BUF];

	fprintf(log, "  %s N=%-3u", run->random ? "random" : "linear",
		run->nr);
	for (size_t i = 0; i < run->count; i++)
		fprintf(log, " %7s %6.2fMB/s",
			units_format_exact_size(size, run->size[i]),
			run->rate[i] / 1e6);
	if (v->compared)
		fprintf(log, "  median %.2f of the best with fewer: %s\n",
			v->median_ratio, v->fell ? "falls off" : "holds");
	else
		fprintf(log, "  (the reference)\n");
}

/*
 * Opening writes into each of nr erase blocks at [0, q): at least
 * OPEN_WARM_WRITES in all (unless q is too few logical blocks), so the
 * erase blocks the probe before left open or spilled have gone out of
 * use before the timed rounds start.
 */
static int open_blocks(struct detect *d, unsigned nr, uint64_t q)
{
	uint64_t rounds = 1;
	double ns;

	/* a power of two: q (one too) splits into whole logical blocks */
	while (rounds * nr < OPEN_WARM_WRITES)
		rounds *= 2;
	while (rounds > 1 && q / rounds < d->dev->logical_block_bytes)
		rounds /= 2;
	return open_size(d, false, 0, q / rounds, (unsigned)rounds, &ns);
}

/*
 * For out of order: a write of q at the top of the probe's part of each
 * block, so that every timed write lands below one already written (top
 * down alone, each size's first round would be in order).
 */
static int mark_top(struct detect *d, uint64_t q)
{
	uint64_t top = q;
	double ns;

	for (size_t i = 0; i < OPEN_SIZES; i++)
		top += OPEN_ROUNDS * q * open_quarters[i];
	return open_size(d, false, top - q, q, 1, &ns);
}

/* The last run, sizes measured so far, against the runs before it. */
static void judge(const struct detect *d, size_t index,
		  struct analysis_verdict *v)
{
	analysis_open_au_verdict_below(d->runs, index + 1, index,
				       (uint64_t)PARAM(ERASE), v);
}

/*
 * Of two sizes, both fall off (the higher ratio, twice their median less
 * the worst, is below the threshold): the third cannot lift the median.
 * Runs that hold measure all three, as the reference of those after.
 */
static bool both_fall(const struct analysis_verdict *v)
{
	return 2 * v->median_ratio - v->worst_ratio < ANALYSIS_FALL_RATIO;
}

/*
 * N fresh erase blocks in one order: opening writes, then each write size
 * of open_quarters in OPEN_ROUNDS rounds, each size in the part of every
 * block after the one before, in order or top down.  The rates go to
 * d->runs as an open-AU run would, and *fell says whether it falls off
 * against the runs with fewer blocks, by the rule --analyze reads tables
 * with: the median ratio.  When the first two sizes fall off the third
 * cannot change that, and is not written.
 */
static int open_probe(struct detect *d, unsigned nr, bool random,
		      bool *fell, FILE *log)
{
	uint64_t q = d->open_write / 4, pos = q;
	size_t index = d->run_count;
	struct analysis_run *run = &d->runs[index];
	struct analysis_verdict v;
	double ns;
	int err;

	if (index == MAX_RUNS)
		return -EOVERFLOW;	/* the search never needs as many */
	PARAM(BASE) = (double)take_blocks(d, nr);
	PARAM(NR) = nr;
	err = open_blocks(d, nr, q);
	if (!err && random)
		err = mark_top(d, q);
	memset(run, 0, sizeof(*run));
	run->nr = nr;
	run->random = random;
	while (!err && run->count < OPEN_SIZES) {
		uint64_t w = q * open_quarters[run->count];

		err = open_size(d, random, pos, w, OPEN_ROUNDS, &ns);
		pos += OPEN_ROUNDS * w;
		run->size[run->count] = w;
		run->rate[run->count++] = (double)nr * (double)w * 1e9 / ns;
		judge(d, index, &v);
		if (run->count == 2 && v.compared && both_fall(&v))
			break;
	}
	if (err)
		return err;
	d->run_count++;
	judge(d, index, &v);
	*fell = v.fell;
	if (log)
		log_run(log, run, &v);
	return 0;
}

/*
 * Open-count probes in one order from lowest up: grow by doubling until
 * one falls off, then bisect between the last that held and it.  The
 * count is read from all the runs afterwards (open_findings).
 */
static int search_open(struct detect *d, bool random, unsigned lowest,
		       unsigned limit, FILE *log)
{
	unsigned good = lowest - 1, bad = 0, nr = lowest;
	bool fell;
	int err;

	while (nr <= limit) {
		err = open_probe(d, nr, random, &fell, log);
		if (err)
			return err;
		if (fell) {
			bad = nr;
			break;
		}
		good = nr;
		nr = nr < 2 ? 2 : nr * 2;
		if (nr > limit && good < limit)
			nr = limit;
	}
	while (bad && bad - good > 1) {
		unsigned mid = good + (bad - good) / 2;

		err = open_probe(d, mid, random, &fell, log);
		if (err)
			return err;
		if (fell)
			bad = mid;
		else
			good = mid;
	}
	return 0;
}

/* The counts from the runs so far, as --analyze reads a table. */
static void open_findings(const struct detect *d, uint64_t erase,
			  struct detect_findings *f)
{
	struct analysis_open open;

	analysis_open_au_below(d->runs, d->run_count, erase, &open);
	f->open_linear = open.linear;
	f->open_random = open.random;
	/* nothing fell up to the search's limit: at least that many, the
	   count itself is unknown */
	if (open.linear_lower_bound && f->open_linear.confidence > 0.3)
		f->open_linear.confidence = 0.3;
	/* out of order held up to the in-order count, which it cannot
	   exceed: as sure as that count is */
	if (open.random_lower_bound &&
	    f->open_random.confidence > f->open_linear.confidence)
		f->open_random.confidence = f->open_linear.confidence;
}

/* Weighted fit of t = a + b * max(w, P): the P that fits best. */
static void fit_min_write(const double *w, const double *t, size_t n,
			  struct analysis_finding *found)
{
	double best = INFINITY, second = INFINITY;
	uint64_t best_p = 0;

	for (size_t c = 0; c < n; c++) {
		double x[PROG_SIZES], err = 0, slope, intercept;

		for (size_t i = 0; i < n; i++)
			x[i] = w[i] > w[c] ? w[i] : w[c];
		if (analysis_linear_fit(x, t, n, &slope, &intercept) &&
		    c + 1 < n)
			continue;
		if (c + 1 == n) {	/* flat: every size costs the same */
			slope = 0;
			intercept = median_of(t, n);
		}
		for (size_t i = 0; i < n; i++) {
			double r = (t[i] - intercept - slope * x[i]) / t[i];

			err += r * r;
		}
		if (err < best) {
			second = best;
			best = err;
			best_p = (uint64_t)w[c];
		} else if (err < second) {
			second = err;
		}
	}
	*found = (struct analysis_finding){ .known = best_p != 0,
		.value = best_p,
		.confidence = second > 0 && isfinite(second) ?
			      1 - best / second : 0 };
	if (found->confidence < 0)
		found->confidence = 0;
}

static int min_write_probe(struct detect *d, struct analysis_finding *found)
{
	double w[PROG_SIZES], t[PROG_SIZES];
	size_t n = 0;
	int err;

	/* up to the sizes whose rounds still fit one erase block */
	for (uint64_t size = 2048; n < PROG_SIZES &&
	     (double)(size * PROBE_ROUNDS) <= PARAM(ERASE); size *= 2) {
		if (size < d->dev->logical_block_bytes)
			continue;
		PARAM(BASE) = (double)(d->size_base +
				n * (uint64_t)PARAM(ERASE));
		PARAM(WRITE_BYTES) = (double)size;
		err = run_probe(d, "detect-size");
		if (err)
			return err;
		w[n] = (double)size;
		t[n++] = probe_time(d, 1);
	}
	PARAM(WRITE_BYTES) = PROBE_WRITE;
	fit_min_write(w, t, n, found);
	return 0;
}

/*
 * The FAT-like area: first a baseline (one erase block written in order,
 * nothing to collect), then each leading erase block in turn with the
 * out-of-order places filled, until one collects.
 */
static int fat_probe_run(struct detect *d, unsigned open_random,
			 struct analysis_finding *found, FILE *log)
{
	uint64_t erase = (uint64_t)PARAM(ERASE);
	unsigned fat = 0;
	int err;

	d->fat_base = take_blocks(d, open_random ? open_random : 1);
	PARAM(BASE) = (double)d->fat_base;
	PARAM(NR) = 1;
	PARAM(SLOT) = 0;
	d->fat_slot = PROBE_ROUNDS;
	err = run_probe(d, "detect-fill");
	if (err)
		return err;
	d->baseline_ns = probe_time(d, 1);	/* the first one opens it */
	if (log)
		fprintf(log, "  baseline   %10.0f ns/write of %u bytes\n",
			d->baseline_ns, PROBE_WRITE);
	for (unsigned i = 0; i < FAT_CANDIDATES; i++) {
		double ns;

		if (d->fat_slot + PROBE_ROUNDS > d->slots_per_block)
			break;
		PARAM(FAT) = (double)(i * erase);
		PARAM(BASE) = (double)d->fat_base;
		PARAM(NR) = open_random;
		PARAM(SLOT) = (double)d->fat_slot;
		d->fat_slot += PROBE_ROUNDS;
		err = run_probe(d, "detect-fat");
		if (err)
			return err;
		ns = probe_time(d, 1);
		if (log)
			fprintf(log, "  fat block %u %10.0f ns/write  %s\n", i,
				ns, ns < GC_RATIO * d->baseline_ns ?
				"cheap in any order" : "collects");
		if (ns >= GC_RATIO * d->baseline_ns)
			break;
		fat++;
	}
	*found = (struct analysis_finding){ .known = true,
		.value = fat * erase, .confidence = 0.8 };
	return 0;
}

/* The probes' smallest write (a quarter of the open-count middle size)
   is whole logical blocks, as every write they make must be. */
static bool probe_writes_fit(uint64_t erase, uint32_t lbs)
{
	uint64_t smallest = erase ? open_write_size(erase) / 4 : 0;

	return erase % lbs == 0 && smallest && smallest % lbs == 0;
}

uint64_t detect_min_erase_bytes(uint32_t lbs)
{
	for (uint64_t erase = lbs; erase <= DEV_MAX_TRANSFER_BYTES;
	     erase += lbs)
		if (probe_writes_fit(erase, lbs))
			return erase;
	return 0;
}

int detect_write_range(const struct dev *dev, uint64_t erase,
		       uint64_t *start, uint64_t *end)
{
	uint64_t base, blocks;

	if (!probe_writes_fit(erase, dev->logical_block_bytes))
		return -EINVAL;
	base = measure_write_floor(erase);
	if (base < FAT_CANDIDATES * erase)
		base = FAT_CANDIDATES * erase;
	if (dev->size_bytes < base + (4 + PROG_SIZES) * erase)
		return -ENOSPC;
	blocks = (dev->size_bytes - base) / erase - PROG_SIZES;
	if (blocks / 2 > MAX_OPEN + 1)
		blocks = 2 * (MAX_OPEN + 1);
	*start = 0;
	*end = base + (blocks / 2 * 2 + PROG_SIZES) * erase;
	return 0;
}

/*
 * The pool of the open-count and FAT probes: twice the largest count
 * searched, so a probe never writes a block the one before left open.
 * Then the erase blocks of the smallest-write probe.
 */
static int layout(struct detect *d, uint64_t erase)
{
	uint64_t start, end, base = measure_write_floor(erase);
	int err = detect_write_range(d->dev, erase, &start, &end);

	if (err)
		return err;
	if (base < FAT_CANDIDATES * erase)
		base = FAT_CANDIDATES * erase;
	d->max_open = ((end - base) / erase - PROG_SIZES) / 2;
	d->pool_base = base;
	d->pool_blocks = 2 * d->max_open;
	d->pool_next = 0;
	d->size_base = base + 2 * d->max_open * erase;
	d->slots_per_block = erase / PROBE_WRITE;
	d->open_write = open_write_size(erase);
	d->run_count = 0;
	PARAM(ERASE) = (double)erase;
	PARAM(WRITE_BYTES) = PROBE_WRITE;
	PARAM(ROUNDS) = PROBE_ROUNDS;
	return 0;
}

static int write_probes(struct detect *d, uint64_t erase,
			struct detect_findings *f, FILE *log)
{
	unsigned limit;
	int err = layout(d, erase);

	limit = d->max_open > MAX_OPEN ? MAX_OPEN : (unsigned)d->max_open;
	if (!err)
		err = search_open(d, false, 1, limit, log);
	open_findings(d, erase, f);
	/* out of order: from one erase block (against in order) up to the
	   in-order count */
	if (!err)
		err = search_open(d, true, 1, (unsigned)f->open_linear.value,
				  log);
	open_findings(d, erase, f);
	if (!err)
		err = min_write_probe(d, &f->min_write);
	if (!err)
		err = fat_probe_run(d, (unsigned)f->open_random.value,
				    &f->fat_area, log);
	return err;
}

/* One line of who made the card and when, from what sysfs decoded. */
static void describe_card(const struct info_card *card, char *buf,
			  size_t size)
{
	size_t n = 0;

#define ADD(...) \
	(n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__))
	ADD("%s", info_transport_label(card->transport));
	if (card->manufacturer)
		ADD(", %s", card->manufacturer);
	else if (card->has_manfid)
		ADD(", manufacturer 0x%02x", card->manfid);
	if (card->has_name)
		ADD(" %s", card->name);
	if (card->has_serial)
		ADD(", serial 0x%08x", card->serial);
	if (card->has_date)
		ADD(", made %04u-%02u", card->year, card->month);
#undef ADD
}

static void read_sysfs_claim(const struct dev *dev,
			     const struct detect_options *o,
			     struct detect_findings *f)
{
	struct info_device device = { .path = dev->path,
		.size_bytes = dev->size_bytes,
		.logical_block_bytes = dev->logical_block_bytes,
		.simulated = dev->simulated };
	struct info_card *card = calloc(1, sizeof(*card));
	char why[256];

	snprintf(f->identity, sizeof(f->identity), "%s",
		 dev->simulated ? "simulated card" : "unknown");
	if (card && !dev->simulated &&
	    info_read_card(&device, o->sysfs_root, card, why,
			   sizeof(why)) == 0) {
		describe_card(card, f->identity, sizeof(f->identity));
		if (card->has_preferred_erase_size) {
			f->sysfs_known = true;
			f->sysfs_erase = card->preferred_erase_size;
		}
		f->prior.device = card->transport == INFO_TRANSPORT_SD ?
				  ANALYSIS_DEVICE_SD :
				  card->transport == INFO_TRANSPORT_EMMC ?
				  ANALYSIS_DEVICE_EMMC : ANALYSIS_DEVICE_UNKNOWN;
		f->prior.preferred_erase = f->sysfs_erase;
	}
	free(card);
}

/* Both halves of a detection, on a run's state d. */
static int detect_probe(struct detect *d, struct detect_findings *f)
{
	const struct detect_options *options = d->options;
	FILE *log = options->verbose ? stderr : NULL;
	int err;

	probe_defaults(d);
	PARAM(READ_BYTES) = d->dev->logical_block_bytes * 2.0;
	f->prior.capacity_bytes = d->dev->size_bytes;
	read_sysfs_claim(d->dev, options, f);
	f->boundaries = BOUNDARIES;
	err = read_probes(d, f->evidence, &f->evidence_count, &f->prior,
			  &f->geometry);
	if (err)
		return err;
	f->erase_used = options->erase_size ? options->erase_size :
			f->geometry.erase.known ? f->geometry.erase.value : 0;
	if (options->write) {
		uint64_t start, end;

		if (!f->erase_used)
			return -EDOM;
		err = detect_write_range(d->dev, f->erase_used, &start, &end);
		if (err)
			return err;
		err = options->announce ? options->announce(options->ctx,
							    d->dev, start,
							    end) : 0;
		if (!err)
			err = write_probes(d, f->erase_used, f, log);
		if (err)
			return err;
		f->wrote = true;
	}
	f->advice_count = analysis_recommend(f->erase_used,
		f->geometry.page.known ? f->geometry.page.value : 0,
		(unsigned)f->open_linear.value, f->advice, DETECT_ADVICE_MAX);
	return 0;
}

int detect_run(struct dev *dev, const struct detect_options *options,
	       volatile sig_atomic_t *stop, struct detect_findings *f)
{
	/* some 140 KiB of samples and runs: the heap, not the stack */
	struct detect *d = calloc(1, sizeof(*d));
	int err;

	memset(f, 0, sizeof(*f));
	if (!d)
		return -ENOMEM;
	d->dev = dev;
	d->options = options;
	d->stop = stop;
	err = detect_probe(d, f);
	free(d);
	return err;
}
