/*
 * reportsummary: --report's summary, its items grouped by topic, in
 * text, CSV or JSON; and the document that holds it with every part's.
 * The items are what the parts measured, picked, never measured here.
 */
#ifndef FLASHBENCH_REPORTSUMMARY_H
#define FLASHBENCH_REPORTSUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/jsonparse.h"
#include "output/render.h"

#define SUMMARY_MAX_ITEMS 48
#define SUMMARY_TEXT_BYTES 400

/* One line of the summary: "  key: text" under its topic. */
struct summary_item {
	const char *topic;		/* "card", "verdicts", "hides"... */
	const char *key;		/* "erase_block", "read_bytes_per_s" */
	char text[SUMMARY_TEXT_BYTES];	/* as the text shows it */
	double value;			/* the figure, NAN for none */
	double confidence;		/* NAN where there is none */
	const char *unit;		/* render_unit_name's, or "label" */
};

/* A part as the report ran it: its output and its JSON, parsed. */
struct summary_part {
	const char *name;		/* "read-speed" */
	const char *command;		/* the mode alone: "flashbench -t DEV" */
	char *section;			/* its output, in the report's format */
	size_t section_bytes;
	struct json_value *json;	/* its JSON document, or NULL */
	char skipped[SUMMARY_TEXT_BYTES];	/* why it did not run, or "" */
	char failed[SUMMARY_TEXT_BYTES];	/* how it failed, or "" */
	int status;			/* what its mode returned */
};

struct report_summary {
	const char *device;
	const char *device_identity;	/* NULL: nothing identifies it */
	const char *device_name;
	uint64_t device_bytes;
	uint32_t logical_block_bytes;
	const char *command;
	bool write, incomplete;
	char incomplete_why[80];	/* "interrupted"... */
	struct summary_item items[SUMMARY_MAX_ITEMS];
	size_t count;
};

/* Add an item; its text printf-formatted.  Items past the last are lost. */
struct summary_item *summary_add(struct report_summary *s, const char *topic,
				 const char *key, double value,
				 const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* The whole report on out: summary, then each part.  0 or -EIO. */
int summary_write(FILE *out, enum render_format format,
		  const struct report_summary *s,
		  const struct summary_part *parts, size_t count);

#endif
