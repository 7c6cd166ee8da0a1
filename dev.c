/*
 * dev: what every backend shares - choosing the backend, range and
 * alignment checks, the announced write range, accounting and error
 * context.  Backends (engines/blockdev.c, engines/sim/) only move data
 * and time it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

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
	dev->depth = 1;
	dev->ops = &dev_blockdev_ops;
	if (strncmp(path, SIM_PREFIX, strlen(SIM_PREFIX)) == 0) {
		dev->ops = &dev_sim_ops;
		spec = path + strlen(SIM_PREFIX);
	}
	dev->caps = dev->ops->caps;
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

bool dev_has(const struct dev *dev, unsigned caps)
{
	return (dev->caps & caps) == caps;
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
	dev->error.names_device = false;
	dev->error.what_at = 0;
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

/* A write is done: its bytes and time counted, or its failure kept. */
static int written(struct dev *dev, uint64_t offset, uint64_t length,
		   int err, const uint64_t *ns)
{
	if (!err)
		dev->stats.bytes_written += length;
	return account(dev, "write", offset, length, err, err ? 0 : *ns);
}

int dev_write(struct dev *dev, const void *buf, uint64_t offset,
	      uint64_t length, uint64_t *ns)
{
	int err = check_write(dev, "write", offset, length);

	if (err)
		return err;
	err = dev->ops->write(dev, buf, offset, length, ns);
	return written(dev, offset, length, err, ns);
}

int dev_stamp(struct dev *dev, uint64_t offset, uint64_t length,
	      uint64_t salt, uint64_t *ns)
{
	int err;

	if (!dev->ops->stamp)
		return -EOPNOTSUPP;
	err = check_write(dev, "write", offset, length);
	if (err)
		return err;
	err = dev->ops->stamp(dev, offset, length, salt, ns);
	return err == -EOPNOTSUPP ? err : written(dev, offset, length, err, ns);
}

bool dev_verify_stamps(struct dev *dev, uint64_t offset, uint64_t length,
		       uint64_t salt, uint64_t *ns)
{
	if (!dev->ops->verify_stamps || dev_check_range(dev, offset, length) ||
	    dev->ops->verify_stamps(dev, offset, length, salt, ns) != 1)
		return false;
	dev->stats.bytes_read += length;
	account(dev, "read", offset, length, 0, *ns);
	return true;
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

int dev_flush(struct dev *dev)
{
	uint64_t ns = 0;
	int err;

	if (dev->mode != DEV_READ_WRITE)
		return 0;
	if (dev->ops->flush) {
		err = dev->ops->flush(dev, &ns);
		if (err)
			return fail(dev, "flush", 0, 0, err);
		dev->stats.time_ns += ns;
		return 0;
	}
	if (dev->fd < 0)
		return 0;
	if (fsync(dev->fd) == 0)
		return 0;
	fail(dev, "flush", 0, 0, -errno);
	snprintf(dev->error.message, sizeof(dev->error.message),
		 "flush (fsync): %s", strerror(dev->error.errnum));
	return -dev->error.errnum;
}

int dev_power_cut(struct dev *dev, uint64_t after_ns)
{
	if (!dev->ops->power_cut)
		return -EOPNOTSUPP;
	return dev->ops->power_cut(dev, after_ns);
}

int dev_power_on(struct dev *dev)
{
	if (!dev->ops->power_on)
		return -EOPNOTSUPP;
	return dev->ops->power_on(dev);
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

	/* a hole in an image reads back as zeros: its zero-out too */
	if (kind == DEV_ERASE_DISCARD || dev->fd < 0 ||
	    (kind == DEV_ERASE_ZERO && dev->regular_file))
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
	else if (!e->operation)		/* no operation failed */
		snprintf(buf, size, "%s", e->errnum ? strerror(e->errnum) :
			 "no device error recorded");
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

/* ---- queue depth above 1 ---------------------------------------------- */

static const char *const engine_names[] = {
	[DEV_ENGINE_PSYNC] = "psync", [DEV_ENGINE_IO_URING] = "io_uring",
	[DEV_ENGINE_AIO] = "aio", [DEV_ENGINE_SIM] = "sim",
};
_Static_assert(sizeof(engine_names) / sizeof(engine_names[0]) ==
	       DEV_ENGINE_COUNT, "one name per engine");

const char *dev_engine_name(enum dev_engine engine)
{
	return engine < DEV_ENGINE_COUNT ? engine_names[engine] : "?";
}

/* FLASHBENCH_ENGINE: unset or empty is any engine (DEV_ENGINE_COUNT). */
static int forced_engine(struct dev *dev, enum dev_engine *forced)
{
	const char *want = getenv("FLASHBENCH_ENGINE");

	*forced = DEV_ENGINE_COUNT;
	if (!want || !*want)
		return 0;
	for (int i = DEV_ENGINE_PSYNC; i < DEV_ENGINE_SIM; i++)
		if (strcmp(want, engine_names[i]) == 0) {
			*forced = (enum dev_engine)i;
			return 0;
		}
	dev->error.usage = true;
	snprintf(dev->error.message, sizeof(dev->error.message),
		 "FLASHBENCH_ENGINE: '%.40s' is not an engine; use io_uring, "
		 "aio or psync", want);
	return -EINVAL;
}

int dev_async_setup(struct dev *dev, unsigned depth)
{
	/* a model's queue is its own: the host's engines do not apply */
	bool model = dev_has(dev, DEV_CAP_MODEL_TIME);
	enum dev_engine forced;
	int err;

	dev->depth = 1;
	dev->engine = model ? DEV_ENGINE_SIM : DEV_ENGINE_PSYNC;
	dev->engine_note[0] = '\0';
	/* depth 1 is the synchronous path whatever the environment says */
	if (depth <= 1)
		return 0;
	err = forced_engine(dev, &forced);
	if (err)
		return err;
	if (depth > DEV_MAX_DEPTH)
		depth = DEV_MAX_DEPTH;
	if (depth > 1 && forced == DEV_ENGINE_PSYNC && !model)
		snprintf(dev->engine_note, sizeof(dev->engine_note),
			 "FLASHBENCH_ENGINE=psync: running at queue depth 1");
	if (!dev->ops->async_setup ||
	    (forced == DEV_ENGINE_PSYNC && !model))
		return 0;
	err = dev->ops->async_setup(dev, depth, forced);
	if (err)
		dev->error.operation = "setup";
	return err;
}

void dev_async_buffers(struct dev *dev, void *const *bufs,
		       const uint64_t *lengths, unsigned count)
{
	if (dev->depth > 1 && dev->ops->async_buffers)
		dev->ops->async_buffers(dev, bufs, lengths, count);
}

static const char *batch_op_name(enum dev_io_kind kind)
{
	return kind == DEV_IO_WRITE ? "write" : "read";
}

/* Every operation checked before the first is submitted. */
static int check_batch(struct dev *dev, const struct dev_batch *b)
{
	const char *name = batch_op_name(b->kind);

	for (unsigned i = 0; i < b->count; i++) {
		const struct dev_io *io = &b->ios[i];
		int err = b->kind == DEV_IO_WRITE ?
			  check_write(dev, name, io->offset, io->length) :
			  dev_check_range(dev, io->offset, io->length);

		if (err && b->kind != DEV_IO_WRITE)
			refuse(dev, name, io->offset, io->length, err);
		if (err)
			return err;
	}
	return 0;
}

/* Depth 1 without an engine: the synchronous path, one after another. */
static int batch_in_turn(struct dev *dev, struct dev_batch *b)
{
	for (unsigned i = 0; i < b->count; i++) {
		struct dev_io *io = &b->ios[i];
		int err;

		if (i && (b->elapsed_ns >= b->budget_ns ||
			  (b->stop && *b->stop)))
			break;
		err = b->kind == DEV_IO_WRITE ?
		      dev->ops->write(dev, io->buf, io->offset, io->length,
				      &io->ns) :
		      dev->ops->read(dev, io->buf, io->offset, io->length,
				     &io->ns);
		b->done = i + 1;
		if (err) {
			io->ns = DEV_IO_NO_TIME;
			b->failed = i;
			return err;
		}
		b->elapsed_ns += io->ns;
	}
	return 0;
}

/* What a batch moved: its successful operations and its device time. */
static void account_batch(struct dev *dev, const struct dev_batch *b)
{
	uint64_t bytes = 0, ok = 0;

	for (unsigned i = 0; i < b->done; i++)
		if (b->ios[i].ns != DEV_IO_NO_TIME) {
			bytes += b->ios[i].length;
			ok++;
		}
	if (b->kind == DEV_IO_WRITE)
		dev->stats.bytes_written += bytes;
	else
		dev->stats.bytes_read += bytes;
	dev->stats.operations += ok;
	dev->stats.time_ns += b->elapsed_ns;
}

int dev_batch(struct dev *dev, struct dev_batch *b)
{
	int err = check_batch(dev, b);

	b->done = 0;
	b->elapsed_ns = 0;
	b->failed = 0;
	if (err)
		return err;
	if (b->count == 0)
		return 0;
	if (dev->depth > 1 && b->depth > 1 && dev->ops->batch) {
		struct dev_batch queued = *b;

		queued.depth = b->depth < dev->depth ? b->depth : dev->depth;
		err = dev->ops->batch(dev, &queued);
		b->done = queued.done;
		b->elapsed_ns = queued.elapsed_ns;
		b->failed = queued.failed;
	} else {
		err = batch_in_turn(dev, b);
	}
	account_batch(dev, b);
	if (err)
		fail(dev, batch_op_name(b->kind), b->ios[b->failed].offset,
		     b->ios[b->failed].length, err);
	return err;
}
