/*
 * readfile: a whole file into memory, within a bound - the one reader
 * behind --analyze's saved output and the JSON runs --plot and --compare
 * read back.  It says what went wrong as an errno; the callers name the
 * file and word the message.
 */
#ifndef FLASHBENCH_READFILE_H
#define FLASHBENCH_READFILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * All of stream f, at most limit_bytes, into *text (taken from the heap,
 * for the caller to free; not NUL-terminated), its length in *length.
 * f stays open.  Returns 0; -EISDIR for a directory (it opens, then fails
 * every read), -EFBIG when f holds more than limit_bytes, -ENOMEM or
 * -EIO; *text is then untouched.
 */
int readfile_stream(FILE *f, size_t limit_bytes, char **text,
		    size_t *length);

/*
 * The file at path, opened, read as readfile_stream reads and closed.
 * Returns readfile_stream's codes, or the negative errno of opening it.
 */
int readfile_whole(const char *path, size_t limit_bytes, char **text,
		   size_t *length);

#endif
