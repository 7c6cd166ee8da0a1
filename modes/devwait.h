/*
 * devwait: waiting for a device to come back - after a power cut
 * (--power-cut) or a pulled card (--surface --state) - under a progress
 * line, and knowing it is back when it answers.  One loop for both: a
 * node can exist, and even open, while the card behind it is still off.
 */
#ifndef FLASHBENCH_MODES_DEVWAIT_H
#define FLASHBENCH_MODES_DEVWAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "dev.h"
#include "modes/options.h"

/*
 * Open node in mode and read its first block: 0 with dev open, or a
 * negative errno with dev closed (-ENOMEDIUM: a size of 0, a reader
 * with no card).
 */
int mode_open_answering(struct dev *dev, const char *node,
			enum dev_mode mode);

/*
 * Ask found(ctx) every 100 ms until it says yes, the progress line (of
 * test) saying what meanwhile: 0 when found, -EINTR when a signal set
 * cfg->stop, -ETIMEDOUT once dev_now_ns() passes deadline_ns (0: never).
 */
int mode_wait_until(const struct config *cfg, const char *test,
		    const char *what, bool (*found)(void *ctx), void *ctx,
		    uint64_t deadline_ns);

#endif
