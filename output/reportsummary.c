/*
 * reportsummary: --report's document: the summary's items by topic,
 * then each part as its mode printed it (text), its JSON document
 * (JSON), or its records as rows of the one table (CSV).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "analysis/saved.h"
#include "output/json.h"
#include "output/renderjson.h"
#include "output/reportsummary.h"

/* The topics in the order the summary shows them, with their headings. */
static const struct topic {
	const char *name, *heading;
} topics[] = {
	{ "card", "The card" },
	{ "verdicts", "Verdicts" },
	{ "hides", "What it hides" },
	{ "speed", "How fast" },
	{ "advice", "What to do" },
};

struct summary_item *summary_add(struct report_summary *s, const char *topic,
				 const char *key, double value,
				 const char *unit, const char *fmt, ...)
{
	struct summary_item *item;
	va_list ap;

	if (s->count == SUMMARY_MAX_ITEMS)
		return NULL;
	item = &s->items[s->count++];
	*item = (struct summary_item){ .topic = topic, .key = key,
		.value = value, .confidence = NAN,
		.unit = unit ? unit : "label" };
	va_start(ap, fmt);
	vsnprintf(item->text, sizeof(item->text), fmt, ap);
	va_end(ap);
	return item;
}

/* ---- text ---- */

/* "erase_block" as the text shows it: "erase block". */
static void key_words(const char *key, char *buf, size_t size)
{
	size_t i;

	for (i = 0; key[i] && i + 1 < size; i++)
		buf[i] = key[i] == '_' ? ' ' : key[i];
	buf[i] = '\0';
}

static void write_text_summary(FILE *out, const struct report_summary *s)
{
	char words[64];

	fprintf(out, "report: %s (%llu bytes, logical blocks of %u), %s%s%s\n",
		s->device, (unsigned long long)s->device_bytes,
		s->logical_block_bytes, s->write ? "with --write" :
		"read-only", s->incomplete ? "; INCOMPLETE: " : "",
		s->incomplete ? s->incomplete_why : "");
	if (s->incomplete)
		fputs("(only what the parts that ran measured)\n", out);
	for (size_t t = 0; t < sizeof(topics) / sizeof(topics[0]); t++) {
		bool any = false;

		for (size_t i = 0; i < s->count; i++) {
			const struct summary_item *item = &s->items[i];

			if (strcmp(item->topic, topics[t].name) != 0)
				continue;
			if (!any)
				fprintf(out, "\n%s:\n", topics[t].heading);
			any = true;
			key_words(item->key, words, sizeof(words));
			fprintf(out, "  %-22s %s\n", words, item->text);
		}
	}
}

static int write_text(FILE *out, const struct report_summary *s,
		      const struct summary_part *parts, size_t count)
{
	write_text_summary(out, s);
	for (size_t i = 0; i < count; i++) {
		fprintf(out, "\n== %s: %s ==\n", parts[i].name,
			parts[i].command);
		if (parts[i].failed[0])
			fprintf(out, "failed: %s\n", parts[i].failed);
		if (parts[i].skipped[0])
			fprintf(out, "not run: %s\n", parts[i].skipped);
		else if (parts[i].section_bytes)
			fwrite(parts[i].section, 1, parts[i].section_bytes,
			       out);
	}
	return 0;
}

/* ---- JSON ---- */

static void write_json_number(FILE *out, double value, const char *unit)
{
	char buf[64];
	enum record_unit u = strcmp(unit, "bytes") == 0 ? RECORD_BYTES :
			 strcmp(unit, "ns") == 0 ? RECORD_TIME : RECORD_COUNT;

	fputs(render_format_number(buf, sizeof(buf), value, u), out);
}

static void write_json_item(FILE *out, const struct summary_item *item)
{
	fputs("{\"value\": ", out);
	write_json_number(out, item->value, item->unit);
	fputs(", \"unit\": ", out);
	json_write_string(out, item->unit);
	fputs(", \"confidence\": ", out);
	write_json_number(out, item->confidence, "count");
	fputs(", \"text\": ", out);
	json_write_string(out, item->text);
	fputs("}", out);
}

static void write_json_summary(FILE *out, const struct report_summary *s)
{
	fputs("  \"summary\": {", out);
	for (size_t t = 0; t < sizeof(topics) / sizeof(topics[0]); t++) {
		bool any = false;

		fprintf(out, "%s\n    ", t ? "," : "");
		json_write_string(out, topics[t].name);
		fputs(": {", out);
		for (size_t i = 0; i < s->count; i++) {
			if (strcmp(s->items[i].topic, topics[t].name) != 0)
				continue;
			fprintf(out, "%s\n      ", any ? "," : "");
			any = true;
			json_write_string(out, s->items[i].key);
			fputs(": ", out);
			write_json_item(out, &s->items[i]);
		}
		fputs(any ? "\n    }" : "}", out);
	}
	fputs("\n  },\n", out);
}

/* A part's own document, as its mode wrote it, trailing space cut. */
static void write_json_part(FILE *out, const struct summary_part *p)
{
	size_t n = p->section_bytes;

	/* a part that failed may have left half a document: not copied */
	if (p->skipped[0] || !n || !p->json) {
		fputs("{\"test\": ", out);
		json_write_string(out, p->name);
		fputs(", \"command\": ", out);
		json_write_string(out, p->command);
		fputs(", \"skipped\": ", out);
		json_write_string(out, p->skipped[0] ? p->skipped :
				  p->failed[0] ? p->failed :
				  "it wrote no document");
		fputs("}", out);
		return;
	}
	while (n && (p->section[n - 1] == '\n' || p->section[n - 1] == ' '))
		n--;
	fwrite(p->section, 1, n, out);
}

static int write_json(FILE *out, const struct report_summary *s,
		      const struct summary_part *parts, size_t count)
{
	const struct render_meta device = { .device = s->device,
		.device_size = s->device_bytes,
		.logical_block_size = s->logical_block_bytes,
		.device_identity = s->device_identity,
		.device_name = s->device_name };

	fprintf(out, "{\n  \"schema\": %d,\n  \"command\": ", JSON_SCHEMA);
	json_write_string(out, s->command);
	fputs(",\n  \"test\": \"report\",\n  \"device\": ", out);
	render_json_device(out, &device);
	fprintf(out, ",\n  \"parameters\": {\"write\": %s},\n",
		s->write ? "true" : "false");
	write_json_summary(out, s);
	fputs("  \"parts\": [", out);
	for (size_t i = 0; i < count; i++) {
		fputs(i ? ",\n" : "\n", out);
		write_json_part(out, &parts[i]);
	}
	fprintf(out, "\n  ],\n  \"incomplete\": %s", s->incomplete ?
		"true" : "false");
	if (s->incomplete) {
		fputs(",\n  \"incomplete_reason\": ", out);
		json_write_string(out, s->incomplete_why);
	}
	fputs("\n}\n", out);
	return 0;
}

/* ---- CSV: one table, schema,kind,part,name,value,unit,text,note ---- */

static void csv_text(FILE *out, const char *text)
{
	fputc('"', out);
	for (; text && *text; text++) {
		if (*text == '"')
			fputc('"', out);
		fputc(*text, out);
	}
	fputc('"', out);
}

static void csv_row(FILE *out, const char *part, const char *kind,
		    const char *name, const char *value, const char *unit,
		    const char *text)
{
	fprintf(out, "%d,", JSON_SCHEMA);
	csv_text(out, kind[0] ? kind : "record");
	fputc(',', out);
	csv_text(out, part);
	fputc(',', out);
	csv_text(out, name);
	fprintf(out, ",%s,", value);
	csv_text(out, unit);
	fputc(',', out);
	csv_text(out, text);
	fputs(",\n", out);	/* the note column, empty but in the last row */
}

/* A record's member (an object's members one level down, as "a.b"). */
static void csv_member(FILE *out, const char *part, const char *kind,
		       const char *prefix, const struct json_value *v)
{
	char name[160], num[64];

	snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "",
		 v->key ? v->key : "");
	if (v->type == JSON_OBJECT) {
		for (size_t i = 0; i < v->count; i++)
			csv_member(out, part, kind, name, &v->items[i]);
		return;
	}
	if (v->type == JSON_NUMBER || v->type == JSON_BOOL)
		csv_row(out, part, kind, name,
			render_format_number(num, sizeof(num), v->number,
					     RECORD_COUNT), "", "");
	else if (v->type == JSON_STRING)
		csv_row(out, part, kind, name, "", "label", v->string);
	else if (v->type == JSON_NULL)
		csv_row(out, part, kind, name, "", "", "");
}

static void csv_part(FILE *out, const struct summary_part *p)
{
	const struct json_value *results = json_get(p->json, "results");

	if (p->skipped[0])
		csv_row(out, p->name, "skipped", "why", "", "label",
			p->skipped);
	if (p->failed[0])
		csv_row(out, p->name, "failed", "why", "", "label",
			p->failed);
	for (size_t i = 0; results && i < results->count; i++) {
		const struct json_value *rec = &results->items[i];
		const char *k = saved_string(rec, "kind") ?
				saved_string(rec, "kind") : "";

		for (size_t m = 0; m < rec->count; m++)
			if (rec->items[m].key &&
			    strcmp(rec->items[m].key, "kind") != 0)
				csv_member(out, p->name, k, "",
					   &rec->items[m]);
	}
}

static int write_csv(FILE *out, const struct report_summary *s,
		     const struct summary_part *parts, size_t count)
{
	char num[64];

	fputs("schema,kind,part,name,value,unit,text,note\n", out);
	csv_row(out, "summary", "report", "complete",
		s->incomplete ? "0" : "1", "boolean", "");
	for (size_t i = 0; i < s->count; i++) {
		const struct summary_item *item = &s->items[i];

		csv_row(out, "summary", item->topic, item->key,
			isfinite(item->value) ?
			render_format_number(num, sizeof(num), item->value,
					     RECORD_COUNT) : "",
			item->unit, item->text);
	}
	for (size_t i = 0; i < count; i++)
		csv_part(out, &parts[i]);
	if (s->incomplete) {	/* as every table ends an interrupted run */
		fprintf(out, "%d,incomplete,,,,,,", JSON_SCHEMA);
		csv_text(out, s->incomplete_why);
		fputc('\n', out);
	}
	return 0;
}

int summary_write(FILE *out, enum render_format format,
		  const struct report_summary *s,
		  const struct summary_part *parts, size_t count)
{
	if (format == RENDER_JSON)
		write_json(out, s, parts, count);
	else if (format == RENDER_CSV)
		write_csv(out, s, parts, count);
	else
		write_text(out, s, parts, count);
	return ferror(out) ? -EIO : 0;
}
