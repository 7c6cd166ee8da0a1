/*
 * sysattr: one attribute file of sysfs, debugfs or procfs (or of a
 * recorded copy of such a tree, which anyone may have made) read so that
 * nothing found there can hang or flood the reader: it is opened without
 * blocking, taken only when it is a regular file, and read to a bound no
 * real attribute reaches.  Every reader of those trees goes through it.
 */
#ifndef FLASHBENCH_SYSATTR_H
#define FLASHBENCH_SYSATTR_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The most an attribute holds: sysfs prints each into one page, and
 * debugfs's mmcN/ios is a few hundred bytes.  A file larger than this is
 * no attribute and is not read whole.
 */
#define SYSATTR_MAX_BYTES 4096

/* Room for any reason sysattr_read gives. */
#define SYSATTR_WHY_BYTES 64

/*
 * Read the attribute at path into buf (size bytes, at least 1;
 * NUL-terminated, what does not fit is cut).  Returns the bytes stored,
 * or a negative errno: -ENOENT or -ENOTDIR when there is no such file,
 * why then empty; for any other failure why (why_size bytes, may be
 * NULL) says why it cannot be read: "not a regular file (a FIFO)",
 * "larger than 4096 bytes, more than any attribute holds", or the
 * error's message.
 */
ssize_t sysattr_read(const char *path, char *buf, size_t size, char *why,
		     size_t why_size);

#endif
