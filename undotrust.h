/*
 * undotrust: where undo files may live and which device one belongs to.
 * The default undo path, the refusal of an undo file on the device under
 * test, and a fingerprint of the device's identity for the undo file's
 * header.
 */
#ifndef FLASHBENCH_UNDOTRUST_H
#define FLASHBENCH_UNDOTRUST_H

#include <stddef.h>
#include <stdint.h>

#include "dev.h"

/* The directory a path names a file in: "dir", "/" or ".". */
void undo_directory_of(const char *path, char *dir, size_t size);

/* The default undo file for a device: /var/tmp/flashbench-NAME.undo. */
void undo_default_path(const char *device, char *buf, size_t size);

/*
 * Refuse an undo file whose file system lives on the device under test
 * or one of its partitions.  Returns 0, or -EXDEV with why set; other
 * negative errnos when the file's directory is missing or not writable.
 */
int undo_check_location(const char *path, const char *device, char *why,
			size_t size);

/* A fingerprint of the device's identity (sysfs, or the file itself). */
uint64_t undo_fingerprint(const struct dev *dev);

#endif
