/*
 * record: what every test, probe and reading hands to the output layer -
 * a kind and a row of fields, each a value in its base unit (bytes, ns,
 * bytes/s) with a machine key.  The VM and the speed tests produce them,
 * analysis turns findings into them, and report.c renders them as text,
 * CSV or JSON.  How the text format shows a record (templates, MiB or
 * ms, columns or tabs) is no part of it: that is its layout
 * (vm/layout.h), which the record and its fields only point to.
 */
#ifndef FLASHBENCH_RECORD_H
#define FLASHBENCH_RECORD_H

#include <stdbool.h>

struct text_look;
struct text_layout;

/* Base units of reported values, as CSV and JSON carry them. */
enum record_unit {
	RECORD_BYTES,		/* bytes */
	RECORD_TIME,		/* ns */
	RECORD_RATE,		/* bytes/s */
	RECORD_COUNT,		/* a plain number */
	RECORD_LABEL,		/* no number, only text */
	RECORD_BOOL,		/* 1 true, 0 false, NaN unknown; JSON: true,
				   false, null */
	RECORD_UNIT_KINDS
};

#define RECORD_MAX_FIELDS 32
#define RECORD_KEY_MAX 63		/* longest key a program may report */

struct record_field {
	enum record_unit unit;
	const char *key;	/* machine name: CSV column, JSON key */
	const struct text_look *look;	/* its row of the record's layout;
					   NULL: the unit's own, no template */
	const char *label;	/* RECORD_LABEL only */
	double value;		/* in the unit's base unit */
};

struct record {
	struct record_field fields[RECORD_MAX_FIELDS];
	unsigned count;
	const char *kind;	/* what the record is; NULL: "measurement" */
	const struct text_layout *layout;	/* NULL: columns */
};

/*
 * Where records go: emit hands one to its context (a report, a chart,
 * a collector); non-zero is that context's error and ends the run.
 */
struct record_sink {
	int (*emit)(void *ctx, const struct record *record);
	void *ctx;
};

/*
 * One field more.  A full record (RECORD_MAX_FIELDS) takes none and
 * says so with false: a builder that grew past the limit shows in its
 * tests, not as a field written past the array.
 */
bool record_add(struct record *rec, enum record_unit unit, const char *key,
		const struct text_look *look, const char *label,
		double value);

/* The field keyed key, or NULL when the record has none. */
const struct record_field *record_get(const struct record *rec,
				      const char *key);

/* rec handed to sink; 0 when there is no sink to take it. */
int record_emit(const struct record_sink *sink, const struct record *rec);

#endif
