/*
 * record: the one way a field is added to a record, read back by its
 * key, and a record handed on (lib/record.h).
 */
#include <string.h>

#include "lib/record.h"

bool record_add(struct record *rec, enum record_unit unit, const char *key,
		const struct text_look *look, const char *label,
		double value)
{
	if (rec->count >= RECORD_MAX_FIELDS)
		return false;
	rec->fields[rec->count++] = (struct record_field){ .unit = unit,
		.key = key, .look = look, .label = label, .value = value };
	return true;
}

const struct record_field *record_get(const struct record *rec,
				      const char *key)
{
	for (unsigned i = 0; i < rec->count; i++)
		if (rec->fields[i].key && strcmp(rec->fields[i].key, key) == 0)
			return &rec->fields[i];
	return NULL;
}

int record_emit(const struct record_sink *sink, const struct record *rec)
{
	return sink && sink->emit ? sink->emit(sink->ctx, rec) : 0;
}
