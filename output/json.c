/*
 * json: the string writer, so every JSON document escapes text the same
 * way (invalid UTF-8 as U+FFFD, as lib/jsonparse.c would refuse it).
 */
#include <stdio.h>

#include "lib/jsonparse.h"
#include "output/json.h"

void json_write_string(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");

	fputc('"', out);
	while (*s) {
		size_t n = json_utf8_length((const char *)s);

		if (*s == '"' || *s == '\\') {
			fprintf(out, "\\%c", *s);
		} else if (*s == '\n') {
			fputs("\\n", out);
		} else if (*s == '\t') {
			fputs("\\t", out);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s);
		} else if (n == 0) {
			fputs("\\ufffd", out);
			n = 1;
		} else {
			fwrite(s, 1, n, out);
		}
		s += n ? n : 1;
	}
	fputc('"', out);
}
