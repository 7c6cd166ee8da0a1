/*
 * options: flashbench's command line.  One table of every option (which
 * also prints --help) read into a struct config, with the checks that an
 * option fits the test it goes with; a bad one is a usage error (exit 2)
 * before any device or file is touched.
 */
#ifndef FLASHBENCH_OPTIONS_H
#define FLASHBENCH_OPTIONS_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/units.h"
#include "output/render.h"
#include "vm/programs.h"
#include "vm.h"

/* options a built-in test's JSON header names at most */
#define OPTION_JSON_PARAMS 32

/* Long-only options. */
enum {
	OPT_SCATTER_ORDER = CHAR_MAX + 1,
	OPT_SCATTER_SPAN,
	OPT_INTERVAL_ORDER,
	OPT_FAT_NR,
	OPT_OFFSET,
	OPT_THREES,
	OPT_PROGRAM,
	OPT_LIST_PROGRAMS,
	OPT_STATS,
	OPT_FORMAT,
	OPT_REALTIME,
	OPT_INFO,
	OPT_SYSFS_ROOT,
	OPT_DEBUGFS_ROOT,
	OPT_DECODE_CID,
	OPT_DECODE_CSD,
	OPT_DECODE_SCR,
	OPT_DECODE_SSR,
	OPT_DETECT,
	OPT_WRITE,
	OPT_BUDGET,
	OPT_WRITE_SPEED,
	OPT_IOPS,
	OPT_CLASS_CHECK,
	OPT_READ_ONLY,
	OPT_TIME,
	OPT_SPAN,
	OPT_IODEPTH,
	OPT_ANALYZE,
	OPT_PLOT,
	OPT_CAPACITY_CHECK,
	OPT_CACHE_LIMIT,
	OPT_UNDO_FILE,
	OPT_RESTORE,
	OPT_COMPARE,
	OPT_REPORT,
	OPT_SURFACE,
	OPT_KEEP_DATA,
	OPT_RESUME,
	OPT_POWER_CUT,
	OPT_CYCLES,
	OPT_LOG,
	OPT_CUT_COMMAND,
	OPT_POWER_COMMAND,
	OPT_VERIFY,
	OPT_SEED,
	OPT_PASSES,
	OPT_UNTIL,
	OPT_STATE,
};

/* What a run does: options that choose it say so in the table. */
enum run_mode {
	MODE_NONE,		/* an option that is not a test */
	MODE_PROGRAM,		/* a VM program: built-in, or --program */
	MODE_DETECT,		/* --detect */
	MODE_SPEED,		/* -t, --write-speed, --iops, --class-check */
	MODE_INFO,		/* --info */
	MODE_DECODE,		/* --decode-REGISTER */
	MODE_ANALYZE,		/* --analyze */
	MODE_LIST,		/* --list-programs */
	MODE_CAPACITY,		/* --capacity-check */
	MODE_RESTORE,		/* --restore */
	MODE_PLOT,		/* --plot=FILE run.json...: saved runs */
	MODE_COMPARE,		/* --compare run.json...: cards side by side */
	MODE_REPORT,		/* --report: the whole story of a card */
	MODE_SURFACE,		/* --surface */
	MODE_POWER_CUT,		/* --power-cut: does the card keep what it
				   acknowledged? */
	MODE_COUNT
};

enum speed_test { SPEED_NONE, SPEED_READ, SPEED_WRITE, SPEED_IOPS,
		  SPEED_CLASS };

/* The tests, as bits: what an option applies to is a set of them. */
enum test_bit {
	T_ALIGN = 1u << 0, T_WRITE_ALIGN = 1u << 1, T_OPEN_AU = 1u << 2,
	T_FIND_FAT = 1u << 3, T_SCATTER = 1u << 4, T_INTERVAL = 1u << 5,
	T_PROGRAM = 1u << 6, T_DETECT = 1u << 7, T_READ_SPEED = 1u << 8,
	T_WRITE_SPEED = 1u << 9, T_IOPS = 1u << 10, T_CLASS = 1u << 11,
	T_INFO = 1u << 12, T_DECODE = 1u << 13, T_ANALYZE = 1u << 14,
	T_LIST = 1u << 15,
	T_PLOT_RUNS = 1u << 16,	/* --plot=FILE run.json...: no test */
	T_CAPACITY = 1u << 17, T_RESTORE = 1u << 18,
	T_COMPARE = 1u << 19, T_REPORT = 1u << 20,
	T_SURFACE = 1u << 21, T_POWER_CUT = 1u << 22,
	T_END = 1u << 23,	/* one past the last: keep it last */
};

/* The original tool's tests: it took every option with each of them. */
#define T_ORIGINAL (T_ALIGN | T_OPEN_AU | T_FIND_FAT | T_SCATTER | T_INTERVAL)
#define T_VM (T_ORIGINAL | T_WRITE_ALIGN | T_PROGRAM)
#define T_SPEED (T_READ_SPEED | T_WRITE_SPEED | T_IOPS | T_CLASS)
#define T_MEASURE (T_VM | T_SPEED | T_DETECT | T_CAPACITY | T_SURFACE | \
		   T_POWER_CUT)
#define T_ALL (T_END - 1)	/* every test's bit */
/* Modes whose output is records: text, CSV (one table) or JSON. */
#define T_OUTPUT (T_VM | T_SPEED | T_DETECT | T_INFO | T_DECODE | \
		  T_ANALYZE | T_LIST | T_CAPACITY | T_RESTORE | T_COMPARE | \
		  T_REPORT | T_SURFACE | T_POWER_CUT)

struct config {
	const struct program_def *test;
	const char *test_option;	/* as given, for messages */
	char option_text[40];		/* what test_option points to */
	unsigned test_bit;		/* the test chosen, 0 for none */
	const char *device;
	const char *program_path;
	const char *out_path;
	uint64_t blocksize, erasesize, count, offset, open_au_nr, fat_nr;
	uint64_t scatter_order, scatter_span, interval_order;
	bool random, threes, stats, verbose, realtime;
	enum run_mode mode;
	bool write;
	enum speed_test speed;
	bool read_only;
	uint64_t time_ns, span, iodepth;
	const char *const *files;	/* --analyze, --compare */
	size_t file_count;
	const char *plot_path;
	char **plot_inputs;		/* saved json runs to plot, no test */
	int plot_input_count;
	char *command;			/* the command line, for json */
	bool quiet;
	uint64_t budget_ns;
	const char *sysfs_root;
	const char *debugfs_root;
	const char *decode_kind, *decode_hex;
	enum render_format format;
	uint64_t cache_limit;		/* --capacity-check */
	const char *undo_path, *restore_path;
	bool keep_data;			/* --surface */
	const char *resume_path;
	/* --surface --write's endurance passes */
	uint64_t passes;
	const char *until, *state_path;
	/* --power-cut */
	uint64_t cycles, seed;
	const char *log_path, *cut_command, *power_command, *verify_path;
	bool results_on_stderr;		/* the log takes standard output */
	bool given[96];			/* by option_defs[] index */
	volatile sig_atomic_t *stop;	/* set by lib/exitcode.h's signals */
	/* --report sets these for the parts it runs; NULL otherwise */
	struct keep *keep;		/* a writing part's range saved first */
	FILE *also_json;		/* the part's JSON document too */
	/* the JSON parameters of a built-in test, named as its options */
	char json_names[OPTION_JSON_PARAMS][32];
	struct vm_param json_params[OPTION_JSON_PARAMS];
	bool json_flags[OPTION_JSON_PARAMS];	/* a yes/no option's */
};

/* Read the command line into cfg; bad input exits 2. */
void mode_parse_args(struct config *cfg, int argc, char **argv);

/* The default an option's table entry holds, for code that needs it. */
uint64_t mode_option_default(int id);

/* Whether the option id (a short option character or OPT_*) was given. */
bool mode_option_given(const struct config *cfg, int id);

/*
 * The JSON parameters of a built-in test: each option that applies to it,
 * named after the long option, with the value in cfg; in cfg->json_params,
 * their count returned.
 */
size_t mode_set_option_json_params(struct config *cfg);

#endif
