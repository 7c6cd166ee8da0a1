/*
 * findings: each finding as a record - its machine name, value and
 * confidence, or why it is not known - and each step of the staircase as
 * one, so that every report renders them alike.  The readings themselves
 * are staircase.c's and openau.c's.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "analysis/findings.h"

const struct analysis_finding_name
analysis_finding_names[ANALYSIS_FINDING_COUNT] = {
	[ANALYSIS_ERASE] = { "erase_size", true },
	[ANALYSIS_PAGE] = { "page_size", true },
	[ANALYSIS_EFFECTIVE_PAGE] = { "effective_page_size", true },
	[ANALYSIS_OPEN_LINEAR] = { "open_au_linear", false },
	[ANALYSIS_OPEN_RANDOM] = { "open_au_random", false },
	[ANALYSIS_MIN_WRITE] = { "min_write_size", true },
	[ANALYSIS_FAT_AREA] = { "fat_area", true },
};

void analysis_finding_record(const char *name,
			     const struct analysis_finding *finding,
			     bool bytes, const char *why,
			     struct record *record)
{
	double unknown = NAN;

	*record = (struct record){ .kind = "finding", .count = 3 };
	record->fields[0] = (struct record_field){ RECORD_LABEL, "name", NULL,
					       name, 0 };
	record->fields[1] = (struct record_field){ bytes ? RECORD_BYTES :
		RECORD_COUNT, "value", NULL, NULL, finding->known ?
		(double)finding->value : unknown };
	record->fields[2] = (struct record_field){ RECORD_COUNT, "confidence",
		NULL, NULL, finding->known ? finding->confidence : unknown };
	if (why)
		record->fields[record->count++] = (struct record_field){
			RECORD_LABEL, "why", NULL, why, 0 };
}

void analysis_level_record(const struct analysis_level *level,
			   struct record *record)
{
	*record = (struct record){ .kind = "level", .count = 4 };
	record->fields[0] = (struct record_field){ RECORD_BYTES, "size_bytes", NULL,
					       NULL, (double)level->size };
	record->fields[1] = (struct record_field){ RECORD_TIME, "cost_ns", NULL,
					       NULL, level->cost_ns };
	record->fields[2] = (struct record_field){ RECORD_LABEL, "name", NULL,
		analysis_level_name(level->kind), 0 };
	record->fields[3] = (struct record_field){ RECORD_COUNT, "z", NULL, NULL,
					       level->z };
}

void analysis_not_determined(struct analysis_finding *found, const char *fmt,
			     ...)
{
	va_list ap;

	found->known = false;
	found->value = 0;
	found->confidence = 0;
	va_start(ap, fmt);
	vsnprintf(found->reason, sizeof(found->reason), fmt, ap);
	va_end(ap);
}
