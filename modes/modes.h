/*
 * modes: what a run of flashbench does, one driver a mode, each run
 * from the front door's table.  A driver returns the exit status, or
 * -EINTR when a signal stopped it; bad input and failures end the
 * program in usage_error and runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_H
#define FLASHBENCH_MODES_H

#include "modes/options.h"

int mode_test(struct config *cfg);	/* -a, -A, -O, ..., --program */
int mode_detect(struct config *cfg);	/* --detect [--write] */
int mode_speed(struct config *cfg);	/* -t, --write-speed, --iops... */
int mode_capacity(struct config *cfg);	/* --capacity-check */
int mode_restore(struct config *cfg);	/* --restore=FILE */
int mode_info(struct config *cfg);	/* --info */
int mode_decode(struct config *cfg);	/* --decode-REGISTER=HEX */
int mode_analyze(struct config *cfg);	/* --analyze FILE... */
int mode_plot(struct config *cfg);	/* --plot=FILE run.json... */
int mode_list(struct config *cfg);	/* --list-programs */

#endif
