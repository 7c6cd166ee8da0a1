/*
 * cli: messages for command-line mistakes that getopt finds, worded like
 * every other usage error ("unknown option '--bogus'"), naming the option
 * as the user typed it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"

#define SUGGEST_MAX_EDITS 2	/* typos farther than this get no guess */
#define SUGGEST_MAX_NAME 64	/* longer names are no typo of an option */

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/*
 * Edits (insert, delete, replace, swap two neighbours) from a's first
 * a_length bytes to b; SUGGEST_MAX_EDITS + 1 for anything farther.
 */
static size_t edit_distance(const char *a, size_t a_length, const char *b)
{
	size_t b_length = strlen(b);
	size_t d[SUGGEST_MAX_NAME + 1][SUGGEST_MAX_NAME + 1];

	if (a_length > SUGGEST_MAX_NAME || b_length > SUGGEST_MAX_NAME)
		return SUGGEST_MAX_EDITS + 1;
	for (size_t i = 0; i <= a_length; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= b_length; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= a_length; i++) {
		for (size_t j = 1; j <= b_length; j++) {
			size_t cost = (size_t)(a[i - 1] != b[j - 1]);

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 <
			    d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[a_length][b_length];
}

/*
 * The one long option nearest a name no option has, within
 * SUGGEST_MAX_EDITS and fewer edits than the name has letters; NULL
 * when none is, or two are as near.
 */
static const char *nearest(const struct option *longs, const char *name,
			   size_t length)
{
	const char *best = NULL;
	size_t best_edits = SUGGEST_MAX_EDITS + 1;
	bool tie = false;

	for (; longs->name; longs++) {
		size_t edits = edit_distance(name, length, longs->name);

		if (edits < best_edits) {
			best = longs->name;
			best_edits = edits;
			tie = false;
		} else if (edits == best_edits) {
			tie = true;
		}
	}
	return best && !tie && best_edits < length ? best : NULL;
}

/* Long options whose names start with name (length bytes of it). */
static size_t matching(const struct option *longs, const char *name,
		       size_t length, char *list, size_t size,
		       const struct option **exact)
{
	size_t count = 0;

	*exact = NULL;
	list[0] = '\0';
	for (; longs->name; longs++) {
		if (strncmp(longs->name, name, length))
			continue;
		if (strlen(longs->name) == length)
			*exact = longs;
		snprintf(list + strlen(list), size - strlen(list), "%s%s",
			 count ? ", " : "", longs->name);
		count++;
	}
	return count;
}

static const char *long_error(int c, const char *arg,
			      const struct option *longs, char *buf,
			      size_t size)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t length = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *exact;
	char list[256];
	size_t count = matching(longs, name, length, list, sizeof(list),
				&exact);
	const char *guess = count ? NULL : nearest(longs, name, length);

	if (count == 1 && !exact)
		exact = longs;		/* an unambiguous abbreviation */
	if (count == 0 && guess)
		snprintf(buf, size, "unknown option '--%.*s'; did you mean "
			 "--%s?", (int)length, name, guess);
	else if (count == 0)
		snprintf(buf, size, "unknown option '--%.*s'", (int)length,
			 name);
	else if (count > 1 && !exact)
		snprintf(buf, size, "option '--%.*s' is ambiguous (%s)",
			 (int)length, name, list);
	else if (c == ':')
		snprintf(buf, size, "option '--%.*s' needs an argument",
			 (int)length, name);
	else
		snprintf(buf, size, "option '--%.*s' takes no argument",
			 (int)length, name);
	return buf;
}

const char *cli_option_error(int c, int option_char, const char *arg,
			     const struct option *longs, char *buf,
			     size_t size)
{
	if (arg && strncmp(arg, "--", 2) == 0 && arg[2])
		return long_error(c, arg, longs, buf, size);
	if (c == ':')
		snprintf(buf, size, "option '-%c' needs an argument",
			 option_char);
	else if (option_char > ' ' && option_char < 127)
		snprintf(buf, size, "unknown option '-%c'", option_char);
	else
		snprintf(buf, size, "unknown option '%s'", arg ? arg : "?");
	return buf;
}

/* The command line as one shell-quoted string, for the JSON header. */
char *cli_join_command(int argc, char **argv)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+,./:@%";
	size_t size = 1;
	char *text, *p;

	for (int i = 0; i < argc; i++)
		size += 4 * strlen(argv[i]) + 3;
	text = p = malloc(size);
	if (!text)
		return NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool quote = !*a || a[strspn(a, plain)];

		if (i)
			*p++ = ' ';
		if (quote)
			*p++ = '\'';
		for (; *a; a++) {
			if (*a == '\'' && quote) {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *a;
			}
		}
		if (quote)
			*p++ = '\'';
	}
	*p = '\0';
	return text;
}
