/*
 * pastelex: the words of pasted text - terminal escapes and carriage
 * returns cleaned away, tokens between spaces, and numbers with the
 * units either tool prints (times, sizes, rates), each bounded so junk
 * is no number.  The first layer of --analyze's reader (pasted.c).
 */
#ifndef FLASHBENCH_PASTELEX_H
#define FLASHBENCH_PASTELEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PASTE_MAX_SIZE_BYTES (1ULL << 50)	/* a size larger is junk */
#define PASTE_MAX_NR 1000000		/* an --open-au-nr larger is junk */
#define PASTE_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A word of a line: not NUL-terminated. */
struct paste_token {
	const char *s;
	size_t len;
};

bool paste_is_space(char c);

/*
 * Copy len bytes of src to dst (room for len bytes) without terminal
 * escapes (real ones, or pasted as "^[[A"), with carriage returns, form
 * feeds and no-break spaces as spaces; returns the length copied.
 */
size_t paste_clean_text(char *dst, const char *src, size_t len);

/* The next word from *p before end into t, moving *p past it. */
bool paste_next_token(const char **p, const char *end, struct paste_token *t);

bool paste_token_is(const struct paste_token *t, const char *word);

/* "flashbench", "./flashbench", "/usr/bin/flashbench" */
bool paste_is_flashbench(const struct paste_token *t);

/*
 * A decimal number at the start of s: [-]DIGITS[.DIGITS] (the sign only
 * where sign is true), at most 18 digits on each side.  Sets *used to
 * its length.
 */
bool paste_parse_decimal(const char *s, size_t len, bool sign, double *value,
			 size_t *used);

/*
 * A time in ns.  The diff (diff true) may be negative, and bare or with a
 * lone "n": the original prints it into 8 bytes and cuts the unit.
 */
bool paste_parse_time(const struct paste_token *t, bool diff, double *ns);

/* "4MiB", "512KiB", "2B": 1 byte to PASTE_MAX_SIZE_BYTES. */
bool paste_parse_size(const struct paste_token *t, uint64_t *bytes);

/* "7.78M/s", "450K/s": bytes per second. */
bool paste_parse_rate(const struct paste_token *t, double *bytes_per_s);

/* Plain digits in [min, max]. */
bool paste_parse_integer(const struct paste_token *t, uint64_t min,
			 uint64_t max, uint64_t *value);

#endif
