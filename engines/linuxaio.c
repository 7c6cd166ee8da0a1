/*
 * linuxaio: the Linux AIO engine.  An operation is an iocb from a table made
 * when the engine opens (the completion finds the operation again by the
 * index in aio_data), so nothing is allocated while a batch runs.
 */
#include <errno.h>
#include <linux/aio_abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engines/linuxaio.h"

struct aio {
	struct engine engine;		/* first: engine_ops get this */
	aio_context_t context;
	int fd;
	unsigned depth;
	unsigned queued;		/* prepared, not yet submitted */
	struct iocb *iocbs;		/* depth of them */
	struct iocb **queue;		/* the prepared ones, in order */
	struct io_event *events;	/* depth of them */
};

static int sys_setup(unsigned depth, aio_context_t *context)
{
	return (int)syscall(__NR_io_setup, depth, context);
}

static int sys_destroy(aio_context_t context)
{
	return (int)syscall(__NR_io_destroy, context);
}

static int sys_submit(aio_context_t context, long count, struct iocb **iocbs)
{
	return (int)syscall(__NR_io_submit, context, count, iocbs);
}

static int sys_getevents(aio_context_t context, long min, long max,
			 struct io_event *events)
{
	return (int)syscall(__NR_io_getevents, context, min, max, events,
			    NULL);
}

/*
 * io_submit copies each iocb, so a slot is free again once submitted;
 * fewer than depth are prepared between two submissions.
 */
static void aio_prep(struct engine *e, enum dev_io_kind kind,
		     const struct dev_io *io, unsigned index)
{
	struct aio *a = (struct aio *)e;
	struct iocb *cb = &a->iocbs[a->queued];

	memset(cb, 0, sizeof(*cb));
	cb->aio_data = index;
	cb->aio_lio_opcode = kind == DEV_IO_WRITE ? IOCB_CMD_PWRITE :
						    IOCB_CMD_PREAD;
	cb->aio_fildes = (uint32_t)a->fd;
	cb->aio_buf = (uint64_t)(uintptr_t)io->buf;
	cb->aio_nbytes = io->length;
	cb->aio_offset = (int64_t)io->offset;
	a->queue[a->queued++] = cb;
}

static int aio_submit(struct engine *e)
{
	struct aio *a = (struct aio *)e;
	unsigned sent = 0;

	while (sent < a->queued) {
		int rc = sys_submit(a->context, (long)(a->queued - sent),
				    a->queue + sent);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			a->queued = 0;
			return rc < 0 ? -errno : -EAGAIN;
		}
		sent += (unsigned)rc;
	}
	a->queued = 0;
	return 0;
}

/*
 * One completion at a time: io_getevents can bound a wait for several
 * only with a timer per call, which costs more than the wake-ups it
 * saves (measured on a RAM disk at depth 32).
 */
static int aio_complete(struct engine *e, struct engine_done *done,
			unsigned max, unsigned want)
{
	struct aio *a = (struct aio *)e;
	int n;

	(void)want;
	if (max > a->depth)
		max = a->depth;
	do
		n = sys_getevents(a->context, 1, (long)max, a->events);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		done[i].index = (unsigned)a->events[i].data;
		done[i].result = a->events[i].res;
	}
	return n;
}

static void aio_close(struct engine *e)
{
	struct aio *a = (struct aio *)e;

	if (a->context)
		sys_destroy(a->context);
	free(a->iocbs);
	free(a->queue);
	free(a->events);
	free(a);
}

static const struct engine_ops aio_ops = {
	.id = DEV_ENGINE_AIO,
	.prep = aio_prep,
	.submit = aio_submit,
	.complete = aio_complete,
	.close = aio_close,
};

struct engine *aio_open(int fd, unsigned depth, int *err, char *why,
			size_t why_size)
{
	struct aio *a = calloc(1, sizeof(*a));

	if (a) {
		a->engine.ops = &aio_ops;
		a->iocbs = calloc(depth, sizeof(*a->iocbs));
		a->queue = calloc(depth, sizeof(*a->queue));
		a->events = calloc(depth, sizeof(*a->events));
	}
	if (!a || !a->iocbs || !a->queue || !a->events) {
		if (a)
			aio_close(&a->engine);
		*err = -ENOMEM;
		snprintf(why, why_size, "aio: out of memory");
		return NULL;
	}
	a->fd = fd;
	a->depth = depth;
	if (sys_setup(depth, &a->context) < 0) {
		*err = -errno;
		snprintf(why, why_size, "aio: io_setup: %s", strerror(errno));
		a->context = 0;
		aio_close(&a->engine);
		return NULL;
	}
	return &a->engine;
}
