/*
 * engine: what blockdev.c's queue loop needs from an asynchronous engine
 * (io_uring in uring.c, Linux AIO in linuxaio.c): queue an operation, submit
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

/*
 * How long a completion may wait for others to be taken with it.  One
 * wake-up per several completions is what lets a fast device (a RAM
 * disk, NVMe) be kept busy; on a slow one (a card at a few thousand
 * operations a second) the wait ends at this bound, and an operation's
 * latency grows by at most this much.
 */
#define ENGINE_BATCH_WAIT_US 100

struct engine_ops {
	enum dev_engine id;
	/* queue ios as operation index; nothing reaches the kernel yet */
	void (*prep)(struct engine *e, enum dev_io_kind kind,
		     const struct dev_io *io, unsigned index);
	/* hand the queued operations to the kernel: 0 or -errno */
	int (*submit)(struct engine *e);
	/* wait until want (>= 1) completions are in or, once
	   ENGINE_BATCH_WAIT_US have passed, until one is; an engine that
	   cannot bound that wait waits for one.  Returns how many (<= max)
	   were put in done, or -errno */
	int (*complete)(struct engine *e, struct engine_done *done,
			unsigned max, unsigned want);
	/* optional: buffers the operations will use, to register */
	void (*buffers)(struct engine *e, void *const *bufs,
			const uint64_t *lengths, unsigned count);
	void (*close)(struct engine *e);
};

struct engine {
	const struct engine_ops *ops;
};

#endif
