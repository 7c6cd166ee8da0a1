/*
 * cli: messages for command-line mistakes that getopt finds, worded like
 * every other usage error ("unknown option '--bogus'"), naming the option
 * as the user typed it.
 */
#include <stdio.h>
#include <string.h>

#include "lib/cli.h"

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

	if (count == 1 && !exact)
		exact = longs;		/* an unambiguous abbreviation */
	if (count == 0)
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
