/*
 * readfile: a file read whole to a bound, in a buffer that doubles up to
 * one byte past the bound - that byte read means the file is larger.
 * No messages, no exits: an errno back to the caller.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "lib/readfile.h"

/* A directory opens for reading, then fails every read with EISDIR. */
static bool is_directory(FILE *f)
{
	struct stat st;

	return fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode);
}

/* Room for more of the file: double, up to limit_bytes + 1. */
static int grow(char **buf, size_t *size, size_t limit_bytes)
{
	size_t want = *size ? 2 * *size : 65536;
	char *grown;

	if (limit_bytes < SIZE_MAX && want > limit_bytes + 1)
		want = limit_bytes + 1;
	if (want == *size)
		return -EFBIG;
	grown = realloc(*buf, want);
	if (!grown)
		return -ENOMEM;
	*buf = grown;
	*size = want;
	return 0;
}

int readfile_stream(FILE *f, size_t limit_bytes, char **text,
		    size_t *length)
{
	size_t size = 0, used = 0, got;
	char *buf = NULL;
	int err = 0;

	if (is_directory(f))
		return -EISDIR;
	do {
		if (used == size)
			err = grow(&buf, &size, limit_bytes);
		if (err)
			break;
		got = fread(buf + used, 1, size - used, f);
		used += got;
	} while (got);
	if (!err && ferror(f))
		err = -EIO;
	if (!err && used > limit_bytes)
		err = -EFBIG;
	if (err) {
		free(buf);
		return err;
	}
	*text = buf;
	*length = used;
	return 0;
}

int readfile_whole(const char *path, size_t limit_bytes, char **text,
		   size_t *length)
{
	FILE *f = fopen(path, "rb");
	int err;

	if (!f)
		return -errno;
	err = readfile_stream(f, limit_bytes, text, length);
	fclose(f);
	return err;
}
