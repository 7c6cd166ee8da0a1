/*
 * svg: the canvas of every chart flashbench draws (--plot's lines and
 * points, --compare's bars): 800 by 500 pixels, a plot area with axes on
 * the left and the legend on the right.
 */
#ifndef FLASHBENCH_SVG_H
#define FLASHBENCH_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/record.h"

/* Canvas and plot area, in pixels. */
#define SVG_WIDTH 800
#define SVG_HEIGHT 500
#define SVG_AREA_X0 80
#define SVG_AREA_X1 590
#define SVG_AREA_Y0 50
#define SVG_AREA_Y1 420
#define SVG_LEGEND_X 605

/* An axis: data range, scale for labels, unit name. */
struct svg_axis {
	double lo, hi;		/* in data units (log axes: exponents) */
	bool log;
	double scale;		/* linear: data units per label unit */
	const char *unit;	/* "MiB", "ms", "MB/s" or "" */
	double step;		/* linear tick step, data units */
	enum record_unit kind;
};

/* What an axis of values in unit measures: bytes, time, rate or count. */
enum record_unit svg_unit_kind(enum record_unit unit);
/* Ticks at 1, 2 or 5 x 10^n of the label unit, about six of them. */
void svg_linear_axis(struct svg_axis *axis, double lo, double hi);
/* A log2 axis from lo to hi (both above 0), about ten ticks. */
void svg_log_axis(struct svg_axis *axis, double lo, double hi);
/* value's pixel between p0 (the axis's lo) and p1 (its hi). */
double svg_to_px(const struct svg_axis *axis, double value, double p0,
		 double p1);
/* The label of tick v (UNITS_BUF bytes at buf). */
void svg_tick_label(const struct svg_axis *axis, double v, char *buf);
/* "title (MiB)", "title (log2 scale)" or the title alone. */
void svg_axis_title(const struct svg_axis *axis, const char *title,
		    char *buf, size_t size);

/* XML text: markup characters escaped, anything not UTF-8 as '?'. */
void svg_text(FILE *out, const char *text);
/* The document's start: canvas, white background and the title. */
void svg_begin(FILE *out, const char *title);
/* The same on a canvas height pixels high (a chart of several areas). */
void svg_begin_height(FILE *out, const char *title, int height);

/* A plot area, in pixels: x0 left, x1 right, y0 top, y1 bottom. */
struct svg_area {
	int x0, x1, y0, y1;
};

/* The chart's one area beside the legend. */
#define SVG_AREA { SVG_AREA_X0, SVG_AREA_X1, SVG_AREA_Y0, SVG_AREA_Y1 }

/*
 * An area's grid, tick labels and frame, and its axes' titles (NULL:
 * none; they take the axis's unit).
 */
void svg_draw_axes(FILE *out, const struct svg_area *area,
		   const struct svg_axis *x, const struct svg_axis *y,
		   const char *x_title, const char *y_title);
/* The document's end; 0, or -EIO when out failed. */
int svg_end(FILE *out);
/* The colour of series i, ten in turn. */
const char *svg_colour(unsigned i);
/* A legend entry's name at (x, y): 31 bytes fit beside the chart. */
void svg_legend_name(FILE *out, int x, int y, const char *text);
/* "... N more" in row shown, when not every entry fits. */
void svg_legend_more(FILE *out, int x, unsigned shown, unsigned count);
/* The y axis: 0 to 100% of each group's largest value (bars). */
void svg_percent_axis(FILE *out);
/* "no data to plot", mid-canvas. */
void svg_no_data(FILE *out);

#endif
