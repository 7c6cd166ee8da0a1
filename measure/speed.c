/*
 * speed: sequential read and write rates, random 4 KiB IOPS at queue depth
 * 1, and the SD speed-class table.  All durations are device time, so sim:
 * cards behave like real ones.  It measures and hands out result records
 * (values, units, keys) with their text layout; report.c and plot.c
 * render them.
 * It does not print, open devices, parse options or choose which ranges
 * may be written.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity/hostq.h"
#include "measure/speed.h"
#include "measure/writerange.h"
#include "vm/layout.h"

#define MB 1e6

/* A field for the machine formats only (layout.h). */
#define MACHINE_ONLY (&text_hidden)

/* A field's look in the text line: display and template (layout.h). */
#define LOOK(how, text) \
	(&(const struct text_look){ .display = how, .template = text })

/* The speed tests' text lines: fields separated by a space. */
static const struct text_layout spaces = { .style = TEXT_SPACES };

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

int speed_results_init(struct speed_results *r, uint64_t duration_ns)
{
	*r = (struct speed_results){ 0 };
	/* a 32-bit size_t must not wrap the count of a very long run */
	if (duration_ns / SPEED_WINDOW_NS + 2 > SIZE_MAX / sizeof(*r->windows))
		return -ENOMEM;
	r->window_cap = (size_t)(duration_ns / SPEED_WINDOW_NS + 2);
	r->windows = calloc(r->window_cap, sizeof(*r->windows));
	return r->windows ? 0 : -ENOMEM;
}

void speed_results_free(struct speed_results *r)
{
	free(r->windows);
	r->windows = NULL;
	r->window_count = 0;
}

uint64_t speed_windows(uint64_t duration_ns)
{
	return duration_ns / SPEED_WINDOW_NS + 2;
}

/* The value of the field named key, or NaN. */
static double field(const struct record *record, const char *key)
{
	for (unsigned i = 0; i < record->count; i++)
		if (strcmp(record->fields[i].key, key) == 0)
			return record->fields[i].value;
	return NAN;
}

/*
 * A window of -t or --write-speed.  Every window but the last is a full
 * second; the last counts when it is at least half a second, or when it
 * is all there is - which, as the last, it is when none came before.
 */
static void take_window(struct speed_results *r, const struct record *rec)
{
	uint64_t ns = whole(field(rec, "window_ns"));
	uint64_t bytes = whole(field(rec, "window_bytes"));

	r->has_rate = true;
	r->rate_ns += ns;
	r->rate_bytes += bytes;
	if (ns && r->window_count < r->window_cap &&
	    (ns >= SPEED_WINDOW_NS / 2 || !r->window_count))
		r->windows[r->window_count++] = rate_of(bytes, ns);
}

/* An IOPS record; queued: --class-check's pass at SPEED_CLASS_DEPTH. */
static void take_iops(struct speed_results *r, const struct record *rec,
		      bool queued)
{
	bool write = rec->fields[0].label &&
		     strcmp(rec->fields[0].label, "write") == 0;
	struct speed_iops_result *io = queued ? &r->queued[write] :
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
	if (queued)
		r->has_queued[write] = io->operations > 0;
	else
		r->has_iops[write] = io->operations > 0 || !write;
}

int speed_collect(void *ctx, const struct record *record)
{
	struct speed_results *r = ctx;
	const char *first = record->count ? record->fields[0].key : "";

	if (strcmp(first, "second") == 0) {
		take_window(r, record);
	} else if (strcmp(first, "direction") == 0 ||
		   strcmp(first, "queued") == 0) {
		take_iops(r, record, strcmp(first, "queued") == 0);
	} else if (strcmp(first, "write_ns") == 0) {
		r->has_rate = true;
		r->rate_ns = whole(field(record, "write_ns"));
		r->rate_bytes = whole(field(record, "write_bytes"));
	}
	return 0;
}

void speed_results_ran_at(struct speed_results *r, unsigned depth)
{
	for (int i = 0; i < 2; i++) {
		if (r->iops[i].iodepth > depth)
			r->iops[i].iodepth = depth;
		if (depth < SPEED_CLASS_DEPTH)
			r->has_queued[i] = false;
	}
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

/* --- records ---------------------------------------------------------- */

static void add_value(struct record *rec, enum record_unit unit,
		      const char *key, const struct text_look *look,
		      double value)
{
	rec->fields[rec->count++] = (struct record_field){ .unit = unit,
		.key = key, .look = look, .value = value };
}

static void add_label(struct record *rec, const char *key,
		      const struct text_look *look, const char *label)
{
	rec->fields[rec->count++] = (struct record_field){ .unit = RECORD_LABEL,
		.key = key, .look = look, .label = label };
}

/* The share of the link's ceiling, as a percentage in text. */
static const struct text_look share_text = { .display = TEXT_PERCENT,
	.template = "(% of the link's ceiling)" };
static const struct text_look write_share_text = {
	.display = TEXT_PERCENT,
	.template = "(the write at % of the link's ceiling)" };
static const struct text_look exceeded_text = { .display = TEXT_PERCENT,
	.template = "(% of the link's ceiling: more than it can carry, so "
		    "the link reading does not describe this path)" };

/*
 * On a real device: the share of the link's ceiling a rate is, in text
 * with look ("(78% of the link's ceiling)") when the ceiling is known.
 */
static void add_share(const struct speed_exec *x, struct record *rec,
		      double bytes_per_s, const struct text_look *look)
{
	double share = link_ceiling_share(x->link, bytes_per_s);

	if (!x->link)
		return;
	/* faster than the link can go: say so rather than trust it */
	if (link_exceeded(x->link, bytes_per_s))
		look = &exceeded_text;
	add_value(rec, RECORD_COUNT, "ceiling_share",
		  isfinite(share) ? look : MACHINE_ONLY, share);
}

/* The link the figures went through, "link: the host runs ...". */
static int emit_link(struct speed_exec *x)
{
	struct record rec;

	if (!x->link)
		return 0;
	link_record(x->link, &rec);
	return record_emit(&x->sink, &rec);
}

/*
 * -t, --write-speed: a record per window (second, bytes_per_s) for the
 * machine formats and plots, then the summary, in text:
 * "read 1048576-byte blocks for 3.05s: 19.6 MB/s; per second: min 19.5,
 * median 19.6, max 19.7 MB/s".
 */
int speed_emit_rate(struct speed_exec *x, const struct speed_results *res,
		    bool write, uint64_t block_bytes)
{
	struct record rec = { .layout = &spaces };
	struct speed_rate r;
	int err;

	speed_rate_summary(res, &r);
	for (size_t i = 0; i < r.window_count; i++) {
		rec.count = 0;
		rec.kind = "window";
		add_value(&rec, RECORD_COUNT, "second", MACHINE_ONLY,
			  (double)(i + 1));
		add_value(&rec, RECORD_RATE, "bytes_per_s", MACHINE_ONLY,
			  r.windows[i]);
		err = record_emit(&x->sink, &rec);
		if (err)
			return err;
	}
	rec.count = 0;
	rec.kind = "summary";
	add_value(&rec, RECORD_BYTES, "block_bytes", write ?
		  LOOK(TEXT_AS_UNIT, "write %-byte blocks for") :
		  LOOK(TEXT_AS_UNIT, "read %-byte blocks for"),
		  (double)block_bytes);
	add_value(&rec, RECORD_TIME, "device_time_ns",
		  LOOK(TEXT_AS_UNIT, "%:"), (double)r.device_time_ns);
	add_value(&rec, RECORD_RATE, "bytes_per_s",
		  LOOK(TEXT_MBPS, "% MB/s;"), r.bytes_per_s);
	add_value(&rec, RECORD_RATE, "window_min_bytes_per_s",
		  LOOK(TEXT_MBPS, "per second: min %,"), r.window_min);
	add_value(&rec, RECORD_RATE, "window_median_bytes_per_s",
		  LOOK(TEXT_MBPS, "median %,"), r.window_median);
	add_value(&rec, RECORD_RATE, "window_max_bytes_per_s",
		  LOOK(TEXT_MBPS, "max % MB/s"), r.window_max);
	add_share(x, &rec, r.bytes_per_s, &share_text);
	add_value(&rec, RECORD_COUNT, "failed_reads", MACHINE_ONLY,
		  (double)x->failed_reads);
	err = record_emit(&x->sink, &rec);
	return err ? err : emit_link(x);
}

/*
 * --iops: one record per direction, in text "random 4096-byte reads for
 * 1s: 1601 IOPS; latency p50 623µs, p99 631µs, max 631µs"; JSON nests
 * the latencies as "latency_ns": {"p50", "p99", "max"}.
 */
static int emit_iops(struct speed_exec *x, const struct speed_iops_result *r)
{
	struct record rec = { .layout = &spaces, .kind = "iops" };

	add_label(&rec, "direction", MACHINE_ONLY, r->write ? "write" : "read");
	add_value(&rec, RECORD_BYTES, "block_bytes", r->write ?
		  LOOK(TEXT_AS_UNIT, "random %-byte writes for") :
		  LOOK(TEXT_AS_UNIT, "random %-byte reads for"),
		  (double)r->io_bytes);
	add_value(&rec, RECORD_TIME, "device_time_ns",
		  LOOK(TEXT_AS_UNIT, "%:"), (double)r->device_time_ns);
	add_value(&rec, RECORD_COUNT, "iops", LOOK(TEXT_AS_UNIT, "% IOPS;"),
		  r->iops);
	add_value(&rec, RECORD_TIME, "latency_ns.p50",
		  LOOK(TEXT_AS_UNIT, "latency p50 %,"), (double)r->p50_ns);
	add_value(&rec, RECORD_TIME, "latency_ns.p99",
		  LOOK(TEXT_AS_UNIT, "p99 %,"), (double)r->p99_ns);
	add_value(&rec, RECORD_TIME, "latency_ns.max",
		  LOOK(TEXT_AS_UNIT, "max %"), (double)r->max_ns);
	add_value(&rec, RECORD_COUNT, "operations", MACHINE_ONLY,
		  (double)r->operations);
	add_share(x, &rec, r->iops * (double)r->io_bytes, &share_text);
	/* the text names the depth when it is not the usual 1 */
	add_value(&rec, RECORD_COUNT, "iodepth", r->iodepth > 1 ?
		  LOOK(TEXT_AS_UNIT, "(queue depth %)") : MACHINE_ONLY,
		  (double)r->iodepth);
	return record_emit(&x->sink, &rec);
}

int speed_emit_iops(struct speed_exec *x, const struct speed_results *r)
{
	int err = emit_iops(x, &r->iops[0]);

	if (!err && r->has_iops[1])
		err = emit_iops(x, &r->iops[1]);
	return err ? err : emit_link(x);
}

/* --- the class table -------------------------------------------------- */

enum speed_family { FAMILY_C, FAMILY_U, FAMILY_V, FAMILY_A };

struct speed_class {
	const char *name;
	enum speed_family family;
	unsigned level;			/* as the SSR codes it */
	double write_mb;		/* sustained sequential write, MB/s */
	double read_iops;		/* 0: no requirement */
	double write_iops;
	unsigned iodepth;		/* of the IOPS figures judged */
};

static const struct speed_class classes[] = {
	{ "C2", FAMILY_C, 2, 2, 0, 0, 0 },
	{ "C4", FAMILY_C, 4, 4, 0, 0, 0 },
	{ "C6", FAMILY_C, 6, 6, 0, 0, 0 },
	{ "C10", FAMILY_C, 10, 10, 0, 0, 0 },
	{ "U1", FAMILY_U, 1, 10, 0, 0, 0 },
	{ "U3", FAMILY_U, 3, 30, 0, 0, 0 },
	{ "V6", FAMILY_V, 6, 6, 0, 0, 0 },
	{ "V10", FAMILY_V, 10, 10, 0, 0, 0 },
	{ "V30", FAMILY_V, 30, 30, 0, 0, 0 },
	{ "V60", FAMILY_V, 60, 60, 0, 0, 0 },
	{ "V90", FAMILY_V, 90, 90, 0, 0, 0 },
	/* A1 as the card's rating measures it, and at the depth fio-based
	   tests use; A2 assumes command queueing, so at that depth only */
	{ "A1", FAMILY_A, 1, 10, 1500, 500, 1 },
	{ "A1-QD32", FAMILY_A, 1, 10, 1500, 500, SPEED_CLASS_DEPTH },
	{ "A2", FAMILY_A, 2, 10, 4000, 2000, SPEED_CLASS_DEPTH },
};

#define CLASS_COUNT (sizeof(classes) / sizeof(classes[0]))

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

/* The write rate failed, and the link could not have carried it. */
static bool link_limited(const struct speed_class *c,
			 const struct speed_measured *m)
{
	return m->has_write_rate && m->write_bytes_per_s < c->write_mb * MB &&
	       m->has_ceiling && m->ceiling_bytes_per_s < c->write_mb * MB;
}

/* The random I/O figures a class at this depth is judged by. */
struct iops_figures {
	bool has_read, has_write;
	double read, write;
};

static struct iops_figures iops_at(const struct speed_measured *m,
				   unsigned iodepth)
{
	if (iodepth > 1)
		return (struct iops_figures){ m->has_queued_read_iops,
			m->has_queued_write_iops, m->queued_read_iops,
			m->queued_write_iops };
	return (struct iops_figures){ m->has_read_iops, m->has_write_iops,
				      m->read_iops, m->write_iops };
}

static enum speed_verdict verdict_of(const struct speed_class *c,
				     const struct speed_measured *m)
{
	bool fail = false, missing = false;

	if (link_limited(c, m))
		return SPEED_LINK_LIMITED;
	judge(true, m->has_write_rate, m->write_bytes_per_s,
	      c->write_mb * MB, &fail, &missing);
	struct iops_figures io = iops_at(m, c->iodepth);

	judge(c->read_iops > 0, io.has_read, io.read, c->read_iops, &fail,
	      &missing);
	judge(c->write_iops > 0, io.has_write, io.write, c->write_iops,
	      &fail, &missing);
	if (fail)
		return SPEED_FAIL;
	return missing ? SPEED_NOT_MEASURED : SPEED_PASS;
}

enum speed_verdict speed_class_verdict(const char *name,
				       const struct speed_measured *m)
{
	const struct speed_class *c = find_class(name);

	return c ? verdict_of(c, m) : SPEED_NOT_MEASURED;
}

static bool claimed(const struct speed_class *c, const struct info_card *card)
{
	unsigned have;

	if (!card || !card->has_speed)
		return false;
	switch (c->family) {
	case FAMILY_C: have = card->speed_class; break;
	case FAMILY_U: have = card->uhs_grade; break;
	case FAMILY_V: have = card->video_class; break;
	default: have = card->app_class; break;
	}
	return have >= c->level;
}

bool speed_class_claimed(const char *name, const struct info_card *card)
{
	const struct speed_class *c = find_class(name);

	return c && claimed(c, card);
}

static const char *const verdict_text[] = {
	[SPEED_NOT_MEASURED] = "not measured",
	[SPEED_PASS] = "pass",
	[SPEED_FAIL] = "FAIL",
	[SPEED_LINK_LIMITED] = "limited by the host link",
};

#define HOST_LIMITS \
	"a host cannot reproduce the rating conditions: the kernel picks " \
	"the bus timing, not the spec's fixed measurement clocks; there is no " \
	"CMD20 (speed class control) from the block layer; the " \
	"fragmented-AU Pm method is not run; A2 needs the card's command " \
	"queue and cache, which the kernel may not enable, so an A2 card " \
	"can measure like A1"

static const char host_limits[] = HOST_LIMITS;
static const char host_limits_unclaimed[] =
	"claimed classes unknown (no SD status register); " HOST_LIMITS;

#define TEMPLATE_MAX 48

/* Looks for a list of figures, made while the record is built. */
struct figure_looks {
	struct text_look looks[5];
	char templates[5][TEMPLATE_MAX];
};

/*
 * Looks for a list of figures: a missing one (NaN) is left out of the
 * text, the first shown is led by lead and the last shown ends with end,
 * the others with a comma.
 */
static void list_templates(struct record_field *fields, unsigned n,
			   const struct text_look *body, const char *lead,
			   const char *end, struct figure_looks *buf)
{
	unsigned shown = 0, last = n;

	for (unsigned i = 0; i < n; i++)
		if (isfinite(fields[i].value))
			last = i;
	for (unsigned i = 0; i < n; i++) {
		if (!isfinite(fields[i].value)) {
			fields[i].look = MACHINE_ONLY;
			continue;
		}
		snprintf(buf->templates[i], TEMPLATE_MAX, "%s%s%s",
			 shown++ ? "" : lead, body[i].template,
			 i == last ? end : ",");
		buf->looks[i] = (struct text_look){
			.display = body[i].display,
			.template = buf->templates[i] };
		fields[i].look = &buf->looks[i];
	}
}

static double figure(bool has, double value)
{
	return has ? value : NAN;
}

/*
 * What was measured, in text "measured: sequential write 10.7 MB/s,
 * random read 1601 IOPS, random write 20 IOPS"; a figure not measured is
 * null (and left out of the text).
 */
static int emit_measured(struct speed_exec *x, const struct speed_measured *m)
{
	static const struct text_look body[] = {
		{ .display = TEXT_MBPS, .template = "sequential write % MB/s" },
		{ .display = TEXT_AS_UNIT, .template = "random read % IOPS" },
		{ .display = TEXT_AS_UNIT, .template = "random write % IOPS" },
		{ .display = TEXT_AS_UNIT,
		  .template = "QD32 random read % IOPS" },
		{ .display = TEXT_AS_UNIT,
		  .template = "QD32 random write % IOPS" },
	};
	struct record rec = { .layout = &spaces, .kind = "measured" };
	struct figure_looks text;

	add_value(&rec, RECORD_RATE, "write_bytes_per_s", NULL,
		  figure(m->has_write_rate, m->write_bytes_per_s));
	add_value(&rec, RECORD_COUNT, "read_iops", NULL,
		  figure(m->has_read_iops, m->read_iops));
	add_value(&rec, RECORD_COUNT, "write_iops", NULL,
		  figure(m->has_write_iops, m->write_iops));
	add_value(&rec, RECORD_COUNT, "qd32.read_iops", NULL,
		  figure(m->has_queued_read_iops, m->queued_read_iops));
	add_value(&rec, RECORD_COUNT, "qd32.write_iops", NULL,
		  figure(m->has_queued_write_iops, m->queued_write_iops));
	list_templates(rec.fields, 5, body, "measured: ", "", &text);
	add_share(x, &rec, figure(m->has_write_rate, m->write_bytes_per_s),
		  &write_share_text);
	return record_emit(&x->sink, &rec);
}

/*
 * One class: "A1      required 10 MB/s, r 1500 IOPS, w 500 IOPS;
 * measured 10.7 MB/s, r 1601 IOPS, w 20 IOPS: FAIL"; JSON nests the
 * figures as "required": {...} and "measured": {...}, with "pass" true,
 * false or null (not measured) and "claimed" null when the card's
 * claims are unknown.  IOPS requirements are null for classes without.
 */
static int emit_class(struct speed_exec *x, const struct speed_class *c,
		      const struct speed_measured *m,
		      const struct info_card *card)
{
	static const struct text_look body[] = {
		{ .display = TEXT_MBPS, .template = "% MB/s" },
		{ .display = TEXT_AS_UNIT, .template = "r % IOPS" },
		{ .display = TEXT_AS_UNIT, .template = "w % IOPS" },
	};
	struct record rec = { .kind = "class" };	/* in columns */
	struct figure_looks req_text, got_text;
	enum speed_verdict v = verdict_of(c, m);
	bool iops = c->read_iops > 0, known = card && card->has_speed;
	unsigned shown = iops ? 3 : 1;
	struct iops_figures io = iops_at(m, c->iodepth);
	unsigned depth = iops ? c->iodepth :
			 m->write_depth ? m->write_depth : 1;

	add_label(&rec, "class", NULL, c->name);
	add_value(&rec, RECORD_RATE, "required.write_bytes_per_s", NULL,
		  c->write_mb * MB);
	add_value(&rec, RECORD_COUNT, "required.read_iops", NULL,
		  iops ? c->read_iops : NAN);
	add_value(&rec, RECORD_COUNT, "required.write_iops", NULL,
		  iops ? c->write_iops : NAN);
	add_value(&rec, RECORD_RATE, "measured.write_bytes_per_s", NULL,
		  figure(m->has_write_rate, m->write_bytes_per_s));
	add_value(&rec, RECORD_COUNT, "measured.read_iops", NULL,
		  figure(io.has_read, io.read));
	add_value(&rec, RECORD_COUNT, "measured.write_iops", NULL,
		  figure(io.has_write, io.write));
	/* which depth the verdict's figures were measured at */
	add_value(&rec, RECORD_COUNT, "iodepth",
		  iops ? LOOK(TEXT_AS_UNIT, "at QD%:") : MACHINE_ONLY, depth);
	add_label(&rec, "result", NULL, verdict_text[v]);
	add_value(&rec, RECORD_BOOL, "pass", MACHINE_ONLY,
		  v == SPEED_NOT_MEASURED || v == SPEED_LINK_LIMITED ? NAN :
		  v == SPEED_PASS);
	add_value(&rec, RECORD_BOOL, "claimed", known ?
		  LOOK(TEXT_AS_UNIT, "(claimed: %)") : MACHINE_ONLY,
		  known ? claimed(c, card) : NAN);
	/* the text shows IOPS for the classes that require them */
	list_templates(&rec.fields[1], shown, body, "required ", ";",
		       &req_text);
	list_templates(&rec.fields[4], shown, body, "measured ",
		       iops ? "" : ":", &got_text);
	for (unsigned i = shown; i < 3; i++)
		rec.fields[1 + i].look = rec.fields[4 + i].look = MACHINE_ONLY;
	return record_emit(&x->sink, &rec);
}

static int emit_classes(struct speed_exec *x, const struct speed_measured *m,
			const struct info_card *card)
{
	struct record note = { .layout = &spaces, .kind = "note" };
	int err = emit_measured(x, m);

	if (!err)
		err = emit_link(x);
	for (size_t i = 0; !err && i < CLASS_COUNT; i++)
		err = emit_class(x, &classes[i], m, card);
	if (err)
		return err;
	add_label(&note, "note", LOOK(TEXT_AS_UNIT, "note: %"),
		  card && card->has_speed ?
		  host_limits : host_limits_unclaimed);
	return record_emit(&x->sink, &note);
}

int speed_emit_classes(struct speed_exec *x, const struct speed_results *r,
		       const struct info_card *card)
{
	struct speed_measured m = {
		.has_write_rate = r->has_rate && r->rate_ns,
		.write_bytes_per_s = rate_of(r->rate_bytes, r->rate_ns),
		.has_read_iops = r->has_iops[0] && r->iops[0].operations,
		.read_iops = r->iops[0].iops,
		.has_write_iops = r->has_iops[1],
		.write_iops = r->iops[1].iops,
		.has_ceiling = x->link && x->link->has_ceiling,
		.ceiling_bytes_per_s = x->link ?
			(double)x->link->ceiling_bytes_per_s : 0,
		.has_queued_read_iops = r->has_queued[0] &&
					r->queued[0].operations,
		.queued_read_iops = r->queued[0].iops,
		.has_queued_write_iops = r->has_queued[1],
		.queued_write_iops = r->queued[1].iops,
	};

	return emit_classes(x, &m, card);
}

/* --- does the host path queue? ----------------------------------------- */

/* What the sysfs findings mean for the QD32 verdicts: label and text. */
static void host_queue_reading(const struct hostq *q, const char **label,
			       const char **text)
{
	if (!q) {
		*label = "simulated";
		*text = "a simulated card: its queue= key says how many "
			"operations overlap";
	} else if (!q->known) {
		*label = "cannot tell";
		*text = "cannot tell: the device is not in sysfs";
	} else if (q->cmdq == 1) {
		*label = "card";
		*text = "the card's command queue is on: QD32 shows what "
			"the card does with queued commands";
	} else if (q->cmdq == 0) {
		*label = "host";
		*text = "the card's command queue is off: the card gets one "
			"command at a time, so QD32 is not A2's queueing";
	} else if (q->nr_requests > 1) {
		*label = "host";
		*text = "the block layer queues; whether the card does is not "
			"exposed";
	} else {
		*label = "no";
		*text = "no request queue: QD32 cannot be faster than QD1";
	}
}

int speed_emit_host_queue(struct speed_exec *x, const struct hostq *q)
{
	struct record rec = { .layout = &spaces, .kind = "host_queue" };
	const char *label, *text;

	host_queue_reading(q, &label, &text);
	add_value(&rec, RECORD_COUNT, "nr_requests",
		  LOOK(TEXT_AS_UNIT, "host queue: nr_requests %,"),
		  q && q->nr_requests >= 0 ?
		  (double)q->nr_requests : NAN);
	add_value(&rec, RECORD_BOOL, "command_queue",
		  LOOK(TEXT_AS_UNIT, "card command queue %;"), q && q->cmdq >= 0 ?
		  (double)q->cmdq : NAN);
	if (!isfinite(rec.fields[0].value))
		rec.fields[0].look = MACHINE_ONLY;
	if (!isfinite(rec.fields[1].value))
		rec.fields[1].look = MACHINE_ONLY;
	add_label(&rec, "queues", MACHINE_ONLY, label);
	add_label(&rec, "reading", isfinite(rec.fields[0].value) ? NULL :
		  LOOK(TEXT_AS_UNIT, "host queue: %"), text);
	return record_emit(&x->sink, &rec);
}
