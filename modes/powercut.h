/*
 * modes/powercut: --power-cut, does the card keep what it acknowledged
 * when its power fails?  The range stamped as old data, then cycles of
 * a file-system-like workload cut by a power failure (modes/cutpower.h),
 * each verified and settled (measure/powercutcheck.h) and logged
 * (measure/powercutlog.h); and --power-cut --verify=LOG, a log's last
 * cut verified in a later run.  Returns the exit status (4 when a fault
 * was seen), or -EINTR when a signal stopped it; bad input and failures
 * end in usage_error and runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_POWERCUT_H
#define FLASHBENCH_MODES_POWERCUT_H

#include "modes/options.h"

int mode_power_cut(struct config *cfg);

#endif
