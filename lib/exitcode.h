/*
 * exitcode: the exit status of every program of the tool (flashbench,
 * erase, flashemu), one table for all of them and for flashbench.1's
 * EXIT STATUS.  A script branches on these without parsing the output.
 * Beside it, the signals flashbench ends a run on cleanly, with
 * 128 + the signal: one table for every place that catches or holds
 * them, and for flashbench.1's SIGNALS.
 */
#ifndef FLASHBENCH_EXITCODE_H
#define FLASHBENCH_EXITCODE_H

#include <signal.h>
#include <stddef.h>

enum exit_code {
	EXIT_OK = 0,		/* success; a card found genuine */
	EXIT_RUNTIME = 1,	/* device or file failure; a restore that
				   left records unput */
	EXIT_USAGE = 2,		/* bad options or arguments, refused first */
	EXIT_FAKE = 3,		/* the card holds less than it announces */
	EXIT_DAMAGED = 4,	/* bad areas that are no capacity limit */
	EXIT_SIGNAL_BASE = 128,	/* interrupted: 128 + the signal, so
				   130 for SIGINT and 143 for SIGTERM */
};

/*
 * The signals that would end the process: each stops a run that touches
 * a device as SIGINT does (what it wrote is put back first, then exit
 * 128 + the signal).  SIGKILL and SIGSTOP cannot be caught; the others
 * that end a process (SIGSEGV...) mean a bug, not a request.
 */
extern const int exit_signals[];
extern const size_t exit_signal_count;

/* set holds exactly the signals of exit_signals. */
void exit_signal_set(sigset_t *set);

#endif
