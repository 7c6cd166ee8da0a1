/*
 * exitcode: the signals a run ends on cleanly, one table.
 */
#include <signal.h>
#include <stddef.h>

#include "lib/exitcode.h"

/* Ctrl-C, kill, a closed terminal or ssh session, Ctrl-\, a reader of
   the output gone, a script's own signals, timers, the CPU and file
   size limits */
const int exit_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2,
	SIGALRM, SIGXCPU, SIGXFSZ,
};
const size_t exit_signal_count = sizeof(exit_signals) /
				 sizeof(exit_signals[0]);

void exit_signal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < exit_signal_count; i++)
		sigaddset(set, exit_signals[i]);
}
