/*
 * powercut: --power-cut [--cycles=N] [--offset] [--span] [--log=FILE]
 * [--cut-command=CMD [--power-command=CMD]] [--seed=N] DEVICE, and
 * --power-cut --verify=LOG DEVICE (powercut.h).  The workload writes as
 * a file system does: small writes anywhere in the range and sequential
 * runs, each its own sequence number, a flush every few writes; every
 * event is logged once it completed, and nothing is formatted inside a
 * timed write but the log's buffered line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/die.h"
#include "lib/exitcode.h"
#include "lib/units.h"
#include "measure/powercutcheck.h"
#include "measure/powercutlog.h"
#include "measure/powercutstamp.h"
#include "measure/undo/trust.h"
#include "measure/writerange.h"
#include "modes/cutpower.h"
#include "modes/powercut.h"
#include "modes/run.h"
#include "modes/sinks.h"
#include "modes/undofile.h"
#include "records/powercut.h"
#include "vm/stamp.h"

/* The range by default: 64 MiB past the FAT area, or from 0 on a card
   too small for that. */
#define SPAN_DEFAULT_BYTES (64 * MIB)
#define SMALL_CARD_BYTES (64 * MIB)
/* A small write, a sequential run, and the pieces a run is written in. */
#define SMALL_MIN_BYTES (4 * KIB)
#define SMALL_MAX_BYTES (64 * KIB)
#define RUN_MIN_BYTES (256 * KIB)
#define RUN_MAX_BYTES (1 * MIB)
#define PIECE_BYTES (64 * KIB)
/* One write in this many starts a sequential run. */
#define RUN_ONE_IN 4
/* A flush after 1 to this many writes. */
#define FLUSH_EVERY_MAX 8

/* A run of the test, from the options to the verdict. */
struct cut_run {
	struct config *cfg;
	struct dev dev;
	struct powercut_run run;	/* as the log's header says it */
	struct powercut_state st;
	struct powercut_log *log;	/* NULL without --log */
	struct mode_cut cut;
	struct sinks sinks;
	struct record_sink sink;
	struct powercut_outcome out;
	uint64_t rng;			/* the workload's draws */
	void *buf;			/* the largest write */
	uint64_t write_max_bytes;
	uint64_t start, end;		/* the range */
	uint64_t cycle_start_ns;
	uint64_t run_at, run_left;	/* a sequential run under way */
};

/* Options that only the run that writes takes, refused with --verify. */
static const struct {
	int id;
	const char *name;
} run_only[] = {
	{ OPT_CYCLES, "cycles" }, { OPT_LOG, "log" },
	{ OPT_CUT_COMMAND, "cut-command" },
	{ OPT_POWER_COMMAND, "power-command" }, { OPT_SEED, "seed" },
	{ OPT_OFFSET, "offset" }, { OPT_SPAN, "span" },
};

static void check_args(struct config *cfg)
{
	bool log_out = cfg->log_path && !strcmp(cfg->log_path, "-");

	for (size_t i = 0; cfg->verify_path &&
	     i < sizeof(run_only) / sizeof(run_only[0]); i++)
		if (mode_option_given(cfg, run_only[i].id))
			usage_error("--%s does not apply to --power-cut "
				    "--verify (the log says how the run went)",
				    run_only[i].name);
	if (cfg->verify_path && !cfg->verify_path[0])
		usage_error("--verify: the file name is empty");
	if (cfg->log_path && !cfg->log_path[0])
		usage_error("--log: the file name is empty");
	if (log_out && mode_option_given(cfg, 'o') && !cfg->out_path)
		usage_error("--log: - is standard output, where -o - sends the "
			    "results too; give the results a file with -o");
	/* the log takes standard output: the results go beside messages */
	cfg->results_on_stderr = log_out && !cfg->out_path;
}

/* The range: whole units, on the device (see the defaults above). */
static void choose_range(struct cut_run *r, uint64_t unit)
{
	const struct config *cfg = r->cfg;
	uint64_t size = r->dev.size_bytes / unit * unit;
	uint64_t offset = cfg->offset, span;

	/* past the FAT area, rounded to the erase blocks -A, -O assume */
	if (!mode_option_given(cfg, OPT_OFFSET))
		offset = r->dev.size_bytes < SMALL_CARD_BYTES ? 0 :
			 units_round_up(measure_write_floor(
				 mode_option_default('e')), unit);
	if (offset % unit)
		usage_error("--offset %llu is not a multiple of the power-cut "
			    "test's unit, %llu bytes", (unsigned long long)offset,
			    (unsigned long long)unit);
	if (offset >= size)
		usage_error("--offset: %llu is past the end of %s (%llu "
			    "bytes)", (unsigned long long)offset, cfg->device,
			    (unsigned long long)size);
	span = mode_option_given(cfg, OPT_SPAN) ? cfg->span :
	       size - offset < SPAN_DEFAULT_BYTES ? size - offset :
	       SPAN_DEFAULT_BYTES;
	if (span % unit)
		usage_error("--span %llu is not a multiple of the power-cut "
			    "test's unit, %llu bytes", (unsigned long long)span,
			    (unsigned long long)unit);
	if (span > size - offset)
		usage_error("--span: %llu bytes from %llu pass the end of %s "
			    "(%llu bytes)", (unsigned long long)span,
			    (unsigned long long)offset, cfg->device,
			    (unsigned long long)size);
	r->start = offset;
	r->end = offset + span;
}

/* The run as its log's header names it. */
static void describe_run(struct cut_run *r, uint64_t seed)
{
	struct powercut_run *run = &r->run;
	uint32_t lbs = r->dev.logical_block_bytes;
	char key[POWERCUT_IDENTITY_BYTES];

	*run = (struct powercut_run){ .salt = stamp_new_salt(), .seed = seed,
		.device_bytes = r->dev.size_bytes,
		.sector_bytes = lbs > POWERCUT_SECTOR_BYTES ? lbs :
				POWERCUT_SECTOR_BYTES,
		.unit_bytes = lbs > POWERCUT_UNIT_BYTES ? lbs :
			      POWERCUT_UNIT_BYTES };
	choose_range(r, run->unit_bytes);
	run->offset_bytes = r->start;
	run->span_bytes = r->end - r->start;
	snprintf(run->identity, sizeof(run->identity), "%s",
		 devfind_key_text(&r->cut.key, key, sizeof(key)));
}

/* A new log at --log's path (checked as an undo file is), or stdout. */
static int log_fd_of(const struct config *cfg)
{
	int fd;

	if (!strcmp(cfg->log_path, "-"))
		return STDOUT_FILENO;
	fd = open(cfg->log_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		  O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0)
		runtime_error("--log: %s: %s", cfg->log_path, strerror(errno));
	return fd;
}

static void check_log_path(const struct config *cfg)
{
	if (!cfg->log_path || !strcmp(cfg->log_path, "-"))
		return;
	if (mode_check_new_file(cfg, "--log", "log", cfg->log_path) ==
	    -EEXIST)
		usage_error("--log: %s exists; name a new file (a log is "
			    "never written over)", cfg->log_path);
}

static void open_log(struct cut_run *r)
{
	char why[MESSAGE_PATH_BYTES];
	int fd;

	if (!r->cfg->log_path)
		return;
	fd = log_fd_of(r->cfg);
	r->log = powercut_log_open(fd, &r->run, why, sizeof(why));
	if (fd != STDOUT_FILENO)
		close(fd);	/* the log holds its own descriptor */
	if (!r->log)
		runtime_error("--log: %s: %s", r->cfg->log_path, why);
}

/* A log line that could not be written ends the run. */
static void logged(const struct cut_run *r, int err)
{
	if (err)
		runtime_error("--log: %s: %s", !strcmp(r->cfg->log_path, "-") ?
			      "standard output" : r->cfg->log_path,
			      strerror(-err));
}

/* An event the expected state refused: out of memory, or a bug. */
static void noted(int err)
{
	if (err == -ENOMEM)
		runtime_error("out of memory");
	if (err)
		runtime_error("--power-cut: an event out of order: %s",
			      strerror(-err));
}

static void announce(struct cut_run *r)
{
	const struct config *cfg = r->cfg;

	mode_announce_writes("--power-cut", &r->dev, r->start, r->end, NULL);
	fprintf(stderr, "%s: a power cut can harm data anywhere on %s (the "
		"card's own mapping tables), not only in this range: it "
		"should hold nothing of value\n", die_program_name,
		cfg->device);
	fprintf(stderr, "%s: --power-cut: %llu cycle%s; %s; seed %llu "
		"(--seed=%llu repeats the writes and the cut moments)\n",
		die_program_name, (unsigned long long)cfg->cycles,
		cfg->cycles == 1 ? "" : "s", mode_cut_how(&r->cut),
		(unsigned long long)r->run.seed,
		(unsigned long long)r->run.seed);
}

/* The JSON parameters: the options, with the run's range and seed. */
static void set_params(struct config *cfg, const struct powercut_run *run,
		       struct render_meta *meta)
{
	cfg->offset = run->offset_bytes;
	cfg->span = run->span_bytes;
	cfg->seed = run->seed;
	meta->param_count = mode_set_option_json_params(cfg);
	meta->params = cfg->json_params;
	meta->param_flags = cfg->json_flags;
}

static void open_output(struct cut_run *r)
{
	struct render_meta meta = { .test = "power-cut" };

	set_params(r->cfg, &r->run, &meta);
	mode_output_open(r->cfg, &r->dev, &meta, &r->sinks);
	r->sink = (struct record_sink){ mode_emit_to_sinks, &r->sinks };
	r->out.offset_bytes = r->run.offset_bytes;
	r->out.span_bytes = r->run.span_bytes;
	powercut_summary_init(&r->out.sum);
}

/* The device's clock: the card's own on a simulated card. */
static uint64_t clock_ns(const struct cut_run *r)
{
	return dev_has(&r->dev, DEV_CAP_MODEL_TIME) ? r->dev.stats.time_ns :
	       dev_now_ns();
}

/* Since the cycle began, by that clock. */
static uint64_t cycle_ns(const struct cut_run *r)
{
	return clock_ns(r) - r->cycle_start_ns;
}

/* units of the range, drawn from [lo, hi] bytes' worth */
static uint64_t draw_units(struct cut_run *r, uint64_t lo, uint64_t hi)
{
	uint64_t unit = r->run.unit_bytes;
	uint64_t n = mode_cut_draw(&r->rng, (lo + unit - 1) / unit,
				   hi > unit ? hi / unit : 1);

	return n < r->st.units ? n : r->st.units;
}

/* The next write: a run's next piece, a new run, or a small write. */
static void next_write(struct cut_run *r, uint64_t *offset,
		       uint64_t *length)
{
	uint64_t unit = r->run.unit_bytes, n;

	if (!r->run_left &&
	    mode_cut_draw(&r->rng, 1, RUN_ONE_IN) == 1) {
		n = draw_units(r, RUN_MIN_BYTES, RUN_MAX_BYTES);
		r->run_at = r->start +
			    mode_cut_draw(&r->rng, 0, r->st.units - n) * unit;
		r->run_left = n * unit;
	}
	if (r->run_left) {
		*offset = r->run_at;
		*length = r->run_left < r->write_max_bytes ? r->run_left :
			  r->write_max_bytes;
		r->run_at += *length;
		r->run_left -= *length;
		return;
	}
	n = draw_units(r, SMALL_MIN_BYTES, SMALL_MAX_BYTES);
	*offset = r->start + mode_cut_draw(&r->rng, 0, r->st.units - n) * unit;
	*length = n * unit;
}

/* A failed write or flush: the cut (filled in), or the run's failure. */
static int cut_or_fail(struct cut_run *r, int err, struct powercut_cut *cut,
		       const struct powercut_write *torn)
{
	if (!mode_cut_seen(err))
		return err;
	/* when the run saw it: a torn write's start (a failure takes no
	   time), on the clock the writes' times are on */
	cut->t_ns = cycle_ns(r);
	cut->errnum = -err;
	cut->torn = torn != NULL;
	if (torn)
		cut->write = *torn;
	return 0;
}

/* One write of the workload, stamped, logged once it completed. */
static int one_write(struct cut_run *r, struct powercut_cut *cut)
{
	struct powercut_write w = { .seq = r->st.next_seq };
	uint64_t ns;
	int err;

	next_write(r, &w.offset_bytes, &w.length_bytes);
	powercut_stamp_fill(&r->run, r->buf, w.offset_bytes,
			    w.length_bytes, w.seq, cut->cycle);
	w.t_ns = cycle_ns(r);
	err = dev_write(&r->dev, r->buf, w.offset_bytes, w.length_bytes, &ns);
	if (err)
		return cut_or_fail(r, err, cut, &w) ? err : 1;
	w.t_ns = cycle_ns(r);
	noted(powercut_wrote(&r->st, w.seq, w.offset_bytes, w.length_bytes,
			     w.t_ns));
	if (r->log)
		logged(r, powercut_log_write(r->log, w.seq, w.offset_bytes,
					     w.length_bytes, w.t_ns));
	mode_cut_after_write(&r->cut, &r->dev);
	return 0;
}

/* A flush: every write so far acknowledged once it completed. */
static int one_flush(struct cut_run *r, struct powercut_cut *cut)
{
	uint32_t seq = r->st.next_seq - 1;
	uint64_t t_ns;
	int err = dev_flush(&r->dev);

	if (err)
		return cut_or_fail(r, err, cut, NULL) ? err : 1;
	t_ns = cycle_ns(r);
	noted(powercut_flushed(&r->st, seq, t_ns));
	if (r->log)
		logged(r, powercut_log_flush(r->log, seq, t_ns));
	return 0;
}

/*
 * Writes and flushes until the cut shows: 0 with *cut said, -EINTR, or
 * the device's failure (dev->error).
 */
static int workload(struct cut_run *r, struct powercut_cut *cut)
{
	uint64_t until_flush = mode_cut_draw(&r->rng, 1, FLUSH_EVERY_MAX);
	int err = 0;

	r->run_left = 0;
	while (!err) {
		if (*r->cfg->stop)
			return -EINTR;
		err = one_write(r, cut);
		if (err || --until_flush)
			continue;
		until_flush = mode_cut_draw(&r->rng, 1, FLUSH_EVERY_MAX);
		err = one_flush(r, cut);
	}
	return err == 1 ? 0 : err;
}

/* The cycle's verdict, handed on: summed, shown, logged. */
static void judged(struct cut_run *r, const struct powercut_cycle *c)
{
	powercut_summary_add(&r->out.sum, c);
	powercut_emit_cycle(&r->sink, c);	/* a failure shows at close */
	if (r->log)
		logged(r, powercut_log_verify(r->log, c));
}

/*
 * After the cut: the device back and verified.  0 (*go_on false when
 * it cannot take another cycle: gone, read-only, resized), -EINTR, or
 * the device's failure.
 */
static int verify_cycle(struct cut_run *r, const struct powercut_cut *cut,
			bool *go_on)
{
	struct powercut_cycle *c = calloc(1, sizeof(*c));
	struct mode_cut_return back;
	int err;

	if (!c)
		runtime_error("out of memory");
	progress_clear(&r->sinks.progress);
	err = mode_cut_back(&r->cut, &r->dev, &back);
	if (!err && !back.dead)
		err = powercut_verify(&r->dev, &r->st, c);
	if (!err && back.dead)
		*c = (struct powercut_cycle){ .cycle = cut->cycle,
			.cut_ns = cut->t_ns,
			.ack_lost_before_cut_ns = POWERCUT_UNKNOWN };
	if (!err) {
		c->dead = back.dead;
		c->read_only = back.read_only;
		judged(r, c);
		*go_on = !c->dead && !c->read_only && !c->capacity_changed;
	}
	free(c);
	return err;
}

static int one_cycle(struct cut_run *r, uint32_t cycle, bool last,
		     bool *go_on)
{
	struct powercut_cut cut = { .cycle = cycle };
	long long rewritten;
	int err;

	noted(powercut_cycle_begin(&r->st, cycle, r->st.next_seq));
	if (r->log)
		logged(r, powercut_log_cycle(r->log, cycle, r->st.next_seq));
	mode_cut_arm(&r->cut, &r->dev, cycle);
	r->cycle_start_ns = clock_ns(r);
	err = workload(r, &cut);
	if (err)
		return err;
	noted(powercut_cut(&r->st, &cut));
	if (r->log)
		logged(r, powercut_log_cut(r->log, &cut));
	err = verify_cycle(r, &cut, go_on);
	if (err || !*go_on || last)
		return err;
	rewritten = powercut_settle(&r->dev, &r->st);
	if (rewritten < 0)
		return (int)rewritten;
	if (r->log)
		logged(r, powercut_log_settled(r->log, cycle,
					       (uint64_t)rewritten));
	return 0;
}

/* The range stamped as old data, flushed and read back. */
static int stamp_old(struct cut_run *r)
{
	long long bad = powercut_stamp_old(&r->dev, &r->st);

	if (bad < 0)
		return (int)bad;
	if (bad > 0)
		runtime_error("--power-cut: %s: %lld units of the range do not "
			      "read back as written, before any cut: the "
			      "device does not keep data (--surface --write "
			      "tells where)", r->cfg->device, bad);
	if (r->log)
		logged(r, powercut_log_old(r->log));
	return 0;
}

static int cycles(struct cut_run *r)
{
	bool go_on = true;
	int err = stamp_old(r);

	for (uint32_t n = 1; !err && go_on && n <= r->cfg->cycles; n++) {
		err = one_cycle(r, n, n == r->cfg->cycles, &go_on);
		progress_update(&r->sinks.progress, n, r->cfg->cycles);
	}
	return err;
}

/* The end of a run whose device is gone: nothing to flush. */
static int gone_end(struct cut_run *r, int err)
{
	char why[MESSAGE_BYTES];

	if (r->dev.ops)
		dev_close(&r->dev);
	if (err == -EINTR)
		fprintf(stderr, "%s: interrupted\n", die_program_name);
	else if (err)
		runtime_error("%s: %s", r->cfg->device,
			      dev_strerror(&r->dev, why, sizeof(why)));
	return err;
}

/*
 * The end of a run: the summary (none after a failure), the output and
 * the log closed, and the exit status - the verdict's, 128 + a signal,
 * or the device's failure (exit 1).
 */
static int finish(struct cut_run *r, int err)
{
	struct config *cfg = r->cfg;
	int status, log_err = r->log ? powercut_log_close(r->log) : 0;

	r->out.partial = err == -EINTR;
	r->out.bytes_written = r->dev.stats.bytes_written;
	r->out.device_time_ns = r->dev.stats.time_ns;
	if (!err || err == -EINTR)
		powercut_emit_summary(&r->sink, &r->out);
	mode_output_close(cfg, &r->sinks, &r->dev, err);
	if (log_err && !err)
		logged(r, log_err);
	if (r->dev.ops && !r->out.sum.dead)
		status = mode_end_run(cfg, &r->dev, err, "interrupted; the "
				      "range holds the run's stamps");
	else
		status = gone_end(r, err);
	if (status == EXIT_OK && r->out.sum.faulty)
		status = EXIT_DAMAGED;
	powercut_state_free(&r->st);
	free(r->buf);
	free(r);
	return status;
}

/* --verify's log: trusted as an undo file is, then read back. */
static void replay_log(const struct config *cfg, struct powercut_replay *rp)
{
	char why[MESSAGE_PATH_BYTES], key_text[POWERCUT_IDENTITY_BYTES];
	struct powercut_expect expect = { .identity = NULL };
	struct devfind_key key;
	int fd = undo_open_trusted(cfg->verify_path, "log", why, sizeof(why));
	int err;

	if (fd == -EPERM)
		usage_error("--verify: %s: %s", cfg->verify_path, why);
	if (fd < 0)
		runtime_error("--verify: %s: %s", cfg->verify_path, why);
	devfind_key_of(cfg->device, NULL, &key);
	if (key.has_identity)
		expect.identity = devfind_key_text(&key, key_text,
						   sizeof(key_text));
	err = powercut_log_replay(fd, &expect, rp, why, sizeof(why));
	close(fd);
	if (err == -EBADMSG || err == -EXDEV)
		usage_error("--verify: %s: %s", cfg->verify_path, why);
	if (err == -ENOMEM)
		runtime_error("out of memory");
	if (err)
		runtime_error("--verify: %s: %s", cfg->verify_path, why);
}

/*
 * The log's cuts as its run judged them, then its last one that no
 * line judged, verified on the device now (read only: nothing settled).
 */
static int verify_rest(struct cut_run *r, struct powercut_replay *rp)
{
	struct powercut_state *st = &rp->state;
	struct powercut_cycle *c;
	int err;

	for (size_t i = 0; i < rp->verified_n; i++) {
		powercut_summary_add(&r->out.sum, &rp->verified[i]);
		powercut_emit_cycle(&r->sink, &rp->verified[i]);
	}
	if (!st->cycle || st->verified)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		runtime_error("out of memory");
	err = powercut_verify(&r->dev, st, c);
	if (!err) {
		powercut_summary_add(&r->out.sum, c);
		powercut_emit_cycle(&r->sink, c);
	}
	free(c);
	return err;
}

static int verify_log(struct config *cfg)
{
	struct cut_run *r = calloc(1, sizeof(*r));
	struct powercut_replay rp;
	int err;

	if (!r)
		runtime_error("out of memory");
	r->cfg = cfg;
	mode_open_device(cfg, &r->dev, DEV_READ_ONLY);
	if (!dev_has(&r->dev, DEV_CAP_OUTLIVES_CLOSE))
		usage_error("--verify: %s: a simulated card does not outlive "
			    "the run that wrote its log; nothing to verify",
			    cfg->device);
	replay_log(cfg, &rp);
	r->run = rp.run;
	cfg->cycles = rp.state.cycle;
	r->out.verify_only = true;
	fprintf(stderr, "%s: --verify: %s: %u cut%s logged, the last one "
		"%s\n", die_program_name, cfg->verify_path, rp.state.cycle,
		rp.state.cycle == 1 ? "" : "s", !rp.state.cycle ? "(none)" :
		rp.state.verified ? "verified by its run" : "verified now");
	open_output(r);
	err = verify_rest(r, &rp);
	powercut_replay_free(&rp);
	return finish(r, err);
}

/* Every check, on the read-only open, before anything is written. */
static void take_options(struct cut_run *r)
{
	struct config *cfg = r->cfg;
	uint64_t seed = mode_option_given(cfg, OPT_SEED) ? cfg->seed :
			stamp_new_salt() % ((uint64_t)UINT32_MAX + 1);

	if (r->dev.logical_block_bytes > POWERCUT_CHUNK_BYTES)
		usage_error("--power-cut: %s has blocks of %u bytes; the test "
			    "takes at most %u", cfg->device,
			    r->dev.logical_block_bytes, POWERCUT_CHUNK_BYTES);
	if (!dev_has(&r->dev, DEV_CAP_KEEPS_DATA))
		usage_error("--power-cut: the simulated card keeps no data; "
			    "give it a cache that power can lose (volatile=1M,"
			    "flush=honest)");
	mode_cut_setup(&r->cut, cfg, &r->dev, seed, 0, 0);
	describe_run(r, seed);
	r->cut.start = r->start;
	r->cut.end = r->end;
	r->rng = seed;
	if (!mode_option_given(cfg, OPT_CYCLES) && r->cut.way == MODE_CUT_HAND)
		cfg->cycles = 1;	/* one pull of the card unless asked */
	check_log_path(cfg);
}

int mode_power_cut(struct config *cfg)
{
	struct cut_run *r = calloc(1, sizeof(*r));

	if (!r)
		runtime_error("out of memory");
	check_args(cfg);
	if (cfg->verify_path) {
		free(r);
		return verify_log(cfg);
	}
	r->cfg = cfg;
	mode_open_device(cfg, &r->dev, DEV_READ_ONLY);
	take_options(r);
	dev_close(&r->dev);
	mode_open_device(cfg, &r->dev, DEV_READ_WRITE);
	if (powercut_state_init(&r->st, &r->run))
		runtime_error("out of memory");
	r->write_max_bytes = PIECE_BYTES > r->run.unit_bytes ?
			     PIECE_BYTES : r->run.unit_bytes;
	r->buf = dev_alloc_buffer(r->write_max_bytes, DEV_PATTERN_ZEROS);
	if (!r->buf)
		runtime_error("out of memory");
	open_log(r);
	announce(r);
	open_output(r);
	mode_prepare_timing(cfg);
	return finish(r, cycles(r));
}
