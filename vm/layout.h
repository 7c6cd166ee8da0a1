/*
 * layout: how the text format shows records - the original tool's lines
 * are a matter of display (MiB or "4MiB", ms or "1.2ms", a template
 * around each value, columns or tabs), not of what was measured, so
 * none of it is in the records.  The text renderer (report.c) reads a
 * layout; CSV and JSON never do.
 *
 * A record points to its layout, and each field to its look, a row of
 * that layout: a program's loops repeat report statements, so which
 * statement made the Nth field of a record is known only while the
 * record is built, and two statements may share a key yet show it
 * differently.  Looking rows up by key or by position could not tell
 * those apart; a pointer set when the field is made can.
 */
#ifndef FLASHBENCH_LAYOUT_H
#define FLASHBENCH_LAYOUT_H

#include <stdbool.h>

#define VM_TEMPLATE_MAX 1024	/* longest text template a program may give */

/* How a value is written in text; each reads the field's base unit. */
enum text_display {
	TEXT_AS_UNIT,		/* the unit's own: bytes and counts as
				   integers, ns "87.3µs", bytes/s "10.7M/s",
				   booleans "yes", "no", "-" */
	TEXT_SIZE,		/* bytes in binary units, "4MiB" */
	TEXT_MIB,		/* bytes as MiB, a decimal number */
	TEXT_MS,		/* ns as milliseconds, a decimal number */
	TEXT_MBPS,		/* bytes/s as MB/s, three digits */
	TEXT_EXACT_SIZE,	/* bytes in the largest binary unit that
				   divides them, "12KiB", "1536B" */
	TEXT_FIXED,		/* a number with the look's digits after
				   the point, "0.99" */
	TEXT_SECONDS,		/* ns as seconds, the look's digits after
				   the point, "3.252" */
	TEXT_PERCENT,		/* a fraction as a percentage, 0.78 -> "78%" */
	TEXT_KIBPS,		/* bytes/s as whole KiB/s, as fio's terse
				   output gives them ("KB/s" to it) */
	TEXT_TEMPLATE_ALONE,	/* the template as it is, '%' included, and
				   not the value: text composed from more
				   than one field ("SanDisk (0x03)") */
	TEXT_DISPLAY_COUNT
};

/* How text output separates the fields of a record. */
enum text_style {
	TEXT_COLUMNS,		/* each field left-aligned in 7 characters */
	TEXT_TABS,		/* fields separated by a tab */
	TEXT_SPACES,		/* fields separated by a space */
	TEXT_PACKED,		/* side by side: the looks space them */
	TEXT_STYLE_COUNT
};

/*
 * One field's look.  template: NULL, the value alone; "" leaves the
 * field out of the text line (a record with nothing else shown prints no
 * line); with a '%', the value in its place ("min %" -> "min 1.2ms");
 * else the template, a space, the value.  width pads the value's text
 * (before the template) on the right to that many bytes, as printf's
 * "%-8s" does, or with right on the left to that many characters, as a
 * table's column of "87.3µs" needs.
 */
struct text_look {
	enum text_display display;
	const char *template;
	unsigned width;
	bool right;
	unsigned digits;	/* TEXT_FIXED, TEXT_SECONDS */
	const char *unknown;	/* text for a value not known (NaN) */
};

/*
 * The layout of one kind of record.  A field shows with its own look if
 * it points to one; else, for records of a fixed shape, with the look at
 * its position in looks; else as its unit's own, without template.  A
 * caption, if any, starts the line, padded on the right to caption_width
 * bytes ("device:                    /dev/sdb").
 */
struct text_layout {
	enum text_style style;
	const struct text_look *looks;	/* by position; may be NULL */
	unsigned look_count;
	const char *caption;
	unsigned caption_width;
};

/* A look for the machine formats only: the text line leaves it out. */
extern const struct text_look text_hidden;

#endif
