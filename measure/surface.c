/*
 * surface: every block of a range, a window at a time.
 *
 * Each window runs a built-in program (programs.c: "surface-verify",
 * "surface-stamp") over its blocks in large sequential transfers; the
 * window's device time gives its rate.  A transfer that fails is read
 * again, by the same program, a logical block at a time, so only the
 * blocks that cannot be read are mapped as bad.  The VM hands every
 * block it verifies to check(): read-only, only an unreadable block
 * counts; otherwise the block's state is the capacity check's (stamp.h),
 * and "old data" where --keep-data saved what the block still holds.
 *
 * A block that reads back another offset's stamp shares storage with
 * it, and of the two only the lower one is real (a wrapping fake maps
 * high offsets onto low ones).  With every block written before any is
 * read, the low block reads the stamp of the highest offset on its
 * storage and that one its own, so the distances between the two, all
 * multiples of the real capacity, give it as their greatest common
 * divisor: the first block that shares storage with a lower one is the
 * lowest such block plus that divisor.  That is the usable size, as
 * --capacity-check finds it.
 *
 * A run that stops before the end of its range has no verdict.  A
 * device that stops answering (a card pulled, a reader or the server
 * behind a loop device gone) fails every access from then on, as a bad
 * area fails its own: a block this run read well before, read again,
 * tells the two apart, and the run stops there instead of mapping the
 * rest of the device as bad.
 *
 * --keep-data keeps the undo file off the device's path: while a chunk
 * is stamped, read back and put back, a second thread writes the next
 * chunk's old contents (read before the chunk's stamps, between two of
 * the run's transfers) to a file of their own beside the undo file (the
 * one the last chunk replaced, written over) and fsyncs it; once the
 * chunk is back the two swap names, the directory is fsync'd, and only
 * then is the next chunk written.  The device never serves two of the
 * run's transfers at once, so a window's time is its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/units.h"
#include "measure/surface.h"
#include "measure/surfacecut.h"
#include "measure/undo/write.h"
#include "vm/ahead.h"
#include "vm/compile.h"
#include "vm/programs.h"
#include "vm/stamp.h"
#include "vm.h"

/* A transfer that failed: read again a block at a time. */
struct failed {
	uint64_t offset, length;
};

struct pass {
	struct dev *dev;
	const struct surface_options *opt;
	struct surface_result *r;
	uint32_t lbs;
	uint64_t salt;
	struct program_params params;
	struct vm_program *verify, *stamp;
	struct vm_keep keep;		/* their buffers, run after run */
	/* where a run's window records put its device time */
	bool timed, timing_writes;
	uint64_t last_ns;
	bool verifying;			/* the --write or read-only reads */
	unsigned reached;		/* windows with a result */
	/* how check() takes a block */
	bool classify;			/* else only unreadable ones count */
	bool collect;			/* failed transfers kept for a retry */
	struct failed *failed;
	size_t failed_count, failed_cap;
	bool failed_lost;		/* no memory to keep one */
	/* blocks that failed, the count at the last window's end, and
	   the first since then; a block that read well (UINT64_MAX: none
	   yet), read again to tell a bad area from a device gone */
	uint64_t failures, failures_seen, failed_at;
	uint64_t answered_at;
	void *probe;
	bool gone;			/* the device stopped answering */
	bool refused;			/* options->refused stopped the run */
	/* --keep-data: the chunk's old contents, and the read-back */
	unsigned char *saved, *back;
	uint64_t saved_at, saved_bytes;
	struct undo undo;
	bool in_flight;			/* a chunk stamped, not yet back */
	bool unflushed;			/* written since the device's flush */
	/* the next chunk's old contents, and its file (staged: made by the
	   second thread while this chunk is tested, or at once without
	   one); staged_at UINT64_MAX when there is none */
	unsigned char *next_saved;
	struct ahead *ahead;		/* has undo while staging */
	struct undo staged;
	struct undo_progress staged_progress;
	uint64_t staged_at, staged_bytes;
	int staged_err;
	/* aliases: the lowest block that read another's stamp, and the
	   greatest common divisor of the distances */
	uint64_t alias_low, alias_gcd;
	uint64_t write_failed_blocks;
	uint64_t stamped_bytes;		/* --passes: of its order, so far */
	char *why;
	size_t why_size;
};

/* ---- what each block held ---- */

/* Another offset's stamp: the lower of the two is the real block. */
static bool take_alias(struct pass *p, uint64_t offset, uint64_t named)
{
	p->r->aliased = true;
	if (named < offset)
		return false;		/* this one is the alias */
	if (offset < p->alias_low)
		p->alias_low = offset;
	p->alias_gcd = units_gcd(p->alias_gcd, named - offset);
	return true;
}

/*
 * Still what --keep-data saved, or (--passes) its own stamp of the pass
 * before: the write never reached it.
 */
static bool old_data(const struct pass *p, uint64_t offset,
		     const void *block)
{
	uint64_t named;

	if (block && p->opt->old_salt)
		return stamp_classify(block, offset, p->lbs, p->opt->old_salt,
				      &named) == STAMP_INTACT;
	return block && p->saved_bytes && offset >= p->saved_at &&
	       offset - p->saved_at < p->saved_bytes &&
	       memcmp(block, p->saved + (offset - p->saved_at), p->lbs) == 0;
}

static void note_block(struct pass *p, uint64_t offset, int state,
		       uint64_t named, const void *block)
{
	struct surface_result *r = p->r;
	bool good;

	if (!p->classify)
		state = state == STAMP_READ_ERROR ? STAMP_READ_ERROR :
						    STAMP_INTACT;
	if (state == STAMP_OTHER && old_data(p, offset, block))
		state = SURFACE_OLD_DATA;
	r->states[state]++;
	good = state == STAMP_INTACT ||
	       (state == STAMP_ALIAS && take_alias(p, offset, named));
	if (good && offset + p->lbs > r->good_end)
		r->good_end = offset + p->lbs;
	if (!good && p->opt->bad)
		p->opt->bad(p->opt->ctx, offset, p->lbs, state);
	if (!good)
		surface_add_bad(r, offset, p->lbs, state);
}

/* Failed transfers of a whole range: every one is read again. */
static void keep_failed(struct pass *p, uint64_t offset)
{
	struct failed *last = p->failed_count ?
			      &p->failed[p->failed_count - 1] : NULL;

	if (last && last->offset + last->length == offset) {
		last->length += p->lbs;
		return;
	}
	if (p->failed_count == p->failed_cap) {
		size_t cap = 2 * p->failed_cap;
		struct failed *more = realloc(p->failed, cap * sizeof(*more));

		if (!more) {
			p->failed_lost = true;
			return;
		}
		p->failed = more;
		p->failed_cap = cap;
	}
	p->failed[p->failed_count++] = (struct failed){ offset, p->lbs };
}

/*
 * vm_exec.check: each block verified, or a stamp that failed.  (The
 * failures come on the run's own thread, at once; only the blocks read
 * well are classified beside the next transfer.)
 */
static void check(void *ctx, uint64_t offset, int state, uint64_t named,
		  const void *block)
{
	struct pass *p = ctx;
	bool failed = state == STAMP_READ_ERROR || state == STAMP_WRITE_ERROR;

	if (failed && p->failures++ == p->failures_seen)
		p->failed_at = offset;
	if (failed && p->collect) {
		keep_failed(p, offset);
		return;
	}
	if (state != STAMP_WRITE_ERROR) {
		note_block(p, offset, state, named, block);
		return;
	}
	p->write_failed_blocks++;
	if (p->opt->bad)
		p->opt->bad(p->opt->ctx, offset, p->lbs, state);
}

/*
 * vm_exec.check_intact: blocks the device vouched for hold their stamps,
 * counted as note_block counts intact ones, at once.
 */
static void check_intact(void *ctx, uint64_t offset, uint64_t length)
{
	struct pass *p = ctx;
	struct surface_result *r = p->r;

	if (!length)
		return;
	r->states[STAMP_INTACT] += length / p->lbs;
	if (offset + length > r->good_end)
		r->good_end = offset + length;
}

/* ---- running the programs ---- */

static void set_slot(struct pass *p, enum program_param slot, uint64_t v)
{
	p->params.slot[slot].value = (double)v;
}

static void pass_progress(const struct pass *p, uint64_t done,
			  uint64_t total)
{
	if (p->opt->progress)
		p->opt->progress(p->opt->ctx, done, total);
}

static bool lost_errno(int errnum)
{
	return errnum == ENODEV || errnum == ENOMEDIUM || errnum == ENXIO;
}

/*
 * An access failed at at: a bad area, or a device that stopped
 * answering.  An error that says the device is gone says so; an I/O
 * error, like a bad block's, is told apart by a block this run read
 * well before: read again, it fails only when the device is gone.  Then
 * why says so, with the failure (the probe's own is left out).
 */
static bool device_gone(struct pass *p, uint64_t at)
{
	char failure[sizeof(p->dev->error.message) + 96], probe[96] = "";
	int errnum = p->dev->error.errnum;
	uint64_t ns;

	if (p->gone)
		return true;
	dev_strerror(p->dev, failure, sizeof(failure));
	if (!lost_errno(errnum)) {
		if (errnum != EIO || p->answered_at == UINT64_MAX ||
		    dev_read(p->dev, p->probe, p->answered_at, p->lbs,
			     &ns) == 0)
			return false;
		snprintf(probe, sizeof(probe), "; the block at %llu, read "
			 "well before, fails now too",
			 (unsigned long long)p->answered_at);
	}
	p->gone = true;
	p->r->stopped_at = at;
	snprintf(p->why, p->why_size, "the device stopped answering at %llu "
		 "(%s%s)", (unsigned long long)at, failure, probe);
	return true;
}

/* A window of a pass is done: how far the run is. */
static void window_progress(struct pass *p, const struct surface_window *w)
{
	struct surface_result *r = p->r;
	uint64_t span = r->end - r->resumed_from;
	uint64_t done = w->offset + w->bytes - r->resumed_from;

	if (p->verifying) {
		r->checked_end = w->offset + w->bytes;
		p->reached = (unsigned)(w - r->windows) + 1;
	}
	if (!p->verifying && p->opt->order)	/* stamped out of order */
		done = p->stamped_bytes += w->bytes;
	if (r->mode == SURFACE_WRITE)	/* the stamps, then the reads */
		pass_progress(p, done + (p->verifying ? span : 0), 2 * span);
	else
		pass_progress(p, done, span);
}

/*
 * vm_exec.sink: a window is done; the device time since the last one
 * (or the run's start) is its own.
 */
static int window_done(void *ctx, const struct record *rec)
{
	struct pass *p = ctx;
	struct surface_result *r = p->r;
	uint64_t now = p->dev->stats.time_ns, at, index;

	if (!p->timed || rec->count < 1)
		return 0;
	at = (uint64_t)rec->fields[0].value;
	/* a window without a failure answered; one with some may be the
	   first the device did not */
	if (p->failures == p->failures_seen)
		p->answered_at = at;
	else if (device_gone(p, p->failed_at))
		return -EIO;
	else if (p->collect && p->timing_writes && p->opt->refused) {
		int err = p->opt->refused(p->opt->ctx, p->failed_at);

		if (err) {
			p->refused = true;
			return err;
		}
	}
	p->failures_seen = p->failures;
	index = (at - r->resumed_from) / r->window_bytes;
	if (index < r->window_count) {
		struct surface_window *w = &r->windows[index];

		*(p->timing_writes ? &w->write_ns : &w->read_ns) +=
			now - p->last_ns;
		if (r->mode != SURFACE_KEEP)
			window_progress(p, w);
	}
	p->last_ns = p->dev->stats.time_ns;	/* a probe's read is no
						   window's */
	return 0;
}

/* One run of program: windows of window bytes from at, in chunks. */
static int run_program(struct pass *p, struct vm_program *program,
		       uint64_t at, uint64_t windows, uint64_t window,
		       uint64_t chunk)
{
	struct vm_exec exec = { .dev = p->dev, .ctx = p, .check = check,
				.check_intact = check_intact,
				.sink = { window_done, p },
				.stop = p->opt->stop,
				.salt = p->salt,
				.check_failed_only = !p->classify,
				.overlap = true, .keep = &p->keep };
	struct vm_plan plan;

	set_slot(p, PARAM_WINDOW_AT, at);
	set_slot(p, PARAM_WINDOWS, windows);
	set_slot(p, PARAM_WINDOW, window);
	set_slot(p, PARAM_CHUNK, chunk);
	set_slot(p, PARAM_CHUNKS, window / chunk);
	set_slot(p, PARAM_TAILS, window % chunk ? 1 : 0);
	set_slot(p, PARAM_TAIL_BYTES, window % chunk ? window % chunk :
							p->lbs);
	if (vm_plan(program, p->dev, 0, &plan))
		return -ERANGE;
	p->last_ns = p->dev->stats.time_ns;
	return vm_run(program, &plan, &exec);
}

/*
 * program over [at, at + length): whole windows of window bytes, then
 * the shorter rest as one, in transfers of chunk; the device time of
 * each goes to its window when timed (as a write with writes).
 */
static int run_over(struct pass *p, struct vm_program *program,
		    uint64_t at, uint64_t length, uint64_t window,
		    uint64_t chunk, bool timed, bool writes)
{
	uint64_t whole = length / window, rest = length % window;
	int err = 0;

	p->timed = timed;
	p->timing_writes = writes;
	p->failures_seen = p->failures;	/* the windows' own from here */
	if (whole)
		err = run_program(p, program, at, whole, window, chunk);
	if (!err && rest)
		err = run_program(p, program, at + whole * window, 1, rest,
				  rest < chunk ? rest : chunk);
	p->timed = false;
	return err;
}

/*
 * Run program (a verify or a stamp) over [at, at + length); a transfer
 * that fails is made again a block at a time, so only the blocks that
 * cannot be read (or written) count.
 */
static int retrying(struct pass *p, struct vm_program *program,
		    uint64_t at, uint64_t length, bool writes)
{
	struct surface_result *r = p->r;
	int err;

	p->failed_count = 0;
	p->collect = true;
	err = run_over(p, program, at, length, r->window_bytes,
		       r->chunk_bytes, true, writes);
	p->collect = false;
	for (size_t i = 0; p->refused && i < p->failed_count; i++)
		p->write_failed_blocks += p->failed[i].length / p->lbs;
	if (!err && p->failed_lost)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < p->failed_count; i++)
		err = run_over(p, program, p->failed[i].offset,
			       p->failed[i].length, p->failed[i].length,
			       p->lbs, false, writes);
	return err;
}

/* ---- --keep-data: a chunk at a time ---- */

/*
 * Write the chunk's old contents back and read them back: then it is no
 * longer in flight.  A failure keeps the undo file, which puts it back.
 */
static int put_back(struct pass *p, uint64_t at, uint64_t length)
{
	char failure[sizeof(p->dev->error.message) + 96];
	uint64_t ns, differing = 0;
	int err = dev_write(p->dev, p->saved, at, length, &ns);

	if (!err)
		err = dev_read(p->dev, p->back, at, length, &ns);
	if (err && !device_gone(p, p->dev->error.offset))
		snprintf(p->why, p->why_size, "putting back the chunk at %llu: "
			 "%s", (unsigned long long)at,
			 dev_strerror(p->dev, failure, sizeof(failure)));
	if (err)
		return err;
	for (uint64_t done = 0; done < length; done += p->lbs)
		if (memcmp(p->saved + done, p->back + done, p->lbs))
			differing++;
	p->r->bytes_restored += length;
	if (!differing) {
		p->in_flight = false;
		return 0;
	}
	p->r->blocks_not_back += differing;
	snprintf(p->why, p->why_size, "%llu blocks put back at %llu do not "
		 "read back as they were", (unsigned long long)differing,
		 (unsigned long long)at);
	return -EIO;
}

static void progress_at(const struct pass *p, uint64_t next,
			struct undo_progress *pr)
{
	const struct surface_result *r = p->r;

	*pr = (struct undo_progress){ .start = r->start, .end = r->end,
		.next = next, .window_bytes = r->window_bytes,
		.chunk_bytes = r->chunk_bytes, .bad_blocks = r->bad_blocks,
		.first_bad = r->first_bad, .good_end = r->good_end };
}

/* A new file, holding where the run stands: the bound is kept. */
static int renew_file(struct pass *p, uint64_t next)
{
	struct undo_progress pr;

	progress_at(p, next, &pr);
	return undo_replace(&p->undo, p->opt->undo_path, p->dev, &p->salt, 1,
			    &pr);
}

/* The second thread's job: the staged chunk's file, written and fsync'd. */
static void stage_job(void *arg)
{
	struct pass *p = arg;

	p->staged_err = undo_stage(&p->staged, &p->undo, &p->staged_progress,
				   p->staged_at, p->next_saved,
				   p->staged_bytes);
}

/*
 * Read the old contents of the chunk at and stage its undo file, which
 * stands at stands (the chunk the run is at): beside the test of that
 * chunk, by the second thread, when ahead.  Only the device is read
 * here: the test's transfers and this read never share the device, so
 * neither's time is the other's.
 */
static int stage_chunk(struct pass *p, uint64_t at, uint64_t length,
		       uint64_t stands, bool ahead)
{
	uint64_t ns;
	int err = dev_read(p->dev, p->next_saved, at, length, &ns);

	/* a stopped run's stamp is what it wrote, not what the card held */
	if (!err)
		err = undo_refuse_check(&p->undo, at, p->next_saved, length);
	if (err)
		return err;
	progress_at(p, stands, &p->staged_progress);
	p->staged_at = at;
	p->staged_bytes = length;
	if (ahead && p->ahead)
		ahead_give(p->ahead, stage_job, p);
	else
		stage_job(p);
	return 0;
}

/*
 * The staged job done; a file that failed removed at once (its space
 * too: the undo file's next mark may need it), its failure kept for
 * when its chunk's turn comes.
 */
static void settle_stage(struct pass *p)
{
	if (p->ahead)
		ahead_wait(p->ahead);
	if (p->staged_at != UINT64_MAX && p->staged_err)
		undo_unstage(&p->staged);
}

/* The staged file in place of the undo file: its chunk may be written. */
static int commit_chunk(struct pass *p)
{
	unsigned char *saved = p->saved;
	int err;

	settle_stage(p);
	p->staged_at = UINT64_MAX;
	if (p->staged_err) {
		p->undo.failed = p->staged.failed;
		p->undo.failed_errno = p->staged.failed_errno;
		return p->staged_err;
	}
	/* the file in place holds the chunk put back last, which a card's
	   write cache could still lose in a power cut: on the medium first */
	err = p->unflushed ? dev_flush(p->dev) : 0;
	if (err) {
		undo_unstage(&p->staged);
		return err;
	}
	p->unflushed = false;
	err = undo_commit(&p->undo, &p->staged);
	if (err)
		return err;
	p->saved = p->next_saved;	/* the chunk's old contents */
	p->next_saved = saved;
	return 0;
}

/*
 * The chunk at, not staged with the test of the one before: staged now.
 * 0, or why it cannot be saved; a chunk that cannot be read cannot be
 * saved: it is mapped, never written (1 once it is).
 */
static int stage_now(struct pass *p, uint64_t at, uint64_t length)
{
	int err = stage_chunk(p, at, length, at, false);

	if (err == -EUCLEAN) {
		/* the stopped run's stamps stay on the card: keep its file */
		p->in_flight = true;
		snprintf(p->why, p->why_size, "a stamp of the stopped run "
			 "where the card's data should be at %llu, not saved "
			 "as its data (its undo file lost what the block "
			 "held)", (unsigned long long)p->undo.foreign_at);
		return err;
	}
	if (err != -EIO)			/* the device's read */
		return err;
	if (device_gone(p, p->dev->error.offset))
		return err;
	p->classify = false;
	err = run_over(p, p->verify, at, length, length, p->lbs, false,
		       false);
	p->classify = true;
	return err ? err : 1;
}

/*
 * One chunk: its old contents in place in the undo file (staged while
 * the chunk before was tested, or now), the next chunk's staged beside
 * this one's test, then stamped, read back and classified, its old
 * contents written back and read back, then marked done.
 */
static int keep_chunk(struct pass *p, uint64_t at, uint64_t length,
		      uint64_t next_length)
{
	int err = p->staged_at == at ? 0 : stage_now(p, at, length), test;

	if (err)
		return err > 0 ? 0 : err;
	err = commit_chunk(p);
	if (err)
		return err;
	p->answered_at = at;
	p->in_flight = true;
	p->saved_at = at;
	p->saved_bytes = length;
	/* one that cannot be read or saved now is tried again in its turn,
	   where a failure is said */
	if (next_length && !(p->opt->stop && *p->opt->stop))
		(void)stage_chunk(p, at + length, next_length, at, true);
	test = retrying(p, p->stamp, at, length, true);
	if (!test)
		test = retrying(p, p->verify, at, length, false);
	p->saved_bytes = 0;
	/* stopped or not, the chunk goes back before anything else */
	err = put_back(p, at, length);
	p->unflushed = true;
	settle_stage(p);
	if (!err)
		err = undo_mark_done(&p->undo, at, length);
	return err ? err : test;
}

/* ---- the passes ---- */

/* --passes: the windows of a unit of the order, [*first, *last). */
static bool order_unit(const struct pass *p, uint32_t i, unsigned *first,
		       unsigned *last)
{
	uint32_t k = p->opt->order_windows ? p->opt->order_windows : 1;
	uint64_t from = (uint64_t)p->opt->order[i] * k;

	if (from >= p->r->window_count)
		return false;
	*first = (unsigned)from;
	*last = from + k < p->r->window_count ? (unsigned)(from + k) :
						p->r->window_count;
	return true;
}

/*
 * --passes: the windows stamped a unit at a time in the order given (so
 * the card's mapping cannot follow a pattern), from where a stopped
 * run's pass stood; each unit told.
 */
static int ordered_stamps(struct pass *p)
{
	const struct surface_options *o = p->opt;
	const struct surface_window *w = p->r->windows;
	unsigned first, last;
	int err = 0;

	for (uint32_t i = 0; i < o->order_from && i < o->order_count; i++)
		for (unsigned j = 0; order_unit(p, i, &first, &last) &&
		     first + j < last; j++)
			p->stamped_bytes += w[first + j].bytes;
	for (uint32_t i = o->order_from; !err && i < o->order_count; i++) {
		if (!order_unit(p, i, &first, &last))
			return -ERANGE;
		if (o->stop && *o->stop)
			return -EINTR;
		err = retrying(p, p->stamp, w[first].offset,
			       w[last - 1].offset + w[last - 1].bytes -
			       w[first].offset, true);
		if (!err && o->stamped)
			err = o->stamped(o->ctx, i + 1);
	}
	return err;
}

/* --write's stamps, or the reads: the whole range in one run. */
static int window_pass(struct pass *p, bool stamping)
{
	struct surface_result *r = p->r;
	int err;

	if (p->opt->stop && *p->opt->stop)
		return -EINTR;
	if (stamping && p->opt->order)
		return ordered_stamps(p);
	p->verifying = !stamping;
	err = retrying(p, stamping ? p->stamp : p->verify, r->resumed_from,
		       r->end - r->resumed_from, stamping);
	p->verifying = false;
	return err;
}

/* --keep-data: the range a chunk at a time, each over its windows. */
static int keep_pass(struct pass *p)
{
	struct surface_result *r = p->r;
	int err = 0;

	for (uint64_t at = r->resumed_from, n; !err && at < r->end;
	     at += n) {
		uint64_t left;

		n = r->end - at < SURFACE_KEEP_BYTES ? r->end - at :
						       SURFACE_KEEP_BYTES;
		left = r->end - at - n;
		if (p->opt->stop && *p->opt->stop)
			return -EINTR;
		err = keep_chunk(p, at, n, left < SURFACE_KEEP_BYTES ? left :
					   SURFACE_KEEP_BYTES);
		if (err)
			break;
		r->checked_end = at + n;
		p->reached = (unsigned)((at + n - 1 - r->resumed_from) /
					r->window_bytes) + 1;
		pass_progress(p, at + n - r->start, r->end - r->start);
	}
	return err;
}

/* The windows from where the run starts (or resumes) to the end. */
static void cut_windows(struct pass *p, uint64_t from)
{
	struct surface_result *r = p->r;

	r->window_count = 0;
	for (uint64_t at = from; at < r->end &&
	     r->window_count <= SURFACE_MAX_WINDOWS; at += r->window_bytes) {
		uint64_t left = r->end - at;

		r->windows[r->window_count++] = (struct surface_window){
			.offset = at,
			.bytes = left < r->window_bytes ? left :
						       r->window_bytes };
	}
}

/* ---- the verdict ---- */

static void merge_ranges(struct surface_result *r)
{
	r->range_count = (unsigned)surface_merge_ranges(r->ranges,
							r->range_count);
}

/*
 * A wrapping card: from the first block that shares storage with a
 * lower one to the end, every block is an alias, one range.
 */
static void mark_wrap(struct pass *p)
{
	struct surface_result *r = p->r;
	uint64_t usable = p->alias_low + p->alias_gcd, bad = 0;

	if (!p->alias_gcd || usable >= r->checked_end)
		return;
	if (r->first_bad < usable)
		usable = r->first_bad;
	while (r->range_count &&
	       r->ranges[r->range_count - 1].offset >= usable)
		r->range_count--;
	if (r->range_count) {
		struct surface_range *last = &r->ranges[r->range_count - 1];

		if (last->offset + last->length > usable)
			last->length = usable - last->offset;
	}
	for (unsigned i = 0; i < r->range_count; i++)
		bad += r->ranges[i].length / p->lbs;
	r->ranges[r->range_count++] = (struct surface_range){ usable,
		r->checked_end - usable, STAMP_ALIAS };
	if (!r->ranges_cut)
		r->bad_blocks = bad + (r->checked_end - usable) / p->lbs;
	r->first_bad = usable;
}

/*
 * The verdict, from what the run saw: none when it stopped before the
 * end.  --keep-data checks a chunk at a time, blind to a card that
 * wraps writes onto other offsets beyond the chunk: where --write would
 * say genuine it says only what it saw.
 */
static void set_verdict(struct pass *p)
{
	struct surface_result *r = p->r;

	merge_ranges(r);
	if (r->partial)
		return;
	if (r->mode != SURFACE_READ && r->aliased)
		mark_wrap(p);
	r->usable_bytes = r->bad_blocks ? r->first_bad : r->checked_end;
	/* no block kept its stamp and none named another: nothing shows a
	   capacity lie, and no usable size was measured */
	r->nothing_kept = r->mode != SURFACE_READ && !r->aliased &&
			  r->good_end <= r->start && r->bad_blocks;
	if (!r->bad_blocks)
		r->verdict = r->mode == SURFACE_READ ? "readable" :
			     r->mode == SURFACE_KEEP ? "readable-and-writable" :
			     "genuine";
	else if (r->mode == SURFACE_READ)
		r->verdict = "damaged";
	else if (!r->nothing_kept &&
		 (r->aliased || r->good_end <= r->first_bad))
		r->verdict = "fake";	/* nothing keeps data past it */
	else
		r->verdict = "damaged";
	if (strcmp(r->verdict, "fake"))
		return;
	/* the capacity check's kinds, from the block at the usable size */
	r->fake_kind = r->aliased ? "wraparound" :
		       r->range_count && (r->ranges[0].state ==
					  STAMP_READ_ERROR ||
					  r->ranges[0].state ==
					  STAMP_WRITE_ERROR) ? "io-error" :
		       "limbo";
}

/* ---- setting up ---- */

static int setup(struct pass *p)
{
	struct surface_result *r = p->r;
	uint64_t chunk;
	int err;

	p->lbs = p->dev->logical_block_bytes;
	p->salt = p->opt->salt ? p->opt->salt : stamp_new_salt();
	p->alias_low = UINT64_MAX;
	p->answered_at = UINT64_MAX;
	r->block_bytes = p->lbs;
	r->start = p->opt->start;
	r->end = p->opt->end;
	r->first_bad = UINT64_MAX;
	r->window_bytes = surface_window_bytes(r->end - r->start, p->lbs);
	if (p->opt->resume)
		r->window_bytes = p->opt->resume->window_bytes;
	r->chunk_bytes = surface_chunk_bytes(r->window_bytes);
	chunk = r->chunk_bytes;
	r->resumed_from = p->opt->resume ? p->opt->resume->next : r->start;
	r->checked_end = r->resumed_from;
	cut_windows(p, r->resumed_from);
	program_params_init(&p->params);
	set_slot(p, PARAM_SIZE, p->dev->size_bytes);
	set_slot(p, PARAM_LBS, p->lbs);
	p->failed_cap = (size_t)(r->window_bytes / chunk) + 2;
	p->failed = calloc(p->failed_cap, sizeof(*p->failed));
	p->probe = dev_alloc_buffer(p->lbs, DEV_PATTERN_ZEROS);
	err = p->failed && p->probe ?
	      programs_compile("surface-verify", &p->params, &p->verify) :
	      -ENOMEM;
	if (!err && r->mode != SURFACE_READ)
		err = programs_compile("surface-stamp", &p->params,
				       &p->stamp);
	if (!err && r->mode == SURFACE_KEEP) {
		p->saved = dev_alloc_buffer(SURFACE_KEEP_BYTES,
					    DEV_PATTERN_ZEROS);
		p->back = dev_alloc_buffer(SURFACE_KEEP_BYTES,
					   DEV_PATTERN_ZEROS);
		p->next_saved = dev_alloc_buffer(SURFACE_KEEP_BYTES,
						 DEV_PATTERN_ZEROS);
		err = p->saved && p->back && p->next_saved ? 0 : -ENOMEM;
		/* without a second thread each chunk's file is made at
		   once, as the pipeline's is, only not beside the test */
		p->ahead = err ? NULL : ahead_new();
	}
	return err;
}

/* --resume: what the stopped run had found below where it stood. */
static void take_resumed(struct pass *p)
{
	const struct undo_progress *pr = p->opt->resume;

	if (!pr)
		return;
	/* what the stopped run stamped is never saved as the card's data */
	undo_refuse_stamps(&p->undo, pr->salts, pr->salt_count);
	p->r->bad_blocks = pr->bad_blocks;
	p->r->first_bad = pr->first_bad;
	p->r->good_end = pr->good_end;
}

static int open_undo(struct pass *p)
{
	int err;

	if (p->r->mode != SURFACE_KEEP)
		return 0;
	err = renew_file(p, p->r->resumed_from);
	if (err)
		snprintf(p->why, p->why_size, "the undo file %s: %s: %s",
			 p->opt->undo_path, p->undo.failed ? p->undo.failed :
			 "create", strerror(p->undo.failed_errno));
	return err;
}

/*
 * The end of a --keep-data run.  With no chunk in flight every chunk
 * written is back, read back, so once the device has it all on the
 * medium the file can go, whatever stopped the run (a failure of the
 * file itself comes before the chunk it saves is written).  A chunk in
 * flight, or a flush that fails, keeps it for --restore.
 */
static int close_undo(struct pass *p, int err)
{
	int flushed;

	if (p->r->mode != SURFACE_KEEP)
		return err;
	/* a chunk staged and never put in place was never written */
	settle_stage(p);
	if (p->staged_at != UINT64_MAX)
		undo_unstage(&p->staged);
	p->staged_at = UINT64_MAX;
	undo_drop_spare(&p->undo);
	if (p->undo.fd < 0)
		return err;
	if (p->undo.failed && !p->why[0])
		snprintf(p->why, p->why_size, "the undo file %s: %s: %s",
			 p->opt->undo_path, p->undo.failed,
			 strerror(p->undo.failed_errno));
	undo_close(&p->undo);
	if (p->in_flight)
		return err;
	flushed = dev_flush(p->dev);
	if (flushed)
		return err ? err : flushed;
	unlink(p->opt->undo_path);
	return err;
}

/* How the run ended; a failure not yet said, in why. */
static void set_stop(struct pass *p, int err)
{
	struct surface_result *r = p->r;
	int errnum = p->dev->error.errnum;

	r->partial = err != 0;
	if (!p->gone)
		r->stopped_at = r->checked_end;
	if (err && err == -errnum && lost_errno(errnum))
		device_gone(p, p->dev->error.offset);
	r->stopped = !err ? SURFACE_FINISHED :
		     err == -EINTR ? SURFACE_INTERRUPTED :
		     p->gone ? SURFACE_DEVICE_GONE :
		     p->undo.failed ? SURFACE_UNDO_FAILED : SURFACE_FAILED;
	if (r->stopped == SURFACE_FAILED && !p->why[0] && err == -errnum)
		dev_strerror(p->dev, p->why, p->why_size);
}

int surface_run(struct dev *dev, const struct surface_options *options,
		struct surface_result *result, char *why, size_t size)
{
	struct pass p = { .dev = dev, .opt = options, .r = result,
			  .undo = { .fd = -1 }, .staged = { .fd = -1 },
			  .staged_at = UINT64_MAX, .why = why,
			  .why_size = size };
	uint64_t wall = dev_now_ns();
	int err;

	why[0] = '\0';
	memset(result, 0, sizeof(*result));
	result->mode = options->mode;
	err = setup(&p);
	take_resumed(&p);
	if (!err)
		err = open_undo(&p);
	if (!err && result->mode == SURFACE_WRITE)
		err = window_pass(&p, true);
	p.classify = result->mode != SURFACE_READ;
	if (!err && result->mode == SURFACE_KEEP)
		err = keep_pass(&p);
	else if (!err)
		err = window_pass(&p, false);
	err = close_undo(&p, err);
	ahead_free(p.ahead);
	if (result->mode == SURFACE_WRITE && p.write_failed_blocks)
		result->states[STAMP_WRITE_ERROR] = p.write_failed_blocks;
	result->window_count = p.reached;
	if (result->mode == SURFACE_READ)	/* only failures were checked */
		result->states[STAMP_INTACT] = (result->checked_end -
						result->resumed_from) / p.lbs -
					       result->bad_blocks;
	set_stop(&p, err);
	set_verdict(&p);
	result->announced_bytes = dev->size_bytes;
	result->bytes_written = dev->stats.bytes_written;
	result->bytes_read = dev->stats.bytes_read;
	result->device_time_ns = dev->stats.time_ns;
	result->wall_ns = dev_now_ns() - wall;
	vm_free(p.verify);
	vm_free(p.stamp);
	vm_keep_free(&p.keep);
	free(p.failed);
	free(p.probe);
	free(p.saved);
	free(p.back);
	free(p.next_saved);
	return err;
}
