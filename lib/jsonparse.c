/*
 * jsonparse: recursive-descent reader into a tree of json_value.  Every
 * bound is checked before memory is taken, so hostile input ends in an
 * error message, never a crash.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonparse.h"

struct parser {
	const char *text;
	size_t length, pos;
	size_t nodes;
	char *err;
	size_t errlen;
	int error;
};

static int fail(struct parser *p, int error, const char *what)
{
	unsigned line = 1, column = 1;

	if (p->error)
		return p->error;
	for (size_t i = 0; i < p->pos && i < p->length; i++) {
		if (p->text[i] == '\n') {
			line++;
			column = 1;
		} else {
			column++;
		}
	}
	snprintf(p->err, p->errlen, "line %u, column %u: %s", line, column,
		 what);
	p->error = error;
	return error;
}

static int peek(const struct parser *p)
{
	return p->pos < p->length ? (unsigned char)p->text[p->pos] : -1;
}

static void skip_space(struct parser *p)
{
	while (p->pos < p->length && strchr(" \t\r\n", p->text[p->pos]) &&
	       p->text[p->pos])
		p->pos++;
}

static bool literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->length - p->pos < n || memcmp(p->text + p->pos, word, n))
		return false;
	p->pos += n;
	return true;
}

size_t json_utf8_length(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n;
	unsigned min, code;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, min = 0x80, code = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, min = 0x800, code = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, min = 0x10000, code = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		code = code << 6 | (s[i] & 0x3f);
	}
	if (code < min || code > 0x10ffff ||
	    (code >= 0xd800 && code <= 0xdfff))
		return 0;
	return n;
}

static int hex4(struct parser *p, unsigned *code)
{
	*code = 0;
	for (int i = 0; i < 4; i++) {
		int c = peek(p), digit;

		if (c >= '0' && c <= '9')
			digit = c - '0';
		else if (c >= 'a' && c <= 'f')
			digit = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			digit = c - 'A' + 10;
		else
			return fail(p, -EINVAL, "bad \\u escape");
		*code = *code << 4 | (unsigned)digit;
		p->pos++;
	}
	return 0;
}

/* \uXXXX, with a surrogate pair when there is one; p at the first X. */
static int unicode_escape(struct parser *p, unsigned *code)
{
	unsigned low;

	if (hex4(p, code))
		return p->error;
	if (*code >= 0xdc00 && *code <= 0xdfff)
		return fail(p, -EINVAL, "lone low surrogate");
	if (*code < 0xd800 || *code > 0xdbff)
		return *code ? 0 : fail(p, -EINVAL, "\\u0000 in a string");
	if (!literal(p, "\\u") || hex4(p, &low) || low < 0xdc00 ||
	    low > 0xdfff)
		return fail(p, -EINVAL, "unpaired high surrogate");
	*code = 0x10000 + ((*code - 0xd800) << 10) + (low - 0xdc00);
	return 0;
}

static size_t put_utf8(char *out, unsigned code)
{
	if (code < 0x80) {
		out[0] = (char)code;
		return 1;
	}
	if (code < 0x800) {
		out[0] = (char)(0xc0 | code >> 6);
		out[1] = (char)(0x80 | (code & 0x3f));
		return 2;
	}
	if (code < 0x10000) {
		out[0] = (char)(0xe0 | code >> 12);
		out[1] = (char)(0x80 | (code >> 6 & 0x3f));
		out[2] = (char)(0x80 | (code & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | code >> 18);
	out[1] = (char)(0x80 | (code >> 12 & 0x3f));
	out[2] = (char)(0x80 | (code >> 6 & 0x3f));
	out[3] = (char)(0x80 | (code & 0x3f));
	return 4;
}

static int escape(struct parser *p, unsigned *code)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	int c = peek(p);
	const char *hit = c > 0 ? strchr(from, c) : NULL;

	p->pos++;
	if (c == 'u')
		return unicode_escape(p, code);
	if (!hit)
		return fail(p, -EINVAL, "bad escape in a string");
	*code = (unsigned char)to[hit - from];
	return 0;
}

/* Room for one more character (4 bytes) and the NUL in *buf. */
static int reserve(struct parser *p, char **buf, size_t n, size_t *cap)
{
	char *more;

	if (n + 5 <= *cap)
		return 0;
	if (n > JSON_MAX_STRING)
		return fail(p, -EINVAL, "string too long");
	more = realloc(*buf, *cap * 2);
	if (!more)
		return fail(p, -ENOMEM, "out of memory");
	*buf = more;
	*cap *= 2;
	return 0;
}

/* A string; p at the opening quote.  *out is malloc'd. */
static int parse_string(struct parser *p, char **out)
{
	size_t n = 0, cap = 32;
	char *buf = malloc(cap);

	if (!buf)
		return fail(p, -ENOMEM, "out of memory");
	p->pos++;
	for (;;) {
		int c = peek(p);
		unsigned code;

		if (c < 0) {
			fail(p, -EINVAL, "unterminated string");
			break;
		}
		if (c < 0x20) {
			fail(p, -EINVAL, "control character in a string");
			break;
		}
		if (reserve(p, &buf, n, &cap))
			break;
		p->pos++;
		if (c == '"') {
			buf[n] = '\0';
			*out = buf;
			return 0;
		}
		if (c == '\\') {
			if (escape(p, &code))
				break;
			n += put_utf8(buf + n, code);
		} else if (c < 0x80) {
			buf[n++] = (char)c;
		} else {
			/* raw UTF-8, taken only when valid */
			char seq[5] = { 0 };
			size_t len, left = p->length - (p->pos - 1);

			memcpy(seq, p->text + p->pos - 1, left < 4 ? left : 4);
			len = json_utf8_length(seq);
			if (!len) {
				fail(p, -EINVAL, "invalid UTF-8 in a string");
				break;
			}
			memcpy(buf + n, p->text + p->pos - 1, len);
			n += len;
			p->pos += len - 1;
		}
	}
	free(buf);
	return p->error;
}

static bool digits(struct parser *p)
{
	size_t start = p->pos;

	while (peek(p) >= '0' && peek(p) <= '9')
		p->pos++;
	return p->pos > start;
}

/* The JSON number grammar, checked before strtod sees it. */
static int parse_number(struct parser *p, double *value)
{
	size_t start = p->pos;
	char buf[64];

	if (peek(p) == '-')
		p->pos++;
	if (peek(p) == '0')
		p->pos++;
	else if (!digits(p))
		return fail(p, -EINVAL, "bad number");
	if (peek(p) == '.') {
		p->pos++;
		if (!digits(p))
			return fail(p, -EINVAL, "bad number");
	}
	if (peek(p) == 'e' || peek(p) == 'E') {
		p->pos++;
		if (peek(p) == '+' || peek(p) == '-')
			p->pos++;
		if (!digits(p))
			return fail(p, -EINVAL, "bad number");
	}
	if (p->pos - start >= sizeof(buf))
		return fail(p, -EINVAL, "number too long");
	memcpy(buf, p->text + start, p->pos - start);
	buf[p->pos - start] = '\0';
	*value = strtod(buf, NULL);
	return 0;
}

static int parse_value(struct parser *p, struct json_value *v,
		       unsigned depth);

/* Grow v->items by one zeroed element; returns it or NULL. */
static struct json_value *add_item(struct parser *p, struct json_value *v,
				   size_t *cap)
{
	if (++p->nodes > JSON_MAX_NODES) {
		fail(p, -EINVAL, "too many values");
		return NULL;
	}
	if (v->count == *cap) {
		size_t more = *cap ? *cap * 2 : 8;
		struct json_value *items = realloc(v->items,
						   more * sizeof(*items));

		if (!items) {
			fail(p, -ENOMEM, "out of memory");
			return NULL;
		}
		v->items = items;
		*cap = more;
	}
	memset(&v->items[v->count], 0, sizeof(v->items[0]));
	return &v->items[v->count++];
}

/* An array or object; p at its opening bracket. */
static int parse_container(struct parser *p, struct json_value *v,
			   unsigned depth)
{
	bool object = peek(p) == '{';
	int close = object ? '}' : ']';
	size_t cap = 0;

	v->type = object ? JSON_OBJECT : JSON_ARRAY;
	if (depth >= JSON_MAX_DEPTH)
		return fail(p, -EINVAL, "nested too deeply");
	p->pos++;
	skip_space(p);
	if (peek(p) == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		struct json_value *item = add_item(p, v, &cap);

		if (!item)
			return p->error;
		skip_space(p);
		if (object) {
			if (peek(p) != '"')
				return fail(p, -EINVAL, "expected a key");
			if (parse_string(p, &item->key))
				return p->error;
			skip_space(p);
			if (peek(p) != ':')
				return fail(p, -EINVAL, "expected ':'");
			p->pos++;
		}
		if (parse_value(p, item, depth + 1))
			return p->error;
		skip_space(p);
		if (peek(p) == close) {
			p->pos++;
			return 0;
		}
		if (peek(p) != ',')
			return fail(p, -EINVAL, object ? "expected ',' or '}'"
				    : "expected ',' or ']'");
		p->pos++;
	}
}

static int parse_value(struct parser *p, struct json_value *v,
		       unsigned depth)
{
	int c;

	skip_space(p);
	c = peek(p);
	if (c == '{' || c == '[')
		return parse_container(p, v, depth);
	if (c == '"') {
		v->type = JSON_STRING;
		return parse_string(p, &v->string);
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		v->type = JSON_NUMBER;
		return parse_number(p, &v->number);
	}
	if (literal(p, "true") || literal(p, "false")) {
		v->type = JSON_BOOL;
		v->number = p->text[p->pos - 4] == 't';
		return 0;
	}
	if (literal(p, "null")) {
		v->type = JSON_NULL;
		return 0;
	}
	return fail(p, -EINVAL, c < 0 ? "unexpected end of input" :
		    "expected a value");
}

static void free_value(struct json_value *v)
{
	for (size_t i = 0; i < v->count; i++)
		free_value(&v->items[i]);
	free(v->items);
	free(v->key);
	free(v->string);
}

void json_free(struct json_value *root)
{
	if (!root)
		return;
	free_value(root);
	free(root);
}

int json_parse(const char *text, size_t length, struct json_value **root,
	       char *err, size_t errlen)
{
	struct parser p = { .text = text, .length = length, .err = err,
			    .errlen = errlen };
	struct json_value *v = calloc(1, sizeof(*v));

	*root = NULL;
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!parse_value(&p, v, 0)) {
		skip_space(&p);
		if (p.pos < p.length)
			fail(&p, -EINVAL, "trailing text after the value");
	}
	if (p.error) {
		json_free(v);
		return p.error;
	}
	*root = v;
	return 0;
}

const struct json_value *json_get(const struct json_value *object,
				  const char *key)
{
	if (!object || object->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < object->count; i++)
		if (strcmp(object->items[i].key, key) == 0)
			return &object->items[i];
	return NULL;
}
