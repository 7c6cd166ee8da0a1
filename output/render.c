/*
 * render: text, CSV and JSON renderings of result records.  Each format
 * is a row of the formatter table (JSON's steps in renderjson.c, the
 * state they share in renderstate.c); the text format reproduces the
 * original tool's lines byte for byte (tabs, 7-character columns).  The
 * machine formats carry raw numbers in base units: bytes, ns, bytes/s.
 */
#include <errno.h>
#include <math.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/json.h"
#include "output/render.h"
#include "output/renderjson.h"
#include "output/renderstate.h"
#include "lib/units.h"

#define COLUMN_WIDTH 7

const struct text_look text_hidden = { .display = TEXT_AS_UNIT,
				       .template = "" };


/*
 * Output is flushed only between records: at once on a terminal, else
 * when the buffer nears full, so no partial line ever reaches a file and
 * no system call sits between two measurements.
 */
#define REPORT_BUFFER (64 * 1024)
#define REPORT_RECORD_MAX (8 * 1024)	/* more than any one record */

struct formatter {
	const char *name;
	void (*begin)(struct render *report);
	void (*record)(struct render *report, const struct record *rec);
	void (*end)(struct render *report, const struct dev_stats *stats,
		    bool incomplete);
};

void render_hide_fields(struct record *rec)
{
	for (unsigned i = 0; i < rec->count; i++)
		rec->fields[i].look = &text_hidden;
}

/* The look field i of rec shows with (layout.h says which). */
static const struct text_look *look_of(const struct record *rec,
				       unsigned i)
{
	static const struct text_look own = { .display = TEXT_AS_UNIT };
	const struct text_layout *layout = rec->layout;

	if (rec->fields[i].look)
		return rec->fields[i].look;
	if (layout && layout->looks && i < layout->look_count)
		return &layout->looks[i];
	return &own;
}

/* The unit's own text: "4096", "87.3µs", "10.7M/s", "yes". */
static void text_as_unit(const struct record_field *field, char *buf,
			 size_t size)
{
	switch (field->unit) {
	case RECORD_TIME:
		units_format_time(buf, field->value);
		break;
	case RECORD_RATE:
		units_format_rate(buf, field->value);
		break;
	case RECORD_BOOL:
		snprintf(buf, size, "%s", !isfinite(field->value) ? "-" :
			 field->value != 0 ? "yes" : "no");
		break;
	default:
		snprintf(buf, size, "%.0f", field->value);
		break;
	}
}

const char *render_field_text(const struct record_field *field,
			      enum text_display display, unsigned digits,
			      char *buf, size_t size)
{
	char value[UNITS_BUF];

	if (field->unit == RECORD_LABEL) {
		/* whole, however long; a label not known is empty */
		snprintf(buf, size, "%s", field->label ? field->label : "");
		return buf;
	}
	switch (display) {
	case TEXT_SIZE:
		units_format_size(value, field->value);
		break;
	case TEXT_MIB:
		snprintf(value, sizeof(value), "%g", field->value / 1048576);
		break;
	case TEXT_MS:
		snprintf(value, sizeof(value), "%g", field->value / 1e6);
		break;
	case TEXT_MBPS:
		/* three significant digits, never an exponent */
		snprintf(value, sizeof(value), fabs(field->value) >= 999.5e6 ?
			 "%.0f" : "%.3g", field->value / 1e6);
		break;
	case TEXT_EXACT_SIZE:
		units_format_exact_size(value, (uint64_t)field->value);
		break;
	case TEXT_PERCENT:
		snprintf(value, sizeof(value), "%.0f%%", field->value * 100);
		break;
	case TEXT_KIBPS:
		snprintf(value, sizeof(value), "%.0f",
			 floor(field->value / 1024));
		break;
	case TEXT_FIXED:
		snprintf(value, sizeof(value), "%.*f", (int)digits,
			 field->value);
		break;
	case TEXT_SECONDS:
		snprintf(value, sizeof(value), "%.*f", (int)digits,
			 field->value / 1e9);
		break;
	default:
		text_as_unit(field, value, sizeof(value));
		break;
	}
	snprintf(buf, size, "%s", value);
	return buf;
}

/*
 * text padded to the look's width in columns, left- or right-aligned:
 * UTF-8 continuation bytes take no column ("µs" is 3 bytes, 2 columns),
 * so a column of times stays straight whatever their unit.
 */
static void pad_to_width(const struct text_look *look, const char *text,
			 char *buf, size_t size)
{
	size_t columns = 0, pad, len;

	for (const char *c = text; *c; c++)
		columns += ((unsigned char)*c & 0xc0) != 0x80;
	pad = look->width > columns ? look->width - columns : 0;
	if (pad >= size)
		pad = size - 1;
	if (look->right) {
		memset(buf, ' ', pad);
		snprintf(buf + pad, size - pad, "%s", text);
		return;
	}
	len = strnlen(text, size - 1);
	memcpy(buf, text, len);
	if (pad > size - 1 - len)
		pad = size - 1 - len;
	memset(buf + len, ' ', pad);
	buf[len + pad] = '\0';
}

/* Apply a look's template: "min %" -> "min 1.2ms"; "pre" -> "pre X". */
static void field_with_template(const struct record_field *field,
				const struct text_look *look, char *buf,
				size_t size)
{
	char text[RENDER_FIELD_TEXT_MAX], value[RENDER_FIELD_TEXT_MAX];
	const char *mark;

	if (look->display == TEXT_TEMPLATE_ALONE) {
		snprintf(buf, size, "%s", look->template ? look->template : "");
		return;
	}
	if (look->unknown && (field->unit == RECORD_LABEL ? !field->label :
			      !isfinite(field->value)))
		snprintf(text, sizeof(text), "%s", look->unknown);
	else
		render_field_text(field, look->display, look->digits, text,
				  sizeof(text));
	pad_to_width(look, text, value, sizeof(value));
	if (!look->template) {
		snprintf(buf, size, "%s", value);
	} else if ((mark = strchr(look->template, '%'))) {
		snprintf(buf, size, "%.*s%s%s", (int)(mark - look->template),
			 look->template, value, mark + 1);
	} else {
		snprintf(buf, size, "%s %s", look->template, value);
	}
}

/* A field for the machine formats only: its template is "". */
static bool text_hidden_at(const struct record *rec, unsigned i)
{
	const struct text_look *look = look_of(rec, i);

	return look->template && !look->template[0];
}

static void text_record(struct render *report, const struct record *rec)
{
	enum text_style style = rec->layout ? rec->layout->style :
				TEXT_COLUMNS;
	unsigned shown = rec->count;

	/* the last field shown ends the line; with none, there is no line */
	while (shown > 0 && text_hidden_at(rec, shown - 1))
		shown--;
	if (!shown)
		return;
	if (rec->layout && rec->layout->caption)
		fprintf(report->out, "%-*s", (int)rec->layout->caption_width,
			rec->layout->caption);
	for (unsigned i = 0; i < shown; i++) {
		char field[2 * RENDER_FIELD_TEXT_MAX];
		bool last = i + 1 == shown;

		if (text_hidden_at(rec, i))
			continue;
		field_with_template(&rec->fields[i], look_of(rec, i), field,
				    sizeof(field));
		/* a field that ends a line needs no separator after it */
		if (last || (field[0] && field[strlen(field) - 1] == '\n'))
			fputs(field, report->out);
		else if (style == TEXT_COLUMNS)
			fprintf(report->out, "%-*s ", COLUMN_WIDTH, field);
		else if (style == TEXT_PACKED)
			fputs(field, report->out);
		else
			fprintf(report->out, "%s%c", field,
				style == TEXT_TABS ? '\t' : ' ');
	}
	fputc('\n', report->out);
}

static void text_end(struct render *report, const struct dev_stats *stats,
		     bool incomplete)
{
	(void)stats;
	if (incomplete)
		fprintf(report->out, "# incomplete: interrupted\n");
}

/* ---- shared by the machine formats ---- */

const char *render_unit_name(enum record_unit unit)
{
	switch (unit) {
	case RECORD_BYTES:
		return "bytes";
	case RECORD_TIME:
		return "ns";
	case RECORD_RATE:
		return "bytes/s";
	case RECORD_LABEL:
		return "label";
	case RECORD_BOOL:
		return "boolean";
	default:
		return "count";
	}
}

/* Does unit count whole bytes or nanoseconds? */
static bool unit_is_integral(enum record_unit unit)
{
	return strcmp(render_unit_name(unit), "bytes") == 0 ||
	       strcmp(render_unit_name(unit), "ns") == 0;
}

/*
 * value to 6 significant digits in plain decimal notation: printf's %e
 * rounds the digits (the same on every platform at that width), and they
 * are placed around the point here, so no reader meets an exponent
 * (1.07014e+07 is 10701400, 1.5e-05 is 0.000015).
 */
static void format_plain(char *buf, size_t size, double value)
{
	char sci[32], digits[8], text[REPORT_NUMBER_MAX];
	int exponent, n = 0, point;
	size_t at = 0;
	const char *e;

	snprintf(sci, sizeof(sci), "%.5e", fabs(value));
	for (const char *c = sci; *c && *c != 'e' && n < 7; c++)
		if (*c >= '0' && *c <= '9')
			digits[n++] = *c;
	e = strchr(sci, 'e');
	exponent = e ? atoi(e + 1) : 0;
	while (n > 1 && digits[n - 1] == '0')
		n--;			/* 1.50000e-05: the digits are 15 */
	point = exponent + 1;		/* digits before the point */
	if (value < 0)
		text[at++] = '-';
	if (point <= 0) {
		text[at++] = '0';
		text[at++] = '.';
		for (int i = point; i < 0 && at + 8 < sizeof(text); i++)
			text[at++] = '0';
	}
	for (int i = 0; (i < n || i < point) && at + 2 < sizeof(text); i++) {
		if (i == point && point > 0)
			text[at++] = '.';
		text[at++] = i < n ? digits[i] : '0';
	}
	text[at] = '\0';
	snprintf(buf, size, "%s", text);
}

const char *render_format_number(char *buf, size_t size, double value,
				 enum record_unit unit)
{
	if (!isfinite(value)) {
		snprintf(buf, size, "null");
		return buf;
	}
	/*
	 * Bytes and nanoseconds whole, other values (rates, ratios) to six
	 * significant digits, without an exponent, so sort -n, awk and the
	 * shell read them and a run prints the same bytes everywhere.  A
	 * count that is whole prints whole however long.
	 */
	if (unit_is_integral(unit) ||
	    (value == floor(value) && fabs(value) < 1e15 &&
	     unit != RECORD_RATE))
		snprintf(buf, size, "%.0f", value);
	else
		format_plain(buf, size, value);
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, size, "0");	/* no "-0" */
	return buf;
}

/*
 * Column name of field i: its key, or key_N for the Nth (from 0) of a
 * key that the record repeats (find-fat's rate of each erase block).
 */
static void column_name(const struct record *rec, unsigned i, char *buf,
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

/* Index of the column called name, added if new. */
static unsigned csv_column(struct render *report, const char *name)
{
	return render_keys_index(&report->columns, name, RECORD_LABEL);
}

/* One cell's text, as CSV writes it (empty for an unknown value). */
static void csv_cell(FILE *out, const struct record_field *field)
{
	char number[REPORT_NUMBER_MAX];

	if (field->unit == RECORD_LABEL)
		csv_string(out, field->label ? field->label : "");
	else if (field->unit == RECORD_BOOL && isfinite(field->value))
		fputs(field->value != 0 ? "true" : "false", out);
	else if (isfinite(field->value))
		fputs(render_format_number(number, sizeof(number),
					   field->value, field->unit), out);
}

/*
 * A record is kept until the end, as cells "column index, text" in
 * report->rows: the header is the union of every kind's columns, and is
 * known only when the last record is in.
 */
static void csv_record(struct render *report, const struct record *rec)
{
	FILE *rows = report->rows.out;

	fprintf(rows, "%u", rec->count + 1);
	fprintf(rows, "%c%u%c", 0, 0u, 0);
	csv_string(rows, render_kind_of(rec));
	for (unsigned i = 0; i < rec->count; i++) {
		char name[RENDER_KEY_MAX];

		column_name(rec, i, name, sizeof(name));
		fprintf(rows, "%c%u%c", 0, csv_column(report, name) + 1, 0);
		csv_cell(rows, &rec->fields[i]);
	}
	fputc(0, rows);
}

/* Text up to the next NUL at *at, which then moves past it. */
static const char *next_part(const char **at)
{
	const char *part = *at;

	*at += strlen(part) + 1;
	return part;
}

/*
 * The column of the cells keyed "note" (prose about the row), which the
 * header puts last whether any record has one or not; columns when none.
 */
static unsigned note_column(const struct render *report)
{
	for (unsigned i = 0; i < report->columns.count; i++)
		if (strcmp(report->columns.keys[i], "note") == 0)
			return i;
	return report->columns.count;
}

/*
 * cells[0..] in header order: the kind, every column but the note, then
 * the note (note_text instead, when given).
 */
static void csv_write_cells(struct render *report, const char **cells,
			    const char *note_text)
{
	unsigned columns = report->columns.count, note = note_column(report);

	fprintf(report->out, "%d", JSON_SCHEMA);
	for (unsigned c = 0; c <= columns; c++) {
		if (c == note + 1)
			continue;
		fputc(',', report->out);
		fputs(cells[c] ? cells[c] : "", report->out);
	}
	if (!note_text && note < columns)
		note_text = cells[note + 1];
	fprintf(report->out, ",%s\n", note_text ? note_text : "");
}

/* One stored row, each cell in its column (cells: one per column and
   the kind's, all NULL), the others empty. */
static const char *csv_write_row(struct render *report, const char *at,
				 const char **cells)
{
	unsigned count = (unsigned)strtoul(next_part(&at), NULL, 10);
	unsigned columns = report->columns.count;

	for (unsigned i = 0; i < count; i++) {
		unsigned column = (unsigned)strtoul(next_part(&at), NULL, 10);
		const char *text = next_part(&at);

		if (column <= columns && !cells[column])
			cells[column] = text;
	}
	csv_write_cells(report, cells, NULL);
	return at;
}

/*
 * One table: "schema,kind," every column any record has and "note", then
 * the rows.  An interrupted run ends with a row of kind "incomplete",
 * its cells empty and the reason in "note": rows before it are whole,
 * and every row is data with the header's columns.
 */
static void csv_end(struct render *report, const struct dev_stats *stats,
		    bool incomplete)
{
	unsigned columns = report->columns.count, note;
	const char **cells = calloc(columns + 1, sizeof(*cells));
	const char *at, *end;

	(void)stats;
	render_buffer_text(&report->rows);
	if (!cells) {
		report->columns.full = true;
		return;
	}
	note = note_column(report);
	if (report->records || incomplete) {
		fputs("schema,kind", report->out);
		for (unsigned i = 0; i < columns; i++) {
			if (i == note)
				continue;
			fputc(',', report->out);
			csv_string(report->out, report->columns.keys[i]);
		}
		fputs(",note\n", report->out);
	}
	at = report->rows.text;
	end = at + report->rows.size;
	while (at < end) {
		memset(cells, 0, (columns + 1) * sizeof(*cells));
		at = csv_write_row(report, at, cells);
	}
	if (incomplete) {
		memset(cells, 0, (columns + 1) * sizeof(*cells));
		cells[0] = "incomplete";
		csv_write_cells(report, cells, "interrupted");
	}
	free(cells);
}


static const struct formatter formatters[RENDER_FORMAT_COUNT] = {
	[RENDER_TEXT] = { "text", NULL, text_record, text_end },
	[RENDER_CSV] = { "csv", NULL, csv_record, csv_end },
	[RENDER_JSON] = { "json", render_json_begin, render_json_record,
			 render_json_end },
};

int render_parse_format(const char *name, enum render_format *format)
{
	for (int i = 0; i < RENDER_FORMAT_COUNT; i++)
		if (formatters[i].name &&
		    strcmp(formatters[i].name, name) == 0) {
			*format = (enum render_format)i;
			return 0;
		}
	return -EINVAL;
}

/* 0, or -ENOMEM when a write to one of them failed. */
static int close_buffers(struct render *report)
{
	int err = render_buffer_close(&report->rows);

	err = render_buffer_close(&report->index) ? -ENOMEM : err;
	err = render_buffer_close(&report->schema1_top) ? -ENOMEM : err;
	err = render_buffer_close(&report->schema1_confidence) ? -ENOMEM : err;
	err = render_buffer_close(&report->schema1_why) ? -ENOMEM : err;
	return err;
}

struct render *render_open(FILE *out, enum render_format format,
			   const struct render_meta *meta)
{
	struct render *report = calloc(1, sizeof(*report));

	if (!report)
		return NULL;
	report->out = out;
	report->format = format;
	report->meta = meta;
	report->terminal = isatty(fileno(out));
	if ((format == RENDER_CSV && !render_buffer_open(&report->rows)) ||
	    (format == RENDER_JSON && meta->index_member &&
	     !render_buffer_open(&report->index)) ||
	    (format == RENDER_JSON && meta->index_schema1 &&
	     (!render_buffer_open(&report->schema1_top) ||
	      !render_buffer_open(&report->schema1_confidence) ||
	      !render_buffer_open(&report->schema1_why)))) {
		close_buffers(report);
		free(report);
		return NULL;
	}
	if (!report->terminal)
		setvbuf(out, NULL, _IOFBF, REPORT_BUFFER);
	if (formatters[format].begin)
		formatters[format].begin(report);
	return report;
}

int render_record(void *ctx, const struct record *record)
{
	struct render *report = ctx;

	/* whole records only: a later failure leaves no partial line */
	if (__fpending(report->out) > REPORT_BUFFER - REPORT_RECORD_MAX)
		fflush(report->out);
	formatters[report->format].record(report, record);
	report->records++;
	if (report->terminal)
		fflush(report->out);
	return ferror(report->out) ? -EIO : 0;
}

int render_close(struct render *report, const struct dev_stats *stats,
		 bool incomplete)
{
	int err;

	if (formatters[report->format].end)
		formatters[report->format].end(report, stats, incomplete);
	fflush(report->out);
	err = ferror(report->out) ? -EIO : 0;
	if (report->columns.full || report->unit_keys.full)
		err = -ENOMEM;
	render_keys_free(&report->columns);
	render_keys_free(&report->unit_keys);
	if (close_buffers(report))
		err = -ENOMEM;
	free(report);
	return err;
}
