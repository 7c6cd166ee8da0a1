/*
 * cli: what the two programs share about their command lines - turning
 * getopt's complaints into one-line messages in the house wording.  It
 * prints nothing itself.
 */
#ifndef FLASHBENCH_CLI_H
#define FLASHBENCH_CLI_H

#include <getopt.h>
#include <stddef.h>

/*
 * Describe the option error getopt_long just returned (c is '?' or ':';
 * call with opterr = 0 and a short-option string starting with ':').
 * arg is argv[optind - 1].  Writes "unknown option '--bogus'" and the like.
 */
const char *cli_option_error(int c, int option_char, const char *arg,
			     const struct option *longs, char *buf,
			     size_t size);

/*
 * The command line as one shell-quoted string, for the JSON header
 * (malloc'd; NULL when out of memory).
 */
char *cli_join_command(int argc, char **argv);

#endif
