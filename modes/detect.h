/*
 * modes/detect: --detect: the geometry found by the tool itself.  A driver
 * returns the exit status, or -EINTR when a signal stopped it; bad input
 * and failures end the program in usage_error and runtime_error
 * (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_DETECT_H
#define FLASHBENCH_MODES_DETECT_H

#include "modes/options.h"

int mode_detect(struct config *cfg);	/* --detect [--write] */

#endif
