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
#include "lib/units.h"
#include "records/hostlink.h"
#include "records/speed.h"
#include "vm/layout.h"

#define MB 1e6
#define REASON_BYTES 160	/* a reason, in words */

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
 * --write-speed's chunks, for the machine formats and the chart of rate
 * against bytes written: each its rate and the bytes written when it
 * ended.
 */
static int emit_chunks(struct speed_exec *x, const struct speed_results *r)
{
	const struct sustained *c = &r->chunks;
	struct record rec = { .layout = &spaces, .kind = "chunk" };
	int err = 0;

	for (size_t i = 0; !err && r->has_chunks && i < c->count; i++) {
		uint64_t end = i + 1 < c->count ? c->before_bytes[i + 1] :
			       c->written_bytes;

		rec.count = 0;
		record_add(&rec, RECORD_BYTES, "written_bytes", MACHINE_ONLY,
			   NULL, (double)end);
		record_add(&rec, RECORD_RATE, "bytes_per_s", MACHINE_ONLY,
			   NULL, c->rate[i]);
		err = record_emit(&x->sink, &rec);
	}
	return err;
}

static const char *const sustained_status[] = {
	[SUSTAINED_FOUND] = "found",
	[SUSTAINED_NOT_SETTLED] = "not settled",
	[SUSTAINED_NO_FALL] = "no cache seen",
	[SUSTAINED_TOO_FEW] = "too few chunks",
};

/*
 * Why a figure of the sustained record is missing, in words (or NULL);
 * spent: the writes ended because the range was written.
 */
static const char *sustained_reason(const struct sustained_result *s,
				    bool spent, char *buf, size_t size)
{
	char bytes[UNITS_BUF];

	switch (s->status) {
	case SUSTAINED_NOT_SETTLED:
		snprintf(buf, size, "sustained rate not determined: the run "
			 "ended %s after the fall, before the rate settled",
			 units_format_size(bytes,
					   (double)s->after_fall_bytes));
		break;
	case SUSTAINED_NO_FALL:
		snprintf(buf, size, "no cache seen in the first %s: the rate "
			 "did not fall %s", units_format_size(bytes,
			 (double)s->written_bytes), s->full ?
			 "in the chunks kept" : spent ? "before the range "
			 "(--span) was written" : "before --time ended (a "
			 "longer --time and --span write further)");
		break;
	case SUSTAINED_TOO_FEW:
		snprintf(buf, size, "cache not looked for: %zu chunk%s "
			 "written, a window is %d", s->chunks,
			 s->chunks == 1 ? "" : "s", SUSTAINED_WINDOW);
		break;
	default:
		return NULL;
	}
	return buf;
}

/*
 * What the writes showed of a write cache, in text "burst 42.8 MB/s for
 * the first 256MiB, then 10.7 MB/s sustained", or why not: "no cache
 * seen in the first 32MiB: the rate did not fall".  A figure not
 * determined is null, with the reason.
 */
static int emit_sustained_of(struct speed_exec *x,
			     const struct sustained_result *s)
{
	struct record rec = { .layout = &spaces, .kind = "sustained" };
	bool fell = isfinite(s->burst_bytes_per_s);
	bool found = isfinite(s->sustained_bytes_per_s);
	char why[REASON_BYTES];
	const char *reason = sustained_reason(s, x->span_bytes &&
					      s->written_bytes >=
					      x->span_bytes, why, sizeof(why));

	record_add(&rec, RECORD_RATE, "burst_bytes_per_s", fell ?
		   LOOK(TEXT_MBPS, "burst % MB/s") : MACHINE_ONLY, NULL,
		   s->burst_bytes_per_s);
	record_add(&rec, RECORD_BYTES, "cache_bytes", fell ?
		   LOOK(TEXT_SIZE, "for the first %,") : MACHINE_ONLY, NULL,
		   fell ? (double)s->cache_bytes : NAN);
	record_add(&rec, RECORD_RATE, "sustained_bytes_per_s", found ?
		   LOOK(TEXT_MBPS, "then % MB/s sustained") : MACHINE_ONLY,
		   NULL, s->sustained_bytes_per_s);
	record_add(&rec, RECORD_BYTES, "written_bytes", MACHINE_ONLY, NULL,
		   (double)s->written_bytes);
	record_add(&rec, RECORD_LABEL, "status", MACHINE_ONLY,
		   sustained_status[s->status], 0);
	record_add(&rec, RECORD_LABEL, "reason", !reason ? MACHINE_ONLY :
		   fell ? LOOK(TEXT_AS_UNIT, "then %") : NULL, reason, 0);
	return record_emit(&x->sink, &rec);
}

static int emit_sustained(struct speed_exec *x, const struct speed_results *r)
{
	struct sustained_result s;

	sustained_result(&r->chunks, &s);
	return emit_sustained_of(x, &s);
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
	err = emit_chunks(x, res);
	if (!err)
		err = record_emit(&x->sink, &rec);
	if (!err && res->has_chunks)
		err = emit_sustained(x, res);
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
	[SPEED_PASS_AS_FAR] = "pass as far as measured",
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

#define TEMPLATE_MAX 80

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

/* The fields' places in a class record (emit_class). */
enum class_field {
	CLASS_NAME, CLASS_REQUIRED, CLASS_BURST = CLASS_REQUIRED + 3,
	CLASS_CACHE, CLASS_MEASURED
};

/*
 * A class's measured figures in text: "measured 10.7 MB/s", or after a
 * write cache "measured burst 42.8 MB/s for the first 256MiB, then
 * 10.7 MB/s" ("then not settled" when the run ended before the rate
 * did), the IOPS after them for the classes that require them.  as_far,
 * when not NULL, is the write rate's look for a pass as far as measured
 * ("% MB/s over the first 244MiB, no fall seen").
 */
static void measured_looks(struct record *rec, unsigned shown, bool iops,
			   enum speed_write_basis basis, const char *as_far,
			   struct figure_looks *got)
{
	static const struct text_look body[] = {
		{ .display = TEXT_MBPS, .template = "% MB/s" },
		{ .display = TEXT_AS_UNIT, .template = "r % IOPS" },
		{ .display = TEXT_AS_UNIT, .template = "w % IOPS" },
	};
	/* the looks outlive this function: the record is emitted later */
	static const struct text_look after = {
		.display = TEXT_MBPS, .template = "then % MB/s" };
	static const struct text_look burst = {
		.display = TEXT_MBPS, .template = "measured burst % MB/s" };
	static const struct text_look cache = {
		.display = TEXT_SIZE, .template = "for the first %," };
	static const struct text_look unsettled[] = {
		{ .display = TEXT_TEMPLATE_ALONE, .template = "then not settled:" },
		{ .display = TEXT_TEMPLATE_ALONE, .template = "then not settled" },
		{ .display = TEXT_TEMPLATE_ALONE, .template = "then not settled," },
	};
	struct text_look looks[3] = { body[0], body[1], body[2] };
	struct record_field *f = &rec->fields[CLASS_MEASURED];
	bool fell = isfinite(rec->fields[CLASS_BURST].value);

	rec->fields[CLASS_BURST].look = fell ? &burst : MACHINE_ONLY;
	rec->fields[CLASS_CACHE].look = fell ? &cache : MACHINE_ONLY;
	if (fell)
		looks[0] = after;
	if (as_far)
		looks[0].template = as_far;
	list_templates(f, shown, looks, fell ? "" : "measured ",
		       iops ? "" : ":", got);
	if (fell && basis == SPEED_BASIS_UNSETTLED)
		f[0].look = &unsettled[shown > 1 && (isfinite(f[1].value) ||
						     isfinite(f[2].value)) ?
				       2 : iops];
}

/* "% MB/s over the first 244MiB, no fall seen": how far a pass holds. */
static const char *as_far_template(const struct speed_measured *m,
				   char *buf, size_t size)
{
	char bytes[UNITS_BUF];

	snprintf(buf, size, "%% MB/s over the first %s, no fall seen",
		 units_format_size(bytes, (double)m->write_bytes));
	return buf;
}

/* Its verdict, and whether and how far the write rate is sustained. */
static void class_verdict_fields(struct record *rec, enum speed_verdict v,
				 const struct speed_measured *m)
{
	enum speed_write_basis basis = speed_write_basis(m);

	record_add(rec, RECORD_LABEL, "result", NULL, verdict_text[v], 0);
	/* true only for a pass that holds past any cache */
	record_add(rec, RECORD_BOOL, "pass", MACHINE_ONLY, NULL,
		   v == SPEED_PASS ? 1 : v == SPEED_FAIL ? 0 : NAN);
	record_add(rec, RECORD_BOOL, "sustained_known", MACHINE_ONLY, NULL,
		   basis == SPEED_BASIS_NONE ? NAN :
		   basis == SPEED_BASIS_SUSTAINED);
	record_add(rec, RECORD_BYTES, "measured.written_bytes", MACHINE_ONLY,
		   NULL, m->has_write_rate ? (double)m->write_bytes : NAN);
}

/*
 * One class: "A1      required 10 MB/s, r 1500 IOPS, w 500 IOPS;
 * measured 10.7 MB/s, r 1601 IOPS, w 20 IOPS at QD1: FAIL"; JSON nests
 * the figures as "required": {...} and "measured": {...}, with "pass"
 * true, false or null (not measured, or passed only as far as measured)
 * and "claimed" null when the card's claims are unknown.  IOPS
 * requirements are null for classes without.  The write rate measured
 * is the one judged (speed_write_judged's); after a write cache the
 * burst and the bytes it lasted come first; a pass on a rate that never
 * fell says how far it was measured.
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
	const struct sustained_result *s = &m->sustained;
	bool fell = m->has_sustained && isfinite(s->burst_bytes_per_s);
	double rate;
	bool settled = speed_write_judged(m, &rate, NULL);
	char as_far[TEMPLATE_MAX];

	record_add(&rec, RECORD_LABEL, "class", NULL, c->name, 0);
	record_add(&rec, RECORD_RATE, "required.write_bytes_per_s", NULL, NULL,
		   c->write_mb * MB);
	record_add(&rec, RECORD_COUNT, "required.read_iops", NULL, NULL, iops ?
		   c->read_iops : NAN);
	record_add(&rec, RECORD_COUNT, "required.write_iops", NULL, NULL, iops ?
		   c->write_iops : NAN);
	record_add(&rec, RECORD_RATE, "measured.burst_bytes_per_s", NULL, NULL,
		   fell ? s->burst_bytes_per_s : NAN);
	record_add(&rec, RECORD_BYTES, "measured.cache_bytes", NULL, NULL,
		   fell ? (double)s->cache_bytes : NAN);
	record_add(&rec, RECORD_RATE, "measured.write_bytes_per_s", NULL, NULL,
		   settled ? rate : NAN);
	record_add(&rec, RECORD_COUNT, "measured.read_iops", NULL, NULL,
		   figure(io.has_read, io.read));
	record_add(&rec, RECORD_COUNT, "measured.write_iops", NULL, NULL,
		   figure(io.has_write, io.write));
	/* which depth the verdict's figures were measured at */
	record_add(&rec, RECORD_COUNT, "iodepth", iops ?
		   LOOK(TEXT_AS_UNIT, "at QD%:") : MACHINE_ONLY, NULL, depth);
	class_verdict_fields(&rec, v, m);
	record_add(&rec, RECORD_BOOL, "claimed", known ?
		   LOOK(TEXT_AS_UNIT, "(claimed: %)") : MACHINE_ONLY, NULL,
		   known ? speed_class_claims(c, card) : NAN);
	/* the text shows IOPS for the classes that require them */
	list_templates(&rec.fields[CLASS_REQUIRED], shown, body, "required ",
		       ";", &req_text);
	measured_looks(&rec, shown, iops, speed_write_basis(m),
		       v == SPEED_PASS_AS_FAR ? as_far_template(m, as_far,
			       sizeof(as_far)) : NULL, &got_text);
	for (unsigned i = shown; i < 3; i++)
		rec.fields[CLASS_REQUIRED + i].look =
			rec.fields[CLASS_MEASURED + i].look = MACHINE_ONLY;
	return record_emit(&x->sink, &rec);
}

/*
 * After classes passed as far as measured: why that is all they show,
 * and how to look further - "as far as measured: no fall in the first
 * 244MiB written, so a write cache larger than that would hide a slower
 * sustained rate; --span=8G --time=120 looks for one of up to 8GiB".
 * The span suggested is 8 GiB or twice what was written (a power of
 * two), cut to the room the device has; the time, the span at the rate
 * measured and a tenth more, in whole tens of seconds.  No suggestion
 * when the writes already went as far as the device allows.
 */
static int emit_as_far(struct speed_exec *x, const struct speed_measured *m)
{
	struct record rec = { .layout = &spaces, .kind = "caveat" };
	uint64_t look = 8ULL << 30, seconds;
	char text[REASON_BYTES * 2], written[UNITS_BUF], far[UNITS_BUF];
	int at;

	while (look < 2 * m->write_bytes)
		look *= 2;
	/* cut to the room, in whole GiB (whole MiB on a small card) */
	if (x->room_bytes && look > x->room_bytes)
		look = x->room_bytes - x->room_bytes %
		       (x->room_bytes >= 1ULL << 30 ? 1ULL << 30 : 1ULL << 20);
	at = snprintf(text, sizeof(text), "no fall in the first %s written, "
		      "so a write cache larger than that would hide a slower "
		      "sustained rate", units_format_size(written,
		      (double)m->write_bytes));
	seconds = (uint64_t)ceil((double)look * 1.1 /
				 m->write_bytes_per_s / 10) * 10;
	if (look > m->write_bytes && m->write_bytes_per_s > 0 && at > 0 &&
	    (size_t)at < sizeof(text))
		snprintf(text + at, sizeof(text) - (size_t)at, "; --span=%llu%s "
			 "--time=%llu looks for one of up to %s",
			 (unsigned long long)(look % (1ULL << 30) ?
			 look >> 20 : look >> 30), look % (1ULL << 30) ?
			 "M" : "G", (unsigned long long)seconds,
			 units_format_size(far, (double)look));
	record_add(&rec, RECORD_BYTES, "written_bytes", MACHINE_ONLY, NULL,
		   (double)m->write_bytes);
	record_add(&rec, RECORD_LABEL, "caveat",
		   LOOK(TEXT_AS_UNIT, "as far as measured: %"), text, 0);
	return record_emit(&x->sink, &rec);
}

static int emit_classes(struct speed_exec *x, const struct speed_measured *m,
			const struct info_card *card)
{
	struct record note = { .layout = &spaces, .kind = "note" };
	int err = emit_measured(x, m);
	bool as_far = false;

	if (!err && m->has_sustained)
		err = emit_sustained_of(x, &m->sustained);
	if (!err)
		err = emit_link(x);
	for (size_t i = 0; !err && speed_class_at(i); i++) {
		err = emit_class(x, speed_class_at(i), m, card);
		as_far = as_far || speed_class_judge(speed_class_at(i), m) ==
				   SPEED_PASS_AS_FAR;
	}
	if (!err && as_far)
		err = emit_as_far(x, m);
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

/* --- the Raspberry Pi's card test -------------------------------------- */

/* The sustained rate's look in the Pi test's line, when composed. */
struct pi_why_text {
	struct text_look look;
	char text[REASON_BYTES];
};

/* Its three figures: "sequential write 10449 KiB/s, random write ...". */
static void pi_figures(struct record *rec, const struct speed_measured *m,
		       struct figure_looks *text)
{
	static const struct text_look body[] = {
		{ .display = TEXT_KIBPS, .template = "sequential write % KiB/s" },
		{ .display = TEXT_AS_UNIT, .template = "random write % IOPS" },
		{ .display = TEXT_AS_UNIT, .template = "random read % IOPS" },
	};
	unsigned at = rec->count;

	record_add(rec, RECORD_RATE, "write_bytes_per_s", NULL, NULL,
		   figure(m->has_pi_write, m->pi_write_bytes_per_s));
	record_add(rec, RECORD_COUNT, "write_iops", NULL, NULL,
		   figure(m->has_pi_write_iops, m->pi_write_iops));
	record_add(rec, RECORD_COUNT, "read_iops", NULL, NULL,
		   figure(m->has_pi_read_iops, m->pi_read_iops));
	list_templates(&rec->fields[at], 3, body, "", ":", text);
}

/* Its thresholds: "(needs 10000 KiB/s, 500 and 1500 IOPS);". */
static void pi_required(struct record *rec)
{
	static const struct text_look looks[] = {
		{ .display = TEXT_KIBPS, .template = "(needs % KiB/s," },
		{ .display = TEXT_AS_UNIT, .template = "% and" },
		{ .display = TEXT_AS_UNIT, .template = "% IOPS);" },
	};

	record_add(rec, RECORD_RATE, "required.write_bytes_per_s", &looks[0],
		   NULL, SPEED_PI_WRITE_BYTES_PER_S);
	record_add(rec, RECORD_COUNT, "required.write_iops", &looks[1], NULL,
		   SPEED_PI_WRITE_IOPS);
	record_add(rec, RECORD_COUNT, "required.read_iops", &looks[2], NULL,
		   SPEED_PI_READ_IOPS);
}

/*
 * The sustained rate's look beside the Pi's verdict: known, or not,
 * and why (in text composed into buf, which outlives the record's
 * emission): a rate that never fell is only what was written so far.
 */
static const struct text_look *pi_sustained_look(
	const struct speed_measured *m, bool known, char *buf, size_t size,
	struct text_look *look)
{
	static const struct text_look sustained[] = {
		{ .display = TEXT_MBPS,
		  .template = "why: sustained write % MB/s," },
		{ .display = TEXT_TEMPLATE_ALONE,
		  .template = "why: sustained write not determined," },
	};
	char bytes[UNITS_BUF];

	if (speed_write_basis(m) != SPEED_BASIS_NO_FALL)
		return &sustained[!known];
	/* MB/s as TEXT_MBPS shows it: three digits, never an exponent */
	snprintf(buf, size, m->write_bytes_per_s >= 999.5 * MB ?
		 "why: sustained write not determined (%.0f MB/s over the "
		 "first %s, no fall seen)," : "why: sustained write not "
		 "determined (%.3g MB/s over the first %s, no fall seen),",
		 m->write_bytes_per_s / MB, units_format_size(bytes,
		 (double)m->write_bytes));
	*look = (struct text_look){ .display = TEXT_TEMPLATE_ALONE,
				    .template = buf };
	return look;
}

/*
 * Why, beside the verdict: the sequential rate the card sustains (after
 * any write cache; a rate that never fell is not one), what the host
 * link carries and whether the host queues, as the host_queue record
 * reads it.
 */
static void pi_why(struct speed_exec *x, struct record *rec,
		   const struct speed_measured *m, const struct hostq *q,
		   struct pi_why_text *buf)
{
	/* known, then not known; they outlive this function */
	static const struct text_look ceiling[] = {
		{ .display = TEXT_MBPS, .template = "host link ceiling % MB/s," },
		{ .display = TEXT_TEMPLATE_ALONE,
		  .template = "host link ceiling not known," },
	}, queues = { .display = TEXT_AS_UNIT, .template = "host queue: %" };
	const char *label, *text;
	double rate;
	bool known = speed_write_judged(m, &rate, NULL) &&
		     speed_write_basis(m) == SPEED_BASIS_SUSTAINED;
	bool limit = x->link && x->link->has_ceiling;

	host_queue_reading(q, &label, &text);
	record_add(rec, RECORD_RATE, "sustained_bytes_per_s",
		   pi_sustained_look(m, known, buf->text, sizeof(buf->text),
				     &buf->look), NULL, known ? rate : NAN);
	record_add(rec, RECORD_RATE, "ceiling_bytes_per_s", &ceiling[!limit],
		   NULL, limit ? (double)x->link->ceiling_bytes_per_s : NAN);
	record_add(rec, RECORD_LABEL, "queues", &queues, label, 0);
}

/*
 * "Raspberry Pi SD Card Speed Test (256MiB file, random I/O 10s each,
 * QD32): sequential write 10449 KiB/s, random write 15 IOPS, random
 * read 1601 IOPS: FAIL (needs 10000 KiB/s, 500 and 1500 IOPS); why:
 * sustained write 10.7 MB/s, host link ceiling not known, host queue:
 * simulated".  JSON: kind "pi_test", a figure not measured null.
 */
int speed_emit_pi(struct speed_exec *x, const struct speed_results *r,
		  const struct hostq *q)
{
	struct record rec = { .layout = &spaces, .kind = "pi_test" };
	struct speed_measured m;
	struct figure_looks text;
	struct pi_why_text why;
	enum speed_verdict v;

	speed_measured_of(r, x->link, &m);
	v = speed_pi_verdict(&m);
	record_add(&rec, RECORD_BYTES, "file_bytes",
		   LOOK(TEXT_SIZE, "Raspberry Pi SD Card Speed Test (% file,"),
		   NULL, (double)x->pi_file_bytes);
	record_add(&rec, RECORD_TIME, "random_ns",
		   LOOK(TEXT_AS_UNIT, "random I/O % each, QD32):"), NULL,
		   (double)x->pi_random_ns);
	record_add(&rec, RECORD_BYTES, "written_bytes", MACHINE_ONLY, NULL,
		   m.has_pi_write ? (double)m.pi_write_bytes : NAN);
	pi_figures(&rec, &m, &text);
	record_add(&rec, RECORD_LABEL, "result", NULL, verdict_text[v], 0);
	record_add(&rec, RECORD_BOOL, "pass", MACHINE_ONLY, NULL,
		   v == SPEED_NOT_MEASURED ? NAN : v == SPEED_PASS);
	pi_required(&rec);
	pi_why(x, &rec, &m, q, &why);
	return record_emit(&x->sink, &rec);
}
