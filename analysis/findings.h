/*
 * findings: the analysis room's readings gathered for the reports - the
 * staircase of align tables (staircase.h), open erase blocks from open-AU
 * runs (openau.h), the statistics under them (fit.h) and the advice
 * (advice.h) - and each finding as a record.  Pure computation on
 * numbers: no I/O, no printing.
 */
#ifndef FLASHBENCH_ANALYSIS_H
#define FLASHBENCH_ANALYSIS_H

#include <stdbool.h>

#include "analysis/advice.h"
#include "analysis/finding.h"
#include "analysis/fit.h"
#include "analysis/openau.h"
#include "analysis/staircase.h"
#include "lib/record.h"

/* The findings a reading reports, in the order the reports give them. */
enum analysis_finding_id {
	ANALYSIS_ERASE, ANALYSIS_PAGE, ANALYSIS_EFFECTIVE_PAGE,
	ANALYSIS_OPEN_LINEAR, ANALYSIS_OPEN_RANDOM, ANALYSIS_MIN_WRITE,
	ANALYSIS_FAT_AREA, ANALYSIS_FINDING_COUNT
};

/* Each one's machine name ("erase_size") and whether it counts bytes. */
struct analysis_finding_name {
	const char *name;
	bool bytes;
};
extern const struct analysis_finding_name
	analysis_finding_names[ANALYSIS_FINDING_COUNT];

/*
 * A finding as a record of kind "finding": name, value (bytes when bytes,
 * else a count; unknown empty), confidence (unknown empty) and, when why
 * is not NULL, why it is not known ("" when it is).  name and why are
 * pointed to, not copied.
 */
void analysis_finding_record(const char *name,
			     const struct analysis_finding *finding,
			     bool bytes, const char *why,
			     struct record *record);

/* A step of the staircase as a record of kind "level". */
void analysis_level_record(const struct analysis_level *level,
			   struct record *record);

/*
 * The finding not known, and why: value and confidence 0, the reason
 * formatted as printf's (cut to fit).
 */
void analysis_not_determined(struct analysis_finding *found, const char *fmt,
			     ...) __attribute__((format(printf, 2, 3)));

#endif
