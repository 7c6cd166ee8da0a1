/*
 * undo: the file that makes a destructive check safe.  Before a block is
 * overwritten its old contents are appended here (and the file fsync'd),
 * so the blocks can be put back at the end, on a signal, or after a
 * crash with `flashbench --restore=FILE DEVICE`.  The header names the
 * device (its size, logical block size and a fingerprint of its
 * identity) so a file is never applied to another device.
 */
#ifndef FLASHBENCH_UNDO_H
#define FLASHBENCH_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"

struct undo {
	int fd;
	const char *path;
	uint64_t device_bytes;
	uint32_t block_bytes;
	uint64_t fingerprint;
	uint64_t records;
	uint64_t bytes_saved;
	bool unsynced;			/* records since the last fsync */
};

/*
 * Create the file (never over an existing one: it may hold the only copy
 * of a crashed run's blocks) and write its header.  0 or -errno.
 */
int undo_create(struct undo *u, const char *path, const struct dev *dev);

/*
 * Read [offset, offset + length) from dev into buf (aligned for direct
 * I/O, at least length bytes) and append it.  0, or a negative errno
 * (dev->error is set when the read failed, errno-style when the file did).
 */
int undo_save(struct undo *u, struct dev *dev, uint64_t offset,
	      uint64_t length, void *buf);

/* fsync the file before the blocks just saved are overwritten. */
int undo_sync(struct undo *u);

void undo_close(struct undo *u);

/* What a restore did. */
struct undo_result {
	uint64_t records;
	uint64_t bytes_restored;
	uint64_t blocks_checked;	/* read back after the restore */
	uint64_t blocks_differing;	/* of those, not as saved */
	uint64_t first_differing;	/* offset of the first one */
	uint64_t blocks_unchecked;	/* at or past verify_below */
};

/*
 * Does the undo file at path belong to dev?  0, -ENODEV with why set
 * when its size or fingerprint differ, -EINVAL when it is not an undo
 * file, another negative errno when it cannot be read.
 */
int undo_check_file(const char *path, const struct dev *dev, char *why,
		    size_t size);

/*
 * Put every saved block back, newest first (so a block saved twice ends
 * as it was before the first save, even when two offsets share storage),
 * then read each back and compare it with what was saved, below
 * verify_below only (past a fake card's real capacity nothing can be
 * stored).  The file must belong to dev: -ENODEV with why set when its
 * size or fingerprint differ, -EINVAL when it is not an undo file.
 * The device must allow writes over the whole device.
 */
int undo_restore(const char *path, struct dev *dev, uint64_t verify_below,
		 struct undo_result *result, char *why, size_t size);

#endif
