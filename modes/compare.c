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
#include "records/compare.h"

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

static int write_compare_plot(const struct config *cfg,
			      const struct compare *table)
{
	FILE *f = mode_open_plot_output(cfg);

	return compare_plot(table, f) | (f == stdout ? fflush(f) : fclose(f)) ?
	       -EIO : 0;
}

/*
 * The table is freed before any way out: a refusal exits (lib/die.c),
 * and what it leaves allocated the sanitizers' leak check reports.
 */
int mode_compare(struct config *cfg)
{
	struct compare *table = compare_new();
	char why[MESSAGE_BYTES];
	size_t i;
	FILE *out;
	int err = 0, plot_err = 0;

	if (!table)
		runtime_error("out of memory");
	for (i = 0; !err && i < cfg->file_count; i++)
		err = compare_add_file(table, cfg->files[i], why, sizeof(why));
	if (err) {
		compare_free(table);
		refuse_file(cfg->files[i - 1], err, why);
	}
	compare_finish(table);
	out = mode_open_output(cfg);
	err = compare_report(table, cfg->format, cfg->command, out);
	if (!err && cfg->plot_path)
		plot_err = write_compare_plot(cfg, table);
	compare_free(table);
	mode_close_output(cfg, out, err);
	if (plot_err)
		runtime_error("%s: write error", cfg->plot_path);
	return 0;
}
