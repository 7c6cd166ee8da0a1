/*
 * undo/proof: the device proves an undo file its own, by its content,
 * before anything is written; the file's end, cut short or damaged, is
 * judged by what the device holds; and where a chunked run stands.
 */
#ifndef FLASHBENCH_UNDO_PROOF_H
#define FLASHBENCH_UNDO_PROOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"
#include "measure/undo/scan.h"
#include "measure/undo/undo.h"

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

/*
 * The newest progress of the file open on fd, advanced past the chunks
 * marked done after it, with the salts its header names: 0, -ENOENT when
 * it holds none (a capacity check's file), or another -errno with why
 * set.
 */
int undo_read_progress(int fd, const struct dev *dev,
		       struct undo_progress *progress, char *why,
		       size_t size);

/*
 * The file's end judged by the device (undo_check_file says how): the
 * records it ends inside taken or listed, the lost stamps found.  0 or
 * -errno.
 */
int undo_log_judge_end(struct undo_log *g, struct dev *dev);

/*
 * undo_log_open, then the file's end judged by the device: what every
 * reader that writes or proves starts with.  0 or -errno, why set.
 */
int undo_log_open_judged(struct undo_log *g, int fd, struct dev *dev,
			 bool want_block_hashes, char *why, size_t size);

/* Does offset lie in a range listed as not put back? */
bool undo_log_in_damage(const struct undo_log *g, uint64_t offset);

#endif
