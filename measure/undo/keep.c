/*
 * keep: save an announced range to an undo file before a test writes,
 * and put it back when the test ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"
#include "measure/undo/keep.h"
#include "measure/undo/restore.h"
#include "measure/undo/write.h"

/* What the undo file's failure was, in why. */
static int file_failed(const struct keep *k, const struct undo *u, int err,
		       char *why, size_t size)
{
	snprintf(why, size, "the undo file %s: %s: %s", k->undo_path,
		 u->failed ? u->failed : "write", strerror(-err));
	return err;
}

static int device_failed(const struct keep *k, const struct dev *dev,
			 int err, char *why, size_t size)
{
	char what[256];

	snprintf(why, size, "%s: saving what a test overwrites: %s",
		 k->device, dev_strerror(dev, what, sizeof(what)));
	return err;
}

/* Every chunk of [start, end) appended; stops early on a signal. */
static int save_range(struct keep *k, struct undo *u, struct dev *dev,
		      void *buf, char *why, size_t size)
{
	for (uint64_t at = k->start; at < k->end; at += KEEP_CHUNK_BYTES) {
		uint64_t length = k->end - at < KEEP_CHUNK_BYTES ?
				  k->end - at : KEEP_CHUNK_BYTES;
		int err;

		if (k->stop && *k->stop)
			return -EINTR;
		err = undo_save(u, dev, at, length, buf);
		if (err && u->failed)
			return file_failed(k, u, err, why, size);
		if (err)
			return device_failed(k, dev, err, why, size);
	}
	return 0;
}

int keep_save(struct keep *k, uint64_t start, uint64_t end, char *why,
	      size_t size)
{
	const uint64_t salts[] = { UNDO_PATTERN_SALT };
	struct undo u = { .fd = -1 };
	struct dev dev;
	bool created = false;
	void *buf;
	int err;

	why[0] = '\0';
	k->start = start;
	k->end = end;
	k->saved = false;
	err = dev_open(&dev, k->device, DEV_READ_ONLY);
	if (err)
		return device_failed(k, &dev, err, why, size);
	buf = dev_alloc_buffer(KEEP_CHUNK_BYTES, DEV_PATTERN_ZEROS);
	err = buf ? undo_create(&u, k->undo_path, &dev, salts, 1) : -ENOMEM;
	if (err && buf)
		file_failed(k, &u, err, why, size);
	created = !err;
	if (!err)
		err = save_range(k, &u, &dev, buf, why, size);
	/* on the medium before the first overwrite */
	if (!err && undo_sync(&u))
		err = file_failed(k, &u, -EIO, why, size);
	undo_close(&u);
	dev_close(&dev);
	free(buf);
	if (err == -ENOMEM && !why[0])
		snprintf(why, size, "out of memory");
	if (err && created)	/* nothing overwritten yet: nothing to keep */
		unlink(k->undo_path);
	if (err)
		return err;
	k->saved = true;
	if (end - start > k->most_bytes)
		k->most_bytes = end - start;
	return 0;
}

/* The restore proper, on the test's read-write open. */
static int restore_range(struct keep *k, struct dev *dev, int fd,
			 struct undo_result *result, char *why, size_t size)
{
	int err;

	dev_allow_writes(dev, 0, dev->size_bytes);
	err = undo_restore(fd, dev, UNDO_VERIFY_MARKED, result, why, size);
	/* on the medium before the file that could undo it is forgotten */
	if (!err)
		err = dev_flush(dev);
	if (err && !why[0])
		device_failed(k, dev, err, why, size);
	return err;
}

int keep_put_back(struct keep *k, struct dev *dev, struct undo_result *result,
		  char *why, size_t size)
{
	int fd, err;

	why[0] = '\0';
	*result = (struct undo_result){ 0 };
	if (!k->saved)
		return 0;
	fd = open(k->undo_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, size, "the undo file %s: %s", k->undo_path,
			 strerror(errno));
		return err;
	}
	err = restore_range(k, dev, fd, result, why, size);
	close(fd);
	if (err)
		return err;
	k->saved = result->blocks_differing || result->damaged_count;
	if (!k->saved)
		unlink(k->undo_path);
	return 0;
}
