/*
 * uring: the io_uring engine.  The submission and completion rings are
 * mapped once when the engine opens; an operation is an SQE whose
 * user_data is its index in the batch.  The kernel and this process
 * share the rings' head and tail words: loads of what the kernel writes
 * acquire, stores of what it reads release (C11 atomics, so 32-bit ARM
 * gets its barriers too).
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engines/uring.h"

#define URING_MAX_BUFFERS 8	/* a read buffer and one per pattern */

struct ring_map {
	void *base;
	size_t bytes;
};

struct uring {
	struct engine engine;		/* first: engine_ops get this */
	int ring_fd;
	bool fixed_file;		/* the device is registered file 0 */
	unsigned buffer_count;		/* registered, 0: plain buffers */
	struct iovec buffers[URING_MAX_BUFFERS];
	/* submission ring */
	unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
	struct io_uring_sqe *sqes;
	unsigned sq_local_tail;		/* prepared, not yet published */
	unsigned to_submit;		/* published, not yet entered */
	/* completion ring */
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
	struct ring_map sq_map, cq_map, sqe_map;
	int fd;
	bool batch_wait;		/* the kernel bounds a batch's wait */
};

/*
 * io_uring_getevents_arg as kernels since 6.12 read it: the word older
 * headers call pad is the batch wait.  Spelled out here so that it
 * builds against either header.
 */
struct wait_arg {
	uint64_t sigmask;
	uint32_t sigmask_size;
	uint32_t min_wait_us;
	uint64_t timeout;		/* a __kernel_timespec's address, or 0 */
};

_Static_assert(sizeof(struct wait_arg) ==
	       sizeof(struct io_uring_getevents_arg),
	       "io_uring_getevents_arg changed shape");

#ifndef IORING_FEAT_MIN_TIMEOUT
#define IORING_FEAT_MIN_TIMEOUT (1U << 15)
#endif

static unsigned load_acquire(const unsigned *p)
{
	return atomic_load_explicit((_Atomic unsigned *)p,
				    memory_order_acquire);
}

static void store_release(unsigned *p, unsigned value)
{
	atomic_store_explicit((_Atomic unsigned *)p, value,
			      memory_order_release);
}

static int sys_setup(unsigned entries, struct io_uring_params *p)
{
	return (int)syscall(__NR_io_uring_setup, entries, p);
}

static int sys_enter(int fd, unsigned to_submit, unsigned min_complete,
		     unsigned flags)
{
	return (int)syscall(__NR_io_uring_enter, fd, to_submit, min_complete,
			    flags, NULL, 0);
}

/* Submit, then wait for want completions for at most the batch wait,
   and for one after it. */
static int sys_enter_batch(int fd, unsigned to_submit, unsigned want)
{
	struct wait_arg arg = { .min_wait_us = ENGINE_BATCH_WAIT_US };

	return (int)syscall(__NR_io_uring_enter, fd, to_submit, want,
			    IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
			    &arg, sizeof(arg));
}

static int sys_register(int fd, unsigned opcode, const void *arg,
			unsigned count)
{
	return (int)syscall(__NR_io_uring_register, fd, opcode, arg, count);
}

/*
 * The newest setup flags first: one submitter and completions run when
 * it waits (fewer interrupts of the task), then cooperative task work,
 * then none, for older kernels that refuse flags they do not know.
 */
static int setup_ring(unsigned entries, struct io_uring_params *p)
{
	static const unsigned flag_sets[] = {
#if defined(IORING_SETUP_SINGLE_ISSUER) && defined(IORING_SETUP_DEFER_TASKRUN)
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
#endif
#ifdef IORING_SETUP_COOP_TASKRUN
		IORING_SETUP_COOP_TASKRUN,
#endif
		0,
	};
	int fd = -1;

	for (size_t i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
		memset(p, 0, sizeof(*p));
		p->flags = flag_sets[i];
		fd = sys_setup(entries, p);
		if (fd >= 0 || errno != EINVAL)
			break;
	}
	return fd;
}

static int map_ring(struct ring_map *m, int fd, size_t bytes, off_t where)
{
	m->bytes = bytes;
	m->base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, where);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		return -errno;
	}
	return 0;
}

static void *at(const struct ring_map *m, unsigned offset)
{
	return (char *)m->base + offset;
}

static int map_rings(struct uring *u, const struct io_uring_params *p)
{
	size_t sq_bytes = p->sq_off.array + p->sq_entries * sizeof(unsigned);
	size_t cq_bytes = p->cq_off.cqes +
			  p->cq_entries * sizeof(struct io_uring_cqe);
	bool single = p->features & IORING_FEAT_SINGLE_MMAP;
	int err;

	if (single && cq_bytes > sq_bytes)
		sq_bytes = cq_bytes;
	err = map_ring(&u->sq_map, u->ring_fd, sq_bytes, IORING_OFF_SQ_RING);
	if (!err && !single)
		err = map_ring(&u->cq_map, u->ring_fd, cq_bytes,
			       IORING_OFF_CQ_RING);
	if (!err)
		err = map_ring(&u->sqe_map, u->ring_fd,
			       p->sq_entries * sizeof(struct io_uring_sqe),
			       IORING_OFF_SQES);
	if (err)
		return err;
	const struct ring_map *cq = single ? &u->sq_map : &u->cq_map;

	u->sq_head = at(&u->sq_map, p->sq_off.head);
	u->sq_tail = at(&u->sq_map, p->sq_off.tail);
	u->sq_mask = at(&u->sq_map, p->sq_off.ring_mask);
	u->sq_array = at(&u->sq_map, p->sq_off.array);
	u->sqes = u->sqe_map.base;
	u->cq_head = at(cq, p->cq_off.head);
	u->cq_tail = at(cq, p->cq_off.tail);
	u->cq_mask = at(cq, p->cq_off.ring_mask);
	u->cqes = at(cq, p->cq_off.cqes);
	u->sq_local_tail = *u->sq_tail;
	return 0;
}

/* The buffer index an operation's buffer lies in, or -1. */
static int fixed_index(const struct uring *u, const struct dev_io *io)
{
	for (unsigned i = 0; i < u->buffer_count; i++) {
		const char *base = u->buffers[i].iov_base;
		const char *buf = io->buf;

		if (buf >= base && io->length <= u->buffers[i].iov_len &&
		    (size_t)(buf - base) <= u->buffers[i].iov_len - io->length)
			return (int)i;
	}
	return -1;
}

static void uring_prep(struct engine *e, enum dev_io_kind kind,
		       const struct dev_io *io, unsigned index)
{
	struct uring *u = (struct uring *)e;
	unsigned slot = u->sq_local_tail & *u->sq_mask;
	struct io_uring_sqe *sqe = &u->sqes[slot];
	int fixed = fixed_index(u, io);
	bool write = kind == DEV_IO_WRITE;

	memset(sqe, 0, sizeof(*sqe));
	if (fixed >= 0) {
		sqe->opcode = write ? IORING_OP_WRITE_FIXED :
				      IORING_OP_READ_FIXED;
		sqe->buf_index = (unsigned short)fixed;
	} else {
		sqe->opcode = write ? IORING_OP_WRITE : IORING_OP_READ;
	}
	sqe->fd = u->fixed_file ? 0 : u->fd;
	if (u->fixed_file)
		sqe->flags = IOSQE_FIXED_FILE;
	sqe->off = io->offset;
	sqe->addr = (uint64_t)(uintptr_t)io->buf;
	sqe->len = (uint32_t)io->length;
	sqe->user_data = index;
	u->sq_array[slot] = slot;
	u->sq_local_tail++;
}

/* Publishing is a store; the system call waits for the next complete. */
static int uring_submit(struct engine *e)
{
	struct uring *u = (struct uring *)e;

	u->to_submit += u->sq_local_tail - *u->sq_tail;
	store_release(u->sq_tail, u->sq_local_tail);
	return 0;
}

static unsigned reap(struct uring *u, struct engine_done *done,
		     unsigned max)
{
	unsigned head = *u->cq_head, tail = load_acquire(u->cq_tail), n = 0;

	while (head != tail && n < max) {
		const struct io_uring_cqe *cqe = &u->cqes[head & *u->cq_mask];

		done[n].index = (unsigned)cqe->user_data;
		done[n].result = cqe->res;
		n++;
		head++;
	}
	store_release(u->cq_head, head);
	return n;
}

/* One system call submits what was published and waits for the batch. */
static int uring_complete(struct engine *e, struct engine_done *done,
			  unsigned max, unsigned want)
{
	struct uring *u = (struct uring *)e;

	if (!u->batch_wait)
		want = 1;
	for (;;) {
		unsigned n = reap(u, done, max);
		int rc;

		if (n && !u->to_submit)
			return (int)n;
		if (!n && want > 1)
			rc = sys_enter_batch(u->ring_fd, u->to_submit, want);
		else
			rc = sys_enter(u->ring_fd, u->to_submit, n ? 0 : 1,
				       IORING_ENTER_GETEVENTS);
		if (rc < 0 && errno != EINTR && errno != EAGAIN &&
		    errno != EBUSY && errno != ETIME)
			return -errno;
		if (rc > 0)
			u->to_submit -= (unsigned)rc;
		if (n)
			return (int)n;
	}
}

static void uring_buffers(struct engine *e, void *const *bufs,
			  const uint64_t *lengths, unsigned count)
{
	struct uring *u = (struct uring *)e;
	unsigned n = 0;

	if (u->buffer_count)
		sys_register(u->ring_fd, IORING_UNREGISTER_BUFFERS, NULL, 0);
	u->buffer_count = 0;
	for (unsigned i = 0; i < count && n < URING_MAX_BUFFERS; i++)
		if (bufs[i] && lengths[i])
			u->buffers[n++] = (struct iovec){ bufs[i],
							  (size_t)lengths[i] };
	/* refused past the memory-lock limit: plain buffers then */
	if (n && sys_register(u->ring_fd, IORING_REGISTER_BUFFERS,
			      u->buffers, n) == 0)
		u->buffer_count = n;
}

static void uring_close(struct engine *e)
{
	struct uring *u = (struct uring *)e;

	/*
	 * A ring holds a registered file until the kernel's exit work,
	 * which runs after close() returns: the device would stay open
	 * (an O_EXCL claim held) for a while after dev_close.  Unregistered
	 * here, the file is let go before this returns.
	 */
	if (u->fixed_file)
		sys_register(u->ring_fd, IORING_UNREGISTER_FILES, NULL, 0);
	if (u->sqe_map.base)
		munmap(u->sqe_map.base, u->sqe_map.bytes);
	if (u->cq_map.base)
		munmap(u->cq_map.base, u->cq_map.bytes);
	if (u->sq_map.base)
		munmap(u->sq_map.base, u->sq_map.bytes);
	if (u->ring_fd >= 0)
		close(u->ring_fd);
	free(u);
}

static const struct engine_ops uring_ops = {
	.id = DEV_ENGINE_IO_URING,
	.prep = uring_prep,
	.submit = uring_submit,
	.complete = uring_complete,
	.buffers = uring_buffers,
	.close = uring_close,
};

static unsigned ring_entries(unsigned depth)
{
	unsigned entries = 1;

	while (entries < depth)
		entries *= 2;
	return entries;
}

static struct engine *open_failed(struct uring *u, int err, int *errp,
				  const char *what, char *why, size_t size)
{
	snprintf(why, size, "io_uring: %s: %s", what, strerror(-err));
	*errp = err;
	uring_close(&u->engine);
	return NULL;
}

struct engine *uring_open(int fd, unsigned depth, int *err, char *why,
			  size_t why_size)
{
	struct io_uring_params params;
	struct uring *u = calloc(1, sizeof(*u));
	int rc;

	if (!u) {
		*err = -ENOMEM;
		snprintf(why, why_size, "io_uring: out of memory");
		return NULL;
	}
	u->engine.ops = &uring_ops;
	u->fd = fd;
	u->ring_fd = setup_ring(ring_entries(depth), &params);
	if (u->ring_fd < 0)
		return open_failed(u, -errno, err, "setup", why, why_size);
	u->batch_wait = params.features & IORING_FEAT_MIN_TIMEOUT;
	rc = map_rings(u, &params);
	if (rc)
		return open_failed(u, rc, err, "mapping the rings", why,
				   why_size);
	/* a registered file saves a lookup per operation; optional */
	u->fixed_file = sys_register(u->ring_fd, IORING_REGISTER_FILES,
				     &fd, 1) == 0;
	return &u->engine;
}
