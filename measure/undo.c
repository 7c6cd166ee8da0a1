/*
 * undo: an append-only log of old block contents.  Layout (little
 * endian) of FBUNDO02:
 *
 * - a 256-byte header: magic "FBUNDO02", device size, logical block
 *   size, fingerprint, the file's salt, the number of stamp salts, the
 *   salts (those the run's stamps carry, so a restore tells them from
 *   data), and a checksum of the header;
 * - records: a 64-byte head (magic "FBUREC02", kind, offset, length,
 *   FNV-1a of the data, sequence number, and a checksum of the head
 *   seeded with the file's salt), the data, then a trailer: the head
 *   again under the magic "FBUEND02".  A record of kind 2 holds no data:
 *   it marks the usable size the check found.  A chunked run (--surface
 *   --keep-data) adds kind 3, no data either: the range [offset, offset +
 *   extent) (the extent in the head's seventh word) holds its old
 *   contents again, so a restore leaves the records before it that
 *   saved it alone; and kind 4, a progress record whose data is where
 *   the run stands (struct undo_progress, eight words).  Such a run
 *   starts its file anew, by a rename, once every chunk in it is done:
 *   the file never holds more than the chunks of a few steps.
 *
 * The salted checksum lets a reader that meets a damaged head scan
 * forward to the next head or trailer: no saved block can pass for one,
 * since the salt was drawn after its data was on the device.  A trailer
 * gives back the range of a record whose head is damaged.  A record the
 * file ends inside may be one a crash left before its fsync (its blocks
 * never overwritten) or one whose end was lost since: the file cannot
 * tell, the device can.  Its blocks are read: where none holds what the
 * run writes, it is skipped; else it is put back if its data is whole,
 * and listed as not put back if not.  FBUNDO01 files (a 64-byte header
 * with no salts; records of magic "FBUR", offset, length, FNV-1a of the
 * data, the data) are read as before: up to the first record that is
 * not whole.
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
#include "measure/undo.h"
#include "measure/undotrust.h"

#define HEADER1_BYTES 64
#define HEAD1_BYTES 32		/* an FBUNDO01 record's head */
#define HEADER_BYTES 256
#define HEAD_BYTES 64		/* a record's head, and its trailer */
#define MAX_RECORD_BYTES (64ULL << 20)
#define SCAN_BYTES (1 << 20)	/* read at a time looking for a record */
#define NONE SIZE_MAX

/* the header's fields */
enum { H_DEVICE = 8, H_BLOCK = 16, H_FINGERPRINT = 24, H_SALT = 32,
       H_SALT_COUNT = 40, H_SALTS = 48, H_SUM = HEADER_BYTES - 8 };
_Static_assert(H_SALTS + 8 * UNDO_MAX_SALTS <= H_SUM, "the salts fit");

/* a head's and a trailer's fields */
enum { R_KIND = 8, R_OFFSET = 16, R_LENGTH = 24, R_HASH = 32,
       R_SEQUENCE = 40, R_EXTENT = 48, R_SUM = HEAD_BYTES - 8 };
/* KIND_WORDS: saved blocks whose data checksum is taken a word at a time
   (stampblock_hash_words), what is written now; KIND_BLOCKS ones, byte
   by byte (FNV-1a), are read as before */
enum { KIND_BLOCKS = 1, KIND_USABLE = 2, KIND_DONE = 3, KIND_PROGRESS = 4,
       KIND_WORDS = 5 };
#define PROGRESS_WORDS 8
#define PROGRESS_BYTES (8 * PROGRESS_WORDS)

/* stamp.c's layout: magic, offset, then the salt */
#define STAMP_SALT_AT 16

static const char header1_magic[8] = { 'F', 'B', 'U', 'N', 'D', 'O', '0',
				       '1' };
static const char header_magic[8] = { 'F', 'B', 'U', 'N', 'D', 'O', '0',
				      '2' };
static const char record1_magic[8] = { 'F', 'B', 'U', 'R', 0, 0, 0, 0 };
static const char head_magic[8] = { 'F', 'B', 'U', 'R', 'E', 'C', '0',
				    '2' };
static const char trailer_magic[8] = { 'F', 'B', 'U', 'E', 'N', 'D', '0',
				       '2' };

static uint64_t salted_sum(uint64_t salt, const unsigned char *p,
			   size_t length)
{
	unsigned char seed[8];

	put64(seed, salt);
	return stamp_hash(stamp_hash(STAMP_FNV_BASIS, seed, sizeof(seed)), p,
			  length);
}

/* A record's data checksum, as its kind says. */
static uint64_t data_hash(uint64_t kind, const void *data, size_t length)
{
	return kind == KIND_WORDS ? stampblock_hash_words(data, length) :
				    stamp_hash(STAMP_FNV_BASIS, data, length);
}

/* ---- writing ---- */

static int write_all(int fd, const void *buf, size_t length)
{
	const char *p = buf;

	while (length) {
		ssize_t n = write(fd, p, length);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		length -= (size_t)n;
	}
	return 0;
}

/* The new file's name must survive a power loss too: sync its directory. */
static int sync_directory(const char *path)
{
	char dir[PATH_MAX];
	int fd, err = 0;

	undo_directory_of(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

/* Note which of the file's operations failed: err, passed through. */
static int file_failed(struct undo *u, const char *operation, int err)
{
	if (err) {
		u->failed = operation;
		u->failed_errno = -err;
	}
	return err;
}

static uint64_t new_file_salt(void)
{
	uint64_t salt = 0;

	if (getrandom(&salt, sizeof(salt), 0) != (ssize_t)sizeof(salt))
		salt = dev_now_ns() ^ (uint64_t)getpid() << 32;
	return salt;
}

int undo_create(struct undo *u, const char *path, const struct dev *dev,
		const uint64_t *stamp_salts, unsigned salt_count)
{
	unsigned char header[HEADER_BYTES] = { 0 };
	int err;

	*u = (struct undo){ .path = path, .device_bytes = dev->size_bytes,
			    .block_bytes = dev->logical_block_bytes,
			    .fingerprint = undo_fingerprint(dev),
			    .file_salt = new_file_salt() };
	if (salt_count > UNDO_MAX_SALTS)
		salt_count = UNDO_MAX_SALTS;
	u->salt_count = salt_count;
	memcpy(u->salts, stamp_salts, salt_count * sizeof(*stamp_salts));
	u->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (u->fd < 0)
		return file_failed(u, "create", -errno);
	memcpy(header, header_magic, sizeof(header_magic));
	put64(header + H_DEVICE, u->device_bytes);
	put64(header + H_BLOCK, u->block_bytes);
	put64(header + H_FINGERPRINT, u->fingerprint);
	put64(header + H_SALT, u->file_salt);
	put64(header + H_SALT_COUNT, salt_count);
	for (unsigned i = 0; i < salt_count; i++)
		put64(header + H_SALTS + 8 * i, stamp_salts[i]);
	put64(header + H_SUM, stamp_hash(STAMP_FNV_BASIS, header, H_SUM));
	u->unsynced = true;
	err = file_failed(u, "write", write_all(u->fd, header,
						sizeof(header)));
	return err ? err : file_failed(u, "fsync", sync_directory(path));
}

/* A head, or a trailer under its own magic: the same fields. */
static void fill_head(const struct undo *u, unsigned char *head,
		      const char *magic, uint64_t kind, uint64_t offset,
		      uint64_t length, uint64_t hash, uint64_t extent)
{
	memset(head, 0, HEAD_BYTES);
	memcpy(head, magic, 8);
	put64(head + R_KIND, kind);
	put64(head + R_OFFSET, offset);
	put64(head + R_LENGTH, length);
	put64(head + R_HASH, hash);
	put64(head + R_SEQUENCE, u->records);
	put64(head + R_EXTENT, extent);
	put64(head + R_SUM, salted_sum(u->file_salt, head, R_SUM));
}

static int append(struct undo *u, uint64_t kind, uint64_t offset,
		  const void *data, uint64_t length, uint64_t extent)
{
	unsigned char head[HEAD_BYTES], trailer[HEAD_BYTES];
	uint64_t hash = data_hash(kind, data, (size_t)length);
	int err;

	fill_head(u, head, head_magic, kind, offset, length, hash, extent);
	fill_head(u, trailer, trailer_magic, kind, offset, length, hash,
		  extent);
	err = write_all(u->fd, head, sizeof(head));
	if (!err)
		err = write_all(u->fd, data, (size_t)length);
	if (!err)
		err = write_all(u->fd, trailer, sizeof(trailer));
	if (err)
		return file_failed(u, "write", err);
	u->records++;
	u->unsynced = true;
	return 0;
}

void undo_refuse_stamps(struct undo *u, const uint64_t *salts,
			unsigned count)
{
	if (count > UNDO_MAX_SALTS)
		count = UNDO_MAX_SALTS;
	memcpy(u->foreign_salts, salts, count * sizeof(*salts));
	u->foreign_count = count;
}

/* Is block (read at offset) a whole stamp of a salt u refuses? */
static bool foreign_stamp(const struct undo *u, const unsigned char *block,
			  uint64_t offset)
{
	uint64_t named, salt;
	enum stamp_state state;

	if (u->block_bytes < STAMP_MIN_BYTES ||
	    !stampblock_header(block, &named, &salt))
		return false;
	state = stamp_classify(block, offset, u->block_bytes, salt, &named);
	for (unsigned i = 0; i < u->foreign_count; i++)
		if (u->foreign_salts[i] == salt)
			return state == STAMP_INTACT || state == STAMP_ALIAS;
	return false;
}

int undo_save(struct undo *u, struct dev *dev, uint64_t offset,
	      uint64_t length, void *buf)
{
	uint64_t ns;
	int err = dev_read(dev, buf, offset, length, &ns);

	/* a stopped run's stamp is what it wrote, not what the card held */
	for (uint64_t at = 0; !err && u->foreign_count && at < length;
	     at += u->block_bytes)
		if (foreign_stamp(u, (const unsigned char *)buf + at,
				  offset + at)) {
			u->foreign_at = offset + at;
			err = -EUCLEAN;
		}
	if (!err)
		err = append(u, KIND_WORDS, offset, buf, length, 0);
	if (!err)
		u->bytes_saved += length;
	return err;
}

int undo_sync(struct undo *u)
{
	if (!u->unsynced)
		return 0;
	if (fsync(u->fd))
		return file_failed(u, "fsync", -errno);
	u->unsynced = false;
	return 0;
}

int undo_mark_usable(struct undo *u, uint64_t usable_bytes)
{
	int err = append(u, KIND_USABLE, usable_bytes, "", 0, 0);

	return err ? err : undo_sync(u);
}

int undo_mark_done(struct undo *u, uint64_t offset, uint64_t length)
{
	return append(u, KIND_DONE, offset, "", 0, length);
}

static void put_progress(unsigned char *p, const struct undo_progress *pr)
{
	const uint64_t words[PROGRESS_WORDS] = { pr->start, pr->end,
		pr->next, pr->window_bytes, pr->chunk_bytes, pr->bad_blocks,
		pr->first_bad, pr->good_end };

	for (unsigned i = 0; i < PROGRESS_WORDS; i++)
		put64(p + 8 * i, words[i]);
}

static void get_progress(const unsigned char *p, struct undo_progress *pr)
{
	*pr = (struct undo_progress){ .start = get64(p), .end = get64(p + 8),
		.next = get64(p + 16), .window_bytes = get64(p + 24),
		.chunk_bytes = get64(p + 32), .bad_blocks = get64(p + 40),
		.first_bad = get64(p + 48), .good_end = get64(p + 56) };
}

/*
 * The run's salts, then those of the stopped run it goes on with (so
 * its file tells their stamps from data too, to a later --restore or
 * --resume), as many as fit: into out, their number returned.
 */
static unsigned with_refused(const struct undo *u, const uint64_t *salts,
			     unsigned count, uint64_t *out)
{
	unsigned n = count < UNDO_MAX_SALTS ? count : UNDO_MAX_SALTS;

	memcpy(out, salts, n * sizeof(*salts));
	for (unsigned i = 0; i < u->foreign_count && n < UNDO_MAX_SALTS; i++)
		out[n++] = u->foreign_salts[i];
	return n;
}

/* path with ".new" after it: where a replacement is written first. */
static int replacement_name(const char *path, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s.new", path);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int undo_replace(struct undo *u, const char *path, const struct dev *dev,
		 const uint64_t *stamp_salts, unsigned salt_count,
		 const struct undo_progress *progress)
{
	uint64_t salts[UNDO_MAX_SALTS];
	unsigned char data[PROGRESS_BYTES];
	char fresh[PATH_MAX];
	struct undo next;
	int err = replacement_name(path, fresh, sizeof(fresh));

	if (err)
		return file_failed(u, "create", err);
	if (u->fd >= 0) {		/* the open file's own salts */
		salt_count = u->salt_count;
		memcpy(salts, u->salts, sizeof(salts));
	} else {
		salt_count = with_refused(u, stamp_salts, salt_count, salts);
	}
	stamp_salts = salts;
	/* a replacement left by a crash was never renamed: no copy */
	if (unlink(fresh) && errno != ENOENT)
		return file_failed(u, "create", -errno);
	put_progress(data, progress);
	err = undo_create(&next, fresh, dev, stamp_salts, salt_count);
	if (!err)
		err = append(&next, KIND_PROGRESS, progress->next, data,
			     sizeof(data), 0);
	if (!err)
		err = file_failed(&next, "fsync", undo_sync(&next));
	if (!err && rename(fresh, path))
		err = file_failed(&next, "rename", -errno);
	if (!err)
		err = file_failed(&next, "fsync", sync_directory(path));
	if (err) {
		u->failed = next.failed;
		u->failed_errno = next.failed_errno;
		undo_close(&next);
		return err;
	}
	undo_close(u);
	next.path = path;
	undo_refuse_stamps(&next, u->foreign_salts, u->foreign_count);
	*u = next;
	return 0;
}

void undo_close(struct undo *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

/* ---- reading the log ---- */

struct saved {
	uint64_t offset, length;
	off_t data_at;			/* in the file */
	uint64_t hash;
};

/* One head or trailer, decoded. */
struct head {
	uint64_t kind, offset, length, hash, extent;
	uint64_t hash_kind;	/* how hash was taken: KIND_WORDS is read
				   as KIND_BLOCKS, its hash a word-wise one */
};

/* A range marked done, after the first `after` intact records. */
struct done {
	uint64_t offset, length;
	size_t after;
	off_t at;			/* where its mark lies in the file */
};

/*
 * A record the file ends inside, or the damaged last one: whether the
 * run wrote its blocks only the device can tell (judge_end).
 */
struct tail {
	off_t at;			/* the record's first byte in the file */
	bool range_known;		/* from its head; or hinted */
	bool hinted;			/* a cut head's fields, unchecked */
	uint64_t offset, length;	/* the blocks it names */
	off_t data_at;			/* its data, as far as the file holds
					   it (data_bytes) */
	uint64_t data_bytes;
	bool data_whole;		/* whole, and its checksum holds */
	struct head h;			/* its head, when range_known */
	uint64_t file_bytes;		/* its bytes in the file */
	enum undo_cause cause;		/* if it is listed */
};

/* The file as read: its header, its intact records and its damage. */
struct log {
	int fd;
	off_t file_bytes;
	unsigned version;
	uint64_t device_bytes, fingerprint, file_salt;
	uint32_t block_bytes;
	uint64_t salts[UNDO_MAX_SALTS];
	unsigned salt_count;
	uint64_t usable_bytes;		/* the mark's, or 0 */
	bool usable_marked;
	struct done *done;		/* ranges back as they were */
	size_t done_count, done_cap;
	struct undo_progress progress;	/* the newest, if any */
	bool has_progress;
	struct saved *saved;		/* intact records, in file order */
	size_t count, cap;
	struct undo_damage *damaged;
	size_t damaged_count, damaged_cap;
	size_t confirmed;		/* damaged[0, confirmed) are damage;
					   the rest, unless a record follows,
					   a cut-short end */
	struct tail *tails;		/* the end, for the device to judge */
	size_t tail_count, tail_cap;
	uint64_t *block_hashes;		/* of every saved block, for the
					   proof; NULL unless asked for */
	size_t block_count, block_cap;
	bool want_block_hashes;
	uint64_t *pattern_hashes;	/* a pattern run's blocks, sorted */
	size_t pattern_count, pattern_cap;
	bool patterns_known;
	unsigned char *buf;		/* one record's data */
	size_t buf_bytes;
	char *why;			/* what failed, for the caller */
	size_t why_size;
};

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
static int read_file(const struct log *g, void *buf, size_t length, off_t at)
{
	int err = read_exact(g->fd, buf, length, at);

	if (err)
		snprintf(g->why, g->why_size, "read at %lld: %s",
			 (long long)at, err == -ENODATA ?
			 "the file is shorter than it was" : strerror(-err));
	return err;
}

/* Room for one more of size bytes in *array, holding *count of *cap. */
static int grow(void **array, size_t *cap, size_t count, size_t size)
{
	void *bigger;
	size_t more;

	if (count < *cap)
		return 0;
	more = *cap ? *cap * 2 : 64;
	bigger = realloc(*array, more * size);
	if (!bigger)
		return -ENOMEM;
	*array = bigger;
	*cap = more;
	return 0;
}

static int add_saved(struct log *g, const struct head *h, off_t data_at)
{
	int err = grow((void **)&g->saved, &g->cap, g->count,
		       sizeof(*g->saved));

	if (!err)
		g->saved[g->count++] = (struct saved){ h->offset, h->length,
						       data_at, h->hash };
	/* an intact record after damage: that damage is no cut-short end */
	g->confirmed = g->damaged_count;
	return err;
}

static int add_damage(struct log *g, const struct undo_damage *d,
		      bool confirmed)
{
	int err = grow((void **)&g->damaged, &g->damaged_cap,
		       g->damaged_count, sizeof(*g->damaged));

	if (err)
		return err;
	g->damaged[g->damaged_count++] = *d;
	if (confirmed)
		g->confirmed = g->damaged_count;
	return 0;
}

/* The hash of each block of data appended to *hashes. */
static int add_hashes(uint64_t **hashes, size_t *count, size_t *cap,
		      const unsigned char *data, uint64_t length,
		      uint32_t block_bytes)
{
	for (uint64_t at = 0; at < length; at += block_bytes) {
		int err = grow((void **)hashes, cap, *count, sizeof(**hashes));

		if (err)
			return err;
		(*hashes)[(*count)++] = stamp_hash(STAMP_FNV_BASIS, data + at,
						   block_bytes);
	}
	return 0;
}

static int keep_block_hashes(struct log *g, const unsigned char *data,
			     uint64_t length)
{
	return g->want_block_hashes ?
	       add_hashes(&g->block_hashes, &g->block_count, &g->block_cap,
			  data, length, g->block_bytes) : 0;
}

static int add_tail(struct log *g, const struct tail *t)
{
	int err = grow((void **)&g->tails, &g->tail_cap, g->tail_count,
		       sizeof(*g->tails));

	if (!err)
		g->tails[g->tail_count++] = *t;
	return err;
}

static int buffer_for(struct log *g, uint64_t length)
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

/* Read a record's data into g->buf: 1 when it matches hash, else 0. */
static int data_intact(struct log *g, off_t data_at, const struct head *h)
{
	uint64_t length = h->length;
	int err = buffer_for(g, length);

	if (!err)
		err = read_exact(g->fd, g->buf, (size_t)length, data_at);
	if (err == -ENODATA)
		return 0;
	if (err)
		return read_file(g, g->buf, (size_t)length, data_at);
	return data_hash(h->hash_kind, g->buf, (size_t)length) == h->hash;
}

/* A range of blocks that fits the device the header names. */
static bool range_fits(const struct log *g, uint64_t offset,
		       uint64_t length)
{
	return length && length <= MAX_RECORD_BYTES &&
	       offset % g->block_bytes == 0 && length % g->block_bytes == 0 &&
	       offset <= g->device_bytes && length <= g->device_bytes - offset;
}

/* A whole head or trailer under magic, with sane fields. */
static bool decode(const struct log *g, const unsigned char *p,
		   const char *magic, struct head *h)
{
	if (memcmp(p, magic, 8) ||
	    get64(p + R_SUM) != salted_sum(g->file_salt, p, R_SUM))
		return false;
	*h = (struct head){ get64(p + R_KIND), get64(p + R_OFFSET),
			    get64(p + R_LENGTH), get64(p + R_HASH),
			    get64(p + R_EXTENT), get64(p + R_KIND) };
	if (h->kind == KIND_WORDS)
		h->kind = KIND_BLOCKS;
	if (h->kind == KIND_USABLE)
		return h->length == 0 && h->offset <= g->device_bytes;
	if (h->kind == KIND_DONE)
		return h->length == 0 && range_fits(g, h->offset, h->extent);
	if (h->kind == KIND_PROGRESS)
		return h->length == PROGRESS_BYTES &&
		       h->offset <= g->device_bytes;
	return h->kind == KIND_BLOCKS && range_fits(g, h->offset, h->length);
}

enum found { FOUND_NOTHING, FOUND_HEAD, FOUND_TRAILER };

/* The first whole head or trailer in p[0, n - HEAD_BYTES]. */
static enum found scan_window(const struct log *g, const unsigned char *p,
			      size_t n, size_t *at, struct head *h)
{
	for (size_t i = 0; i + HEAD_BYTES <= n; i++) {
		const unsigned char *hit = memchr(p + i, 'F',
						  n - HEAD_BYTES + 1 - i);

		if (!hit)
			break;
		i = (size_t)(hit - p);
		*at = i;
		if (decode(g, hit, head_magic, h))
			return FOUND_HEAD;
		if (decode(g, hit, trailer_magic, h))
			return FOUND_TRAILER;
	}
	return FOUND_NOTHING;
}

/* The next whole head or trailer at or after from, and where. */
static enum found scan_forward(struct log *g, off_t from, off_t *where,
			       struct head *h)
{
	int err = buffer_for(g, SCAN_BYTES + HEAD_BYTES);

	while (!err && from + HEAD_BYTES <= g->file_bytes) {
		off_t left = g->file_bytes - from;
		size_t n = left > SCAN_BYTES + HEAD_BYTES ?
			   SCAN_BYTES + HEAD_BYTES : (size_t)left, at;
		enum found found;

		if (read_exact(g->fd, g->buf, n, from))
			break;
		found = scan_window(g, g->buf, n, &at, h);
		if (found != FOUND_NOTHING) {
			*where = from + (off_t)at;
			return found;
		}
		from += (off_t)(n - HEAD_BYTES + 1);
	}
	return FOUND_NOTHING;
}

/*
 * An intact record that saves no blocks (a usable mark, a done range, a
 * progress record whose data is in g->buf), at `at` in the file: taken,
 * 1; else 0.
 */
static int take_mark(struct log *g, const struct head *h, off_t at)
{
	if (h->kind == KIND_USABLE) {
		g->usable_bytes = h->offset;
		g->usable_marked = true;
	} else if (h->kind == KIND_DONE) {
		if (grow((void **)&g->done, &g->done_cap, g->done_count,
			 sizeof(*g->done)))
			return -ENOMEM;
		g->done[g->done_count++] = (struct done){ h->offset,
							  h->extent, g->count,
							  at };
	} else if (h->kind == KIND_PROGRESS) {
		get_progress(g->buf, &g->progress);
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
static void hint_range(struct log *g, struct tail *t)
{
	unsigned char head[HEAD_BYTES];
	off_t n = g->file_bytes - t->at;
	uint64_t kind, offset, length;

	if (n > HEAD_BYTES)
		n = HEAD_BYTES;
	if (n < R_LENGTH + 8 || read_exact(g->fd, head, (size_t)n, t->at) ||
	    memcmp(head, head_magic, sizeof(head_magic)))
		return;
	kind = get64(head + R_KIND);
	offset = get64(head + R_OFFSET);
	length = get64(head + R_LENGTH);
	if ((kind != KIND_BLOCKS && kind != KIND_WORDS) ||
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
static int cut_short(struct log *g, off_t at, const struct head *h)
{
	struct tail t = { .at = at, .data_at = at,
			  .file_bytes = (uint64_t)(g->file_bytes - at),
			  .cause = UNDO_CUT };
	int err;

	if (h && h->kind != KIND_BLOCKS)
		return 1;
	if (!h)
		hint_range(g, &t);
	if (h) {
		t = (struct tail){ .at = at, .range_known = true,
			.offset = h->offset, .length = h->length,
			.data_at = at + HEAD_BYTES, .h = *h,
			.file_bytes = t.file_bytes, .cause = UNDO_CUT };
		t.data_bytes = (uint64_t)(g->file_bytes - t.data_at);
		if (t.data_bytes > h->length)
			t.data_bytes = h->length;
		err = t.data_bytes == h->length ?
		      data_intact(g, t.data_at, h) : 0;
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
static int skip_damage(struct log *g, off_t *at)
{
	struct head h;
	off_t q = 0, start;
	enum found found = scan_forward(g, *at + 1, &q, &h);
	struct undo_damage d;
	int err = 0;

	if (found == FOUND_NOTHING)
		return cut_short(g, *at, NULL);
	if (found == FOUND_HEAD) {
		d = unknown_range(*at, q);
		*at = q;
		return add_damage(g, &d, true);
	}
	start = q - (off_t)h.length - HEAD_BYTES;
	if (start > *at) {
		d = unknown_range(*at, start);
		err = add_damage(g, &d, true);
	}
	if (!err && start >= *at && h.kind != KIND_BLOCKS) {
		/* a mark whose head is damaged: its trailer tells it */
		int intact = h.kind != KIND_PROGRESS ? 1 :
			     data_intact(g, start + HEAD_BYTES, &h);

		*at = q + HEAD_BYTES;
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
					  (uint64_t)(q + HEAD_BYTES - start),
					  UNDO_DAMAGED } :
		    unknown_range(*at, q + HEAD_BYTES);
		err = add_damage(g, &d, true);
	}
	*at = q + HEAD_BYTES;
	return err;
}

/* The record at *at (FBUNDO02): 1 at the end, 0 to go on, or -errno. */
static int read_record(struct log *g, off_t *at)
{
	unsigned char head[HEAD_BYTES], trailer[HEAD_BYTES];
	struct head h, t;
	off_t data_at = *at + HEAD_BYTES, end;
	struct undo_damage d;
	bool complete;
	int intact;

	if (g->file_bytes - *at < HEAD_BYTES ||
	    read_exact(g->fd, head, sizeof(head), *at))
		return cut_short(g, *at, NULL);
	if (!decode(g, head, head_magic, &h))
		return skip_damage(g, at);
	end = data_at + (off_t)h.length + HEAD_BYTES;
	if (end > g->file_bytes)
		return cut_short(g, *at, &h);
	intact = data_intact(g, data_at, &h);
	if (intact < 0)
		return intact;
	complete = read_exact(g->fd, trailer, sizeof(trailer),
			      end - HEAD_BYTES) == 0 &&
		   decode(g, trailer, trailer_magic, &t) &&
		   !memcmp(&h, &t, sizeof(h));
	*at = end;
	if (intact && h.kind != KIND_BLOCKS) {
		intact = take_mark(g, &h, data_at - HEAD_BYTES);
		return intact < 0 ? intact : 0;
	}
	if (intact) {
		int err = keep_block_hashes(g, g->buf, h.length);

		return err ? err : add_saved(g, &h, data_at);
	}
	d = (struct undo_damage){ h.offset, h.length, true,
				  (uint64_t)(data_at - HEAD_BYTES),
				  (uint64_t)(end - data_at + HEAD_BYTES),
				  UNDO_DAMAGED };
	/* without its trailer it may be the end, unless more follow */
	return add_damage(g, &d, complete);
}

/* FBUNDO01: records up to the first one that is not whole, as before. */
static int read_records1(struct log *g)
{
	unsigned char head[HEAD1_BYTES];
	off_t at = HEADER1_BYTES;

	while (read_exact(g->fd, head, sizeof(head), at) == 0 &&
	       memcmp(head, record1_magic, sizeof(record1_magic)) == 0) {
		struct head h = { KIND_BLOCKS, get64(head + 8),
				  get64(head + 16), get64(head + 24), 0,
				  KIND_BLOCKS };
		off_t data_at = at + HEAD1_BYTES;
		int intact;

		if (!range_fits(g, h.offset, h.length) ||
		    (uint64_t)(g->file_bytes - data_at) < h.length)
			break;
		intact = data_intact(g, data_at, &h);
		if (intact < 0)
			return intact;
		if (intact && (keep_block_hashes(g, g->buf, h.length) ||
			       add_saved(g, &h, data_at)))
			return -ENOMEM;
		if (!intact && add_damage(g, &(struct undo_damage){
				h.offset, h.length, true, (uint64_t)at,
				HEAD1_BYTES + h.length, UNDO_DAMAGED }, true))
			return -ENOMEM;
		at = data_at + (off_t)h.length;
	}
	return 0;
}

/* Did a done mark after record i cover what it saved? */
static bool settled(const struct log *g, size_t i)
{
	const struct saved *r = &g->saved[i];

	for (size_t k = 0; k < g->done_count; k++) {
		const struct done *d = &g->done[k];

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
static void drop_settled(struct log *g)
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
static bool covered(const struct log *g, const struct undo_damage *d)
{
	for (size_t k = 0; d->range_known && k < g->done_count; k++) {
		const struct done *m = &g->done[k];

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
static void drop_covered(struct log *g)
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
static int damage_to_tails(struct log *g)
{
	int err = 0;

	for (size_t i = g->confirmed; !err && i < g->damaged_count; i++) {
		const struct undo_damage *d = &g->damaged[i];

		err = add_tail(g, &(struct tail){ .at = (off_t)d->file_offset,
			.range_known = true, .offset = d->offset,
			.length = d->length,
			.data_at = (off_t)d->file_offset + HEAD_BYTES,
			.data_bytes = d->length, .file_bytes = d->file_bytes,
			.cause = UNDO_DAMAGED });
	}
	g->damaged_count = g->confirmed;
	return err;
}

static int read_records(struct log *g)
{
	off_t at = HEADER_BYTES;
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

static int read_header(struct log *g, char *why, size_t size)
{
	unsigned char header[HEADER_BYTES];

	if (read_exact(g->fd, header, HEADER1_BYTES, 0))
		return bad_file(why, size, "not a flashbench undo file");
	if (memcmp(header, header1_magic, sizeof(header1_magic)) == 0) {
		g->version = 1;
		g->device_bytes = get64(header + H_DEVICE);
		g->block_bytes = (uint32_t)get64(header + H_BLOCK);
		g->fingerprint = get64(header + H_FINGERPRINT);
		return g->block_bytes && get64(header + H_BLOCK) <= UINT32_MAX ?
		       0 : damaged_header(why, size);
	}
	if (memcmp(header, header_magic, sizeof(header_magic)))
		return bad_file(why, size, "not a flashbench undo file");
	if (read_exact(g->fd, header, sizeof(header), 0) ||
	    get64(header + H_SUM) != stamp_hash(STAMP_FNV_BASIS, header,
						 H_SUM) ||
	    get64(header + H_SALT_COUNT) > UNDO_MAX_SALTS ||
	    get64(header + H_BLOCK) - 1 >= UINT32_MAX)
		return damaged_header(why, size);
	g->version = 2;
	g->device_bytes = get64(header + H_DEVICE);
	g->block_bytes = (uint32_t)get64(header + H_BLOCK);
	g->fingerprint = get64(header + H_FINGERPRINT);
	g->file_salt = get64(header + H_SALT);
	g->salt_count = (unsigned)get64(header + H_SALT_COUNT);
	for (unsigned i = 0; i < g->salt_count; i++)
		g->salts[i] = get64(header + H_SALTS + 8 * i);
	return 0;
}

static void close_log(struct log *g)
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
	*g = (struct log){ .fd = -1 };
}

/*
 * Open the log on fd (a descriptor of its own, so the caller's stays
 * open) for dev: its header, which must name dev's size and block size,
 * then its records.  0 or a negative errno, why set.
 */
static int open_log(struct log *g, int fd, const struct dev *dev,
		    bool want_block_hashes, char *why, size_t size)
{
	struct stat st;
	int err;

	*g = (struct log){ .want_block_hashes = want_block_hashes,
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

static uint64_t usable_of(const struct log *g)
{
	return g->usable_marked ? g->usable_bytes : g->device_bytes;
}

static uint64_t largest(const struct log *g)
{
	uint64_t top = g->block_bytes;

	for (size_t i = 0; i < g->count; i++)
		if (g->saved[i].length > top)
			top = g->saved[i].length;
	return top;
}

/* A saved block of record r, the one at offset, into block. */
static int saved_block(const struct log *g, const struct saved *r,
		       uint64_t offset, unsigned char *block)
{
	return read_file(g, block, g->block_bytes,
			 r->data_at + (off_t)(offset - r->offset));
}

/*
 * Did the file's run write block (read at offset)?  A whole stamp whose
 * salt the file names; in an FBUNDO01 file, which names none, any whole
 * stamp.  *named: the offset it was written to.
 */
static bool run_stamp(const struct log *g, const unsigned char *block,
		      uint64_t offset, uint64_t *named)
{
	uint64_t salt;
	enum stamp_state state;
	bool listed = g->version == 1;

	if (g->block_bytes < STAMP_MIN_BYTES)
		return false;
	if (!stampblock_legacy(block, g->block_bytes, named, &salt)) {
		salt = get64(block + STAMP_SALT_AT);
		state = stamp_classify(block, offset, g->block_bytes, salt,
				       named);
		if (state != STAMP_INTACT && state != STAMP_ALIAS)
			return false;
	}
	for (unsigned i = 0; i < g->salt_count && !listed; i++)
		listed = g->salts[i] == salt;
	return listed;
}

static bool broken_stamp(const struct log *g, const unsigned char *block,
			 uint64_t offset)
{
	uint64_t named;

	return g->block_bytes >= STAMP_MIN_BYTES &&
	       stamp_classify(block, offset, g->block_bytes, 0, &named) ==
	       STAMP_GARBAGE;
}

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
static bool pattern_block(const struct log *g, const unsigned char *block)
{
	return g->pattern_count &&
	       listed_hash(g->pattern_hashes, g->pattern_count,
			   stamp_hash(STAMP_FNV_BASIS, block, g->block_bytes));
}

/* What a recorded block holds now is one the file explains. */
static bool explained(const struct log *g, const unsigned char *now,
		      bool unreadable, const unsigned char *saved,
		      uint64_t offset)
{
	uint32_t lbs = g->block_bytes;
	uint64_t named;

	if (!unreadable) {
		if (!memcmp(now, saved, lbs) ||
		    run_stamp(g, now, offset, &named) ||
		    pattern_block(g, now) ||
		    listed_hash(g->block_hashes, g->block_count,
				stamp_hash(STAMP_FNV_BASIS, now, lbs)))
			return true;
		if (!broken_stamp(g, now, offset))
			return false;
	}
	/* unreadable or a broken stamp now: it held no data when saved */
	return run_stamp(g, saved, offset, &named) ||
	       broken_stamp(g, saved, offset);
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

static int prove_record(struct log *g, struct dev *dev, const struct saved *r,
			unsigned char *now, bool *unreadable,
			struct undo_proof *proof)
{
	uint64_t usable = usable_of(g), length, lbs = g->block_bytes;
	int err;

	if (r->offset >= usable)
		return 0;
	length = usable - r->offset < r->length ? usable - r->offset :
						  r->length;
	length -= length % lbs;
	err = read_file(g, g->buf, (size_t)r->length, r->data_at);
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
static bool names_salt(const struct log *g, uint64_t salt)
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
static int know_patterns(struct log *g)
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
		err = add_hashes(&g->pattern_hashes, &g->pattern_count,
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

static bool in_damage(const struct log *g, uint64_t offset)
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
static struct undo_progress progress_now(const struct log *g)
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
static bool run_wrote(const struct log *g, const unsigned char *now,
		      bool unreadable, const unsigned char *saved,
		      uint64_t offset)
{
	uint64_t named;

	if (unreadable)
		return true;
	if (saved)
		return memcmp(now, saved, g->block_bytes) != 0;
	return run_stamp(g, now, offset, &named) || pattern_block(g, now);
}

/* Read the blocks tail t names, and its saved ones as far as they go. */
static int look_at_tail(struct log *g, struct dev *dev, const struct tail *t,
			struct look *l)
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
			err = read_file(g, g->buf, (size_t)kept,
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
static int take_tail(struct log *g, const struct tail *t)
{
	int err = data_intact(g, t->data_at, &t->h);

	if (err == 0) {			/* changed since it was read */
		snprintf(g->why, g->why_size, "its last record changed while "
			 "it was read");
		err = -EIO;
	}
	if (err == 1)
		err = keep_block_hashes(g, g->buf, t->length);
	return err ? err : add_saved(g, &t->h, t->data_at);
}

/*
 * The device judges a tail: a record none of whose blocks the run wrote
 * never took effect (skipped); else one whose data is whole is put back,
 * and one whose data is not is listed.  A tail whose range is lost is
 * listed, unless the file says where its run stood (the lost check
 * reads there).
 */
static int judge_tail(struct log *g, struct dev *dev, const struct tail *t,
		      struct look *l)
{
	struct undo_damage d = { .file_offset = (uint64_t)t->at,
				 .file_bytes = t->file_bytes,
				 .cause = t->cause };
	int err;

	if (!t->range_known)
		return g->has_progress ? 0 : add_damage(g, &d, true);
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
	return add_damage(g, &d, true);
}

/* Is the block at offset in a record to put back, or listed already? */
static bool accounted(const struct log *g, uint64_t offset)
{
	for (size_t i = 0; i < g->count; i++)
		if (offset >= g->saved[i].offset &&
		    offset - g->saved[i].offset < g->saved[i].length)
			return true;
	return in_damage(g, offset);
}

/*
 * The run's stamps in [from, to) that no record explains: a record that
 * saved them is lost, whole.  Listed as one range not put back.
 */
static int look_for_lost(struct log *g, struct dev *dev, uint64_t from,
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
			    run_stamp(g, l->now + b, at + b, &named))
				note(l, at + b);
	}
	if (err || !l->found)
		return err;
	return add_damage(g, &(struct undo_damage){ .offset = l->first,
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
static uint64_t lost_range(const struct log *g, uint64_t *from)
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
	if (to - *from > MAX_RECORD_BYTES)
		to = *from + MAX_RECORD_BYTES;
	return to / g->block_bytes * g->block_bytes;
}

/* The tails, then the lost check: what only the device can tell. */
static int judge_end(struct log *g, struct dev *dev)
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
	err = l.now && l.unreadable ? buffer_for(g, JUDGE_BYTES) : -ENOMEM;
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

static int prove(struct log *g, struct dev *dev, struct undo_proof *proof)
{
	uint64_t top = largest(g);
	unsigned char *now = dev_alloc_buffer(top, DEV_PATTERN_ZEROS);
	bool *unreadable = calloc((size_t)(top / g->block_bytes),
				  sizeof(*unreadable));
	int err = now && unreadable ? buffer_for(g, top) : -ENOMEM;

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

int undo_check_file(int fd, struct dev *dev,
		    struct undo_proof *proof, char *why, size_t size)
{
	struct log g;
	int err = open_log(&g, fd, dev, true, why, size);

	*proof = (struct undo_proof){ .version = g.version };
	if (!err)
		err = judge_end(&g, dev);
	if (!err) {
		proof->identity_differs = g.fingerprint !=
					  undo_fingerprint(dev);
		proof->usable_bytes = usable_of(&g);
		err = prove(&g, dev, proof);
	}
	if (err == -ENOMEM)
		snprintf(why, size, "out of memory");
	close_log(&g);
	return err;
}

/* ---- where a chunked run stands ---- */

int undo_read_progress(int fd, const struct dev *dev,
		       struct undo_progress *progress, char *why,
		       size_t size)
{
	struct log g;
	int err = open_log(&g, fd, dev, false, why, size);

	if (!err && !g.has_progress) {
		snprintf(why, size, "it holds no progress of a --surface "
			 "--keep-data run");
		err = -ENOENT;
	}
	if (!err)
		*progress = progress_now(&g);
	if (err == -ENOMEM)
		snprintf(why, size, "out of memory");
	close_log(&g);
	return err;
}

/* ---- restoring ---- */

static int put_back(struct log *g, struct dev *dev, const struct saved *s,
		    unsigned char *buf, struct undo_result *result)
{
	uint64_t ns;
	int err = read_file(g, buf, (size_t)s->length, s->data_at);

	if (err)
		return err;
	err = dev_write(dev, buf, s->offset, s->length, &ns);
	if (!err)
		result->bytes_restored += s->length;
	return err;
}

/* The records by offset, for "which saved the block at offset first". */
struct by_offset {
	uint64_t offset;
	size_t index;
};

static int compare_by_offset(const void *a, const void *b)
{
	const struct by_offset *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

struct order {
	struct by_offset *sorted;
	size_t count;
	uint64_t longest;
};

/* The oldest intact record that saved the block at offset, or NONE. */
static size_t oldest_save(const struct log *g, const struct order *o,
			  uint64_t offset)
{
	size_t lo = 0, hi = o->count, best = NONE;

	while (lo < hi) {		/* the first record past offset */
		size_t mid = lo + (hi - lo) / 2;

		if (o->sorted[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && o->sorted[lo].offset + o->longest > offset) {
		const struct saved *s = &g->saved[o->sorted[lo].index];

		if (offset < s->offset + s->length &&
		    o->sorted[lo].index < best)
			best = o->sorted[lo].index;
	}
	return best;
}

/*
 * What the storage under the block at offset held before the run: the
 * block record i saved, unless that is a stamp of the run - another
 * offset's write had landed there (a wrapping card) - when it is what
 * the stamp's own offset held when first saved, and so on back.  Each
 * step goes to an older record; 1 with it in block, 0 when the trail
 * ends before data (nothing to compare with), or -errno.
 */
static int storage_before(const struct log *g, const struct order *o,
			  size_t i, uint64_t offset, unsigned char *block)
{
	uint64_t named;
	int err = saved_block(g, &g->saved[i], offset, block);

	while (!err && g->version > 1 && run_stamp(g, block, offset, &named)) {
		size_t j = oldest_save(g, o, named);

		if (j == NONE || j >= i)
			return 0;
		i = j;
		offset = named;
		err = saved_block(g, &g->saved[i], offset, block);
	}
	return err ? err : 1;
}

static void count_block(struct undo_result *result, uint64_t offset,
			bool same)
{
	result->blocks_checked++;
	if (!same && result->blocks_differing++ == 0)
		result->first_differing = offset;
}

/* Compare the blocks record i was first to save with what they held. */
static int check_back(const struct log *g, const struct order *o, size_t i,
		      struct dev *dev, uint64_t verify_below,
		      unsigned char *now, unsigned char *before,
		      struct undo_result *result)
{
	const struct saved *s = &g->saved[i];
	uint32_t lbs = g->block_bytes;
	uint64_t ns, length = s->length;
	bool unreadable = false;
	int err = 0;

	if (s->offset < verify_below && verify_below - s->offset < length)
		length = verify_below - s->offset;
	if (s->offset < verify_below)
		err = dev_read(dev, now, s->offset, length, &ns);
	if (err == -EIO) {		/* counted as not put back */
		unreadable = true;
		err = 0;
	}
	for (uint64_t at = 0; err >= 0 && at < s->length; at += lbs) {
		uint64_t offset = s->offset + at;

		if (oldest_save(g, o, offset) != i)
			continue;
		if (offset >= verify_below || in_damage(g, offset)) {
			result->blocks_unchecked++;
			continue;
		}
		err = unreadable ? 1 : storage_before(g, o, i, offset, before);
		if (err == 0)
			result->blocks_unchecked++;
		if (err > 0)
			count_block(result, offset, !unreadable &&
				    memcmp(before, now + at, lbs) == 0);
	}
	return err < 0 ? err : 0;
}

static int make_order(const struct log *g, struct order *o)
{
	*o = (struct order){ .count = g->count };
	o->sorted = malloc((g->count ? g->count : 1) * sizeof(*o->sorted));
	if (!o->sorted)
		return -ENOMEM;
	for (size_t i = 0; i < g->count; i++) {
		o->sorted[i] = (struct by_offset){ g->saved[i].offset, i };
		if (g->saved[i].length > o->longest)
			o->longest = g->saved[i].length;
	}
	qsort(o->sorted, o->count, sizeof(*o->sorted), compare_by_offset);
	return 0;
}

static int restore_records(struct log *g, struct dev *dev,
			   uint64_t verify_below, struct undo_result *result)
{
	uint64_t top = largest(g);
	unsigned char *buf = dev_alloc_buffer(top, DEV_PATTERN_ZEROS);
	unsigned char *before = malloc(g->block_bytes);
	struct order o = { 0 };
	int err = buf && before ? make_order(g, &o) : -ENOMEM;

	for (size_t i = g->count; !err && i-- > 0; )
		err = put_back(g, dev, &g->saved[i], buf, result);
	result->records = g->count;
	for (size_t i = 0; !err && i < g->count; i++)
		err = check_back(g, &o, i, dev, verify_below, buf, before,
				 result);
	free(o.sorted);
	free(buf);
	free(before);
	return err;
}

void undo_result_free(struct undo_result *result)
{
	free(result->damaged);
	result->damaged = NULL;
	result->damaged_count = 0;
}

int undo_restore(int fd, struct dev *dev, uint64_t verify_below,
		 struct undo_result *result, char *why, size_t size)
{
	struct log g;
	int err = open_log(&g, fd, dev, false, why, size);

	*result = (struct undo_result){ .version = g.version };
	if (!err)
		err = judge_end(&g, dev);
	if (!err) {
		if (verify_below == UNDO_VERIFY_MARKED)
			verify_below = usable_of(&g);
		result->verified_below = verify_below;
		err = restore_records(&g, dev, verify_below, result);
		/* the damage goes to the caller to list */
		result->damaged = g.damaged;
		result->damaged_count = g.damaged_count;
		g.damaged = NULL;
	}
	if (err == -ENOMEM)
		snprintf(why, size, "out of memory");
	close_log(&g);
	return err;
}
