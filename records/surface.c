/*
 * records/surface: --surface's result as records.  A window's record is
 * the rate chart's point (CSV, JSON and --plot take it; the text line
 * leaves it out); each bad range and each of the slowest windows gets a
 * line; the summary line ends the run with the verdict.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/render.h"
#include "records/surface.h"

#define SHOWN(template_text) \
	(&(const struct text_look){ .display = TEXT_AS_UNIT, \
				    .template = template_text })
#define HIDDEN (&text_hidden)

static const struct text_layout spaced = { .style = TEXT_SPACES };

static const char *const mode_names[] = {
	[SURFACE_READ] = "read-only", [SURFACE_WRITE] = "write",
	[SURFACE_KEEP] = "keep-data",
};

const char *surface_mode_name(enum surface_mode mode)
{
	return mode_names[mode];
}

static double rate(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e9 / (double)ns : NAN;
}

const char *surface_state_name(int state)
{
	return state == SURFACE_OLD_DATA ? "old-data" :
	       stamp_state_name((enum stamp_state)state);
}

static int emit_window(const struct record_sink *sink,
		       const struct surface_window *w)
{
	struct record rec = { .kind = "surface-window", .layout = &spaced };

	record_add(&rec, RECORD_BYTES, "offset_bytes", NULL, NULL, (double)w->offset);
	record_add(&rec, RECORD_BYTES, "length_bytes", NULL, NULL, (double)w->bytes);
	record_add(&rec, RECORD_RATE, "read_bytes_per_s", NULL, NULL,
	    rate(w->bytes, w->read_ns));
	record_add(&rec, RECORD_RATE, "write_bytes_per_s", NULL, NULL,
	    rate(w->bytes, w->write_ns));
	render_hide_fields(&rec);
	return record_emit(sink, &rec);
}

static int emit_range(const struct record_sink *sink,
		      const struct surface_range *g, uint32_t lbs)
{
	struct record rec = { .kind = "surface-bad", .layout = &spaced };

	record_add(&rec, RECORD_BYTES, "offset_bytes", SHOWN("bad: bytes at %"), NULL,
	    (double)g->offset);
	record_add(&rec, RECORD_BYTES, "length_bytes", SHOWN("(+%):"), NULL,
	    (double)g->length);
	record_add(&rec, RECORD_COUNT, "blocks", SHOWN("% blocks"), NULL,
	    (double)(g->length / lbs));
	record_add(&rec, RECORD_LABEL, "result", SHOWN("%"), surface_state_name(g->state),
	    0);
	return record_emit(sink, &rec);
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Rates of the timed windows, sorted; their count. */
static unsigned window_rates(const struct surface_result *r, bool writes,
			     double *rates)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->window_count; i++) {
		const struct surface_window *w = &r->windows[i];
		uint64_t ns = writes ? w->write_ns : w->read_ns;

		if (ns)
			rates[n++] = rate(w->bytes, ns);
	}
	qsort(rates, n, sizeof(*rates), compare_double);
	return n;
}

struct spread {
	double min, median, max;
};

static struct spread spread_of(const double *rates, unsigned n)
{
	if (!n)
		return (struct spread){ NAN, NAN, NAN };
	return (struct spread){ rates[0], n % 2 ? rates[n / 2] :
				(rates[n / 2 - 1] + rates[n / 2]) / 2,
				rates[n - 1] };
}

/* One window read slower than the rest of the range. */
static bool slow_window(const struct surface_window *w, double median)
{
	return w->read_ns && rate(w->bytes, w->read_ns) <
			     SURFACE_SLOW_FRACTION * median;
}

static int emit_slow_range(const struct record_sink *sink,
			   const struct surface_window *from, unsigned count,
			   double median)
{
	struct record rec = { .kind = "surface-slow", .layout = &spaced };
	uint64_t bytes = 0, read_ns = 0, write_ns = 0;

	for (unsigned i = 0; i < count; i++) {
		bytes += from[i].bytes;
		read_ns += from[i].read_ns;
		write_ns += from[i].write_ns;
	}
	record_add(&rec, RECORD_BYTES, "offset_bytes", SHOWN("slow: bytes at %"), NULL,
	    (double)from->offset);
	record_add(&rec, RECORD_BYTES, "length_bytes", SHOWN("(+%):"), NULL,
	    (double)bytes);
	record_add(&rec, RECORD_RATE, "read_bytes_per_s", SHOWN("read %"), NULL,
	    rate(bytes, read_ns));
	record_add(&rec, RECORD_COUNT, "read_of_median",
	    &(const struct text_look){ .display = TEXT_FIXED,
		    .template = "(% of the median)", .digits = 2 },
	    NULL, rate(bytes, read_ns) / median);
	record_add(&rec, RECORD_RATE, "write_bytes_per_s",
	    write_ns ? SHOWN("write %") : HIDDEN, NULL,
	    rate(bytes, write_ns));
	return record_emit(sink, &rec);
}

/*
 * The slow ranges: windows in a row read at less than
 * SURFACE_SLOW_FRACTION of the median, each run one record (the first
 * SURFACE_SLOW_RANGES of them).
 */
static int emit_slow(const struct record_sink *sink,
		     const struct surface_result *r, double median)
{
	unsigned ranges = 0;
	int err = 0;

	for (unsigned i = 0; !err && i < r->window_count &&
	     ranges < SURFACE_SLOW_RANGES; i++) {
		unsigned n = 0;

		while (i + n < r->window_count &&
		       slow_window(&r->windows[i + n], median))
			n++;
		if (!n)
			continue;
		err = emit_slow_range(sink, &r->windows[i], n, median);
		ranges++;
		i += n - 1;
	}
	return err;
}

/* Why a run that stopped has no verdict. */
static const char *const stop_names[] = {
	[SURFACE_FINISHED] = NULL, [SURFACE_INTERRUPTED] = "interrupted",
	[SURFACE_DEVICE_GONE] = "device-stopped-answering",
	[SURFACE_UNDO_FAILED] = "undo-file-failed",
	[SURFACE_FAILED] = "failed",
};

/* The verdict's text; a run that stopped has none, and says why there. */
#define STOPPED_LOOK(why) \
	{ .display = TEXT_AS_UNIT, .template = "verdict: %", \
	  .unknown = "incomplete (" why ")" }
static const struct text_look verdict_looks[] = {
	[SURFACE_FINISHED] = { .display = TEXT_AS_UNIT,
			       .template = "verdict: %" },
	[SURFACE_INTERRUPTED] = STOPPED_LOOK("interrupted"),
	[SURFACE_DEVICE_GONE] = STOPPED_LOOK("device-stopped-answering"),
	[SURFACE_UNDO_FAILED] = STOPPED_LOOK("undo-file-failed"),
	[SURFACE_FAILED] = STOPPED_LOOK("failed"),
};

static const char *stopped_certainty(const struct surface_result *r,
				     char *buf, size_t size)
{
	static const char *const why[] = {
		[SURFACE_INTERRUPTED] = "interrupted",
		[SURFACE_DEVICE_GONE] = "the device stopped answering",
		[SURFACE_UNDO_FAILED] = "the undo file could not be written",
		[SURFACE_FAILED] = "the run failed",
	};

	snprintf(buf, size, "no verdict: %s; blocks from %llu on were not "
		 "checked", why[r->stopped], (unsigned long long)r->stopped_at);
	return buf;
}

static const char *certainty(const struct surface_result *r, char *buf,
			     size_t size)
{
	if (r->partial)
		return stopped_certainty(r, buf, size);
	if (r->mode == SURFACE_READ)
		return r->bad_blocks ? "sure: these blocks cannot be read" :
		       "every block reads; whether it keeps data takes "
		       "--write or --keep-data";
	if (!strcmp(r->verdict, "genuine"))
		return "every block read back its own stamp after all were "
		       "written";
	if (!strcmp(r->verdict, "readable-and-writable"))
		return "every block read back its own stamp, a chunk at a "
		       "time: blind to a card that wraps writes onto other "
		       "offsets; --write or --capacity-check tells a fake";
	if (!strcmp(r->verdict, "fake"))
		return "sure: from the usable size on no block keeps its data";
	return "bad blocks with good ones after them: damage, not a "
	       "capacity limit; the usable size is up to the first one";
}

/* The three rates of a pass: their keys and text. */
struct spread_looks {
	const char *keys[3];
	struct text_look looks[3];
};

#define RATE_LOOK(template_text) \
	{ .display = TEXT_AS_UNIT, .template = template_text }

static const struct spread_looks read_spread = {
	{ "read_min_bytes_per_s", "read_median_bytes_per_s",
	  "read_max_bytes_per_s" },
	{ RATE_LOOK("read min %,"), RATE_LOOK("median %,"),
	  RATE_LOOK("max %;") },
};
static const struct spread_looks write_spread = {
	{ "write_min_bytes_per_s", "write_median_bytes_per_s",
	  "write_max_bytes_per_s" },
	{ RATE_LOOK("write min %,"), RATE_LOOK("median %,"),
	  RATE_LOOK("max %;") },
};

void surface_add_rates(struct record *rec, bool writes,
		       const double values[3])
{
	const struct spread_looks *l = writes ? &write_spread : &read_spread;

	for (unsigned i = 0; i < 3; i++)
		record_add(rec, RECORD_RATE, l->keys[i],
		    isnan(values[i]) ? HIDDEN : &l->looks[i], NULL,
		    values[i]);
}

static void add_spread(struct record *rec, bool writes, struct spread s)
{
	const double values[3] = { s.min, s.median, s.max };

	surface_add_rates(rec, writes, values);
}

static int emit_summary(const struct record_sink *sink,
			const struct surface_result *r,
			struct spread reads, struct spread writes)
{
	struct record rec = { .kind = "surface", .layout = &spaced };
	bool fake = r->verdict && !strcmp(r->verdict, "fake");
	char sure[160];

	record_add(&rec, RECORD_LABEL, "verdict", &verdict_looks[r->stopped],
	    r->verdict, 0);
	record_add(&rec, RECORD_LABEL, "fake_kind", fake ? SHOWN("(%)") : HIDDEN,
	    r->fake_kind, 0);
	record_add(&rec, RECORD_BYTES, "usable_bytes",
	    fake ? SHOWN("usable % bytes") : HIDDEN, NULL,
	    r->verdict ? (double)r->usable_bytes : NAN);
	record_add(&rec, RECORD_LABEL, "mode", SHOWN("(%);"),
	    surface_mode_name(r->mode), 0);
	record_add(&rec, RECORD_BYTES, "announced_bytes", HIDDEN, NULL,
	    (double)r->announced_bytes);
	record_add(&rec, RECORD_BYTES, "start_bytes", HIDDEN, NULL, (double)r->start);
	record_add(&rec, RECORD_BYTES, "end_bytes", HIDDEN, NULL, (double)r->end);
	record_add(&rec, RECORD_BYTES, "resumed_from_bytes",
	    r->resumed_from != r->start ? SHOWN("resumed at %,") : HIDDEN,
	    NULL, (double)r->resumed_from);
	record_add(&rec, RECORD_BYTES, "bytes_checked", SHOWN("checked % bytes,"),
	    NULL, (double)(r->checked_end - r->resumed_from));
	record_add(&rec, RECORD_BYTES, "checked_end_bytes", HIDDEN, NULL,
	    (double)r->checked_end);
	record_add(&rec, RECORD_COUNT, "bad_blocks", SHOWN("% bad blocks"), NULL,
	    (double)r->bad_blocks);
	record_add(&rec, RECORD_COUNT, "bad_ranges", r->range_count == 1 ?
	    SHOWN("in % range;") : SHOWN("in % ranges;"), NULL,
	    (double)r->range_count);
	record_add(&rec, RECORD_BOOL, "ranges_cut", HIDDEN, NULL, r->ranges_cut);
	record_add(&rec, RECORD_BYTES, "window_bytes", SHOWN("windows of %:"),
	    NULL, (double)r->window_bytes);
	add_spread(&rec, false, reads);
	add_spread(&rec, true, writes);
	record_add(&rec, RECORD_BYTES, "bytes_written", SHOWN("written %,"), NULL,
	    (double)r->bytes_written);
	record_add(&rec, RECORD_BYTES, "bytes_restored",
	    r->mode == SURFACE_KEEP ? SHOWN("put back %,") : HIDDEN, NULL,
	    (double)r->bytes_restored);
	record_add(&rec, RECORD_TIME, "device_time_ns", SHOWN("device time %;"),
	    NULL, (double)r->device_time_ns);
	record_add(&rec, RECORD_TIME, "wall_ns", HIDDEN, NULL, (double)r->wall_ns);
	record_add(&rec, RECORD_BOOL, "partial", HIDDEN, NULL, r->partial);
	record_add(&rec, RECORD_LABEL, "certainty", SHOWN("%"),
	    certainty(r, sure, sizeof(sure)), 0);
	/* last, so that the columns before stay where they were */
	record_add(&rec, RECORD_LABEL, "stopped", HIDDEN, stop_names[r->stopped], 0);
	return record_emit(sink, &rec);
}

/* states[]'s keys: the state names, as JSON keys */
static const char *const state_keys[SURFACE_OLD_DATA + 1] = {
	[STAMP_INTACT] = "intact", [STAMP_ALIAS] = "alias",
	[STAMP_ZEROS] = "zeros", [STAMP_ONES] = "ones",
	[STAMP_OTHER] = "other", [STAMP_GARBAGE] = "garbage",
	[STAMP_READ_ERROR] = "read_error", [STAMP_WRITE_ERROR] = "write_error",
	[SURFACE_OLD_DATA] = "old_data",
};

/* Blocks by what they held, for the machine formats. */
static int emit_states(const struct record_sink *sink,
		       const struct surface_result *r)
{
	struct record rec = { .kind = "surface-blocks", .layout = &spaced };

	for (int s = 0; s <= SURFACE_OLD_DATA; s++)
		record_add(&rec, RECORD_COUNT, state_keys[s], NULL, NULL,
		    (double)r->states[s]);
	render_hide_fields(&rec);
	return record_emit(sink, &rec);
}

int surface_emit(const struct record_sink *sink,
		 const struct surface_result *r)
{
	double rates[SURFACE_MAX_WINDOWS + 1];
	struct spread reads, writes;
	int err = 0;

	for (unsigned i = 0; !err && i < r->window_count; i++)
		err = emit_window(sink, &r->windows[i]);
	for (unsigned i = 0; !err && i < r->range_count; i++)
		err = emit_range(sink, &r->ranges[i], r->block_bytes);
	writes = spread_of(rates, window_rates(r, true, rates));
	reads = spread_of(rates, window_rates(r, false, rates));
	if (!err && r->window_count > 2)
		err = emit_slow(sink, r, reads.median);
	if (!err)
		err = emit_states(sink, r);
	return err ? err : emit_summary(sink, r, reads, writes);
}
