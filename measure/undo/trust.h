/*
 * undo/trust: where undo files may live, who may have written one, and
 * which device one belongs to; --power-cut's log lives by the same
 * rules (noun names the file in the reasons: "undo file", "log").  The default undo directory (the user's
 * own), the refusal of an undo file anyone else could have written or
 * that is not a new regular file, the refusal of one on the device under
 * test, and a fingerprint of the device's identity for the undo file's
 * header, from what survives a replug.
 */
#ifndef FLASHBENCH_UNDOTRUST_H
#define FLASHBENCH_UNDOTRUST_H

#include <stddef.h>
#include <stdint.h>

#include "dev.h"

/* The directory a path names a file in: "dir", "/" or ".". */
void undo_directory_of(const char *path, char *dir, size_t size);

/*
 * The default undo file for a device, NAME.undo in the user's undo
 * directory: /var/lib/flashbench/undo for root (euid 0), else
 * ${XDG_STATE_HOME:-$HOME/.local/state}/flashbench/undo.  The directory
 * is made 0700 when missing (its parents as mkdir -p would: 0755 under
 * /var/lib, 0700 under the user's state directory).  Returns 0, or a
 * negative errno with why set ("DIR: reason") when it cannot be made or
 * is not the user's alone: a symbolic link, owned by another, or
 * writable by its group or others.
 */
int undo_default_path(const char *device, char *buf, size_t size,
		      char *why, size_t why_size);

/*
 * Before a check creates the undo file at path: 0 when nothing is there
 * and its directory is trusted (see undo_open_trusted); -EEXIST when a
 * regular file is (a crashed run's blocks, perhaps); -EPERM with why
 * set for anything else there (a directory, a device, a FIFO, a
 * symbolic link) or an untrusted directory; another negative errno,
 * with why set, when the path cannot be looked up.  Nothing is opened.
 */
int undo_check_new(const char *path, const char *noun, char *why,
		   size_t size);

/*
 * Open an existing undo file for reading, only when no one but the
 * effective user could have written it: a regular file, not a symbolic
 * link, owned by the effective user and writable by neither its group
 * nor others, in a directory owned by the effective user or root that
 * others cannot write to (or only with the sticky bit set).  The checks
 * are made on the open descriptor, so what is checked is what is read.
 * Returns the descriptor, -EPERM with why set when the file is refused,
 * or another negative errno, with why set, when it cannot be opened.
 */
int undo_open_trusted(const char *path, const char *noun, char *why,
		      size_t size);

/*
 * The name of the file a chunked run writes beside the undo file at path
 * before it takes path's place (path and ".new").  0 or -ENAMETOOLONG.
 */
int undo_staged_name(const char *path, char *buf, size_t size);

/*
 * May the file at staged (undo_staged_name's) be removed before a run
 * stages its own there, or after a restore?  0 when nothing is there,
 * or when what is there is what a killed run left: a file that only
 * the effective user could have written (undo_open_trusted's rules),
 * empty or beginning with magic (8 bytes), so its removal loses
 * nothing (never needed: it was never in place).  Else -EEXIST with
 * why set: a file of the user's own, never to be removed unasked.
 */
int undo_check_stale(const char *staged, const char *magic, char *why,
		     size_t size);

/*
 * Refuse an undo file whose file system lives on the device under test
 * or one of its partitions.  Returns 0, or -EXDEV with why set; other
 * negative errnos when the file's directory is missing or not writable.
 */
int undo_check_location(const char *path, const char *noun,
			const char *device, char *why, size_t size);

/*
 * A fingerprint of the device's identity, the same when the device comes
 * back under another name: the card's CID and serial, the disk's WWID or
 * its USB serial, a loop device's backing file (device and inode), a
 * partition's disk and start; for an image file its device and inode,
 * for a simulated card its spec.  Never the node's name or sysfs path.
 */
uint64_t undo_fingerprint(const struct dev *dev);

#endif
