/*
 * speed: sequential read and write rates, random 4 KiB IOPS at queue depth
 * 1, and the SD speed-class table.  All durations are device time, so sim:
 * cards behave like real ones.  It measures and hands out result records
 * (values, units, keys, text templates); report.c and plot.c render them.
 * It does not print, open devices, parse options or choose which ranges
 * may be written.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfsr.h"
#include "speed.h"

#define MB 1e6

/* A text template for the machine formats only (report.h). */
#define MACHINE_ONLY ""

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

static bool stopped(volatile sig_atomic_t *stop)
{
	return stop && *stop;
}

/* Between two operations, every SPEED_PROGRESS_NS of device time. */
static void tell_progress(const struct speed_progress *p, uint64_t done_ns,
			  uint64_t duration_ns, uint64_t *next_ns)
{
	uint64_t total_ns;

	if (!p || !p->update || done_ns < *next_ns)
		return;
	*next_ns = done_ns + SPEED_PROGRESS_NS;
	total_ns = p->total_ns ? p->total_ns : duration_ns;
	p->update(p->ctx, (p->before_ns + done_ns) / 1000000,
		  total_ns / 1000000);
}

/* Nearest-rank percentile of n sorted samples, pct in (0, 100]. */
/*
 * Latencies go into a histogram, not an array: fixed memory whatever the
 * duration, nothing allocated or sorted while measuring.  Below 64 ns
 * every value has its bucket; above, each power of two has 64, so a
 * percentile is within 1.6% (the maximum is kept exactly).
 */
#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

static unsigned hist_bucket(uint64_t ns)
{
	unsigned top;

	if (ns < HIST_SUB)
		return (unsigned)ns;
	top = 63u - (unsigned)__builtin_clzll(ns);
	return (top - HIST_SUB_BITS + 1) * HIST_SUB +
	       (unsigned)((ns >> (top - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* The smallest value a bucket holds. */
static uint64_t hist_value(unsigned bucket)
{
	unsigned top;

	if (bucket < HIST_SUB)
		return bucket;
	top = bucket / HIST_SUB + HIST_SUB_BITS - 1;
	return (uint64_t)(HIST_SUB + bucket % HIST_SUB) <<
	       (top - HIST_SUB_BITS);
}

static uint64_t hist_percentile(const uint64_t *counts, uint64_t n,
				unsigned pct)
{
	uint64_t rank = (n * pct + 99) / 100, seen = 0;

	for (unsigned i = 0; n && i < HIST_BUCKETS; i++) {
		seen += counts[i];
		if (seen >= (rank ? rank : 1))
			return hist_value(i);
	}
	return 0;
}

/* --- sequential rates ------------------------------------------------- */

static void summarise_windows(struct speed_rate *r)
{
	double *sorted;
	size_t n = r->window_count;

	if (!n)
		return;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		r->window_min = r->window_median = r->window_max =
			r->bytes_per_s;
		return;
	}
	memcpy(sorted, r->windows, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_double);
	r->window_min = sorted[0];
	r->window_max = sorted[n - 1];
	r->window_median = n % 2 ? sorted[n / 2] :
			   (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
}

/*
 * Reading past an unreadable block: remember the first failure, count
 * them, and give up when nothing but failures come back.
 */
static bool skip_unreadable(const struct dev *dev, struct speed_rate *r)
{
	if (r->failed_reads++ == 0)
		r->first_failure = dev->error;
	return ++r->consecutive_failures <= SPEED_MAX_SKIPPED_IN_A_ROW;
}

int speed_measure_rate(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		       uint64_t block_bytes, bool write, uint64_t duration_ns,
		       volatile sig_atomic_t *stop,
		       const struct speed_progress *progress,
		       struct speed_rate *r)
{
	uint64_t end, pos, win_ns = 0, win_bytes = 0, ns, next_ns = 0;
	size_t max_windows;
	void *buf;
	int err = 0;

	*r = (struct speed_rate){ .write = write, .block_bytes = block_bytes };
	end = span_bytes ? offset + span_bytes : dev->size_bytes;
	if (!block_bytes || offset >= dev->size_bytes ||
	    end > dev->size_bytes || block_bytes > end - offset)
		return -EINVAL;
	/* a 32-bit size_t must not wrap the count of a very long run */
	if (duration_ns / SPEED_WINDOW_NS + 2 > SIZE_MAX / sizeof(*r->windows))
		return -ENOMEM;
	max_windows = (size_t)(duration_ns / SPEED_WINDOW_NS + 2);
	r->windows = calloc(max_windows, sizeof(*r->windows));
	buf = dev_alloc_buffer(block_bytes, write ? DEV_PATTERN_RANDOM :
			       DEV_PATTERN_ZEROS);
	if (!r->windows || !buf) {
		free(buf);
		speed_rate_free(r);
		return -ENOMEM;
	}
	pos = offset;
	while (r->device_time_ns < duration_ns) {
		if (stopped(stop)) {
			err = -EINTR;
			break;
		}
		if (block_bytes > end - pos)
			pos = offset;
		err = write ? dev_write(dev, buf, pos, block_bytes, &ns) :
			      dev_read(dev, buf, pos, block_bytes, &ns);
		if (err == -EIO && !write && skip_unreadable(dev, r)) {
			/* a bad area: counted, never timed */
			pos += block_bytes;
			err = 0;
			continue;
		}
		if (err)
			break;
		r->consecutive_failures = 0;
		pos += block_bytes;
		r->device_time_ns += ns;
		r->bytes += block_bytes;
		r->operations++;
		win_ns += ns;
		win_bytes += block_bytes;
		if (win_ns >= SPEED_WINDOW_NS &&
		    r->window_count < max_windows) {
			r->windows[r->window_count++] =
				rate_of(win_bytes, win_ns);
			win_ns = win_bytes = 0;
		}
		tell_progress(progress, r->device_time_ns, duration_ns,
			      &next_ns);
	}
	free(buf);
	/* a final partial window counts when it is at least half a second,
	 * or when it is all there is */
	if (win_ns && r->window_count < max_windows &&
	    (win_ns >= SPEED_WINDOW_NS / 2 || !r->window_count))
		r->windows[r->window_count++] = rate_of(win_bytes, win_ns);
	r->bytes_per_s = rate_of(r->bytes, r->device_time_ns);
	summarise_windows(r);
	return err;
}

void speed_rate_free(struct speed_rate *r)
{
	free(r->windows);
	r->windows = NULL;
	r->window_count = 0;
}

/* --- random I/O ------------------------------------------------------- */

int speed_measure_iops(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		       bool write, uint64_t duration_ns,
		       volatile sig_atomic_t *stop,
		       const struct speed_progress *progress,
		       struct speed_iops_result *r)
{
	return speed_measure_random(dev, offset, span_bytes, SPEED_IO_BYTES,
				    write, duration_ns, stop, progress, r);
}

int speed_measure_random(struct dev *dev, uint64_t offset,
			 uint64_t span_bytes, uint64_t io_bytes, bool write,
			 uint64_t duration_ns, volatile sig_atomic_t *stop,
			 const struct speed_progress *progress,
			 struct speed_iops_result *r)
{
	struct lfsr_shuffle shuffle;
	uint64_t slots, *lat, ns, next_ns = 0;
	uint32_t done = 0;
	void *buf;
	int err = 0;

	*r = (struct speed_iops_result){ .write = write,
					 .io_bytes = io_bytes };
	slots = io_bytes ? span_bytes / io_bytes : 0;
	if (!slots || offset > dev->size_bytes ||
	    span_bytes > dev->size_bytes - offset)
		return -EINVAL;
	if (slots > LFSR_MAX_SLOTS)
		slots = LFSR_MAX_SLOTS;
	/* zeroed now, so no page is first touched while timing */
	lat = calloc(HIST_BUCKETS, sizeof(*lat));
	if (lat)
		memset(lat, 0, HIST_BUCKETS * sizeof(*lat));
	buf = dev_alloc_buffer(io_bytes, write ? DEV_PATTERN_RANDOM :
			       DEV_PATTERN_ZEROS);
	if (!lat || !buf) {
		free(lat);
		free(buf);
		return -ENOMEM;
	}
	lfsr_shuffle_init(&shuffle, (uint32_t)slots);
	while (r->device_time_ns < duration_ns) {
		uint64_t pos;

		if (stopped(stop)) {
			err = -EINTR;
			break;
		}
		if (done == slots) {
			lfsr_shuffle_init(&shuffle, (uint32_t)slots);
			done = 0;
		}
		pos = offset + (uint64_t)lfsr_shuffle_next(&shuffle) *
			       io_bytes;
		done++;
		err = write ? dev_write(dev, buf, pos, io_bytes, &ns) :
			      dev_read(dev, buf, pos, io_bytes, &ns);
		if (err)
			break;
		lat[hist_bucket(ns)]++;
		if (ns > r->max_ns)
			r->max_ns = ns;
		r->operations++;
		r->device_time_ns += ns;
		tell_progress(progress, r->device_time_ns, duration_ns,
			      &next_ns);
	}
	free(buf);
	r->p50_ns = hist_percentile(lat, r->operations, 50);
	r->p99_ns = hist_percentile(lat, r->operations, 99);
	r->iops = r->device_time_ns ?
		  (double)r->operations * 1e9 / (double)r->device_time_ns : 0;
	free(lat);
	return err;
}

int speed_write_range(const struct dev *dev, uint64_t erase_bytes,
		      uint64_t span_bytes, uint64_t *start, uint64_t *end)
{
	uint64_t from, room;

	if (!erase_bytes)
		return -EINVAL;
	from = (SPEED_WRITE_FROM_BYTES + erase_bytes - 1) / erase_bytes *
	       erase_bytes;
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

static void add_value(struct vm_record *rec, enum vm_unit unit,
		      const char *key, const char *text, double value)
{
	rec->fields[rec->count++] = (struct vm_field){ .unit = unit,
		.key = key, .text = text, .value = value };
}

static void add_label(struct vm_record *rec, const char *key,
		      const char *text, const char *label)
{
	rec->fields[rec->count++] = (struct vm_field){ .unit = VM_UNIT_LABEL,
		.key = key, .text = text, .label = label };
}

/*
 * -t, --write-speed: a record per window (second, bytes_per_s) for the
 * machine formats and plots, then the summary, in text:
 * "read 1048576-byte blocks for 3.05s: 19.6 MB/s; per second: min 19.5,
 * median 19.6, max 19.7 MB/s".
 */
static int emit_rate(struct speed_exec *x, const struct speed_rate *r)
{
	struct vm_record rec = { .style = VM_STYLE_SPACES };
	int err;

	for (size_t i = 0; i < r->window_count; i++) {
		rec.count = 0;
		rec.kind = "window";
		add_value(&rec, VM_UNIT_COUNT, "second", MACHINE_ONLY,
			  (double)(i + 1));
		add_value(&rec, VM_UNIT_MBPS, "bytes_per_s", MACHINE_ONLY,
			  r->windows[i]);
		err = x->emit(x->ctx, &rec);
		if (err)
			return err;
	}
	rec.count = 0;
	rec.kind = "summary";
	add_value(&rec, VM_UNIT_BYTES, "block_bytes", r->write ?
		  "write %-byte blocks for" : "read %-byte blocks for",
		  (double)r->block_bytes);
	add_value(&rec, VM_UNIT_TIME, "device_time_ns", "%:",
		  (double)r->device_time_ns);
	add_value(&rec, VM_UNIT_MBPS, "bytes_per_s", "% MB/s;",
		  r->bytes_per_s);
	add_value(&rec, VM_UNIT_MBPS, "window_min", "per second: min %,",
		  r->window_min);
	add_value(&rec, VM_UNIT_MBPS, "window_median", "median %,",
		  r->window_median);
	add_value(&rec, VM_UNIT_MBPS, "window_max", "max % MB/s",
		  r->window_max);
	add_value(&rec, VM_UNIT_COUNT, "failed_reads", MACHINE_ONLY,
		  (double)r->failed_reads);
	return x->emit(x->ctx, &rec);
}

static int run_rate(struct speed_exec *x, uint64_t offset,
		    uint64_t span_bytes, uint64_t block_bytes, bool write,
		    uint64_t duration_ns)
{
	struct speed_progress progress = { x->progress, x->ctx, 0, 0 };
	struct speed_rate r;
	int err, emitted;

	err = speed_measure_rate(x->dev, offset, span_bytes, block_bytes,
				 write, duration_ns, x->stop, &progress, &r);
	x->failed_reads = r.failed_reads;
	x->first_failure = r.first_failure;
	if (!err || err == -EINTR) {
		emitted = emit_rate(x, &r);
		if (emitted)
			err = emitted;
	}
	speed_rate_free(&r);
	return err;
}

int speed_read(struct speed_exec *x, uint64_t offset, uint64_t block_bytes,
	       uint64_t duration_ns)
{
	return run_rate(x, offset, 0, block_bytes, false, duration_ns);
}

int speed_write(struct speed_exec *x, uint64_t offset, uint64_t span_bytes,
		uint64_t erase_bytes, uint64_t duration_ns)
{
	if (!span_bytes)
		return -EINVAL;
	return run_rate(x, offset, span_bytes, erase_bytes, true,
			duration_ns);
}

/*
 * --iops: one record per direction, in text "random 4096-byte reads for
 * 1s: 1601 IOPS; latency p50 623µs, p99 631µs, max 631µs"; JSON nests
 * the latencies as "latency_ns": {"p50", "p99", "max"}.
 */
static int emit_iops(struct speed_exec *x, const struct speed_iops_result *r)
{
	struct vm_record rec = { .style = VM_STYLE_SPACES, .kind = "iops" };

	add_label(&rec, "direction", MACHINE_ONLY, r->write ? "write" : "read");
	add_value(&rec, VM_UNIT_BYTES, "block_bytes", r->write ?
		  "random %-byte writes for" : "random %-byte reads for",
		  (double)r->io_bytes);
	add_value(&rec, VM_UNIT_TIME, "device_time_ns", "%:",
		  (double)r->device_time_ns);
	add_value(&rec, VM_UNIT_COUNT, "iops", "% IOPS;", r->iops);
	add_value(&rec, VM_UNIT_TIME, "latency_ns.p50", "latency p50 %,",
		  (double)r->p50_ns);
	add_value(&rec, VM_UNIT_TIME, "latency_ns.p99", "p99 %,",
		  (double)r->p99_ns);
	add_value(&rec, VM_UNIT_TIME, "latency_ns.max", "max %",
		  (double)r->max_ns);
	add_value(&rec, VM_UNIT_COUNT, "operations", MACHINE_ONLY,
		  (double)r->operations);
	return x->emit(x->ctx, &rec);
}

int speed_iops(struct speed_exec *x, uint64_t offset, uint64_t span_bytes,
	       uint64_t duration_ns, bool write)
{
	struct speed_progress progress = { x->progress, x->ctx, 0,
					   write ? 2 * duration_ns : 0 };
	struct speed_iops_result rd, wr = { .write = true };
	uint64_t io_bytes = x->io_bytes ? x->io_bytes : SPEED_IO_BYTES;
	int err, emitted;

	err = speed_measure_random(x->dev, offset, span_bytes, io_bytes,
				   false, duration_ns, x->stop, &progress, &rd);
	if (err && err != -EINTR)
		return err;
	if (!err && write) {
		progress.before_ns = rd.device_time_ns;
		err = speed_measure_random(x->dev, offset, span_bytes,
					   io_bytes, true, duration_ns, x->stop,
					   &progress, &wr);
		if (err && err != -EINTR)
			return err;
	}
	emitted = emit_iops(x, &rd);
	if (!emitted && write && wr.operations)
		emitted = emit_iops(x, &wr);
	return emitted ? emitted : err;
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
};

static const struct speed_class classes[] = {
	{ "C2", FAMILY_C, 2, 2, 0, 0 },
	{ "C4", FAMILY_C, 4, 4, 0, 0 },
	{ "C6", FAMILY_C, 6, 6, 0, 0 },
	{ "C10", FAMILY_C, 10, 10, 0, 0 },
	{ "U1", FAMILY_U, 1, 10, 0, 0 },
	{ "U3", FAMILY_U, 3, 30, 0, 0 },
	{ "V6", FAMILY_V, 6, 6, 0, 0 },
	{ "V10", FAMILY_V, 10, 10, 0, 0 },
	{ "V30", FAMILY_V, 30, 30, 0, 0 },
	{ "V60", FAMILY_V, 60, 60, 0, 0 },
	{ "V90", FAMILY_V, 90, 90, 0, 0 },
	{ "A1", FAMILY_A, 1, 10, 1500, 500 },
	{ "A2", FAMILY_A, 2, 10, 4000, 2000 },
};

#define CLASS_COUNT (sizeof(classes) / sizeof(classes[0]))

static const struct speed_class *find_class(const char *name)
{
	for (size_t i = 0; i < CLASS_COUNT; i++)
		if (strcmp(classes[i].name, name) == 0)
			return &classes[i];
	return NULL;
}

const char *speed_class_name(size_t i)
{
	return i < CLASS_COUNT ? classes[i].name : NULL;
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

static enum speed_verdict verdict_of(const struct speed_class *c,
				     const struct speed_measured *m)
{
	bool fail = false, missing = false;

	judge(true, m->has_write_rate, m->write_bytes_per_s,
	      c->write_mb * MB, &fail, &missing);
	judge(c->read_iops > 0, m->has_read_iops, m->read_iops,
	      c->read_iops, &fail, &missing);
	judge(c->write_iops > 0, m->has_write_iops, m->write_iops,
	      c->write_iops, &fail, &missing);
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

/*
 * Text templates for a list of figures: a missing one (NaN) is left out
 * of the text, the first shown is led by lead and the last shown ends
 * with end, the others with a comma.
 */
static void list_templates(struct vm_field *fields, unsigned n,
			   const char *const *body, const char *lead,
			   const char *end, char (*buf)[TEMPLATE_MAX])
{
	unsigned shown = 0, last = n;

	for (unsigned i = 0; i < n; i++)
		if (isfinite(fields[i].value))
			last = i;
	for (unsigned i = 0; i < n; i++) {
		if (!isfinite(fields[i].value)) {
			fields[i].text = MACHINE_ONLY;
			continue;
		}
		snprintf(buf[i], TEMPLATE_MAX, "%s%s%s", shown++ ? "" : lead,
			 body[i], i == last ? end : ",");
		fields[i].text = buf[i];
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
	static const char *const body[] = { "sequential write % MB/s",
		"random read % IOPS", "random write % IOPS" };
	struct vm_record rec = { .style = VM_STYLE_SPACES,
				 .kind = "measured" };
	char text[3][TEMPLATE_MAX];

	add_value(&rec, VM_UNIT_MBPS, "write_bytes_per_s", NULL,
		  figure(m->has_write_rate, m->write_bytes_per_s));
	add_value(&rec, VM_UNIT_COUNT, "read_iops", NULL,
		  figure(m->has_read_iops, m->read_iops));
	add_value(&rec, VM_UNIT_COUNT, "write_iops", NULL,
		  figure(m->has_write_iops, m->write_iops));
	list_templates(rec.fields, 3, body, "measured: ", "", text);
	return x->emit(x->ctx, &rec);
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
	static const char *const body[] = { "% MB/s", "r % IOPS",
					     "w % IOPS" };
	struct vm_record rec = { .style = VM_STYLE_COLUMNS, .kind = "class" };
	char req_text[3][TEMPLATE_MAX], got_text[3][TEMPLATE_MAX];
	enum speed_verdict v = verdict_of(c, m);
	bool iops = c->read_iops > 0, known = card && card->has_speed;
	unsigned shown = iops ? 3 : 1;

	add_label(&rec, "class", NULL, c->name);
	add_value(&rec, VM_UNIT_MBPS, "required.write_bytes_per_s", NULL,
		  c->write_mb * MB);
	add_value(&rec, VM_UNIT_COUNT, "required.read_iops", NULL,
		  iops ? c->read_iops : NAN);
	add_value(&rec, VM_UNIT_COUNT, "required.write_iops", NULL,
		  iops ? c->write_iops : NAN);
	add_value(&rec, VM_UNIT_MBPS, "measured.write_bytes_per_s", NULL,
		  figure(m->has_write_rate, m->write_bytes_per_s));
	add_value(&rec, VM_UNIT_COUNT, "measured.read_iops", NULL,
		  figure(m->has_read_iops, m->read_iops));
	add_value(&rec, VM_UNIT_COUNT, "measured.write_iops", NULL,
		  figure(m->has_write_iops, m->write_iops));
	add_label(&rec, "result", NULL, verdict_text[v]);
	add_value(&rec, VM_UNIT_BOOL, "pass", MACHINE_ONLY,
		  v == SPEED_NOT_MEASURED ? NAN : v == SPEED_PASS);
	add_value(&rec, VM_UNIT_BOOL, "claimed", known ? "(claimed: %)" :
		  MACHINE_ONLY, known ? claimed(c, card) : NAN);
	/* the text shows IOPS for the classes that require them */
	list_templates(&rec.fields[1], shown, body, "required ", ";",
		       req_text);
	list_templates(&rec.fields[4], shown, body, "measured ", ":",
		       got_text);
	for (unsigned i = shown; i < 3; i++)
		rec.fields[1 + i].text = rec.fields[4 + i].text = MACHINE_ONLY;
	return x->emit(x->ctx, &rec);
}

static int emit_classes(struct speed_exec *x, const struct speed_measured *m,
			const struct info_card *card)
{
	struct vm_record note = { .style = VM_STYLE_SPACES, .kind = "note" };
	int err = emit_measured(x, m);

	for (size_t i = 0; !err && i < CLASS_COUNT; i++)
		err = emit_class(x, &classes[i], m, card);
	if (err)
		return err;
	add_label(&note, "note", "note: %", card && card->has_speed ?
		  host_limits : host_limits_unclaimed);
	return x->emit(x->ctx, &note);
}

/* The three measurements; stops at the first error or interruption. */
static int measure_classes(struct speed_exec *x, bool read_only,
			   uint64_t offset, uint64_t span_bytes,
			   uint64_t erase_bytes, uint64_t duration_ns,
			   struct speed_measured *m)
{
	struct speed_progress progress = { x->progress, x->ctx, 0,
		(read_only ? 1 : 3) * duration_ns };
	struct speed_iops_result io;
	struct speed_rate r;
	int err;

	if (!read_only) {
		err = speed_measure_rate(x->dev, offset, span_bytes,
					 erase_bytes, true, duration_ns,
					 x->stop, &progress, &r);
		speed_rate_free(&r);
		if (err)
			return err;
		m->has_write_rate = true;
		m->write_bytes_per_s = r.bytes_per_s;
		progress.before_ns += r.device_time_ns;
	}
	err = speed_measure_iops(x->dev, offset, span_bytes, false,
				 duration_ns, x->stop, &progress, &io);
	if (err)
		return err;
	m->has_read_iops = true;
	m->read_iops = io.iops;
	progress.before_ns += io.device_time_ns;
	if (read_only)
		return 0;
	err = speed_measure_iops(x->dev, offset, span_bytes, true,
				 duration_ns, x->stop, &progress, &io);
	if (err)
		return err;
	m->has_write_iops = true;
	m->write_iops = io.iops;
	return 0;
}

int speed_class_check(struct speed_exec *x, const struct info_card *card,
		      bool read_only, uint64_t offset, uint64_t span_bytes,
		      uint64_t erase_bytes, uint64_t duration_ns)
{
	struct speed_measured m = { 0 };
	int err, emitted;

	err = measure_classes(x, read_only, offset, span_bytes, erase_bytes,
			      duration_ns, &m);
	if (err && err != -EINTR)
		return err;
	emitted = emit_classes(x, &m, card);
	return emitted ? emitted : err;
}
