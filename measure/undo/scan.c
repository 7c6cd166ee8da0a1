/*
 * undo/scan: an undo file read back (scan.h), record by record; a
 * damaged one costs only itself.
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

#include "lib/grow.h"
#include "lib/le64.h"
#include "lib/stampblock.h"
#include "vm/stamp.h"
#include "measure/undo/format.h"
#include "measure/undo/scan.h"

#define SCAN_BYTES (1 << 20)	/* read at a time looking for a record */

static int read_exact(int fd, void *buf, size_t length, off_t at)
{
	char *p = buf;

	while (length) {
		ssize_t n = pread(fd, p, length, at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		p += n;
		at += n;
		length -= (size_t)n;
	}
	return 0;
}

/* A read of the file; a failure says so in g->why. */
int undo_log_read(const struct undo_log *g, void *buf, size_t length,
		  off_t at)
{
	int err = read_exact(g->fd, buf, length, at);

	if (err)
		snprintf(g->why, g->why_size, "read at %lld: %s",
			 (long long)at, err == -ENODATA ?
			 "the file is shorter than it was" : strerror(-err));
	return err;
}

int undo_log_add_saved(struct undo_log *g, const struct undo_head *h,
		       off_t data_at)
{
	int err = grow_array((void **)&g->saved, &g->cap, g->count + 1,
			     sizeof(*g->saved));

	if (!err)
		g->saved[g->count++] = (struct undo_saved){ h->offset,
			h->length, data_at, h->hash };
	/* an intact record after damage: that damage is no cut-short end */
	g->confirmed = g->damaged_count;
	return err;
}

int undo_log_add_damage(struct undo_log *g, const struct undo_damage *d,
			bool confirmed)
{
	int err = grow_array((void **)&g->damaged, &g->damaged_cap,
			     g->damaged_count + 1, sizeof(*g->damaged));

	if (err)
		return err;
	g->damaged[g->damaged_count++] = *d;
	if (confirmed)
		g->confirmed = g->damaged_count;
	return 0;
}

int undo_log_add_hashes(uint64_t **hashes, size_t *count, size_t *cap,
			const unsigned char *data, uint64_t length,
			uint32_t block_bytes)
{
	for (uint64_t at = 0; at < length; at += block_bytes) {
		int err = grow_array((void **)hashes, cap, *count + 1,
				     sizeof(**hashes));

		if (err)
			return err;
		(*hashes)[(*count)++] = stamp_hash(STAMP_FNV_BASIS, data + at,
						   block_bytes);
	}
	return 0;
}

int undo_log_keep_block_hashes(struct undo_log *g,
			       const unsigned char *data, uint64_t length)
{
	return g->want_block_hashes ?
	       undo_log_add_hashes(&g->block_hashes, &g->block_count,
				   &g->block_cap, data, length,
				   g->block_bytes) : 0;
}

static int add_tail(struct undo_log *g, const struct undo_tail *t)
{
	int err = grow_array((void **)&g->tails, &g->tail_cap,
			     g->tail_count + 1, sizeof(*g->tails));

	if (!err)
		g->tails[g->tail_count++] = *t;
	return err;
}

int undo_log_buffer_for(struct undo_log *g, uint64_t length)
{
	unsigned char *bigger;

	if (length <= g->buf_bytes)
		return 0;
	if (length >= SIZE_MAX)	/* on 32 bits, more than memory can hold */
		return -ENOMEM;
	bigger = realloc(g->buf, (size_t)length);
	if (!bigger)
		return -ENOMEM;
	g->buf = bigger;
	g->buf_bytes = (size_t)length;
	return 0;
}

int undo_log_data_intact(struct undo_log *g, off_t data_at,
			 const struct undo_head *h)
{
	uint64_t length = h->length;
	int err = undo_log_buffer_for(g, length);

	if (!err)
		err = read_exact(g->fd, g->buf, (size_t)length, data_at);
	if (err == -ENODATA)
		return 0;
	if (err)
		return undo_log_read(g, g->buf, (size_t)length, data_at);
	return undo_data_hash(h->hash_kind, g->buf, (size_t)length) == h->hash;
}

/* A range of blocks that fits the device the header names. */
static bool range_fits(const struct undo_log *g, uint64_t offset,
		       uint64_t length)
{
	return length && length <= UNDO_MAX_RECORD_BYTES &&
	       offset % g->block_bytes == 0 && length % g->block_bytes == 0 &&
	       offset <= g->device_bytes && length <= g->device_bytes - offset;
}

/* A whole head or trailer under magic, with sane fields. */
static bool decode(const struct undo_log *g, const unsigned char *p,
		   const char *magic, struct undo_head *h)
{
	if (memcmp(p, magic, 8) ||
	    get64(p + UNDO_R_SUM) !=
	    undo_salted_sum(g->file_salt, p, UNDO_R_SUM))
		return false;
	*h = (struct undo_head){ get64(p + UNDO_R_KIND),
		get64(p + UNDO_R_OFFSET), get64(p + UNDO_R_LENGTH),
		get64(p + UNDO_R_HASH), get64(p + UNDO_R_EXTENT),
		get64(p + UNDO_R_KIND) };
	if (h->kind == UNDO_KIND_WORDS)
		h->kind = UNDO_KIND_BLOCKS;
	if (h->kind == UNDO_KIND_USABLE)
		return h->length == 0 && h->offset <= g->device_bytes;
	if (h->kind == UNDO_KIND_DONE)
		return h->length == 0 && range_fits(g, h->offset, h->extent);
	if (h->kind == UNDO_KIND_PROGRESS)
		return h->length == UNDO_PROGRESS_BYTES &&
		       h->offset <= g->device_bytes;
	return h->kind == UNDO_KIND_BLOCKS &&
	       range_fits(g, h->offset, h->length);
}

enum found { FOUND_NOTHING, FOUND_HEAD, FOUND_TRAILER };

/* The first whole head or trailer in p[0, n - UNDO_HEAD_BYTES]. */
static enum found scan_window(const struct undo_log *g, const unsigned char *p,
			      size_t n, size_t *at, struct undo_head *h)
{
	for (size_t i = 0; i + UNDO_HEAD_BYTES <= n; i++) {
		const unsigned char *hit = memchr(p + i, 'F',
						  n - UNDO_HEAD_BYTES + 1 - i);

		if (!hit)
			break;
		i = (size_t)(hit - p);
		*at = i;
		if (decode(g, hit, undo_magic_head, h))
			return FOUND_HEAD;
		if (decode(g, hit, undo_magic_trailer, h))
			return FOUND_TRAILER;
	}
	return FOUND_NOTHING;
}

/* The next whole head or trailer at or after from, and where. */
static enum found scan_forward(struct undo_log *g, off_t from, off_t *where,
			       struct undo_head *h)
{
	int err = undo_log_buffer_for(g, SCAN_BYTES + UNDO_HEAD_BYTES);

	while (!err && from + UNDO_HEAD_BYTES <= g->file_bytes) {
		off_t left = g->file_bytes - from;
		size_t n = left > SCAN_BYTES + UNDO_HEAD_BYTES ?
			   SCAN_BYTES + UNDO_HEAD_BYTES : (size_t)left, at;
		enum found found;

		if (read_exact(g->fd, g->buf, n, from))
			break;
		found = scan_window(g, g->buf, n, &at, h);
		if (found != FOUND_NOTHING) {
			*where = from + (off_t)at;
			return found;
		}
		from += (off_t)(n - UNDO_HEAD_BYTES + 1);
	}
	return FOUND_NOTHING;
}

/*
 * An intact record that saves no blocks (a usable mark, a done range, a
 * progress record whose data is in g->buf), at `at` in the file: taken,
 * 1; else 0.
 */
static int take_mark(struct undo_log *g, const struct undo_head *h, off_t at)
{
	if (h->kind == UNDO_KIND_USABLE) {
		g->usable_bytes = h->offset;
		g->usable_marked = true;
	} else if (h->kind == UNDO_KIND_DONE) {
		if (grow_array((void **)&g->done, &g->done_cap,
			       g->done_count + 1, sizeof(*g->done)))
			return -ENOMEM;
		g->done[g->done_count++] = (struct undo_done){ h->offset,
							  h->extent, g->count,
							  at };
	} else if (h->kind == UNDO_KIND_PROGRESS) {
		undo_get_progress(g->buf, &g->progress);
		g->has_progress = true;
	} else {
		return 0;
	}
	g->confirmed = g->damaged_count;
	return 1;
}

static struct undo_damage unknown_range(off_t from, off_t to)
{
	return (struct undo_damage){ .file_offset = (uint64_t)from,
				     .file_bytes = (uint64_t)(to - from) };
}

/*
 * A cut head's fields, unchecked (its checksum is cut off or wrong),
 * when they name a range of blocks: where to look for the run's writes,
 * never what to write.
 */
static void hint_range(struct undo_log *g, struct undo_tail *t)
{
	unsigned char head[UNDO_HEAD_BYTES];
	off_t n = g->file_bytes - t->at;
	uint64_t kind, offset, length;

	if (n > UNDO_HEAD_BYTES)
		n = UNDO_HEAD_BYTES;
	if (n < UNDO_R_LENGTH + 8 ||
	    read_exact(g->fd, head, (size_t)n, t->at) ||
	    memcmp(head, undo_magic_head, sizeof(undo_magic_head)))
		return;
	kind = get64(head + UNDO_R_KIND);
	offset = get64(head + UNDO_R_OFFSET);
	length = get64(head + UNDO_R_LENGTH);
	if ((kind != UNDO_KIND_BLOCKS && kind != UNDO_KIND_WORDS) ||
	    !range_fits(g, offset, length))
		return;
	t->range_known = t->hinted = true;
	t->offset = offset;
	t->length = length;
	t->data_at = t->at + (off_t)n;
}

/*
 * The file ends inside the record at `at` (h: its head, when whole): a
 * tail for the device to judge.  A mark cut short saved no block.  1,
 * the end, or -errno.
 */
static int cut_short(struct undo_log *g, off_t at, const struct undo_head *h)
{
	struct undo_tail t = { .at = at, .data_at = at,
			  .file_bytes = (uint64_t)(g->file_bytes - at),
			  .cause = UNDO_CUT };
	int err;

	if (h && h->kind != UNDO_KIND_BLOCKS)
		return 1;
	if (!h)
		hint_range(g, &t);
	if (h) {
		t = (struct undo_tail){ .at = at, .range_known = true,
			.offset = h->offset, .length = h->length,
			.data_at = at + UNDO_HEAD_BYTES, .h = *h,
			.file_bytes = t.file_bytes, .cause = UNDO_CUT };
		t.data_bytes = (uint64_t)(g->file_bytes - t.data_at);
		if (t.data_bytes > h->length)
			t.data_bytes = h->length;
		err = t.data_bytes == h->length ?
		      undo_log_data_intact(g, t.data_at, h) : 0;
		if (err < 0)
			return err;
		t.data_whole = err == 1;
	}
	err = add_tail(g, &t);
	return err ? err : 1;
}

/*
 * A head at *at that is not whole: find the next head or trailer.  A
 * trailer names the range of its record (its head is the damaged one);
 * bytes no trailer explains are damage of an unknown range.  Nothing
 * whole after it: the end was cut short.  1 at the end, else 0.
 */
static int skip_damage(struct undo_log *g, off_t *at)
{
	struct undo_head h;
	off_t q = 0, start;
	enum found found = scan_forward(g, *at + 1, &q, &h);
	struct undo_damage d;
	int err = 0;

	if (found == FOUND_NOTHING)
		return cut_short(g, *at, NULL);
	if (found == FOUND_HEAD) {
		d = unknown_range(*at, q);
		*at = q;
		return undo_log_add_damage(g, &d, true);
	}
	start = q - (off_t)h.length - UNDO_HEAD_BYTES;
	if (start > *at) {
		d = unknown_range(*at, start);
		err = undo_log_add_damage(g, &d, true);
	}
	if (!err && start >= *at && h.kind != UNDO_KIND_BLOCKS) {
		/* a mark whose head is damaged: its trailer tells it */
		int intact = h.kind != UNDO_KIND_PROGRESS ? 1 :
			     undo_log_data_intact(g, start + UNDO_HEAD_BYTES,
						  &h);

		*at = q + UNDO_HEAD_BYTES;
		if (intact <= 0)	/* a lost progress record loses
					   no block */
			return intact;
		err = take_mark(g, &h, start);
		return err < 0 ? err : 0;
	}
	if (!err) {
		d = start >= *at ?
		    (struct undo_damage){ h.offset, h.length, true,
			(uint64_t)start,
			(uint64_t)(q + UNDO_HEAD_BYTES - start),
			UNDO_DAMAGED } :
		    unknown_range(*at, q + UNDO_HEAD_BYTES);
		err = undo_log_add_damage(g, &d, true);
	}
	*at = q + UNDO_HEAD_BYTES;
	return err;
}

/* The record at *at (FBUNDO02): 1 at the end, 0 to go on, or -errno. */
static int read_record(struct undo_log *g, off_t *at)
{
	unsigned char head[UNDO_HEAD_BYTES], trailer[UNDO_HEAD_BYTES];
	struct undo_head h, t;
	off_t data_at = *at + UNDO_HEAD_BYTES, end;
	struct undo_damage d;
	bool complete;
	int intact;

	if (g->file_bytes - *at < UNDO_HEAD_BYTES ||
	    read_exact(g->fd, head, sizeof(head), *at))
		return cut_short(g, *at, NULL);
	if (!decode(g, head, undo_magic_head, &h))
		return skip_damage(g, at);
	end = data_at + (off_t)h.length + UNDO_HEAD_BYTES;
	if (end > g->file_bytes)
		return cut_short(g, *at, &h);
	intact = undo_log_data_intact(g, data_at, &h);
	if (intact < 0)
		return intact;
	complete = read_exact(g->fd, trailer, sizeof(trailer),
			      end - UNDO_HEAD_BYTES) == 0 &&
		   decode(g, trailer, undo_magic_trailer, &t) &&
		   !memcmp(&h, &t, sizeof(h));
	*at = end;
	if (intact && h.kind != UNDO_KIND_BLOCKS) {
		intact = take_mark(g, &h, data_at - UNDO_HEAD_BYTES);
		return intact < 0 ? intact : 0;
	}
	if (intact) {
		int err = undo_log_keep_block_hashes(g, g->buf, h.length);

		return err ? err : undo_log_add_saved(g, &h, data_at);
	}
	d = (struct undo_damage){ h.offset, h.length, true,
				  (uint64_t)(data_at - UNDO_HEAD_BYTES),
				  (uint64_t)(end - data_at + UNDO_HEAD_BYTES),
				  UNDO_DAMAGED };
	/* without its trailer it may be the end, unless more follow */
	return undo_log_add_damage(g, &d, complete);
}

/* FBUNDO01: records up to the first one that is not whole, as before. */
static int read_records1(struct undo_log *g)
{
	unsigned char head[UNDO_HEAD1_BYTES];
	off_t at = UNDO_HEADER1_BYTES;

	while (read_exact(g->fd, head, sizeof(head), at) == 0 &&
	       memcmp(head, undo_magic_record1,
		      sizeof(undo_magic_record1)) == 0) {
		struct undo_head h = { UNDO_KIND_BLOCKS, get64(head + 8),
				  get64(head + 16), get64(head + 24), 0,
				  UNDO_KIND_BLOCKS };
		off_t data_at = at + UNDO_HEAD1_BYTES;
		int intact;

		if (!range_fits(g, h.offset, h.length) ||
		    (uint64_t)(g->file_bytes - data_at) < h.length)
			break;
		intact = undo_log_data_intact(g, data_at, &h);
		if (intact < 0)
			return intact;
		if (intact &&
		    (undo_log_keep_block_hashes(g, g->buf, h.length) ||
		     undo_log_add_saved(g, &h, data_at)))
			return -ENOMEM;
		if (!intact && undo_log_add_damage(g, &(struct undo_damage){
				h.offset, h.length, true, (uint64_t)at,
				UNDO_HEAD1_BYTES + h.length, UNDO_DAMAGED },
				true))
			return -ENOMEM;
		at = data_at + (off_t)h.length;
	}
	return 0;
}

/* Did a done mark after record i cover what it saved? */
static bool settled(const struct undo_log *g, size_t i)
{
	const struct undo_saved *r = &g->saved[i];

	for (size_t k = 0; k < g->done_count; k++) {
		const struct undo_done *d = &g->done[k];

		if (d->after > i && d->offset <= r->offset &&
		    r->offset + r->length <= d->offset + d->length)
			return true;
	}
	return false;
}

/*
 * Forget the records whose blocks a done mark says hold their old
 * contents again: nothing of theirs is to put back or to check.
 */
static void drop_settled(struct undo_log *g)
{
	size_t kept = 0;

	if (!g->done_count)
		return;
	for (size_t i = 0; i < g->count; i++)
		if (!settled(g, i))
			g->saved[kept++] = g->saved[i];
	g->count = kept;
}

/* Does a done mark after damage d cover its range? */
static bool covered(const struct undo_log *g, const struct undo_damage *d)
{
	for (size_t k = 0; d->range_known && k < g->done_count; k++) {
		const struct undo_done *m = &g->done[k];

		if (m->at > (off_t)d->file_offset && m->offset <= d->offset &&
		    d->offset + d->length <= m->offset + m->length)
			return true;
	}
	return false;
}

/*
 * Damage whose range a later done mark says holds its old contents
 * again costs nothing: its data is back, whatever its record says.
 */
static void drop_covered(struct undo_log *g)
{
	size_t kept = 0;

	for (size_t i = 0; i < g->damaged_count; i++)
		if (!covered(g, &g->damaged[i]))
			g->damaged[kept++] = g->damaged[i];
	g->damaged_count = kept;
}

/*
 * Damage with no record after it (the last record, its data and its
 * trailer bad) may be a crash's unsynced end: a tail, for the device to
 * judge as a cut one.
 */
static int damage_to_tails(struct undo_log *g)
{
	int err = 0;

	for (size_t i = g->confirmed; !err && i < g->damaged_count; i++) {
		const struct undo_damage *d = &g->damaged[i];

		err = add_tail(g, &(struct undo_tail){
			.at = (off_t)d->file_offset, .range_known = true,
			.offset = d->offset, .length = d->length,
			.data_at = (off_t)d->file_offset + UNDO_HEAD_BYTES,
			.data_bytes = d->length, .file_bytes = d->file_bytes,
			.cause = UNDO_DAMAGED });
	}
	g->damaged_count = g->confirmed;
	return err;
}

static int read_records(struct undo_log *g)
{
	off_t at = UNDO_HEADER_BYTES;
	int err = 0;

	if (g->version == 1)
		return read_records1(g);
	while (err == 0 && at < g->file_bytes)
		err = read_record(g, &at);
	if (err >= 0)
		err = damage_to_tails(g);
	drop_settled(g);
	drop_covered(g);
	return err < 0 ? err : 0;
}

static int bad_file(char *why, size_t size, const char *what)
{
	snprintf(why, size, "%s", what);
	return -EINVAL;
}

/* An undo file whose header is damaged: no usage error, a failure. */
static int damaged_header(char *why, size_t size)
{
	snprintf(why, size, "its header is damaged");
	return -EBADMSG;
}

static int read_header(struct undo_log *g, char *why, size_t size)
{
	unsigned char header[UNDO_HEADER_BYTES];

	if (read_exact(g->fd, header, UNDO_HEADER1_BYTES, 0))
		return bad_file(why, size, "not a flashbench undo file");
	if (memcmp(header, undo_magic_header1,
		   sizeof(undo_magic_header1)) == 0) {
		g->version = 1;
		g->device_bytes = get64(header + UNDO_H_DEVICE);
		g->block_bytes = (uint32_t)get64(header + UNDO_H_BLOCK);
		g->fingerprint = get64(header + UNDO_H_FINGERPRINT);
		return g->block_bytes &&
		       get64(header + UNDO_H_BLOCK) <= UINT32_MAX ?
		       0 : damaged_header(why, size);
	}
	if (memcmp(header, undo_magic_header, sizeof(undo_magic_header)))
		return bad_file(why, size, "not a flashbench undo file");
	if (read_exact(g->fd, header, sizeof(header), 0) ||
	    get64(header + UNDO_H_SUM) != stamp_hash(STAMP_FNV_BASIS, header,
						 UNDO_H_SUM) ||
	    get64(header + UNDO_H_SALT_COUNT) > UNDO_MAX_SALTS ||
	    get64(header + UNDO_H_BLOCK) - 1 >= UINT32_MAX)
		return damaged_header(why, size);
	g->version = 2;
	g->device_bytes = get64(header + UNDO_H_DEVICE);
	g->block_bytes = (uint32_t)get64(header + UNDO_H_BLOCK);
	g->fingerprint = get64(header + UNDO_H_FINGERPRINT);
	g->file_salt = get64(header + UNDO_H_SALT);
	g->salt_count = (unsigned)get64(header + UNDO_H_SALT_COUNT);
	for (unsigned i = 0; i < g->salt_count; i++)
		g->salts[i] = get64(header + UNDO_H_SALTS + 8 * i);
	return 0;
}

int undo_log_finish(struct undo_log *g, int err)
{
	if (err == -ENOMEM)
		snprintf(g->why, g->why_size, "out of memory");
	undo_log_close(g);
	return err;
}

void undo_log_close(struct undo_log *g)
{
	if (g->fd >= 0)
		close(g->fd);
	free(g->saved);
	free(g->damaged);
	free(g->done);
	free(g->block_hashes);
	free(g->pattern_hashes);
	free(g->tails);
	free(g->buf);
	*g = (struct undo_log){ .fd = -1 };
}

/*
 * Open the log on fd (a descriptor of its own, so the caller's stays
 * open) for dev: its header, which must name dev's size and block size,
 * then its records.  0 or a negative errno, why set.
 */
int undo_log_open(struct undo_log *g, int fd, const struct dev *dev,
		  bool want_block_hashes, char *why, size_t size)
{
	struct stat st;
	int err;

	*g = (struct undo_log){ .want_block_hashes = want_block_hashes,
			   .why = why, .why_size = size };
	why[0] = '\0';
	g->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (g->fd < 0 || fstat(g->fd, &st)) {
		err = -errno;
		snprintf(why, size, "%s", strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode))
		return bad_file(why, size, "not a regular file");
	g->file_bytes = st.st_size;
	err = read_header(g, why, size);
	if (err)
		return err;
	if (g->device_bytes != dev->size_bytes ||
	    g->block_bytes != dev->logical_block_bytes) {
		snprintf(why, size, "it was made for a device of %llu bytes "
			 "(blocks of %llu), not this one of %llu",
			 (unsigned long long)g->device_bytes,
			 (unsigned long long)g->block_bytes,
			 (unsigned long long)dev->size_bytes);
		return -ENODEV;
	}
	err = read_records(g);
	if (err == -ENOMEM)
		snprintf(why, size, "out of memory");
	return err;
}

uint64_t undo_log_usable(const struct undo_log *g)
{
	return g->usable_marked ? g->usable_bytes : g->device_bytes;
}

uint64_t undo_log_largest(const struct undo_log *g)
{
	uint64_t top = g->block_bytes;

	for (size_t i = 0; i < g->count; i++)
		if (g->saved[i].length > top)
			top = g->saved[i].length;
	return top;
}

/* A saved block of record r, the one at offset, into block. */
int undo_log_saved_block(const struct undo_log *g,
			 const struct undo_saved *r, uint64_t offset,
			 unsigned char *block)
{
	return undo_log_read(g, block, g->block_bytes,
			 r->data_at + (off_t)(offset - r->offset));
}

/*
 * Did the file's run write block (read at offset)?  A whole stamp whose
 * salt the file names; in an FBUNDO01 file, which names none, any whole
 * stamp.  *named: the offset it was written to.
 */
bool undo_log_run_stamp(const struct undo_log *g, const unsigned char *block,
			uint64_t offset, uint64_t *named)
{
	uint64_t salt;
	enum stamp_state state;
	bool listed = g->version == 1;

	if (g->block_bytes < STAMP_MIN_BYTES)
		return false;
	if (!stampblock_legacy(block, g->block_bytes, named, &salt)) {
		salt = get64(block + UNDO_STAMP_SALT_AT);
		state = stamp_classify(block, offset, g->block_bytes, salt,
				       named);
		if (state != STAMP_INTACT && state != STAMP_ALIAS)
			return false;
	}
	for (unsigned i = 0; i < g->salt_count && !listed; i++)
		listed = g->salts[i] == salt;
	return listed;
}

bool undo_log_broken_stamp(const struct undo_log *g,
			   const unsigned char *block, uint64_t offset)
{
	uint64_t named;

	return g->block_bytes >= STAMP_MIN_BYTES &&
	       stamp_classify(block, offset, g->block_bytes, 0, &named) ==
	       STAMP_GARBAGE;
}
