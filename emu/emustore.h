/*
 * emustore: the data of the emulated card - what flashemu's reads return.
 * Sparse: in memory, in chunks allocated on first write up to a cap, or
 * in a backing file (a regular file or a block device), checked before it
 * is made.  Never-written and punched bytes read as zeros.  It knows
 * nothing of timing, nor of where a counterfeit card's offsets land: the
 * model (engines/sim/) does that, and hands such a card's real blocks to the
 * store at their physical offsets (sim_keep_data_in).
 */
#ifndef FLASHBENCH_EMUSTORE_H
#define FLASHBENCH_EMUSTORE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engines/sim.h"

struct emustore;

/* Where a file store goes: checked by emustore_check, made by open. */
struct emustore_place {
	char path[PATH_MAX];	/* resolved: no symbolic link, . or .. */
	bool exists;		/* else emustore_open creates it */
	bool block;		/* a block device: opened exclusively */
	dev_t dev;		/* the existing file, as checked */
	ino_t ino;
};

/*
 * Can path hold the data of a card of size_bytes?  A regular file, a
 * block device of at least size_bytes, or a new name in an existing
 * directory; not in a kernel file system (/proc, /sys...), not under the
 * resolved directory outside_of (NULL: anywhere), and in a directory
 * anyone can write, no name another user could have planted.  Makes
 * nothing.  0 with *place filled, or a negative errno with why saying why
 * not ("a FIFO, not a regular file or a block device").
 */
int emustore_check(const char *path, const char *outside_of,
		   uint64_t size_bytes, struct emustore_place *place,
		   char *why, size_t why_size);

/*
 * A store of size_bytes: in memory holding at most cap_bytes of data when
 * place is NULL, else in the file place names (created when new; a
 * regular file is grown to size_bytes; what it holds is kept).  Returns
 * 0, or a negative errno with msg set and nothing left that it created.
 */
int emustore_open(struct emustore **store, uint64_t size_bytes,
		  const struct emustore_place *place, uint64_t cap_bytes,
		  char *msg, size_t msg_size);
/* Write the store file through to its disk: 0, or a negative errno. */
int emustore_flush(struct emustore *store);
void emustore_close(struct emustore *store);
/* Close, and remove the store file if this open created it. */
void emustore_discard(struct emustore *store);

/*
 * Copy [offset, offset + length) in or out; the range is inside the
 * card.  0, or a negative errno: -ENOSPC when the memory cap is reached.
 */
int emustore_read(struct emustore *store, void *buf, uint64_t offset,
		  uint64_t length);
int emustore_write(struct emustore *store, const void *buf, uint64_t offset,
		   uint64_t length);
/* Make the range read as zeros again, releasing what it can. */
int emustore_punch(struct emustore *store, uint64_t offset, uint64_t length);

/* Bytes of memory (or allocated file space) the data takes now. */
uint64_t emustore_held_bytes(const struct emustore *store);

/*
 * The store as the place a counterfeit card's model puts its real blocks,
 * ctx the store: sim_keep_data_in(dev, &emustore_sim_ops, store).
 */
extern const struct sim_data_ops emustore_sim_ops;

#endif
