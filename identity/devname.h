/*
 * devname: what the machine formats call a device - its identity, what
 * stays the same when it comes back under another node name (a card's
 * CID, a disk's serial or WWID, a loop device's or image's file), and a
 * name for people (the card's manufacturer and name, else the model,
 * else the path).  Read before a run starts, never while it measures.
 */
#ifndef FLASHBENCH_DEVNAME_H
#define FLASHBENCH_DEVNAME_H

#include <stdbool.h>
#include <stddef.h>

#include "identity/card.h"

#define DEVNAME_BYTES (INFO_PATH_BYTES + 16)	/* "file:" and a path */

struct devname {
	bool has_identity;		/* false: nothing identifies it (sim:) */
	char identity[DEVNAME_BYTES];	/* "cid:035344...", "file:/img" */
	char name[DEVNAME_BYTES];	/* "SanDisk SL16G", the model, the path */
};

/* Fill out for dev; sysfs_root NULL means "/sys".  Never fails. */
void devname_read(const struct info_device *dev, const char *sysfs_root,
		  struct devname *out);

/* The same from a card info_read_card has read already. */
void devname_from_card(const struct info_device *dev,
		       const struct info_card *card, struct devname *out);

#endif
