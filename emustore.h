/*
 * emustore: the data of the emulated card - what flashemu's reads return.
 * Sparse: in memory, in chunks allocated on first write up to a cap, or
 * in a backing file.  Never-written and punched bytes read as zeros.  It
 * knows nothing of timing; the model (sim.c) does that.
 */
#ifndef FLASHBENCH_EMUSTORE_H
#define FLASHBENCH_EMUSTORE_H

#include <stddef.h>
#include <stdint.h>

struct emustore;

/*
 * A store of size_bytes: in memory holding at most cap_bytes of data when
 * path is NULL, else in the file at path (created, grown to size_bytes;
 * what it holds is kept).  Returns 0, or a negative errno with msg set.
 */
int emustore_open(struct emustore **store, uint64_t size_bytes,
		  const char *path, uint64_t cap_bytes, char *msg,
		  size_t msg_size);
void emustore_close(struct emustore *store);

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
 * Where the data for card offset lives in the store.  Every read, write
 * and punch passes through it, one chunk at a time: the identity for an
 * honest card, and the place where a fake card (one that claims more
 * than it holds) will fold its addresses.
 */
uint64_t emustore_physical_offset(const struct emustore *store,
				  uint64_t offset);

#endif
