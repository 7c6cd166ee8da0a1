/*
 * undo/scan: an undo file read back.  Its header, its intact records,
 * the ranges marked done, where a chunked run stood, and its damage:
 * a damaged head or trailer costs only its record (the scan goes on at
 * the next one), and the records the file ends inside are kept as
 * tails for the device to judge (proof.c).  FBUNDO01 files are read up
 * to their first record that is not whole.
 */
#ifndef FLASHBENCH_UNDO_SCAN_H
#define FLASHBENCH_UNDO_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dev.h"
#include "measure/undo/undo.h"

struct undo_saved {
	uint64_t offset, length;
	off_t data_at;			/* in the file */
	uint64_t hash;
};

/* One head or trailer, decoded. */
struct undo_head {
	uint64_t kind, offset, length, hash, extent;
	uint64_t hash_kind;	/* how hash was taken: UNDO_KIND_WORDS is
				   read as UNDO_KIND_BLOCKS, its hash a
				   word-wise one */
};

/* A range marked done, after the first `after` intact records. */
struct undo_done {
	uint64_t offset, length;
	size_t after;
	off_t at;			/* where its mark lies in the file */
};

/*
 * A record the file ends inside, or the damaged last one: whether the
 * run wrote its blocks only the device can tell (undo_log_judge_end).
 */
struct undo_tail {
	off_t at;			/* its first byte in the file */
	bool range_known;		/* from its head; or hinted */
	bool hinted;			/* a cut head's fields, unchecked */
	uint64_t offset, length;	/* the blocks it names */
	off_t data_at;			/* its data, as far as the file holds
					   it (data_bytes) */
	uint64_t data_bytes;
	bool data_whole;		/* whole, and its checksum holds */
	struct undo_head h;			/* its head, when range_known */
	uint64_t file_bytes;		/* its bytes in the file */
	enum undo_cause cause;		/* if it is listed */
};

/* The file as read: its header, its intact records and its damage. */
struct undo_log {
	int fd;
	off_t file_bytes;
	unsigned version;
	uint64_t device_bytes, fingerprint, file_salt;
	uint32_t block_bytes;
	uint64_t salts[UNDO_MAX_SALTS];
	unsigned salt_count;
	uint64_t usable_bytes;		/* the mark's, or 0 */
	bool usable_marked;
	struct undo_done *done;		/* ranges back as they were */
	size_t done_count, done_cap;
	struct undo_progress progress;	/* the newest, if any */
	bool has_progress;
	struct undo_saved *saved;	/* intact records, in file order */
	size_t count, cap;
	struct undo_damage *damaged;
	size_t damaged_count, damaged_cap;
	size_t confirmed;		/* damaged[0, confirmed) are damage;
					   the rest, unless a record follows,
					   a cut-short end */
	struct undo_tail *tails;	/* the end, for the device to judge */
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

/*
 * Open the log on fd (a descriptor of its own, so the caller's stays
 * open) for dev: its header, which must name dev's size and block size,
 * then its records; with want_block_hashes, the checksum of every saved
 * block too, for the proof.  0 or a negative errno, why set.
 */
int undo_log_open(struct undo_log *g, int fd, const struct dev *dev,
		  bool want_block_hashes, char *why, size_t size);
void undo_log_close(struct undo_log *g);

/* Close the log after a reader's work ended in err: err, said in why. */
int undo_log_finish(struct undo_log *g, int err);

/* A read of the file; a failure says so in g->why. */
int undo_log_read(const struct undo_log *g, void *buf, size_t length,
		  off_t at);

/* An intact record of saved blocks, its data at data_at, listed. */
int undo_log_add_saved(struct undo_log *g, const struct undo_head *h,
		       off_t data_at);

/* A range not put back listed; confirmed: damage, not a cut end. */
int undo_log_add_damage(struct undo_log *g, const struct undo_damage *d,
			bool confirmed);

/* The hash of each block of data appended to *hashes. */
int undo_log_add_hashes(uint64_t **hashes, size_t *count, size_t *cap,
			const unsigned char *data, uint64_t length,
			uint32_t block_bytes);

/* A record's blocks' hashes kept for the proof, when it asked for them. */
int undo_log_keep_block_hashes(struct undo_log *g,
			       const unsigned char *data, uint64_t length);

/* g->buf made room for length bytes at least.  0 or -ENOMEM. */
int undo_log_buffer_for(struct undo_log *g, uint64_t length);

/* Read a record's data into g->buf: 1 when it matches hash, else 0. */
int undo_log_data_intact(struct undo_log *g, off_t data_at,
			 const struct undo_head *h);

/* The usable size the file marks, else the device's. */
uint64_t undo_log_usable(const struct undo_log *g);

/* The longest record's length, at least a block: a buffer for any. */
uint64_t undo_log_largest(const struct undo_log *g);

/* A saved block of record r, the one at offset, into block. */
int undo_log_saved_block(const struct undo_log *g,
			 const struct undo_saved *r, uint64_t offset,
			 unsigned char *block);

/*
 * Did the file's run write block (read at offset)?  A whole stamp whose
 * salt the file names; in an FBUNDO01 file, which names none, any whole
 * stamp.  *named: the offset it was written to.
 */
bool undo_log_run_stamp(const struct undo_log *g, const unsigned char *block,
			uint64_t offset, uint64_t *named);

/* A stamp whose checksum fails: what a torn write leaves. */
bool undo_log_broken_stamp(const struct undo_log *g,
			   const unsigned char *block, uint64_t offset);

#endif
