/*
 * modes/compare: flashbench --compare RUN.json...: saved runs of several
 * cards side by side in one table, and with --plot the same as grouped
 * bars.  It reads files only; no device is opened.
 */
#ifndef FLASHBENCH_MODES_COMPARE_H
#define FLASHBENCH_MODES_COMPARE_H

#include "modes/options.h"

int mode_compare(struct config *cfg);

#endif
