/*
 * report: text, CSV and JSON renderings of result records.  Each format
 * is a row of the formatter table; the text format reproduces the
 * original tool's lines byte for byte (tabs, 7-character columns).  The
 * machine formats carry raw numbers in base units: bytes, ns, bytes/s.
 */
#include <errno.h>
#include <math.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "report.h"
#include "units.h"

#define REPORT_SCHEMA 1
#define COLUMN_WIDTH 7

#define KEY_MAX 32		/* longest key kept for headers and units */
#define UNIT_KEYS 64		/* distinct keys the JSON "units" lists */

/*
 * Output is flushed only between records: at once on a terminal, else
 * when the buffer nears full, so no partial line ever reaches a file and
 * no system call sits between two measurements.
 */
#define REPORT_BUFFER (64 * 1024)
#define REPORT_RECORD_MAX (8 * 1024)	/* more than any one record */

struct report {
	FILE *out;
	bool terminal;			/* flush every record */
	enum report_format format;
	const struct report_meta *meta;
	unsigned records;
	/* CSV: the columns of the current table */
	char columns[VM_MAX_FIELDS][KEY_MAX];
	unsigned column_count;
	/* JSON: every key seen, with its base unit */
	char unit_keys[UNIT_KEYS][KEY_MAX];
	enum vm_unit units[UNIT_KEYS];
	unsigned unit_key_count;
};

struct formatter {
	const char *name;
	void (*begin)(struct report *report);
	void (*record)(struct report *report, const struct vm_record *rec);
	void (*end)(struct report *report, const struct dev_stats *stats,
		    bool incomplete);
};

const char *report_field_text(const struct vm_field *field, char *buf,
			      size_t size)
{
	char value[UNITS_BUF];

	switch (field->unit) {
	case VM_UNIT_SIZE:
		units_format_size(value, field->value);
		break;
	case VM_UNIT_TIME:
		units_format_time(value, field->value);
		break;
	case VM_UNIT_RATE:
		units_format_rate(value, field->value);
		break;
	case VM_UNIT_MIB:
		snprintf(value, sizeof(value), "%g", field->value / 1048576);
		break;
	case VM_UNIT_MS:
		snprintf(value, sizeof(value), "%g", field->value / 1e6);
		break;
	case VM_UNIT_MBPS:
		/* three significant digits, never an exponent */
		snprintf(value, sizeof(value), fabs(field->value) >= 999.5e6 ?
			 "%.0f" : "%.3g", field->value / 1e6);
		break;
	case VM_UNIT_LABEL:
		snprintf(value, sizeof(value), "%s", field->label);
		break;
	default:
		snprintf(value, sizeof(value), "%.0f", field->value);
		break;
	}
	snprintf(buf, size, "%s", value);
	return buf;
}

/* Apply a field's text template: "min %" -> "min 1.2ms"; "pre" -> "pre X". */
static void field_with_template(const struct vm_field *field, char *buf,
				size_t size)
{
	char value[UNITS_BUF];
	const char *mark;

	report_field_text(field, value, sizeof(value));
	if (!field->text) {
		snprintf(buf, size, "%s", value);
	} else if ((mark = strchr(field->text, '%'))) {
		snprintf(buf, size, "%.*s%s%s", (int)(mark - field->text),
			 field->text, value, mark + 1);
	} else {
		snprintf(buf, size, "%s %s", field->text, value);
	}
}

static void text_record(struct report *report, const struct vm_record *rec)
{
	for (unsigned i = 0; i < rec->count; i++) {
		char field[128];
		bool last = i + 1 == rec->count;

		field_with_template(&rec->fields[i], field, sizeof(field));
		if (last)
			fputs(field, report->out);
		else if (rec->style == VM_STYLE_COLUMNS)
			fprintf(report->out, "%-*s ", COLUMN_WIDTH, field);
		else
			fprintf(report->out, "%s%c", field,
				rec->style == VM_STYLE_TABS ? '\t' : ' ');
	}
	fputc('\n', report->out);
}

static void text_end(struct report *report, const struct dev_stats *stats,
		     bool incomplete)
{
	(void)stats;
	if (incomplete)
		fprintf(report->out, "# incomplete: interrupted\n");
}

/* ---- shared by the machine formats ---- */

const char *report_unit_name(enum vm_unit unit)
{
	switch (unit) {
	case VM_UNIT_BYTES:
	case VM_UNIT_SIZE:
	case VM_UNIT_MIB:
		return "bytes";
	case VM_UNIT_TIME:
	case VM_UNIT_MS:
		return "ns";
	case VM_UNIT_RATE:
	case VM_UNIT_MBPS:
		return "bytes/s";
	case VM_UNIT_LABEL:
		return "label";
	default:
		return "count";
	}
}

const char *report_format_number(char *buf, size_t size, double value)
{
	if (!isfinite(value)) {
		snprintf(buf, size, "null");
		return buf;
	}
	if (value == 0) {
		/* no "-0" */
		snprintf(buf, size, "0");
		return buf;
	}
	/* the shortest digits that read back as the same double */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, size, "%.*g", digits, value);
		if (strtod(buf, NULL) == value)
			break;
	}
	return buf;
}

/*
 * Column name of field i: its key, or key_N for the Nth (from 0) of a
 * key that the record repeats (find-fat's rate of each erase block).
 */
static void column_name(const struct vm_record *rec, unsigned i, char *buf,
			size_t size)
{
	const char *key = rec->fields[i].key ? rec->fields[i].key : "value";
	unsigned before = 0, total = 0;

	for (unsigned j = 0; j < rec->count; j++) {
		const char *other = rec->fields[j].key ?
				    rec->fields[j].key : "value";

		if (strcmp(other, key) == 0) {
			total++;
			if (j < i)
				before++;
		}
	}
	if (total > 1)
		snprintf(buf, size, "%s_%u", key, before);
	else
		snprintf(buf, size, "%s", key);
}

/* ---- CSV (RFC 4180) ---- */

static void csv_string(FILE *out, const char *text)
{
	if (!text[strcspn(text, ",\"\r\n")]) {
		fputs(text, out);
		return;
	}
	fputc('"', out);
	for (; *text; text++) {
		if (*text == '"')
			fputc('"', out);
		fputc(*text, out);
	}
	fputc('"', out);
}

/* Same columns as the current table? */
static bool csv_same_columns(struct report *report,
			     const struct vm_record *rec)
{
	char name[KEY_MAX];

	if (rec->count != report->column_count)
		return false;
	for (unsigned i = 0; i < rec->count; i++) {
		column_name(rec, i, name, sizeof(name));
		if (strcmp(name, report->columns[i]) != 0)
			return false;
	}
	return true;
}

/*
 * A header row before the first record.  A record of another shape (the
 * interval test's regression after its measurements) starts a new table:
 * an empty line, then its own header.
 */
static void csv_header(struct report *report, const struct vm_record *rec)
{
	if (report->records)
		fputc('\n', report->out);
	report->column_count = rec->count;
	fputs("schema", report->out);
	for (unsigned i = 0; i < rec->count; i++) {
		column_name(rec, i, report->columns[i], KEY_MAX);
		fputc(',', report->out);
		csv_string(report->out, report->columns[i]);
	}
	fputc('\n', report->out);
}

static void csv_record(struct report *report, const struct vm_record *rec)
{
	char number[32];

	if (!report->records || !csv_same_columns(report, rec))
		csv_header(report, rec);
	fprintf(report->out, "%d", REPORT_SCHEMA);
	for (unsigned i = 0; i < rec->count; i++) {
		const struct vm_field *field = &rec->fields[i];

		fputc(',', report->out);
		if (field->unit == VM_UNIT_LABEL)
			csv_string(report->out, field->label ?
				   field->label : "");
		else if (isfinite(field->value))
			fputs(report_format_number(number, sizeof(number),
						   field->value),
			      report->out);
	}
	fputc('\n', report->out);
}

/* ---- JSON (RFC 8259) ---- */

void report_json_string(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");

	fputc('"', out);
	while (*s) {
		size_t n = json_utf8_length((const char *)s);

		if (*s == '"' || *s == '\\') {
			fprintf(out, "\\%c", *s);
		} else if (*s == '\n') {
			fputs("\\n", out);
		} else if (*s == '\t') {
			fputs("\\t", out);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s);
		} else if (n == 0) {
			/* not UTF-8: the replacement character */
			fputs("\\ufffd", out);
			n = 1;
		} else {
			fwrite(s, 1, n, out);
		}
		s += n ? n : 1;
	}
	fputc('"', out);
}

static void json_number(FILE *out, double value)
{
	char number[32];

	fputs(report_format_number(number, sizeof(number), value), out);
}

static void json_value(FILE *out, const struct vm_field *field)
{
	if (field->unit == VM_UNIT_LABEL)
		report_json_string(out, field->label);
	else
		json_number(out, field->value);
}

static void json_begin(struct report *report)
{
	const struct report_meta *meta = report->meta;
	FILE *out = report->out;

	fprintf(out, "{\n  \"schema\": %d,\n  \"command\": ", REPORT_SCHEMA);
	if (meta->command)
		report_json_string(out, meta->command);
	else
		fputs("null", out);
	fputs(",\n  \"test\": ", out);
	report_json_string(out, meta->test);
	fputs(",\n  \"device\": {\"path\": ", out);
	report_json_string(out, meta->device);
	fprintf(out, ", \"size\": %llu, \"logical_block_size\": %u},\n"
		"  \"parameters\": {",
		(unsigned long long)meta->device_size,
		(unsigned)meta->logical_block_size);
	for (size_t i = 0; i < meta->param_count; i++) {
		fputs(i ? ", " : "", out);
		report_json_string(out, meta->params[i].name);
		fputs(": ", out);
		json_number(out, meta->params[i].value);
	}
	fputs("},\n  \"results\": [", out);
}

static void json_note_unit(struct report *report, const char *key,
			   enum vm_unit unit)
{
	unsigned i;

	for (i = 0; i < report->unit_key_count; i++)
		if (strcmp(report->unit_keys[i], key) == 0)
			return;
	if (i == UNIT_KEYS)
		return;
	snprintf(report->unit_keys[i], KEY_MAX, "%s", key);
	report->units[i] = unit;
	report->unit_key_count++;
}

static bool same_key(const struct vm_field *a, const struct vm_field *b)
{
	return strcmp(a->key ? a->key : "value", b->key ? b->key : "value")
	       == 0;
}

/* One object; a key the record repeats becomes an array, in order. */
static void json_record(struct report *report, const struct vm_record *rec)
{
	FILE *out = report->out;
	bool first = true;

	fputs(report->records ? ",\n    {" : "\n    {", out);
	for (unsigned i = 0; i < rec->count; i++) {
		const struct vm_field *field = &rec->fields[i];
		const char *key = field->key ? field->key : "value";
		unsigned repeats = 0, j;

		for (j = 0; j < i && !same_key(&rec->fields[j], field); j++)
			;
		if (j < i)
			continue;	/* written with its first occurrence */
		for (j = i; j < rec->count; j++)
			repeats += same_key(&rec->fields[j], field);
		json_note_unit(report, key, field->unit);
		fputs(first ? "" : ", ", out);
		first = false;
		report_json_string(out, key);
		fputs(": ", out);
		if (repeats == 1) {
			json_value(out, field);
			continue;
		}
		fputc('[', out);
		for (j = i; j < rec->count; j++) {
			if (!same_key(&rec->fields[j], field))
				continue;
			fputs(j > i ? ", " : "", out);
			json_value(out, &rec->fields[j]);
		}
		fputc(']', out);
	}
	fputc('}', out);
}

static void json_end(struct report *report, const struct dev_stats *stats,
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
	fputs("  \"units\": {", out);
	for (unsigned i = 0; i < report->unit_key_count; i++) {
		fputs(i ? ", " : "", out);
		report_json_string(out, report->unit_keys[i]);
		fputs(": ", out);
		report_json_string(out, report_unit_name(report->units[i]));
	}
	fputs("}\n}\n", out);
}

static const struct formatter formatters[REPORT_FORMAT_COUNT] = {
	[REPORT_TEXT] = { "text", NULL, text_record, text_end },
	[REPORT_CSV] = { "csv", NULL, csv_record, NULL },
	[REPORT_JSON] = { "json", json_begin, json_record, json_end },
};

int report_parse_format(const char *name, enum report_format *format)
{
	for (int i = 0; i < REPORT_FORMAT_COUNT; i++)
		if (formatters[i].name &&
		    strcmp(formatters[i].name, name) == 0) {
			*format = (enum report_format)i;
			return 0;
		}
	return -EINVAL;
}

struct report *report_open(FILE *out, enum report_format format,
			   const struct report_meta *meta)
{
	struct report *report = calloc(1, sizeof(*report));

	if (!report)
		return NULL;
	report->out = out;
	report->format = format;
	report->meta = meta;
	report->terminal = isatty(fileno(out));
	if (!report->terminal)
		setvbuf(out, NULL, _IOFBF, REPORT_BUFFER);
	if (formatters[format].begin)
		formatters[format].begin(report);
	return report;
}

int report_record(void *ctx, const struct vm_record *record)
{
	struct report *report = ctx;

	/* whole records only: a later failure leaves no partial line */
	if (__fpending(report->out) > REPORT_BUFFER - REPORT_RECORD_MAX)
		fflush(report->out);
	formatters[report->format].record(report, record);
	report->records++;
	if (report->terminal)
		fflush(report->out);
	return ferror(report->out) ? -EIO : 0;
}

int report_close(struct report *report, const struct dev_stats *stats,
		 bool incomplete)
{
	int err;

	if (formatters[report->format].end)
		formatters[report->format].end(report, stats, incomplete);
	fflush(report->out);
	err = ferror(report->out) ? -EIO : 0;
	free(report);
	return err;
}
