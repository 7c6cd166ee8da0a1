/*
 * linuxaio: Linux native AIO (io_setup, io_submit, io_getevents) through its
 * system calls and <linux/aio_abi.h>: the engine where io_uring is
 * missing or disabled.  Asynchronous only with O_DIRECT.
 */
#ifndef FLASHBENCH_AIO_H
#define FLASHBENCH_AIO_H

#include "engines/engine.h"

/* An AIO engine on fd for up to depth in flight, or NULL with *err, why. */
struct engine *aio_open(int fd, unsigned depth, int *err, char *why,
			size_t why_size);

#endif
