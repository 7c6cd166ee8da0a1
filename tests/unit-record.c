/*
 * unit-record: lib/record.c - a field added until the record is full and
 * refused past it, a field read back by its key, a record handed to its
 * sink.
 */
#include <math.h>

#include "lib/record.h"
#include "unit.h"

static int count_emits(void *ctx, const struct record *record)
{
	(void)record;
	return ++*(int *)ctx == 2 ? -5 : 0;
}

static void test_full_record(void)
{
	struct record rec = { .count = 0 };
	unsigned taken = 0;

	for (unsigned i = 0; i < RECORD_MAX_FIELDS + 3; i++)
		taken += record_add(&rec, RECORD_COUNT, "n", NULL, NULL, i);
	UNIT_CHECK(taken == RECORD_MAX_FIELDS && rec.count == RECORD_MAX_FIELDS,
		   "a record takes %d fields and refuses the next (%u taken)",
		   RECORD_MAX_FIELDS, taken);
	UNIT_CHECK(rec.fields[RECORD_MAX_FIELDS - 1].value ==
		   RECORD_MAX_FIELDS - 1, "the last field taken is whole");
}

static void test_get(void)
{
	struct record rec = { .count = 0 };
	const struct record_field *f;

	record_add(&rec, RECORD_BYTES, "size_bytes", NULL, NULL, 4096);
	record_add(&rec, RECORD_LABEL, "name", NULL, "sd", NAN);
	f = record_get(&rec, "size_bytes");
	UNIT_CHECK(f && f->value == 4096 && f->unit == RECORD_BYTES,
		   "record_get finds a field by its key");
	f = record_get(&rec, "name");
	UNIT_STREQ(f ? f->label : NULL, "sd", "record_get finds a label");
	UNIT_CHECK(record_get(&rec, "missing") == NULL,
		   "record_get: NULL for a key the record has not");
}

static void test_emit(void)
{
	struct record rec = { .count = 0 };
	int calls = 0;
	struct record_sink sink = { count_emits, &calls };

	UNIT_CHECK(record_emit(&sink, &rec) == 0 && calls == 1,
		   "record_emit hands the record to its sink");
	UNIT_CHECK(record_emit(&sink, &rec) == -5,
		   "record_emit returns the sink's error");
	UNIT_CHECK(record_emit(NULL, &rec) == 0 && calls == 2,
		   "no sink: nothing to do, no error");
}

int main(void)
{
	test_full_record();
	test_get();
	test_emit();
	return UNIT_DONE();
}
