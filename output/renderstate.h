/*
 * renderstate: the renderer's state, which its formats share (render.c
 * opens and closes it, renderjson.c writes JSON from it): the keys seen
 * in the order first met, the text gathered until the end.
 */
#ifndef FLASHBENCH_RENDERSTATE_H
#define FLASHBENCH_RENDERSTATE_H

#include <stdbool.h>
#include <stdio.h>

#include "output/render.h"

#define RENDER_KEY_MAX (RECORD_KEY_MAX + 12)	/* a key, "_" and a repeat's
						   number */
#define RENDER_FIELD_TEXT_MAX 4096	/* one field's text, a long label
					   included (a program listing) */

/* Keys in the order first seen (CSV columns, JSON units), as many as
   the run reports. */
struct render_keys {
	char (*keys)[RENDER_KEY_MAX];
	enum record_unit *units;
	unsigned count, capacity;
	bool full;			/* out of memory: the report fails */
};

/* The index of key, added (with unit) if new; count if it cannot be. */
unsigned render_keys_index(struct render_keys *t, const char *key,
			   enum record_unit unit);
void render_keys_free(struct render_keys *t);

/* Text gathered in memory while the records go by, written at the end. */
struct render_buffer {
	FILE *out;			/* NULL: not gathered */
	char *text;
	size_t size;
	unsigned count;			/* members written, for separators */
};

bool render_buffer_open(struct render_buffer *b);
/* The buffer's text so far (flushed), size bytes of it. */
const char *render_buffer_text(struct render_buffer *b);
/* 0, or -ENOMEM when a write to it failed. */
int render_buffer_close(struct render_buffer *b);

/* A record's "kind": its own, else "measurement". */
const char *render_kind_of(const struct record *rec);

struct render {
	FILE *out;
	bool terminal;			/* flush every record */
	enum render_format format;
	const struct render_meta *meta;
	unsigned records;
	/* CSV: every column seen, and the rows kept until the end */
	struct render_keys columns;
	struct render_buffer rows;
	/* JSON: every key seen, with its base unit */
	struct render_keys unit_keys;
	/* JSON: the members of meta->index_member, written at the end */
	struct render_buffer index;
	/* JSON, meta->index_schema1: the schema-1 members and objects */
	struct render_buffer schema1_top, schema1_confidence, schema1_why;
};

#endif
