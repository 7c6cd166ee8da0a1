/*
 * die: error lines and exits for the three programs, worded alike:
 * "flashbench: what: why", then "Try 'flashbench --help' for more
 * information." for a usage error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/die.h"
#include "lib/exitcode.h"

/* flashbench's; erase.c and emu/flashemu.c define their own */
__attribute__((weak)) const char die_program_name[] = "flashbench";

void die_status(int status, const char *format, va_list args)
{
	fprintf(stderr, "%s: ", die_program_name);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	if (status == EXIT_USAGE)
		fprintf(stderr, "Try '%s --help' for more information.\n",
			die_program_name);
	exit(status);
}

void usage_error(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	die_status(EXIT_USAGE, format, args);
}

void runtime_error(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	die_status(EXIT_RUNTIME, format, args);
}
