/*
 * report: renders result records as text, CSV or JSON, from the same
 * records every test produces.  Formatters only format; they never
 * measure, and measurements never format.
 */
#ifndef FLASHBENCH_RENDER_H
#define FLASHBENCH_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "dev.h"
#include "vm.h"
#include "vm/layout.h"

enum render_format {
	RENDER_TEXT,		/* the original tool's lines */
	RENDER_CSV,		/* header row, raw numbers in base units */
	RENDER_JSON,		/* one document per run */
	RENDER_FORMAT_COUNT
};

/* What a run was, for the machine formats' headers. */
struct render_meta {
	const char *test;		/* "align", "open-au", "program" */
	const char *command;		/* the command line, joined */
	const char *device;		/* NULL: the run read no device */
	/*
	 * What stays the same when the device comes back under another
	 * name (its CID, serial, WWID or backing file), NULL when nothing
	 * does (a simulated card); and what to call it (the card's
	 * manufacturer and name, else its model, else the path).
	 */
	const char *device_identity;
	const char *device_name;
	uint64_t device_size;
	uint32_t logical_block_size;
	const struct vm_param *params;	/* the test's parameters */
	size_t param_count;
	/* NULL, or one a parameter: true for a yes/no option, which JSON
	   writes as true or false */
	const bool *param_flags;
	const char *engine;		/* JSON parameter "engine", or NULL */
	/*
	 * JSON only, NULL for none: a top-level member of this name after
	 * "results", an object with each record whose first field is the
	 * label keyed index_key, under that label, holding the record's
	 * other fields: "classes": {"C10": {"required": ...}, ...}.
	 */
	const char *index_member;
	const char *index_key;
	/*
	 * With index_member, for readers of schema 1 and 2 (--detect,
	 * --analyze): each indexed record's value also at the top level
	 * under its label ("erase_size": 4194304), its lower_bound as
	 * LABEL_is_lower_bound, and objects "confidence" (0 where there is
	 * none) and "not_determined" (its reason, where it has one) by label.
	 */
	bool index_schema1;
};

/*
 * How the formats read a record's fields:
 * - a field whose look's template is "" (text_hidden) is left out of the
 *   text line, and
 *   a record with nothing else prints no line (a per-second series behind
 *   a summary); CSV, JSON and plots carry it as usual;
 * - a template with "%%" shows the value, a fraction, as a percentage
 *   ("(%% of the ceiling)" -> "(78% of the ceiling)");
 * - a label field whose label is NULL is null in JSON (empty in CSV);
 * - JSON writes the fields keyed "a.b", "a.c" as one member "a", an
 *   object {"b": ..., "c": ...} (one level per dot); CSV keeps "a.b" as
 *   the column name.
 */

struct render;

struct render *render_open(FILE *out, enum render_format format,
			   const struct render_meta *meta);
/* One record; fits a record_sink.  Non-zero on a write error. */
int render_record(void *report, const struct record *record);
/*
 * Finish: the machine formats add the accounting, and mark a run that
 * was cut short as incomplete.  Returns non-zero on a write error.
 */
int render_close(struct render *report, const struct dev_stats *stats,
		 bool incomplete);

/* Text of one field's value, as the text format shows it in display. */
const char *render_field_text(const struct record_field *field,
			      enum text_display display, unsigned digits,
			      char *buf, size_t size);

/*
 * Leave every field of rec out of the text line (the record prints no
 * line); CSV and JSON carry it as usual.  Callers then give the fields
 * the text shows their looks.
 */
void render_hide_fields(struct record *rec);

/* "text", "csv" or "json".  Returns 0 or -EINVAL. */
int render_parse_format(const char *name, enum render_format *format);

/*
 * Base unit of a field's value as the machine formats name it: "bytes",
 * "ns", "bytes/s", "count", "label" or "boolean".
 */
const char *render_unit_name(enum record_unit unit);

/*
 * value as the machine formats print it: bytes and ns as integers,
 * anything else whole if it is whole, else to 6 significant digits in
 * plain decimal notation (10701400, 0.989005; never an exponent);
 * "null" if not finite.
 */
#define REPORT_NUMBER_MAX 400	/* the longest a double prints so */
const char *render_format_number(char *buf, size_t size, double value,
				 enum record_unit unit);

#endif
