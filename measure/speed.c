/*
 * speed: sequential read and write rates, random 4 KiB IOPS at queue depth
 * 1, and the SD speed-class table.  All durations are device time, so sim:
 * cards behave like real ones.  It gathers what the programs' records say
 * into a struct speed_results and judges the classes; records/speed.c
 * makes the result records.  It does not print, open devices, parse
 * options or choose which ranges may be written.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/speed.h"
#include "measure/writerange.h"

#define MB 1e6

/* --- helpers ---------------------------------------------------------- */

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double rate_of(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e9 / (double)ns : 0;
}

/* A figure the VM left unknown (no runs) counts as 0, as it always has. */
static uint64_t whole(double value)
{
	return isfinite(value) && value > 0 ? (uint64_t)value : 0;
}

/* --- what the programs measured ---------------------------------------- */

int speed_results_init(struct speed_results *r, uint64_t duration_ns,
		       uint64_t max_chunks)
{
	*r = (struct speed_results){ 0 };
	/* a 32-bit size_t must not wrap the count of a very long run */
	if (duration_ns / SPEED_WINDOW_NS + 2 > SIZE_MAX / sizeof(*r->windows))
		return -ENOMEM;
	r->window_cap = (size_t)(duration_ns / SPEED_WINDOW_NS + 2);
	r->windows = calloc(r->window_cap, sizeof(*r->windows));
	if (!r->windows)
		return -ENOMEM;
	if (max_chunks > SUSTAINED_MAX_CHUNKS)
		max_chunks = SUSTAINED_MAX_CHUNKS;
	if (max_chunks && sustained_init(&r->chunks, (size_t)max_chunks)) {
		speed_results_free(r);
		return -ENOMEM;
	}
	return 0;
}

void speed_results_free(struct speed_results *r)
{
	free(r->windows);
	r->windows = NULL;
	r->window_count = 0;
	sustained_free(&r->chunks);
}

uint64_t speed_windows(uint64_t duration_ns)
{
	return duration_ns / SPEED_WINDOW_NS + 2;
}

/* The value of the field named key (record_get), or NaN. */
static double field(const struct record *record, const char *key)
{
	const struct record_field *f = record_get(record, key);

	return f ? f->value : NAN;
}

/*
 * A window of -t or --write-speed.  Every window but the last is a full
 * second; the last counts when it is at least half a second, or when it
 * is all there is - which, as the last, it is when none came before.
 */
static void add_window(struct speed_results *r, uint64_t ns, uint64_t bytes)
{
	r->has_rate = true;
	r->rate_ns += ns;
	r->rate_bytes += bytes;
	if (ns && r->window_count < r->window_cap &&
	    (ns >= SPEED_WINDOW_NS / 2 || !r->window_count))
		r->windows[r->window_count++] = rate_of(bytes, ns);
}

static void take_window(struct speed_results *r, const struct record *rec)
{
	add_window(r, whole(field(rec, "window_ns")),
		   whole(field(rec, "window_bytes")));
}

/*
 * A chunk of sequential writes: to the cache's detector, and into the
 * window being filled, which closes at a second as -t's windows do (a
 * window's last chunk goes past it, as its last read does).  VM_ENOUGH
 * once the detector has what it needs.
 */
static int take_chunk(struct speed_results *r, const struct record *rec)
{
	uint64_t ns = whole(field(rec, "chunk_ns"));
	uint64_t bytes = whole(field(rec, "chunk_bytes"));
	bool enough;

	if (!bytes)
		return 0;	/* the range written: the loop ends */
	r->has_rate = r->has_chunks = true;
	enough = sustained_add(&r->chunks, bytes, ns);
	r->window_ns += ns;
	r->window_bytes += bytes;
	if (r->window_ns >= SPEED_WINDOW_NS)
		speed_results_end(r);
	return enough ? VM_ENOUGH : 0;
}

void speed_results_end(struct speed_results *r)
{
	if (!r->window_ns && !r->window_bytes)
		return;
	add_window(r, r->window_ns, r->window_bytes);
	r->window_ns = r->window_bytes = 0;
}

/* Which pass an IOPS record is from: its first field's key. */
enum iops_pass { PASS_QD1, PASS_QUEUED, PASS_PI };

/*
 * An IOPS record; PASS_QUEUED: --class-check's pass at
 * SPEED_CLASS_DEPTH, PASS_PI: its Raspberry Pi test's.
 */
static void take_iops(struct speed_results *r, const struct record *rec,
		      enum iops_pass pass)
{
	bool write = rec->fields[0].label &&
		     strcmp(rec->fields[0].label, "write") == 0;
	struct speed_iops_result *io = pass == PASS_QUEUED ? &r->queued[write] :
				       pass == PASS_PI ? &r->pi[write] :
				       &r->iops[write];
	double depth = field(rec, "iodepth");

	*io = (struct speed_iops_result){ .write = write,
		.iodepth = isfinite(depth) && depth >= 1 ?
			   (unsigned)depth : 1,
		.io_bytes = whole(field(rec, "block_bytes")),
		.device_time_ns = whole(field(rec, "device_time_ns")),
		.operations = whole(field(rec, "operations")),
		.p50_ns = whole(field(rec, "p50")),
		.p99_ns = whole(field(rec, "p99")),
		.max_ns = whole(field(rec, "max")) };
	io->iops = io->device_time_ns ? (double)io->operations * 1e9 /
					(double)io->device_time_ns : 0;
	/* a signal before the first operation: not measured */
	if (pass == PASS_QUEUED)
		r->has_queued[write] = io->operations > 0;
	else if (pass == PASS_PI)
		r->has_pi[write] = io->operations > 0;
	else
		r->has_iops[write] = io->operations > 0 || !write;
}

int speed_collect(void *ctx, const struct record *record)
{
	struct speed_results *r = ctx;
	const char *first = record->count ? record->fields[0].key : "";

	if (strcmp(first, "second") == 0) {
		take_window(r, record);
	} else if (strcmp(first, "chunk") == 0) {
		return take_chunk(r, record);
	} else if (strcmp(first, "direction") == 0) {
		take_iops(r, record, PASS_QD1);
	} else if (strcmp(first, "queued") == 0) {
		take_iops(r, record, PASS_QUEUED);
	} else if (strcmp(first, "pi") == 0) {
		take_iops(r, record, PASS_PI);
	} else if (strcmp(first, "pi_write_ns") == 0) {
		r->pi_write_ns = whole(field(record, "pi_write_ns"));
		r->pi_write_bytes = whole(field(record, "pi_write_bytes"));
		r->has_pi_write = r->pi_write_bytes > 0;
	}
	return 0;
}

void speed_results_ran_at(struct speed_results *r, unsigned depth)
{
	for (int i = 0; i < 2; i++) {
		if (r->iops[i].iodepth > depth)
			r->iops[i].iodepth = depth;
		if (depth < SPEED_CLASS_DEPTH)
			r->has_queued[i] = r->has_pi[i] = false;
	}
	/* the Pi's figures are of its depth, or none */
	if (depth < SPEED_CLASS_DEPTH)
		r->has_pi_write = false;
}

/* Whole-run rate and the windows' spread, after the run. */
static void summarise(const struct speed_results *r, struct speed_rate *sum)
{
	double *sorted;
	size_t n = r->window_count;

	sum->bytes = r->rate_bytes;
	sum->device_time_ns = r->rate_ns;
	sum->bytes_per_s = rate_of(r->rate_bytes, r->rate_ns);
	sum->window_min = sum->window_median = sum->window_max = 0;
	if (!n)
		return;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		sum->window_min = sum->window_median = sum->window_max =
			sum->bytes_per_s;
		return;
	}
	memcpy(sorted, r->windows, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_double);
	sum->window_min = sorted[0];
	sum->window_max = sorted[n - 1];
	sum->window_median = n % 2 ? sorted[n / 2] :
			     (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
}

void speed_rate_summary(const struct speed_results *r, struct speed_rate *sum)
{
	*sum = (struct speed_rate){ .windows = r->windows,
				    .window_count = r->window_count };
	summarise(r, sum);
}

int speed_write_range(const struct dev *dev, uint64_t erase_bytes,
		      uint64_t span_bytes, uint64_t *start, uint64_t *end)
{
	uint64_t from, room;

	if (!erase_bytes)
		return -EINVAL;
	from = measure_write_floor(erase_bytes);
	if (!span_bytes)
		span_bytes = SPEED_WRITE_SPAN_BYTES;
	if (from >= dev->size_bytes)
		return -ENOSPC;
	room = dev->size_bytes - from;
	if (span_bytes > room)
		span_bytes = room;
	span_bytes -= span_bytes % erase_bytes;
	if (!span_bytes)
		return -ENOSPC;
	*start = from;
	*end = from + span_bytes;
	return 0;
}

/* --- the class table -------------------------------------------------- */

static const struct speed_class classes[] = {
	{ "C2", SPEED_FAMILY_C, 2, 2, 0, 0, 0 },
	{ "C4", SPEED_FAMILY_C, 4, 4, 0, 0, 0 },
	{ "C6", SPEED_FAMILY_C, 6, 6, 0, 0, 0 },
	{ "C10", SPEED_FAMILY_C, 10, 10, 0, 0, 0 },
	{ "U1", SPEED_FAMILY_U, 1, 10, 0, 0, 0 },
	{ "U3", SPEED_FAMILY_U, 3, 30, 0, 0, 0 },
	{ "V6", SPEED_FAMILY_V, 6, 6, 0, 0, 0 },
	{ "V10", SPEED_FAMILY_V, 10, 10, 0, 0, 0 },
	{ "V30", SPEED_FAMILY_V, 30, 30, 0, 0, 0 },
	{ "V60", SPEED_FAMILY_V, 60, 60, 0, 0, 0 },
	{ "V90", SPEED_FAMILY_V, 90, 90, 0, 0, 0 },
	/* A1 as the card's rating measures it, and at the depth fio-based
	   tests use; A2 assumes command queueing, so at that depth only */
	{ "A1", SPEED_FAMILY_A, 1, 10, 1500, 500, 1 },
	{ "A1-QD32", SPEED_FAMILY_A, 1, 10, 1500, 500, SPEED_CLASS_DEPTH },
	{ "A2", SPEED_FAMILY_A, 2, 10, 4000, 2000, SPEED_CLASS_DEPTH },
};

#define CLASS_COUNT (sizeof(classes) / sizeof(classes[0]))

const struct speed_class *speed_class_at(size_t i)
{
	return i < CLASS_COUNT ? &classes[i] : NULL;
}

static const struct speed_class *find_class(const char *name)
{
	for (size_t i = 0; i < CLASS_COUNT; i++)
		if (strcmp(classes[i].name, name) == 0)
			return &classes[i];
	return NULL;
}

/* Fold one requirement into the verdict so far. */
static void judge(bool needed, bool measured, double value, double min,
		  bool *fail, bool *missing)
{
	if (!needed)
		return;
	if (!measured)
		*missing = true;
	else if (value < min)
		*fail = true;
}

enum speed_write_basis speed_write_basis(const struct speed_measured *m)
{
	const struct sustained_result *s = &m->sustained;

	if (m->has_sustained && s->status == SUSTAINED_FOUND)
		return SPEED_BASIS_SUSTAINED;
	if (m->has_sustained && s->status == SUSTAINED_NOT_SETTLED)
		return SPEED_BASIS_UNSETTLED;
	/* no fall seen, or too few chunks to see one */
	return m->has_write_rate ? SPEED_BASIS_NO_FALL : SPEED_BASIS_NONE;
}

bool speed_write_judged(const struct speed_measured *m, double *value,
			bool *capped)
{
	enum speed_write_basis basis = speed_write_basis(m);

	if (capped)
		*capped = basis == SPEED_BASIS_UNSETTLED;
	switch (basis) {
	case SPEED_BASIS_SUSTAINED:
		*value = m->sustained.sustained_bytes_per_s;
		return true;
	case SPEED_BASIS_UNSETTLED:
		/* fell, not settled: below the burst, how far is not known */
		*value = m->sustained.burst_bytes_per_s;
		return false;
	case SPEED_BASIS_NO_FALL:
		*value = m->write_bytes_per_s;
		return true;
	default:
		*value = NAN;
		return false;
	}
}

/* The write rate failed, and the link could not have carried it. */
static bool link_limited(const struct speed_class *c,
			 const struct speed_measured *m)
{
	double rate;

	return speed_write_judged(m, &rate, NULL) && rate < c->write_mb * MB &&
	       m->has_ceiling && m->ceiling_bytes_per_s < c->write_mb * MB;
}

/*
 * The write requirement: judged on speed_write_judged's rate; a rate
 * that fell and had not settled when the run ended still fails a class
 * its burst was below.
 */
static void judge_write(const struct speed_class *c,
			const struct speed_measured *m, bool *fail,
			bool *missing)
{
	bool capped;
	double rate;
	bool known = speed_write_judged(m, &rate, &capped);

	if (capped && rate < c->write_mb * MB)
		*fail = true;
	else
		judge(true, known, rate, c->write_mb * MB, fail, missing);
}

struct speed_iops_figures speed_iops_at(const struct speed_measured *m,
					unsigned iodepth)
{
	if (iodepth > 1)
		return (struct speed_iops_figures){ m->has_queued_read_iops,
			m->has_queued_write_iops, m->queued_read_iops,
			m->queued_write_iops };
	return (struct speed_iops_figures){ m->has_read_iops,
		m->has_write_iops, m->read_iops, m->write_iops };
}

enum speed_verdict speed_class_judge(const struct speed_class *c,
				     const struct speed_measured *m)
{
	bool fail = false, missing = false;

	if (link_limited(c, m))
		return SPEED_LINK_LIMITED;
	judge_write(c, m, &fail, &missing);
	struct speed_iops_figures io = speed_iops_at(m, c->iodepth);

	judge(c->read_iops > 0, io.has_read, io.read, c->read_iops, &fail,
	      &missing);
	judge(c->write_iops > 0, io.has_write, io.write, c->write_iops,
	      &fail, &missing);
	if (fail)
		return SPEED_FAIL;
	if (missing)
		return SPEED_NOT_MEASURED;
	/* a rate that never fell shows only as much as was written */
	return speed_write_basis(m) == SPEED_BASIS_SUSTAINED ? SPEED_PASS :
	       SPEED_PASS_AS_FAR;
}

enum speed_verdict speed_class_verdict(const char *name,
				       const struct speed_measured *m)
{
	const struct speed_class *c = find_class(name);

	return c ? speed_class_judge(c, m) : SPEED_NOT_MEASURED;
}

bool speed_class_claims(const struct speed_class *c,
			const struct info_card *card)
{
	unsigned have;

	if (!card || !card->has_speed)
		return false;
	switch (c->family) {
	case SPEED_FAMILY_C: have = card->speed_class; break;
	case SPEED_FAMILY_U: have = card->uhs_grade; break;
	case SPEED_FAMILY_V: have = card->video_class; break;
	default: have = card->app_class; break;
	}
	return have >= c->level;
}

bool speed_class_claimed(const char *name, const struct info_card *card)
{
	const struct speed_class *c = find_class(name);

	return c && speed_class_claims(c, card);
}

enum speed_verdict speed_pi_verdict(const struct speed_measured *m)
{
	bool fail = false, missing = false;

	judge(true, m->has_pi_write, m->pi_write_bytes_per_s,
	      SPEED_PI_WRITE_BYTES_PER_S, &fail, &missing);
	judge(true, m->has_pi_write_iops, m->pi_write_iops,
	      SPEED_PI_WRITE_IOPS, &fail, &missing);
	judge(true, m->has_pi_read_iops, m->pi_read_iops, SPEED_PI_READ_IOPS,
	      &fail, &missing);
	if (fail)
		return SPEED_FAIL;
	return missing ? SPEED_NOT_MEASURED : SPEED_PASS;
}

/* The Raspberry Pi test's figures, into m. */
static void pi_measured(const struct speed_results *r,
			struct speed_measured *m)
{
	m->has_pi_write = r->has_pi_write && r->pi_write_ns;
	m->pi_write_bytes_per_s = rate_of(r->pi_write_bytes, r->pi_write_ns);
	m->pi_write_bytes = r->pi_write_bytes;
	m->has_pi_write_iops = r->has_pi[1];
	m->pi_write_iops = r->pi[1].iops;
	m->has_pi_read_iops = r->has_pi[0];
	m->pi_read_iops = r->pi[0].iops;
}

void speed_measured_of(const struct speed_results *r,
		       const struct link_info *link, struct speed_measured *m)
{
	*m = (struct speed_measured){
		.has_write_rate = r->has_rate && r->rate_ns,
		.write_bytes_per_s = rate_of(r->rate_bytes, r->rate_ns),
		.write_bytes = r->rate_bytes,
		.has_read_iops = r->has_iops[0] && r->iops[0].operations,
		.read_iops = r->iops[0].iops,
		.has_write_iops = r->has_iops[1],
		.write_iops = r->iops[1].iops,
		.has_ceiling = link && link->has_ceiling,
		.ceiling_bytes_per_s = link ?
			(double)link->ceiling_bytes_per_s : 0,
		.has_queued_read_iops = r->has_queued[0] &&
					r->queued[0].operations,
		.queued_read_iops = r->queued[0].iops,
		.has_queued_write_iops = r->has_queued[1],
		.queued_write_iops = r->queued[1].iops,
		.has_sustained = r->has_chunks,
	};
	if (r->has_chunks)
		sustained_result(&r->chunks, &m->sustained);
	pi_measured(r, m);
}
