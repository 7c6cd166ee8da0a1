/*
 * json: the one JSON string writer every output uses, and the version of
 * every document flashbench writes.  Reading them back is
 * lib/jsonparse.h's (the tree) and analysis/saved.h's (the runs).
 */
#ifndef FLASHBENCH_JSON_H
#define FLASHBENCH_JSON_H

#include <stdio.h>

/*
 * Version of every document flashbench writes, JSON and CSV alike; README
 * lists what each version changed.
 */
#define JSON_SCHEMA 3

/*
 * text (NULL: "") as a JSON string: quoted; quote, backslash and control
 * characters escaped; each byte that does not start valid UTF-8 written
 * as U+FFFD, the replacement character, the same in every output.
 */
void json_write_string(FILE *out, const char *text);

#endif
