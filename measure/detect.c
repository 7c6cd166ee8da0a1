/*
 * detect: automatic geometry detection.  Read probes time reads across
 * power-of-two and 3 x 2^n boundaries in rounds until the answer is clear
 * or the budget is spent; write probes search the open erase-block counts
 * by growing then bisecting.  Measurement is VM programs; decisions are
 * analysis/detected.c's (on analysis/staircase.c's and openau.c's
 * readings); this file only orchestrates.  records/detect.c reports.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
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

#define MAX_ALIGNS DETECT_MAX_ALIGNS
#define BOUNDARIES DETECT_BOUNDARIES	/* per alignment */
#define REPS_PER_ROUND 4
#define MAX_ROUNDS 12
#define MAX_OPEN 32		/* open-count search stops here ... */
#define MAX_OPEN_LARGE 128	/* ... or here on a large device: */
#define LARGE_DEVICE_BYTES (32 * GIB)	/* cards sold as 64 GB and more
					   (a 32 GB card is less), some of
					   which keep 64 units open */
#define LARGE_RANGE_SHARE 4	/* the larger search takes a quarter of
				   the device at most */
#define MIN_REGION 4		/* blocks per order: a search up to 4 at least */
#define MAX_RUNS DETECT_MAX_RUNS	/* open-count probes of a detection */
#define OPEN_ROUNDS DETECT_OPEN_ROUNDS	/* timed rounds of a probe at most */
#define PROBE_SLOTS (1 + OPEN_ROUNDS)	/* its writes into each block */
#define PROBES_PER_BLOCK 24	/* probes (and FAT rounds) a region takes */
#define STOP_RATIO 0.35		/* a round this slow has fallen off */
#define TABLE_SMALLEST (16 * 1024)	/* the original's default -b */
#define OPEN_WRITE (32 * 1024)	/* the open-count probes' write, at most:
				   past the small-write buffers of cards
				   that slow down gracefully */
#define PROBE_ROUNDS 4		/* writes per erase block per FAT probe */
#define GC_RATIO 2.0		/* slower than this x baseline: collected */
#define FAT_CANDIDATES 8
#define PROG_SIZES DETECT_WRITE_SIZES	/* 2K .. 128K */
#define EXTRA_BLOCKS (1 + PROG_SIZES)	/* the FAT control, the sizes */
#define SWITCH_WRITE_FACTOR 4
#define FAT_ROUNDS 3		/* writes per block per FAT probe */
#define WARM_WRITES 12		/* see warm_region */
#define CONFIRM_TRIES 3		/* see confirm_fall */
#define NO_SIGNAL_WRITE_BYTES (16 * MIB)	/* see open_probe */

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
	struct region {
		uint64_t base;		/* its first erase block */
		uint64_t pos;		/* next free offset in each block */
		unsigned open_held;	/* leading blocks left open */
	} regions[2];			/* in order, out of order */
	uint64_t control_base, size_base, max_open;
	uint64_t q;			/* write size of the probes */
	uint64_t write_cap_bytes;	/* written at most; 0: no cap */
	uint64_t small_bytes;		/* the smallest size timed ... */
	double small_ns;		/* ... and a write of it; 0: none */
	struct detect_runs runs;	/* the open-count probes so far */
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
	PARAM(WRITE_BYTES) = TABLE_SMALLEST;
	PARAM(FAT) = 0;
	PARAM(WRITE_POSITION) = 0;
	PARAM(BASE) = 0;
}

static int run_probe(struct detect *d, const char *name)
{
	struct vm_program *program;
	struct vm_plan plan;
	struct vm_exec exec = { .dev = d->dev,
				.sink = { collect, &d->samples },
				.stop = d->stop };
	int err;

	d->samples.count = 0;
	if (programs_compile(name, &d->params, &program))
		return -EINVAL;		/* a bug in programs.c */
	err = vm_plan(program, d->dev, 10000000, &plan);
	if (!err)
		err = vm_run(program, &plan, &exec);
	vm_free(program);
	return err;
}

/* ---- read probes ---- */

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

static int align_round(struct detect *d, struct detect_boundary_times *stats,
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

static int read_probes(struct detect *d, struct analysis_align_point *points,
		       size_t *count, const struct analysis_prior *prior,
		       struct analysis_geometry *g)
{
	uint64_t aligns[MAX_ALIGNS];
	struct detect_boundary_times *stats;
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
				detected_point(&stats[i], &points[(*count)++]);
		analysis_align_prior(points, *count, prior, g);
		/* more rounds only sharpen the fastest times; once the answer
		   has not moved for a while they stop paying */
		if (detected_reads_done(&before, g, round, &same) ||
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

static uint64_t pow2_floor(uint64_t x)
{
	uint64_t p = 1;

	while (p <= x / 2)
		p *= 2;
	return p;
}

/*
 * The write size of the open-count and FAT probes: the original's default
 * -b, or less where PROBES_PER_BLOCK probes of PROBE_SLOTS writes would
 * not fit one erase block.
 */
static uint64_t probe_write_size(uint64_t erase)
{
	uint64_t fit = pow2_floor(erase / (PROBE_SLOTS * PROBES_PER_BLOCK));

	return fit < OPEN_WRITE ? fit : OPEN_WRITE;
}

/* The FAT probe's writes: small ones, as a file system's are, and
   enough of them to fill the card's out-of-order places every round. */
static uint64_t fat_write_size(const struct detect *d)
{
	return d->q < TABLE_SMALLEST ? d->q : TABLE_SMALLEST;
}

/*
 * Writes of the probe size at offset into each of n erase blocks from
 * first, in turn, in chunks of 1, 1, 2, 4 ... blocks, until after two
 * blocks or more the time spent is past its share of stop_ns (the whole
 * round at the slowest rate that has not yet fallen off for sure): a
 * card past its limit pays a garbage collection for every write of the
 * round, and the rest would only cost more of them.  *written: the
 * blocks written; *ns: their time.
 */
static int write_round(struct detect *d, uint64_t first, unsigned n,
		       uint64_t offset, double stop_ns, unsigned *written,
		       double *ns)
{
	unsigned chunk = 1;
	int err = 0;

	*written = 0;
	*ns = 0;
	PARAM(WRITE_POSITION) = (double)offset;
	PARAM(WRITE_BYTES) = (double)d->q;
	PARAM(ROUNDS) = 1;
	while (!err && *written < n &&
	       !(*written >= 2 && *ns > stop_ns * *written / n)) {
		unsigned k = chunk < n - *written ? chunk : n - *written;

		PARAM(BASE) = (double)(first + *written * (uint64_t)PARAM(ERASE));
		PARAM(NR) = k;
		err = run_probe(d, "detect-open-linear");
		*ns += probe_time(d, 0);
		*written += k;
		if (*written > 1)
			chunk *= 2;
	}
	PARAM(WRITE_BYTES) = (double)d->q;
	PARAM(ROUNDS) = PROBE_ROUNDS;
	if (!err && !(*ns > 0))
		err = -EIO;		/* no time measured: nothing to read */
	return err;
}

static void log_run(FILE *log, const struct detect *d,
		    const struct analysis_run *run, const double *rates,
		    unsigned rounds, const struct analysis_verdict *v)
{
	char size[UNITS_BUF];

	fprintf(log, "  %7.3f s %s N=%-3u %7s",
		(double)d->dev->stats.time_ns / 1e9,
		run->random ? "random" : "linear", run->nr,
		units_format_exact_size(size, run->size[0]));
	for (unsigned i = 0; i < rounds; i++)
		fprintf(log, " %8.2fMB/s", rates[i] / 1e6);
	if (v->compared)
		fprintf(log, "  median %.2f of the best with fewer: %s\n",
			v->median_ratio, v->fell ? "falls off" : "holds");
	else
		fprintf(log, "  (the reference)\n");
}

/* Opens the blocks of the region a probe of nr needs that are not open:
   one write each, the highest first, so those still open are touched
   before the card has to close any. */
static int open_region(struct detect *d, struct region *r, unsigned nr,
		       uint64_t offset)
{
	unsigned held = r->open_held < nr ? r->open_held : nr, written;
	double ns;
	int err = 0;

	for (unsigned i = nr; !err && i-- > held;)
		err = write_round(d, r->base + i * (uint64_t)PARAM(ERASE), 1,
				  offset, INFINITY, &written, &ns);
	return err;
}

/*
 * The first probe of the out-of-order region writes its blocks in order
 * up from the opening write, WARM_WRITES writes in all, before the timed
 * rounds: a card that spills to more blocks than it keeps open keeps the
 * blocks the in-order probes wrote last as its open ones while they are
 * in use, and a block written only once would be timed spilling, not
 * out of order.  Returns the slots the writes took in each block.
 */
static int warm_region(struct detect *d, struct region *r, unsigned nr,
		       unsigned *slots)
{
	unsigned rounds = (WARM_WRITES + nr - 1) / nr, written;
	double ns;
	int err = 0;

	*slots = 0;
	if (r->pos || r->open_held ||
	    r->pos + (PROBE_SLOTS + rounds) * d->q > (uint64_t)PARAM(ERASE))
		return 0;
	for (unsigned i = 0; !err && i < rounds; i++)
		err = write_round(d, r->base, nr,
				  r->pos + (OPEN_ROUNDS + 1 + i) * d->q,
				  INFINITY, &written, &ns);
	*slots = rounds;
	return err;
}

/*
 * N erase blocks of the region in one order: opening writes, then up to
 * OPEN_ROUNDS timed rounds of one write into each block in turn, in order
 * up from the opening write or top down below it.  Two rounds that agree
 * (both fall or both hold against the reference) decide the median of
 * three, so the third is written only when they disagree.  The median
 * round's rate goes to d->runs as an open-AU run's would, and *fell says
 * whether it falls off against the runs with fewer blocks, by the rule
 * --analyze reads tables with.
 */
static int open_probe(struct detect *d, unsigned nr, bool random,
		      bool *fell, FILE *log)
{
	struct region *r = &d->regions[random ? 1 : 0];
	double ref = detected_reference_rate(&d->runs, nr, random);
	double rates[OPEN_ROUNDS];
	unsigned rounds = 0, falls = 0, warm = 0;
	struct analysis_verdict v;
	int err;

	if (d->runs.count == MAX_RUNS ||
	    r->pos + PROBE_SLOTS * d->q > (uint64_t)PARAM(ERASE))
		return -EOVERFLOW;	/* the search never needs as many */
	/* a device that shows no erase block is searched only as far as
	   the cap allows: a lower bound, not a device worn for nothing */
	if (d->write_cap_bytes &&
	    d->dev->stats.bytes_written + (PROBE_SLOTS * nr +
					   (random ? WARM_WRITES : 0)) * d->q >
	    d->write_cap_bytes)
		return -EOVERFLOW;
	err = open_region(d, r, nr, r->pos + (random ? OPEN_ROUNDS * d->q : 0));
	if (!err && random)
		err = warm_region(d, r, nr, &warm);
	while (!err && rounds < OPEN_ROUNDS) {
		unsigned slot = random ? OPEN_ROUNDS - 1 - rounds : 1 + rounds;
		double stop = ref > 0 ? (double)nr * (double)d->q * 1e9 / ref /
					STOP_RATIO : INFINITY, ns;
		unsigned written;

		err = write_round(d, r->base, nr, r->pos + slot * d->q, stop,
				  &written, &ns);
		if (err)
			break;
		rates[rounds] = (double)written * (double)d->q * 1e9 / ns;
		falls += ref > 0 && rates[rounds] < ANALYSIS_FALL_RATIO * ref;
		rounds++;
		if (rounds == 2 && ref > 0 && falls != 1)
			break;
	}
	r->pos += (PROBE_SLOTS + warm) * d->q;
	if (err)
		return err;
	*fell = detected_add_run(&d->runs, nr, random, d->q, rates, rounds,
				 &v);
	r->open_held = *fell ? 0 : nr;
	if (log)
		log_run(log, d, &d->runs.run[d->runs.count - 1], rates,
			rounds, &v);
	return 0;
}

/* Probes between a count that held (good) and one that fell (bad, 0:
   none), halving the gap until they meet. */
static int bisect_open(struct detect *d, bool random, unsigned good,
		       unsigned bad, FILE *log)
{
	bool fell;
	int err;

	while (bad && bad - good > 1) {
		unsigned mid = good + (bad - good) / 2;

		err = open_probe(d, mid, random, &fell, log);
		if (err == -EOVERFLOW)
			return 0;
		if (err)
			return err;
		if (fell)
			bad = mid;
		else
			good = mid;
	}
	return 0;
}

/*
 * Open-count probes in one order from lowest up: grow by doubling until
 * one falls off, then bisect between the last that held and it.  The
 * count is read from all the runs afterwards (detected_open_findings).
 */
static int search_open(struct detect *d, bool random, unsigned lowest,
		       unsigned limit, bool top_first, FILE *log)
{
	unsigned good = lowest - 1, bad = 0, nr = lowest;
	bool fell;
	int err;

	/* out of order, up to the in-order count: cards that take any
	   order hold at that count, and one probe there settles it */
	if (top_first && limit > lowest) {
		err = open_probe(d, lowest, random, &fell, log);
		if (!err && !fell)
			err = open_probe(d, limit, random, &fell, log);
		if (err == -EOVERFLOW)
			return 0;
		if (err || !fell)
			return err;
		/* ... else below it, as from the bottom */
		nr = lowest + 1;
		good = lowest;
		limit--;
	}
	while (nr <= limit) {
		err = open_probe(d, nr, random, &fell, log);
		if (err == -EOVERFLOW)
			return 0;	/* no room left: what was found stands */
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
	return bisect_open(d, random, good, bad, log);
}

/*
 * The fall that decides a count, run once more on the same blocks: a
 * card past its limit falls again, while a device slow only the first
 * time it is written (a sparse file, a thin volume) now holds.  *held:
 * it did.
 */
static int confirm_fall(struct detect *d, bool random, bool *held,
			FILE *log)
{
	double ratio;
	unsigned nr = detected_smallest_fall(&d->runs, random, &ratio);
	bool fell = true;
	int err = 0;

	/* a fall that does not repeat was the blocks' history (a probe
	   just past the limit leaves consolidations behind), or a device
	   slow only at first: it is set aside, and the search goes on
	   above it, a few times at most */
	for (unsigned tries = 0; !err && nr >= 2 && tries < CONFIRM_TRIES;
	     tries++) {
		size_t before = d->runs.count;

		err = open_probe(d, nr, random, &fell, log);
		if (err || fell)
			break;
		detected_set_aside(&d->runs, random, nr, before);
		err = bisect_open(d, random, nr,
				  detected_smallest_fall(&d->runs, random,
							 &ratio), log);
		nr = detected_smallest_fall(&d->runs, random, &ratio);
		fell = nr < 2;
	}
	*held = !fell;
	return err == -EOVERFLOW ? 0 : err;
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
		if (n == 1) {
			d->small_bytes = size;
			d->small_ns = t[0];
		}
	}
	PARAM(WRITE_BYTES) = (double)d->q;
	detected_min_write(w, t, n, found);
	return 0;
}

/*
 * Out-of-order writes into the erase block at fat, PROBE_ROUNDS of them,
 * each after writes that fill the card's nr out-of-order places with the
 * blocks of the out-of-order region: the time of a write into it, the
 * first left out.
 */
static int fat_write_ns(struct detect *d, uint64_t fat, unsigned nr,
			double *ns)
{
	struct region *r = &d->regions[1];
	int err;

	uint64_t w = fat_write_size(d);

	if (r->pos + FAT_ROUNDS * w > (uint64_t)PARAM(ERASE))
		return -EOVERFLOW;	/* the layout leaves room for all */
	PARAM(FAT) = (double)fat;
	PARAM(BASE) = (double)r->base;
	PARAM(NR) = nr;
	PARAM(WRITE_BYTES) = (double)w;
	PARAM(SLOT) = (double)((r->pos + w - 1) / w);
	r->pos = ((r->pos + w - 1) / w + FAT_ROUNDS) * w;
	PARAM(ROUNDS) = FAT_ROUNDS;
	err = run_probe(d, "detect-fat");
	PARAM(ROUNDS) = PROBE_ROUNDS;
	PARAM(WRITE_BYTES) = (double)d->q;
	*ns = probe_time(d, 1);
	return err;
}

/*
 * The FAT-like area: a baseline (writes in order into an open block of
 * the in-order region), a control (the same out-of-order writes into an
 * erase block past the FAT candidates, which must collect for the
 * candidates to be told apart), then each leading erase block in turn
 * until one collects.  Wanted: the out-of-order count, determined.
 */
static int fat_probe_run(struct detect *d, const struct analysis_finding *random,
			 struct analysis_finding *found, FILE *log)
{
	uint64_t erase = (uint64_t)PARAM(ERASE);
	struct region *in_order = &d->regions[0];
	unsigned nr = (unsigned)random->value, fat = 0;
	double baseline, control, ns;
	int err;

	if (!random->known) {
		analysis_not_determined(found, "not measured: the "
					"out-of-order count it needs is not "
					"determined");
		return 0;
	}
	PARAM(BASE) = (double)(in_order->base + in_order->pos);
	PARAM(WRITE_BYTES) = (double)fat_write_size(d);
	in_order->pos += FAT_ROUNDS * fat_write_size(d);
	PARAM(ROUNDS) = FAT_ROUNDS;
	err = run_probe(d, "detect-size");
	PARAM(ROUNDS) = PROBE_ROUNDS;
	PARAM(WRITE_BYTES) = (double)d->q;
	baseline = probe_time(d, 1);
	if (log)
		fprintf(log, "  baseline   %10.0f ns/write of %llu bytes\n",
			baseline, (unsigned long long)fat_write_size(d));
	for (; !err && fat < FAT_CANDIDATES; fat++) {
		err = fat_write_ns(d, fat * erase, nr, &ns);
		if (!err && log)
			fprintf(log, "  fat block %u %10.0f ns/write  %s\n", fat,
				ns, ns < GC_RATIO * baseline ?
				"cheap in any order" : "collects");
		if (err || ns >= GC_RATIO * baseline)
			break;
	}
	/* one that collects tells the area from the rest by itself; when
	   none did, a block past them must, or no block collects at all */
	if (!err && fat == FAT_CANDIDATES) {
		err = fat_write_ns(d, d->control_base, nr, &control);
		if (!err && log)
			fprintf(log, "  control    %10.0f ns/write  %s\n",
				control, control < GC_RATIO * baseline ?
				"cheap in any order" : "collects");
		if (!err && control < GC_RATIO * baseline) {
			analysis_not_determined(found, "no FAT-like area: "
						"the first erase blocks write "
						"like the rest");
			return 0;
		}
	}
	if (err)
		return err;
	*found = (struct analysis_finding){ .known = true,
		.value = fat * erase, .confidence = 0.8 };
	return 0;
}

/* The probes' write is whole logical blocks, as every write they make
   must be. */
static bool probe_writes_fit(uint64_t erase, uint32_t lbs)
{
	uint64_t q = erase ? probe_write_size(erase) : 0;

	return erase % lbs == 0 && q >= lbs && q % lbs == 0;
}

uint64_t detect_min_device_bytes(void)
{
	return (BOUNDARIES + 1) * MIB;
}

uint64_t detect_min_erase_bytes(uint32_t lbs)
{
	for (uint64_t erase = lbs; erase <= DEV_MAX_TRANSFER_BYTES;
	     erase += lbs)
		if (probe_writes_fit(erase, lbs))
			return erase;
	return 0;
}

/* Where the pool starts: past the FAT candidates and the write floor. */
static uint64_t pool_base(uint64_t erase)
{
	uint64_t base = measure_write_floor(erase);

	return base < FAT_CANDIDATES * erase ? FAT_CANDIDATES * erase : base;
}

/* The blocks of a region that fit when the whole range, both regions
   and the control and size blocks after them, ends by size_bytes. */
static uint64_t regions_within(uint64_t size_bytes, uint64_t erase)
{
	uint64_t base = pool_base(erase);

	if (size_bytes < base + (2 * MIN_REGION + EXTRA_BLOCKS) * erase)
		return 0;
	return ((size_bytes - base) / erase - EXTRA_BLOCKS) / 2;
}

/*
 * The largest count searched: MAX_OPEN, as on the cards of 2011; on a
 * device of LARGE_DEVICE_BYTES and more, as many more as its range fits
 * in a share of the device, up to MAX_OPEN_LARGE.  The size alone
 * decides, before any write, so the range announced is the one used.
 */
static uint64_t open_limit(const struct dev *dev, uint64_t erase)
{
	uint64_t fit = regions_within(dev->size_bytes / LARGE_RANGE_SHARE,
				      erase);

	if (dev->size_bytes < LARGE_DEVICE_BYTES || fit <= MAX_OPEN)
		return MAX_OPEN;
	return fit < MAX_OPEN_LARGE ? fit : MAX_OPEN_LARGE;
}

/* The largest count the device has room to search: a region of that
   many blocks for each order, and the control and size blocks after. */
static uint64_t room_for(const struct dev *dev, uint64_t erase)
{
	uint64_t per_region = regions_within(dev->size_bytes, erase),
		 limit = open_limit(dev, erase);

	if (per_region < MIN_REGION)
		return 0;
	return per_region > limit ? limit : per_region;
}

int detect_write_range(const struct dev *dev, uint64_t erase,
		       uint64_t *start, uint64_t *end)
{
	uint64_t regions;

	if (!probe_writes_fit(erase, dev->logical_block_bytes))
		return -EINVAL;
	regions = room_for(dev, erase);
	if (!regions)
		return -ENOSPC;
	*start = 0;
	*end = pool_base(erase) + (2 * regions + EXTRA_BLOCKS) * erase;
	return 0;
}

/*
 * The in-order region, the out-of-order one (each as many blocks as the
 * largest count searched), the FAT control block, then the erase blocks
 * of the smallest-write probe.
 */
static int layout(struct detect *d, uint64_t erase)
{
	uint64_t start, end, base = pool_base(erase);
	int err = detect_write_range(d->dev, erase, &start, &end);

	if (err)
		return err;
	d->max_open = room_for(d->dev, erase);
	d->regions[0] = (struct region){ .base = base };
	d->regions[1] = (struct region){ .base = base + d->max_open * erase };
	d->control_base = base + 2 * d->max_open * erase;
	d->size_base = d->control_base + erase;
	d->q = probe_write_size(erase);
	d->runs.count = 0;
	d->runs.erase_bytes = erase;
	PARAM(ERASE) = (double)erase;
	PARAM(WRITE_BYTES) = (double)d->q;
	PARAM(ROUNDS) = PROBE_ROUNDS;
	return 0;
}

/*
 * Whether two erase blocks in turn were slower than one by a little only:
 * what a card that pays for each switch between blocks shows at small
 * writes (a card past its limit pays a garbage collection per write,
 * one that spills slows by the bytes spilled).  The search is then run
 * again with writes large enough to spread that cost, when they fit.
 */
static bool switch_cost(const struct detect *d)
{
	return detected_switch_cost(&d->runs) &&
	       d->q * SWITCH_WRITE_FACTOR * PROBE_SLOTS * 6 <=
	       (uint64_t)PARAM(ERASE) - d->regions[0].pos;
}

/*
 * The write probes: the in-order count, the out-of-order one up to it,
 * the smallest efficient write, the FAT-like area.  A device that shows
 * neither an erase block in its reads nor a limit in its writes behaves
 * like no flash card: the probes stop there.
 */
static int write_probes(struct detect *d, uint64_t erase,
			struct detect_findings *f, FILE *log)
{
	unsigned limit;
	bool flash;
	int err = layout(d, erase);

	if (err)
		return err;
	limit = (unsigned)d->max_open;
	d->write_cap_bytes = f->geometry.erase.known ? 0 :
			     NO_SIGNAL_WRITE_BYTES;
	err = search_open(d, false, 1, limit, false, log);
	if (!err && switch_cost(d)) {
		/* larger writes, from a clean slate: the small ones mislead */
		d->q *= SWITCH_WRITE_FACTOR;
		d->runs.count = 0;
		d->regions[0].open_held = 0;
		if (log)
			fprintf(log, "  N=2 slower only a little: a cost of "
				"switching blocks?  Again with larger writes\n");
		err = search_open(d, false, 1, limit, false, log);
	}
	if (!err)
		err = confirm_fall(d, false, &d->runs.unconfirmed[0], log);
	detected_open_findings(&d->runs, f);
	flash = f->open_linear.known || f->geometry.erase.known;
	if (!err && flash)
		err = search_open(d, true, 1, f->open_linear.known ?
				  (unsigned)f->open_linear.value : limit,
				  f->open_linear.known, log);
	if (!err && flash)
		err = confirm_fall(d, true, &d->runs.unconfirmed[1], log);
	detected_open_findings(&d->runs, f);
	if (!flash) {
		analysis_not_determined(&f->open_random, "not measured: the "
					"device shows no in-order limit or "
					"erase block to hold it against");
		analysis_not_determined(&f->min_write, "not measured: the "
					"device shows no erase block and no "
					"open-erase-block limit");
		analysis_not_determined(&f->fat_area, "not measured: the "
					"device shows no erase block and no "
					"open-erase-block limit");
		return err;
	}
	if (!err)
		err = min_write_probe(d, &f->min_write);
	if (log)
		fprintf(log, "  %7.3f s write sizes timed (the smallest: "
			"%.0f ns)\n", (double)d->dev->stats.time_ns / 1e9,
			d->small_ns);
	if (!err)
		err = fat_probe_run(d, &f->open_random, &f->fat_area, log);
	if (log)
		fprintf(log, "  %7.3f s FAT-like area probed\n",
			(double)d->dev->stats.time_ns / 1e9);
	/* what a cache absorbed tells nothing of the flash behind it */
	if (!err && detected_write_cache(f, d->small_bytes, d->small_ns,
					 (uint64_t)PARAM(READ_BYTES)) && log)
		fprintf(log, "  %s\n", f->min_write.reason);
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
		.simulated = !dev_has(dev, DEV_CAP_HOST_NODE) };
	struct info_card *card = calloc(1, sizeof(*card));
	char why[256];

	snprintf(f->identity, sizeof(f->identity), "%s",
		 device.simulated ? "simulated card" : "unknown");
	if (card && !device.simulated &&
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
	detected_drop_lone_levels(f);
	detected_explain_geometry(f);
	f->erase_used = options->erase_size ? options->erase_size :
			f->geometry.erase.known ? f->geometry.erase.value : 0;
	if (options->write && !f->erase_used) {
		/* the lines say why nothing was written */
		detected_skip_writes(f, "not measured: no erase-block size "
				     "to write with; give it with "
				     "--erasesize");
		f->wrote = true;
	} else if (options->write) {
		uint64_t start, end;

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
	} else {
		detected_skip_writes(f, "not measured: needs --write");
	}
	/* advice from what was found, never from a guess or a given size */
	f->advice_count = analysis_recommend(f->geometry.erase.known ?
		f->geometry.erase.value : 0,
		f->geometry.page.known ? f->geometry.page.value : 0,
		f->open_linear.known ? (unsigned)f->open_linear.value : 0,
		f->advice, DETECT_ADVICE_MAX);
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
