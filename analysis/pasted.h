/*
 * pasted: reads saved align and open-AU output - ours or the original
 * tool's, as people paste it, prompts, folded lines and all - back into
 * numbers and has analysis/staircase.c and openau.c judge them;
 * records/analyze.c reports the findings.  It never touches a device.
 */
#ifndef FLASHBENCH_ANALYZE_H
#define FLASHBENCH_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/findings.h"

#define ANALYZE_MAX_POINTS 256		/* align lines kept */
#define ANALYZE_MAX_RUNS ANALYSIS_MAX_RUNS /* open-AU runs kept */
#define ANALYZE_MAX_INPUT (16u << 20)	/* bytes read over all files */
#define ANALYZE_MAX_IGNORED 256		/* ignored lines kept for -v */
#define ANALYZE_IGNORED_TEXT 64		/* of each, the start */

/* A line that held nothing used: where, why, and how it began. */
struct analyze_ignored {
	unsigned file;			/* 0-based, in the order given */
	size_t line;			/* 1-based, in its file */
	char why[96];
	char text[ANALYZE_IGNORED_TEXT];
};

/*
 * What the text held.  About 350 KiB: allocate it statically or on the
 * heap, not on the stack.
 */
struct analyze_result {
	struct analysis_align_point points[ANALYZE_MAX_POINTS];
	unsigned point_table[ANALYZE_MAX_POINTS];  /* 0-based table of each */
	size_t point_count;
	unsigned table_count;		/* align tables: a command or a repeated
					 * alignment starts the next */
	struct analysis_run runs[ANALYZE_MAX_RUNS];
	size_t run_count;
	/* the runs with repeats combined (analysis_open_au_combine) */
	struct analysis_run combined[ANALYZE_MAX_RUNS];
	size_t combined_count;
	unsigned run_combined[ANALYZE_MAX_RUNS];  /* combined entry of each */
	size_t lines;			/* lines read */
	size_t lines_ignored;		/* non-blank lines that held nothing */
	/* the first ANALYZE_MAX_IGNORED of them */
	struct analyze_ignored ignored[ANALYZE_MAX_IGNORED];
	unsigned files;			/* files read so far */
	size_t commands;		/* flashbench command lines seen */
	size_t dropped;			/* records past a cap, or find-fat rows */
	/* what the text says of the device: a sysfs dump, fdisk -l */
	struct analysis_prior prior;
};

/* Findings from a result, for report_... or our own report. */
struct analyze_findings {
	struct analysis_geometry geometry;
	struct analysis_open open;
	unsigned table;			/* the longest align table */
	size_t table_points;		/* its lines; 0: no align table */
	size_t tables_used;		/* align tables the geometry pools */
	/* why each finding is missing; "" when it is known */
	char erase_why[320];
	char page_why[160];
	char linear_why[160];
	char random_why[160];
};

/*
 * Parse text (NUL-terminated) into *out, which is reset first.  Never
 * fails on content: what it cannot read it counts in lines_ignored.
 * Returns 0, or -ENOMEM.
 */
int analyze_text(const char *text, struct analyze_result *out);

/*
 * Read and parse each file ("-" is standard input) into *out; runs and
 * tables do not carry over from one file to the next.  Returns 0, -errno
 * with why set ("FILE: message"), -EISDIR for a directory, or -EFBIG
 * past ANALYZE_MAX_INPUT.
 */
int analyze_files(const char *const *paths, size_t count,
		  struct analyze_result *out, char *why, size_t why_size);

/* Whether the text held any align line or open-AU run at all. */
bool analyze_found_any(const struct analyze_result *result);

/* Judge a result: align table -> geometry, runs -> open erase blocks. */
void analyze_findings(const struct analyze_result *result,
		      struct analyze_findings *findings);

/* records/analyze.c reports the findings, with advice and evidence. */

#endif
