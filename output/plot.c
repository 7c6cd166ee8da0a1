/*
 * plot: result records to an SVG chart, 800 pixels wide, with labelled
 * axes and a legend.  A table says how each test is drawn (which key on
 * which axis, log2 or linear, lines or points); saved JSON runs are read
 * back through analysis/saved.c and drawn on svg.c's canvas.  No
 * measuring here, and no text or CSV output.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings.h"
#include "analysis/saved.h"
#include "lib/grow.h"
#include "lib/units.h"
#include "output/json.h"
#include "output/plot.h"
#include "output/plotpasses.h"
#include "output/svg.h"

#define KEY_MAX 32
#define RUN_KEYS 64		/* distinct keys kept per run */
#define RUN_PARAMS 32
#define MAX_FIELDS (1 << 21)	/* values kept over all runs */
#define MAX_SERIES 64
#define MAX_REPEAT 16		/* series from one repeated key */
#define LEGEND_ROWS 24

/* How a test is drawn. */
struct chart {
	const char *tests[3];		/* the tests drawn this way */
	const char *x_key;		/* NULL: the first numeric key */
	const char *x_title;
	bool x_log;			/* log2 axis */
	const char *y_keys[5];		/* none: every other key */
	const char *y_title;
	const char *overlay_key;	/* several runs: this key only */
	const char *repeat_name;	/* repeated key: "NAME N" */
	bool points;			/* points, not lines */
	bool fit;			/* regression of the first y key */
	bool y_zero;			/* y axis includes 0 */
};

static const struct chart charts[] = {
	{ { "align", "write-align" }, "align_bytes", "alignment", true,
	  { "pre_ns", "on_ns", "post_ns", "diff_ns" }, "time", "diff_ns",
	  NULL, false, false, true },
	{ { "open-au", "open-au-random" }, "block_bytes", "block size", true,
	  { "bytes_per_s" }, "write rate", NULL, NULL, false, false, true },
	{ { "find-fat" }, "block_bytes", "block size", true,
	  { "bytes_per_s" }, "write rate", NULL, "erase block", false, false,
	  true },
	{ { "scatter" }, "offset_bytes", "offset", false,
	  { "time_ns" }, "read time", NULL, NULL, true, false, false },
	{ { "interval" }, "length_bytes", "read size", false,
	  { "min_ns" }, "fastest read time", NULL, NULL, true, true, true },
	/* -t: one point per one-second window */
	{ { "read-speed" }, "second", "time (seconds)", false,
	  { "bytes_per_s" }, "throughput", NULL, NULL, false, false, true },
	/* --write-speed: one point per chunk, where a write cache ends */
	{ { "write-speed" }, "written_bytes", "bytes written", false,
	  { "bytes_per_s" }, "write rate", NULL, NULL, false, false, true },
	/* --surface: one point per window, across the range */
	{ { "surface" }, "offset_bytes", "offset", false,
	  { "read_bytes_per_s", "write_bytes_per_s" }, "rate", NULL, NULL, false, false,
	  true },
	/* --surface --passes: plotpasses.c draws it, one run a chart */
	{ { "surface-passes" }, "pass", "pass", false, { NULL }, NULL, NULL,
	  NULL, false, false, true },
};

/*
 * Ranges a test marks across the chart (--surface's bad blocks): each
 * record with the x key, length_key and marker_key is a band from x to
 * x + length.
 */
static const struct band {
	const char *test, *length_key, *marker_key;
} bands[] = {
	{ "surface", "length_bytes", "blocks" },
};

/* Anything else: first key across, the others up. */
static const struct chart generic_chart = {
	{ NULL }, NULL, NULL, false, { NULL }, NULL, NULL, NULL,
	false, false, false,
};

struct pfield {
	uint16_t key;		/* index into run->keys */
	uint16_t unit;		/* enum record_unit */
	double value;
};

struct prow {
	size_t first;
	unsigned count;
};

struct run {
	char test[KEY_MAX];
	char device[128];
	char label[64];
	char source[64];
	char param_names[RUN_PARAMS][KEY_MAX];
	double param_values[RUN_PARAMS];
	unsigned param_count;
	char keys[RUN_KEYS][KEY_MAX];
	enum record_unit key_units[RUN_KEYS];
	unsigned key_count;
	struct pfield *fields;
	size_t field_count, field_cap;
	struct prow *rows;
	size_t row_count, row_cap;
};

struct series {
	char name[96];
	double *x, *y;
	size_t count, cap;
	bool points, dashed;
};

struct plot {
	char title[160];
	struct run *runs[PLOT_MAX_RUNS];
	unsigned run_count;
	size_t field_total;
	bool truncated;
	const struct chart *chart;
	struct series series[MAX_SERIES];
	unsigned series_count;
	struct plot_passes *passes;	/* an endurance run's own chart */
};

static const struct chart *chart_for(const char *test)
{
	for (size_t i = 0; i < sizeof(charts) / sizeof(charts[0]); i++)
		for (size_t j = 0; j < 3 && charts[i].tests[j]; j++)
			if (strcmp(charts[i].tests[j], test) == 0)
				return &charts[i];
	return &generic_chart;
}

struct plot *plot_new(const char *title)
{
	struct plot *plot = calloc(1, sizeof(*plot));

	if (plot && title)
		snprintf(plot->title, sizeof(plot->title), "%s", title);
	return plot;
}

static void free_series(struct plot *plot)
{
	for (unsigned i = 0; i < plot->series_count; i++) {
		free(plot->series[i].x);
		free(plot->series[i].y);
	}
	memset(plot->series, 0, sizeof(plot->series));
	plot->series_count = 0;
}

void plot_free(struct plot *plot)
{
	if (!plot)
		return;
	for (unsigned i = 0; i < plot->run_count; i++) {
		free(plot->runs[i]->fields);
		free(plot->runs[i]->rows);
		free(plot->runs[i]);
	}
	free_series(plot);
	plot_passes_free(plot->passes);
	free(plot);
}

int plot_begin_run(struct plot *plot, const struct render_meta *meta,
		   const char *label)
{
	const char *test = meta->test ? meta->test : "program";
	struct run *run;

	if (plot->run_count == PLOT_MAX_RUNS)
		return -E2BIG;
	if ((plot->chart && plot->chart != chart_for(test)) ||
	    (plot->passes && plot->run_count))
		return -EINVAL;
	if (!strcmp(test, "surface-passes") && !plot->passes &&
	    !(plot->passes = plot_passes_new()))
		return -ENOMEM;
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	plot->chart = chart_for(test);
	snprintf(run->test, sizeof(run->test), "%s", test);
	snprintf(run->device, sizeof(run->device), "%s",
		 meta->device ? meta->device : "");
	snprintf(run->label, sizeof(run->label), "%s", label ? label : "");
	for (size_t i = 0; i < meta->param_count && i < RUN_PARAMS; i++) {
		snprintf(run->param_names[i], KEY_MAX, "%s",
			 meta->params[i].name);
		run->param_values[i] = meta->params[i].value;
		run->param_count++;
	}
	plot->runs[plot->run_count++] = run;
	return 0;
}

/* Index of key in the run's key table, added if new; -1 when full. */
static int intern_key(struct run *run, const char *key, enum record_unit unit)
{
	unsigned i;

	for (i = 0; i < run->key_count; i++)
		if (strncmp(run->keys[i], key, KEY_MAX - 1) == 0)
			return (int)i;
	if (i == RUN_KEYS)
		return -1;
	snprintf(run->keys[i], KEY_MAX, "%s", key);
	run->key_units[i] = unit;
	run->key_count++;
	return (int)i;
}

int plot_record(void *ctx, const struct record *record)
{
	struct plot *plot = ctx;
	struct run *run;
	struct prow *row;

	if (!plot->run_count)
		return 0;
	if (plot->passes)
		return plot_passes_record(plot->passes, record);
	run = plot->runs[plot->run_count - 1];
	if (plot->field_total + record->count > MAX_FIELDS) {
		plot->truncated = true;
		return 0;
	}
	if (grow_array((void **)&run->rows, &run->row_cap, run->row_count + 1,
		 sizeof(*run->rows)) ||
	    grow_array((void **)&run->fields, &run->field_cap,
		 run->field_count + record->count, sizeof(*run->fields)))
		return -ENOMEM;
	row = &run->rows[run->row_count++];
	row->first = run->field_count;
	row->count = 0;
	for (unsigned i = 0; i < record->count; i++) {
		const struct record_field *f = &record->fields[i];
		int key;

		if (f->unit == RECORD_LABEL)
			continue;
		key = intern_key(run, f->key ? f->key : "value", f->unit);
		if (key < 0)
			continue;
		run->fields[run->field_count++] = (struct pfield){
			(uint16_t)key, (uint16_t)f->unit, f->value };
		row->count++;
	}
	plot->field_total += row->count;
	return 0;
}

/* ---- from records to series ---- */

/* The nth (from 0) value of key in a row, or NAN. */
static double row_value(const struct run *run, const struct prow *row,
			int key, unsigned nth)
{
	for (unsigned i = 0; i < row->count; i++) {
		const struct pfield *f = &run->fields[row->first + i];

		if (f->key == key && nth-- == 0)
			return f->value;
	}
	return NAN;
}

static int find_key(const struct run *run, const char *key)
{
	for (unsigned i = 0; i < run->key_count; i++)
		if (strcmp(run->keys[i], key) == 0)
			return (int)i;
	return -1;
}

/* Most times key occurs in one row. */
static unsigned key_repeats(const struct run *run, int key)
{
	unsigned most = 0;

	for (size_t r = 0; r < run->row_count; r++) {
		const struct prow *row = &run->rows[r];
		unsigned n = 0;

		for (unsigned i = 0; i < row->count; i++)
			n += run->fields[row->first + i].key == key;
		if (n > most)
			most = n;
	}
	return most < MAX_REPEAT ? most : MAX_REPEAT;
}

static const char *x_key_of(const struct plot *plot)
{
	const struct run *run = plot->runs[0];

	if (plot->chart->x_key)
		return plot->chart->x_key;
	return run->key_count ? run->keys[0] : "";
}

static struct series *new_series(struct plot *plot)
{
	struct series *s;

	if (plot->series_count == MAX_SERIES)
		return NULL;
	s = &plot->series[plot->series_count++];
	s->points = plot->chart->points;
	s->dashed = plot->series_count > 10;
	return s;
}

static int add_point(struct series *s, double x, double y)
{
	if (s->count == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		double *more = realloc(s->x, cap * sizeof(double));

		if (!more)
			return -ENOMEM;
		s->x = more;
		more = realloc(s->y, cap * sizeof(double));
		if (!more)
			return -ENOMEM;
		s->y = more;
		s->cap = cap;
	}
	s->x[s->count] = x;
	s->y[s->count++] = y;
	return 0;
}

/*
 * A key as a legend shows it: without the unit its name ends in ("pre"
 * for pre_ns), since the axis says the unit.
 */
static void legend_key(const char *key, char *buf, size_t size)
{
	static const char *const units[] = { "_bytes_per_s", "_bytes", "_ns" };
	size_t len = strlen(key);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i]);

		if (len > n && strcmp(key + len - n, units[i]) == 0) {
			snprintf(buf, size, "%.*s", (int)(len - n), key);
			return;
		}
	}
	snprintf(buf, size, "%s", key);
}

static void series_name(const struct plot *plot, const struct run *run,
			const char *full_key, unsigned nth, unsigned repeats,
			unsigned keys, char *buf, size_t size)
{
	char what[64], key[KEY_MAX];

	legend_key(full_key, key, sizeof(key));
	if (repeats > 1 && plot->chart->repeat_name)
		snprintf(what, sizeof(what), "%s %u", plot->chart->repeat_name,
			 nth);
	else if (repeats > 1)
		snprintf(what, sizeof(what), "%s[%u]", key, nth);
	else
		snprintf(what, sizeof(what), "%s", key);
	if (plot->run_count == 1)
		snprintf(buf, size, "%s", what);
	else if (keys == 1 && repeats <= 1)
		snprintf(buf, size, "%s", run->label);
	else
		snprintf(buf, size, "%.31s %.63s", run->label, what);
}

/* The keys of a run drawn up the y axis. */
static unsigned y_keys_of(const struct plot *plot, const struct run *run,
			  int *keys)
{
	const struct chart *chart = plot->chart;
	int x = find_key(run, x_key_of(plot));
	unsigned n = 0;

	if (plot->run_count > 1 && chart->overlay_key) {
		keys[0] = find_key(run, chart->overlay_key);
		return keys[0] >= 0;
	}
	if (chart->y_keys[0]) {
		for (size_t i = 0; i < 5 && chart->y_keys[i]; i++)
			if ((keys[n] = find_key(run, chart->y_keys[i])) >= 0)
				n++;
		return n;
	}
	for (unsigned i = 0; i < run->key_count && n < RUN_KEYS; i++)
		if ((int)i != x)
			keys[n++] = (int)i;
	return n;
}

static int run_series(struct plot *plot, const struct run *run)
{
	int keys[RUN_KEYS], x = find_key(run, x_key_of(plot));
	unsigned count = y_keys_of(plot, run, keys);

	if (x < 0)
		return 0;
	for (unsigned k = 0; k < count; k++) {
		unsigned repeats = key_repeats(run, keys[k]);

		for (unsigned nth = 0; nth < repeats; nth++) {
			struct series *s = new_series(plot);

			if (!s)
				return 0;
			series_name(plot, run, run->keys[keys[k]], nth,
				    repeats, count, s->name, sizeof(s->name));
			for (size_t r = 0; r < run->row_count; r++) {
				double xv = row_value(run, &run->rows[r], x, 0);
				double yv = row_value(run, &run->rows[r],
						      keys[k], nth);

				if (!isfinite(xv) || !isfinite(yv) ||
				    (plot->chart->x_log && xv <= 0))
					continue;
				if (add_point(s, xv, yv))
					return -ENOMEM;
			}
		}
	}
	return 0;
}

/* The regression line of a points series, as a two-point line series. */
static int fit_series(struct plot *plot, const struct series *data)
{
	double slope, intercept, lo = INFINITY, hi = -INFINITY;
	char rate[UNITS_BUF], access[UNITS_BUF];
	struct series *s;

	if (analysis_interval_fit(data->x, data->y, data->count, &slope,
				  &intercept))
		return 0;
	s = new_series(plot);
	if (!s)
		return 0;
	for (size_t i = 0; i < data->count; i++) {
		lo = fmin(lo, data->x[i]);
		hi = fmax(hi, data->x[i]);
	}
	snprintf(s->name, sizeof(s->name), "%.40s%sfit: %s, %s access",
		 plot->run_count > 1 ? data->name : "",
		 plot->run_count > 1 ? " " : "",
		 units_format_rate(rate, slope > 0 ? 1e9 / slope : 0),
		 units_format_time(access, intercept));
	s->points = false;
	if (add_point(s, lo, intercept + slope * lo) ||
	    add_point(s, hi, intercept + slope * hi))
		return -ENOMEM;
	return 0;
}

/* Labels from the parameters in which the runs differ: "nr=7". */
static void make_labels(struct plot *plot)
{
	struct run *first = plot->runs[0];
	bool devices_differ = false;

	for (unsigned r = 1; r < plot->run_count; r++)
		devices_differ |= strcmp(plot->runs[r]->device,
					 first->device) != 0;
	for (unsigned r = 0; r < plot->run_count; r++) {
		struct run *run = plot->runs[r];
		size_t used = 0, shown = 0;

		if (run->label[0])
			continue;
		for (unsigned p = 0; p < run->param_count && shown < 2; p++) {
			bool differs = false;

			for (unsigned o = 0; o < plot->run_count; o++) {
				const struct run *other = plot->runs[o];

				differs |= o != r && (p >= other->param_count ||
					   strcmp(other->param_names[p],
						  run->param_names[p]) ||
					   other->param_values[p] !=
					   run->param_values[p]);
			}
			if (!differs || used >= sizeof(run->label))
				continue;
			used += (size_t)snprintf(run->label + used,
				sizeof(run->label) - used, "%s%s=%g",
				shown++ ? " " : "", run->param_names[p],
				run->param_values[p]);
		}
		if (run->label[0])
			continue;
		if (devices_differ)
			snprintf(run->label, sizeof(run->label), "%.63s",
				 run->device);
		else if (run->source[0])
			snprintf(run->label, sizeof(run->label), "%s",
				 run->source);
		else
			snprintf(run->label, sizeof(run->label), "run %u",
				 r + 1);
	}
}

static int build_series(struct plot *plot)
{
	free_series(plot);
	make_labels(plot);
	for (unsigned r = 0; r < plot->run_count; r++) {
		unsigned first = plot->series_count;

		if (run_series(plot, plot->runs[r]))
			return -ENOMEM;
		if (plot->chart->fit && plot->series_count > first &&
		    fit_series(plot, &plot->series[first]))
			return -ENOMEM;
	}
	return 0;
}

/* ---- axes ---- */

/* What the axes measure, from the first run's units. */
static void axis_kinds(const struct plot *plot, struct svg_axis *x,
		       struct svg_axis *y)
{
	const struct run *run = plot->runs[0];
	int keys[RUN_KEYS], key = find_key(run, x_key_of(plot));

	x->kind = key >= 0 ? svg_unit_kind(run->key_units[key]) : RECORD_COUNT;
	y->kind = y_keys_of(plot, run, keys) ?
		  svg_unit_kind(run->key_units[keys[0]]) : RECORD_COUNT;
}

/* Find the data ranges and set both axes; false when there is no data. */
static bool set_axes(const struct plot *plot, struct svg_axis *x,
		     struct svg_axis *y)
{
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY;
	double yhi = -INFINITY;

	for (unsigned i = 0; i < plot->series_count; i++) {
		const struct series *s = &plot->series[i];

		for (size_t j = 0; j < s->count; j++) {
			xlo = fmin(xlo, s->x[j]);
			xhi = fmax(xhi, s->x[j]);
			ylo = fmin(ylo, s->y[j]);
			yhi = fmax(yhi, s->y[j]);
		}
	}
	if (!(xlo <= xhi))
		return false;
	if (plot->chart->y_zero) {
		ylo = fmin(ylo, 0);
		yhi = fmax(yhi, 0);
	}
	x->log = plot->chart->x_log ||
		 (plot->chart == &generic_chart && xlo > 0 && xhi / xlo >= 64);
	if (x->log)
		svg_log_axis(x, xlo, xhi);
	else
		svg_linear_axis(x, xlo, xhi);
	svg_linear_axis(y, ylo, yhi);
	return true;
}

/* ---- SVG ---- */

static void draw_axes(const struct plot *plot, FILE *out,
		      const struct svg_axis *x, const struct svg_axis *y)
{
	const struct svg_area area = SVG_AREA;
	const struct run *run = plot->runs[0];

	svg_draw_axes(out, &area, x, y, plot->chart->x_title ?
		      plot->chart->x_title : x_key_of(plot),
		      plot->chart->y_title ? plot->chart->y_title :
		      run->key_count > 1 ? "value" : "");
}

static void draw_series(FILE *out, const struct series *s, unsigned i,
			const struct svg_axis *x, const struct svg_axis *y)
{
	const char *colour = svg_colour(i);

	if (s->points) {
		fprintf(out, "<g fill=\"%s\">\n", colour);
		for (size_t j = 0; j < s->count; j++)
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" "
				"r=\"2.5\"/>\n",
				svg_to_px(x, s->x[j], SVG_AREA_X0,
					  SVG_AREA_X1),
				svg_to_px(y, s->y[j], SVG_AREA_Y1,
					  SVG_AREA_Y0));
		fputs("</g>\n", out);
		return;
	}
	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2\"%s points=\"", colour,
		s->dashed ? " stroke-dasharray=\"6 3\"" : "");
	for (size_t j = 0; j < s->count; j++)
		fprintf(out, "%s%.1f,%.1f", j ? " " : "",
			svg_to_px(x, s->x[j], SVG_AREA_X0, SVG_AREA_X1),
			svg_to_px(y, s->y[j], SVG_AREA_Y1, SVG_AREA_Y0));
	fputs("\"/>\n", out);
}

static void draw_run_bands(FILE *out, const struct run *run,
			   const struct band *band, int x_key,
			   const struct svg_axis *x)
{
	int length = find_key(run, band->length_key);
	int marker = find_key(run, band->marker_key);

	for (size_t r = 0; length >= 0 && marker >= 0 && r < run->row_count;
	     r++) {
		const struct prow *row = &run->rows[r];
		double at = row_value(run, row, x_key, 0);
		double bytes = row_value(run, row, length, 0);
		double x0, x1;

		if (!isfinite(at) || !isfinite(bytes) ||
		    !isfinite(row_value(run, row, marker, 0)))
			continue;
		x0 = svg_to_px(x, at, SVG_AREA_X0, SVG_AREA_X1);
		x1 = svg_to_px(x, at + bytes, SVG_AREA_X0, SVG_AREA_X1);
		fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			"height=\"%d\" fill=\"#d62728\" fill-opacity=\"0.35\">"
			"<title>bad: %.0f (+%.0f)</title></rect>\n", x0,
			SVG_AREA_Y0, x1 - x0 < 1 ? 1 : x1 - x0,
			SVG_AREA_Y1 - SVG_AREA_Y0, at, bytes);
	}
}

/* The bands of the test's ranges, behind the series. */
static void draw_bands(const struct plot *plot, FILE *out,
		       const struct svg_axis *x)
{
	for (size_t b = 0; b < sizeof(bands) / sizeof(bands[0]); b++)
		for (unsigned i = 0; i < plot->run_count; i++) {
			const struct run *run = plot->runs[i];
			int x_key = find_key(run, x_key_of(plot));

			if (x_key >= 0 && !strcmp(run->test, bands[b].test))
				draw_run_bands(out, run, &bands[b], x_key, x);
		}
}

static void draw_legend(const struct plot *plot, FILE *out)
{
	unsigned shown = plot->series_count < LEGEND_ROWS ?
			 plot->series_count : LEGEND_ROWS - 1;

	for (unsigned i = 0; i < shown; i++) {
		const struct series *s = &plot->series[i];
		int ty = SVG_AREA_Y0 + 10 + 20 * (int)i;

		if (s->points)
			fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" "
				"fill=\"%s\"/>\n", SVG_LEGEND_X + 10, ty - 4,
				svg_colour(i));
		else
			fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
				"y2=\"%d\" stroke=\"%s\" stroke-width=\"2\""
				"%s/>\n", SVG_LEGEND_X, ty - 4,
				SVG_LEGEND_X + 20, ty - 4, svg_colour(i),
				s->dashed ?
				" stroke-dasharray=\"6 3\"" : "");
		svg_legend_name(out, SVG_LEGEND_X + 26, ty, s->name);
	}
	svg_legend_more(out, SVG_LEGEND_X + 26, shown, plot->series_count);
}

static void default_title(const struct plot *plot, char *buf, size_t size)
{
	const struct run *first = plot->runs[0];
	bool same_device = true;

	for (unsigned r = 1; r < plot->run_count; r++)
		same_device &= !strcmp(plot->runs[r]->device, first->device);
	if (same_device && first->device[0])
		snprintf(buf, size, "flashbench %.31s on %.100s", first->test,
			 first->device);
	else
		snprintf(buf, size, "flashbench %s", first->test);
}

int plot_write(struct plot *plot, FILE *out)
{
	struct svg_axis x = { 0 }, y = { 0 };
	char title[sizeof(plot->title)];
	bool data;

	if (plot->passes) {
		default_title(plot, title, sizeof(title));
		return plot_passes_write(plot->passes, plot->title[0] ?
					 plot->title : title, out);
	}
	if (plot->run_count && build_series(plot))
		return -ENOMEM;
	if (plot->run_count)
		axis_kinds(plot, &x, &y);
	data = plot->run_count && set_axes(plot, &x, &y);
	if (plot->title[0])
		snprintf(title, sizeof(title), "%s", plot->title);
	else if (plot->run_count)
		default_title(plot, title, sizeof(title));
	else
		snprintf(title, sizeof(title), "flashbench");
	svg_begin(out, title);
	if (data) {
		draw_axes(plot, out, &x, &y);
		draw_bands(plot, out, &x);
		/* lines first, so that points stay visible on them */
		for (unsigned i = 0; i < plot->series_count; i++)
			if (!plot->series[i].points)
				draw_series(out, &plot->series[i], i, &x, &y);
		for (unsigned i = 0; i < plot->series_count; i++)
			if (plot->series[i].points)
				draw_series(out, &plot->series[i], i, &x, &y);
		draw_legend(plot, out);
	} else {
		svg_no_data(out);
	}
	if (plot->truncated)
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\">"
			"only the first %d values are drawn</text>\n",
			SVG_AREA_X0, SVG_HEIGHT - 8, MAX_FIELDS);
	return svg_end(out);
}

/* ---- grouped bars ---- */

#define BAR_LEGEND_ROWS 20

/* A bar's own value as its label says it: "19.6M/s", "1896", "20.3". */
static void bar_value(double value, enum record_unit unit, char *buf)
{
	if (unit == RECORD_RATE)
		units_format_rate(buf, value);
	else if (unit == RECORD_BYTES)
		units_format_size(buf, value);
	else
		snprintf(buf, UNITS_BUF, fabs(value) >= 100 ? "%.0f" : "%.3g",
			 value);
}

/* The largest value of group g, or 0 when it has none above 0. */
static double group_max(const struct plot_bars *bars, unsigned g)
{
	double most = 0;

	for (unsigned s = 0; s < bars->series_count; s++) {
		double v = bars->values[g * bars->series_count + s];

		if (isfinite(v) && v > most)
			most = v;
	}
	return most;
}

static void draw_bar_group(const struct plot_bars *bars, unsigned g,
			   FILE *out)
{
	double group_px = (double)(SVG_AREA_X1 - SVG_AREA_X0) /
			  bars->group_count;
	double bar_px = group_px * 0.8 / bars->series_count;
	double x0 = SVG_AREA_X0 + g * group_px + group_px * 0.1;
	double most = group_max(bars, g);

	for (unsigned s = 0; most > 0 && s < bars->series_count; s++) {
		double v = bars->values[g * bars->series_count + s];
		double h = v / most * (SVG_AREA_Y1 - SVG_AREA_Y0);
		double x = x0 + s * bar_px;
		char label[UNITS_BUF];

		if (!isfinite(v) || v < 0)
			continue;
		bar_value(v, bars->units[g], label);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"%s\"/>\n<text transform="
			"\"translate(%.1f %.1f) rotate(-90)\" font-size=\"9\">",
			x, SVG_AREA_Y1 - h, bar_px * 0.9, h,
			svg_colour(s), x + bar_px * 0.45 + 3,
			SVG_AREA_Y1 - h - 3);
		svg_text(out, label);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
		x0 + group_px * 0.4, SVG_AREA_Y1 + 18);
	svg_text(out, bars->groups[g]);
	fputs("</text>\n", out);
}

static void draw_bar_legend(const struct plot_bars *bars, FILE *out)
{
	unsigned shown = bars->series_count < BAR_LEGEND_ROWS ?
			 bars->series_count : BAR_LEGEND_ROWS - 1;

	for (unsigned s = 0; s < shown; s++) {
		int ty = SVG_AREA_Y0 + 10 + 20 * (int)s;

		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" "
			"height=\"10\" fill=\"%s\"/>\n", SVG_LEGEND_X, ty - 9,
			svg_colour(s));
		svg_legend_name(out, SVG_LEGEND_X + 20, ty, bars->series[s]);
	}
	svg_legend_more(out, SVG_LEGEND_X + 20, shown, bars->series_count);
}

int plot_write_bars(const struct plot_bars *bars, FILE *out)
{
	bool data = false;

	for (unsigned g = 0; g < bars->group_count; g++)
		data |= group_max(bars, g) > 0;
	svg_begin(out, bars->title ? bars->title : "flashbench");
	if (data && bars->series_count) {
		svg_percent_axis(out);
		for (unsigned g = 0; g < bars->group_count; g++)
			draw_bar_group(bars, g, out);
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" "
			"height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
			SVG_AREA_X0, SVG_AREA_Y0, SVG_AREA_X1 - SVG_AREA_X0,
			SVG_AREA_Y1 - SVG_AREA_Y0);
		draw_bar_legend(bars, out);
	} else {
		svg_no_data(out);
	}
	return svg_end(out);
}

/* ---- saved runs (analysis/saved.c reads them) ---- */

/* The run's place on the chart; why not in err. */
static int begin_saved_run(struct plot *plot, const struct saved_run *saved,
			   const char *path, char *err, size_t errlen)
{
	struct render_meta meta = { .test = saved->test,
		.device = saved->device, .params = saved->params,
		.param_count = saved->param_count };
	const char *base = strrchr(path, '/');
	int ret = plot_begin_run(plot, &meta, NULL);

	if (ret == -EINVAL)
		snprintf(err, errlen, "a %s run does not go on one chart "
			 "with a %s run", meta.test, plot->runs[0]->test);
	else if (ret == -E2BIG)
		snprintf(err, errlen, "more than %d runs", PLOT_MAX_RUNS);
	else if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	if (!ret)
		snprintf(plot->runs[plot->run_count - 1]->source,
			 sizeof(plot->runs[0]->source), "%s",
			 base ? base + 1 : path);
	return ret;
}

static int load_document(struct plot *plot, const struct json_value *doc,
			 const char *path, char *err, size_t errlen)
{
	const struct record_sink sink = { plot_record, plot };
	struct saved_run saved;
	int ret;

	if (saved_run_read(doc, &saved)) {
		snprintf(err, errlen, "not a flashbench JSON document "
			 "(schema 1, 2 or 3 with \"test\" and \"results\")");
		return -EINVAL;
	}
	ret = begin_saved_run(plot, &saved, path, err, errlen);
	return ret ? ret : saved_run_records(doc, &sink, err, errlen);
}

/* A part of a saved report that has a chart (not one of its own kind). */
static const struct chart *part_chart(const struct json_value *part)
{
	const char *test = saved_string(part, "test");
	const struct json_value *results = json_get(part, "results");

	if (!test || !results || results->type != JSON_ARRAY ||
	    strcmp(test, "report") == 0)
		return NULL;
	return chart_for(test) == &generic_chart ? NULL : chart_for(test);
}

/*
 * A saved --report: each of its parts a run of its own.  Drawn are the
 * parts that go on the chart of the runs before it, else on that of its
 * first part with a chart (the align table, in the report's order), so
 * reports of several cards overlay part by part.  Each is labelled with
 * its part and file.
 */
static int load_report(struct plot *plot, const struct json_value *parts,
		       const char *path, char *err, size_t errlen)
{
	const struct chart *chart = plot->chart;
	const char *base = strrchr(path, '/');
	unsigned drawn = 0;

	for (size_t i = 0; i < parts->count; i++) {
		const struct json_value *part = &parts->items[i];
		const struct chart *c = part_chart(part);
		struct run *run;
		int ret;

		if (!c || (chart && c != chart))
			continue;
		chart = c;
		ret = load_document(plot, part, path, err, errlen);
		if (ret)
			return ret;
		run = plot->runs[plot->run_count - 1];
		snprintf(run->label, sizeof(run->label), "%.31s %.31s",
			 run->test, base ? base + 1 : path);
		drawn++;
	}
	if (!drawn)
		snprintf(err, errlen, "a saved --report with no part %s",
			 plot->chart ? "that goes on this chart" :
			 "that --plot draws (align, -t, --write-speed)");
	return drawn ? 0 : -EINVAL;
}

int plot_load_json(struct plot *plot, const char *path, char *err,
		   size_t errlen)
{
	struct json_value *doc;
	int ret = saved_run_load(path, SAVED_MAX_FILE, &doc, err, errlen);

	if (ret)
		return ret;
	if (saved_is_report(doc) && saved_number(doc, "schema") == JSON_SCHEMA)
		ret = load_report(plot, json_get(doc, "parts"), path, err,
				  errlen);
	else
		ret = load_document(plot, doc, path, err, errlen);
	json_free(doc);
	return ret;
}
