/*
 * svg: the canvas every chart is drawn on - the document's start and
 * end, text escaped for XML, the colours, the legend's rows and the
 * axes (their units, ticks and titles).  What is drawn is plot.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/jsonparse.h"
#include "lib/units.h"
#include "output/svg.h"

enum record_unit svg_unit_kind(enum record_unit unit)
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
static void choose_scale(struct svg_axis *axis, double max)
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
void svg_linear_axis(struct svg_axis *axis, double lo, double hi)
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

void svg_log_axis(struct svg_axis *axis, double lo, double hi)
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

double svg_to_px(const struct svg_axis *axis, double value, double p0,
		 double p1)
{
	double v = axis->log ? log2(value) : value;

	return p0 + (v - axis->lo) / (axis->hi - axis->lo) * (p1 - p0);
}

/* XML text: markup characters escaped, anything not UTF-8 as '?'. */
void svg_text(FILE *out, const char *text)
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
void svg_begin_height(FILE *out, const char *title, int height)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
		"<text x=\"%d\" y=\"30\" text-anchor=\"middle\" "
		"font-size=\"16\">", SVG_WIDTH, height, SVG_WIDTH,
		height, SVG_WIDTH, height, SVG_WIDTH / 2);
	svg_text(out, title);
	fputs("</text>\n", out);
}

void svg_begin(FILE *out, const char *title)
{
	svg_begin_height(out, title, SVG_HEIGHT);
}

static void x_ticks(FILE *out, const struct svg_area *a,
		    const struct svg_axis *x)
{
	char label[UNITS_BUF];

	for (double v = x->lo; v <= x->hi + x->step / 2; v += x->step) {
		double px = svg_to_px(x, x->log ? exp2(v) : v, a->x0, a->x1);

		svg_tick_label(x, v, label);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%d\" stroke=\"#ddd\"/>\n<text x=\"%.1f\" "
			"y=\"%d\" text-anchor=\"middle\">", px, a->y0, px,
			a->y1, px, a->y1 + 18);
		svg_text(out, label);
		fputs("</text>\n", out);
	}
}

static void y_ticks(FILE *out, const struct svg_area *a,
		    const struct svg_axis *y)
{
	char label[UNITS_BUF];

	for (double v = y->lo; v <= y->hi + y->step / 2; v += y->step) {
		double py = svg_to_px(y, v, a->y1, a->y0);

		svg_tick_label(y, v, label);
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			"y2=\"%.1f\" stroke=\"%s\"/>\n<text x=\"%d\" "
			"y=\"%.1f\" text-anchor=\"end\">", a->x0, py, a->x1,
			py, fabs(v) < y->step / 2 ? "#888" : "#ddd",
			a->x0 - 6, py + 4);
		svg_text(out, label);
		fputs("</text>\n", out);
	}
}

void svg_draw_axes(FILE *out, const struct svg_area *area,
		   const struct svg_axis *x, const struct svg_axis *y,
		   const char *x_title, const char *y_title)
{
	char title[128];

	x_ticks(out, area, x);
	y_ticks(out, area, y);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#000\"/>\n", area->x0, area->y0,
		area->x1 - area->x0, area->y1 - area->y0);
	if (x_title) {
		svg_axis_title(x, x_title, title, sizeof(title));
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			"font-size=\"14\">", (area->x0 + area->x1) / 2,
			area->y1 + 44);
		svg_text(out, title);
		fputs("</text>\n", out);
	}
	if (y_title) {
		svg_axis_title(y, y_title, title, sizeof(title));
		fprintf(out, "<text transform=\"translate(22 %d) "
			"rotate(-90)\" text-anchor=\"middle\" "
			"font-size=\"14\">", (area->y0 + area->y1) / 2);
		svg_text(out, title);
		fputs("</text>\n", out);
	}
}

int svg_end(FILE *out)
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

const char *svg_colour(unsigned i)
{
	return colours[i % COLOURS];
}

void svg_tick_label(const struct svg_axis *axis, double v, char *buf)
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

void svg_axis_title(const struct svg_axis *axis, const char *title,
		       char *buf, size_t size)
{
	if (axis->log)
		snprintf(buf, size, "%s (log2 scale)", title);
	else if (axis->unit[0])
		snprintf(buf, size, "%s (%s)", title, axis->unit);
	else
		snprintf(buf, size, "%s", title);
}

/* A legend entry's name at (x, y): 31 bytes fit beside the chart. */
void svg_legend_name(FILE *out, int x, int y, const char *text)
{
	char name[32];

	snprintf(name, sizeof(name), "%.31s", text);
	fprintf(out, "<text x=\"%d\" y=\"%d\">", x, y);
	svg_text(out, name);
	fputs("</text>\n", out);
}

/* "... N more" in row shown, when not every entry fits. */
void svg_legend_more(FILE *out, int x, unsigned shown, unsigned count)
{
	if (shown < count)
		fprintf(out, "<text x=\"%d\" y=\"%d\">... %u more</text>\n",
			x, SVG_AREA_Y0 + 10 + 20 * (int)shown, count - shown);
}

/* The y axis: 0 to 100% of each group's largest value. */
void svg_percent_axis(FILE *out)
{
	for (int pct = 0; pct <= 100; pct += 20) {
		double py = SVG_AREA_Y1 -
			    pct / 100.0 * (SVG_AREA_Y1 - SVG_AREA_Y0);

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			"y2=\"%.1f\" stroke=\"%s\"/>\n<text x=\"%d\" "
			"y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n",
			SVG_AREA_X0, py, SVG_AREA_X1, py, pct ? "#ddd" : "#888",
			SVG_AREA_X0 - 6, py + 4, pct);
	}
	fprintf(out, "<text transform=\"translate(22 %d) rotate(-90)\" "
		"text-anchor=\"middle\" font-size=\"14\">percent of the "
		"best</text>\n", (SVG_AREA_Y0 + SVG_AREA_Y1) / 2);
}

/* A chart with nothing to draw says so, mid-canvas. */
void svg_no_data(FILE *out)
{
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
		"no data to plot</text>\n", SVG_WIDTH / 2, SVG_HEIGHT / 2);
}
