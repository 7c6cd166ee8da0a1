/*
 * test: the tests that are a VM program - the built-in ones (-a, -A, -O,
 * -f, -s, -i) and --program FILE: plan, run, report; for -i the
 * regression after the reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/interval.h"
#include "lib/die.h"
#include "modes/test.h"
#include "modes/run.h"
#include "vm/compile.h"
#include "modes/sinks.h"

/* The interval test's reads, kept for the regression as reported. */
struct interval_run {
	struct interval_points points;
	struct render *report;
};

static int collect_interval(void *ctx, const struct record *record)
{
	struct interval_run *run = ctx;

	interval_add(&run->points, record);
	return render_record(run->report, record);
}

/* The bytes a built-in test reaches, from its parameters. */
static double param(const struct program_params *params,
		    enum program_param slot)
{
	return params->slot[slot].value;
}

/* -a: pre, on and post reads around the smallest alignment, 2 blocks */
static double align_needs(const struct program_params *p)
{
	return 4 * param(p, PARAM_BLOCKSIZE);
}

/* -A: its region from the offset */
static double write_align_needs(const struct program_params *p)
{
	return param(p, PARAM_OFFSET) + param(p, PARAM_REGION);
}

/* -f: --fat-nr erase blocks from the start */
static double find_fat_needs(const struct program_params *p)
{
	return param(p, PARAM_FATNR) * param(p, PARAM_ERASESIZE);
}

/* -s: the last block position and its span */
static double scatter_needs(const struct program_params *p)
{
	return param(p, PARAM_OFFSET) + param(p, PARAM_SCATTER_BYTES) +
	       (param(p, PARAM_SCATTER_COUNT) - 1) * param(p, PARAM_BLOCKSIZE);
}

/* -i: --count reads of the largest size, one after the other */
static double interval_needs(const struct program_params *p)
{
	return param(p, PARAM_OFFSET) +
	       param(p, PARAM_COUNT) * param(p, PARAM_INTERVAL_TOP);
}

/*
 * A device too small for a test's reads or writes is refused before
 * anything runs, saying what the test needs (open-au places its own
 * erase blocks, modes/run.c).
 */
static void check_fits(const struct config *cfg, const struct dev *dev,
		       const struct program_params *params)
{
	static const struct {
		const char *test;
		double (*needs)(const struct program_params *p);
		const char *what;
	} sizes[] = {
		{ "align", align_needs, "4 blocks of --blocksize" },
		{ "write-align", write_align_needs,
		  "--offset and 16 erase blocks" },
		{ "find-fat", find_fat_needs, "--fat-nr erase blocks" },
		{ "scatter", scatter_needs,
		  "--offset and 2^--scatter-order blocks" },
		{ "interval", interval_needs,
		  "--offset and --count reads of the largest size" },
	};

	for (size_t i = 0; cfg->test && i < sizeof(sizes) / sizeof(sizes[0]);
	     i++) {
		double need = sizes[i].needs(params);

		if (strcmp(cfg->test->name, sizes[i].test) ||
		    need <= (double)dev->size_bytes)
			continue;
		usage_error("%s: %s is %llu bytes; the test needs at least "
			    "%.0f bytes (%s)", cfg->test->name, dev->path,
			    (unsigned long long)dev->size_bytes, need,
			    sizes[i].what);
	}
}

int mode_test(struct config *cfg)
{
	struct dev dev;
	struct vm_plan plan;
	struct vm_program *program;
	struct interval_run interval = { 0 };
	struct render_meta meta = { 0 };
	struct vm_exec exec = { 0 };
	struct program_params params;
	struct sinks sinks;
	char *text;
	int err;

	mode_open_device(cfg, &dev, DEV_READ_ONLY);
	mode_check_alignment(cfg, &dev);
	mode_set_params(cfg, &dev, &params);
	check_fits(cfg, &dev, &params);
	program = mode_plan_run(cfg, &params, &dev, cfg->test ? cfg->test->name :
			   cfg->program_path, &plan, &text);
	meta = (struct render_meta){
		.test = cfg->test ? cfg->test->name : "program",
		.params = params.slot, .param_count = PARAM_HEADER_COUNT };
	if (cfg->test) {
		meta.params = cfg->json_params;
		meta.param_flags = cfg->json_flags;
		meta.param_count = mode_set_option_json_params(cfg);
	}
	mode_output_open(cfg, &dev, &meta, &sinks);
	interval.report = sinks.report;
	mode_prepare_timing(cfg);
	if (cfg->test && strcmp(cfg->test->name, "interval") == 0) {
		sinks.next = (struct record_sink){ collect_interval, &interval };
	}
	exec = (struct vm_exec){ .dev = &dev,
				 .sink = { mode_emit_to_sinks, &sinks },
				 .on_progress = mode_show_progress, .ctx = &sinks,
				 .stop = cfg->stop,
				 .skip_read_errors = cfg->test &&
						     cfg->test->skips_bad };
	err = vm_run(program, &plan, &exec);
	progress_end(&sinks.progress);
	if (!err && sinks.next.emit == collect_interval)
		err = interval_summary(&interval.points,
				       &(struct record_sink){ render_record,
							      sinks.report });
	mode_output_close(cfg, &sinks, &dev, err);
	if (exec.failed_reads) {
		mode_report_skipped(meta.test, exec.dropped_records,
			       exec.failed_reads, &exec.first_failure);
		if (!err && sinks.records == 0)
			runtime_error("%s: %s: no block could be read",
				      cfg->device, meta.test);
	}
	vm_free(program);
	free(text);
	if (err == -ENOMEM)
		runtime_error("out of memory for buffers of %llu bytes",
			      (unsigned long long)plan.max_length);
	return mode_end_run(cfg, &dev, err, "interrupted; results are incomplete");
}

