/*
 * records/speed: what the speed tests measured, as records with their
 * text layout - -t's and --write-speed's windows and summary, --iops's
 * reads and writes, --class-check's figures, a verdict per class and the
 * host queue - for report.c and plot.c to render.  measure/speed.c
 * gathers the figures and judges the classes; nothing here measures.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "identity/hostq.h"
#include "records/hostlink.h"
#include "records/speed.h"
#include "vm/layout.h"

#define MB 1e6

/* A field for the machine formats only (layout.h). */
#define MACHINE_ONLY (&text_hidden)

/* A field's look in the text line: display and template (layout.h). */
#define LOOK(how, text) \
	(&(const struct text_look){ .display = how, .template = text })

/* The speed tests' text lines: fields separated by a space. */
static const struct text_layout spaces = { .style = TEXT_SPACES };

/* --- rates and IOPS --------------------------------------------------- */

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
	record_add(rec, RECORD_COUNT, "ceiling_share", isfinite(share) ? look :
		   MACHINE_ONLY, NULL, share);
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
		record_add(&rec, RECORD_COUNT, "second", MACHINE_ONLY, NULL,
			   (double)(i + 1));
		record_add(&rec, RECORD_RATE, "bytes_per_s", MACHINE_ONLY, NULL,
			   r.windows[i]);
		err = record_emit(&x->sink, &rec);
		if (err)
			return err;
	}
	rec.count = 0;
	rec.kind = "summary";
	record_add(&rec, RECORD_BYTES, "block_bytes", write ?
		   LOOK(TEXT_AS_UNIT, "write %-byte blocks for") :
		   LOOK(TEXT_AS_UNIT, "read %-byte blocks for"), NULL,
		   (double)block_bytes);
	record_add(&rec, RECORD_TIME, "device_time_ns",
		   LOOK(TEXT_AS_UNIT, "%:"), NULL, (double)r.device_time_ns);
	record_add(&rec, RECORD_RATE, "bytes_per_s", LOOK(TEXT_MBPS, "% MB/s;"),
		   NULL, r.bytes_per_s);
	record_add(&rec, RECORD_RATE, "window_min_bytes_per_s",
		   LOOK(TEXT_MBPS, "per second: min %,"), NULL, r.window_min);
	record_add(&rec, RECORD_RATE, "window_median_bytes_per_s",
		   LOOK(TEXT_MBPS, "median %,"), NULL, r.window_median);
	record_add(&rec, RECORD_RATE, "window_max_bytes_per_s",
		   LOOK(TEXT_MBPS, "max % MB/s"), NULL, r.window_max);
	add_share(x, &rec, r.bytes_per_s, &share_text);
	record_add(&rec, RECORD_COUNT, "failed_reads", MACHINE_ONLY, NULL,
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

	record_add(&rec, RECORD_LABEL, "direction", MACHINE_ONLY, r->write ?
		   "write" : "read", 0);
	record_add(&rec, RECORD_BYTES, "block_bytes", r->write ?
		   LOOK(TEXT_AS_UNIT, "random %-byte writes for") :
		   LOOK(TEXT_AS_UNIT, "random %-byte reads for"), NULL,
		   (double)r->io_bytes);
	record_add(&rec, RECORD_TIME, "device_time_ns",
		   LOOK(TEXT_AS_UNIT, "%:"), NULL, (double)r->device_time_ns);
	record_add(&rec, RECORD_COUNT, "iops", LOOK(TEXT_AS_UNIT, "% IOPS;"),
		   NULL, r->iops);
	record_add(&rec, RECORD_TIME, "latency_ns.p50",
		   LOOK(TEXT_AS_UNIT, "latency p50 %,"), NULL,
		   (double)r->p50_ns);
	record_add(&rec, RECORD_TIME, "latency_ns.p99",
		   LOOK(TEXT_AS_UNIT, "p99 %,"), NULL, (double)r->p99_ns);
	record_add(&rec, RECORD_TIME, "latency_ns.max",
		   LOOK(TEXT_AS_UNIT, "max %"), NULL, (double)r->max_ns);
	record_add(&rec, RECORD_COUNT, "operations", MACHINE_ONLY, NULL,
		   (double)r->operations);
	add_share(x, &rec, r->iops * (double)r->io_bytes, &share_text);
	/* the text names the depth when it is not the usual 1 */
	record_add(&rec, RECORD_COUNT, "iodepth", r->iodepth > 1 ?
		   LOOK(TEXT_AS_UNIT, "(queue depth %)") : MACHINE_ONLY, NULL,
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

	record_add(&rec, RECORD_RATE, "write_bytes_per_s", NULL, NULL,
		   figure(m->has_write_rate, m->write_bytes_per_s));
	record_add(&rec, RECORD_COUNT, "read_iops", NULL, NULL,
		   figure(m->has_read_iops, m->read_iops));
	record_add(&rec, RECORD_COUNT, "write_iops", NULL, NULL,
		   figure(m->has_write_iops, m->write_iops));
	record_add(&rec, RECORD_COUNT, "qd32.read_iops", NULL, NULL,
		   figure(m->has_queued_read_iops, m->queued_read_iops));
	record_add(&rec, RECORD_COUNT, "qd32.write_iops", NULL, NULL,
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
	enum speed_verdict v = speed_class_judge(c, m);
	bool iops = c->read_iops > 0, known = card && card->has_speed;
	unsigned shown = iops ? 3 : 1;
	struct speed_iops_figures io = speed_iops_at(m, c->iodepth);
	unsigned depth = iops ? c->iodepth :
			 m->write_depth ? m->write_depth : 1;

	record_add(&rec, RECORD_LABEL, "class", NULL, c->name, 0);
	record_add(&rec, RECORD_RATE, "required.write_bytes_per_s", NULL, NULL,
		   c->write_mb * MB);
	record_add(&rec, RECORD_COUNT, "required.read_iops", NULL, NULL, iops ?
		   c->read_iops : NAN);
	record_add(&rec, RECORD_COUNT, "required.write_iops", NULL, NULL, iops ?
		   c->write_iops : NAN);
	record_add(&rec, RECORD_RATE, "measured.write_bytes_per_s", NULL, NULL,
		   figure(m->has_write_rate, m->write_bytes_per_s));
	record_add(&rec, RECORD_COUNT, "measured.read_iops", NULL, NULL,
		   figure(io.has_read, io.read));
	record_add(&rec, RECORD_COUNT, "measured.write_iops", NULL, NULL,
		   figure(io.has_write, io.write));
	/* which depth the verdict's figures were measured at */
	record_add(&rec, RECORD_COUNT, "iodepth", iops ?
		   LOOK(TEXT_AS_UNIT, "at QD%:") : MACHINE_ONLY, NULL, depth);
	record_add(&rec, RECORD_LABEL, "result", NULL, verdict_text[v], 0);
	record_add(&rec, RECORD_BOOL, "pass", MACHINE_ONLY, NULL,
		   v == SPEED_NOT_MEASURED || v == SPEED_LINK_LIMITED ? NAN :
		   v == SPEED_PASS);
	record_add(&rec, RECORD_BOOL, "claimed", known ?
		   LOOK(TEXT_AS_UNIT, "(claimed: %)") : MACHINE_ONLY, NULL,
		   known ? speed_class_claims(c, card) : NAN);
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
	for (size_t i = 0; !err && speed_class_at(i); i++)
		err = emit_class(x, speed_class_at(i), m, card);
	if (err)
		return err;
	record_add(&note, RECORD_LABEL, "note", LOOK(TEXT_AS_UNIT, "note: %"),
		   card && card->has_speed ? host_limits :
		   host_limits_unclaimed, 0);
	return record_emit(&x->sink, &note);
}

int speed_emit_classes(struct speed_exec *x, const struct speed_results *r,
		       const struct info_card *card)
{
	struct speed_measured m;

	speed_measured_of(r, x->link, &m);
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
	record_add(&rec, RECORD_COUNT, "nr_requests",
		   LOOK(TEXT_AS_UNIT, "host queue: nr_requests %,"), NULL,
		   q && q->nr_requests >= 0 ? (double)q->nr_requests : NAN);
	record_add(&rec, RECORD_BOOL, "command_queue",
		   LOOK(TEXT_AS_UNIT, "card command queue %;"), NULL,
		   q && q->cmdq >= 0 ? (double)q->cmdq : NAN);
	if (!isfinite(rec.fields[0].value))
		rec.fields[0].look = MACHINE_ONLY;
	if (!isfinite(rec.fields[1].value))
		rec.fields[1].look = MACHINE_ONLY;
	record_add(&rec, RECORD_LABEL, "queues", MACHINE_ONLY, label, 0);
	record_add(&rec, RECORD_LABEL, "reading",
		   isfinite(rec.fields[0].value) ? NULL :
		   LOOK(TEXT_AS_UNIT, "host queue: %"), text, 0);
	return record_emit(&x->sink, &rec);
}
