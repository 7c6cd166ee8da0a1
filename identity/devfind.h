/*
 * devfind: which block device has a given identity now.  A card pulled
 * and put back, or a reader whose power was cut, may come back under
 * another node name (sdb becomes sdc); what stays is devname.h's
 * identity (CID, serial, WWID, backing file) and, for a partition, its
 * number on that disk.  Read from sysfs; nothing here opens a device.
 */
#ifndef FLASHBENCH_DEVFIND_H
#define FLASHBENCH_DEVFIND_H

#include <stdbool.h>
#include <stddef.h>

#include "identity/devname.h"

/* What a device is known by across a replug. */
struct devfind_key {
	bool has_identity;		/* false: nothing names it (sim:) */
	char identity[DEVNAME_BYTES];	/* devname's "cid:...", "file:..." */
	unsigned partition;		/* its number on the disk; 0: a disk */
};

/*
 * The key of the device at path (a node, an image file or a sim: spec);
 * sysfs_root NULL means "/sys".  A node that is gone or unknown to sysfs
 * has no identity.  Never fails.
 */
void devfind_key_of(const char *path, const char *sysfs_root,
		    struct devfind_key *key);

/*
 * The key as one string, what a log records: the identity, and for a
 * partition ",partition=N" after it ("cid:0353...,partition=3"); "" for
 * a device nothing identifies.
 */
const char *devfind_key_text(const struct devfind_key *key, char *buf,
			     size_t size);

/* The key devfind_key_text wrote as text, read back. */
void devfind_key_parse(const char *text, struct devfind_key *key);

/* Whether two keys name the same device (both must have an identity). */
bool devfind_same(const struct devfind_key *a, const struct devfind_key *b);

/*
 * The node (/dev/NAME) of a block device whose key is key, in node:
 * first path itself when it has that key (a block device or an image
 * file), else the first block device sysfs lists.  0, or -ENOENT when none has it now.
 */
int devfind_node(const struct devfind_key *key, const char *path,
		 const char *sysfs_root, char *node, size_t size);

#endif
