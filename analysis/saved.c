/*
 * saved: documents read back, and the one table of the keys schema 3
 * renamed (the unit in the name).  A document of schema 1 or 2 has its
 * records' keys renamed as it is read, so a chart, a comparison and a
 * summary read an old run as they read a new one.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/saved.h"
#include "lib/readfile.h"

/*
 * Schema 2 to 3, as NEWS lists them: the member old of a record of kind
 * (NULL: of any kind; schema 1 records name no kind) is new.  The
 * document's own "device" counts as a record of kind "device".
 */
static const struct renamed {
	const char *kind, *old, *new;
} renamed[] = {
	{ NULL, "align", "align_bytes" }, { NULL, "pre", "pre_ns" },
	{ NULL, "on", "on_ns" }, { NULL, "post", "post_ns" },
	{ NULL, "diff", "diff_ns" }, { NULL, "block", "block_bytes" },
	{ NULL, "rate", "bytes_per_s" }, { NULL, "offset", "offset_bytes" },
	{ NULL, "time", "time_ns" }, { NULL, "length", "length_bytes" },
	{ NULL, "min", "min_ns" }, { NULL, "avg", "avg_ns" },
	{ NULL, "max", "max_ns" }, { NULL, "access", "access_ns" },
	{ NULL, "overhead", "overhead_ns" },
	{ "summary", "window_min", "window_min_bytes_per_s" },
	{ "summary", "window_median", "window_median_bytes_per_s" },
	{ "summary", "window_max", "window_max_bytes_per_s" },
	{ "capacity-probe", "named_offset", "named_offset_bytes" },
	{ "capacity", "bytes_written", "probe_bytes_written" },
	{ "restore-damaged", "file_offset", "file_offset_bytes" },
	{ "device", "size", "size_bytes" },
	{ "device", "logical_block_size", "logical_block_bytes" },
	{ "device", "physical_block_size", "physical_block_bytes" },
	{ "device", "minimum_io_size", "minimum_io_bytes" },
	{ "device", "optimal_io_size", "optimal_io_bytes" },
	{ "device", "discard_granularity", "discard_granularity_bytes" },
	{ "level", "size", "size_bytes" },
	{ "sd_limit", "max_erase_size", "max_erase_size_bytes" },
	{ "open_au_combined", "worst_size", "worst_size_bytes" },
	{ "card", "erase_size", "erase_size_bytes" },
	{ "card", "preferred_erase_size", "preferred_erase_size_bytes" },
	{ "emmc", "enhanced_area_offset", "enhanced_area_offset_bytes" },
	{ "emmc", "enhanced_area_size", "enhanced_area_size_bytes" },
	{ "csd", "max_transfer_kbit", "max_transfer_kbit_per_s" },
	{ "csd", "wp_group_size", "wp_group_sectors" },
	{ "ssr", "performance_move", "performance_move_mb_per_s" },
};

#define RENAMED (sizeof(renamed) / sizeof(renamed[0]))

static bool kind_fits(const struct renamed *r, const char *kind)
{
	return !r->kind || (kind && strcmp(r->kind, kind) == 0);
}

const char *saved_key(const char *kind, const char *key)
{
	for (size_t i = 0; i < RENAMED; i++)
		if (kind_fits(&renamed[i], kind) &&
		    strcmp(key, renamed[i].old) == 0)
			return renamed[i].new;
	return key;
}

/* The schema-2 name of a schema-3 key, or NULL: "units" of schema 2. */
static const char *old_key(const char *kind, const char *key)
{
	for (size_t i = 0; i < RENAMED; i++)
		if (kind_fits(&renamed[i], kind) &&
		    strcmp(key, renamed[i].new) == 0)
			return renamed[i].old;
	return NULL;
}

/* The members of object, renamed as members of a record of kind. */
static int rename_members(struct json_value *object, const char *kind)
{
	for (size_t i = 0; object && object->type == JSON_OBJECT &&
	     i < object->count; i++) {
		struct json_value *m = &object->items[i];
		const char *name = saved_key(kind, m->key);
		char *copy;

		if (name == m->key)
			continue;
		copy = strdup(name);
		if (!copy)
			return -ENOMEM;
		free(m->key);
		m->key = copy;
	}
	return 0;
}

/*
 * A record's members; --info's registers are an object named after
 * the record's kind ("csd": {...}), renamed within too.
 */
static int rename_record(struct json_value *rec)
{
	const char *kind = saved_string(rec, "kind");
	int ret = rename_members(rec, kind);

	if (ret || !kind)
		return ret;
	return rename_members((struct json_value *)json_get(rec, kind), kind);
}

/*
 * A document of schema 1 or 2 under schema 3's keys; a --program run's
 * keys are its own, and a --report's parts are documents of their own.
 */
static int upgrade(struct json_value *doc)
{
	const struct json_value *schema = json_get(doc, "schema");
	const char *test = saved_string(doc, "test");
	struct json_value *items;
	int ret = 0;

	if (saved_is_report(doc)) {
		items = (struct json_value *)json_get(doc, "parts");
		for (size_t i = 0; !ret && i < items->count; i++)
			ret = upgrade(&items->items[i]);
		return ret;
	}
	if (!schema || schema->type != JSON_NUMBER ||
	    (schema->number != 1 && schema->number != 2) || !test ||
	    strcmp(test, "program") == 0)
		return 0;
	ret = rename_members((struct json_value *)json_get(doc, "device"),
			     "device");
	items = (struct json_value *)json_get(doc, "results");
	for (size_t i = 0; !ret && items && items->type == JSON_ARRAY &&
	     i < items->count; i++)
		ret = rename_record(&items->items[i]);
	return ret;
}

int saved_run_parse(const char *text, size_t length, struct json_value **doc,
		    char *err, size_t errlen)
{
	int ret = json_parse(text, length, doc, err, errlen);

	if (!ret && upgrade(*doc)) {
		json_free(*doc);
		*doc = NULL;
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	return ret;
}

int saved_run_load(const char *path, size_t max_bytes,
		   struct json_value **doc, char *err, size_t errlen)
{
	char *text = NULL;
	size_t length = 0;
	int ret = readfile_whole(path, max_bytes, &text, &length);

	*doc = NULL;
	if (ret == -EISDIR)
		snprintf(err, errlen, "is a directory; give saved json runs");
	else if (ret == -EFBIG)
		snprintf(err, errlen, "larger than %zu MiB", max_bytes >> 20);
	else if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	if (ret)
		return ret;
	ret = saved_run_parse(text, length, doc, err, errlen);
	free(text);
	return ret;
}

/* ---- members ---- */

const char *saved_string(const struct json_value *object, const char *key)
{
	const struct json_value *v = json_get(object, key);

	return v && v->type == JSON_STRING ? v->string : NULL;
}

double saved_number(const struct json_value *object, const char *key)
{
	const struct json_value *v;
	const char *dot;
	char part[64];

	while ((dot = strchr(key, '.'))) {
		snprintf(part, sizeof(part), "%.*s", (int)(dot - key), key);
		object = json_get(object, part);
		key = dot + 1;
	}
	v = json_get(object, key);
	return v && (v->type == JSON_NUMBER || v->type == JSON_BOOL) ?
	       v->number : NAN;
}

bool saved_is_kind(const struct json_value *rec, const char *kind)
{
	const char *k = saved_string(rec, "kind");

	return k && strcmp(k, kind) == 0;
}

bool saved_is_run(const struct json_value *doc)
{
	const struct json_value *schema = json_get(doc, "schema");
	const struct json_value *results = json_get(doc, "results");

	return schema && schema->type == JSON_NUMBER &&
	       (schema->number == 1 || schema->number == 2 ||
		schema->number == 3) &&
	       saved_string(doc, "test") && results &&
	       results->type == JSON_ARRAY;
}

bool saved_is_report(const struct json_value *doc)
{
	const char *test = saved_string(doc, "test");
	const struct json_value *parts = json_get(doc, "parts");

	return test && strcmp(test, "report") == 0 && parts &&
	       parts->type == JSON_ARRAY;
}

const struct json_value *saved_find_record(const struct json_value *doc,
					   const char *kind, const char *key,
					   const char *value)
{
	const struct json_value *results = json_get(doc, "results");

	for (size_t i = 0; results && i < results->count; i++) {
		const struct json_value *rec = &results->items[i];
		const char *v = key ? saved_string(rec, key) : NULL;

		if (!saved_is_kind(rec, kind))
			continue;
		if (!key || (v && strcmp(v, value) == 0))
			return rec;
	}
	return NULL;
}

/* ---- a run as records ---- */

int saved_run_read(const struct json_value *doc, struct saved_run *run)
{
	const struct json_value *params = json_get(doc, "parameters");

	memset(run, 0, sizeof(*run));
	if (!saved_is_run(doc))
		return -EINVAL;
	run->test = saved_string(doc, "test");
	run->device = saved_string(json_get(doc, "device"), "path");
	for (size_t i = 0; params && params->type == JSON_OBJECT &&
	     i < params->count && run->param_count < SAVED_MAX_PARAMS; i++)
		if (params->items[i].type == JSON_NUMBER ||
		    params->items[i].type == JSON_BOOL)
			run->params[run->param_count++] = (struct vm_param){
				params->items[i].key,
				params->items[i].number };
	return 0;
}

/* A key's unit from "units", which schema 2 keyed by the old names. */
static enum record_unit unit_of(const struct json_value *units,
				const char *kind, const char *key)
{
	const struct json_value *u = json_get(units, key);
	const char *old = old_key(kind, key);

	if (!u && old)
		u = json_get(units, old);
	if (!u || u->type != JSON_STRING)
		return RECORD_COUNT;
	if (!strcmp(u->string, "bytes"))
		return RECORD_BYTES;
	if (!strcmp(u->string, "ns"))
		return RECORD_TIME;
	if (!strcmp(u->string, "bytes/s"))
		return RECORD_RATE;
	return RECORD_COUNT;
}

static void add_value(struct record *rec, const char *key,
		      enum record_unit unit, const struct json_value *v)
{
	if (v->type == JSON_NUMBER || v->type == JSON_NULL)
		record_add(rec, unit, key, NULL, NULL,
			   v->type == JSON_NUMBER ? v->number : NAN);
}

/* One element of "results": numbers, arrays of them, labels skipped. */
static int emit_result(const struct json_value *result,
		       const struct json_value *units,
		       const struct record_sink *sink)
{
	const char *kind = saved_string(result, "kind");
	struct record rec = { .count = 0 };

	if (result->type != JSON_OBJECT)
		return -EINVAL;
	for (size_t i = 0; i < result->count; i++) {
		const struct json_value *m = &result->items[i];
		enum record_unit unit = unit_of(units, kind, m->key);

		if (m->type != JSON_ARRAY) {
			add_value(&rec, m->key, unit, m);
			continue;
		}
		for (size_t j = 0; j < m->count; j++)
			add_value(&rec, m->key, unit, &m->items[j]);
	}
	return record_emit(sink, &rec);
}

int saved_run_records(const struct json_value *doc,
		      const struct record_sink *sink, char *err,
		      size_t errlen)
{
	const struct json_value *results = json_get(doc, "results");
	const struct json_value *units = json_get(doc, "units");

	for (size_t i = 0; results && i < results->count; i++) {
		int ret = emit_result(&results->items[i], units, sink);

		if (ret) {
			snprintf(err, errlen, "result %zu: %s", i + 1,
				 ret == -EINVAL ? "not an object" :
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}
