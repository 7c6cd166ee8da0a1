/*
 * plot: result records to an SVG chart, 800 pixels wide, with labelled
 * axes and a legend.  A table says how each test is drawn (which key on
 * which axis, log2 or linear, lines or points); saved JSON runs are read
 * back through json.c.  No measuring here, and no text or CSV output.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings.h"
#include "output/json.h"
#include "output/plot.h"
#include "lib/units.h"

#define KEY_MAX 32
#define RUN_KEYS 64		/* distinct keys kept per run */
#define RUN_PARAMS 32
#define MAX_FIELDS (1 << 21)	/* values kept over all runs */
#define MAX_SERIES 64
#define MAX_REPEAT 16		/* series from one repeated key */
#define LEGEND_ROWS 24

/* Canvas and plot area, in pixels. */
#define WIDTH 800
#define HEIGHT 500
#define AREA_X0 80
#define AREA_X1 590
#define AREA_Y0 50
#define AREA_Y1 420
#define LEGEND_X 605

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
	/* -t, --write-speed: one point per one-second window */
	{ { "read-speed", "write-speed" }, "second", "time (seconds)", false,
	  { "bytes_per_s" }, "throughput", NULL, NULL, false, false, true },
	/* --surface: one point per window, across the range */
	{ { "surface" }, "offset_bytes", "offset", false,
	  { "read_bytes_per_s", "write_bytes_per_s" }, "rate", NULL, NULL, false, false,
	  true },
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
};

/* An axis: data range, scale for labels, unit name. */
struct axis {
	double lo, hi;		/* in data units (log axes: exponents) */
	bool log;
	double scale;		/* linear: data units per label unit */
	const char *unit;	/* "MiB", "ms", "MB/s" or "" */
	double step;		/* linear tick step, data units */
	enum record_unit kind;
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
	free(plot);
}

int plot_begin_run(struct plot *plot, const struct report_meta *meta,
		   const char *label)
{
	const char *test = meta->test ? meta->test : "program";
	struct run *run;

	if (plot->run_count == PLOT_MAX_RUNS)
		return -E2BIG;
	if (plot->chart && plot->chart != chart_for(test))
		return -EINVAL;
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

static int grow(void **array, size_t *cap, size_t need, size_t size)
{
	void *more;
	size_t n;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap * 2 : 64;
	while (n < need)
		n *= 2;
	more = realloc(*array, n * size);
	if (!more)
		return -ENOMEM;
	*array = more;
	*cap = n;
	return 0;
}

int plot_record(void *ctx, const struct record *record)
{
	struct plot *plot = ctx;
	struct run *run;
	struct prow *row;

	if (!plot->run_count)
		return 0;
	run = plot->runs[plot->run_count - 1];
	if (plot->field_total + record->count > MAX_FIELDS) {
		plot->truncated = true;
		return 0;
	}
	if (grow((void **)&run->rows, &run->row_cap, run->row_count + 1,
		 sizeof(*run->rows)) ||
	    grow((void **)&run->fields, &run->field_cap,
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

static enum record_unit unit_kind(enum record_unit unit)
{
	switch (unit) {
	case RECORD_BYTES:
	case RECORD_TIME:
	case RECORD_RATE:
		return unit;
	default:
		return RECORD_COUNT;
	}
}

struct scale {
	double scale;
	const char *name;
};

/* A label unit for values up to max: "MiB", "ms", "MB/s". */
static void choose_scale(struct axis *axis, double max)
{
	static const struct scale sizes[] = {
		{ 1, "bytes" }, { 1024.0, "KiB" }, { 1048576.0, "MiB" },
		{ 1073741824.0, "GiB" },
	}, times[] = {
		{ 1, "ns" }, { 1e3, "\xc2\xb5s" }, { 1e6, "ms" }, { 1e9, "s" },
	}, rates[] = {
		{ 1, "B/s" }, { 1e3, "kB/s" }, { 1e6, "MB/s" }, { 1e9, "GB/s" },
	};
	const struct scale *table = sizes;
	size_t i = 0;

	axis->scale = 1;
	axis->unit = "";
	if (axis->kind == RECORD_COUNT)
		return;
	if (axis->kind == RECORD_TIME)
		table = times;
	else if (axis->kind == RECORD_RATE)
		table = rates;
	while (i + 1 < 4 && max >= table[i + 1].scale)
		i++;
	axis->scale = table[i].scale;
	axis->unit = table[i].name;
}

/* Ticks at 1, 2 or 5 x 10^n of the label unit, about six of them. */
static void linear_axis(struct axis *axis, double lo, double hi)
{
	double raw, magnitude, step;

	if (!(hi > lo)) {
		double pad = fabs(lo) > 0 ? fabs(lo) * 0.1 : 1;

		lo -= pad;
		hi += pad;
	}
	choose_scale(axis, fmax(fabs(lo), fabs(hi)));
	raw = (hi - lo) / axis->scale / 6;
	magnitude = pow(10, floor(log10(raw)));
	step = magnitude;
	if (raw / magnitude > 5)
		step = 10 * magnitude;
	else if (raw / magnitude > 2)
		step = 5 * magnitude;
	else if (raw / magnitude > 1)
		step = 2 * magnitude;
	axis->step = step * axis->scale;
	axis->lo = floor(lo / axis->step) * axis->step;
	axis->hi = ceil(hi / axis->step) * axis->step;
}

static void log_axis(struct axis *axis, double lo, double hi)
{
	axis->lo = floor(log2(lo));
	axis->hi = ceil(log2(hi));
	if (axis->hi <= axis->lo) {
		axis->lo -= 1;
		axis->hi += 1;
	}
	axis->step = ceil((axis->hi - axis->lo) / 10);
	choose_scale(axis, 0);
}

static double to_px(const struct axis *axis, double value, double p0,
		    double p1)
{
	double v = axis->log ? log2(value) : value;

	return p0 + (v - axis->lo) / (axis->hi - axis->lo) * (p1 - p0);
}

/* What the axes measure, from the first run's units. */
static void axis_kinds(const struct plot *plot, struct axis *x,
		       struct axis *y)
{
	const struct run *run = plot->runs[0];
	int keys[RUN_KEYS], key = find_key(run, x_key_of(plot));

	x->kind = key >= 0 ? unit_kind(run->key_units[key]) : RECORD_COUNT;
	y->kind = y_keys_of(plot, run, keys) ?
		  unit_kind(run->key_units[keys[0]]) : RECORD_COUNT;
}

/* Find the data ranges and set both axes; false when there is no data. */
static bool set_axes(const struct plot *plot, struct axis *x,
		     struct axis *y)
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
		log_axis(x, xlo, xhi);
	else
		linear_axis(x, xlo, xhi);
	linear_axis(y, ylo, yhi);
	return true;
}

/* ---- SVG ---- */

/* XML text: markup characters escaped, anything not UTF-8 as '?'. */
static void svg_text(FILE *out, const char *text)
{
	while (*text) {
		size_t n = json_utf8_length(text);
		unsigned char c = (unsigned char)*text;

		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (n == 0 || (c < 0x20 && c != '\t') || c == 0x7f)
			fputc('?', out);
		else
			fwrite(text, 1, n, out);
		text += n ? n : 1;
	}
}

/* The document's start: canvas, white background and the title. */
static void svg_begin(FILE *out, const char *title)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
		"<text x=\"%d\" y=\"30\" text-anchor=\"middle\" "
		"font-size=\"16\">", WIDTH, HEIGHT, WIDTH, HEIGHT, WIDTH,
		HEIGHT, WIDTH / 2);
	svg_text(out, title);
	fputs("</text>\n", out);
}

static int svg_end(FILE *out)
{
	fputs("</svg>\n", out);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
};

#define COLOURS (sizeof(colours) / sizeof(colours[0]))

static void tick_label(const struct axis *axis, double v, char *buf)
{
	if (axis->log && axis->kind == RECORD_BYTES) {
		units_format_size(buf, exp2(v));
		return;
	}
	if (axis->log) {
		snprintf(buf, UNITS_BUF, "%g", exp2(v));
		return;
	}
	/* round away float noise such as 0.30000000000000004 */
	v = round(v / axis->step) * axis->step / axis->scale;
	snprintf(buf, UNITS_BUF, "%.6g", v == 0 ? 0 : v);
}

static void axis_title(const struct axis *axis, const char *title,
		       char *buf, size_t size)
{
	if (axis->log)
		snprintf(buf, size, "%s (log2 scale)", title);
	else if (axis->unit[0])
		snprintf(buf, size, "%s (%s)", title, axis->unit);
	else
		snprintf(buf, size, "%s", title);
}

static void draw_axes(const struct plot *plot, FILE *out,
		      const struct axis *x, const struct axis *y)
{
	const struct run *run = plot->runs[0];
	char label[UNITS_BUF], title[128];
	double v;

	for (v = x->lo; v <= x->hi + x->step / 2; v += x->step) {
		double px = to_px(x, x->log ? exp2(v) : v, AREA_X0, AREA_X1);

		tick_label(x, v, label);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%d\" stroke=\"#ddd\"/>\n<text x=\"%.1f\" "
			"y=\"%d\" text-anchor=\"middle\">", px, AREA_Y0, px,
			AREA_Y1, px, AREA_Y1 + 18);
		svg_text(out, label);
		fputs("</text>\n", out);
	}
	for (v = y->lo; v <= y->hi + y->step / 2; v += y->step) {
		double py = to_px(y, v, AREA_Y1, AREA_Y0);

		tick_label(y, v, label);
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			"y2=\"%.1f\" stroke=\"%s\"/>\n<text x=\"%d\" "
			"y=\"%.1f\" text-anchor=\"end\">", AREA_X0, py,
			AREA_X1, py, fabs(v) < y->step / 2 ? "#888" : "#ddd",
			AREA_X0 - 6, py + 4);
		svg_text(out, label);
		fputs("</text>\n", out);
	}
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#000\"/>\n", AREA_X0, AREA_Y0,
		AREA_X1 - AREA_X0, AREA_Y1 - AREA_Y0);
	axis_title(x, plot->chart->x_title ? plot->chart->x_title :
		   x_key_of(plot), title, sizeof(title));
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"font-size=\"14\">", (AREA_X0 + AREA_X1) / 2, AREA_Y1 + 44);
	svg_text(out, title);
	axis_title(y, plot->chart->y_title ? plot->chart->y_title :
		   (run->key_count > 1 ? "value" : ""), title, sizeof(title));
	fprintf(out, "</text>\n<text transform=\"translate(22 %d) "
		"rotate(-90)\" text-anchor=\"middle\" font-size=\"14\">",
		(AREA_Y0 + AREA_Y1) / 2);
	svg_text(out, title);
	fputs("</text>\n", out);
}

static void draw_series(FILE *out, const struct series *s, unsigned i,
			const struct axis *x, const struct axis *y)
{
	const char *colour = colours[i % COLOURS];

	if (s->points) {
		fprintf(out, "<g fill=\"%s\">\n", colour);
		for (size_t j = 0; j < s->count; j++)
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" "
				"r=\"2.5\"/>\n",
				to_px(x, s->x[j], AREA_X0, AREA_X1),
				to_px(y, s->y[j], AREA_Y1, AREA_Y0));
		fputs("</g>\n", out);
		return;
	}
	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2\"%s points=\"", colour,
		s->dashed ? " stroke-dasharray=\"6 3\"" : "");
	for (size_t j = 0; j < s->count; j++)
		fprintf(out, "%s%.1f,%.1f", j ? " " : "",
			to_px(x, s->x[j], AREA_X0, AREA_X1),
			to_px(y, s->y[j], AREA_Y1, AREA_Y0));
	fputs("\"/>\n", out);
}

static void draw_run_bands(FILE *out, const struct run *run,
			   const struct band *band, int x_key,
			   const struct axis *x)
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
		x0 = to_px(x, at, AREA_X0, AREA_X1);
		x1 = to_px(x, at + bytes, AREA_X0, AREA_X1);
		fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			"height=\"%d\" fill=\"#d62728\" fill-opacity=\"0.35\">"
			"<title>bad: %.0f (+%.0f)</title></rect>\n", x0, AREA_Y0,
			x1 - x0 < 1 ? 1 : x1 - x0, AREA_Y1 - AREA_Y0, at,
			bytes);
	}
}

/* The bands of the test's ranges, behind the series. */
static void draw_bands(const struct plot *plot, FILE *out,
		       const struct axis *x)
{
	for (size_t b = 0; b < sizeof(bands) / sizeof(bands[0]); b++)
		for (unsigned i = 0; i < plot->run_count; i++) {
			const struct run *run = plot->runs[i];
			int x_key = find_key(run, x_key_of(plot));

			if (x_key >= 0 && !strcmp(run->test, bands[b].test))
				draw_run_bands(out, run, &bands[b], x_key, x);
		}
}

/* A legend entry's name at (x, y): 31 bytes fit beside the chart. */
static void legend_name(FILE *out, int x, int y, const char *text)
{
	char name[32];

	snprintf(name, sizeof(name), "%.31s", text);
	fprintf(out, "<text x=\"%d\" y=\"%d\">", x, y);
	svg_text(out, name);
	fputs("</text>\n", out);
}

/* "... N more" in row shown, when not every entry fits. */
static void legend_more(FILE *out, int x, unsigned shown, unsigned count)
{
	if (shown < count)
		fprintf(out, "<text x=\"%d\" y=\"%d\">... %u more</text>\n",
			x, AREA_Y0 + 10 + 20 * (int)shown, count - shown);
}

static void draw_legend(const struct plot *plot, FILE *out)
{
	unsigned shown = plot->series_count < LEGEND_ROWS ?
			 plot->series_count : LEGEND_ROWS - 1;

	for (unsigned i = 0; i < shown; i++) {
		const struct series *s = &plot->series[i];
		int ty = AREA_Y0 + 10 + 20 * (int)i;

		if (s->points)
			fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" "
				"fill=\"%s\"/>\n", LEGEND_X + 10, ty - 4,
				colours[i % COLOURS]);
		else
			fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
				"y2=\"%d\" stroke=\"%s\" stroke-width=\"2\""
				"%s/>\n", LEGEND_X, ty - 4, LEGEND_X + 20,
				ty - 4, colours[i % COLOURS], s->dashed ?
				" stroke-dasharray=\"6 3\"" : "");
		legend_name(out, LEGEND_X + 26, ty, s->name);
	}
	legend_more(out, LEGEND_X + 26, shown, plot->series_count);
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
	struct axis x = { 0 }, y = { 0 };
	char title[sizeof(plot->title)];
	bool data;

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
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
			"no data to plot</text>\n", WIDTH / 2, HEIGHT / 2);
	}
	if (plot->truncated)
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\">"
			"only the first %d values are drawn</text>\n",
			AREA_X0, HEIGHT - 8, MAX_FIELDS);
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

/* The y axis: 0 to 100% of each group's largest value. */
static void draw_percent_axis(FILE *out)
{
	for (int pct = 0; pct <= 100; pct += 20) {
		double py = AREA_Y1 - pct / 100.0 * (AREA_Y1 - AREA_Y0);

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			"y2=\"%.1f\" stroke=\"%s\"/>\n<text x=\"%d\" "
			"y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n",
			AREA_X0, py, AREA_X1, py, pct ? "#ddd" : "#888",
			AREA_X0 - 6, py + 4, pct);
	}
	fprintf(out, "<text transform=\"translate(22 %d) rotate(-90)\" "
		"text-anchor=\"middle\" font-size=\"14\">percent of the "
		"best</text>\n", (AREA_Y0 + AREA_Y1) / 2);
}

static void draw_bar_group(const struct plot_bars *bars, unsigned g,
			   FILE *out)
{
	double group_px = (double)(AREA_X1 - AREA_X0) / bars->group_count;
	double bar_px = group_px * 0.8 / bars->series_count;
	double x0 = AREA_X0 + g * group_px + group_px * 0.1;
	double most = group_max(bars, g);

	for (unsigned s = 0; most > 0 && s < bars->series_count; s++) {
		double v = bars->values[g * bars->series_count + s];
		double h = v / most * (AREA_Y1 - AREA_Y0);
		double x = x0 + s * bar_px;
		char label[UNITS_BUF];

		if (!isfinite(v) || v < 0)
			continue;
		bar_value(v, bars->units[g], label);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"%s\"/>\n<text transform="
			"\"translate(%.1f %.1f) rotate(-90)\" font-size=\"9\">",
			x, AREA_Y1 - h, bar_px * 0.9, h,
			colours[s % COLOURS], x + bar_px * 0.45 + 3,
			AREA_Y1 - h - 3);
		svg_text(out, label);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
		x0 + group_px * 0.4, AREA_Y1 + 18);
	svg_text(out, bars->groups[g]);
	fputs("</text>\n", out);
}

static void draw_bar_legend(const struct plot_bars *bars, FILE *out)
{
	unsigned shown = bars->series_count < BAR_LEGEND_ROWS ?
			 bars->series_count : BAR_LEGEND_ROWS - 1;

	for (unsigned s = 0; s < shown; s++) {
		int ty = AREA_Y0 + 10 + 20 * (int)s;

		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" "
			"height=\"10\" fill=\"%s\"/>\n", LEGEND_X, ty - 9,
			colours[s % COLOURS]);
		legend_name(out, LEGEND_X + 20, ty, bars->series[s]);
	}
	legend_more(out, LEGEND_X + 20, shown, bars->series_count);
}

int plot_write_bars(const struct plot_bars *bars, FILE *out)
{
	bool data = false;

	for (unsigned g = 0; g < bars->group_count; g++)
		data |= group_max(bars, g) > 0;
	svg_begin(out, bars->title ? bars->title : "flashbench");
	if (data && bars->series_count) {
		draw_percent_axis(out);
		for (unsigned g = 0; g < bars->group_count; g++)
			draw_bar_group(bars, g, out);
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" "
			"height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
			AREA_X0, AREA_Y0, AREA_X1 - AREA_X0,
			AREA_Y1 - AREA_Y0);
		draw_bar_legend(bars, out);
	} else {
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
			"no data to plot</text>\n", WIDTH / 2, HEIGHT / 2);
	}
	return svg_end(out);
}

/* ---- saved runs ---- */

static enum record_unit unit_from_name(const struct json_value *units,
				   const char *key)
{
	const struct json_value *u = json_get(units, key);

	if (!u || u->type != JSON_STRING)
		return RECORD_COUNT;
	if (!strcmp(u->string, "bytes"))
		return RECORD_BYTES;
	if (!strcmp(u->string, "ns"))
		return RECORD_TIME;
	if (!strcmp(u->string, "bytes/s"))
		return RECORD_RATE;
	return RECORD_COUNT;
}

static void add_value(struct record *rec, const char *key,
		      enum record_unit unit, const struct json_value *v)
{
	if (rec->count == RECORD_MAX_FIELDS)
		return;
	if (v->type != JSON_NUMBER && v->type != JSON_NULL)
		return;
	rec->fields[rec->count++] = (struct record_field){ .unit = unit,
		.key = key, .value = v->type == JSON_NUMBER ? v->number : NAN };
}

/*
 * The schema-3 name of a key the built-in tests' records had before
 * schema 3, which named no units: a saved run plots as a new one.
 */
static const char *schema3_key(const char *key)
{
	static const char *const renamed[][2] = {
		{ "align", "align_bytes" }, { "pre", "pre_ns" },
		{ "on", "on_ns" }, { "post", "post_ns" },
		{ "diff", "diff_ns" }, { "block", "block_bytes" },
		{ "rate", "bytes_per_s" }, { "offset", "offset_bytes" },
		{ "time", "time_ns" }, { "length", "length_bytes" },
		{ "min", "min_ns" }, { "avg", "avg_ns" }, { "max", "max_ns" },
		{ "access", "access_ns" }, { "overhead", "overhead_ns" },
	};

	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (strcmp(key, renamed[i][0]) == 0)
			return renamed[i][1];
	return key;
}

/*
 * One element of "results": numbers, arrays of them, labels skipped.
 * renamed: a built-in test's record of schema 1 or 2, its keys renamed.
 */
static int load_result(struct plot *plot, const struct json_value *result,
		       const struct json_value *units, bool renamed)
{
	struct record rec = { .count = 0 };

	if (result->type != JSON_OBJECT)
		return -EINVAL;
	for (size_t i = 0; i < result->count; i++) {
		const struct json_value *m = &result->items[i];
		enum record_unit unit = unit_from_name(units, m->key);
		const char *key = renamed ? schema3_key(m->key) : m->key;

		if (m->type != JSON_ARRAY) {
			add_value(&rec, key, unit, m);
			continue;
		}
		for (size_t j = 0; j < m->count; j++)
			add_value(&rec, key, unit, &m->items[j]);
	}
	return plot_record(plot, &rec);
}

static int load_report(struct plot *plot, const struct json_value *parts,
		       const char *path, char *err, size_t errlen);

static int load_document(struct plot *plot, const struct json_value *doc,
			 const char *path, char *err, size_t errlen)
{
	const struct json_value *schema = json_get(doc, "schema");
	const struct json_value *test = json_get(doc, "test");
	const struct json_value *device = json_get(json_get(doc, "device"),
						    "path");
	const struct json_value *params = json_get(doc, "parameters");
	const struct json_value *results = json_get(doc, "results");
	const struct json_value *units = json_get(doc, "units");
	struct vm_param p[RUN_PARAMS];
	struct report_meta meta = { .params = p };
	const char *base = strrchr(path, '/');
	struct run *run;
	int err_code;

	if (schema && schema->type == JSON_NUMBER &&
	    schema->number == JSON_SCHEMA && test && test->type == JSON_STRING &&
	    strcmp(test->string, "report") == 0 &&
	    json_get(doc, "parts") && json_get(doc, "parts")->type == JSON_ARRAY)
		return load_report(plot, json_get(doc, "parts"), path, err,
				   errlen);
	/* schema 1 and 2 documents, saved before version 3, plot the same */
	if (!schema || schema->type != JSON_NUMBER ||
	    (schema->number != 1 && schema->number != 2 &&
	     schema->number != JSON_SCHEMA) ||
	    !test || test->type != JSON_STRING || !results ||
	    results->type != JSON_ARRAY) {
		snprintf(err, errlen, "not a flashbench JSON document "
			 "(schema 1, 2 or 3 with \"test\" and \"results\")");
		return -EINVAL;
	}
	meta.test = test->string;
	meta.device = device && device->type == JSON_STRING ?
		      device->string : NULL;
	for (size_t i = 0; params && params->type == JSON_OBJECT &&
	     i < params->count && meta.param_count < RUN_PARAMS; i++)
		if (params->items[i].type == JSON_NUMBER ||
		    params->items[i].type == JSON_BOOL)
			p[meta.param_count++] = (struct vm_param){
				params->items[i].key,
				params->items[i].number };
	err_code = plot_begin_run(plot, &meta, NULL);
	if (err_code == -EINVAL)
		snprintf(err, errlen, "a %s run does not go on one chart "
			 "with a %s run", meta.test, plot->runs[0]->test);
	else if (err_code == -E2BIG)
		snprintf(err, errlen, "more than %d runs", PLOT_MAX_RUNS);
	else if (err_code)
		snprintf(err, errlen, "%s", strerror(-err_code));
	if (err_code)
		return err_code;
	run = plot->runs[plot->run_count - 1];
	snprintf(run->source, sizeof(run->source), "%s",
		 base ? base + 1 : path);
	for (size_t i = 0; i < results->count; i++) {
		err_code = load_result(plot, &results->items[i], units,
				       schema->number < 3 &&
				       strcmp(meta.test, "program") != 0);
		if (err_code) {
			snprintf(err, errlen, "result %zu: %s", i + 1,
				 err_code == -EINVAL ? "not an object" :
				 strerror(-err_code));
			return err_code;
		}
	}
	return 0;
}

/* A part of a saved report that has a chart (not one of its own kind). */
static const struct chart *part_chart(const struct json_value *part)
{
	const struct json_value *test = json_get(part, "test");
	const struct json_value *results = json_get(part, "results");

	if (!test || test->type != JSON_STRING || !results ||
	    results->type != JSON_ARRAY || strcmp(test->string, "report") == 0)
		return NULL;
	return chart_for(test->string) == &generic_chart ? NULL :
	       chart_for(test->string);
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
	int ret = json_read_file(path, PLOT_MAX_FILE, &doc, err, errlen);

	if (ret)
		return ret;
	ret = load_document(plot, doc, path, err, errlen);
	json_free(doc);
	return ret;
}
