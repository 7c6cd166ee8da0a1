/*
 * analyze: the modes that measure nothing - --analyze reads saved -a
 * and -O output back into findings, --plot=FILE run.json... draws saved
 * runs on one chart.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/pasted.h"
#include "lib/die.h"
#include "modes/analyze.h"
#include "modes/sinks.h"
#include "output/plot.h"
#include "records/analyze.h"

/* -v: every ignored line kept, "FILE:LINE: ignored, WHY: TEXT". */
static void list_ignored(const struct config *cfg,
			 const struct analyze_result *result)
{
	size_t kept = result->lines_ignored < ANALYZE_MAX_IGNORED ?
		      result->lines_ignored : ANALYZE_MAX_IGNORED;

	for (size_t i = 0; i < kept; i++) {
		const struct analyze_ignored *ig = &result->ignored[i];
		const char *file = ig->file < (unsigned)cfg->file_count ?
				   cfg->files[ig->file] : "-";

		fprintf(stderr, "%s:%zu: ignored, %s: %s\n",
			strcmp(file, "-") ? file : "standard input", ig->line,
			ig->why, ig->text);
	}
	if (result->lines_ignored > kept)
		fprintf(stderr, "... and %zu more lines ignored\n",
			result->lines_ignored - kept);
}

/* --analyze: findings from saved output; measures nothing. */
int mode_analyze(struct config *cfg)
{
	/* large: on the heap, one a run, not a static */
	struct analyze_result *result = calloc(1, sizeof(*result));
	char why[4200];
	FILE *out;
	int err;

	if (!result)
		runtime_error("out of memory");
	err = analyze_files(cfg->files, cfg->file_count, result, why,
			    sizeof(why));
	if (err == -EISDIR)
		usage_error("--analyze: %s", why);
	if (err)
		runtime_error("%s", why);
	if (cfg->verbose)
		list_ignored(cfg, result);
	if (!analyze_found_any(result))
		runtime_error("--analyze: no input to analyze: no align line "
			      "or open-AU run in %zu line%s (-v lists them)",
			      result->lines, result->lines == 1 ? "" : "s");
	out = mode_open_output(cfg);
	err = analyze_report(result, cfg->format, cfg->command, out);
	free(result);
	mode_close_output(cfg, out, err);
	return 0;
}

/* flashbench --plot=FILE run.json...: saved runs on one chart. */
int mode_plot(struct config *cfg)
{
	struct plot *plot = plot_new(NULL);
	char why[256];

	if (!plot)
		runtime_error("out of memory");
	for (int i = 0; i < cfg->plot_input_count; i++) {
		int err = plot_load_json(plot, cfg->plot_inputs[i], why,
					 sizeof(why));

		if (err == -EISDIR)
			usage_error("--plot: %s: %s", cfg->plot_inputs[i],
				    why);
		if (err)
			runtime_error("%s: %s", cfg->plot_inputs[i], why);
	}
	mode_write_plot(cfg, plot);
	return 0;
}

