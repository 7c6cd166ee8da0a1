/*
 * capacity: --capacity-check, the real capacity of a fake card, every
 * block it writes saved to an undo file first and put back at the end;
 * and --restore=FILE, which puts back what a check that did not finish
 * saved, once the file is proven this user's and this device's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>
#include "lib/die.h"
#include "lib/exitcode.h"
#include "measure/capacity.h"
#include "measure/undo/restore.h"
#include "measure/undo/write.h"
#include "modes/capacity.h"
#include "modes/run.h"
#include "modes/sinks.h"
#include "modes/undofile.h"
#include "records/capacity.h"
#include "vm/stamp.h"

/* ---- --capacity-check and --restore ---- */

/* Refused before anything is opened for writing: exit 2. */
void mode_check_stamps_fit(const struct config *cfg, const struct dev *dev,
		      const char *what)
{
	if (dev->logical_block_bytes < STAMP_MIN_BYTES)
		usage_error("%s: %s has blocks of %u bytes; stamps need %d",
			    what, cfg->device, dev->logical_block_bytes,
			    STAMP_MIN_BYTES);
	if (!dev_has(dev, DEV_CAP_KEEPS_DATA))
		usage_error("%s: the simulated card keeps no data; give it "
			    "fake=SIZE (fake=%llu for a genuine one)", what,
			    (unsigned long long)dev->size_bytes);
}

static void check_capacity_args(const struct config *cfg,
				const struct dev *dev, const char *undo_path)
{
	mode_check_stamps_fit(cfg, dev, "--capacity-check");
	if (dev->size_bytes < capacity_min_device_bytes(cfg->cache_limit))
		usage_error("--capacity-check: %s (%llu bytes) is too small "
			    "for --cache-limit %llu; give a smaller one",
			    cfg->device,
			    (unsigned long long)dev->size_bytes,
			    (unsigned long long)cfg->cache_limit);
	mode_undo_check_new(cfg, undo_path);
}

static void announce_capacity(const struct config *cfg, struct dev *dev,
			      const char *undo_path)
{
	uint64_t most = capacity_max_write_bytes(dev->size_bytes,
						 dev->logical_block_bytes,
						 cfg->cache_limit);
	char command[UNDOFILE_HINT_BYTES];

	mode_announce_writes("--capacity-check", dev, 0, dev->size_bytes,
			     NULL);
	fprintf(stderr, "%s: --capacity-check writes at most %llu bytes, in "
		"probe blocks across the device and a flush area at its "
		"start; each block's old contents go to %s first and are "
		"put back at the end (after a crash: %s)\n",
		die_program_name, (unsigned long long)most, undo_path,
		mode_undo_command(command, sizeof(command), undo_path,
				 dev->path));
}

/* After the restore: said on stderr, and a failure is exit 1. */
static void report_restore(const struct config *cfg,
			   const struct capacity_result *r,
			   const char *undo_path, bool interrupted)
{
	const struct undo_result *u = &r->restore;
	char kept[UNDOFILE_HINT_BYTES];

	for (size_t i = 0; i < u->damaged_count; i++)
		mode_undo_print_damage(cfg->device, &u->damaged[i]);
	if (u->blocks_differing == 0 && u->damaged_count == 0)
		return;
	mode_undo_kept(kept, sizeof(kept), undo_path, cfg->device);
	if (u->blocks_differing == 0)
		fprintf(stderr, "%s: %s\n", die_program_name, kept);
	else
		fprintf(stderr, "%s: %s: %llu of %llu blocks put back do not "
			"read back as saved (first at %llu); %s\n",
			die_program_name, cfg->device,
			(unsigned long long)u->blocks_differing,
			(unsigned long long)u->blocks_checked,
			(unsigned long long)u->first_differing, kept);
	if (!interrupted)
		exit(EXIT_RUNTIME);
}

/* The exit status of a finished check: its verdict, for scripts. */
static int verdict_exit(const struct capacity_result *r)
{
	if (r->verdict && strcmp(r->verdict, "fake") == 0)
		return EXIT_FAKE;
	if (r->verdict && strcmp(r->verdict, "damaged") == 0)
		return EXIT_DAMAGED;
	return EXIT_OK;
}

/* A record to the report, and to --report's copy when there is one. */
static int emit_capacity(void *ctx, const struct record *rec)
{
	const struct sinks *sinks = ctx;
	int err = render_record(sinks->report, rec);

	if (!err && sinks->also_json)
		err = render_record(sinks->also_json, rec);
	return err;
}

int mode_capacity(struct config *cfg)
{
	char default_undo[PATH_MAX], undo_why[MESSAGE_PATH_BYTES];
	char undo_hint[UNDOFILE_HINT_BYTES];
	const char *undo_path;
	struct vm_param params[] = {
		{ "cache_limit", (double)cfg->cache_limit } };
	struct render_meta meta = { .test = "capacity-check",
				    .params = params, .param_count = 1 };
	struct capacity_options options;
	struct capacity_result result;
	struct sinks sinks;
	struct record_sink records = { emit_capacity, &sinks };
	struct dev dev;
	int err, status;

	mode_open_device(cfg, &dev, DEV_READ_ONLY);
	undo_path = mode_undo_choose(cfg, default_undo, sizeof(default_undo));
	check_capacity_args(cfg, &dev, undo_path);
	dev_close(&dev);
	mode_open_device(cfg, &dev, DEV_READ_WRITE);
	announce_capacity(cfg, &dev, undo_path);
	mode_output_open(cfg, &dev, &meta, &sinks);
	progress_end(&sinks.progress);
	mode_prepare_timing(cfg);
	options = (struct capacity_options){
		.cache_limit_bytes = cfg->cache_limit, .undo_path = undo_path,
		.stop = cfg->stop, .sink = capacity_sink_to(&records),
		.out = sinks.out, .every_probe = cfg->verbose };
	err = capacity_run(&dev, &options, &result, undo_why,
			   sizeof(undo_why));
	mode_output_close(cfg, &sinks, &dev, err);
	if (err && err != -EINTR && access(undo_path, F_OK) == 0)
		fprintf(stderr, "%s: %s\n", die_program_name,
			mode_undo_kept(undo_hint, sizeof(undo_hint), undo_path,
				      cfg->device));
	if (undo_why[0]) {
		dev_close(&dev);
		runtime_error("%s", undo_why);
	}
	if (err == -ERANGE)
		runtime_error("--capacity-check: %s: a probe round does not fit "
			      "the device", cfg->device);
	report_restore(cfg, &result, undo_path, err == -EINTR);
	undo_result_free(&result.restore);
	status = mode_end_run(cfg, &dev, err, "interrupted; every block written "
			 "was put back");
	return status == EXIT_OK ? verdict_exit(&result) : status;
}

int mode_restore(struct config *cfg)
{
	struct render_meta meta = { .test = "restore" };
	struct undo_result r;
	struct sinks sinks;
	struct dev dev;
	char why[MESSAGE_PATH_BYTES];
	int undo_fd = mode_undo_open_proven(cfg, "--restore",
					   cfg->restore_path);
	int err;

	mode_open_device(cfg, &dev, DEV_READ_WRITE);
	mode_announce_writes("--restore", &dev, 0, dev.size_bytes, NULL);
	err = undo_restore(undo_fd, &dev, UNDO_VERIFY_MARKED, &r, why,
			   sizeof(why));
	close(undo_fd);
	if (err && why[0])
		runtime_error("--restore: %s: %s", cfg->restore_path, why);
	/* on the medium before the file that could undo it is forgotten */
	if (!err)
		err = dev_flush(&dev);
	if (!err) {
		mode_output_open(cfg, &dev, &meta, &sinks);
		progress_end(&sinks.progress);
		capacity_emit_restore(&(struct record_sink){ render_record,
							     sinks.report },
				      &r);
		mode_output_close(cfg, &sinks, &dev, 0);
	}
	for (size_t i = 0; !err && i < r.damaged_count; i++)
		mode_undo_print_damage(cfg->device, &r.damaged[i]);
	if (!err && r.damaged_count)
		runtime_error("--restore: %s: %zu range%s not put back; the "
			      "file is kept", cfg->restore_path,
			      r.damaged_count, r.damaged_count > 1 ? "s" : "");
	if (!err && r.blocks_differing)
		runtime_error("--restore: %s: %llu blocks do not read back as "
			      "saved (first at %llu); the file is kept",
			      cfg->device,
			      (unsigned long long)r.blocks_differing,
			      (unsigned long long)r.first_differing);
	if (!err && r.records == 0)
		fprintf(stderr, "%s: --restore: %s: it holds no saved block: "
			"nothing to put back\n", die_program_name,
			cfg->restore_path);
	if (!err && unlink(cfg->restore_path))
		fprintf(stderr, "%s: --restore: %s: every block is back, but "
			"the file stays: %s\n", die_program_name,
			cfg->restore_path, strerror(errno));
	if (!err)
		undo_remove_staged(cfg->restore_path);
	undo_result_free(&r);
	/* a signal does not cut a restore short; it ends the run after */
	if (!err && *cfg->stop)
		return mode_end_run(cfg, &dev, -EINTR, "--restore: interrupted, "
			       "after every block was put back");
	return mode_end_run(cfg, &dev, err, "interrupted");
}

