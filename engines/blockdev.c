/*
 * blockdev: the backend for real block devices and regular files.
 * Direct I/O, one system call per timed operation, clock read right
 * around it; at queue depth above 1, an engine (io_uring, else Linux
 * AIO) driven by one loop that times every operation the same way.
 * Read-only opens never ask for write access; read-write opens claim the
 * device exclusively so a mounted one is refused.
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

#include "engines/linuxaio.h"
#include "dev.h"
#include "engines/uring.h"

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
	dev->error.names_device = true;
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
		dev->regular_file = true;
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
	/* an image's discard frees its blocks, as a loop device's does */
	int rc = dev->regular_file ?
		 fallocate(dev->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			   (off_t)offset, (off_t)length) :
		 ioctl(dev->fd, BLKDISCARD, range);

	*ns = dev_now_ns() - start;
	return rc ? -errno : 0;
}

/* ---- queue depth above 1 ---------------------------------------------- */

struct engine_choice {
	enum dev_engine id;
	struct engine *(*open)(int fd, unsigned depth, int *err, char *why,
			       size_t why_size);
};

/* In order of preference (dev->prefer_aio: from the end). */
static const struct engine_choice engines[] = {
	{ DEV_ENGINE_IO_URING, uring_open },
	{ DEV_ENGINE_AIO, aio_open },
};
#define ENGINE_COUNT (sizeof(engines) / sizeof(engines[0]))

/* The note for stderr: what failed, and what runs instead. */
static void note_fallback(struct dev *dev, const char *why, bool last)
{
	size_t used = strlen(dev->engine_note);

	snprintf(dev->engine_note + used, sizeof(dev->engine_note) - used,
		 "%s%s", used ? "; " : "", why);
	if (last) {
		used = strlen(dev->engine_note);
		snprintf(dev->engine_note + used,
			 sizeof(dev->engine_note) - used,
			 ": running at queue depth 1");
	}
}

static int blockdev_async_setup(struct dev *dev, unsigned depth,
				enum dev_engine forced)
{
	char why[96];
	int err = 0;

	for (size_t n = 0; n < ENGINE_COUNT; n++) {
		/* prefer_aio: the table from its end */
		size_t i = dev->prefer_aio ? ENGINE_COUNT - 1 - n : n;
		struct engine *e;

		if (forced != DEV_ENGINE_COUNT && forced != engines[i].id)
			continue;
		e = engines[i].open(dev->fd, depth, &err, why, sizeof(why));
		if (e) {
			dev->async = e;
			dev->engine = engines[i].id;
			dev->depth = depth;
			return 0;
		}
		if (forced != DEV_ENGINE_COUNT) {
			snprintf(dev->error.message,
				 sizeof(dev->error.message), "%s: %s (forced "
				 "by FLASHBENCH_ENGINE)", dev->path, why);
			return err;
		}
		note_fallback(dev, why, n + 1 == ENGINE_COUNT);
	}
	return 0;
}

static void blockdev_async_buffers(struct dev *dev, void *const *bufs,
				   const uint64_t *lengths, unsigned count)
{
	struct engine *e = dev->async;

	if (e && e->ops->buffers)
		e->ops->buffers(e, bufs, lengths, count);
}


static int check_engine_range(struct dev_batch *b)
{
	for (unsigned i = 0; i < b->count; i++)
		if (syscall_range(b->ios[i].offset, b->ios[i].length) ||
		    b->ios[i].length > DEV_MAX_TRANSFER_BYTES) {
			b->failed = i;
			return -EOVERFLOW;
		}
	return 0;
}

/* The queue loop's state between its rounds. */
struct queue_loop {
	struct dev *dev;
	struct engine *engine;
	struct dev_batch *b;
	unsigned submitted, inflight;
	uint64_t start_ns, last_ns;
	int err;			/* the first failure's */
	bool stopping;			/* submit nothing more */
};

/* A completion: its time since its submission, or its failure. */
static void completed(struct queue_loop *q, const struct engine_done *d)
{
	struct dev_io *io = &q->b->ios[d->index];
	int err = 0;

	if (d->result < 0)
		err = (int)d->result;
	else if ((uint64_t)d->result != io->length)
		err = -ENODATA;
	if (!err) {
		io->ns = q->last_ns - io->ns;
		return;
	}
	io->ns = DEV_IO_NO_TIME;
	q->stopping = true;
	if (!q->err || d->index < q->b->failed) {
		q->err = err;
		q->b->failed = d->index;
		q->dev->error.transferred = d->result > 0 ?
					    (uint64_t)d->result : 0;
	}
}

/* Keep the queue full: prepare, stamp and submit what fits. */
static int fill(struct queue_loop *q)
{
	struct dev_batch *b = q->b;
	unsigned first = q->submitted;
	uint64_t now;

	while (!q->stopping && q->submitted < b->count &&
	       q->inflight < b->depth) {
		q->engine->ops->prep(q->engine, b->kind,
				     &b->ios[q->submitted], q->submitted);
		q->submitted++;
		q->inflight++;
	}
	if (q->submitted == first)
		return 0;
	now = dev_now_ns();
	if (first == 0)
		q->start_ns = q->last_ns = now;
	for (unsigned i = first; i < q->submitted; i++)
		b->ios[i].ns = now;	/* until completion: when submitted */
	return q->engine->ops->submit(q->engine);
}

/*
 * Completions are taken a quarter of the queue at a time (bounded by
 * ENGINE_BATCH_WAIT_US), so the queue runs between three quarters full
 * and full; at depth 4 or less, one at a time.
 */
static unsigned batch_want(const struct queue_loop *q)
{
	unsigned want = q->b->depth / 4;

	if (want > q->inflight)
		want = q->inflight;
	return want ? want : 1;
}

/* Wait for completions and take them in. */
static int drain_some(struct queue_loop *q)
{
	struct engine_done done[DEV_MAX_DEPTH];
	int n = q->engine->ops->complete(q->engine, done, DEV_MAX_DEPTH,
					 batch_want(q));

	if (n < 0)
		return n;
	q->last_ns = dev_now_ns();
	for (int i = 0; i < n; i++)
		completed(q, &done[i]);
	q->inflight -= (unsigned)n;
	if (q->last_ns - q->start_ns >= q->b->budget_ns ||
	    (q->b->stop && *q->b->stop))
		q->stopping = true;
	return 0;
}

/*
 * An engine that fails itself (not an operation) may still hold
 * operations on the run's buffers: closing it waits for them, and the
 * device goes on at depth 1.
 */
static int engine_failed(struct queue_loop *q, int err)
{
	q->engine->ops->close(q->engine);
	q->dev->async = NULL;
	q->dev->depth = 1;
	q->b->failed = q->submitted - (q->inflight ? q->inflight : 1);
	return err;
}

static int blockdev_batch(struct dev *dev, struct dev_batch *b)
{
	struct queue_loop q = { .dev = dev, .engine = dev->async, .b = b };
	int err = check_engine_range(b);

	if (err)
		return err;
	while (q.submitted < b->count || q.inflight) {
		err = fill(&q);
		if (!err && q.inflight)
			err = drain_some(&q);
		if (err)
			return engine_failed(&q, err);
		if (q.stopping && !q.inflight)
			break;
	}
	b->done = q.submitted;
	b->elapsed_ns = q.last_ns - q.start_ns;
	return q.err;
}

static void blockdev_close(struct dev *dev)
{
	struct engine *e = dev->async;

	if (e)
		e->ops->close(e);
	dev->async = NULL;
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

const struct dev_ops dev_blockdev_ops = {
	.name = "blockdev",
	.caps = DEV_CAP_HOST_NODE | DEV_CAP_KEEPS_DATA | DEV_CAP_OUTLIVES_CLOSE,
	.open = blockdev_open,
	.read = blockdev_read,
	.write = blockdev_write,
	.discard = blockdev_discard,
	.close = blockdev_close,
	.async_setup = blockdev_async_setup,
	.async_buffers = blockdev_async_buffers,
	.batch = blockdev_batch,
};
