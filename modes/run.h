/*
 * run: the steps every measuring mode takes, in the order it takes them:
 * open the device read-only, check the options against it, set the
 * program's parameters, plan (reopening for writing and announcing the
 * range only when the plan writes), prepare timing, and end the run.
 */
#ifndef FLASHBENCH_RUN_H
#define FLASHBENCH_RUN_H

#include <stdint.h>

#include "dev.h"
#include "modes/options.h"
#include "vm.h"
#include "vm/programs.h"

/* Open the device; a failure exits (2 for a bad name, else 1). */
void mode_open_device(const struct config *cfg, struct dev *dev,
		 enum dev_mode mode);

/* An option's value in bytes that must be whole logical blocks. */
void mode_check_multiple(const char *option, uint64_t value,
		    const struct dev *dev);

/* -b, -e and --offset in whole logical blocks of dev. */
void mode_check_alignment(const struct config *cfg, const struct dev *dev);

/* A run's parameters: the defaults, then what the options set. */
void mode_set_option_params(const struct config *cfg,
		       struct program_params *params);

/* The options' parameters and the device's, for a test's program. */
void mode_set_params(struct config *cfg, const struct dev *dev,
		struct program_params *params);

/*
 * Compile the test's program with params (which must outlive it) and
 * plan it on the read-only open the caller made; when the plan writes,
 * reopen for writing and announce its range as what's.  *text holds a
 * --program file's text, for free().
 */
struct vm_program *mode_plan_run(const struct config *cfg,
			    const struct program_params *params,
			    struct dev *dev, const char *what,
			    struct vm_plan *plan, char **text);
/*
 * The same for a built-in test the run chose, not the command line;
 * more (NULL: nothing) ends the announcement's line.
 */
struct vm_program *mode_plan_program(const struct config *cfg,
				     const struct program_def *test,
				     const struct program_params *params,
				     struct dev *dev, const char *what,
				     const char *more, struct vm_plan *plan,
				     char **text);

/*
 * Before any write: say which bytes (and more, when not NULL, after a
 * comma at the end of the line), and let the device allow only them.
 */
void mode_announce_writes(const char *what, struct dev *dev, uint64_t start,
		     uint64_t end, const char *more);

/*
 * Under --report --write, after the announcement and before any write:
 * the range saved to the undo file (measure/undo/keep.h); a failure exits 1,
 * having written nothing.
 */
void mode_keep_announced(const struct config *cfg, uint64_t start,
		    uint64_t end);

/* Pin to a CPU and, with --realtime, take real-time priority. */
void mode_prepare_timing(const struct config *cfg);

/* Unreadable blocks a test went past: said, not fatal. */
void mode_report_skipped(const char *test, uint64_t blocks,
		    uint64_t failed_reads, const struct dev_error *first);

/*
 * The tail every test shares: flush, stats, close; 0, -EINTR when a
 * signal stopped the run (interrupted said on stderr), or a device's
 * failure as a runtime error.
 */
int mode_end_run(const struct config *cfg, struct dev *dev, int err,
	    const char *interrupted);

#endif
