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

/*
 * How long --class-check's Raspberry Pi test runs its random writes and
 * reads, each: its 10 s, or a shorter --time.
 */
uint64_t mode_pi_time_ns(const struct config *cfg);

#endif
