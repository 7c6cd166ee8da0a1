/*
 * modes/analyze: --analyze of saved output, --plot of saved runs.  A
 * driver returns the exit status, or -EINTR when a signal stopped it; bad
 * input and failures end the program in usage_error and runtime_error
 * (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_ANALYZE_H
#define FLASHBENCH_MODES_ANALYZE_H

#include "modes/options.h"

int mode_analyze(struct config *cfg);	/* --analyze FILE... */
int mode_plot(struct config *cfg);	/* --plot=FILE run.json... */

#endif
