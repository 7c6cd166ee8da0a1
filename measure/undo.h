/*
 * undo: the file that makes a destructive check safe.  Before a block is
 * overwritten its old contents are appended here (and the file fsync'd),
 * so the blocks can be put back at the end, on a signal, or after a
 * crash with `flashbench --restore=FILE DEVICE`.  The header names the
 * device (its size, logical block size and a fingerprint of its
 * identity) and the salts of the run's stamps, so a restore can prove
 * the device by its content: every block it recorded holds what it
 * saved or what the run wrote there.  Damage in the file costs only the
 * records it hits: every intact record around it is still put back.
 */
#ifndef FLASHBENCH_UNDO_H
#define FLASHBENCH_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"

/* The most stamp salts a file names: one per round of a check. */
#define UNDO_MAX_SALTS 24

/*
 * A salt no stamp carries: a file naming it belongs to a run that writes
 * the test patterns (dev_fill_pattern's, each from its buffer's start,
 * at most UNDO_PATTERN_BYTES in one write), so a restore's proof takes a
 * block holding one as the run's.
 */
#define UNDO_PATTERN_SALT 0x5041545445524e53ULL	/* "PATTERNS" */
#define UNDO_PATTERN_BYTES (16ULL << 20)

struct undo {
	int fd;
	const char *path;
	uint64_t device_bytes;
	uint32_t block_bytes;
	uint64_t fingerprint;
	uint64_t file_salt;		/* in every record's checksum */
	uint64_t records;
	uint64_t bytes_saved;
	bool unsynced;			/* records since the last fsync */
	uint64_t salts[UNDO_MAX_SALTS];	/* the header's, for a rewrite */
	unsigned salt_count;
	const char *failed;		/* the file's operation that failed
					   ("create", "write", "fsync"), or
					   NULL: for the message */
	int failed_errno;
	/* --resume: the stopped run's salts; a block holding one of their
	   stamps is not the card's data, and is never saved as such */
	uint64_t foreign_salts[UNDO_MAX_SALTS];
	unsigned foreign_count;
	uint64_t foreign_at;		/* where undo_save found one */
};

/*
 * Create the file (never over an existing one: it may hold the only copy
 * of a crashed run's blocks) and write its header, naming the salts the
 * run's stamps will carry (at most UNDO_MAX_SALTS).  0 or -errno, with
 * u->failed set.
 */
int undo_create(struct undo *u, const char *path, const struct dev *dev,
		const uint64_t *stamp_salts, unsigned salt_count);

/*
 * Read [offset, offset + length) from dev into buf (aligned for direct
 * I/O, at least length bytes) and append it.  0, or a negative errno
 * (dev->error is set when the read failed, u->failed when the file did);
 * -EUCLEAN, nothing appended, when a block holds a stamp of one of
 * u->foreign_salts (its offset in u->foreign_at).
 */
int undo_save(struct undo *u, struct dev *dev, uint64_t offset,
	      uint64_t length, void *buf);

/* fsync the file before the blocks just saved are overwritten. */
int undo_sync(struct undo *u);

/*
 * Append, fsync'd, the usable size the check found: a later --restore
 * reads and compares blocks below it only (past a fake card's real
 * capacity nothing is stored).  0 or -errno, with u->failed set.
 */
int undo_mark_usable(struct undo *u, uint64_t usable_bytes);

/*
 * Where a run that checks a range chunk by chunk (--surface
 * --keep-data) stands: its range, the next chunk, its sizes, and what it
 * found so far, for --resume; and, read back, the salts its stamps carry
 * (from the file's header: not written with the progress).
 */
struct undo_progress {
	uint64_t start, end, next;
	uint64_t window_bytes, chunk_bytes;
	uint64_t bad_blocks, first_bad, good_end;
	uint64_t salts[UNDO_MAX_SALTS];
	unsigned salt_count;
};

/*
 * Refuse to save the stamps of the run whose salts these are (a stopped
 * run that --resume goes on with) as a card's data: undo_save fails
 * with -EUCLEAN instead.  Kept across undo_replace.
 */
void undo_refuse_stamps(struct undo *u, const uint64_t *salts,
			unsigned count);

/*
 * Append that [offset, offset + length), saved by an earlier record,
 * holds its old contents again, read back: a restore leaves it alone.
 * Not fsync'd: lost, it costs a restore one needless write.
 */
int undo_mark_done(struct undo *u, uint64_t offset, uint64_t length);

/*
 * Put a file that holds only the header (u's salts, or those given for
 * a file not yet open) and progress in place of path: written beside it,
 * fsync'd and renamed over it, so a crash leaves the old file or the new
 * one whole.  It is how a chunked run keeps its file bounded, once every
 * chunk it saved is done.  u then appends to the new file.  0 or -errno,
 * u->failed set.
 */
int undo_replace(struct undo *u, const char *path, const struct dev *dev,
		 const uint64_t *stamp_salts, unsigned salt_count,
		 const struct undo_progress *progress);

/*
 * The newest progress of the file open on fd, advanced past the chunks
 * marked done after it, with the salts its header names: 0, -ENOENT when
 * it holds none (a capacity check's file), or another -errno with why
 * set.
 */
int undo_read_progress(int fd, const struct dev *dev,
		       struct undo_progress *progress, char *why,
		       size_t size);

void undo_close(struct undo *u);

/* Why a range was not put back. */
enum undo_cause {
	UNDO_DAMAGED,		/* its record in the file is damaged */
	UNDO_CUT,		/* the file ends inside its record, and the
				   device shows the run wrote there */
	UNDO_LOST,		/* the device holds the run's stamps where
				   the file holds no record */
};

/* A range a restore could not put back, and why. */
struct undo_damage {
	uint64_t offset, length;	/* on the device, when known */
	bool range_known;		/* else only the file's bytes are */
	uint64_t file_offset, file_bytes;	/* the damaged bytes (a cut
						   record's: to the end) */
	enum undo_cause cause;
};

/* What a restore did. */
struct undo_result {
	unsigned version;		/* of the file's format: 1 or 2 */
	uint64_t records;		/* intact records put back */
	uint64_t bytes_restored;
	uint64_t blocks_checked;	/* read back after the restore */
	uint64_t blocks_differing;	/* of those, not as saved */
	uint64_t first_differing;	/* offset of the first one */
	uint64_t blocks_unchecked;	/* at or past verify_below, or in a
					   damaged range */
	uint64_t verified_below;	/* the bound the read-back used */
	struct undo_damage *damaged;	/* malloc'd: undo_result_free */
	size_t damaged_count;
};

void undo_result_free(struct undo_result *result);

/* What --restore learnt of a file and a device before writing. */
struct undo_proof {
	unsigned version;		/* 1 or 2 */
	bool identity_differs;		/* the fingerprint is another's */
	bool proven;			/* every block below usable_bytes
					   holds what the file explains */
	uint64_t usable_bytes;		/* the file's mark, or the device */
	uint64_t blocks_read;
	uint64_t first_unexplained;	/* when not proven */
};

/*
 * Does the undo file open on fd (read from it, never by name again: what
 * was checked is what is used) belong to dev?  Its header must be whole
 * (-EBADMSG when damaged) and name dev's size and logical block size
 * (else -ENODEV, or -EINVAL for a file that is no undo file).  Then the
 * device proves itself by its content, read only below the file's usable
 * size: each recorded block holds its saved data, a stamp of the file's
 * run (at its own offset or another's), a block saved elsewhere in the
 * file (a restore cut short), or is unreadable or a broken stamp now and
 * held no data of its own when saved.  0 with proof filled in
 * (proof->proven says whether), or a negative errno: why is set for a
 * failure of the file, dev->error for one of the device.
 *
 * The device also judges what the file cannot: a record the file ends
 * inside is checked against the blocks it names.  Where none holds the
 * run's writes (a stamp, a test pattern, or anything but the saved
 * bytes the cut left) it never took effect and is skipped; else it is
 * put back when its data is whole and its checksum holds, and listed as
 * not put back (UNDO_CUT) when not.  A cut head whose range is lost
 * costs the blocks a --surface --keep-data file says its run stood at,
 * else it is listed as damage of an unknown range.  The chunk such a
 * file stands at, and the start of the device for a file that holds no
 * saved block, are read for the run's stamps that no record explains
 * (UNDO_LOST).  A file that holds no saved block and no such stamp has
 * nothing to put back.
 */
int undo_check_file(int fd, struct dev *dev,
		    struct undo_proof *proof, char *why, size_t size);

/* verify_below for undo_restore: the file's usable mark, else the device. */
#define UNDO_VERIFY_MARKED UINT64_MAX

/*
 * Put every intact saved block of the undo file open on fd back, newest
 * first (so a block saved
 * twice ends as its oldest intact copy had it, even when two offsets
 * share storage), then read each back and compare it with what its
 * storage held before the run, below verify_below only (past a fake
 * card's real capacity nothing can be stored; or UNDO_VERIFY_MARKED).
 * Damaged records are skipped and listed in result->damaged, but for
 * those a later done mark covers (their blocks hold their old contents
 * again); the file's end is judged by the device as undo_check_file
 * does.  -ENODEV with why set when the file's size or block size differ
 * from dev's, -EINVAL when it is not an undo file, -EBADMSG when its
 * header is damaged; why is set for a failure of the file, dev->error
 * for one of the device.  The device must allow writes over the whole
 * device.
 */
int undo_restore(int fd, struct dev *dev, uint64_t verify_below,
		 struct undo_result *result, char *why, size_t size);

#endif
