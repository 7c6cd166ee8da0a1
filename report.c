/*
 * report: text, CSV and JSON renderings of result records.  Each format
 * is a row of the formatter table; the text format reproduces the
 * original tool's lines byte for byte (tabs, 7-character columns).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "units.h"

#define REPORT_SCHEMA 1
#define COLUMN_WIDTH 7

struct report {
	FILE *out;
	enum report_format format;
	const struct report_meta *meta;
	unsigned records;
	char columns[VM_MAX_FIELDS][32];	/* CSV header, first record */
	unsigned column_count;
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
		snprintf(value, sizeof(value), "%.3g", field->value / 1e6);
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

static const struct formatter formatters[REPORT_FORMAT_COUNT] = {
	[REPORT_TEXT] = { "text", NULL, text_record, text_end },
};

int report_parse_format(const char *name, enum report_format *format)
{
	for (int i = 0; i < REPORT_FORMAT_COUNT; i++)
		if (formatters[i].name && strcmp(formatters[i].name, name) == 0) {
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
	if (formatters[format].begin)
		formatters[format].begin(report);
	return report;
}

int report_record(void *ctx, const struct vm_record *record)
{
	struct report *report = ctx;

	formatters[report->format].record(report, record);
	report->records++;
	/* whole records only: a later failure leaves no partial line */
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
