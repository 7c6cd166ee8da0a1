/*
 * modes/info: --info and --decode-*.  A driver returns the exit status, or
 * -EINTR when a signal stopped it; bad input and failures end the program
 * in usage_error and runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_INFO_H
#define FLASHBENCH_MODES_INFO_H

#include "modes/options.h"

int mode_info(struct config *cfg);	/* --info */
int mode_decode(struct config *cfg);	/* --decode-REGISTER=HEX */

#endif
