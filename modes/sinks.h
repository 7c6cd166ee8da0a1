/*
 * sinks: where a run's results go - the report on standard output or
 * -o, a --plot chart and the progress line beside it - and the checks,
 * before any device is opened, that -o and --plot name files whose loss
 * harms nothing.  A write error ends the program (exit 1).
 */
#ifndef FLASHBENCH_SINKS_H
#define FLASHBENCH_SINKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dev.h"
#include "identity/devname.h"
#include "modes/options.h"
#include "output/plot.h"
#include "output/progress.h"
#include "output/render.h"
#include "vm.h"

/*
 * A run's output, the same for every test: the report on standard output
 * or --out, a --plot chart and the progress line beside it.  Records
 * reach all of them through mode_emit_to_sinks.
 */
struct sinks {
	FILE *out;
	struct devname device;		/* the JSON header's identity, name */
	struct render *report;
	struct render *also_json;	/* --report's copy of each part */
	struct progress progress;
	uint64_t records;		/* handed to the report */
	struct plot *plot;
	struct record_sink next;	/* after the chart: the report at first */
	int emit_error;			/* why a record could not be taken */
};


/* Hand a record to the chart and to sinks->next (the report at first). */
int mode_emit_to_sinks(void *ctx, const struct record *record);

/* vm_exec.on_progress: the sinks are its ctx */
void mode_show_progress(void *ctx, uint64_t done, uint64_t total);

/* Refuse -o and --plot where results would overwrite what matters. */
void mode_check_outputs(struct config *cfg);

/* "-" names standard output, for -o and --plot alike. */
bool mode_is_stdout_name(const char *path);

/* --plot's file, or standard output for "-"; the caller closes it. */
FILE *mode_open_plot_output(const struct config *cfg);

/* Write the chart to --plot's file and free it. */
void mode_write_plot(const struct config *cfg, struct plot *plot);

/* -o's file, or standard output; close it with mode_close_output. */
FILE *mode_open_output(const struct config *cfg);
void mode_close_output(const struct config *cfg, FILE *out, int err);

/*
 * The identity and name of the device cfg names, for meta (their text in
 * names, which must outlive meta).
 */
void mode_output_name_device(const struct config *cfg, const struct dev *dev,
			struct render_meta *meta, struct devname *names);

/* Start a test's output; meta gets the command line and the device. */
void mode_output_open(const struct config *cfg, const struct dev *dev,
		 struct render_meta *meta, struct sinks *sinks);

/* Finish the report (incomplete when err is -EINTR), file and chart. */
void mode_output_close(const struct config *cfg, struct sinks *sinks,
		  const struct dev *dev, int err);

#endif
