/*
 * records/compare: --compare's table as records - a "card" record per row
 * and "note" records after them - in text, CSV and JSON through
 * report.c, and the same table as grouped bars through plot.c.  Text
 * shows a table with column heads; the best of a column is marked '*'.
 */
#ifndef FLASHBENCH_RECORDS_COMPARE_H
#define FLASHBENCH_RECORDS_COMPARE_H

#include <stdio.h>

#include "analysis/compare.h"
#include "output/render.h"

/* The table in format on out.  Returns 0, -EIO or -ENOMEM. */
int compare_report(const struct compare *table, enum render_format format,
		   const char *command, FILE *out);

/* The ranked columns as grouped bars, an SVG document.  0 or -EIO. */
int compare_plot(const struct compare *table, FILE *out);

#endif
