/*
 * modes/capacity: --capacity-check and --restore.  A driver returns the
 * exit status, or -EINTR when a signal stopped it; bad input and failures
 * end the program in usage_error and runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_CAPACITY_H
#define FLASHBENCH_MODES_CAPACITY_H

#include "dev.h"
#include <stddef.h>

#include "modes/options.h"

int mode_capacity(struct config *cfg);	/* --capacity-check */
int mode_restore(struct config *cfg);	/* --restore=FILE */

/* Stamps need blocks of STAMP_MIN_BYTES and a card that keeps data. */
void mode_check_stamps_fit(const struct config *cfg, const struct dev *dev,
		      const char *what);

#endif
