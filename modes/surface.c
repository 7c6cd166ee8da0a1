/*
 * surface: --surface [--write | --keep-data] [--offset] [--span], and
 * --resume=FILE, which first puts back the chunk a stopped --keep-data
 * run had in flight, then goes on where it stood.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/die.h"
#include "lib/exitcode.h"
#include "lib/units.h"
#include "measure/surface.h"
#include "measure/surfacecut.h"
#include "measure/undo/proof.h"
#include "measure/undo/restore.h"
#include "modes/capacity.h"
#include "modes/passes.h"
#include "modes/run.h"
#include "modes/sinks.h"
#include "modes/surface.h"
#include "modes/undofile.h"
#include "records/surface.h"

static enum surface_mode mode_of(const struct config *cfg)
{
	if (cfg->write && cfg->keep_data)
		usage_error("--surface: --write or --keep-data, not both "
			    "(--keep-data writes too, and puts every byte "
			    "back)");
	if (cfg->resume_path && !cfg->keep_data)
		usage_error("--resume goes with --surface --keep-data");
	if (cfg->resume_path && cfg->undo_path)
		usage_error("--resume: the run goes on in its own undo file; "
			    "leave out --undo-file");
	if (mode_option_given(cfg, OPT_SEED))
		usage_error("--seed goes with --power-cut or --surface --write "
			    "--passes");
	return cfg->keep_data ? SURFACE_KEEP :
	       cfg->write ? SURFACE_WRITE : SURFACE_READ;
}

void mode_surface_range(const struct config *cfg, const struct dev *dev,
			uint64_t *start, uint64_t *end)
{
	uint64_t last = dev->size_bytes / dev->logical_block_bytes *
			dev->logical_block_bytes;

	mode_check_multiple("--offset", cfg->offset, dev);
	if (cfg->offset >= last)
		usage_error("--offset: %llu is past the end of %s (%llu "
			    "bytes)", (unsigned long long)cfg->offset,
			    cfg->device, (unsigned long long)last);
	*start = cfg->offset;
	*end = last;
	if (!mode_option_given(cfg, OPT_SPAN))
		return;
	mode_check_multiple("--span", cfg->span, dev);
	if (cfg->span > last - cfg->offset)
		usage_error("--span: %llu bytes from %llu pass the end of %s "
			    "(%llu bytes)", (unsigned long long)cfg->span,
			    (unsigned long long)cfg->offset, cfg->device,
			    (unsigned long long)last);
	*end = cfg->offset + cfg->span;
}

static void announce(const struct config *cfg, struct dev *dev,
		     const struct surface_options *o)
{
	enum surface_mode mode = o->mode;
	const char *undo_path = o->undo_path;
	/* a resumed run writes only what is left of its range */
	uint64_t from = o->resume ? o->resume->next : o->start;
	uint64_t written = surface_write_bytes(mode, o->end - from);
	char size[UNITS_BUF], command[UNDOFILE_HINT_BYTES];

	mode_announce_writes("--surface", dev, o->start, o->end, NULL);
	units_format_exact_size(size, written);
	if (mode == SURFACE_WRITE)
		fprintf(stderr, "%s: --surface --write writes %llu bytes "
			"(%s), every block of the range once: what it holds "
			"is lost\n", die_program_name,
			(unsigned long long)written, size);
	else
		fprintf(stderr, "%s: --surface --keep-data writes %llu bytes "
			"(%s), every block twice, a chunk at a time; each "
			"chunk goes to %s first (at most %llu bytes) and is "
			"put back (after a crash: %s)\n",
			die_program_name, (unsigned long long)written, size,
			undo_path, (unsigned long long)
			surface_undo_bound_bytes(),
			mode_undo_command(command, sizeof(command), undo_path,
					 cfg->device));
}

/*
 * --resume: the stopped run's chunk in flight put back (the file is
 * proven this device's first), then where it stood.
 */
static void resume_from(const struct config *cfg, struct dev *dev,
			struct undo_progress *progress)
{
	int fd = mode_undo_open_proven(cfg, "--resume", cfg->resume_path);
	struct undo_result restored;
	char why[MESSAGE_PATH_BYTES], hint[UNDOFILE_HINT_BYTES];
	int err = undo_read_progress(fd, dev, progress, why, sizeof(why));

	if (err == -ENOENT)
		usage_error("--resume: %s: %s", cfg->resume_path, why);
	if (err)
		runtime_error("--resume: %s: %s", cfg->resume_path, why);
	dev_allow_writes(dev, 0, dev->size_bytes);
	err = undo_restore(fd, dev, UNDO_VERIFY_MARKED, &restored, why,
			   sizeof(why));
	close(fd);
	if (err && why[0])
		runtime_error("--resume: %s: %s", cfg->resume_path, why);
	if (err)
		runtime_error("--resume: %s: %s", cfg->device,
			      strerror(-err));
	for (size_t i = 0; i < restored.damaged_count; i++)
		mode_undo_print_damage(cfg->device, &restored.damaged[i]);
	if (restored.blocks_differing || restored.damaged_count)
		runtime_error("--resume: %s: the chunk in flight is not back "
			      "as it was; %s", cfg->resume_path,
			      mode_undo_kept(hint, sizeof(hint), cfg->resume_path,
					    cfg->device));
	undo_result_free(&restored);
	/* on the medium before the run replaces the file that saved it */
	err = dev_flush(dev);
	if (err)
		runtime_error("--resume: %s: flush: %s; %s", cfg->device,
			      strerror(-err),
			      mode_undo_kept(hint, sizeof(hint), cfg->resume_path,
					    cfg->device));
	fprintf(stderr, "%s: --resume: %llu bytes put back; going on at "
		"%llu of [%llu, %llu)\n", die_program_name,
		(unsigned long long)restored.bytes_restored,
		(unsigned long long)progress->next,
		(unsigned long long)progress->start,
		(unsigned long long)progress->end);
}

/* A finished run's status, for scripts (a stopped one has no verdict). */
static int verdict_exit(const struct surface_result *r)
{
	if (r->verdict && !strcmp(r->verdict, "fake"))
		return EXIT_FAKE;
	if (r->verdict && !strcmp(r->verdict, "damaged"))
		return EXIT_DAMAGED;
	return EXIT_OK;
}

/*
 * A run that failed: why, and with --keep-data where the bytes it wrote
 * are - back, or in the undo file it keeps, with the command that puts
 * them back.
 */
static void fail_run(const struct config *cfg, struct dev *dev,
		 const struct surface_options *o, const char *why)
{
	char hint[UNDOFILE_HINT_BYTES];

	dev_close(dev);
	if (o->mode != SURFACE_KEEP)
		runtime_error("--surface: %s: %s", cfg->device, why);
	if (access(o->undo_path, F_OK) == 0)
		runtime_error("--surface: %s: %s; %s", cfg->device, why,
			      mode_undo_kept(hint, sizeof(hint), o->undo_path,
					    cfg->device));
	runtime_error("--surface: %s: %s; every chunk it wrote is back as it "
		      "was", cfg->device, why);
}

static void take_options(const struct config *cfg, struct dev *dev,
			 struct surface_options *o, char *undo, size_t size)
{
	o->mode = mode_of(cfg);
	mode_surface_range(cfg, dev, &o->start, &o->end);
	if (o->mode == SURFACE_READ)
		return;
	mode_check_stamps_fit(cfg, dev, "--surface");
	if (o->mode != SURFACE_KEEP)
		return;
	if (cfg->resume_path) {
		o->undo_path = cfg->resume_path;
		mode_undo_check_staged("--resume", o->undo_path);
		return;
	}
	o->undo_path = mode_undo_choose(cfg, undo, size);
	mode_undo_check_new(cfg, o->undo_path);
	mode_undo_check_staged("--undo-file", o->undo_path);
}

/*
 * The JSON parameters: the options, with the range the run checked; the
 * endurance passes' own are not this run's.
 */
static void surface_params(struct config *cfg,
			   const struct surface_options *o,
			   struct render_meta *meta)
{
	size_t kept = 0;

	cfg->offset = o->start;
	cfg->span = o->end - o->start;
	meta->param_count = mode_set_option_json_params(cfg);
	for (size_t i = 0; i < meta->param_count; i++) {
		if (!strcmp(cfg->json_params[i].name, "passes") ||
		    !strcmp(cfg->json_params[i].name, "seed"))
			continue;
		cfg->json_params[kept] = cfg->json_params[i];
		cfg->json_flags[kept++] = cfg->json_flags[i];
	}
	meta->param_count = kept;
	meta->params = cfg->json_params;
	meta->param_flags = cfg->json_flags;
}

int mode_surface(struct config *cfg)
{
	struct surface_result *result = calloc(1, sizeof(*result));
	char undo[PATH_MAX], why[MESSAGE_PATH_BYTES];
	struct render_meta meta = { .test = "surface" };
	struct surface_options options = { .stop = cfg->stop };
	struct undo_progress progress;
	struct sinks sinks;
	struct record_sink sink;
	struct dev dev;
	int err, status;

	if (mode_passes_asked(cfg)) {
		free(result);
		return mode_surface_passes(cfg);
	}
	if (!result)
		runtime_error("out of memory");
	mode_open_device(cfg, &dev, DEV_READ_ONLY);
	take_options(cfg, &dev, &options, undo, sizeof(undo));
	if (options.mode != SURFACE_READ) {
		dev_close(&dev);
		mode_open_device(cfg, &dev, DEV_READ_WRITE);
	}
	if (cfg->resume_path) {
		resume_from(cfg, &dev, &progress);
		if (mode_option_given(cfg, OPT_OFFSET) || mode_option_given(cfg, OPT_SPAN))
			fprintf(stderr, "%s: --resume: the range is the "
				"stopped run's\n", die_program_name);
		options.start = progress.start;
		options.end = progress.end;
		options.resume = &progress;
	}
	if (options.mode != SURFACE_READ)
		announce(cfg, &dev, &options);
	surface_params(cfg, &options, &meta);
	mode_output_open(cfg, &dev, &meta, &sinks);
	progress_in_bytes(&sinks.progress);
	options.progress = mode_show_progress;
	options.ctx = &sinks;
	mode_prepare_timing(cfg);
	err = surface_run(&dev, &options, result, why, sizeof(why));
	progress_end(&sinks.progress);
	sink = (struct record_sink){ mode_emit_to_sinks, &sinks };
	if (surface_emit(&sink, result) && !err)
		err = -EIO;
	mode_output_close(cfg, &sinks, &dev, err);
	if (why[0])
		fail_run(cfg, &dev, &options, why);
	if (err == -ERANGE)
		runtime_error("--surface: %s: a window does not fit the device",
			      cfg->device);
	status = mode_end_run(cfg, &dev, err, options.mode == SURFACE_KEEP ?
			 "interrupted; every chunk is back as it was" :
			 "interrupted; the result is partial");
	if (status == EXIT_OK)
		status = verdict_exit(result);
	free(result);
	return status;
}
