/*
 * unit-readfile: a file read whole to a bound - the bound exact, to the
 * byte, for --analyze's saved output and the JSON runs --plot and
 * --compare read alike (JSON took up to twice its bound); a directory, a
 * missing file, an empty one and a pipe.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/readfile.h"
#include "analysis/saved.h"
#include "lib/jsonparse.h"
#include "unit.h"

/* A file of size bytes of text at dir/name; its path in path. */
static int make_file(const char *dir, const char *name, size_t size,
		     char *path, size_t path_size)
{
	FILE *f;

	snprintf(path, path_size, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	/* an empty JSON array, spaced out: it parses when read whole */
	if (size)
		fputc('[', f);
	for (size_t i = 2; i < size; i++)
		fputc(' ', f);
	if (size > 1)
		fputc(']', f);
	return fclose(f) ? -errno : 0;
}

static void test_bound(const char *dir)
{
	char path[4096], *text = NULL;
	size_t length = 0;
	const size_t limit = 100000;	/* past the first 64 KiB buffer */

	make_file(dir, "at-limit", limit, path, sizeof(path));
	UNIT_CHECK(readfile_whole(path, limit, &text, &length) == 0 &&
		   length == limit && text[0] == '[' &&
		   text[limit - 1] == ']',
		   "a file of exactly the bound is read whole");
	free(text);
	text = NULL;
	UNIT_CHECK(readfile_whole(path, limit - 1, &text, &length) == -EFBIG &&
		   !text, "one byte past the bound is -EFBIG");
	unlink(path);
	make_file(dir, "empty", 0, path, sizeof(path));
	UNIT_CHECK(readfile_whole(path, limit, &text, &length) == 0 &&
		   length == 0, "an empty file reads as nothing");
	free(text);
	text = NULL;
	UNIT_CHECK(readfile_whole(path, 0, &text, &length) == 0 &&
		   length == 0, "an empty file fits a bound of 0");
	free(text);
	unlink(path);
}

static void test_refusals(const char *dir)
{
	char path[4096], *text = NULL;
	size_t length = 0;

	UNIT_CHECK(readfile_whole(dir, 1000, &text, &length) == -EISDIR &&
		   !text, "a directory is -EISDIR, not an empty file");
	snprintf(path, sizeof(path), "%s/missing", dir);
	UNIT_CHECK(readfile_whole(path, 1000, &text, &length) == -ENOENT &&
		   !text, "a missing file is -ENOENT");
}

static void test_stream(void)
{
	static const char words[] = "align 4096 pre 1us on 2us post 1us";
	char *text = NULL;
	size_t length = 0;
	int fds[2];
	FILE *f;

	if (pipe(fds) || write(fds[1], words, sizeof(words) - 1) !=
	    (ssize_t)sizeof(words) - 1) {
		UNIT_CHECK(0, "pipe: %s", strerror(errno));
		return;
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	UNIT_CHECK(f && readfile_stream(f, 1000, &text, &length) == 0 &&
		   length == sizeof(words) - 1 &&
		   memcmp(text, words, length) == 0,
		   "a pipe is read to its end");
	free(text);
	if (f)
		fclose(f);
}

/* --plot and --compare read JSON through the same bound. */
static void test_json_bound(const char *dir)
{
	const size_t limit = 1 << 20;
	struct json_value *root = NULL;
	char path[4096], err[256] = "";

	make_file(dir, "past-limit.json", limit + 1, path, sizeof(path));
	UNIT_CHECK(saved_run_load(path, limit, &root, err, sizeof(err)) ==
		   -EFBIG && !root,
		   "a JSON document one byte past the bound is refused");
	UNIT_STREQ(err, "larger than 1 MiB", "... saying so");
	json_free(root);
	root = NULL;
	UNIT_CHECK(saved_run_load(path, limit + 1, &root, err,
				  sizeof(err)) == 0 && root &&
		   root->type == JSON_ARRAY,
		   "the same document within the bound parses");
	json_free(root);
	unlink(path);
	UNIT_CHECK(saved_run_load(dir, limit, &root, err, sizeof(err)) ==
		   -EISDIR, "a directory is no JSON run");
	UNIT_STREQ(err, "is a directory; give saved json runs",
		   "... saying so");
}

int main(void)
{
	char dir[] = "/tmp/unit-readfile.XXXXXX";

	if (!mkdtemp(dir)) {
		UNIT_CHECK(0, "mkdtemp: %s", strerror(errno));
		return UNIT_DONE();
	}
	test_bound(dir);
	test_refusals(dir);
	test_stream();
	test_json_bound(dir);
	UNIT_CHECK(rmdir(dir) == 0, "nothing is left in %s", dir);
	return UNIT_DONE();
}
