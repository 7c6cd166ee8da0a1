/*
 * detect: --detect [--write], the erase block and page size found by
 * probes, with their confidence and advice; --write also finds the open
 * erase blocks, writing only the range it announces.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/die.h"
#include "measure/detect.h"
#include "modes/detect.h"
#include "modes/run.h"
#include "modes/sinks.h"
#include "records/detect.h"

/*
 * An erase size --detect works with: whole logical blocks, and with
 * --write one the probes fit in and the device holds them at.  Exits 2
 * when it is not.
 */
static void check_detect_erase(const struct config *cfg,
			       const struct dev *dev, uint64_t erase_bytes)
{
	uint64_t start, end;
	int err;

	mode_check_multiple("--erasesize", erase_bytes, dev);
	if (!cfg->write)
		return;
	err = detect_write_range(dev, erase_bytes, &start, &end);
	if (err == -EINVAL)
		usage_error("--detect --write: an erase size of %llu is too "
			    "small for the probes' writes on %s; give %llu "
			    "or more", (unsigned long long)erase_bytes,
			    cfg->device, (unsigned long long)
			    detect_min_erase_bytes(dev->logical_block_bytes));
	if (err)
		usage_error("--detect --write: %s is too small for the "
			    "probes", cfg->device);
}

/* Before --detect --write writes: say where, and allow only that. */
static int announce_detect(void *ctx, struct dev *dev, uint64_t start,
			   uint64_t end)
{
	mode_announce_writes("detect --write", dev, start, end, NULL);
	mode_keep_announced(ctx, start, end);
	return 0;
}

/* A detect run's report; its parameters with the erase size it used. */
static int detect_output(const struct config *cfg, const struct dev *dev,
			 const struct detect_findings *findings, FILE *out)
{
	struct config used = *cfg;
	struct render_meta meta = { .test = "detect",
		.command = cfg->command, .params = NULL };
	struct devname names;

	mode_output_name_device(cfg, dev, &meta, &names);

	used.erasesize = findings->erase_used;
	meta.param_count = mode_set_option_json_params(&used);
	meta.params = used.json_params;
	meta.param_flags = used.json_flags;
	if (detect_report(out, cfg->format, &meta, dev, findings) ||
	    (cfg->also_json && detect_report(cfg->also_json, RENDER_JSON,
					     &meta, dev, findings)))
		runtime_error("%s: write error", cfg->out_path ?
			      cfg->out_path : "standard output");
	return 0;
}

int mode_detect(struct config *cfg)
{
	struct detect_options options = {
		.write = cfg->write, .budget_ns = cfg->budget_ns,
		.erase_size = mode_option_given(cfg, 'e') ? cfg->erasesize : 0,
		.sysfs_root = cfg->sysfs_root, .verbose = cfg->verbose };
	struct detect_findings findings;
	struct dev dev;
	FILE *out;
	int err;

	/* the erase size given is checked on a read-only open: nothing
	   is announced or opened for writing before it holds */
	mode_open_device(cfg, &dev, DEV_READ_ONLY);
	if (dev.size_bytes < detect_min_device_bytes())
		usage_error("--detect: %s is too small to measure: %llu bytes, "
			    "the read probes need %llu or more", cfg->device,
			    (unsigned long long)dev.size_bytes,
			    (unsigned long long)detect_min_device_bytes());
	if (mode_option_given(cfg, 'e'))
		check_detect_erase(cfg, &dev, cfg->erasesize);
	if (cfg->write) {
		dev_close(&dev);
		mode_open_device(cfg, &dev, DEV_READ_WRITE);
	}
	options.announce = announce_detect;
	options.ctx = cfg;
	out = mode_open_output(cfg);
	mode_prepare_timing(cfg);
	err = detect_run(&dev, &options, cfg->stop, &findings);
	if (!err)
		err = detect_output(cfg, &dev, &findings, out);
	if (out != stdout)
		fclose(out);
	if (err == -EINVAL)
		check_detect_erase(cfg, &dev, findings.erase_used);
	if (err == -ENOSPC && dev.error.operation == NULL)
		usage_error("--detect --write: %s is too small for the probes",
			    cfg->device);
	return mode_end_run(cfg, &dev, err, "interrupted");
}

