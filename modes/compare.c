/*
 * compare: the --compare driver.  Every file is read before anything is
 * written: a file that is no saved run is bad input (exit 2), a file
 * that cannot be read an I/O failure (exit 1), and either ends the run
 * with the table unprinted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/die.h"
#include "modes/compare.h"
#include "modes/sinks.h"
#include "output/reportcompare.h"

/* Failures that say the file named is the wrong one: bad input. */
static const int bad_input[] = {
	ENOENT, ENOTDIR, EACCES, ELOOP, ENAMETOOLONG, EISDIR, EINVAL, EFBIG,
	E2BIG,
};

/* A file that failed: bad input (exit 2), or a failure reading it. */
static void refuse_file(const char *path, int err, const char *why)
{
	for (size_t i = 0; i < sizeof(bad_input) / sizeof(bad_input[0]); i++)
		if (err == -bad_input[i])
			usage_error("--compare: %s: %s", path, why);
	if (err == -ENOMEM)
		runtime_error("out of memory");
	runtime_error("%s: read error: %s", path, why);
}

static void write_compare_plot(const struct config *cfg,
			       const struct compare *table)
{
	FILE *f = open_plot_output(cfg);

	if (compare_plot(table, f) | (f == stdout ? fflush(f) : fclose(f)))
		runtime_error("%s: write error", cfg->plot_path);
}

int mode_compare(struct config *cfg)
{
	struct compare *table = compare_new();
	char why[MESSAGE_BYTES];
	FILE *out;
	int err;

	if (!table)
		runtime_error("out of memory");
	for (size_t i = 0; i < cfg->file_count; i++) {
		err = compare_add_file(table, cfg->files[i], why, sizeof(why));
		if (err)
			refuse_file(cfg->files[i], err, why);
	}
	compare_finish(table);
	out = open_output(cfg);
	err = compare_report(table, cfg->format, cfg->command, out);
	close_output(cfg, out, err);
	if (cfg->plot_path)
		write_compare_plot(cfg, table);
	compare_free(table);
	return 0;
}
