/*
 * unit-report: the CSV and JSON renderings of hand-made records (escaping,
 * repeated keys, base units, non-finite numbers), the JSON reader on our
 * own output and on hostile text, and SVG charts drawn from records.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonparse.h"
#include "output/json.h"
#include "output/plot.h"
#include "output/render.h"
#include "unit.h"

static const struct vm_param params[] = {
	{ "blocksize", 16384 }, { "nr", 7 }, { "random", 1 },
};

static const bool param_flags[] = { false, false, true,
};

static const struct render_meta meta = {
	.test = "find-fat", .command = "flashbench -f \"x\" sim:",
	.device = "sim:", .device_size = 1 << 30, .logical_block_size = 512,
	.params = params, .param_count = 3, .param_flags = param_flags,
};

static const struct dev_stats stats = {
	.time_ns = 123456789, .bytes_read = 4096, .bytes_written = 8192,
};

static const struct text_look size_look = { .display = TEXT_SIZE };

/* block, then rate three times: find-fat's shape. */
static struct record fat_record(double block, double rate)
{
	struct record rec = { .count = 4 };

	rec.fields[0] = (struct record_field){ RECORD_BYTES, "block_bytes", &size_look,
					   NULL, block };
	for (unsigned i = 1; i < 4; i++)
		rec.fields[i] = (struct record_field){ RECORD_RATE, "bytes_per_s", NULL,
						   NULL, rate * i };
	return rec;
}

/* Render records in a format; the caller frees the text. */
static char *render(enum render_format format,
		    const struct record *recs, size_t n, bool incomplete)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct render *report = render_open(f, format, &meta);

	for (size_t i = 0; i < n; i++)
		render_record(report, &recs[i]);
	render_close(report, &stats, incomplete);
	fclose(f);
	return buf;
}

static void test_numbers(void)
{
	char buf[32];

	UNIT_STREQ(render_format_number(buf, sizeof(buf), 4194304,
					RECORD_BYTES), "4194304",
		   "integers print whole");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), 418123.6,
					RECORD_TIME), "418124",
		   "nanoseconds print as whole numbers");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), 19876543.21,
					RECORD_RATE), "19876500",
		   "rates print to six significant digits, no exponent");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), 1.5e-5,
					RECORD_COUNT), "0.000015",
		   "small values print in plain decimals");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), 999999.7,
					RECORD_RATE), "1000000",
		   "rounding up carries into a new digit");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), -1234567.8,
					RECORD_RATE), "-1234570",
		   "negative rates keep their sign");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), 0.989005,
					RECORD_COUNT), "0.989005",
		   "a confidence prints as it is");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), 1.0 / 3,
					RECORD_COUNT), "0.333333",
		   "fractions print to six significant digits");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), 123456789,
					RECORD_COUNT), "123456789",
		   "whole counts print whole");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), -0.0,
					RECORD_COUNT), "0",
		   "negative zero prints as 0");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), NAN, RECORD_RATE),
		   "null", "NaN is null");
	UNIT_STREQ(render_format_number(buf, sizeof(buf), -INFINITY,
					RECORD_TIME), "null",
		   "infinity is null");
}

/*
 * The readings' looks: a caption padded to its width, values padded to
 * theirs in characters (a "µ" is one column), text for
 * an unknown value, fixed-point and exact displays, the packed style.
 */
static void test_text_readings(void)
{
	static const struct text_layout caption = { .style = TEXT_SPACES,
		.caption = "cost:", .caption_width = 8 };
	static const struct text_look looks[] = {
		{ .display = TEXT_SECONDS, .digits = 3, .template = "% s," },
		{ .display = TEXT_EXACT_SIZE, .width = 6 },
		{ .display = TEXT_FIXED, .digits = 2, .template = "(%)" },
	};
	static const struct text_look columns[] = {
		{ .display = TEXT_AS_UNIT, .width = 8, .right = true },
		{ .display = TEXT_AS_UNIT, .width = 8 },
		{ .display = TEXT_FIXED, .digits = 1, .template = "|%",
		  .width = 4, .right = true, .unknown = "-" },
	};
	static const struct text_layout packed = { .style = TEXT_PACKED };
	struct record recs[2] = {
		{ .count = 3, .layout = &caption },
		{ .count = 3, .layout = &packed },
	};
	char *text;

	recs[0].fields[0] = (struct record_field){ RECORD_TIME, "t", &looks[0],
					       NULL, 3252187376.0 };
	recs[0].fields[1] = (struct record_field){ RECORD_BYTES, "b", &looks[1],
					       NULL, 12288 };
	recs[0].fields[2] = (struct record_field){ RECORD_COUNT, "c", &looks[2],
					       NULL, 0.989 };
	recs[1].fields[0] = (struct record_field){ RECORD_TIME, "x", &columns[0],
					       NULL, 87300 };
	recs[1].fields[1] = (struct record_field){ RECORD_TIME, "y", &columns[1],
					       NULL, 87300 };
	recs[1].fields[2] = (struct record_field){ RECORD_COUNT, "z",
					       &columns[2], NULL, NAN };
	text = render(RENDER_TEXT, recs, 2, false);
	UNIT_STREQ(text, "cost:   3.252 s, 12KiB  (0.99)\n"
		   "  87.3\xc2\xb5s87.3\xc2\xb5s  |   -\n",
		   "text: caption, widths in characters, unknown "
		   "text, fixed and exact displays, packed fields");
	free(text);
}

/*
 * A look that is its template alone: text composed from several fields
 * ("0-10% used", a '%' included) shows as it is, the value never; the
 * machine formats carry the value and no text.
 */
static void test_text_template_alone(void)
{
	static const struct text_look alone = {
		.display = TEXT_TEMPLATE_ALONE,
		.template = "  life time: A 0-10% used\n  size: 4 MiB" };
	static const struct text_layout packed = { .style = TEXT_PACKED };
	struct record rec = { .count = 2, .layout = &packed,
				 .kind = "emmc" };
	char *text;

	rec.fields[0] = (struct record_field){ RECORD_BYTES, "size_bytes",
					   &alone, NULL, 4194304 };
	rec.fields[1] = (struct record_field){ RECORD_LABEL, "life", &text_hidden,
					   "A", 0 };
	text = render(RENDER_TEXT, &rec, 1, false);
	UNIT_STREQ(text, "  life time: A 0-10% used\n  size: 4 MiB\n",
		   "text: a template alone, its percent sign kept, not the value");
	free(text);
	text = render(RENDER_CSV, &rec, 1, false);
	UNIT_STREQ(text, "schema,kind,size_bytes,life,note\n"
		   "3,emmc,4194304,A,\n",
		   "csv: the values, not the template");
	free(text);
}

static void test_parse_format(void)
{
	enum render_format f = RENDER_TEXT;

	UNIT_CHECK(render_parse_format("csv", &f) == 0 && f == RENDER_CSV,
		   "csv parses");
	UNIT_CHECK(render_parse_format("json", &f) == 0 && f == RENDER_JSON,
		   "json parses");
	UNIT_CHECK(render_parse_format("text", &f) == 0 && f == RENDER_TEXT,
		   "text parses");
	UNIT_CHECK(render_parse_format("xml", &f) == -EINVAL,
		   "unknown format refused");
}

static void test_text(void)
{
	struct record rec = fat_record(4194304, 10.7e6);
	char *text = render(RENDER_TEXT, &rec, 1, false);

	UNIT_STREQ(text, "4MiB    10.7M/s 21.4M/s 32.1M/s\n",
		   "text columns unchanged");
	free(text);
}

/*
 * The text layout: looks by position, a field's own look before them,
 * displays of the same base units, templates, hidden fields, the style.
 */
static void test_text_layout(void)
{
	static const struct text_look looks[] = {
		{ .display = TEXT_MIB, .template = "% MiB" },
		{ .display = TEXT_MS, .template = "at" },
		{ .display = TEXT_MBPS, .template = "% MB/s" },
	};
	static const struct text_layout tabs = { .style = TEXT_TABS,
						 .looks = looks,
						 .look_count = 3 };
	static const struct text_look own = { .display = TEXT_AS_UNIT,
					      .template = "own %" };
	struct record recs[2] = { { .count = 4, .layout = &tabs },
				     { .count = 2, .layout = &tabs } };
	char *text;

	recs[0].fields[0] = (struct record_field){ RECORD_BYTES, "a", NULL,
					       NULL, 3145728 };
	recs[0].fields[1] = (struct record_field){ RECORD_TIME, "b", NULL,
					       NULL, 2500000 };
	recs[0].fields[2] = (struct record_field){ RECORD_RATE, "c", &own,
					       NULL, 2.5e6 };
	recs[0].fields[3] = (struct record_field){ RECORD_TIME, "d", NULL,
					       NULL, 87300 };
	recs[1].fields[0] = (struct record_field){ RECORD_BYTES, "a",
					       &text_hidden, NULL, 1 };
	recs[1].fields[1] = (struct record_field){ RECORD_TIME, "b",
					       &text_hidden, NULL, 1 };
	text = render(RENDER_TEXT, recs, 2, false);
	UNIT_STREQ(text, "3 MiB\tat 2.5\town 2.5M/s\t87.3\xc2\xb5s\n",
		   "text: looks by position, own look first, units' own "
		   "past the layout, a record of hidden fields prints no "
		   "line");
	free(text);
	text = render(RENDER_CSV, recs, 1, false);
	UNIT_STREQ(text, "schema,kind,a,b,c,d,note\n"
		   "3,measurement,3145728,2500000,2500000,87300,\n",
		   "csv: the layout changes nothing, base units");
	free(text);
}

static void test_csv(void)
{
	struct record recs[3] = { fat_record(4194304, 1e7),
				     fat_record(2097152, 0.5) };
	char *text;

	recs[1].fields[2].value = NAN;
	recs[2] = (struct record){ .count = 2, .kind = "note" };
	recs[2].fields[0] = (struct record_field){ RECORD_LABEL, "name", NULL,
					       "a,\"b\"", 0 };
	recs[2].fields[1] = (struct record_field){ RECORD_TIME, "time",
		&(const struct text_look){ .display = TEXT_MS }, NULL,
		1500000 };
	text = render(RENDER_CSV, recs, 3, false);
	UNIT_STREQ(text,
		   "schema,kind,block_bytes,bytes_per_s_0,bytes_per_s_1,"
		   "bytes_per_s_2,name,time,note\n"
		   "3,measurement,4194304,10000000,20000000,30000000,,,\n"
		   "3,measurement,2097152,0.5,,1.5,,,\n"
		   "3,note,,,,,\"a,\"\"b\"\"\",1500000,\n",
		   "csv: one table, kind column, repeated keys numbered, NaN "
		   "empty, quoting, ns not ms, empty cells for other kinds");
	free(text);
}

/*
 * A field keyed "note" fills the note column, last whatever the order;
 * an interrupted run ends with a row of kind incomplete, its reason in
 * the note, its other cells empty.
 */
static void test_csv_note(void)
{
	struct record recs[2] = { { .count = 2, .kind = "note" },
				  { .count = 1, .kind = "host_queue" } };
	char *text;

	recs[0].fields[0] = (struct record_field){ RECORD_LABEL, "note", NULL,
					       "slow host", 0 };
	recs[0].fields[1] = (struct record_field){ RECORD_COUNT, "depth", NULL,
					       NULL, 32 };
	recs[1].fields[0] = (struct record_field){ RECORD_LABEL, "queues", NULL,
					       "yes", 0 };
	text = render(RENDER_CSV, recs, 2, true);
	UNIT_STREQ(text, "schema,kind,depth,queues,note\n"
		   "3,note,32,,slow host\n"
		   "3,host_queue,,yes,\n"
		   "3,incomplete,,,interrupted\n",
		   "csv: the note column last, the incomplete row");
	free(text);
	text = render(RENDER_CSV, NULL, 0, true);
	UNIT_STREQ(text, "schema,kind,note\n3,incomplete,interrupted\n",
		   "csv: interrupted before any record: header and the row");
	free(text);
}

static void test_json(void)
{
	struct record recs[2] = { fat_record(4194304, 1e7) };
	char *text;

	recs[0].fields[2].value = INFINITY;
	recs[1] = (struct record){ .count = 3 };
	recs[1].fields[0] = (struct record_field){ RECORD_LABEL, "k\"\\\n",
		NULL, "tab\there \x01 bad\xff end \xc2\xb5", 0 };
	recs[1].fields[1] = (struct record_field){ RECORD_BYTES, "offset",
		&(const struct text_look){ .display = TEXT_MIB }, NULL,
		1048576 };
	recs[1].fields[2] = (struct record_field){ RECORD_RATE, "rate",
		&(const struct text_look){ .display = TEXT_MBPS }, NULL,
		2.5e6 };
	text = render(RENDER_JSON, recs, 2, true);
	UNIT_CHECK(text && strstr(text, "{\"kind\": \"measurement\", "
				  "\"block_bytes\": 4194304, \"bytes_per_s\": "
				  "[10000000, null, 30000000]}"),
		   "json: repeated key as an array, infinity as null");
	UNIT_CHECK(text && strstr(text, "\"k\\\"\\\\\\n\": \"tab\\there "
				  "\\u0001 bad\\ufffd end \xc2\xb5\""),
		   "json: escapes, control characters, invalid UTF-8");
	UNIT_CHECK(text && strstr(text, "\"offset\": 1048576, "
				  "\"rate\": 2500000}"),
		   "json: MiB and MB/s carried as bytes and bytes/s");
	UNIT_CHECK(text && strstr(text, "\"command\": \"flashbench -f "
				  "\\\"x\\\" sim:\""), "json: command");
	UNIT_CHECK(text && strstr(text, "\"parameters\": {\"blocksize\": "
				  "16384, \"nr\": 7, \"random\": true}"),
		   "json: parameters, a yes/no option true or false");
	UNIT_CHECK(text && strstr(text, "\"incomplete\": true,\n"
				  "  \"device_time_ns\": 123456789,\n"
				  "  \"bytes_read\": 4096,\n"
				  "  \"bytes_written\": 8192,\n"),
		   "json: incomplete and accounting");
	UNIT_CHECK(text && strstr(text, "\"block_bytes\": \"bytes\", "
				  "\"bytes_per_s\": \"bytes/s\""), "json: units");
	free(text);
}

static void test_json_empty(void)
{
	char *text = render(RENDER_JSON, NULL, 0, false);
	struct json_value *doc = NULL;
	char err[128] = "";
	const struct json_value *results;

	UNIT_CHECK(text && json_parse(text, strlen(text), &doc, err,
				      sizeof(err)) == 0,
		   "json without records parses (%s)", err);
	results = json_get(doc, "results");
	UNIT_CHECK(results && results->type == JSON_ARRAY &&
		   results->count == 0, "json without records: empty results");
	json_free(doc);
	free(text);
}

/* Our own output read back. */
static void test_read_back(void)
{
	struct record recs[2] = { fat_record(4194304, 1e7),
				     fat_record(65536, 3.25) };
	char *text = render(RENDER_JSON, recs, 2, false);
	struct json_value *doc = NULL;
	const struct json_value *r, *rate, *cmd;
	char err[128] = "";

	UNIT_CHECK(json_parse(text, strlen(text), &doc, err,
			      sizeof(err)) == 0, "read back: parses (%s)",
		   err);
	r = json_get(doc, "results");
	rate = r && r->count == 2 ? json_get(&r->items[1], "bytes_per_s") :
	       NULL;
	UNIT_CHECK(rate && rate->type == JSON_ARRAY && rate->count == 3 &&
		   rate->items[2].number == 3.25 * 3,
		   "read back: the array of rates");
	cmd = json_get(doc, "command");
	UNIT_STREQ(cmd ? cmd->string : NULL, "flashbench -f \"x\" sim:",
		   "read back: escaped string");
	json_free(doc);
	free(text);
}

static void expect_refused(const char *text, const char *what)
{
	struct json_value *doc = NULL;
	char err[128] = "";
	int ret = json_parse(text, strlen(text), &doc, err, sizeof(err));

	UNIT_CHECK(ret == -EINVAL && !doc && err[0], "refused: %s (%s)",
		   what, err);
}

static void test_hostile(void)
{
	char deep[2 * JSON_MAX_DEPTH + 8];
	struct json_value *doc = NULL;
	char err[128];

	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	expect_refused(deep, "nested too deeply");
	expect_refused("{\"a\": 1", "unterminated object");
	expect_refused("\"abc", "unterminated string");
	expect_refused("\"a\\u0000b\"", "NUL in a string");
	expect_refused("\"\\ud800\"", "lone surrogate");
	expect_refused("\"\xff\"", "invalid UTF-8");
	expect_refused("01", "leading zero");
	expect_refused("-", "bare minus");
	expect_refused("[1,]", "trailing comma");
	expect_refused("{} x", "trailing text");
	expect_refused("", "empty input");
	expect_refused("nul", "truncated literal");
	UNIT_CHECK(json_parse("[1e999, -0, \"\\ud83d\\ude00\"]", 27, &doc,
			      err, sizeof(err)) == 0 && doc->count == 3 &&
		   isinf(doc->items[0].number) &&
		   strcmp(doc->items[2].string, "\xf0\x9f\x98\x80") == 0,
		   "surrogate pair decoded, huge number is infinite");
	json_free(doc);
	/* text not NUL-terminated: the reader stays inside length */
	UNIT_CHECK(json_parse("[1, 2]xyz", 6, &doc, err, sizeof(err)) == 0 &&
		   doc->count == 2, "length respected");
	json_free(doc);
}

static char *draw(struct plot *plot)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	plot_write(plot, f);
	fclose(f);
	return buf;
}

static unsigned count(const char *text, const char *what)
{
	unsigned n = 0;

	for (; text && (text = strstr(text, what)); text++)
		n++;
	return n;
}

static void test_plot(void)
{
	struct plot *plot = plot_new("a <chart> & more");
	struct record recs[3] = { fat_record(4194304, 1e7),
				     fat_record(2097152, 9e6),
				     fat_record(1048576, 5e6) };
	char *svg;

	UNIT_CHECK(plot_begin_run(plot, &meta, NULL) == 0, "plot: a run");
	for (int i = 0; i < 3; i++)
		plot_record(plot, &recs[i]);
	svg = draw(plot);
	UNIT_CHECK(count(svg, "<polyline") == 3,
		   "plot: find-fat draws one line per erase block");
	UNIT_CHECK(count(svg, "erase block 2") == 1, "plot: legend names");
	UNIT_CHECK(count(svg, "a &lt;chart&gt; &amp; more") == 1,
		   "plot: title escaped");
	UNIT_CHECK(count(svg, "MB/s") >= 1 && count(svg, "4MiB") == 1,
		   "plot: axes in MB/s and binary sizes");
	free(svg);
	UNIT_CHECK(plot_begin_run(plot, &(struct render_meta){
		.test = "align" }, NULL) == -EINVAL,
		   "plot: an align run does not join find-fat");
	plot_free(plot);

	plot = plot_new(NULL);
	svg = draw(plot);
	UNIT_CHECK(count(svg, "no data") == 1 && count(svg, "</svg>") == 1,
		   "plot: an empty chart is still a document");
	free(svg);
	plot_free(plot);
}

static void test_plot_load(void)
{
	char path[] = "/tmp/unit-report-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct plot *plot = plot_new(NULL);
	char err[128] = "";

	fputs("{\"schema\": 1, \"test\": \"open-au\", \"parameters\": "
	      "{\"nr\": 3}, \"results\": [{\"block\": \"x\", \"rate\": "
	      "[null, {}, 1]}, {\"block\": 4096, \"rate\": 1e6}, 5]}", f);
	fclose(f);
	UNIT_CHECK(plot_load_json(plot, path, err, sizeof(err)) == -EINVAL &&
		   strstr(err, "result 3"), "load: bad result named (%s)",
		   err);
	f = fopen(path, "w");
	fputs("{\"schema\": 2}", f);
	fclose(f);
	UNIT_CHECK(plot_load_json(plot, path, err, sizeof(err)) == -EINVAL,
		   "load: other schema refused (%s)", err);
	UNIT_CHECK(plot_load_json(plot, "/nonexistent/x.json", err,
				  sizeof(err)) == -ENOENT,
		   "load: missing file (%s)", err);
	free(draw(plot));
	plot_free(plot);
	remove(path);
}

int main(void)
{
	test_numbers();
	test_parse_format();
	test_text();
	test_text_layout();
	test_text_readings();
	test_text_template_alone();
	test_csv();
	test_csv_note();
	test_json();
	test_json_empty();
	test_read_back();
	test_hostile();
	test_plot();
	test_plot_load();
	return UNIT_DONE();
}
