/*
 * passesstate: --passes' state file - the run (the device's identity and
 * size, the range, the seed, its ends), every pass done with its figures
 * and new bad ranges, the blocks bad so far, and the pass in progress
 * (how many windows of its order are stamped, and their write times).
 * Text, a line an item, ending in a checksum of all before it; written
 * whole beside the old one and renamed over it (undo/write.h), so a
 * crash leaves one or the other.  Who may have written one, and where
 * it may live, are the undo file's rules (undo/trust.h): checked by the
 * caller, which opens it.
 */
#ifndef FLASHBENCH_PASSESSTATE_H
#define FLASHBENCH_PASSESSTATE_H

#include <stddef.h>

#include "measure/passes.h"

/* The largest state file read back. */
#define PASSES_STATE_MAX_BYTES (256u << 20)

/* run written to path; 0 or -errno, *failed naming the operation. */
int passes_state_write(const char *path, const struct passes_run *run,
		       const char **failed);

/*
 * The run in the state file open on fd (read to its end), into run
 * (passes_run_free it).  0; -EBADMSG, why saying so, when it is no state
 * file or is damaged (its checksum, a line, a figure out of place);
 * -ENOMEM; or -EIO with why.
 */
int passes_state_read(int fd, struct passes_run *run, char *why,
		      size_t size);

#endif
