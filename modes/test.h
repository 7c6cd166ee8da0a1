/*
 * modes/test: the tests that run a program: -a, -A, -O, -r, -f, -s, -i,
 * --program.  A driver returns the exit status, or -EINTR when a signal
 * stopped it; bad input and failures end the program in usage_error and
 * runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_TEST_H
#define FLASHBENCH_MODES_TEST_H

#include "modes/options.h"

int mode_test(struct config *cfg);	/* -a, -A, -O, ..., --program */

#endif
