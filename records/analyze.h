/*
 * records/analyze: --analyze's findings, advice and the evidence behind
 * them as records with their text layout, rendered by report.c.
 */
#ifndef FLASHBENCH_RECORDS_ANALYZE_H
#define FLASHBENCH_RECORDS_ANALYZE_H

#include <stdio.h>

#include "analysis/pasted.h"
#include "output/render.h"

/*
 * Judge a result and report it: text for people, one JSON document (the
 * records in "results", the findings by name in "findings") or one CSV
 * table.  Returns 0, or -EIO on a write error.
 */
int analyze_report(const struct analyze_result *result,
		   enum render_format format, const char *command, FILE *out);

#endif
