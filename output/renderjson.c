/*
 * renderjson: the JSON format of the renderer (RFC 8259): one document
 * a run, its header, each record as an object, the index and the
 * schema-1 members gathered and written at the end, the units.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/json.h"
#include "output/renderjson.h"
#include "output/renderstate.h"

/* ---- JSON (RFC 8259) ---- */

static void json_number(FILE *out, double value, enum record_unit unit)
{
	char number[REPORT_NUMBER_MAX];

	fputs(render_format_number(number, sizeof(number), value, unit), out);
}

static void json_value(FILE *out, const struct record_field *field)
{
	if (field->unit == RECORD_LABEL && (!field->label || !*field->label))
		fputs("null", out);	/* a label not known, or none */
	else if (field->unit == RECORD_LABEL)
		json_write_string(out, field->label);
	else if (field->unit == RECORD_BOOL && isfinite(field->value))
		fputs(field->value != 0 ? "true" : "false", out);
	else
		json_number(out, field->value, field->unit);
}

/* text as a JSON string, or null for none */
static void json_string_or_null(FILE *out, const char *text)
{
	if (text && *text)
		json_write_string(out, text);
	else
		fputs("null", out);
}

void render_json_device(FILE *out, const struct render_meta *meta)
{
	if (!meta->device || !*meta->device) {
		fputs("null", out);
		return;
	}
	fputs("{\"path\": ", out);
	json_write_string(out, meta->device);
	fprintf(out, ", \"size_bytes\": %llu, \"logical_block_bytes\": %u, "
		"\"identity\": ", (unsigned long long)meta->device_size,
		(unsigned)meta->logical_block_size);
	json_string_or_null(out, meta->device_identity);
	fputs(", \"name\": ", out);
	json_string_or_null(out, meta->device_name ? meta->device_name :
			    meta->device);
	fputc('}', out);
}

void render_json_begin(struct render *report)
{
	const struct render_meta *meta = report->meta;
	FILE *out = report->out;

	fprintf(out, "{\n  \"schema\": %d,\n  \"command\": ", JSON_SCHEMA);
	json_string_or_null(out, meta->command);
	fputs(",\n  \"test\": ", out);
	json_write_string(out, meta->test);
	fputs(",\n  \"device\": ", out);
	render_json_device(out, meta);
	fputs(",\n  \"parameters\": {", out);
	for (size_t i = 0; i < meta->param_count; i++) {
		fputs(i ? ", " : "", out);
		json_write_string(out, meta->params[i].name);
		fputs(": ", out);
		if (meta->param_flags && meta->param_flags[i])
			fputs(meta->params[i].value != 0 ? "true" : "false",
			      out);
		else
			json_number(out, meta->params[i].value, RECORD_COUNT);
	}
	if (meta->engine) {
		fputs(meta->param_count ? ", \"engine\": " : "\"engine\": ",
		      out);
		json_write_string(out, meta->engine);
	}
	fputs("},\n  \"results\": [", out);
}

static void json_note_unit(struct render *report, const char *key,
			   enum record_unit unit)
{
	render_keys_index(&report->unit_keys, key, unit);
}

static const char *key_of(const struct record_field *field)
{
	return field->key ? field->key : "value";
}

/*
 * The name a field has at one level of nesting: its key from prefix_len
 * on, up to the next dot.  Sets *nested when a dot follows.
 */
static size_t member_name(const struct record_field *field, size_t prefix_len,
			  const char **name, bool *nested)
{
	const char *dot;

	*name = key_of(field) + prefix_len;
	dot = strchr(*name, '.');
	*nested = dot != NULL;
	return dot ? (size_t)(dot - *name) : strlen(*name);
}

/* Is field inside the object whose members' keys start with prefix? */
static bool in_group(const struct record_field *field, const char *prefix,
		     size_t prefix_len)
{
	return strncmp(key_of(field), prefix, prefix_len) == 0 &&
	       strlen(key_of(field)) > prefix_len;
}

/* Do fields a and b make one member at this level? */
static bool same_member(const struct record_field *a,
			const struct record_field *b,
			size_t prefix_len)
{
	const char *na, *nb;
	bool da, db;
	size_t la = member_name(a, prefix_len, &na, &da);
	size_t lb = member_name(b, prefix_len, &nb, &db);

	return da == db && la == lb && strncmp(na, nb, la) == 0;
}

/* Is field b, in the object of prefix, part of the member a makes? */
static bool joins(const struct record_field *a, const struct record_field *b,
		  const char *prefix, size_t prefix_len)
{
	return (!prefix_len || in_group(b, prefix, prefix_len)) &&
	       same_member(a, b, prefix_len);
}

/*
 * The members of an object: fields [from, count) whose keys start with
 * prefix (prefix_len characters, "" at the top).  A key the record
 * repeats becomes an array, in order; "a.b" and "a.c" become "a": {...}.
 */
static void json_members(struct render *report, FILE *out,
			 const struct record *rec, unsigned from,
			 const char *prefix, size_t prefix_len)
{
	bool first = true;

	for (unsigned i = from; i < rec->count; i++) {
		const struct record_field *field = &rec->fields[i];
		const char *name;
		char key[RENDER_FIELD_TEXT_MAX];
		unsigned repeats = 0, j;
		bool nested;
		size_t len;

		if (prefix_len && !in_group(field, prefix, prefix_len))
			continue;
		for (j = from; j < i; j++)
			if (joins(field, &rec->fields[j], prefix, prefix_len))
				break;
		if (j < i)
			continue;	/* written with its first occurrence */
		len = member_name(field, prefix_len, &name, &nested);
		fputs(first ? "" : ", ", out);
		first = false;
		snprintf(key, sizeof(key), "%.*s", (int)len, name);
		json_write_string(out, key);
		fputs(": ", out);
		if (nested) {
			fputc('{', out);
			json_members(report, out, rec, i, key_of(field),
				     prefix_len + len + 1);
			fputc('}', out);
			continue;
		}
		json_note_unit(report, key_of(field), field->unit);
		for (j = i; j < rec->count; j++)
			repeats += joins(field, &rec->fields[j], prefix,
					 prefix_len);
		if (repeats == 1) {
			json_value(out, field);
			continue;
		}
		fputc('[', out);
		for (j = i; j < rec->count; j++) {
			if (!joins(field, &rec->fields[j], prefix, prefix_len))
				continue;
			fputs(j > i ? ", " : "", out);
			json_value(out, &rec->fields[j]);
		}
		fputc(']', out);
	}
}

/* One member "name": value of an object gathered in b. */
static void buffer_member(struct render_buffer *b, const char *separator,
			  const char *name, const struct record_field *field)
{
	fputs(b->count++ ? separator : "", b->out);
	json_write_string(b->out, name);
	fputs(": ", b->out);
	json_value(b->out, field);
}

/* Does the finding rec have a value?  (One the card states, such as its
   preferred_erase_size, has a value and no confidence.) */
static bool has_value(const struct record *rec)
{
	for (unsigned i = 1; i < rec->count; i++)
		if (strcmp(key_of(&rec->fields[i]), "value") == 0)
			return isfinite(rec->fields[i].value);
	return false;
}

/*
 * What schema 1 wrote of an indexed record (a finding), kept for the
 * scripts that read it: its value at the top level under its name, its
 * lower_bound as NAME_is_lower_bound, its confidence (0 for one not
 * determined; none for a stated value) and its reason, where it has one.
 */
static void schema1_members(struct render *report, const char *name,
			    const struct record *rec)
{
	bool valued = has_value(rec);

	for (unsigned i = 1; i < rec->count; i++) {
		struct record_field field = rec->fields[i];
		const char *key = key_of(&field);
		char bound[RENDER_KEY_MAX + 16];

		if (strcmp(key, "value") == 0) {
			buffer_member(&report->schema1_top, ",\n  ", name,
				      &field);
		} else if (strcmp(key, "lower_bound") == 0) {
			snprintf(bound, sizeof(bound), "%s_is_lower_bound",
				 name);
			buffer_member(&report->schema1_top, ",\n  ", bound,
				      &field);
		} else if (strcmp(key, "confidence") == 0) {
			if (!isfinite(field.value) && valued)
				continue;
			if (!isfinite(field.value))
				field.value = 0;
			buffer_member(&report->schema1_confidence, ", ", name,
				      &field);
		} else if ((strcmp(key, "why") == 0 ||
			    strcmp(key, "reason") == 0) && field.label &&
			   field.label[0]) {
			buffer_member(&report->schema1_why, ", ", name,
				      &field);
		}
	}
}

/* A record of the index: under its first field's label, the others. */
static void json_index_record(struct render *report,
			      const struct record *rec)
{
	const struct render_meta *meta = report->meta;
	const struct record_field *first = &rec->fields[0];

	if (!report->index.out || !rec->count ||
	    first->unit != RECORD_LABEL ||
	    strcmp(key_of(first), meta->index_key ? meta->index_key : ""))
		return;
	fputs(report->index.count++ ? ",\n    " : "\n    ", report->index.out);
	json_write_string(report->index.out, first->label);
	fputs(": {", report->index.out);
	json_members(report, report->index.out, rec, 1, "", 0);
	fputc('}', report->index.out);
	if (report->meta->index_schema1)
		schema1_members(report, first->label, rec);
}

void render_json_record(struct render *report, const struct record *rec)
{
	FILE *out = report->out;

	fputs(report->records ? ",\n    {\"kind\": " : "\n    {\"kind\": ",
	      out);
	json_write_string(out, render_kind_of(rec));
	if (rec->count)
		fputs(", ", out);
	json_members(report, out, rec, 0, "", 0);
	fputc('}', out);
	json_index_record(report, rec);
}

/* The schema-1 members, for its readers: see report_meta.index_schema1. */
static void json_schema1_end(struct render *report)
{
	FILE *out = report->out;
	const char *top = render_buffer_text(&report->schema1_top);
	const char *confidence = render_buffer_text(&report->schema1_confidence);
	const char *why = render_buffer_text(&report->schema1_why);

	if (report->schema1_top.count)
		fprintf(out, "  %.*s,\n", (int)report->schema1_top.size, top);
	fprintf(out, "  \"confidence\": {%.*s},\n",
		(int)report->schema1_confidence.size, confidence);
	fprintf(out, "  \"not_determined\": {%.*s},\n",
		(int)report->schema1_why.size, why);
}

void render_json_end(struct render *report, const struct dev_stats *stats,
		     bool incomplete)
{
	FILE *out = report->out;

	fprintf(out, "%s],\n  \"incomplete\": %s,\n",
		report->records ? "\n  " : "", incomplete ? "true" : "false");
	if (stats)
		fprintf(out, "  \"device_time_ns\": %llu,\n"
			"  \"bytes_read\": %llu,\n  \"bytes_written\": %llu,\n",
			(unsigned long long)stats->time_ns,
			(unsigned long long)stats->bytes_read,
			(unsigned long long)stats->bytes_written);
	else
		fputs("  \"device_time_ns\": null,\n  \"bytes_read\": null,\n"
		      "  \"bytes_written\": null,\n", out);
	if (report->index.out) {
		const char *text = render_buffer_text(&report->index);

		fputs("  ", out);
		json_write_string(out, report->meta->index_member);
		fprintf(out, ": {%.*s%s},\n", (int)report->index.size, text,
			report->index.count ? "\n  " : "");
	}
	if (report->schema1_top.out)
		json_schema1_end(report);
	fputs("  \"units\": {", out);
	for (unsigned i = 0; i < report->unit_keys.count; i++) {
		fputs(i ? ", " : "", out);
		json_write_string(out, report->unit_keys.keys[i]);
		fputs(": ", out);
		json_write_string(out,
				  render_unit_name(report->unit_keys.units[i]));
	}
	fputs("}\n}\n", out);
}
