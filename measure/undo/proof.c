/*
 * undo/proof: is this the device, in the state the file's run left it
 * (proof.h)?  And the file's end, judged by what the device holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/le64.h"
#include "lib/stampblock.h"
#include "vm/stamp.h"
#include "measure/undo/format.h"
#include "measure/undo/proof.h"
#include "measure/undo/scan.h"
#include "measure/undo/trust.h"

/* ---- the proof: is this the device, in the state the run left? ---- */

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool listed_hash(const uint64_t *hashes, size_t count, uint64_t hash)
{
	return count && bsearch(&hash, hashes, count, sizeof(hash),
				compare_u64);
}

/* Is block one of the test patterns a pattern run writes? */
static bool pattern_block(const struct undo_log *g, const unsigned char *block)
{
	return g->pattern_count &&
	       listed_hash(g->pattern_hashes, g->pattern_count,
			   stamp_hash(STAMP_FNV_BASIS, block, g->block_bytes));
}

/* What a recorded block holds now is one the file explains. */
static bool explained(const struct undo_log *g, const unsigned char *now,
		      bool unreadable, const unsigned char *saved,
		      uint64_t offset)
{
	uint32_t lbs = g->block_bytes;
	uint64_t named;

	if (!unreadable) {
		if (!memcmp(now, saved, lbs) ||
		    undo_log_run_stamp(g, now, offset, &named) ||
		    pattern_block(g, now) ||
		    listed_hash(g->block_hashes, g->block_count,
				stamp_hash(STAMP_FNV_BASIS, now, lbs)))
			return true;
		if (!undo_log_broken_stamp(g, now, offset))
			return false;
	}
	/* unreadable or a broken stamp now: it held no data when saved */
	return undo_log_run_stamp(g, saved, offset, &named) ||
	       undo_log_broken_stamp(g, saved, offset);
}

/* Read [offset, +length) into now; unreadable blocks flagged, not fatal. */
static int read_now(struct dev *dev, unsigned char *now, uint64_t offset,
		    uint64_t length, bool *unreadable)
{
	uint32_t lbs = dev->logical_block_bytes;
	uint64_t ns;
	int err = dev_read(dev, now, offset, length, &ns);

	for (uint64_t at = 0; at < length; at += lbs)
		unreadable[at / lbs] = false;
	if (err != -EIO)
		return err;
	for (uint64_t at = 0; at < length; at += lbs) {
		err = dev_read(dev, now + at, offset + at, lbs, &ns);
		if (err && err != -EIO)
			return err;
		unreadable[at / lbs] = err != 0;
	}
	return 0;
}

static int prove_record(struct undo_log *g, struct dev *dev,
			const struct undo_saved *r, unsigned char *now,
			bool *unreadable, struct undo_proof *proof)
{
	uint64_t usable = undo_log_usable(g), length, lbs = g->block_bytes;
	int err;

	if (r->offset >= usable)
		return 0;
	length = usable - r->offset < r->length ? usable - r->offset :
						  r->length;
	length -= length % lbs;
	err = undo_log_read(g, g->buf, (size_t)r->length, r->data_at);
	if (!err)
		err = read_now(dev, now, r->offset, length, unreadable);
	for (uint64_t at = 0; !err && at < length; at += lbs) {
		proof->blocks_read++;
		if (!explained(g, now + at, unreadable[at / lbs], g->buf + at,
			       r->offset + at)) {
			proof->proven = false;
			proof->first_unexplained = r->offset + at;
			return 1;
		}
	}
	return err;
}

/* Does the file's header name salt among its run's? */
static bool names_salt(const struct undo_log *g, uint64_t salt)
{
	for (unsigned i = 0; i < g->salt_count; i++)
		if (g->salts[i] == salt)
			return true;
	return false;
}

/*
 * A run that names UNDO_PATTERN_SALT wrote the test patterns, each from
 * its buffer's start: the blocks of each pattern's first
 * UNDO_PATTERN_BYTES are what such a run leaves (sorted, once).
 */
static int know_patterns(struct undo_log *g)
{
	unsigned char *buf;
	int err = 0;

	if (g->patterns_known || g->version == 1 ||
	    !names_salt(g, UNDO_PATTERN_SALT))
		return 0;
	buf = dev_alloc_buffer(UNDO_PATTERN_BYTES, DEV_PATTERN_ZEROS);
	if (!buf)
		return -ENOMEM;
	for (int p = 0; !err && p < DEV_PATTERN_COUNT; p++) {
		dev_fill_pattern(buf, UNDO_PATTERN_BYTES, (enum dev_pattern)p);
		/* a constant pattern's blocks are all one */
		err = undo_log_add_hashes(&g->pattern_hashes, &g->pattern_count,
				 &g->pattern_cap, buf,
				 p == DEV_PATTERN_RANDOM ? UNDO_PATTERN_BYTES :
				 g->block_bytes, g->block_bytes);
	}
	free(buf);
	if (g->pattern_count)
		qsort(g->pattern_hashes, g->pattern_count,
		      sizeof(*g->pattern_hashes), compare_u64);
	g->patterns_known = !err;
	return err;
}

/* ---- the file's end, judged by the device ---- */

bool undo_log_in_damage(const struct undo_log *g, uint64_t offset)
{
	for (size_t i = 0; i < g->damaged_count; i++) {
		const struct undo_damage *d = &g->damaged[i];

		if (d->range_known && offset >= d->offset &&
		    offset - d->offset < d->length)
			return true;
	}
	return false;
}

/* The newest progress, past the chunks done since, with the salts. */
static struct undo_progress progress_now(const struct undo_log *g)
{
	struct undo_progress p = g->progress;

	/* the chunks done since: each starts where the last ended */
	for (size_t k = 0; k < g->done_count; k++)
		if (g->done[k].offset == p.next)
			p.next += g->done[k].length;
	p.salt_count = g->salt_count;
	memcpy(p.salts, g->salts, sizeof(p.salts));
	return p;
}

#define JUDGE_BYTES (4ULL << 20)	/* read at a time */

/* The device's blocks as the judge reads them, and what it found. */
struct look {
	unsigned char *now;
	bool *unreadable;
	bool found;			/* a block the run wrote */
	uint64_t first, last;		/* the first and last such */
};

static void note(struct look *l, uint64_t offset)
{
	if (!l->found)
		l->first = offset;
	l->found = true;
	l->last = offset;
}

/*
 * Did the run write what the block at offset holds now?  With its saved
 * copy (the part of a cut record the file keeps): it differs from it.
 * Without: it is a stamp of the run or a test pattern.  An unreadable
 * block cannot tell: taken as written, so nothing is skipped unproven.
 */
static bool run_wrote(const struct undo_log *g, const unsigned char *now,
		      bool unreadable, const unsigned char *saved,
		      uint64_t offset)
{
	uint64_t named;

	if (unreadable)
		return true;
	if (saved)
		return memcmp(now, saved, g->block_bytes) != 0;
	return undo_log_run_stamp(g, now, offset, &named) ||
	       pattern_block(g, now);
}

/* Read the blocks tail t names, and its saved ones as far as they go. */
static int look_at_tail(struct undo_log *g, struct dev *dev,
			const struct undo_tail *t, struct look *l)
{
	uint32_t lbs = g->block_bytes;
	int err = 0;

	l->found = false;
	for (uint64_t at = 0; !err && at < t->length; at += JUDGE_BYTES) {
		uint64_t n = t->length - at < JUDGE_BYTES ? t->length - at :
							    JUDGE_BYTES;
		uint64_t kept = t->data_bytes > at ? t->data_bytes - at : 0;

		kept = (kept < n ? kept : n) / lbs * lbs;
		err = read_now(dev, l->now, t->offset + at, n, l->unreadable);
		if (!err && kept)
			err = undo_log_read(g, g->buf, (size_t)kept,
					t->data_at + (off_t)at);
		for (uint64_t b = 0; !err && b < n; b += lbs)
			if (run_wrote(g, l->now + b, l->unreadable[b / lbs],
				      b < kept ? g->buf + b : NULL,
				      t->offset + at + b))
				note(l, t->offset + at + b);
	}
	return err;
}

/* A cut record whose data is whole: an intact one, put back. */
static int take_tail(struct undo_log *g, const struct undo_tail *t)
{
	int err = undo_log_data_intact(g, t->data_at, &t->h);

	if (err == 0) {			/* changed since it was read */
		snprintf(g->why, g->why_size, "its last record changed while "
			 "it was read");
		err = -EIO;
	}
	if (err == 1)
		err = undo_log_keep_block_hashes(g, g->buf, t->length);
	return err ? err : undo_log_add_saved(g, &t->h, t->data_at);
}

/*
 * The device judges a tail: a record none of whose blocks the run wrote
 * never took effect (skipped); else one whose data is whole is put back,
 * and one whose data is not is listed.  A tail whose range is lost is
 * listed, unless the file says where its run stood (the lost check
 * reads there).
 */
static int judge_tail(struct undo_log *g, struct dev *dev,
		      const struct undo_tail *t, struct look *l)
{
	struct undo_damage d = { .file_offset = (uint64_t)t->at,
				 .file_bytes = t->file_bytes,
				 .cause = t->cause };
	int err;

	if (!t->range_known)
		return g->has_progress ? 0 : undo_log_add_damage(g, &d, true);
	err = look_at_tail(g, dev, t, l);
	if (err || !l->found)
		return err;
	if (t->data_whole)
		return take_tail(g, t);
	/* a hint is unchecked: the blocks found written are the facts */
	d.range_known = true;
	d.offset = t->hinted ? l->first : t->offset;
	d.length = t->hinted ? l->last + g->block_bytes - l->first :
			       t->length;
	return undo_log_add_damage(g, &d, true);
}

/* Is the block at offset in a record to put back, or listed already? */
static bool accounted(const struct undo_log *g, uint64_t offset)
{
	for (size_t i = 0; i < g->count; i++)
		if (offset >= g->saved[i].offset &&
		    offset - g->saved[i].offset < g->saved[i].length)
			return true;
	return undo_log_in_damage(g, offset);
}

/*
 * The run's stamps in [from, to) that no record explains: a record that
 * saved them is lost, whole.  Listed as one range not put back.
 */
static int look_for_lost(struct undo_log *g, struct dev *dev, uint64_t from,
			 uint64_t to, struct look *l)
{
	uint32_t lbs = g->block_bytes;
	uint64_t named;
	int err = 0;

	l->found = false;
	for (uint64_t at = from; !err && at < to; at += JUDGE_BYTES) {
		uint64_t n = to - at < JUDGE_BYTES ? to - at : JUDGE_BYTES;

		err = read_now(dev, l->now, at, n, l->unreadable);
		for (uint64_t b = 0; !err && b < n; b += lbs)
			if (!l->unreadable[b / lbs] && !accounted(g, at + b) &&
			    undo_log_run_stamp(g, l->now + b, at + b, &named))
				note(l, at + b);
	}
	if (err || !l->found)
		return err;
	return undo_log_add_damage(g, &(struct undo_damage){ .offset = l->first,
		.length = l->last + lbs - l->first, .range_known = true,
		.file_offset = (uint64_t)g->file_bytes, .cause = UNDO_LOST },
		true);
}

/*
 * Where the run's stamps would be if a record that saved them were lost
 * whole: the chunk a chunked run stands at, or the start of the device
 * when no saved block is left (a capacity check stamps its flush area
 * there every round).  Its end returned, its start in *from; no more
 * than *from when there is nowhere to look: the file names no salted
 * stamps (a pattern run's), or holds records to put back.
 */
static uint64_t lost_range(const struct undo_log *g, uint64_t *from)
{
	uint64_t to = g->device_bytes;
	bool stamps = g->version == 1;

	for (unsigned i = 0; i < g->salt_count; i++)
		stamps |= g->salts[i] != UNDO_PATTERN_SALT;
	*from = 0;
	if (g->has_progress) {
		struct undo_progress p = progress_now(g);

		*from = p.next < p.end ? p.next : p.end;
		to = p.end < g->device_bytes ? p.end : g->device_bytes;
	} else if (g->count || g->damaged_count) {
		return *from;
	}
	if (!stamps || *from >= to)	/* (a progress past the device) */
		return *from;
	if (to - *from > UNDO_MAX_RECORD_BYTES)
		to = *from + UNDO_MAX_RECORD_BYTES;
	return to / g->block_bytes * g->block_bytes;
}

/* The tails, then the lost check: what only the device can tell. */
int undo_log_judge_end(struct undo_log *g, struct dev *dev)
{
	uint32_t lbs = g->block_bytes;
	struct look l = { 0 };
	uint64_t from, to;
	int err;

	if (g->version == 1)		/* read as before */
		return 0;
	if (!g->tail_count && lost_range(g, &from) <= from)
		return 0;		/* a whole file: nothing to read */
	l.now = dev_alloc_buffer(JUDGE_BYTES, DEV_PATTERN_ZEROS);
	l.unreadable = calloc((size_t)(JUDGE_BYTES / lbs) + 1,
			      sizeof(*l.unreadable));
	err = l.now && l.unreadable ? undo_log_buffer_for(g, JUDGE_BYTES) :
				      -ENOMEM;
	if (!err && g->tail_count)
		err = know_patterns(g);
	for (size_t i = 0; !err && i < g->tail_count; i++)
		err = judge_tail(g, dev, &g->tails[i], &l);
	to = err ? 0 : lost_range(g, &from);
	if (!err && to > from)
		err = look_for_lost(g, dev, from, to, &l);
	free(l.now);
	free(l.unreadable);
	return err;
}

static int prove(struct undo_log *g, struct dev *dev, struct undo_proof *proof)
{
	uint64_t top = undo_log_largest(g);
	unsigned char *now = dev_alloc_buffer(top, DEV_PATTERN_ZEROS);
	bool *unreadable = calloc((size_t)(top / g->block_bytes),
				  sizeof(*unreadable));
	int err = now && unreadable ? undo_log_buffer_for(g, top) : -ENOMEM;

	if (!err)
		err = know_patterns(g);

	proof->proven = true;
	if (g->block_count)
		qsort(g->block_hashes, g->block_count,
		      sizeof(*g->block_hashes), compare_u64);
	for (size_t i = 0; !err && i < g->count; i++)
		err = prove_record(g, dev, &g->saved[i], now, unreadable,
				   proof);
	free(now);
	free(unreadable);
	return err < 0 ? err : 0;
}

int undo_log_open_judged(struct undo_log *g, int fd, struct dev *dev,
			 bool want_block_hashes, char *why, size_t size)
{
	int err = undo_log_open(g, fd, dev, want_block_hashes, why, size);

	return err ? err : undo_log_judge_end(g, dev);
}

int undo_check_file(int fd, struct dev *dev,
		    struct undo_proof *proof, char *why, size_t size)
{
	struct undo_log g;
	int err = undo_log_open_judged(&g, fd, dev, true, why, size);

	*proof = (struct undo_proof){ .version = g.version };
	if (!err) {
		proof->identity_differs = g.fingerprint !=
					  undo_fingerprint(dev);
		proof->usable_bytes = undo_log_usable(&g);
		err = prove(&g, dev, proof);
	}
	return undo_log_finish(&g, err);
}

/* ---- where a chunked run stands ---- */

int undo_read_progress(int fd, const struct dev *dev,
		       struct undo_progress *progress, char *why,
		       size_t size)
{
	struct undo_log g;
	int err = undo_log_open(&g, fd, dev, false, why, size);

	if (!err && !g.has_progress) {
		snprintf(why, size, "it holds no progress of a --surface "
			 "--keep-data run");
		err = -ENOENT;
	}
	if (!err)
		*progress = progress_now(&g);
	return undo_log_finish(&g, err);
}
