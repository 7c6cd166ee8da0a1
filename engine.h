/*
 * engine: what blockdev.c's queue loop needs from an asynchronous engine
 * (io_uring in uring.c, Linux AIO in aio.c): queue an operation, submit
 * the queued ones, wait for completions.  The loop itself - keeping the
 * depth, timing each operation, the budget - is blockdev.c's, so both
 * engines are timed the same way.
 */
#ifndef FLASHBENCH_ENGINE_H
#define FLASHBENCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "dev.h"

/* A completed operation: its index in the batch and bytes or -errno. */
struct engine_done {
	unsigned index;
	int64_t result;
};

struct engine;

struct engine_ops {
	enum dev_engine id;
	/* queue ios as operation index; nothing reaches the kernel yet */
	void (*prep)(struct engine *e, enum dev_io_kind kind,
		     const struct dev_io *io, unsigned index);
	/* hand the queued operations to the kernel: 0 or -errno */
	int (*submit)(struct engine *e);
	/* wait for at least one completion; returns how many (<= max) were
	   put in done, or -errno */
	int (*complete)(struct engine *e, struct engine_done *done,
			unsigned max);
	/* optional: buffers the operations will use, to register */
	void (*buffers)(struct engine *e, void *const *bufs,
			const uint64_t *lengths, unsigned count);
	void (*close)(struct engine *e);
};

struct engine {
	const struct engine_ops *ops;
};

#endif
