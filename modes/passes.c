/*
 * modes/passes: the endurance test's driver (passes.h).  A new run
 * checks its options and its state file's place, opens the device,
 * announces what a pass writes and the whole, writes the state file,
 * then runs the passes, each one's records out as it ends.  A run with
 * an existing state file reads it (only one no other user could have
 * written, whole and undamaged), finds its device by the identity it
 * records - the node given, or any other, waiting with a line on
 * stderr while none has it - and goes on: the passes done are
 * reported again, the one in progress finished, the rest run.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "identity/devfind.h"
#include "lib/die.h"
#include "lib/exitcode.h"
#include "lib/units.h"
#include "measure/passes.h"
#include "measure/passesstate.h"
#include "measure/undo/trust.h"
#include "modes/capacity.h"
#include "modes/devwait.h"
#include "modes/passes.h"
#include "modes/run.h"
#include "modes/sinks.h"
#include "modes/surface.h"
#include "modes/undofile.h"
#include "output/progress.h"
#include "records/passes.h"
#include "vm/stamp.h"

struct endurance {
	struct config *cfg;
	struct dev dev;
	struct passes_run run;
	bool resumed;
	char node[PATH_MAX];		/* the device's node now */
	struct sinks sinks;
	struct record_sink sink;
	uint32_t progress_pass;		/* the pass the progress line shows */
	char progress_name[48];
};

bool mode_passes_asked(const struct config *cfg)
{
	return mode_option_given(cfg, OPT_PASSES) ||
	       mode_option_given(cfg, OPT_UNTIL) ||
	       mode_option_given(cfg, OPT_STATE);
}

/* The option that asked for the passes, for messages. */
static const char *asking(const struct config *cfg)
{
	return mode_option_given(cfg, OPT_PASSES) ? "--passes" :
	       mode_option_given(cfg, OPT_UNTIL) ? "--until" : "--state";
}

static void check_args(const struct config *cfg)
{
	if (!cfg->write || cfg->keep_data)
		usage_error("%s goes with --surface --write (every block "
			    "written, pass after pass: what the range holds "
			    "is lost)", asking(cfg));
	if (cfg->resume_path)
		usage_error("%s: --resume goes with --surface --keep-data; "
			    "--state=FILE goes on with the passes",
			    asking(cfg));
	if (cfg->undo_path)
		usage_error("%s: --undo-file goes with --keep-data; the "
			    "passes keep no data", asking(cfg));
}

/* --until: first-error, read-only, or a share of bad blocks ("1%"). */
static void parse_until(const char *text, struct passes_run *run)
{
	char number[32];
	size_t n = strlen(text);
	double percent;

	if (!strcmp(text, "first-error") || !strcmp(text, "read-only")) {
		run->until = text[0] == 'f' ? PASSES_UNTIL_FIRST_ERROR :
			     PASSES_UNTIL_READ_ONLY;
		return;
	}
	snprintf(number, sizeof(number), "%s", text);
	if (n && n < sizeof(number) && number[n - 1] == '%')
		number[n - 1] = '\0';
	if (n < sizeof(number) && !units_parse_fraction(number, &percent) &&
	    percent > 0 && percent <= 100) {
		run->until = PASSES_UNTIL_PERCENT;
		run->until_fraction = percent / 100;
		return;
	}
	usage_error("--until: '%s' is not first-error, read-only or a share "
		    "of bad blocks (0.1%%, 1%%, 10)", text);
}

/* --passes and --until: the run's ends, given anew on a resume. */
static void set_ends(const struct config *cfg, struct passes_run *run)
{
	bool passes = mode_option_given(cfg, OPT_PASSES);
	bool until = mode_option_given(cfg, OPT_UNTIL);

	if (passes)
		run->passes = cfg->passes;
	if (until) {
		run->until = PASSES_UNTIL_NONE;
		parse_until(cfg->until, run);
	}
	/* a run that ended by them goes on when they are given anew */
	if ((passes || until) && (run->ended == PASSES_ALL_DONE ||
				  run->ended == PASSES_UNTIL_REACHED))
		run->ended = PASSES_GOING;
}

static void new_run(struct endurance *e)
{
	struct config *cfg = e->cfg;
	char identity[PASSES_IDENTITY_BYTES];
	struct devfind_key key;
	uint64_t start, end, seed = mode_option_given(cfg, OPT_SEED) ?
		cfg->seed : stamp_new_salt() % ((uint64_t)UINT32_MAX + 1);

	if (!mode_option_given(cfg, OPT_PASSES) &&
	    !mode_option_given(cfg, OPT_UNTIL))
		usage_error("--state: %s is new: give --passes=N or "
			    "--until=WHEN for the run it is to keep",
			    cfg->state_path);
	mode_open_device(cfg, &e->dev, DEV_READ_ONLY);
	mode_surface_range(cfg, &e->dev, &start, &end);
	mode_check_stamps_fit(cfg, &e->dev, "--surface");
	if (cfg->state_path && !dev_has(&e->dev, DEV_CAP_OUTLIVES_CLOSE))
		usage_error("--state: a simulated card does not outlive the "
			    "run; there is nothing to go on with");
	if (cfg->state_path)
		mode_check_new_file(cfg, "--state", "state file",
				    cfg->state_path);
	devfind_key_of(cfg->device, NULL, &key);
	devfind_key_text(&key, identity, sizeof(identity));
	if (passes_run_init(&e->run, &e->dev, identity, start, end, seed))
		runtime_error("out of memory");
	set_ends(cfg, &e->run);
}

/* ---- an existing state file ---- */

static void read_state(struct endurance *e)
{
	const char *path = e->cfg->state_path;
	char why[MESSAGE_PATH_BYTES];
	int fd = undo_open_trusted(path, "state file", why, sizeof(why));
	int err;

	if (fd == -EPERM)
		usage_error("--state: %s: %s", path, why);
	if (fd < 0)
		runtime_error("--state: %s: %s", path, why);
	err = passes_state_read(fd, &e->run, why, sizeof(why));
	close(fd);
	if (err == -EBADMSG)
		usage_error("--state: %s: %s", path, why);
	if (err == -ENOMEM)
		runtime_error("out of memory");
	if (err)
		runtime_error("--state: %s: %s", path, why);
	err = undo_check_location(path, "state file", e->cfg->device, why,
				  sizeof(why));
	if (err == -EXDEV)
		usage_error("--state: %s; put it on another device", why);
	if (err)
		usage_error("--state: %s: %s", path, strerror(-err));
}

/* The device at node opens and reads its first block. */
static bool answers(const char *node)
{
	struct dev dev;

	if (mode_open_answering(&dev, node, DEV_READ_ONLY))
		return false;
	dev_close(&dev);
	return true;
}

/* A device with the run's identity answers now: its node in e->node. */
struct passes_wait {
	struct endurance *e;
	const struct devfind_key *want;
};

static bool found(void *ctx)
{
	struct passes_wait *w = ctx;

	return devfind_node(w->want, w->e->cfg->device, NULL, w->e->node,
			    sizeof(w->e->node)) == 0 && answers(w->e->node);
}

/*
 * Until a device with the run's identity answers, under any name: a
 * line on stderr first (what a script waits for), then the progress
 * line.  -EINTR when a signal stops the wait.
 */
static int wait_device(struct endurance *e, const struct devfind_key *want)
{
	const struct config *cfg = e->cfg;
	struct passes_wait w = { e, want };
	char what[PASSES_IDENTITY_BYTES + 32];
	int err;

	snprintf(what, sizeof(what), "waiting for %s", e->run.identity);
	fprintf(stderr, "%s: --state: %s: waiting for %s (it was %s) to "
		"come back, under any name\n", die_program_name,
		cfg->state_path, e->run.identity, cfg->device);
	err = mode_wait_until(cfg, "surface", what, found, &w, 0);
	if (!err)
		fprintf(stderr, "%s: --state: %s is back as %s\n",
			die_program_name, e->run.identity, e->node);
	return err;
}

/*
 * The run's device: the node given when it is the run's; refused when
 * it answers as another device (after a replug another card may hold
 * the node); else found under any name, or waited for.
 */
static int find_device(struct endurance *e)
{
	struct config *cfg = e->cfg;
	char here_text[PASSES_IDENTITY_BYTES];
	struct devfind_key want, here;
	int err = 0;

	devfind_key_parse(e->run.identity, &want);
	if (!want.has_identity)
		usage_error("--state: %s names no device it could find again",
			    cfg->state_path);
	devfind_key_of(cfg->device, NULL, &here);
	if (answers(cfg->device) && !devfind_same(&here, &want))
		usage_error("--state: %s is the run of %s; %s is another "
			    "device (%s)", cfg->state_path, e->run.identity,
			    cfg->device, here.has_identity ?
			    devfind_key_text(&here, here_text,
					     sizeof(here_text)) :
			    "nothing identifies it");
	if (!found(&(struct passes_wait){ e, &want }))
		err = wait_device(e, &want);
	cfg->device = e->node;
	return err;
}

static void check_resumed(struct endurance *e)
{
	const struct config *cfg = e->cfg;
	const struct passes_run *run = &e->run;
	static const int own[] = { OPT_SEED, OPT_OFFSET, OPT_SPAN };
	static const char *const names[] = { "--seed", "--offset",
					     "--span" };

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (mode_option_given(cfg, own[i]))
			usage_error("--state: %s goes on with its own seed "
				    "and range; leave out %s",
				    cfg->state_path, names[i]);
	if (e->dev.size_bytes != run->size_bytes ||
	    e->dev.logical_block_bytes != run->block_bytes)
		usage_error("--state: %s is the run of a device of %llu bytes "
			    "(blocks of %u); %s has %llu (blocks of %u)",
			    cfg->state_path,
			    (unsigned long long)run->size_bytes,
			    run->block_bytes, cfg->device,
			    (unsigned long long)e->dev.size_bytes,
			    e->dev.logical_block_bytes);
}

static int resume_run(struct endurance *e)
{
	int err;

	read_state(e);
	err = find_device(e);
	if (err)
		return err;
	mode_open_device(e->cfg, &e->dev, DEV_READ_ONLY);
	check_resumed(e);
	set_ends(e->cfg, &e->run);
	e->resumed = true;
	return 0;
}

/* ---- the announcement ---- */

static void until_words(const struct passes_run *run, char *buf,
			size_t size)
{
	if (run->until == PASSES_UNTIL_FIRST_ERROR)
		snprintf(buf, size, "until the first bad block");
	else if (run->until == PASSES_UNTIL_PERCENT)
		snprintf(buf, size, "until %g%% of its blocks are bad",
			 run->until_fraction * 100);
	else
		snprintf(buf, size, "until the card turns read-only or "
			 "stops answering");
}

/* "10 passes: 671088640 bytes (640MiB) in all", or the --until words. */
static void whole_words(const struct passes_run *run, char *buf,
			size_t size)
{
	char total[UNITS_BUF], until[96];
	unsigned long long bytes = (run->end - run->start) * run->passes;

	units_format_exact_size(total, bytes);
	if (run->until == PASSES_UNTIL_NONE) {
		snprintf(buf, size, "%llu pass%s: %llu bytes (%s) in all",
			 (unsigned long long)run->passes,
			 run->passes == 1 ? "" : "es", bytes, total);
		return;
	}
	until_words(run, until, sizeof(until));
	if (run->passes)
		snprintf(buf, size, "pass after pass %s, at most %llu "
			 "passes (%llu bytes, %s)", until,
			 (unsigned long long)run->passes, bytes, total);
	else
		snprintf(buf, size, "pass after pass %s", until);
}

static void announce(struct endurance *e)
{
	const struct passes_run *run = &e->run;
	const struct config *cfg = e->cfg;
	uint64_t span = run->end - run->start;
	char size[UNITS_BUF], whole[256];

	if (e->resumed)
		fprintf(stderr, "%s: --state: %s: %zu pass%s done; going on "
			"with pass %zu (%u of its %u slices stamped)\n",
			die_program_name, cfg->state_path, run->done_count,
			run->done_count == 1 ? "" : "es", run->done_count + 1, run->current ? run->stamped : 0,
			passes_slices(run));
	mode_announce_writes("--surface", &e->dev, run->start, run->end, NULL);
	units_format_exact_size(size, span);
	whole_words(run, whole, sizeof(whole));
	fprintf(stderr, "%s: --surface --write writes %llu bytes (%s) a "
		"pass, every block of the range in a seeded order (seed "
		"%llu), then reads it all back; %s: what the range holds is "
		"lost\n", die_program_name, (unsigned long long)span, size,
		(unsigned long long)run->seed, whole);
	if (cfg->state_path)
		fprintf(stderr, "%s: --state: %s keeps where the run stands: "
			"after a crash or a pulled card, the same command goes "
			"on\n", die_program_name, cfg->state_path);
}

/*
 * The device for the passes: opened for writing and the writes
 * announced.  A resumed run whose card now refuses to be opened for
 * writing (read-only at the end of its life) ends there, read-only.
 */
static void open_for_writing(struct endurance *e)
{
	const struct config *cfg = e->cfg;
	const char *failed;
	int err;

	dev_close(&e->dev);
	err = dev_open(&e->dev, cfg->device, DEV_READ_WRITE);
	if (!err) {
		announce(e);
		return;
	}
	if (err != -EROFS || !e->resumed)
		mode_open_device(cfg, &e->dev, DEV_READ_WRITE);	/* says why */
	fprintf(stderr, "%s: --surface: %s cannot be opened for writing any "
		"more (read-only): the run ends there\n", die_program_name,
		cfg->device);
	mode_open_device(cfg, &e->dev, DEV_READ_ONLY);
	if (passes_refused_at_open(&e->run))
		runtime_error("out of memory");
	err = passes_state_write(cfg->state_path, &e->run, &failed);
	if (err)
		runtime_error("--state: %s: %s: %s", cfg->state_path, failed,
			      strerror(-err));
}

/* ---- the run ---- */

static void show_progress(void *ctx, uint32_t pass, uint64_t done,
			  uint64_t total)
{
	struct endurance *e = ctx;
	const struct config *cfg = e->cfg;

	if (pass != e->progress_pass) {	/* each pass times its own */
		e->progress_pass = pass;
		if (e->run.passes)
			snprintf(e->progress_name, sizeof(e->progress_name),
				 "surface pass %u of %llu", pass,
				 (unsigned long long)e->run.passes);
		else
			snprintf(e->progress_name, sizeof(e->progress_name),
				 "surface pass %u", pass);
		progress_end(&e->sinks.progress);
		progress_start(&e->sinks.progress, stderr, e->progress_name,
			       cfg->format == RENDER_TEXT && !cfg->quiet);
		progress_in_bytes(&e->sinks.progress);
	}
	progress_update(&e->sinks.progress, done, total);
}

static int pass_done(void *ctx, const struct passes_run *run,
		     const struct passes_pass *pass)
{
	struct endurance *e = ctx;

	progress_clear(&e->sinks.progress);
	return passes_emit_pass(&e->sink, run, pass);
}

/* The JSON parameters: the options, with the run's range and seed. */
static void passes_params(struct endurance *e, struct render_meta *meta)
{
	struct config *cfg = e->cfg;

	cfg->offset = e->run.start;
	cfg->span = e->run.end - e->run.start;
	cfg->seed = e->run.seed;
	cfg->passes = e->run.passes;
	meta->param_count = mode_set_option_json_params(cfg);
	meta->params = cfg->json_params;
	meta->param_flags = cfg->json_flags;
}

static void save_first(const struct endurance *e)
{
	const char *path = e->cfg->state_path, *failed;
	int err;

	if (!path || e->resumed)
		return;
	err = passes_state_write(path, &e->run, &failed);
	if (err)
		runtime_error("--state: %s: %s: %s (nothing was written to "
			      "%s)", path, failed, strerror(-err),
			      e->cfg->device);
}

/* How the run ended, as the exit status; a failure ends here. */
static int finish(struct endurance *e, int err, const char *why)
{
	const struct config *cfg = e->cfg;
	char interrupted[PATH_MAX + 96];

	snprintf(interrupted, sizeof(interrupted), cfg->state_path ?
		 "interrupted; the same command with --state=%s goes on" :
		 "interrupted; the passes done are reported%s",
		 cfg->state_path ? cfg->state_path : "");
	if (err && err != -EINTR) {
		dev_close(&e->dev);
		runtime_error("--surface: %s: %s", cfg->device,
			      why[0] ? why : strerror(-err));
	}
	if (e->run.ended == PASSES_STOPPED_ANSWERING) {
		dev_close(&e->dev);	/* nothing to flush it to */
		fprintf(stderr, "%s: --surface: %s: %s%s%s\n",
			die_program_name, cfg->device,
			why[0] ? why : "the device stopped answering",
			cfg->state_path ? "; once it is back, --state=" : "",
			cfg->state_path ? cfg->state_path : "");
		return EXIT_DAMAGED;
	}
	err = mode_end_run(cfg, &e->dev, err, interrupted);
	if (err)
		return err;
	return e->run.bad_blocks || e->run.ended == PASSES_READ_ONLY ?
	       EXIT_DAMAGED : EXIT_OK;
}

static int run_passes(struct endurance *e)
{
	struct config *cfg = e->cfg;
	struct render_meta meta = { .test = "surface-passes" };
	struct passes_options options = { .stop = cfg->stop,
		.state_path = cfg->state_path, .progress = show_progress,
		.pass_done = pass_done, .ctx = e };
	char why[MESSAGE_PATH_BYTES] = "";
	int err;

	passes_params(e, &meta);
	mode_output_open(cfg, &e->dev, &meta, &e->sinks);
	e->sink = (struct record_sink){ mode_emit_to_sinks, &e->sinks };
	err = passes_emit_done(&e->sink, &e->run);
	save_first(e);
	mode_prepare_timing(cfg);
	if (!err)
		err = passes_go(&e->dev, &options, &e->run, why, sizeof(why));
	progress_end(&e->sinks.progress);
	if (passes_emit_summary(&e->sink, &e->run) && !err)
		err = -EIO;
	mode_output_close(cfg, &e->sinks, &e->dev, err);
	return finish(e, err, why);
}

int mode_surface_passes(struct config *cfg)
{
	struct endurance *e = calloc(1, sizeof(*e));
	struct stat st;
	int status;

	if (!e)
		runtime_error("out of memory");
	e->cfg = cfg;
	check_args(cfg);
	status = 0;
	if (cfg->state_path && lstat(cfg->state_path, &st) == 0)
		status = resume_run(e);
	else
		new_run(e);
	if (status == -EINTR)
		fprintf(stderr, "%s: interrupted while waiting; nothing was "
			"written\n", die_program_name);
	/* a run that ended (read-only) is only reported again */
	if (!status && e->run.ended == PASSES_GOING)
		open_for_writing(e);
	if (!status)
		status = run_passes(e);
	passes_run_free(&e->run);
	free(e);
	return status;
}
