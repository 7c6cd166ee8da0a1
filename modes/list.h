/*
 * modes/list: --list-programs.  A driver returns the exit status, or
 * -EINTR when a signal stopped it; bad input and failures end the program
 * in usage_error and runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_LIST_H
#define FLASHBENCH_MODES_LIST_H

#include "modes/options.h"

int mode_list(struct config *cfg);	/* --list-programs */

#endif
