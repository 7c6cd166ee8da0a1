/*
 * uring: io_uring through its system calls and <linux/io_uring.h> alone
 * (no liburing): rings mapped once, the device's file registered, and
 * the run's buffers registered where the memory-lock limit allows.
 */
#ifndef FLASHBENCH_URING_H
#define FLASHBENCH_URING_H

#include "engines/engine.h"

/*
 * An io_uring engine on fd for up to depth operations in flight, or NULL
 * with *err a negative errno and why saying what failed.
 */
struct engine *uring_open(int fd, unsigned depth, int *err, char *why,
			  size_t why_size);

#endif
