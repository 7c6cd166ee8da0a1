/*
 * keep: the data a writing test overwrites, kept.  Before the test
 * writes, every byte of the range it announced is saved to an undo file
 * (FBUNDO02, measure/undo/format.h; fsync'd before the first overwrite);
 * when the test ends the range is put back from the file, read back and
 * compared, flushed to the medium, and only then is the file removed.
 * A run killed in between leaves the file for --restore, whose proof
 * knows the test patterns such a run writes (UNDO_PATTERN_SALT).
 */
#ifndef FLASHBENCH_KEEP_H
#define FLASHBENCH_KEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"
#include "measure/undo/undo.h"

/* bytes read and appended to the undo file at a time */
#define KEEP_CHUNK_BYTES (1ULL << 20)

struct keep {
	const char *device;		/* opened afresh to save and restore */
	const char *undo_path;
	volatile sig_atomic_t *stop;	/* a signal ends the saving early */
	uint64_t start, end;		/* the range saved: [start, end) */
	bool saved;			/* the file holds it: put it back */
	uint64_t most_bytes;		/* the largest range saved so far */
};

/*
 * Save [start, end) of k->device to a new undo file at k->undo_path,
 * through a read-only open of its own (the test's figures are not the
 * saving's).  0; -EINTR when a signal came first (nothing kept, the
 * file removed); or a negative errno with why set (the file removed
 * too: nothing was overwritten yet).
 */
int keep_save(struct keep *k, uint64_t start, uint64_t end, char *why,
	      size_t size);

/*
 * Put back what keep_save kept through dev (the test's own open, after
 * its figures are out: its writes are then allowed over the whole
 * device), check it, flush, and remove the file.
 * 0 with *result filled in (its blocks_differing and damaged_count say
 * whether every byte is as before; the file stays unless both are 0),
 * or a negative errno with why set (the file stays).  Nothing to do
 * when nothing was saved.
 */
int keep_put_back(struct keep *k, struct dev *dev, struct undo_result *result,
		  char *why, size_t size);

#endif
