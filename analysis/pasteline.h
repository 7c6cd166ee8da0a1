/*
 * pasteline: one line of pasted text read for what it holds - an align
 * line, an open-AU row (or a row of the early one-column-per-count
 * layout), a command line, a count named in prose, a device fact from a
 * sysfs dump or fdisk -l - into the result pasted.c builds.
 */
#ifndef FLASHBENCH_PASTELINE_H
#define FLASHBENCH_PASTELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/pastecmd.h"
#include "analysis/pasted.h"

#define PASTE_COLUMNS_MAX 16

/*
 * The early layout with one column per count ("1 AU  2 AU  ...") and
 * one row per block size: the count of each column, its run.
 */
struct paste_columns {
	unsigned nr[PASTE_COLUMNS_MAX];
	size_t count;
	struct analysis_run *run[PASTE_COLUMNS_MAX];
	bool started;			/* rows have begun filling runs */
};

/* What the lines so far leave for the next: start it as { .r = result }. */
struct paste_parser {
	struct analyze_result *r;
	struct paste_command cmd;
	struct paste_loop loop;
	struct paste_hint hint;
	struct paste_columns columns;
	bool new_run;			/* a command since the last pair */
	bool new_table;			/* a command since the last align line */
	bool table_open;
	bool continued;			/* a command line ended in "\" */
	unsigned table;
	struct analysis_run *run;	/* being filled, or NULL */
	unsigned erase_pending;		/* lines a sysfs value may still come */
};

/*
 * One line, [p, end) without its newline, into ps->r: returns whether it
 * held a record or a command.
 */
bool paste_parse_line(struct paste_parser *ps, const char *p,
		      const char *end);

#endif
