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
 *
 * This header holds the types the undo room shares; its functions are
 * declared beside their files: write.h (the writer), proof.h (the
 * device's proof, and where a chunked run stands), restore.h (putting
 * back), trust.h (where a file may live, who wrote it) and keep.h.
 */
#ifndef FLASHBENCH_UNDO_H
#define FLASHBENCH_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


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

#endif
