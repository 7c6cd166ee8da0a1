/*
 * pastelex: pasted text into words and numbers.  Escapes and stray
 * control characters go first; then tokens between spaces, and numbers
 * with the units of either tool's output - the micro sign in every
 * encoding a paste has been seen in, the original's cut-off diff units.
 */
#include <math.h>
#include <string.h>

#include "analysis/pastelex.h"

#define MAX_RATE 1e12			/* bytes per second */
#define MAX_TIME_NS 1e15
#define MAX_DIGITS 18

struct unit {
	const char *name;
	double scale;
};

static const struct unit time_units[] = {
	{ "ns", 1 },
	{ "us", 1e3 },
	{ "\xc2\xb5s", 1e3 },		/* micro sign */
	{ "\xce\xbcs", 1e3 },		/* Greek mu */
	{ "\xb5s", 1e3 },		/* Latin-1 micro sign */
	{ "\xc3\x82\xc2\xb5s", 1e3 },	/* UTF-8 read as Latin-1 and back */
	{ "ms", 1e6 },
	{ "s", 1e9 },
};

static const struct unit size_units[] = {
	{ "B", 1 },
	{ "KiB", 1024.0 },
	{ "MiB", 1024.0 * 1024 },
	{ "GiB", 1024.0 * 1024 * 1024 },
	{ "TiB", 1024.0 * 1024 * 1024 * 1024 },
};

static const struct unit rate_units[] = {
	{ "B/s", 1 },
	{ "K/s", 1e3 },
	{ "k/s", 1e3 },
	{ "M/s", 1e6 },
	{ "G/s", 1e9 },
};

/* ---- cleaning and tokens ---- */

bool paste_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Length of a CSI sequence's parameters and final byte at s, or 0. */
static size_t csi_length(const char *s, const char *end)
{
	const char *p = s;

	while (p < end && ((*p >= '0' && *p <= '9') || *p == ';' ||
			   *p == '?'))
		p++;
	if (p < end && *p >= '@' && *p <= '~')
		return (size_t)(p - s) + 1;
	return 0;
}

/*
 * Copy text without terminal escapes (real ones, or pasted as "^[[A"),
 * with carriage returns, form feeds and no-break spaces as spaces.
 */
size_t paste_clean_text(char *dst, const char *src, size_t len)
{
	const char *end = src + len;
	size_t n = 0, skip;

	while (src < end) {
		if (*src == '\x1b' && src + 1 < end) {
			skip = src[1] == '[' ? csi_length(src + 2, end) : 0;
			src += skip ? 2 + skip : 2;
		} else if (*src == '^' && src + 1 < end && src[1] == '[') {
			skip = src + 2 < end && src[2] == '[' ?
				csi_length(src + 3, end) : 0;
			if (skip)
				src += 3 + skip;
			else
				src += src + 2 < end ? 3 : 2;
		} else if ((unsigned char)*src == 0xc2 && src + 1 < end &&
			   (unsigned char)src[1] == 0xa0) {
			dst[n++] = ' ';
			dst[n++] = ' ';
			src += 2;
		} else if (*src == '\r' || *src == '\f' || *src == '\v' ||
			   *src == '\0') {
			dst[n++] = ' ';
			src++;
		} else {
			dst[n++] = *src++;
		}
	}
	return n;
}

bool paste_next_token(const char **p, const char *end, struct paste_token *t)
{
	const char *s = *p;

	while (s < end && paste_is_space(*s))
		s++;
	if (s == end) {
		*p = s;
		return false;
	}
	t->s = s;
	while (s < end && !paste_is_space(*s))
		s++;
	t->len = (size_t)(s - t->s);
	*p = s;
	return true;
}

bool paste_token_is(const struct paste_token *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

/* "flashbench", "./flashbench", "/usr/bin/flashbench" */
bool paste_is_flashbench(const struct paste_token *t)
{
	static const char name[] = "flashbench";
	size_t n = sizeof(name) - 1;

	if (t->len < n || memcmp(t->s + t->len - n, name, n))
		return false;
	return t->len == n || t->s[t->len - n - 1] == '/';
}

/* ---- numbers ---- */

/* At most MAX_DIGITS digits on each side of the point. */
bool paste_parse_decimal(const char *s, size_t len, bool sign, double *value,
			 size_t *used)
{
	size_t i = 0, digits = 0, fraction = 0;
	double v = 0, scale = 0.1;
	bool negative = false;

	if (sign && i < len && s[i] == '-') {
		negative = true;
		i++;
	}
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		v = v * 10 + (s[i] - '0');
	if (digits == 0 || digits > MAX_DIGITS)
		return false;
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9';
		     i++, fraction++) {
			v += (s[i] - '0') * scale;
			scale /= 10;
		}
		if (fraction == 0 || fraction > MAX_DIGITS)
			return false;
	}
	*value = negative ? -v : v;
	*used = i;
	return true;
}

/* A number followed directly by one of the units: the value in base units. */
static bool parse_with_unit(const struct paste_token *t,
			    const struct unit *units, size_t count, bool sign,
			    bool bare, double *value)
{
	size_t used, rest;
	double v;

	if (!paste_parse_decimal(t->s, t->len, sign, &v, &used))
		return false;
	rest = t->len - used;
	if (rest == 0 && bare) {
		*value = v;
		return true;
	}
	for (size_t i = 0; i < count; i++)
		if (strlen(units[i].name) == rest &&
		    memcmp(t->s + used, units[i].name, rest) == 0) {
			*value = v * units[i].scale;
			return true;
		}
	return false;
}

/*
 * The original prints the diff into 8 bytes, so "-412331ns" loses its
 * unit or part of it ("-412331", "-49389n"), and what is left counts in
 * ns.
 */
bool paste_parse_time(const struct paste_token *t, bool diff, double *ns)
{
	struct paste_token cut = *t;

	if (diff && cut.len > 1 && cut.s[cut.len - 1] == 'n' &&
	    cut.s[cut.len - 2] >= '0' && cut.s[cut.len - 2] <= '9')
		cut.len--;
	if (!parse_with_unit(&cut, time_units, PASTE_COUNT_OF(time_units),
			     diff, diff, ns))
		return false;
	return fabs(*ns) <= MAX_TIME_NS;
}

bool paste_parse_size(const struct paste_token *t, uint64_t *bytes)
{
	double v;

	if (!parse_with_unit(t, size_units, PASTE_COUNT_OF(size_units),
			     false, false, &v) || v < 1 ||
	    v > (double)PASTE_MAX_SIZE_BYTES)
		return false;
	*bytes = (uint64_t)(v + 0.5);
	return true;
}

bool paste_parse_rate(const struct paste_token *t, double *bytes_per_s)
{
	return parse_with_unit(t, rate_units, PASTE_COUNT_OF(rate_units),
			       false, false, bytes_per_s) &&
	       *bytes_per_s <= MAX_RATE;
}

bool paste_parse_integer(const struct paste_token *t, uint64_t min,
			 uint64_t max, uint64_t *value)
{
	uint64_t v = 0;

	if (t->len == 0 || t->len > MAX_DIGITS)
		return false;
	for (size_t i = 0; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(t->s[i] - '0');
	}
	if (v < min || v > max)
		return false;
	*value = v;
	return true;
}
