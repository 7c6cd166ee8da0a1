/*
 * plot: SVG charts of result records, drawn by our own code into one
 * self-contained file.  Records come from a live run (plot_record fits
 * vm_exec.sink, a record_sink) or from saved JSON documents, several
 * runs to a chart.
 * It draws; it neither measures nor analyses beyond a regression line.
 */
#ifndef FLASHBENCH_PLOT_H
#define FLASHBENCH_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "output/render.h"
#include "vm.h"

#define PLOT_MAX_RUNS 32

struct plot;

/* A chart; title may be NULL for one made from the runs. */
struct plot *plot_new(const char *title);
void plot_free(struct plot *plot);

/*
 * Start a run: its test, device and parameters from meta (copied), its
 * legend label (NULL: the parameters in which the runs differ, "nr=7").
 * Returns 0, -E2BIG past PLOT_MAX_RUNS, -EINVAL for a run of a test
 * drawn differently from the first, or -ENOMEM.
 */
int plot_begin_run(struct plot *plot, const struct render_meta *meta,
		   const char *label);

/* One record of the current run; fits a record_sink.  0 or -ENOMEM. */
int plot_record(void *plot, const struct record *record);

/*
 * Add the run saved in the JSON document at path (flashbench's own
 * --format=json).  Returns 0, or a negative errno with a message in err
 * (-EISDIR: path is a directory).
 */
int plot_load_json(struct plot *plot, const char *path, char *err,
		   size_t errlen);

/* The chart as an SVG document.  Returns 0 or -EIO. */
int plot_write(struct plot *plot, FILE *out);

/*
 * Grouped bars: a group per measure (groups, each with its unit), a bar
 * per series in each, values[group * series_count + series] (NAN: no
 * bar).  Measures of different units share the chart as percentages of
 * each group's largest value; each bar is labelled with its own.
 */
struct plot_bars {
	const char *title;
	const char *const *series;
	unsigned series_count;
	const char *const *groups;
	const enum record_unit *units;
	const double *values;
	unsigned group_count;
};

/* The bars as an SVG document, the same canvas as plot_write's. */
int plot_write_bars(const struct plot_bars *bars, FILE *out);

#endif
