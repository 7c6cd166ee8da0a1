/*
 * plotpasses: the chart of an endurance run (--surface --write
 * --passes): the write and read rates per pass, the bad blocks per
 * pass (new, and in all), and a map of where blocks went bad, pass by
 * pass, across the range.  Fed the run's records, live or read back
 * from its saved JSON (told apart by their fields, as a saved record
 * has no kind); plot.c hands them over.  It draws; nothing else.
 */
#ifndef FLASHBENCH_PLOTPASSES_H
#define FLASHBENCH_PLOTPASSES_H

#include <stdio.h>

#include "lib/record.h"

struct plot_passes;

struct plot_passes *plot_passes_new(void);
void plot_passes_free(struct plot_passes *pp);

/* One record of the run: a pass, a new bad range, the summary. */
int plot_passes_record(struct plot_passes *pp, const struct record *rec);

/* The chart as an SVG document under title; 0 or -EIO. */
int plot_passes_write(const struct plot_passes *pp, const char *title,
		      FILE *out);

#endif
