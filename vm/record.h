/*
 * record: what every test, probe and reading hands to the output layer -
 * a kind and a row of fields, each a value in its base unit (bytes, ns,
 * bytes/s) with a machine key.  The VM and the speed tests produce them,
 * analysis turns findings into them, and report.c renders them as text,
 * CSV or JSON.  How the text format shows a record (templates, MiB or
 * ms, columns or tabs) is no part of it: that is its layout (layout.h),
 * which the record and its fields only point to.
 */
#ifndef FLASHBENCH_RECORD_H
#define FLASHBENCH_RECORD_H

#include "vm/layout.h"

/* Base units of reported values, as CSV and JSON carry them. */
enum vm_unit {
	VM_UNIT_BYTES,		/* bytes */
	VM_UNIT_TIME,		/* ns */
	VM_UNIT_RATE,		/* bytes/s */
	VM_UNIT_COUNT,		/* a plain number */
	VM_UNIT_LABEL,		/* no number, only text */
	VM_UNIT_BOOL,		/* 1 true, 0 false, NaN unknown; JSON: true,
				   false, null */
	VM_UNIT_KINDS
};

#define VM_MAX_FIELDS 32
#define VM_KEY_MAX 63		/* longest key a program may report */
#define VM_TEMPLATE_MAX 1024	/* longest text template it may give */

struct vm_field {
	enum vm_unit unit;
	const char *key;	/* machine name: CSV column, JSON key */
	const struct text_look *look;	/* its row of the record's layout;
					   NULL: the unit's own, no template */
	const char *label;	/* VM_UNIT_LABEL only */
	double value;		/* in the unit's base unit */
};

struct record {
	struct vm_field fields[VM_MAX_FIELDS];
	unsigned count;
	const char *kind;	/* what the record is; NULL: "measurement" */
	const struct text_layout *layout;	/* NULL: columns */
};

#endif
