/*
 * modes/capacity: --capacity-check and --restore.  A driver returns the
 * exit status, or -EINTR when a signal stopped it; bad input and failures
 * end the program in usage_error and runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_CAPACITY_H
#define FLASHBENCH_MODES_CAPACITY_H

#include "modes/options.h"

int mode_capacity(struct config *cfg);	/* --capacity-check */
int mode_restore(struct config *cfg);	/* --restore=FILE */

#endif
