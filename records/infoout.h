/*
 * infoout: how records/info.c writes a device's identity as records -
 * one record per part (device, card, link, cid, ...), its fields the
 * machine values keyed as the JSON members, and beside each field the
 * aligned text people read.  Not part of info's interface.
 *
 * Each part of the identity is one record whose fields are the machine
 * values, keyed as the JSON members ("partition.start_bytes" nests).  The
 * aligned text people read is a display of those values ("7948206080
 * (7.40 GiB)", "SanDisk (0x03)"), so each text line rides on a field's
 * look as its template, after the field it shows: a line that shows no
 * one value (a heading, "oem id") goes with the field before it.
 */
#ifndef FLASHBENCH_RECORDS_INFOOUT_H
#define FLASHBENCH_RECORDS_INFOOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "identity/devname.h"
#include "identity/infosysfs.h"
#include "lib/record.h"
#include "output/render.h"
#include "vm/layout.h"

#define LABEL_WIDTH 26
#define KEY_BYTES 48
#define VALUE_BYTES INFO_PATH_BYTES	/* a backing file's path */
#define LINES_BYTES (VALUE_BYTES + 256)	/* its line, a heading */

struct info_out_field {
	char key[KEY_BYTES];
	char label[VALUE_BYTES];
	char lines[LINES_BYTES];	/* its text, the look's template */
	struct text_look look;
};

struct info_out {
	struct render *report;
	struct render_meta meta;
	struct devname names;		/* the device's identity and name */
	struct record rec;
	struct info_out_field strings[RECORD_MAX_FIELDS];
	char pending[LINES_BYTES];	/* text before the first field */
	char prefix[KEY_BYTES];		/* "partition.": the open section */
	bool quiet;		/* text lines suppressed */
	int err;
};


/* "7.40 GiB", "4 MiB", "512 bytes". */
const char *info_human_size(char *buf, size_t len, uint64_t bytes);

/* "1.5 ms", "100 ns": a time given in picoseconds. */
const char *info_human_time_ps(char *buf, size_t len, uint64_t ps);

/* text added to the string in buf of size bytes, cut short if need be */
void info_append(char *buf, size_t size, const char *text);

/* A line people read: "  label:   text". */
void info_format_line(char *line, size_t size, const char *label,
		      const char *text);

/* Open o's report on f (o->meta filled but its test and device). */
int info_out_begin(struct info_out *o, FILE *f, enum render_format format,
		   const char *test, const char *device);

/* The last record out, the report closed, o freed. */
int info_out_close(struct info_out *o, FILE *out, char *err, size_t errlen);

/* Start the record of one part: "device", "cid". */
void info_out_record(struct info_out *o, const char *kind);

/* A section: a heading in text; with a key, a nested object in JSON. */
void info_out_section(struct info_out *o, const char *key,
		      const char *heading);
void info_out_end(struct info_out *o, const char *key);

/* A section not read: null in JSON, empty in CSV. */
void info_out_null_section(struct info_out *o, const char *key);

/* A new field keyed key in the open section; NULL if the record is full. */
struct record_field *info_add_field(struct info_out *o, enum record_unit unit,
				    const char *key, const char *label);

/*
 * The fields, each with its text line.  label NULL: machine formats
 * only; key NULL: text only.  json is the value as JSON text (NULL:
 * null), text the value people read (NULL reads "unknown").
 */
void info_put_text(struct info_out *o, enum record_unit unit, const char *key,
		   const char *label, const char *json, const char *text);
/* a string, its label taken as it is */
void info_put_str(struct info_out *o, const char *key, const char *label,
		  const char *s);
/* a string shown the same way to both readers */
void info_put_s(struct info_out *o, const char *key, const char *label,
		const char *s);
void info_put_u64(struct info_out *o, const char *key, const char *label,
		  bool known, uint64_t v);
/* bytes: "4194304 (4 MiB)" for people, the number for machines */
void info_put_size(struct info_out *o, const char *key, const char *label,
		   bool known, uint64_t v);
void info_put_bool(struct info_out *o, const char *key, const char *label,
		   bool known, bool v);
/* a hex identifier, "0x5344", as a string in both forms */
void info_put_hex(struct info_out *o, const char *key, const char *label,
		  bool known, uint64_t v, int digits);
/* a string attribute as read: known, or unknown */
void info_put_attr(struct info_out *o, const char *key, const char *label,
		   bool known, const char *text);

#endif
