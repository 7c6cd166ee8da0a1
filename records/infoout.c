/*
 * infoout: the identity's records and their text lines (infoout.h), for
 * records/info.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "identity/infoutil.h"
#include "records/infoout.h"

/* ---- sizes and times for people ---- */

/* "7.40 GiB", "4 MiB", "512 bytes". */
const char *info_human_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = {
		"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	uint64_t div = 1;
	unsigned i = 0;

	while (i < 6 && bytes / div >= 1024) {
		div *= 1024;
		i++;
	}
	if (bytes % div == 0)
		snprintf(buf, len, "%" PRIu64 " %s", bytes / div, unit[i]);
	else
		snprintf(buf, len, "%.2f %s", (double)bytes / (double)div,
			 unit[i]);
	return buf;
}

/* "1.5 ms", "100 ns": a time given in picoseconds. */
const char *info_human_time_ps(char *buf, size_t len, uint64_t ps)
{
	if (ps >= 1000000000ULL)
		snprintf(buf, len, "%g ms", (double)ps / 1e9);
	else if (ps >= 1000000ULL)
		snprintf(buf, len, "%g µs", (double)ps / 1e6);
	else
		snprintf(buf, len, "%g ns", (double)ps / 1e3);
	return buf;
}

static const struct text_layout out_layout = { .style = TEXT_PACKED };

void info_append(char *buf, size_t size, const char *text)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s", text);
}

/* A line of text, after the last field (or before the first). */
static void text_line(struct info_out *o, const char *line)
{
	if (o->rec.count)
		info_append(o->strings[o->rec.count - 1].lines, LINES_BYTES,
			    line);
	else
		info_append(o->pending, sizeof(o->pending), line);
}

/* A new field keyed key in the open section; NULL if the record is full. */
struct record_field *info_add_field(struct info_out *o, enum record_unit unit,
				      const char *key, const char *label)
{
	struct record_field *f;
	struct info_out_field *s;

	/* the key and label are the field's own strings, filled below */
	if (!record_add(&o->rec, unit, NULL, NULL, NULL, NAN)) {
		o->err = -E2BIG;
		return NULL;
	}
	f = &o->rec.fields[o->rec.count - 1];
	s = &o->strings[o->rec.count - 1];
	snprintf(s->key, sizeof(s->key), "%s%s", o->prefix, key);
	snprintf(s->label, sizeof(s->label), "%s", label ? label : "");
	snprintf(s->lines, sizeof(s->lines), "%s",
		 o->rec.count > 1 ? "" : o->pending);
	f->key = s->key;
	f->label = label ? s->label : NULL;
	return f;
}

/* Each field shows its lines; the renderer ends the last line. */
static void flush_record(struct info_out *o)
{
	struct record *rec = &o->rec;
	int shown = -1;

	if (!o->report || !rec->count)
		return;
	for (unsigned i = 0; i < rec->count; i++) {
		struct info_out_field *s = &o->strings[i];

		s->look = (struct text_look){ .display = TEXT_TEMPLATE_ALONE,
					      .template = s->lines };
		rec->fields[i].look = *s->lines ? &s->look : &text_hidden;
		if (*s->lines)
			shown = (int)i;
	}
	if (shown >= 0) {
		char *lines = o->strings[shown].lines;
		size_t len = strlen(lines);

		if (lines[len - 1] == '\n')
			lines[len - 1] = '\0';
	}
	rec->layout = &out_layout;
	if (render_record(o->report, rec))
		o->err = -EIO;
	rec->count = 0;
}

/* Start the record of one part: "device", "cid". */
void info_out_record(struct info_out *o, const char *kind)
{
	flush_record(o);
	o->rec = (struct record){ .kind = kind };
	o->pending[0] = '\0';
}

int info_out_begin(struct info_out *o, FILE *f, enum render_format format,
		     const char *test, const char *device)
{
	o->meta.test = test;
	o->meta.device = device;
	o->report = render_open(f, format, &o->meta);
	return o->report ? 0 : -ENOMEM;
}

static int out_finish(struct info_out *o)
{
	flush_record(o);
	if (render_close(o->report, NULL, false) && !o->err)
		o->err = -EIO;
	return o->err;
}

/* A section: a heading in text; with a key, a nested object in JSON. */
void info_out_section(struct info_out *o, const char *key, const char *heading)
{
	char line[80];

	if (key) {
		info_append(o->prefix, sizeof(o->prefix), key);
		info_append(o->prefix, sizeof(o->prefix), ".");
	}
	if (heading && !o->quiet) {
		snprintf(line, sizeof(line), "%s:\n", heading);
		text_line(o, line);
	}
}

void info_out_end(struct info_out *o, const char *key)
{
	size_t len = strlen(o->prefix);

	if (!key || !len)
		return;
	o->prefix[len - 1] = '\0';
	len = strlen(o->prefix);
	while (len && o->prefix[len - 1] != '.')
		len--;
	o->prefix[len] = '\0';
}

/* A section not read: null in JSON, empty in CSV. */
void info_out_null_section(struct info_out *o, const char *key)
{
	info_add_field(o, RECORD_LABEL, key, NULL);
}

/* A line people read: "  label:   text". */
void info_format_line(char *line, size_t size, const char *label,
			const char *text)
{
	snprintf(line, size, "  %-*s %s\n", LABEL_WIDTH - 1, label,
		 text ? text : "unknown");
}

static void put_line(struct info_out *o, const char *label, const char *text)
{
	char line[LINES_BYTES];

	if (!label || o->quiet)
		return;
	info_format_line(line, sizeof(line), label, text);
	text_line(o, line);
}

/*
 * A field in unit from its JSON text: null, true, false, a quoted word,
 * a list ("[0, 2]": the label "0, 2") or a number.
 */
static void put_json_field(struct info_out *o, enum record_unit unit,
			   const char *key, const char *json)
{
	char word[VALUE_BYTES];
	size_t len = json ? strlen(json) : 0, n = 0;
	struct record_field *f;

	if (unit != RECORD_LABEL || !json) {
		f = info_add_field(o, unit, key, NULL);
		if (f && json)
			f->value = unit == RECORD_BOOL ? json[0] == 't' :
				   strtod(json, NULL);
		return;
	}
	for (size_t i = 1; i + 1 < len && n + 1 < sizeof(word); i++)
		if (json[0] != '[' || json[i] != '"')
			word[n++] = json[i];
	word[n] = '\0';
	info_add_field(o, RECORD_LABEL, key, word);
}

/*
 * One field.  label NULL: machine formats only; key NULL: text only.
 * json is the value as JSON text (NULL: null), text the value people
 * read (NULL reads "unknown").
 */
static void put(struct info_out *o, enum record_unit unit, const char *key,
		const char *label, const char *json, const char *text)
{
	if (key)
		put_json_field(o, unit, key, json);
	put_line(o, label, text);
}

void info_put_str(struct info_out *o, const char *key, const char *label,
		    const char *s)
{
	if (key)
		info_add_field(o, RECORD_LABEL, key, s);
	put_line(o, label, s);
}

/* A label with its colon, for the text column. */
void info_put_text(struct info_out *o, enum record_unit unit, const char *key,
		     const char *label, const char *json, const char *text)
{
	char lab[64];

	if (label)
		snprintf(lab, sizeof(lab), "%s:", label);
	put(o, unit, key, label ? lab : NULL, json, text);
}

/* Numbers put_u64 shows plain are bytes when their key says so. */
static enum record_unit plain_unit(const char *key)
{
	size_t len = key ? strlen(key) : 0;

	return len > 6 && !strcmp(key + len - 6, "_bytes") ? RECORD_BYTES :
	       RECORD_COUNT;
}

void info_put_u64(struct info_out *o, const char *key, const char *label,
		    bool known, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	info_put_text(o, plain_unit(key), key, label, known ? num : NULL,
		 known ? num : NULL);
}

/* Bytes: "4194304 (4 MiB)" for people, the number for machines. */
void info_put_size(struct info_out *o, const char *key, const char *label,
		     bool known, uint64_t v)
{
	char num[32], text[80], h[32];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	if (v >= 1024)
		snprintf(text, sizeof(text), "%s (%s)", num,
			 info_human_size(h, sizeof(h), v));
	else
		info_copy_str(text, sizeof(text), num);
	info_put_text(o, RECORD_BYTES, key, label, known ? num : NULL,
		 known ? text : NULL);
}

void info_put_bool(struct info_out *o, const char *key, const char *label,
		     bool known, bool v)
{
	info_put_text(o, RECORD_BOOL, key, label,
		 known ? (v ? "true" : "false") : NULL,
		 known ? (v ? "yes" : "no") : NULL);
}

/* A string value shown the same way to both readers. */
void info_put_s(struct info_out *o, const char *key, const char *label,
		  const char *s)
{
	char lab[64];

	if (label)
		snprintf(lab, sizeof(lab), "%s:", label);
	info_put_str(o, key, label ? lab : NULL, s);
}

/* A hex identifier, "0x5344", as a string in both forms. */
void info_put_hex(struct info_out *o, const char *key, const char *label,
		    bool known, uint64_t v, int digits)
{
	char hex[32];

	snprintf(hex, sizeof(hex), "0x%0*" PRIx64, digits, v);
	info_put_s(o, key, label, known ? hex : NULL);
}

/* A string attribute as read: known, or unknown. */
void info_put_attr(struct info_out *o, const char *key, const char *label,
		     bool known, const char *text)
{
	info_put_s(o, key, label, known ? text : NULL);
}

/* The last record out, the report closed, o freed. */
int info_out_close(struct info_out *o, FILE *out, char *err, size_t errlen)
{
	int ret = out_finish(o);

	free(o);
	if (ret == -E2BIG) {
		info_set_err(err, errlen, "more fields than a record holds");
		return ret;
	}
	if (ret || fflush(out) || ferror(out)) {
		info_set_err(err, errlen, "write error on output");
		return -EIO;
	}
	return 0;
}
