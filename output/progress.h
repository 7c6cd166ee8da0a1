/*
 * progress: a one-line indicator on a terminal while a test runs: test
 * name, operations done of the total, time taken and time left.  Drawn
 * in place with \r and only on a terminal; it never touches the results.
 */
#ifndef FLASHBENCH_PROGRESS_H
#define FLASHBENCH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define PROGRESS_INTERVAL_NS 200000000LL	/* at most 5 redraws a second */

struct progress {
	FILE *out;
	const char *test;
	bool enabled;
	struct timespec start, last;
	uint64_t done, total;
	int shown;		/* characters on the line now, 0: clear */
	bool bytes;		/* done and total are bytes: show MiB and
				   the rate */
	const char *waiting;	/* a wait, not a count: what for */
};

/*
 * Set up for test on out.  Drawing happens only when want is true (the
 * caller's choice: text output, not --quiet) and out is a terminal.
 */
void progress_start(struct progress *progress, FILE *out, const char *test,
		    bool want);

/* Operations done of total, from vm_exec.on_progress.  Rate-limited. */
void progress_update(struct progress *progress, uint64_t done,
		     uint64_t total);

/* done and total are bytes from now on: the line shows MiB and a rate. */
void progress_in_bytes(struct progress *progress);

/*
 * A wait with no count to it ("waiting for /dev/sdb to come back"):
 * "TEST: WHAT, 0:12", the time since progress_start.  Rate-limited.
 */
void progress_wait(struct progress *progress, const char *what);

/* Wipe the line, e.g. before a result is printed to the same terminal. */
void progress_clear(struct progress *progress);

/* Wipe the line for good. */
void progress_end(struct progress *progress);

#endif
