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
	struct report *report;
};

static int collect_interval(void *ctx, const struct record *record)
{
	struct interval_run *run = ctx;

	interval_add(&run->points, record);
	return report_record(run->report, record);
}

int mode_test(struct config *cfg)
{
	struct dev dev;
	struct vm_plan plan;
	struct vm_program *program;
	struct interval_run interval = { 0 };
	struct report_meta meta = { 0 };
	struct vm_exec exec = { 0 };
	struct program_params params;
	struct sinks sinks;
	char *text;
	int err;

	open_device(cfg, &dev, DEV_READ_ONLY);
	check_alignment(cfg, &dev);
	set_params(cfg, &dev, &params);
	program = plan_run(cfg, &params, &dev, cfg->test ? cfg->test->name :
			   cfg->program_path, &plan, &text);
	meta = (struct report_meta){
		.test = cfg->test ? cfg->test->name : "program",
		.params = params.slot, .param_count = PARAM_HEADER_COUNT };
	if (cfg->test) {
		meta.params = cfg->json_params;
		meta.param_flags = cfg->json_flags;
		meta.param_count = set_option_json_params(cfg);
	}
	output_open(cfg, &dev, &meta, &sinks);
	interval.report = sinks.report;
	prepare_timing(cfg);
	if (cfg->test && strcmp(cfg->test->name, "interval") == 0) {
		sinks.emit = collect_interval;
		sinks.ctx = &interval;
	}
	exec = (struct vm_exec){ .dev = &dev, .emit = emit_to_sinks,
				 .progress = show_progress, .ctx = &sinks,
				 .stop = cfg->stop,
				 .skip_read_errors = cfg->test &&
						     cfg->test->skips_bad };
	err = vm_run(program, &plan, &exec);
	progress_end(&sinks.progress);
	if (!err && sinks.emit == collect_interval)
		err = interval_summary(&interval.points, report_record,
				       sinks.report);
	output_close(cfg, &sinks, &dev, err);
	if (exec.failed_reads) {
		report_skipped(meta.test, exec.dropped_records,
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
	return end_run(cfg, &dev, err, "interrupted; results are incomplete");
}

