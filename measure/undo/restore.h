/*
 * undo/restore: every intact saved block put back, newest first, then
 * read back and compared with what its storage held before the run.
 */
#ifndef FLASHBENCH_UNDO_RESTORE_H
#define FLASHBENCH_UNDO_RESTORE_H

#include <stddef.h>
#include <stdint.h>

#include "dev.h"
#include "measure/undo/undo.h"

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

void undo_result_free(struct undo_result *result);

#endif
