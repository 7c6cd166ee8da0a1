/*
 * jsonparse: a small reader for the JSON documents flashbench writes, so
 * that saved runs can be plotted, compared and summarized again.  It
 * parses any RFC 8259 text within fixed bounds (depth, node count,
 * string length) into a tree.  Pure data handling: the files it reads
 * and what their members mean are analysis/saved.c's.
 */
#ifndef FLASHBENCH_JSONPARSE_H
#define FLASHBENCH_JSONPARSE_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 64
#define JSON_MAX_NODES (1 << 20)
#define JSON_MAX_STRING (1 << 16)	/* bytes of one decoded string */

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_value {
	enum json_type type;
	char *key;			/* member name inside an object */
	double number;			/* NUMBER; BOOL: 0 or 1 */
	char *string;			/* STRING, NUL-terminated UTF-8 */
	struct json_value *items;	/* ARRAY elements, OBJECT members */
	size_t count;
};

/*
 * Parse length bytes of text (no NUL needed) into *root.  Returns 0, or
 * -EINVAL (malformed or over a bound) or -ENOMEM, with a message naming
 * the line and column in err.
 */
int json_parse(const char *text, size_t length, struct json_value **root,
	       char *err, size_t errlen);
void json_free(struct json_value *root);

/* Member key of an object, or NULL (also when object is not one). */
const struct json_value *json_get(const struct json_value *object,
				  const char *key);

/*
 * Length of the valid UTF-8 sequence starting at text, or 0: what the
 * reader takes in a string, and what every writer of text passes on.
 */
size_t json_utf8_length(const char *text);

#endif
