/*
 * flashbench: the front door.  main reads the options (modes/options.c),
 * checks where the output goes, and runs the mode they chose from one
 * table; what the mode returns becomes the exit status.
 *
 * Modules outside the front door never exit or print errors: they
 * return a negative errno and a message.  The front door and the modes
 * end a run that cannot go on through lib/die.h (usage_error: exit 2
 * before any I/O; runtime_error: exit 1), the only exit path besides
 * main's return.  Exit codes are lib/exitcode.h's.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/die.h"
#include "lib/exitcode.h"
#include "modes/analyze.h"
#include "modes/capacity.h"
#include "modes/compare.h"
#include "modes/detect.h"
#include "modes/info.h"
#include "modes/list.h"
#include "modes/options.h"
#include "modes/powercut.h"
#include "modes/report.h"
#include "modes/sinks.h"
#include "modes/speed.h"
#include "modes/surface.h"
#include "modes/test.h"
#include "modes/undofile.h"

const char die_program_name[] = "flashbench";

/*
 * The first of the handled signals (lib/exitcode.h's exit_signals): the
 * VM stops before its next operation, what was written is put back, and
 * the run ends 128 + this signal.
 */
static volatile sig_atomic_t stop_signal;

/*
 * Written once, before the handlers are set, and only read by them: the
 * undo file that holds what the run has written and not yet put back
 * (empty when the mode keeps none), and the line a further signal prints
 * while that file is there; and whether the run keeps a log in a file
 * (--power-cut --log=FILE), which a SIGPIPE from a reader gone does not
 * reach: the run stops and closes it, as for SIGTERM.
 */
static struct {
	char path[PATH_MAX];
	char note[2 * PATH_MAX + 200];
	size_t note_bytes;
	bool log_file;
} pending_undo;

/* What the run wrote is not all back yet: its undo file is there. */
static bool put_back_waiting(void)
{
	return pending_undo.path[0] && access(pending_undo.path, F_OK) == 0;
}

/* Said at each further signal while the data goes back. */
static void say_putting_back(void)
{
	ssize_t n = write(STDERR_FILENO, pending_undo.note,
			  pending_undo.note_bytes);

	(void)n;	/* with standard error gone, nowhere to say it */
}

/*
 * The first signal stops the run.  A further one ends it at once, as
 * does SIGPIPE (the reader of the output is gone: its default), unless
 * something waits to be put back: then the data comes first, and the
 * signal only says so (not SIGPIPE: its stream may be the one gone).
 * A first SIGPIPE stops a run that keeps a log file as SIGTERM does.
 */
static void on_signal(int signo)
{
	int saved_errno = errno;
	bool waiting = put_back_waiting();

	if (!waiting && (stop_signal ||
			 (signo == SIGPIPE && !pending_undo.log_file)))
		_exit(EXIT_SIGNAL_BASE + signo);
	if (waiting && stop_signal && signo != SIGPIPE)
		say_putting_back();
	if (!stop_signal)
		stop_signal = signo;
	errno = saved_errno;
}

/*
 * The undo file the mode keeps what it overwrites in, chosen as the mode
 * chooses it; NULL when it keeps none (or the default cannot be had: the
 * mode then refuses, saying why).
 */
static const char *undo_file_of(const struct config *cfg, char *buf,
				size_t size)
{
	char why[MESSAGE_PATH_BYTES];
	bool keeps = cfg->mode == MODE_CAPACITY ||
		     (cfg->mode == MODE_SURFACE && cfg->keep_data) ||
		     (cfg->mode == MODE_REPORT && cfg->write);

	if (cfg->mode == MODE_RESTORE)
		return cfg->restore_path;
	if (cfg->mode == MODE_SURFACE && cfg->resume_path)
		return cfg->resume_path;
	return keeps ? mode_undo_path(cfg, buf, size, why, sizeof(why)) : NULL;
}

static void catch_signals(const struct config *cfg)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char buf[PATH_MAX], command[UNDOFILE_HINT_BYTES];
	const char *undo = undo_file_of(cfg, buf, sizeof(buf));

	if (undo && strlen(undo) < sizeof(pending_undo.path)) {
		snprintf(pending_undo.path, sizeof(pending_undo.path), "%s", undo);
		snprintf(pending_undo.note, sizeof(pending_undo.note), "%s: putting "
			 "back what was written before stopping (kill -9 "
			 "would leave it to %s)\n", die_program_name,
			 mode_undo_command(command, sizeof(command), undo,
					  cfg->device));
		pending_undo.note_bytes = strlen(pending_undo.note);
	}
	pending_undo.log_file = cfg->mode == MODE_POWER_CUT && cfg->log_path &&
				strcmp(cfg->log_path, "-") != 0;
	/* one handler at a time: the first signal is the run's */
	exit_signal_set(&sa.sa_mask);
	for (size_t i = 0; i < exit_signal_count; i++)
		sigaction(exit_signals[i], &sa, NULL);
}

/*
 * The modes, one row each, as the options choose them.  A mode that
 * touches a device stops cleanly on every signal of exit_signals
 * (results marked incomplete, written blocks put back); the others end
 * at once.
 */
static const struct mode {
	enum run_mode mode;
	const char *name;
	int (*run)(struct config *cfg);
	bool catches_signals;
} modes[] = {
	{ MODE_LIST, "list-programs", mode_list, false },
	{ MODE_PLOT, "plot", mode_plot, false },
	{ MODE_COMPARE, "compare", mode_compare, false },
	{ MODE_DECODE, "decode", mode_decode, false },
	{ MODE_INFO, "info", mode_info, false },
	{ MODE_ANALYZE, "analyze", mode_analyze, false },
	{ MODE_DETECT, "detect", mode_detect, true },
	{ MODE_RESTORE, "restore", mode_restore, true },
	{ MODE_CAPACITY, "capacity-check", mode_capacity, true },
	{ MODE_SURFACE, "surface", mode_surface, true },
	{ MODE_POWER_CUT, "power-cut", mode_power_cut, true },
	{ MODE_SPEED, "speed", mode_speed, true },
	{ MODE_PROGRAM, "test", mode_test, true },
	{ MODE_REPORT, "report", mode_report, true },
};

static const struct mode *find_mode(enum run_mode mode)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (modes[i].mode == mode)
			return &modes[i];
	return NULL;
}

/*
 * What a mode returned, as the exit status: its own status, 128 + the
 * signal that stopped it, or a failure no mode put into words.
 */
static int exit_status(int status)
{
	if (status == -EINTR)
		return EXIT_SIGNAL_BASE + stop_signal;
	if (status == -ENOMEM)
		runtime_error("out of memory");
	if (status < 0)
		runtime_error("%s", strerror(-status));
	return status;
}

int main(int argc, char **argv)
{
	const struct mode *mode;
	struct config cfg;
	int status;

	mode_parse_args(&cfg, argc, argv);
	mode_check_outputs(&cfg);
	mode = find_mode(cfg.mode);
	if (!mode)	/* mode_parse_args chose none: no row is missing */
		runtime_error("no mode for the options given");
	cfg.stop = &stop_signal;
	/* every JSON document names the command that made it */
	cfg.command = cli_join_command(argc, argv);
	if (!cfg.command)
		runtime_error("out of memory");
	if (mode->catches_signals)
		catch_signals(&cfg);
	status = mode->run(&cfg);
	free(cfg.command);
	return exit_status(status);
}
