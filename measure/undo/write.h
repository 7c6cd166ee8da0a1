/*
 * undo/write: the writer.  Creates the file, appends each block's old
 * contents before it is overwritten, fsyncs, marks the usable size, the
 * ranges done and where a chunked run stands, and replaces a file whose
 * chunks are all done (format.h: the layout).
 */
#ifndef FLASHBENCH_UNDO_WRITE_H
#define FLASHBENCH_UNDO_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"
#include "measure/undo/undo.h"

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
	/* the file the last undo_commit replaced, kept open (named as
	   staged files are) for the next undo_stage to write over: its
	   blocks and pages are there already */
	bool spare;
	int spare_fd;
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

/*
 * -EUCLEAN, with its offset in u->foreign_at, when a block of data (read
 * from [offset, offset + length)) is a whole stamp of a salt u refuses
 * (undo_refuse_stamps); else 0.  undo_save checks so before it appends.
 */
int undo_refuse_check(struct undo *u, uint64_t offset, const void *data,
		      uint64_t length);

/* fsync the file before the blocks just saved are overwritten. */
int undo_sync(struct undo *u);

/*
 * Append, fsync'd, the usable size the check found: a later --restore
 * reads and compares blocks below it only (past a fake card's real
 * capacity nothing is stored).  0 or -errno, with u->failed set.
 */
int undo_mark_usable(struct undo *u, uint64_t usable_bytes);

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
 * A chunked run's next file, made while the chunk before it is tested.
 * undo_stage writes a file beside u's (its path and ".new": u's spare,
 * written over, or a new one) with u's header fields and salts,
 * progress (where the run stands as it is staged), and the old contents
 * of [offset, offset + length) from data (none when length is 0), and
 * fsyncs it; it touches nothing but next, u's spare and that file, so a
 * second thread may run it while the caller works on the device (not
 * with u).  undo_commit, once the chunk before is back, puts it in
 * place of u's file (swapped with it, which becomes the spare, or
 * renamed over it), fsyncs the directory and makes u the new file: a
 * crash leaves the old file or the new one whole in place, and the new
 * chunk is not to be written before it is.  undo_unstage removes a
 * staged file that is not to be put in place; undo_drop_spare the
 * spare.  0 or -errno, next->failed (undo_stage) or u->failed
 * (undo_commit) set; a failed stage is to be unstaged.
 */
int undo_stage(struct undo *next, struct undo *u,
	       const struct undo_progress *progress, uint64_t offset,
	       const void *data, uint64_t length);
int undo_commit(struct undo *u, struct undo *next);
void undo_unstage(struct undo *next);
void undo_drop_spare(struct undo *u);

/*
 * Remove what a run killed while it staged a file left beside the undo
 * file at path (never in place, so never needed), once path is done.
 */
void undo_remove_staged(const char *path);

/* Close u's file, and its spare. */
void undo_close(struct undo *u);

/*
 * A file that lives beside a run by the undo file's rules (--passes'
 * state file) put at path whole: written beside it (path.new, 0600,
 * new), fsync'd, renamed over it and its directory fsync'd, so a crash
 * leaves the old file or the new one.  A path.new a killed write left
 * (undo_check_stale, data's first 8 bytes its magic) is written over;
 * anything else there stays, and the create fails (-EEXIST).  0 or
 * -errno, *failed naming the operation ("create", "write", "fsync",
 * "rename").
 */
int undo_write_whole(const char *path, const void *data, size_t length,
		     const char **failed);

#endif
