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
#include <signal.h>
#include <stdbool.h>
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
#include "modes/report.h"
#include "modes/sinks.h"
#include "modes/speed.h"
#include "modes/surface.h"
#include "modes/test.h"

const char die_program_name[] = "flashbench";

/* Set by SIGINT or SIGTERM: the VM stops before its next operation. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int signo)
{
	/* a second interrupt does not wait for anything */
	if (stop_signal)
		_exit(EXIT_SIGNAL_BASE + signo);
	stop_signal = signo;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * The modes, one row each, as the options choose them.  A mode that
 * touches a device stops cleanly on SIGINT and SIGTERM (results marked
 * incomplete, written blocks put back); the others end at once.
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

	parse_args(&cfg, argc, argv);
	check_outputs(&cfg);
	mode = find_mode(cfg.mode);
	if (!mode)	/* parse_args chose none: no row is missing */
		runtime_error("no mode for the options given");
	cfg.stop = &stop_signal;
	/* every JSON document names the command that made it */
	cfg.command = cli_join_command(argc, argv);
	if (!cfg.command)
		runtime_error("out of memory");
	if (mode->catches_signals)
		catch_signals();
	status = mode->run(&cfg);
	free(cfg.command);
	return exit_status(status);
}
