/*
 * fuzz-plot: saved JSON runs, as --plot reads them: the JSON parser on
 * the bytes as they are (it takes a length, not a C string), then the
 * same bytes as a file for plot_load_json, loaded twice into one chart
 * and drawn.  The file is a memfd, reached as /proc/self/fd/N.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "lib/jsonparse.h"
#include "output/plot.h"

static int memfd = -1;
static char memfd_path[64];

static void walk(const struct json_value *v, unsigned depth)
{
	if (depth > JSON_MAX_DEPTH + 1)
		abort();
	if (v->type == JSON_STRING && !v->string)
		abort();
	if (v->type == JSON_ARRAY || v->type == JSON_OBJECT)
		for (size_t i = 0; i < v->count; i++) {
			if (v->type == JSON_OBJECT && !v->items[i].key)
				abort();
			walk(&v->items[i], depth + 1);
		}
}

static void parse(const uint8_t *data, size_t size)
{
	struct json_value *root;
	char err[256];

	if (json_parse((const char *)data, size, &root, err, sizeof(err)))
		return;
	walk(root, 0);
	json_get(root, "test");
	json_free(root);
}

static bool write_file(const uint8_t *data, size_t size)
{
	if (memfd < 0) {
		memfd = memfd_create("fuzz-plot", 0);
		if (memfd < 0)
			abort();
		snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d",
			 memfd);
	}
	if (ftruncate(memfd, 0) ||
	    pwrite(memfd, data, size, 0) != (ssize_t)size)
		return false;
	return true;
}

static void load(const uint8_t *data, size_t size)
{
	struct plot *plot;
	char err[256];

	if (!write_file(data, size))
		return;
	plot = plot_new(NULL);
	if (!plot)
		return;
	if (plot_load_json(plot, memfd_path, err, sizeof(err)) == 0)
		plot_load_json(plot, memfd_path, err, sizeof(err));
	plot_write(plot, fuzz_null());
	plot_free(plot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	parse(data, size);
	load(data, size);
	return 0;
}
