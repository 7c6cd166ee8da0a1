/*
 * plotpasses: an endurance run's chart (plotpasses.h), three areas one
 * above the other on one pass axis: the write and read rates (median,
 * with a bar from the slowest window to the fastest), the bad blocks
 * (new in each pass as bars, in all as a line), and the map - each range
 * of blocks that went bad, drawn at its pass across the range's
 * offsets, named in a tooltip.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/grow.h"
#include "output/plotpasses.h"
#include "output/svg.h"

#define HEIGHT 720
#define MAP_COLOUR "#d62728"

struct pass_point {
	double pass, write[3], read[3], total, fresh;
};

struct map_range {
	double pass, offset, length;
};

struct plot_passes {
	struct pass_point *points;
	size_t point_count, point_cap;
	struct map_range *ranges;
	size_t range_count, range_cap;
	double start, end;		/* the range; NAN until the summary */
};

static const struct svg_area rates_area = { SVG_AREA_X0, SVG_AREA_X1, 50,
					    210 };
static const struct svg_area bad_area = { SVG_AREA_X0, SVG_AREA_X1, 255,
					  395 };
static const struct svg_area map_area = { SVG_AREA_X0, SVG_AREA_X1, 440,
					  640 };

struct plot_passes *plot_passes_new(void)
{
	struct plot_passes *pp = calloc(1, sizeof(*pp));

	if (pp)
		pp->start = pp->end = NAN;
	return pp;
}

void plot_passes_free(struct plot_passes *pp)
{
	if (!pp)
		return;
	free(pp->points);
	free(pp->ranges);
	free(pp);
}

static double get(const struct record *rec, const char *key)
{
	const struct record_field *f = record_get(rec, key);

	return f ? f->value : NAN;
}

static int add_point(struct plot_passes *pp, const struct record *rec)
{
	static const char *const writes[3] = { "write_min_bytes_per_s",
		"write_median_bytes_per_s", "write_max_bytes_per_s" };
	static const char *const reads[3] = { "read_min_bytes_per_s",
		"read_median_bytes_per_s", "read_max_bytes_per_s" };
	struct pass_point *p;

	if (grow_array((void **)&pp->points, &pp->point_cap,
		       pp->point_count + 1, sizeof(*pp->points)))
		return -ENOMEM;
	p = &pp->points[pp->point_count++];
	p->pass = get(rec, "pass");
	for (int i = 0; i < 3; i++) {
		p->write[i] = get(rec, writes[i]);
		p->read[i] = get(rec, reads[i]);
	}
	p->total = get(rec, "total_bad_blocks");
	p->fresh = get(rec, "new_bad_blocks");
	return 0;
}

int plot_passes_record(struct plot_passes *pp, const struct record *rec)
{
	double pass = get(rec, "pass");

	if (record_get(rec, "passes") && record_get(rec, "start_bytes")) {
		pp->start = get(rec, "start_bytes");
		pp->end = get(rec, "end_bytes");
		return 0;
	}
	if (!isfinite(pass))
		return 0;
	if (record_get(rec, "total_bad_blocks"))
		return add_point(pp, rec);
	if (!record_get(rec, "offset_bytes") ||
	    !record_get(rec, "length_bytes"))
		return 0;
	if (grow_array((void **)&pp->ranges, &pp->range_cap,
		       pp->range_count + 1, sizeof(*pp->ranges)))
		return -ENOMEM;
	pp->ranges[pp->range_count++] = (struct map_range){ pass,
		get(rec, "offset_bytes"), get(rec, "length_bytes") };
	return 0;
}

/* ---- drawing ---- */

static double x_px(const struct svg_axis *x, double pass)
{
	return svg_to_px(x, pass, SVG_AREA_X0, SVG_AREA_X1);
}

static double y_px(const struct svg_axis *y, const struct svg_area *a,
		   double v)
{
	return svg_to_px(y, v, a->y1, a->y0);
}

/* One series of the rates: the medians' line, each pass's spread. */
static void draw_rate(FILE *out, const struct plot_passes *pp,
		      const struct svg_axis *x, const struct svg_axis *y,
		      bool writes, unsigned colour)
{
	bool first = true;

	fprintf(out, "<g stroke=\"%s\" stroke-opacity=\"0.4\">\n",
		svg_colour(colour));
	for (size_t i = 0; i < pp->point_count; i++) {
		const double *v = writes ? pp->points[i].write :
				  pp->points[i].read;

		if (isfinite(v[0]) && isfinite(v[2]))
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\"/>\n", x_px(x, pp->points[i].pass),
				y_px(y, &rates_area, v[0]),
				x_px(x, pp->points[i].pass),
				y_px(y, &rates_area, v[2]));
	}
	fprintf(out, "</g>\n<polyline fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2\" points=\"", svg_colour(colour));
	for (size_t i = 0; i < pp->point_count; i++) {
		double median = writes ? pp->points[i].write[1] :
				pp->points[i].read[1];

		if (!isfinite(median))
			continue;
		fprintf(out, "%s%.1f,%.1f", first ? "" : " ",
			x_px(x, pp->points[i].pass),
			y_px(y, &rates_area, median));
		first = false;
	}
	fputs("\"/>\n", out);
}

static void draw_rates(FILE *out, const struct plot_passes *pp,
		       const struct svg_axis *x)
{
	struct svg_axis y = { .kind = RECORD_RATE };
	double top = 0;

	for (size_t i = 0; i < pp->point_count; i++)
		for (int k = 0; k < 3; k++) {
			if (isfinite(pp->points[i].write[k]))
				top = fmax(top, pp->points[i].write[k]);
			if (isfinite(pp->points[i].read[k]))
				top = fmax(top, pp->points[i].read[k]);
		}
	svg_linear_axis(&y, 0, top);
	svg_draw_axes(out, &rates_area, x, &y, NULL, "rate");
	draw_rate(out, pp, x, &y, true, 0);
	draw_rate(out, pp, x, &y, false, 1);
}

static void draw_bad(FILE *out, const struct plot_passes *pp,
		     const struct svg_axis *x)
{
	struct svg_axis y = { .kind = RECORD_COUNT };
	double top = 0, half = (x_px(x, 1) - x_px(x, 0)) * 0.4;
	bool first = true;

	for (size_t i = 0; i < pp->point_count; i++)
		if (isfinite(pp->points[i].total))
			top = fmax(top, pp->points[i].total);
	svg_linear_axis(&y, 0, top);
	svg_draw_axes(out, &bad_area, x, &y, NULL, "bad blocks");
	fprintf(out, "<g fill=\"%s\">\n", svg_colour(3));
	for (size_t i = 0; i < pp->point_count; i++) {
		const struct pass_point *p = &pp->points[i];

		if (isfinite(p->fresh) && p->fresh > 0)
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\"/>\n", x_px(x, p->pass) - half,
				y_px(&y, &bad_area, p->fresh), 2 * half,
				y_px(&y, &bad_area, 0) -
				y_px(&y, &bad_area, p->fresh));
	}
	fprintf(out, "</g>\n<polyline fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2\" points=\"", svg_colour(2));
	for (size_t i = 0; i < pp->point_count; i++) {
		if (!isfinite(pp->points[i].total))
			continue;
		fprintf(out, "%s%.1f,%.1f", first ? "" : " ",
			x_px(x, pp->points[i].pass),
			y_px(&y, &bad_area, pp->points[i].total));
		first = false;
	}
	fputs("\"/>\n", out);
}

/* Where blocks went bad: each range at its pass, across the offsets. */
static void draw_map(FILE *out, const struct plot_passes *pp,
		     const struct svg_axis *x)
{
	struct svg_axis y = { .kind = RECORD_BYTES };
	double half = (x_px(x, 1) - x_px(x, 0)) / 2;

	svg_linear_axis(&y, isfinite(pp->start) ? pp->start : 0,
			isfinite(pp->end) ? pp->end : 1);
	svg_draw_axes(out, &map_area, x, &y, "pass", "where bad");
	fprintf(out, "<g fill=\"%s\">\n", MAP_COLOUR);
	for (size_t i = 0; i < pp->range_count; i++) {
		const struct map_range *g = &pp->ranges[i];
		double top = y_px(&y, &map_area, g->offset + g->length);
		double height = y_px(&y, &map_area, g->offset) - top;

		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"><title>pass %.0f: bad bytes at %.0f "
			"(+%.0f)</title></rect>\n", x_px(x, g->pass) - half,
			top, 2 * half < 1 ? 1 : 2 * half,
			height < 1 ? 1 : height, g->pass, g->offset,
			g->length);
	}
	fputs("</g>\n", out);
}

static void legend_row(FILE *out, int y, const char *colour,
		       const char *name)
{
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"20\" height=\"4\" "
		"fill=\"%s\"/>\n", SVG_LEGEND_X, y - 6, colour);
	svg_legend_name(out, SVG_LEGEND_X + 26, y, name);
}

static void draw_legend(FILE *out)
{
	legend_row(out, rates_area.y0 + 10, svg_colour(0), "write (median)");
	legend_row(out, rates_area.y0 + 30, svg_colour(1), "read (median)");
	legend_row(out, bad_area.y0 + 10, svg_colour(3), "new in the pass");
	legend_row(out, bad_area.y0 + 30, svg_colour(2), "in all");
	legend_row(out, map_area.y0 + 10, MAP_COLOUR, "went bad here");
}

int plot_passes_write(const struct plot_passes *pp, const char *title,
		      FILE *out)
{
	struct svg_axis x = { .kind = RECORD_COUNT };
	double last = 1;

	for (size_t i = 0; i < pp->point_count; i++)
		if (isfinite(pp->points[i].pass))
			last = fmax(last, pp->points[i].pass);
	svg_begin_height(out, title, HEIGHT);
	if (!pp->point_count) {
		svg_no_data(out);
		return svg_end(out);
	}
	svg_linear_axis(&x, 0.5, last + 0.5);
	draw_rates(out, pp, &x);
	draw_bad(out, pp, &x);
	draw_map(out, pp, &x);
	draw_legend(out);
	return svg_end(out);
}
