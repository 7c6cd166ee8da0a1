/*
 * dev: what every backend shares - choosing the backend, range and
 * alignment checks, the announced write range, accounting and error
 * context.  Backends (blockdev.c, sim.c) only move data and time it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <time.h>

#include "dev.h"

#define SIM_PREFIX "sim:"

int dev_open(struct dev *dev, const char *path, enum dev_mode mode)
{
	const char *spec = path;
	int err;

	memset(dev, 0, sizeof(*dev));
	dev->fd = -1;
	dev->path = path;
	dev->mode = mode;
	dev->ops = &dev_blockdev_ops;
	if (strncmp(path, SIM_PREFIX, strlen(SIM_PREFIX)) == 0) {
		dev->ops = &dev_sim_ops;
		spec = path + strlen(SIM_PREFIX);
	}
	err = dev->ops->open(dev, spec, mode);
	if (err) {
		dev->error.operation = "open";
		dev->error.errnum = -err;
		return err;
	}
	if (dev->logical_block_bytes == 0)
		dev->logical_block_bytes = 512;
	return 0;
}

void dev_close(struct dev *dev)
{
	if (dev->ops && dev->ops->close)
		dev->ops->close(dev);
	dev->ops = NULL;
}

void dev_allow_writes(struct dev *dev, uint64_t start, uint64_t end)
{
	dev->write_start = start;
	dev->write_end = end;
}

static int fail(struct dev *dev, const char *operation, uint64_t offset,
		uint64_t length, int err)
{
	dev->error.operation = operation;
	dev->error.offset = offset;
	dev->error.length = length;
	dev->error.errnum = -err;
	if (err != -ENODATA)	/* a backend's short transfer keeps its count */
		dev->error.transferred = 0;
	dev->error.message[0] = '\0';
	return err;
}

/* An operation the device layer itself refuses, before any I/O. */
static int refuse(struct dev *dev, const char *operation, uint64_t offset,
		  uint64_t length, int err)
{
	static const char *const reasons[] = {
		[EINVAL] = "not a multiple of the logical block size",
		[ENOSPC] = "past the end of the device",
		[EPERM] = "outside the announced write range",
		[EBADF] = "device opened read-only",
	};

	fail(dev, operation, offset, length, err);
	snprintf(dev->error.message, sizeof(dev->error.message),
		 "%s at %llu (+%llu): %s (refused)", operation,
		 (unsigned long long)offset, (unsigned long long)length,
		 reasons[-err]);
	return err;
}

int dev_check_range(const struct dev *dev, uint64_t offset, uint64_t length)
{
	uint64_t block = dev->logical_block_bytes;

	if (length == 0 || offset % block || length % block)
		return -EINVAL;
	if (offset > dev->size_bytes || length > dev->size_bytes - offset)
		return -ENOSPC;
	return 0;
}

static int check_write(struct dev *dev, const char *operation,
		       uint64_t offset, uint64_t length)
{
	int err;

	if (dev->mode != DEV_READ_WRITE)
		return refuse(dev, operation, offset, length, -EBADF);
	err = dev_check_range(dev, offset, length);
	if (err)
		return refuse(dev, operation, offset, length, err);
	if (offset < dev->write_start || offset + length > dev->write_end)
		return refuse(dev, operation, offset, length, -EPERM);
	return 0;
}

/* A failed operation is an error with its context; it is never a time. */
static int account(struct dev *dev, const char *operation, uint64_t offset,
		   uint64_t length, int err, uint64_t ns)
{
	if (err)
		return fail(dev, operation, offset, length, err);
	dev->stats.time_ns += ns;
	dev->stats.operations++;
	return 0;
}

int dev_read(struct dev *dev, void *buf, uint64_t offset, uint64_t length,
	     uint64_t *ns)
{
	int err = dev_check_range(dev, offset, length);

	if (err)
		return refuse(dev, "read", offset, length, err);
	err = dev->ops->read(dev, buf, offset, length, ns);
	if (!err)
		dev->stats.bytes_read += length;
	return account(dev, "read", offset, length, err, err ? 0 : *ns);
}

int dev_write(struct dev *dev, const void *buf, uint64_t offset,
	      uint64_t length, uint64_t *ns)
{
	int err = check_write(dev, "write", offset, length);

	if (err)
		return err;
	err = dev->ops->write(dev, buf, offset, length, ns);
	if (!err)
		dev->stats.bytes_written += length;
	return account(dev, "write", offset, length, err, err ? 0 : *ns);
}

int dev_discard(struct dev *dev, uint64_t offset, uint64_t length,
		uint64_t *ns)
{
	int err = check_write(dev, "discard", offset, length);

	if (err)
		return err;
	err = dev->ops->discard(dev, offset, length, ns);
	if (!err)
		dev->stats.bytes_discarded += length;
	return account(dev, "discard", offset, length, err, err ? 0 : *ns);
}

int dev_erase(struct dev *dev, enum dev_erase_kind kind, uint64_t offset,
	      uint64_t length, uint64_t *ns)
{
	static const char *const names[] = {
		[DEV_ERASE_DISCARD] = "discard",
		[DEV_ERASE_SECURE] = "secure discard",
		[DEV_ERASE_ZERO] = "zero-out",
	};
	uint64_t range[2] = { offset, length }, start;
	unsigned long request = kind == DEV_ERASE_SECURE ? BLKSECDISCARD :
				BLKZEROOUT;
	int err;

	if (kind == DEV_ERASE_DISCARD || dev->fd < 0)
		return dev_discard(dev, offset, length, ns);
	err = check_write(dev, names[kind], offset, length);
	if (err)
		return err;
	start = dev_now_ns();
	err = ioctl(dev->fd, request, range) ? -errno : 0;
	*ns = dev_now_ns() - start;
	if (!err)
		dev->stats.bytes_discarded += length;
	return account(dev, names[kind], offset, length, err, err ? 0 : *ns);
}

/* splitmix64: fills pattern buffers; quality matters less than speed */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void dev_fill_pattern(void *buf, size_t length, enum dev_pattern pattern)
{
	uint64_t state = 0x666c617368ULL;	/* fixed: runs are repeatable */
	unsigned char *bytes = buf;

	switch (pattern) {
	case DEV_PATTERN_ZEROS:
		memset(buf, 0x00, length);
		break;
	case DEV_PATTERN_ONES:
		memset(buf, 0xff, length);
		break;
	default:
		for (size_t i = 0; i < length; i += sizeof(uint64_t)) {
			uint64_t word = next_random(&state);
			size_t n = length - i < sizeof(word) ?
				   length - i : sizeof(word);

			memcpy(bytes + i, &word, n);
		}
		break;
	}
}

void *dev_alloc_buffer(uint64_t length, enum dev_pattern pattern)
{
	void *buf = NULL;

	/* on 32-bit targets a transfer length may not fit a size_t: a
	   narrowed one would make a buffer shorter than its transfers */
	if (length > SIZE_MAX)
		return NULL;
	/* 4096 satisfies every logical block size and DMA alignment */
	if (posix_memalign(&buf, 4096, length ? (size_t)length : 4096))
		return NULL;
	dev_fill_pattern(buf, (size_t)length, pattern);
	return buf;
}

uint64_t dev_now_ns(void)
{
	struct timespec now;

	/* RAW: not slewed by NTP, so intervals are the hardware's */
	if (clock_gettime(CLOCK_MONOTONIC_RAW, &now))
		clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

const char *dev_strerror(const struct dev *dev, char *buf, size_t size)
{
	const struct dev_error *e = &dev->error;

	if (e->message[0])
		snprintf(buf, size, "%s", e->message);
	else if (e->errnum == ENODATA)
		snprintf(buf, size, "%s at %llu (+%llu): short transfer "
			 "(%llu of %llu bytes)", e->operation,
			 (unsigned long long)e->offset,
			 (unsigned long long)e->length,
			 (unsigned long long)e->transferred,
			 (unsigned long long)e->length);
	else
		snprintf(buf, size, "%s at %llu (+%llu): %s", e->operation,
			 (unsigned long long)e->offset,
			 (unsigned long long)e->length, strerror(e->errnum));
	return buf;
}
