/*
 * compare: saved documents into a table of cards.  A table of sources
 * says which record of which test gives which column; -a and -O records
 * are kept and judged by analysis/ at the end, all runs of a card
 * pooled, as --analyze does with pasted tables.  Documents of schema 1
 * and 2 come from analysis/saved.c under schema 3's keys.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/compare.h"
#include "analysis/pasted.h"
#include "analysis/saved.h"

#define RAW_RUNS 32		/* -O runs kept per card */

const struct compare_column_def compare_columns[COMPARE_COLUMNS] = {
	[COMPARE_SEQ_READ] = { "read_bytes_per_s", "seq read",
			       RECORD_RATE, true },
	[COMPARE_SEQ_WRITE] = { "write_bytes_per_s", "seq write",
				RECORD_RATE, true },
	[COMPARE_BURST] = { "burst_bytes_per_s", "burst", RECORD_RATE, true },
	/* a larger cache lasts longer, yet says nothing of the rate after */
	[COMPARE_CACHE] = { "cache_bytes", "cache", RECORD_BYTES, false },
	[COMPARE_SUSTAINED] = { "sustained_bytes_per_s", "sustained",
				RECORD_RATE, true },
	[COMPARE_READ_QD1] = { "read_iops_qd1", "QD1 read", RECORD_COUNT,
			       true },
	[COMPARE_WRITE_QD1] = { "write_iops_qd1", "QD1 write",
				RECORD_COUNT, true },
	[COMPARE_READ_QD32] = { "read_iops_qd32", "QD32 read",
				RECORD_COUNT, true },
	[COMPARE_WRITE_QD32] = { "write_iops_qd32", "QD32 write",
				 RECORD_COUNT, true },
	/* a larger erase block is no better, nor a smaller one */
	[COMPARE_ERASE] = { "erase_block_bytes", "erase block",
			    RECORD_BYTES, false },
	[COMPARE_OPEN] = { "open_erase_blocks", "open", RECORD_COUNT, true },
	[COMPARE_USABLE] = { "usable_bytes", "usable", RECORD_BYTES, false },
	[COMPARE_FIRST_ERROR] = { "passes_to_first_error", "first error",
				  RECORD_COUNT, true },
};

const struct compare_column_def compare_labels[COMPARE_LABELS] = {
	[COMPARE_CLASSES] = { "classes", "classes", RECORD_LABEL, false },
	[COMPARE_CAPACITY] = { "capacity", "capacity", RECORD_LABEL, false },
};

/* Where a column's value is in a saved document. */
struct source {
	const char *test;		/* the document's "test" */
	const char *kind;		/* the record's "kind" */
	const char *match_key;		/* NULL, or a label the record */
	const char *match_label;	/* must have */
	const char *key;		/* the value */
	enum compare_column column;
	unsigned iodepth;		/* 0 any, else the record's */
	bool block_4k;			/* only 4 KiB blocks (block_bytes) */
	unsigned rank;			/* 0 the test made for the column */
};

static const struct source sources[] = {
	{ "read-speed", "summary", NULL, NULL, "bytes_per_s",
	  COMPARE_SEQ_READ, 0, false, 0 },
	{ "write-speed", "summary", NULL, NULL, "bytes_per_s",
	  COMPARE_SEQ_WRITE, 0, false, 0 },
	{ "class-check", "measured", NULL, NULL, "write_bytes_per_s",
	  COMPARE_SEQ_WRITE, 0, false, 1 },
	{ "write-speed", "sustained", NULL, NULL, "burst_bytes_per_s",
	  COMPARE_BURST, 0, false, 0 },
	{ "write-speed", "sustained", NULL, NULL, "cache_bytes",
	  COMPARE_CACHE, 0, false, 0 },
	{ "write-speed", "sustained", NULL, NULL, "sustained_bytes_per_s",
	  COMPARE_SUSTAINED, 0, false, 0 },
	{ "class-check", "sustained", NULL, NULL, "burst_bytes_per_s",
	  COMPARE_BURST, 0, false, 1 },
	{ "class-check", "sustained", NULL, NULL, "cache_bytes",
	  COMPARE_CACHE, 0, false, 1 },
	{ "class-check", "sustained", NULL, NULL, "sustained_bytes_per_s",
	  COMPARE_SUSTAINED, 0, false, 1 },
	{ "iops", "iops", "direction", "read", "iops",
	  COMPARE_READ_QD1, 1, true, 0 },
	{ "iops", "iops", "direction", "write", "iops",
	  COMPARE_WRITE_QD1, 1, true, 0 },
	{ "iops", "iops", "direction", "read", "iops",
	  COMPARE_READ_QD32, 32, true, 0 },
	{ "iops", "iops", "direction", "write", "iops",
	  COMPARE_WRITE_QD32, 32, true, 0 },
	{ "class-check", "measured", NULL, NULL, "read_iops",
	  COMPARE_READ_QD1, 0, false, 1 },
	{ "class-check", "measured", NULL, NULL, "write_iops",
	  COMPARE_WRITE_QD1, 0, false, 1 },
	{ "class-check", "measured", NULL, NULL, "qd32.read_iops",
	  COMPARE_READ_QD32, 0, false, 1 },
	{ "class-check", "measured", NULL, NULL, "qd32.write_iops",
	  COMPARE_WRITE_QD32, 0, false, 1 },
	{ "detect", "finding", "name", "erase_size",
	  "value", COMPARE_ERASE, 0, false, 0 },
	{ "analyze", "finding", "name", "erase_size",
	  "value", COMPARE_ERASE, 0, false, 1 },
	{ "detect", "finding", "name", "open_au_linear",
	  "value", COMPARE_OPEN, 0, false, 0 },
	{ "analyze", "finding", "name", "open_au_linear",
	  "value", COMPARE_OPEN, 0, false, 1 },
	{ "capacity-check", "capacity", NULL, NULL, "usable_bytes",
	  COMPARE_USABLE, 0, false, 0 },
};

/* -a's align lines and -O's runs of one card, for analysis/. */
struct compare_raw {
	struct analysis_align_point points[ANALYZE_MAX_POINTS];
	unsigned point_table[ANALYZE_MAX_POINTS];
	size_t point_count;
	unsigned tables;
	struct analysis_run runs[RAW_RUNS];
	size_t run_count;
	bool dropped;
};

struct compare *compare_new(void)
{
	return calloc(1, sizeof(struct compare));
}

void compare_free(struct compare *table)
{
	if (!table)
		return;
	for (unsigned i = 0; i < table->card_count; i++)
		free(table->cards[i].raw);
	free(table);
}

static void add_note(struct compare *table, const char *file,
		     const char *what)
{
	if (table->note_count < COMPARE_MAX_NOTES)
		snprintf(table->notes[table->note_count++], COMPARE_TEXT,
			 "%.60s: %s", file, what);
}

/* ---- reading a document's members ---- */

/* Base name of a path, for the row and the notes. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* ---- which card ---- */

/*
 * The identity schema 3 saves: a string, or an object whose scalar
 * members make one ("cid=...,serial=...").  "" for none (sim:, schema 2).
 */
static void identity_of(const struct json_value *device, char *buf,
			size_t size)
{
	const struct json_value *id = json_get(device, "identity");
	size_t used = 0;

	buf[0] = '\0';
	if (id && id->type == JSON_STRING) {
		snprintf(buf, size, "%s", id->string);
		return;
	}
	for (size_t i = 0; id && id->type == JSON_OBJECT && i < id->count;
	     i++) {
		const struct json_value *m = &id->items[i];
		char value[64];

		if (m->type == JSON_STRING)
			snprintf(value, sizeof(value), "%s", m->string);
		else if (m->type == JSON_NUMBER)
			snprintf(value, sizeof(value), "%.17g", m->number);
		else
			continue;
		if (used < size)
			used += (size_t)snprintf(buf + used, size - used,
						 "%s%s=%s", used ? "," : "",
						 m->key, value);
	}
}

/* What the document says of its device, and the key its runs group by. */
struct device_of {
	const char *path;
	uint64_t size_bytes;
	char identity[COMPARE_TEXT];
	char key[2 * COMPARE_TEXT];
	bool by_identity;
};

static void device_of(const struct json_value *doc, const char *file,
		      struct device_of *d)
{
	const struct json_value *device = json_get(doc, "device");
	double size = saved_number(device, "size_bytes");

	memset(d, 0, sizeof(*d));
	d->path = saved_string(device, "path");
	d->size_bytes = isfinite(size) && size > 0 ? (uint64_t)size : 0;
	identity_of(device, d->identity, sizeof(d->identity));
	if (d->identity[0]) {
		d->by_identity = true;
		snprintf(d->key, sizeof(d->key), "id:%s", d->identity);
	} else if (d->path && d->path[0]) {
		snprintf(d->key, sizeof(d->key), "path:%s:%llu", d->path,
			 (unsigned long long)d->size_bytes);
	} else {
		/* --analyze and the like: no device, a row of its own */
		snprintf(d->key, sizeof(d->key), "file:%s", file);
	}
}

static struct compare_card *card_for(struct compare *table,
				     const struct device_of *d,
				     const char *file)
{
	struct compare_card *card;

	for (unsigned i = 0; i < table->card_count; i++)
		if (strcmp(table->cards[i].key, d->key) == 0)
			return &table->cards[i];
	if (table->card_count == COMPARE_MAX_CARDS)
		return NULL;
	card = &table->cards[table->card_count++];
	snprintf(card->key, sizeof(card->key), "%s", d->key);
	card->by_identity = d->by_identity;
	snprintf(card->path, sizeof(card->path), "%s", d->path ? d->path : "");
	snprintf(card->name, sizeof(card->name), "%s",
		 d->path && d->path[0] ? d->path : base_name(file));
	card->name_rank = 2;
	card->size_bytes = d->size_bytes;
	for (unsigned c = 0; c < COMPARE_COLUMNS; c++)
		card->value[c] = NAN;
	return card;
}

static void offer_name(struct compare_card *card, const char *name,
		       unsigned rank)
{
	if (!name || !name[0] || rank >= card->name_rank)
		return;
	snprintf(card->name, sizeof(card->name), "%s", name);
	card->name_rank = rank;
}

/*
 * The card's name: schema 3's device.name, or --info's card (name and
 * manufacturer) or device (vendor and model) of schema 2.
 */
static void name_card(struct compare_card *card, const struct json_value *doc,
		      const char *test)
{
	const char *name = saved_string(json_get(doc, "device"), "name");
	const struct json_value *results = json_get(doc, "results");
	char both[COMPARE_TEXT];

	if (name && strcmp(name, card->path) != 0)
		offer_name(card, name, 0);
	if (strcmp(test, "info") != 0)
		return;
	for (size_t i = 0; i < results->count; i++) {
		const struct json_value *rec = &results->items[i];
		const char *a = saved_string(rec, saved_is_kind(rec, "card") ?
					  "manufacturer" : "vendor");
		const char *b = saved_string(rec, saved_is_kind(rec, "card") ?
					  "name" : "model");

		if (!saved_is_kind(rec, "card") &&
		    !saved_is_kind(rec, "device"))
			continue;
		if (!b)
			continue;
		snprintf(both, sizeof(both), "%s%s%s", a ? a : "",
			 a ? " " : "", b);
		offer_name(card, both, saved_is_kind(rec, "card") ? 0 : 1);
	}
}

/* ---- figures ---- */

static void offer_value(struct compare_card *card, enum compare_column c,
			double value, unsigned rank)
{
	struct compare_values *v = &card->values[c];

	if (!isfinite(value))
		return;
	card->measures++;
	if (v->count && rank > v->rank)
		return;		/* a better source has spoken */
	if (v->count && rank < v->rank)
		v->count = 0;
	v->rank = rank;
	if (v->count < COMPARE_MAX_RUNS)
		v->value[v->count++] = value;
}

static bool source_matches(const struct source *s,
			   const struct json_value *rec)
{
	const char *label;

	if (!saved_is_kind(rec, s->kind))
		return false;
	if (s->match_key) {
		label = saved_string(rec, s->match_key);
		if (!label || strcmp(label, s->match_label) != 0)
			return false;
	}
	if (s->iodepth && saved_number(rec, "iodepth") != s->iodepth)
		return false;
	return true;
}

/* Each source of the document's test, in each of its records. */
static void take_sources(struct compare *table, struct compare_card *card,
			 const struct json_value *results, const char *test,
			 const char *file)
{
	bool other_block = false;

	for (size_t s = 0; s < sizeof(sources) / sizeof(sources[0]); s++) {
		const struct source *src = &sources[s];

		if (strcmp(src->test, test) != 0)
			continue;
		for (size_t i = 0; i < results->count; i++) {
			const struct json_value *rec = &results->items[i];

			if (!source_matches(src, rec))
				continue;
			if (src->block_4k &&
			    saved_number(rec, "block_bytes") != 4096) {
				other_block = true;
				continue;
			}
			offer_value(card, src->column,
				    saved_number(rec, src->key), src->rank);
			if (src->column == COMPARE_OPEN &&
			    saved_number(rec, "lower_bound") == 1)
				card->open_at_least_votes++;
		}
	}
	if (other_block)
		add_note(table, file, "IOPS of blocks other than 4KiB are "
			 "left out of the 4K columns");
}

/* A label column: one text, or "differs" when the runs disagree. */
static void offer_label(struct compare_card *card, enum compare_label l,
			const char *text)
{
	card->measures++;
	if (card->label_known[l] && strcmp(card->label[l], text) != 0)
		text = "differs";
	snprintf(card->label[l], COMPARE_TEXT, "%s", text);
	card->label_known[l] = true;
}

/* The families of SD classes, by the letter that starts their names. */
static const char class_families[] = "CUVA";

/*
 * Did a saved class record pass: 2 plainly, 1 only as far as measured
 * (its write rate never fell, so a larger cache could hide a slower
 * one), 0 not.
 */
static int class_passed(const struct json_value *rec)
{
	const char *result = saved_string(rec, "result");

	if (saved_number(rec, "pass") == 1)
		return 2;
	return result && strcmp(result, "pass as far as measured") == 0;
}

/*
 * --class-check: the highest class passed in each family, "C10 U1 V10",
 * and "C10 U1 V10 as far as measured" when one of them passed only so.
 */
static void take_classes(struct compare_card *card,
			 const struct json_value *results)
{
	const char *best[sizeof(class_families)] = { NULL };
	char text[COMPARE_TEXT] = "";
	size_t used = 0;
	bool any = false, as_far = false;

	for (size_t i = 0; i < results->count; i++) {
		const struct json_value *rec = &results->items[i];
		const char *name = saved_string(rec, "class");
		const char *family;
		int passed;

		if (!saved_is_kind(rec, "class") || !name || strchr(name, '-'))
			continue;	/* A1-QD32 is A1 at another depth */
		any = true;
		family = strchr(class_families, name[0]);
		passed = class_passed(rec);
		if (family && name[0] && passed) {
			best[family - class_families] = name;
			as_far = as_far || passed == 1;
		}
	}
	if (!any)
		return;
	for (size_t f = 0; f < sizeof(best) / sizeof(best[0]); f++)
		if (best[f] && used < sizeof(text))
			used += (size_t)snprintf(text + used,
						 sizeof(text) - used, "%s%s",
						 used ? " " : "", best[f]);
	if (as_far && used < sizeof(text))
		snprintf(text + used, sizeof(text) - used, " as far as measured");
	offer_label(card, COMPARE_CLASSES, used ? text : "none");
}

static void take_capacity(struct compare_card *card,
			  const struct json_value *results)
{
	for (size_t i = 0; i < results->count; i++) {
		const char *verdict = saved_string(&results->items[i],
						   "verdict");

		if (saved_is_kind(&results->items[i], "capacity") && verdict)
			offer_label(card, COMPARE_CAPACITY, verdict);
	}
}

/*
 * --surface --write --passes: the pass of the first error.  A card that
 * ended (read-only, silent) before any block went bad failed at its
 * end; one that ran its passes clean fails later, if ever: at least
 * the pass after its last.
 */
static void take_passes(struct compare_card *card,
			const struct json_value *results)
{
	for (size_t i = 0; i < results->count; i++) {
		const struct json_value *rec = &results->items[i];
		const char *end = saved_string(rec, "end");
		double first = saved_number(rec, "first_error_pass");
		double passes = saved_number(rec, "passes");

		if (!saved_is_kind(rec, "surface-passes"))
			continue;
		if (!isfinite(first) && end && (!strcmp(end, "read-only") ||
		    !strcmp(end, "stopped-answering")))
			first = saved_number(rec, "end_pass");
		if (!isfinite(first) && isfinite(passes)) {
			first = passes + 1;
			card->first_error_at_least_votes++;
		}
		offer_value(card, COMPARE_FIRST_ERROR, first, 0);
	}
}

static struct compare_raw *raw_of(struct compare_card *card)
{
	if (!card->raw)
		card->raw = calloc(1, sizeof(*card->raw));
	return card->raw;
}

/* -a: its align lines, a table of the card's pool. */
static int take_align(struct compare_card *card,
		      const struct json_value *results)
{
	struct compare_raw *raw = raw_of(card);

	if (!raw)
		return -ENOMEM;
	for (size_t i = 0; i < results->count; i++) {
		const struct json_value *rec = &results->items[i];
		struct analysis_align_point p = {
			.pre = saved_number(rec, "pre_ns"),
			.on = saved_number(rec, "on_ns"),
			.post = saved_number(rec, "post_ns"),
			.diff = saved_number(rec, "diff_ns") };
		double align = saved_number(rec, "align_bytes");

		if (!(align >= 1) || !isfinite(p.pre) || !isfinite(p.on) ||
		    !isfinite(p.post) || !isfinite(p.diff))
			continue;
		if (raw->point_count == ANALYZE_MAX_POINTS) {
			raw->dropped = true;
			break;
		}
		p.align = (uint64_t)align;
		raw->point_table[raw->point_count] = raw->tables;
		raw->points[raw->point_count++] = p;
		card->measures++;
	}
	raw->tables++;
	return 0;
}

/* -O: one run, its N and order from the parameters. */
static int take_open_au(struct compare_card *card,
			const struct json_value *doc, bool random_order)
{
	const struct json_value *results = json_get(doc, "results");
	const struct json_value *params = json_get(doc, "parameters");
	struct compare_raw *raw = raw_of(card);
	struct analysis_run *run;
	double nr = saved_number(params, "open_au_nr");

	if (!raw)
		return -ENOMEM;
	if (raw->run_count == RAW_RUNS) {
		raw->dropped = true;
		return 0;
	}
	run = &raw->runs[raw->run_count];
	memset(run, 0, sizeof(*run));
	run->nr = isfinite(nr) && nr >= 1 && nr <= 10000 ? (unsigned)nr : 0;
	run->random = random_order || saved_number(params, "random") == 1;
	for (size_t i = 0; i < results->count; i++) {
		double size = saved_number(&results->items[i], "block_bytes");
		double r = saved_number(&results->items[i], "bytes_per_s");

		if (!(size >= 1) || !isfinite(r) ||
		    run->count == ANALYSIS_MAX_SIZES)
			continue;
		run->size[run->count] = (uint64_t)size;
		run->rate[run->count++] = r;
	}
	if (run->count) {
		raw->run_count++;
		card->measures++;
	}
	return 0;
}

static void add_file_name(struct compare_card *card, const char *file)
{
	size_t used = strlen(card->files);

	if (used < sizeof(card->files) - 1)
		snprintf(card->files + used, sizeof(card->files) - used,
			 "%s%s", used ? " " : "", base_name(file));
}

/*
 * Every figure of the document, by its test.  A document that names no
 * device must give one: --decode-*, --list-programs or an --analyze that
 * determined nothing measured no card, and would only add an empty row.
 */
static int take_figures(struct compare *table, struct compare_card *card,
			const struct json_value *doc, const char *file,
			char *err, size_t errlen)
{
	const struct json_value *results = json_get(doc, "results");
	const char *test = saved_string(doc, "test");
	unsigned measures = card->measures;

	take_sources(table, card, results, test, file);
	if (strcmp(test, "class-check") == 0)
		take_classes(card, results);
	if (strcmp(test, "capacity-check") == 0)
		take_capacity(card, results);
	if (strcmp(test, "surface-passes") == 0)
		take_passes(card, results);
	if (strcmp(test, "align") == 0 && take_align(card, results))
		return -ENOMEM;
	if ((strcmp(test, "open-au") == 0 ||
	     strcmp(test, "open-au-random") == 0) &&
	    take_open_au(card, doc, strcmp(test, "open-au-random") == 0))
		return -ENOMEM;
	if (card->path[0] || card->by_identity || card->measures > measures)
		return 0;
	snprintf(err, errlen, "holds no card measurement: its test, "
		 "\"%.40s\", names no device and gives no figure to compare",
		 test);
	return -EINVAL;
}

int compare_add(struct compare *table, const struct json_value *doc,
		const char *file, char *err, size_t errlen)
{
	const struct json_value *incomplete = json_get(doc, "incomplete");
	struct compare_card *card;
	struct device_of d;
	const char *test;

	if (!saved_is_run(doc)) {
		snprintf(err, errlen, "not a flashbench JSON document "
			 "(schema 1 to 3 with \"test\" and \"results\")");
		return -EINVAL;
	}
	if (table->run_count == COMPARE_MAX_RUNS) {
		snprintf(err, errlen, "past the limit of %d runs --compare "
			 "reads (a --report is a run per part)",
			 COMPARE_MAX_RUNS);
		return -E2BIG;
	}
	test = saved_string(doc, "test");
	device_of(doc, file, &d);
	card = card_for(table, &d, file);
	if (!card) {
		snprintf(err, errlen, "more than %d cards", COMPARE_MAX_CARDS);
		return -E2BIG;
	}
	table->run_count++;
	card->runs++;
	add_file_name(card, file);
	if (incomplete && incomplete->type == JSON_BOOL && incomplete->number)
		add_note(table, file, "an interrupted run: its figures are "
			 "from the part that ran");
	name_card(card, doc, test);
	return take_figures(table, card, doc, file, err, errlen);
}

/*
 * A --report document: each part that ran is a run of its own mode's
 * document, all of one card; a part skipped adds nothing.
 */
static int add_report(struct compare *table, const struct json_value *doc,
		      const char *file, char *err, size_t errlen)
{
	const struct json_value *parts = json_get(doc, "parts");
	int ret = 0;

	for (size_t i = 0; !ret && i < parts->count; i++)
		if (!json_get(&parts->items[i], "skipped"))
			ret = compare_add(table, &parts->items[i], file, err,
					  errlen);
	return ret;
}

/*
 * The file read before that is the one at path (the same device and
 * inode: ./a.json and a.json, or a link), or NULL; st is path's.
 */
static const char *read_before(const struct compare *table, const char *path,
			       struct stat *st)
{
	if (stat(path, st) != 0)
		return NULL;	/* saved_run_load says why */
	for (unsigned i = 0; i < table->file_count; i++)
		if (table->files[i].device == (uint64_t)st->st_dev &&
		    table->files[i].inode == (uint64_t)st->st_ino)
			return table->files[i].path;
	return NULL;
}

int compare_add_file(struct compare *table, const char *path, char *err,
		     size_t errlen)
{
	struct json_value *doc;
	struct stat st = { 0 };
	const char *before = read_before(table, path, &st);
	char what[96];
	int ret;

	if (before) {
		/* one run given twice is one run: counted once */
		snprintf(what, sizeof(what), "the same file as %.60s: read "
			 "once", before);
		add_note(table, path, what);
		return 0;
	}
	ret = saved_run_load(path, SAVED_MAX_FILE, &doc, err, errlen);
	if (ret)
		return ret;
	ret = saved_is_report(doc) ? add_report(table, doc, path, err, errlen) :
	      compare_add(table, doc, path, err, errlen);
	json_free(doc);
	if (!ret && st.st_ino && table->file_count < COMPARE_MAX_RUNS)
		table->files[table->file_count++] = (struct compare_file){
			(uint64_t)st.st_dev, (uint64_t)st.st_ino, path };
	return ret;
}

/* ---- the table ---- */

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of a column's values from the best source, or NAN. */
static double median(struct compare_values *v)
{
	if (!v->count)
		return NAN;
	qsort(v->value, v->count, sizeof(v->value[0]), by_value);
	if (v->count % 2)
		return v->value[v->count / 2];
	return (v->value[v->count / 2 - 1] + v->value[v->count / 2]) / 2;
}

/*
 * The card's -a and -O records judged as --analyze judges them, all its
 * runs pooled; ranked below --detect's own findings.
 */
static int analyse_raw(struct compare_card *card,
		       struct analyze_result *scratch)
{
	const struct compare_raw *raw = card->raw;
	struct analyze_findings f;

	memset(scratch, 0, sizeof(*scratch));
	memcpy(scratch->points, raw->points, sizeof(raw->points));
	memcpy(scratch->point_table, raw->point_table,
	       sizeof(raw->point_table));
	scratch->point_count = raw->point_count;
	scratch->table_count = raw->tables;
	memcpy(scratch->runs, raw->runs,
	       raw->run_count * sizeof(raw->runs[0]));
	scratch->run_count = raw->run_count;
	scratch->combined_count = analysis_open_au_combine(scratch->runs,
		scratch->run_count, scratch->combined, scratch->run_combined);
	scratch->prior.capacity_bytes = card->size_bytes;
	analyze_findings(scratch, &f);
	if (f.geometry.erase.known)
		offer_value(card, COMPARE_ERASE, (double)f.geometry.erase.value,
			    1);
	if (f.open.linear.known) {
		offer_value(card, COMPARE_OPEN, (double)f.open.linear.value, 1);
		card->open_at_least_votes += f.open.linear_lower_bound;
	}
	return 0;
}

static void mark_best(struct compare *table, enum compare_column c)
{
	double best = -INFINITY;
	unsigned known = 0;

	for (unsigned i = 0; i < table->card_count; i++) {
		double v = table->cards[i].value[c];

		if (isfinite(v)) {
			known++;
			best = fmax(best, v);
		}
	}
	/* one card alone is best of nothing */
	if (known < 2 || !(best > 0))
		return;
	for (unsigned i = 0; i < table->card_count; i++)
		table->cards[i].best[c] = table->cards[i].value[c] >=
					  best * (1 - COMPARE_TIE_FRACTION);
}

void compare_finish(struct compare *table)
{
	struct analyze_result *scratch = NULL;
	bool dropped = false;

	for (unsigned i = 0; i < table->card_count; i++) {
		struct compare_card *card = &table->cards[i];

		if (card->raw && !scratch)
			scratch = malloc(sizeof(*scratch));
		if (card->raw && scratch)
			analyse_raw(card, scratch);
		else if (card->raw)
			add_note(table, card->name, "no memory to analyse "
				 "its -a and -O runs");
		dropped |= card->raw && card->raw->dropped;
		for (unsigned c = 0; c < COMPARE_COLUMNS; c++)
			card->value[c] = median(&card->values[c]);
		card->open_at_least = isfinite(card->value[COMPARE_OPEN]) &&
				      card->open_at_least_votes > 0;
		card->first_error_at_least =
			isfinite(card->value[COMPARE_FIRST_ERROR]) &&
			card->first_error_at_least_votes > 0;
	}
	free(scratch);
	if (dropped)
		add_note(table, "-a and -O runs", "more align lines or runs "
			 "than a card keeps: the rest are left out");
	for (unsigned c = 0; c < COMPARE_COLUMNS; c++)
		if (compare_columns[c].ranked)
			mark_best(table, c);
}
