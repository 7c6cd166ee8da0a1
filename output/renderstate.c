/*
 * renderstate: what the formats of the renderer share while a run goes
 * by: the keys seen (CSV's columns, JSON's units), the text gathered
 * until the end (CSV's rows, JSON's index), a record's kind.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/renderstate.h"

/* The index of key, added (with unit) if new; count if it cannot be. */
unsigned render_keys_index(struct render_keys *t, const char *key,
			   enum record_unit unit)
{
	unsigned i;

	for (i = 0; i < t->count; i++)
		if (strcmp(t->keys[i], key) == 0)
			return i;
	if (t->count == t->capacity) {
		unsigned capacity = t->capacity ? 2 * t->capacity : 64;
		char (*keys)[RENDER_KEY_MAX] = realloc(t->keys,
						capacity * sizeof(*keys));
		enum record_unit *units = keys ? realloc(t->units,
					capacity * sizeof(*units)) : NULL;

		if (keys)
			t->keys = keys;
		if (!units) {
			t->full = true;
			return t->count;
		}
		t->units = units;
		t->capacity = capacity;
	}
	snprintf(t->keys[i], RENDER_KEY_MAX, "%s", key);
	t->units[i] = unit;
	return t->count++;
}

void render_keys_free(struct render_keys *t)
{
	free(t->keys);
	free(t->units);
}

bool render_buffer_open(struct render_buffer *b)
{
	b->out = open_memstream(&b->text, &b->size);
	return b->out != NULL;
}

/* The buffer's text so far (flushed), size bytes of it. */
const char *render_buffer_text(struct render_buffer *b)
{
	fflush(b->out);
	return b->text;
}

/* 0, or -ENOMEM when a write to it failed. */
int render_buffer_close(struct render_buffer *b)
{
	int err = 0;

	if (b->out) {
		err = ferror(b->out) ? -ENOMEM : 0;
		fclose(b->out);
		free(b->text);
	}
	*b = (struct render_buffer){ 0 };
	return err;
}

const char *render_kind_of(const struct record *rec)
{
	return rec->kind ? rec->kind : "measurement";
}
