/*
 * record: what every test, probe and reading hands to the output layer -
 * a kind and a row of fields, each a value in its base unit (bytes, ns,
 * bytes/s) with a machine key.  The VM and the speed tests produce them,
 * analysis turns findings into them, and report.c renders them as text,
 * CSV or JSON.  A field's text template is a display hint only the text
 * renderer reads.
 */
#ifndef FLASHBENCH_RECORD_H
#define FLASHBENCH_RECORD_H

/* Units of reported values; the base unit is what CSV and JSON carry. */
enum vm_unit {
	VM_UNIT_BYTES,		/* bytes; text: plain integer */
	VM_UNIT_SIZE,		/* bytes; text: binary units, "4MiB" */
	VM_UNIT_TIME,		/* ns; text: "87.3µs" */
	VM_UNIT_RATE,		/* bytes/s from bytes and ns; text: "10.7M/s" */
	VM_UNIT_MIB,		/* bytes; text: MiB as a decimal number */
	VM_UNIT_MS,		/* ns; text: milliseconds as a decimal number */
	VM_UNIT_MBPS,		/* bytes/s from bytes and ns; text: MB/s number */
	VM_UNIT_COUNT,		/* a plain number */
	VM_UNIT_LABEL,		/* no number, only text */
	VM_UNIT_BOOL,		/* 1 true, 0 false, NaN unknown; text: "yes",
				   "no", "-"; JSON: true, false, null */
	VM_UNIT_KINDS
};

/* How text output separates the fields of a record. */
enum vm_style {
	VM_STYLE_COLUMNS,	/* each field left-aligned in 7 characters */
	VM_STYLE_TABS,		/* fields separated by a tab */
	VM_STYLE_SPACES,	/* fields separated by a space */
	VM_STYLE_COUNT
};

#define VM_MAX_FIELDS 32

struct vm_field {
	enum vm_unit unit;
	const char *key;	/* machine name: CSV column, JSON key */
	const char *text;	/* text template, "%" is the value; or NULL */
	const char *label;	/* VM_UNIT_LABEL only */
	double value;		/* in the unit's base unit */
};

struct vm_record {
	struct vm_field fields[VM_MAX_FIELDS];
	unsigned count;
	enum vm_style style;
	const char *kind;	/* what the record is; NULL: "measurement" */
};

#endif
