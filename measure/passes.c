/*
 * passes: the endurance test's loop (passes.h).  A pass is surface_run
 * with the pass's salt (a block still holding the pass before's stamp
 * is old data, not intact) and its slices of windows stamped in the
 * pass's own shuffled order, the state file saved after each slice;
 * every block it finds bad comes back through the surface's bad
 * up-call.  Once the pass is read back, its bad blocks
 * are set against those of the passes before: the new ones listed, all
 * of them merged into the run's bad set, which only grows.
 *
 * A card at the end of its life either turns read-only - it refuses
 * writes (EROFS, or every write failing, or every block still holding
 * the pass before's data) while reads answer - or stops answering.  The
 * two end the run under their own names, and neither is counted as
 * blocks gone bad: the card's end is not a share of its blocks.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit.h"
#include "lib/grow.h"
#include "measure/passes.h"
#include "measure/passesstate.h"
#include "measure/surfacecut.h"
#include "vm/stamp.h"

const double passes_milestone_fraction[PASSES_MILESTONES] = {
	[PASSES_AT_FIRST_ERROR] = 0, [PASSES_AT_TENTH_PERCENT] = 0.001,
	[PASSES_AT_ONE_PERCENT] = 0.01, [PASSES_AT_TEN_PERCENT] = 0.1,
};

static const char *const end_names[PASSES_END_COUNT] = {
	[PASSES_GOING] = "going", [PASSES_ALL_DONE] = "all-done",
	[PASSES_UNTIL_REACHED] = "until-reached",
	[PASSES_READ_ONLY] = "read-only",
	[PASSES_STOPPED_ANSWERING] = "stopped-answering",
	[PASSES_INTERRUPTED] = "interrupted", [PASSES_FAILED] = "failed",
};

static const char *const outcome_names[PASSES_OUTCOME_COUNT] = {
	[PASSES_CLEAN] = "clean", [PASSES_ERRORS] = "errors",
	[PASSES_REFUSED] = "read-only", [PASSES_SILENT] = "stopped-answering",
};

const char *passes_end_name(enum passes_end end)
{
	return end_names[end];
}

const char *passes_outcome_name(enum passes_outcome outcome)
{
	return outcome_names[outcome];
}

/* splitmix64: the order's and the salts' draws, seeded so runs repeat */
static uint64_t draw(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t passes_salt(uint64_t seed, uint32_t pass)
{
	uint64_t state = seed * 0x2545f4914f6cdd1dULL + pass;
	uint64_t salt = draw(&state) ^ draw(&state);

	return salt ? salt : 1;		/* 0 asks surface_run for a random one */
}

void passes_order(uint64_t seed, uint32_t pass, uint32_t *order,
		  uint32_t count)
{
	uint64_t state = ~seed * 0x9e3779b97f4a7c15ULL + pass;

	for (uint32_t i = 0; i < count; i++)
		order[i] = i;
	for (uint32_t i = count; i > 1; i--) {	/* Fisher-Yates */
		uint32_t j = (uint32_t)(draw(&state) % i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
}

int passes_run_init(struct passes_run *run, const struct dev *dev,
		    const char *identity, uint64_t start, uint64_t end,
		    uint64_t seed)
{
	memset(run, 0, sizeof(*run));
	snprintf(run->identity, sizeof(run->identity), "%s", identity);
	run->size_bytes = dev->size_bytes;
	run->block_bytes = dev->logical_block_bytes;
	run->start = start;
	run->end = end;
	run->seed = seed;
	run->window_count = surface_window_count(end - start,
						 run->block_bytes);
	run->window_write_ns = calloc(run->window_count, sizeof(uint64_t));
	return run->window_write_ns ? 0 : -ENOMEM;
}

void passes_run_free(struct passes_run *run)
{
	free(run->done);
	free(run->ranges);
	free(run->bad);
	free(run->window_write_ns);
	run->done = NULL;
	run->ranges = NULL;
	run->bad = NULL;
	run->window_write_ns = NULL;
}

uint32_t passes_slice_windows(const struct passes_run *run)
{
	uint32_t slices = run->window_count < PASSES_SLICES ?
			  run->window_count : PASSES_SLICES;

	return (run->window_count + slices - 1) / slices;
}

uint32_t passes_slices(const struct passes_run *run)
{
	uint32_t k = passes_slice_windows(run);

	return (run->window_count + k - 1) / k;
}

uint64_t passes_blocks(const struct passes_run *run)
{
	return (run->end - run->start) / run->block_bytes;
}

const struct passes_range *passes_ranges_of(const struct passes_run *run,
					    uint32_t pass, size_t *n)
{
	size_t first = 0;

	while (first < run->range_count && run->ranges[first].pass < pass)
		first++;
	*n = 0;
	while (first + *n < run->range_count &&
	       run->ranges[first + *n].pass == pass)
		(*n)++;
	return run->ranges + first;
}

/* ---- one pass ---- */

struct walk {
	struct dev *dev;
	const struct passes_options *o;
	struct passes_run *run;
	struct surface_result *result;
	uint32_t *order;
	uint32_t pass;
	/* what the pass had cost before this run, and where it began */
	uint64_t base_device_ns, base_wall_ns, base_written, base_read;
	struct dev_stats stats0;
	uint64_t wall0;
	/* the pass's bad blocks, as ranges, in the order met */
	struct surface_range *found;
	size_t found_count, found_cap;
	bool found_lost;
	/* blocks whose stamp failed, and how many at the last slice's end;
	   a block this run wrote well (UINT64_MAX: none yet), written again
	   to tell worn blocks from a card that refuses all */
	uint64_t write_failed, write_failed_seen;
	uint64_t good_block;
	bool refused, silent;		/* what that told */
	char *why;
	size_t why_size;
};

/* surface's bad: one more block that did not read back intact */
static void on_bad(void *ctx, uint64_t offset, uint32_t length, int state)
{
	struct walk *w = ctx;
	struct surface_range *last = w->found_count ?
				     &w->found[w->found_count - 1] : NULL;

	if (state == STAMP_WRITE_ERROR) {	/* read back later: counted then */
		w->write_failed++;
		return;
	}
	if (last && last->state == state &&
	    last->offset + last->length == offset) {
		last->length += length;
		return;
	}
	if (grow_array((void **)&w->found, &w->found_cap,
		       w->found_count + 1, sizeof(*w->found))) {
		w->found_lost = true;
		return;
	}
	w->found[w->found_count++] = (struct surface_range){ offset, length,
							     state };
}

/* What the pass in progress has cost so far, for a save. */
static void carry(struct walk *w)
{
	struct passes_run *run = w->run;
	const struct dev_stats *now = &w->dev->stats;

	run->carried_device_ns = w->base_device_ns + now->time_ns -
				 w->stats0.time_ns;
	run->carried_wall_ns = w->base_wall_ns + dev_now_ns() - w->wall0;
	run->carried_written = w->base_written + now->bytes_written -
			       w->stats0.bytes_written;
	run->carried_read = w->base_read + now->bytes_read -
			    w->stats0.bytes_read;
}

static int save(struct walk *w)
{
	const char *failed;
	int err;

	if (!w->o->state_path)
		return 0;
	err = passes_state_write(w->o->state_path, w->run, &failed);
	if (err)
		snprintf(w->why, w->why_size, "the state file %s: %s: %s",
			 w->o->state_path, failed, strerror(-err));
	return err;
}

/* Whether the block at offset can be read now. */
static bool reads_answer(struct walk *w, uint64_t offset)
{
	uint32_t lbs = w->run->block_bytes;
	void *block = dev_alloc_buffer(lbs, DEV_PATTERN_ZEROS);
	uint64_t ns;
	bool ok = block && dev_read(w->dev, block, offset, lbs, &ns) == 0;

	free(block);
	return ok;
}

/* Whether the block at offset was bad in some pass before. */
static bool was_bad(const struct passes_run *run, uint64_t offset)
{
	size_t lo = 0, hi = run->bad_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct passes_extent *e = &run->bad[mid];

		if (offset < e->offset)
			hi = mid;
		else if (offset >= e->offset + e->length)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* The most blocks a probe reads and writes when none was written well. */
#define PROBE_BLOCKS 3

/*
 * The blocks that tell a card's end from worn blocks: the one this run
 * wrote well before, or else blocks spread over the range that were
 * never bad, outside the refused block's window.  Their count.
 */
static unsigned probe_blocks(const struct walk *w, uint64_t refused,
			     uint64_t *at)
{
	const struct passes_run *run = w->run;
	uint64_t window = w->result->window_bytes;
	uint64_t span = run->end - run->start;
	uint64_t refused_window = (refused - run->start) / window;
	unsigned n = 0;

	if (w->good_block != UINT64_MAX) {
		at[0] = w->good_block;
		return 1;
	}
	for (unsigned i = 0; i <= 4 && n < PROBE_BLOCKS; i++) {
		uint64_t b = run->start + (i < 4 ? span / 4 * i : span - 1);

		b -= (b - run->start) % run->block_bytes;
		if ((b - run->start) / window != refused_window &&
		    !was_bad(run, b))
			at[n++] = b;
	}
	return n;
}

/*
 * Read the block at offset and write back what it holds: 0, the read's
 * error (-ENODEV) or the write's (-EROFS), its errno in *errnum.
 */
static int rewrite(struct walk *w, void *block, uint64_t offset,
		   int *errnum)
{
	uint64_t ns;

	*errnum = 0;
	if (dev_read(w->dev, block, offset, w->run->block_bytes, &ns)) {
		*errnum = w->dev->error.errnum;
		return -ENODEV;
	}
	if (dev_write(w->dev, block, offset, w->run->block_bytes, &ns)) {
		*errnum = w->dev->error.errnum;
		return -EROFS;
	}
	return 0;
}

/*
 * Tell a window's refused stamps apart before each block is tried
 * alone: the probe blocks are read and written back with what they
 * hold.  None reads: the card stopped answering.  Each reads but
 * refuses the write, and so does the refused block again, with the same
 * error: it turned read-only.  Anything else (worn blocks): go on.
 */
static int probe_card(struct walk *w, void *block, uint64_t refused)
{
	uint64_t at[PROBE_BLOCKS];
	unsigned n = probe_blocks(w, refused, at), unread = 0, unwritten = 0;
	int errnum = 0, first = 0;

	for (unsigned i = 0; i < n; i++) {
		int err = rewrite(w, block, at[i], &errnum);

		if (err == -EROFS && !first)
			first = errnum;
		unread += err == -ENODEV;
		unwritten += err == -EROFS && errnum == first;
	}
	if (n && unread == n) {
		w->silent = true;
		snprintf(w->why, w->why_size, "the device stopped answering: "
			 "the block at %llu%s cannot be read now",
			 (unsigned long long)at[0],
			 w->good_block == UINT64_MAX ?
			 " and every other one tried" :
			 ", written well before,");
		return -ENODEV;
	}
	if (!n || unwritten < n || rewrite(w, block, refused, &errnum) !=
	    -EROFS || errnum != first)
		return 0;
	w->refused = true;
	return -EROFS;
}

/* surface's refused: a window's stamps failed - the card's end? */
static int on_refused(void *ctx, uint64_t offset)
{
	struct walk *w = ctx;
	void *block = dev_alloc_buffer(w->run->block_bytes,
				       DEV_PATTERN_ZEROS);
	int err = block ? probe_card(w, block, offset) : -ENOMEM;

	if (err == -ENOMEM)
		snprintf(w->why, w->why_size, "out of memory");
	free(block);
	return err;
}

/* surface's stamped: a slice of the order done, and saved */
static int on_stamped(void *ctx, uint32_t done)
{
	struct walk *w = ctx;
	struct passes_run *run = w->run;
	uint32_t k = passes_slice_windows(run);
	uint32_t first = w->order[done - 1] * k;

	for (uint32_t i = first; i < first + k && i < run->window_count; i++)
		run->window_write_ns[i] = w->result->windows[i].write_ns;
	if (w->write_failed > w->write_failed_seen)	/* worn blocks */
		w->write_failed_seen = w->write_failed;
	else if (!was_bad(run, w->result->windows[first].offset))
		w->good_block = w->result->windows[first].offset;
	run->stamped = done;
	carry(w);
	return save(w);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct walk *w = ctx;

	if (w->o->progress)
		w->o->progress(w->o->ctx, w->pass, done, total);
}

/* Begin the pass, or take up the one a stopped run was in. */
static void begin_pass(struct walk *w)
{
	struct passes_run *run = w->run;

	w->pass = run->current ? run->current :
		  (uint32_t)run->done_count + 1;
	if (run->current != w->pass) {
		run->current = w->pass;
		run->stamped = 0;
		run->carried_device_ns = run->carried_wall_ns = 0;
		run->carried_written = run->carried_read = 0;
		memset(run->window_write_ns, 0,
		       run->window_count * sizeof(uint64_t));
	}
	passes_order(run->seed, w->pass, w->order, passes_slices(run));
	w->base_device_ns = run->carried_device_ns;
	w->base_wall_ns = run->carried_wall_ns;
	w->base_written = run->carried_written;
	w->base_read = run->carried_read;
	w->stats0 = w->dev->stats;
	w->wall0 = dev_now_ns();
	w->found_count = 0;
	w->found_lost = false;
	w->write_failed = w->write_failed_seen = 0;
	w->refused = w->silent = false;
}

/* min, median and max of the windows' rates (NAN: none timed) */
static void spread(const struct surface_window *windows,
		   const uint64_t *ns, uint32_t count, double *bps,
		   double *scratch)
{
	size_t n = 0;

	for (uint32_t i = 0; i < count; i++)
		if (ns[i])
			scratch[n++] = (double)windows[i].bytes * 1e9 /
				       (double)ns[i];
	if (!n) {
		bps[0] = bps[1] = bps[2] = NAN;
		return;
	}
	bps[1] = analysis_median(scratch, n);	/* sorts them */
	bps[0] = scratch[0];
	bps[2] = scratch[n - 1];
}

/* The pass's figures, from its result and what it carried. */
static int figures(struct walk *w, struct passes_pass *p)
{
	const struct surface_result *r = w->result;
	uint32_t count = w->run->window_count;
	double *scratch = calloc(count, sizeof(double));
	uint64_t *read_ns = calloc(count, sizeof(uint64_t));

	if (!scratch || !read_ns) {
		free(scratch);
		free(read_ns);
		return -ENOMEM;
	}
	carry(w);
	*p = (struct passes_pass){ .pass = w->pass,
		.write_errors = r->states[STAMP_WRITE_ERROR],
		.read_errors = r->states[STAMP_READ_ERROR],
		.bytes_written = w->run->carried_written,
		.bytes_read = w->run->carried_read,
		.device_time_ns = w->run->carried_device_ns,
		.wall_ns = w->run->carried_wall_ns,
		.slices_stamped = w->run->stamped };
	for (uint32_t i = 0; i < count && i < r->window_count; i++)
		read_ns[i] = r->windows[i].read_ns;
	spread(r->windows, w->run->window_write_ns, count, p->write_bps,
	       scratch);
	spread(r->windows, read_ns, count, p->read_bps, scratch);
	free(scratch);
	free(read_ns);
	return 0;
}

/* ---- the bad blocks: this pass's against the run's ---- */

/* One new bad range of the pass: listed up to the limit, counted. */
static int add_new(struct walk *w, struct passes_pass *p,
		   const struct surface_range *g, uint64_t at, uint64_t end)
{
	struct passes_run *run = w->run;

	p->new_bad_blocks += (end - at) / run->block_bytes;
	p->new_ranges++;
	if (p->new_ranges > PASSES_PASS_RANGES)
		return 0;
	if (run->range_count) {
		struct passes_range *last = &run->ranges[run->range_count - 1];

		if (last->pass == w->pass && last->state == g->state &&
		    last->offset + last->length == at) {
			last->length += end - at;
			p->new_ranges--;
			return 0;
		}
	}
	if (grow_array((void **)&run->ranges, &run->range_cap,
		       run->range_count + 1, sizeof(*run->ranges)))
		return -ENOMEM;
	run->ranges[run->range_count++] = (struct passes_range){ w->pass,
		g->state, at, end - at };
	return 0;
}

/* The parts of each found range outside the run's bad set: new. */
static int find_new(struct walk *w, struct passes_pass *p)
{
	const struct passes_run *run = w->run;
	size_t j = 0;
	int err = 0;

	for (size_t i = 0; !err && i < w->found_count; i++) {
		const struct surface_range *g = &w->found[i];
		uint64_t at = g->offset, end = g->offset + g->length;

		p->bad_blocks += g->length / run->block_bytes;
		while (j < run->bad_count &&
		       run->bad[j].offset + run->bad[j].length <= at)
			j++;
		for (size_t k = j; !err && at < end && k < run->bad_count &&
		     run->bad[k].offset < end; k++) {
			if (run->bad[k].offset > at)
				err = add_new(w, p, g, at, run->bad[k].offset);
			at = run->bad[k].offset + run->bad[k].length;
		}
		if (!err && at < end)
			err = add_new(w, p, g, at, end);
	}
	return err;
}

/* Append [offset, offset + length) to a merged, ordered set. */
static int extend(struct passes_extent **set, size_t *count, size_t *cap,
		  uint64_t offset, uint64_t length)
{
	struct passes_extent *last = *count ? &(*set)[*count - 1] : NULL;

	if (last && offset <= last->offset + last->length) {
		uint64_t end = offset + length;

		if (end > last->offset + last->length)
			last->length = end - last->offset;
		return 0;
	}
	if (grow_array((void **)set, cap, *count + 1, sizeof(**set)))
		return -ENOMEM;
	(*set)[(*count)++] = (struct passes_extent){ offset, length };
	return 0;
}

/* The run's bad set and the pass's found ranges, merged: the new set. */
static int merge_bad(struct walk *w)
{
	struct passes_run *run = w->run;
	struct passes_extent *set = NULL;
	size_t count = 0, cap = 0, i = 0, j = 0;
	uint64_t blocks = 0;
	int err = 0;

	while (!err && (i < run->bad_count || j < w->found_count)) {
		bool old = j == w->found_count ||
			   (i < run->bad_count &&
			    run->bad[i].offset <= w->found[j].offset);

		err = old ? extend(&set, &count, &cap, run->bad[i].offset,
				   run->bad[i].length) :
		      extend(&set, &count, &cap, w->found[j].offset,
			     w->found[j].length);
		i += old;
		j += !old;
	}
	if (err) {
		free(set);
		return err;
	}
	for (size_t k = 0; k < count; k++)
		blocks += set[k].length / run->block_bytes;
	free(run->bad);
	run->bad = set;
	run->bad_count = count;
	run->bad_cap = cap;
	run->bad_blocks = blocks;
	return 0;
}

/* ---- how a pass ended ---- */

/*
 * The card refused the pass's writes while it still reads: a block
 * written well before refused now (check_writes), a write refused as
 * read-only, or a whole pass whose every block either had its write
 * fail or still holds the pass before's stamp.
 */
static bool refused(struct walk *w, int err)
{
	const struct surface_result *r = w->result;
	uint64_t blocks = passes_blocks(w->run);

	if (err)
		return w->refused ||
		       (err == -EROFS && reads_answer(w, w->run->start));
	return r->states[STAMP_READ_ERROR] == 0 &&
	       (r->states[STAMP_WRITE_ERROR] == blocks ||
		r->states[SURFACE_OLD_DATA] == blocks);
}

/* Nothing answered: the device is gone, or no block could be read. */
static bool silent(const struct walk *w, int err)
{
	const struct surface_result *r = w->result;

	return w->silent || r->stopped == SURFACE_DEVICE_GONE ||
	       (!err && r->states[STAMP_READ_ERROR] == passes_blocks(w->run));
}

static void mark_milestones(struct passes_run *run, uint32_t pass)
{
	double blocks = (double)passes_blocks(run);

	for (int m = 0; m < PASSES_MILESTONES; m++)
		if (!run->milestone[m] && run->bad_blocks &&
		    (double)run->bad_blocks >=
		    passes_milestone_fraction[m] * blocks)
			run->milestone[m] = pass;
}

/* After a pass read back whole: whether the run ends here. */
static enum passes_end end_after(const struct passes_run *run)
{
	double share = (double)run->bad_blocks / (double)passes_blocks(run);

	if (run->until == PASSES_UNTIL_FIRST_ERROR && run->bad_blocks)
		return PASSES_UNTIL_REACHED;
	if (run->until == PASSES_UNTIL_PERCENT && run->bad_blocks &&
	    share >= run->until_fraction)
		return PASSES_UNTIL_REACHED;
	if (run->passes && run->done_count >= run->passes)
		return PASSES_ALL_DONE;
	return PASSES_GOING;
}

static int append_done(struct passes_run *run, const struct passes_pass *p)
{
	if (grow_array((void **)&run->done, &run->done_cap,
		       run->done_count + 1, sizeof(*run->done)))
		return -ENOMEM;
	run->done[run->done_count++] = *p;
	run->current = 0;
	run->stamped = 0;
	return 0;
}

int passes_refused_at_open(struct passes_run *run)
{
	struct passes_pass p = { .pass = run->current ? run->current :
				 (uint32_t)run->done_count + 1,
				 .outcome = PASSES_REFUSED,
				 .write_bps = { NAN, NAN, NAN },
				 .read_bps = { NAN, NAN, NAN },
				 .total_bad_blocks = run->bad_blocks };
	int err = append_done(run, &p);

	if (!err)
		run->ended = PASSES_READ_ONLY;
	return err;
}

/* A pass read back whole: its bad blocks counted, the run's set grown. */
static int count_pass(struct walk *w, struct passes_pass *p)
{
	struct passes_run *run = w->run;
	int err;

	if (w->found_lost)
		return -ENOMEM;
	w->found_count = surface_merge_ranges(w->found, w->found_count);
	err = find_new(w, p);
	if (!err)
		err = merge_bad(w);
	if (err)
		return err;
	p->total_bad_blocks = run->bad_blocks;
	p->outcome = p->bad_blocks ? PASSES_ERRORS : PASSES_CLEAN;
	err = append_done(run, p);
	if (err)
		return err;
	mark_milestones(run, p->pass);
	run->ended = end_after(run);
	return 0;
}

/*
 * Where the pass leaves the run.  Interrupted, failed or silent, the
 * pass stays in progress (a later run goes on with it); read-only ends
 * the run; read back whole, it is counted.
 */
static int settle(struct walk *w, int err, struct passes_pass *p)
{
	struct passes_run *run = w->run;

	if (err == -EINTR) {
		run->ended = PASSES_INTERRUPTED;
		return save(w) ? -EIO : err;
	}
	if (refused(w, err)) {
		w->why[0] = '\0';
		p->outcome = PASSES_REFUSED;
		err = append_done(run, p);
		run->ended = PASSES_READ_ONLY;
	} else if (silent(w, err)) {
		p->outcome = PASSES_SILENT;
		run->ended = PASSES_STOPPED_ANSWERING;
		return save(w) ? -EIO :
		       w->o->pass_done ? w->o->pass_done(w->o->ctx, run, p) : 0;
	} else if (err) {
		run->ended = PASSES_FAILED;
		save(w);
		return err;
	} else {
		err = count_pass(w, p);
	}
	if (err == -ENOMEM)
		snprintf(w->why, w->why_size, "out of memory");
	if (!err)
		err = save(w);
	if (!err && w->o->pass_done)
		err = w->o->pass_done(w->o->ctx, run, p);
	return err;
}

static int one_pass(struct walk *w)
{
	const struct passes_run *run = w->run;
	struct surface_options so = { .mode = SURFACE_WRITE,
		.start = run->start, .end = run->end, .stop = w->o->stop,
		.progress = on_progress, .ctx = w, .order = w->order,
		.order_count = passes_slices(run),
		.order_windows = passes_slice_windows(run),
		.stamped = on_stamped, .bad = on_bad,
		.refused = on_refused };
	struct passes_pass p;
	int err;

	begin_pass(w);
	so.salt = passes_salt(run->seed, w->pass);
	so.old_salt = w->pass > 1 ? passes_salt(run->seed, w->pass - 1) : 0;
	so.order_from = run->stamped;
	err = surface_run(w->dev, &so, w->result, w->why, w->why_size);
	if (figures(w, &p))
		err = err ? err : -ENOMEM;
	return settle(w, err, &p);
}

int passes_go(struct dev *dev, const struct passes_options *options,
	      struct passes_run *run, char *why, size_t size)
{
	struct walk w = { .dev = dev, .o = options, .run = run, .why = why,
			  .why_size = size, .good_block = UINT64_MAX };
	int err = 0;

	why[0] = '\0';
	if (run->ended != PASSES_GOING)
		return 0;		/* ended before: nothing to do */
	w.result = calloc(1, sizeof(*w.result));
	w.order = calloc(run->window_count, sizeof(*w.order));
	if (!w.result || !w.order) {
		snprintf(why, size, "out of memory");
		err = -ENOMEM;
	}
	if (!err && run->passes && run->done_count >= run->passes)
		run->ended = PASSES_ALL_DONE;
	while (!err && run->ended == PASSES_GOING)
		err = one_pass(&w);
	free(w.result);
	free(w.order);
	free(w.found);
	return err;
}
