/*
 * exitcode: the exit status of every program of the tool (flashbench,
 * erase, flashemu), one table for all of them and for flashbench.1's
 * EXIT STATUS.  A script branches on these without parsing the output.
 */
#ifndef FLASHBENCH_EXITCODE_H
#define FLASHBENCH_EXITCODE_H

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

#endif
