/*
 * json: the one JSON string writer every output uses, and a small reader
 * for the JSON documents flashbench writes, so that saved runs can be
 * plotted and compared again.  The reader parses any RFC 8259 text
 * within fixed bounds (depth, node count, string length) into a tree.
 */
#ifndef FLASHBENCH_JSON_H
#define FLASHBENCH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Version of every document flashbench writes, JSON and CSV alike; README
 * lists what each version changed.
 */
#define JSON_SCHEMA 3

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

/*
 * Read the file at path (at most max_bytes) and parse it into *root.
 * Returns 0; -EISDIR for a directory, -EFBIG past max_bytes, the negative
 * errno of opening or reading it (-ENOENT, -EACCES, -EIO), or json_parse's
 * -EINVAL or -ENOMEM; with a message in err.
 */
int json_read_file(const char *path, size_t max_bytes,
		   struct json_value **root, char *err, size_t errlen);

/* Member key of an object, or NULL (also when object is not one). */
const struct json_value *json_get(const struct json_value *object,
				  const char *key);

/* Length of the valid UTF-8 sequence starting at text, or 0. */
size_t json_utf8_length(const char *text);

/*
 * text (NULL: "") as a JSON string: quoted; quote, backslash and control
 * characters escaped; each byte that does not start valid UTF-8 written
 * as U+FFFD, the replacement character, the same in every output.
 */
void json_write_string(FILE *out, const char *text);

#endif
