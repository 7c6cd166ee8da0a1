/*
 * modes/speed: the speed tests: -t, --write-speed, --iops, --class-check.
 * A driver returns the exit status, or -EINTR when a signal stopped it;
 * bad input and failures end the program in usage_error and runtime_error
 * (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_SPEED_H
#define FLASHBENCH_MODES_SPEED_H

#include "modes/options.h"

int mode_speed(struct config *cfg);	/* -t, --write-speed, --iops... */

#endif
