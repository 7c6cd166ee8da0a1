/*
 * blockdev: the backend for real block devices and regular files.
 * Direct I/O, one system call per timed operation, clock read right
 * around it.  Read-only opens never ask for write access; read-write opens
 * claim the device exclusively so a mounted one is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev.h"

/* A 32-bit off_t would wrap every offset past 2 GiB: a write test would
   write at the wrong place.  The Makefile asks for 64-bit file offsets. */
_Static_assert(sizeof(off_t) == 8,
	       "off_t must be 64 bits: build with -D_FILE_OFFSET_BITS=64");

static int open_failed(struct dev *dev, const char *path, enum dev_mode mode,
		       int err)
{
	const char *why = strerror(err);

	if (err == EBUSY && mode == DEV_READ_WRITE)
		why = "device is busy (mounted, in use or claimed); "
		      "refusing to write to it";
	else if ((err == EROFS || err == EACCES) && mode == DEV_READ_WRITE)
		why = err == EROFS ? "device is read-only; this test writes" :
				     "permission denied opening for writing";
	snprintf(dev->error.message, sizeof(dev->error.message), "%s: %s",
		 path, why);
	return -err;
}

static int read_geometry(struct dev *dev, const char *path)
{
	struct stat st;
	int block = 512;

	if (fstat(dev->fd, &st))
		return open_failed(dev, path, dev->mode, errno);
	if (S_ISBLK(st.st_mode)) {
		uint64_t size = 0;
		int read_only = 0;

		if (ioctl(dev->fd, BLKGETSIZE64, &size) ||
		    ioctl(dev->fd, BLKSSZGET, &block))
			return open_failed(dev, path, dev->mode, errno);
		/* the kernel lets a read-only device open for writing and
		   fails each write: refuse before anything is announced */
		if (dev->mode == DEV_READ_WRITE &&
		    ioctl(dev->fd, BLKROGET, &read_only) == 0 && read_only)
			return open_failed(dev, path, dev->mode, EROFS);
		dev->size_bytes = size;
	} else if (S_ISREG(st.st_mode)) {
		dev->size_bytes = (uint64_t)st.st_size;
	} else {
		return open_failed(dev, path, dev->mode, ENOTBLK);
	}
	dev->logical_block_bytes = block > 0 ? (uint32_t)block : 512;
	return 0;
}

static int blockdev_open(struct dev *dev, const char *path,
			 enum dev_mode mode)
{
	int flags = mode == DEV_READ_WRITE ? O_RDWR | O_EXCL : O_RDONLY;
	int err;

	dev->fd = open(path, flags | O_DIRECT | O_CLOEXEC);
	/* files on tmpfs refuse O_DIRECT; plain devices never do */
	if (dev->fd < 0 && errno == EINVAL)
		dev->fd = open(path, flags | O_CLOEXEC);
	if (dev->fd < 0)
		return open_failed(dev, path, mode, errno);
	err = read_geometry(dev, path);
	if (err) {
		close(dev->fd);
		dev->fd = -1;
	}
	return err;
}

/* Result of one transfer: a short one is an error, never a measurement. */
static int transfer_result(struct dev *dev, ssize_t done, uint64_t length)
{
	if (done < 0)
		return -errno;
	if ((uint64_t)done != length) {
		dev->error.transferred = (uint64_t)done;
		return -ENODATA;
	}
	return 0;
}

/*
 * pread and pwrite take a signed off_t and a size_t: refuse what would not
 * reach them unchanged, rather than let a conversion move the transfer.
 * dev_check_range has already bounded both by the device's size.
 */
static int syscall_range(uint64_t offset, uint64_t length)
{
	if (offset > INT64_MAX || length > SSIZE_MAX ||
	    length > INT64_MAX - offset)
		return -EOVERFLOW;
	return 0;
}

/* One pread into read_buf, or a pwrite of write_buf when it is set; the
   system call alone is timed. */
static int transfer(struct dev *dev, void *read_buf, const void *write_buf,
		    uint64_t offset, uint64_t length, uint64_t *ns)
{
	int err = syscall_range(offset, length);
	uint64_t start;
	ssize_t done;

	if (err)
		return err;
	start = dev_now_ns();
	done = write_buf ?
	       pwrite(dev->fd, write_buf, (size_t)length, (off_t)offset) :
	       pread(dev->fd, read_buf, (size_t)length, (off_t)offset);
	*ns = dev_now_ns() - start;
	return transfer_result(dev, done, length);
}

static int blockdev_read(struct dev *dev, void *buf, uint64_t offset,
			 uint64_t length, uint64_t *ns)
{
	return transfer(dev, buf, NULL, offset, length, ns);
}

static int blockdev_write(struct dev *dev, const void *buf, uint64_t offset,
			  uint64_t length, uint64_t *ns)
{
	return transfer(dev, NULL, buf, offset, length, ns);
}

static int blockdev_discard(struct dev *dev, uint64_t offset,
			    uint64_t length, uint64_t *ns)
{
	uint64_t range[2] = { offset, length };
	uint64_t start = dev_now_ns();
	int rc = ioctl(dev->fd, BLKDISCARD, range);

	*ns = dev_now_ns() - start;
	return rc ? -errno : 0;
}

static void blockdev_close(struct dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

const struct dev_ops dev_blockdev_ops = {
	.name = "blockdev",
	.open = blockdev_open,
	.read = blockdev_read,
	.write = blockdev_write,
	.discard = blockdev_discard,
	.close = blockdev_close,
};
