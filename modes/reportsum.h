/*
 * modes/reportsum: the summary of --report, made from what its parts
 * wrote (output/reportsummary.c renders it).
 */
#ifndef FLASHBENCH_MODES_REPORTSUM_H
#define FLASHBENCH_MODES_REPORTSUM_H

#include <stdbool.h>
#include <stddef.h>

#include "output/reportsummary.h"

/* The parts of a report, in the order planned, as they ended. */
struct mode_report_parts {
	const struct summary_part *parts;
	size_t count;
	bool write;			/* --write: the writing parts planned */
};

/* Fill s's figures (and each one's reason when it has none) from r. */
void mode_report_summarize(const struct mode_report_parts *r,
			   struct report_summary *s);

#endif
