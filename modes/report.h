/*
 * modes/report: --report [--write]: the whole story of a card in one
 * run - identity, geometry, speed and, with --write, the tests that
 * write (each part's overwritten range kept in an undo file and put
 * back when the part ends) - a summary first, then each part's own
 * output.  Returns the exit status, or -EINTR when a signal stopped it.
 */
#ifndef FLASHBENCH_MODES_REPORT_H
#define FLASHBENCH_MODES_REPORT_H

#include "modes/options.h"

int mode_report(struct config *cfg);	/* --report [--write] */

#endif
