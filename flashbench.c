/*
 * flashbench: the front door.  Options (one table, which also prints
 * --help), their checks, and dispatch to a test program.  Only main()
 * prints errors and chooses exit codes: 0 success, 1 runtime failure,
 * 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/findings.h"
#include "analysis/pasted.h"
#include "measure/capacity.h"
#include "lib/exitcode.h"
#include "lib/cli.h"
#include "measure/detect.h"
#include "dev.h"
#include "identity/hostq.h"
#include "identity/info.h"
#include "lib/lfsr.h"
#include "output/plot.h"
#include "vm/programs.h"
#include "output/progress.h"
#include "measure/speed.h"
#include "output/report.h"
#include "engines/sim.h"
#include "vm/stamp.h"
#include "output/reportanalyze.h"
#include "output/reportdetect.h"
#include "lib/units.h"
#include "measure/undo.h"
#include "measure/undotrust.h"
#include "vm.h"

#define VERSION "1.0"
#define MIB (1024ULL * 1024)
#define OPEN_AU_SPACING 12	/* erase blocks between open-au blocks */
#define MAX_OPERATIONS 100000000ULL	/* refuse programs beyond this */

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
};

/* The original tool's tests: it took every option with each of them. */
#define T_ORIGINAL (T_ALIGN | T_OPEN_AU | T_FIND_FAT | T_SCATTER | T_INTERVAL)
#define T_VM (T_ORIGINAL | T_WRITE_ALIGN | T_PROGRAM)
#define T_SPEED (T_READ_SPEED | T_WRITE_SPEED | T_IOPS | T_CLASS)
#define T_MEASURE (T_VM | T_SPEED | T_DETECT | T_CAPACITY)
#define T_ALL 0x7ffffu
/* Modes whose output is records: text, CSV (one table) or JSON. */
#define T_OUTPUT (T_VM | T_SPEED | T_DETECT | T_INFO | T_DECODE | \
		  T_ANALYZE | T_LIST | T_CAPACITY | T_RESTORE)

/* How an option's argument is read, and into what. */
enum arg_kind {
	ARG_NONE,		/* handled by name in parse_option */
	ARG_FLAG,		/* bool, set when given */
	ARG_SIZE,		/* uint64_t bytes, >= min */
	ARG_COUNT,		/* uint64_t in [min, max] */
	ARG_SECONDS,		/* uint64_t nanoseconds, more than zero */
	ARG_TEXT,		/* const char *, as given */
};

/* The --help sections, as the man page has them. */
enum help_section { SECTION_TESTS, SECTION_PARAMETERS, SECTION_OUTPUT };

static const char *const section_titles[] = {
	[SECTION_TESTS] = "Tests", [SECTION_PARAMETERS] = "Parameters",
	[SECTION_OUTPUT] = "Output",
};

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
	const char *const *files;	/* --analyze */
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
	enum report_format format;
	uint64_t cache_limit;		/* --capacity-check */
	const char *undo_path, *restore_path;
	bool given[64];			/* by option_defs[] index */
};

struct option_def {
	int id;			/* short option character or OPT_* */
	const char *name;
	const char *arg;	/* argument name in --help, NULL for none */
	enum help_section section;
	const char *help;	/* a %s in it shows the default */
	enum run_mode mode;	/* a test option: what it runs */
	const char *program;	/* MODE_PROGRAM: the built-in's name */
	enum speed_test speed;	/* MODE_SPEED: which measurement */
	unsigned test;		/* a test option: its bit */
	enum arg_kind kind;
	size_t field;		/* offsetof(struct config, ...) */
	uint64_t def, min, max;	/* default and range of the value */
	unsigned applies;	/* the tests it changes */
	bool original;		/* the original had it: kept, with a warning,
				   on its tests where it changes nothing */
	const char *refusal;	/* said instead of "does not apply to" */
};

#define FIELD(name) offsetof(struct config, name)
#define SECONDS(s) ((uint64_t)(s) * 1000000000u)
#define TEST(ID, NAME, SECTION, HELP, MODE, PROGRAM, SPEED, BIT)	\
	{ .id = ID, .name = NAME, .section = SECTION, .help = HELP,	\
	  .mode = MODE, .program = PROGRAM, .speed = SPEED, .test = BIT }
#define DECODE(ID, NAME, HELP)						\
	{ .id = ID, .name = NAME, .arg = "HEX", .section = SECTION_TESTS, \
	  .help = HELP, .mode = MODE_DECODE, .test = T_DECODE }

/*
 * Every option, in --help order, with its default, range and the tests
 * it changes.  getopt's tables, --help, the defaults in struct config and
 * in program_params, and the check that an option fits its test are all
 * built from this.
 */
static const struct option_def option_defs[] = {
	TEST('a', "align", SECTION_TESTS, "read-alignment test (read-only)",
	     MODE_PROGRAM, "align", SPEED_NONE, T_ALIGN),
	TEST('A', "write-align", SECTION_TESTS,
	     "write-alignment test (destructive)",
	     MODE_PROGRAM, "write-align", SPEED_NONE, T_WRITE_ALIGN),
	TEST('O', "open-au", SECTION_TESTS,
	     "open erase-block (allocation unit) test (destructive)",
	     MODE_PROGRAM, "open-au", SPEED_NONE, T_OPEN_AU),
	TEST('f', "find-fat", SECTION_TESTS,
	     "random writes in the first erase blocks (destructive)",
	     MODE_PROGRAM, "find-fat", SPEED_NONE, T_FIND_FAT),
	TEST('s', "scatter", SECTION_TESTS,
	     "read time of each block, for plotting",
	     MODE_PROGRAM, "scatter", SPEED_NONE, T_SCATTER),
	TEST('i', "interval", SECTION_TESTS,
	     "read time against size, with regression",
	     MODE_PROGRAM, "interval", SPEED_NONE, T_INTERVAL),
	{ .id = OPT_PROGRAM, .name = "program", .arg = "FILE",
	  .section = SECTION_TESTS,
	  .help = "run the test program in FILE (see flashbench(1))",
	  .mode = MODE_PROGRAM, .test = T_PROGRAM },
	TEST(OPT_LIST_PROGRAMS, "list-programs", SECTION_TESTS,
	     "print the built-in test programs", MODE_LIST, NULL, SPEED_NONE,
	     T_LIST),
	TEST(OPT_DETECT, "detect", SECTION_TESTS,
	     "find erase block and page size, with advice",
	     MODE_DETECT, NULL, SPEED_NONE, T_DETECT),
	/* -t: large blocks by default, as hdparm -t and dd bs=1M */
	{ .id = 't', .name = "read-speed", .section = SECTION_TESTS,
	  .help = "sequential read rate (-b, default %s)",
	  .mode = MODE_SPEED, .speed = SPEED_READ, .test = T_READ_SPEED,
	  .kind = ARG_SIZE, .def = 1024 * 1024 },
	TEST(OPT_WRITE_SPEED, "write-speed", SECTION_TESTS,
	     "sequential write rate in erase blocks (destructive)",
	     MODE_SPEED, NULL, SPEED_WRITE, T_WRITE_SPEED),
	{ .id = OPT_IOPS, .name = "iops", .section = SECTION_TESTS,
	  .help = "random IOPS (-b, default %s) (destructive)",
	  .mode = MODE_SPEED, .speed = SPEED_IOPS, .test = T_IOPS,
	  .kind = ARG_SIZE, .def = SPEED_IO_BYTES },
	TEST(OPT_CLASS_CHECK, "class-check", SECTION_TESTS,
	     "measure against SD speed classes (destructive)",
	     MODE_SPEED, NULL, SPEED_CLASS, T_CLASS),
	TEST(OPT_CAPACITY_CHECK, "capacity-check", SECTION_TESTS,
	     "real capacity of a fake card (destructive, restored)",
	     MODE_CAPACITY, NULL, SPEED_NONE, T_CAPACITY),
	{ .id = OPT_RESTORE, .name = "restore", .arg = "FILE",
	  .section = SECTION_TESTS,
	  .help = "put back the blocks saved in an undo FILE",
	  .mode = MODE_RESTORE, .test = T_RESTORE },
	TEST(OPT_ANALYZE, "analyze", SECTION_TESTS,
	     "read saved -a, -O output from FILEs (- is stdin)",
	     MODE_ANALYZE, NULL, SPEED_NONE, T_ANALYZE),
	TEST(OPT_INFO, "info", SECTION_TESTS,
	     "identity of the device and card, from sysfs",
	     MODE_INFO, NULL, SPEED_NONE, T_INFO),
	DECODE(OPT_DECODE_CID, "decode-cid",
	       "decode a CID register (prefix mmc: for eMMC)"),
	DECODE(OPT_DECODE_CSD, "decode-csd", "decode a CSD register"),
	DECODE(OPT_DECODE_SCR, "decode-scr", "decode an SD SCR register"),
	DECODE(OPT_DECODE_SSR, "decode-ssr", "decode an SD status register"),

	{ 'b', "blocksize", "SIZE", SECTION_PARAMETERS,
	  "block size (default %s)", .kind = ARG_SIZE,
	  .field = FIELD(blocksize), .def = 16384, .min = 1,
	  .max = DEV_MAX_TRANSFER_BYTES,	/* a block is one transfer */
	  .applies = T_VM | T_READ_SPEED | T_IOPS, .original = true },
	{ 'e', "erasesize", "SIZE", SECTION_PARAMETERS,
	  "erase block size (default %s)", .kind = ARG_SIZE,
	  .field = FIELD(erasesize), .def = 4 * MIB, .min = 1,
	  .max = DEV_MAX_TRANSFER_BYTES,	/* a block is one transfer */
	  .applies = T_WRITE_ALIGN | T_OPEN_AU | T_FIND_FAT | T_PROGRAM |
		     T_DETECT | T_WRITE_SPEED | T_IOPS | T_CLASS,
	  .original = true },
	{ 'c', "count", "N", SECTION_PARAMETERS,
	  "repetitions of each read (default %s)", .kind = ARG_COUNT,
	  .field = FIELD(count), .def = 8, .min = 1, .max = 1000000,
	  .applies = T_ALIGN | T_WRITE_ALIGN | T_SCATTER | T_INTERVAL |
		     T_PROGRAM, .original = true },
	{ '0', "open-au-nr", "N", SECTION_PARAMETERS,
	  "erase blocks written in turn by -O (default %s)",
	  .kind = ARG_COUNT, .field = FIELD(open_au_nr), .def = 2, .min = 1,
	  .max = 10000, .applies = T_OPEN_AU | T_PROGRAM, .original = true },
	{ 'r', "random", NULL, SECTION_PARAMETERS,
	  "-O writes in pseudo-random order", .kind = ARG_FLAG,
	  .field = FIELD(random), .applies = T_OPEN_AU, .original = true },
	{ OPT_OFFSET, "offset", "SIZE", SECTION_PARAMETERS,
	  "start of -A -O -s -i -t (default %s for -A, -O)",
	  .kind = ARG_SIZE, .field = FIELD(offset),
	  .def = SPEED_WRITE_FROM_BYTES,	/* clear of the FAT area */
	  .applies = T_WRITE_ALIGN | T_OPEN_AU | T_SCATTER | T_INTERVAL |
		     T_PROGRAM | T_READ_SPEED, .original = true },
	{ OPT_FAT_NR, "fat-nr", "N", SECTION_PARAMETERS,
	  "erase blocks written by -f (default %s)", .kind = ARG_COUNT,
	  .field = FIELD(fat_nr), .def = 6, .min = 1, .max = 10000,
	  .applies = T_FIND_FAT | T_PROGRAM, .original = true },
	{ OPT_SCATTER_ORDER, "scatter-order", "N", SECTION_PARAMETERS,
	  "-s reads 2^N blocks (default %s)", .kind = ARG_COUNT,
	  .field = FIELD(scatter_order), .def = 9, .min = 0, .max = 24,
	  .applies = T_SCATTER | T_PROGRAM, .original = true },
	{ OPT_SCATTER_SPAN, "scatter-span", "N", SECTION_PARAMETERS,
	  "-s reads N blocks at a time (default %s)", .kind = ARG_COUNT,
	  .field = FIELD(scatter_span), .def = 1, .min = 1, .max = 65536,
	  .applies = T_SCATTER | T_PROGRAM, .original = true },
	{ OPT_INTERVAL_ORDER, "interval-order", "N", SECTION_PARAMETERS,
	  "-i reads N sizes (default %s)", .kind = ARG_COUNT,
	  .field = FIELD(interval_order), .def = 8, .min = 1, .max = 32,
	  .applies = T_INTERVAL | T_PROGRAM, .original = true },
	{ OPT_THREES, "threes", NULL, SECTION_PARAMETERS,
	  "-a, -A also probe 3 x 2^n boundaries (3, 6, 12MiB...)",
	  .kind = ARG_FLAG, .field = FIELD(threes),
	  .applies = T_ALIGN | T_WRITE_ALIGN | T_PROGRAM },
	{ OPT_WRITE, "write", NULL, SECTION_PARAMETERS,
	  "--detect also finds open erase blocks (destructive)",
	  .kind = ARG_FLAG, .field = FIELD(write), .applies = T_DETECT },
	{ OPT_BUDGET, "budget", "SECONDS", SECTION_PARAMETERS,
	  "device time --detect may spend reading (default %s)",
	  .kind = ARG_SECONDS, .field = FIELD(budget_ns), .def = SECONDS(20),
	  .applies = T_DETECT },
	{ OPT_TIME, "time", "SECONDS", SECTION_PARAMETERS,
	  "device time per measurement (default %s)", .kind = ARG_SECONDS,
	  .field = FIELD(time_ns), .def = SECONDS(3),
	  .applies = T_SPEED | T_PROGRAM },
	{ OPT_SPAN, "span", "SIZE", SECTION_PARAMETERS,
	  "range written or randomly read (default %s)", .kind = ARG_SIZE,
	  .field = FIELD(span), .def = SPEED_WRITE_SPAN_BYTES, .min = 1,
	  .applies = T_WRITE_SPEED | T_IOPS | T_CLASS },
	{ OPT_IODEPTH, "iodepth", "N", SECTION_PARAMETERS,
	  "operations in flight (default %s; up to 256)", .kind = ARG_COUNT,
	  .field = FIELD(iodepth), .def = 1, .min = 1, .max = DEV_MAX_DEPTH,
	  .applies = T_SPEED | T_PROGRAM },
	{ OPT_READ_ONLY, "read-only", NULL, SECTION_PARAMETERS,
	  "with --iops, --class-check: never write", .kind = ARG_FLAG,
	  .field = FIELD(read_only), .applies = T_IOPS | T_CLASS },
	{ OPT_CACHE_LIMIT, "cache-limit", "SIZE", SECTION_PARAMETERS,
	  "caches --capacity-check sees through (default %s)",
	  .kind = ARG_SIZE, .field = FIELD(cache_limit), .def = 16 * MIB,
	  .min = 1, .applies = T_CAPACITY },
	{ OPT_UNDO_FILE, "undo-file", "FILE", SECTION_PARAMETERS,
	  "where --capacity-check saves the blocks it writes",
	  .kind = ARG_TEXT, .field = FIELD(undo_path),
	  .applies = T_CAPACITY },
	{ OPT_SYSFS_ROOT, "sysfs-root", "DIR", SECTION_PARAMETERS,
	  "read sysfs from DIR, not /sys", .kind = ARG_TEXT,
	  .field = FIELD(sysfs_root), .applies = T_INFO | T_DETECT | T_SPEED },
	{ OPT_DEBUGFS_ROOT, "debugfs-root", "DIR", SECTION_PARAMETERS,
	  "read debugfs from DIR, not /sys/kernel/debug",
	  .kind = ARG_TEXT, .field = FIELD(debugfs_root),
	  .applies = T_INFO | T_SPEED },

	{ OPT_FORMAT, "format", "FORMAT", SECTION_OUTPUT,
	  "output format: text (default), csv or json",
	  .applies = T_OUTPUT },
	{ OPT_PLOT, "plot", "FILE", SECTION_OUTPUT,
	  "draw the results (or saved json runs) as SVG in FILE",
	  .kind = ARG_TEXT, .field = FIELD(plot_path),
	  .applies = T_VM | T_READ_SPEED | T_WRITE_SPEED | T_PLOT_RUNS,
	  .refusal = "is not available for" },
	{ 'o', "out", "FILE", SECTION_OUTPUT, "write results to FILE",
	  .kind = ARG_TEXT, .field = FIELD(out_path),
	  .applies = T_OUTPUT, .original = true },
	{ OPT_STATS, "stats", NULL, SECTION_OUTPUT,
	  "print device time and bytes moved on stderr", .kind = ARG_FLAG,
	  .field = FIELD(stats), .applies = T_MEASURE },
	{ OPT_REALTIME, "realtime", NULL, SECTION_OUTPUT,
	  "run at real-time priority when permitted", .kind = ARG_FLAG,
	  .field = FIELD(realtime), .applies = T_MEASURE },
	{ 'q', "quiet", NULL, SECTION_OUTPUT,
	  "no progress line on the terminal", .kind = ARG_FLAG,
	  .field = FIELD(quiet), .applies = T_MEASURE },
	{ 'v', "verbose", NULL, SECTION_OUTPUT, "say more", .kind = ARG_FLAG,
	  .field = FIELD(verbose), .applies = T_MEASURE, .original = true },
	{ 'h', "help", NULL, SECTION_OUTPUT, "display this help",
	  .applies = T_ALL },
	{ 'V', "version", NULL, SECTION_OUTPUT, "display version",
	  .applies = T_ALL },
};

#define OPTION_COUNT (sizeof(option_defs) / sizeof(option_defs[0]))
_Static_assert(OPTION_COUNT <= sizeof(((struct config *)0)->given),
	       "struct config's given[] holds a flag per option");

static const char *program_name = "flashbench";

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

/* An option's default as --help shows it: 16KiB, 20 (seconds), 8. */
static const char *format_default(const struct option_def *o, char *buf)
{
	switch (o->kind) {
	case ARG_SIZE:
		return units_format_exact_size(buf, o->def);
	case ARG_SECONDS:
		snprintf(buf, UNITS_BUF, "%g", (double)o->def / 1e9);
		return buf;
	default:
		snprintf(buf, UNITS_BUF, "%llu", (unsigned long long)o->def);
		return buf;
	}
}

static void usage_option(FILE *out, const struct option_def *o)
{
	char left[48], help[128], value[UNITS_BUF];
	const char *mark;

	if (o->id <= CHAR_MAX)
		snprintf(left, sizeof(left), " -%c, --%s%s%s", o->id,
			 o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(left, sizeof(left), "     --%s%s%s", o->name,
			 o->arg ? "=" : "", o->arg ? o->arg : "");
	/* the table's help text, with the default where it has a %s */
	mark = strstr(o->help, "%s");
	if (mark)
		snprintf(help, sizeof(help), "%.*s%s%s",
			 (int)(mark - o->help), o->help,
			 format_default(o, value), mark + 2);
	else
		snprintf(help, sizeof(help), "%s", o->help);
	if (strlen(left) > 26)
		fprintf(out, "%s\n%-27s%s\n", left, "", help);
	else
		fprintf(out, "%-27s%s\n", left, help);
}

static void usage(FILE *out)
{
	fprintf(out, "Usage:\n %s [options] <device>\n"
		" %s --analyze <file>...\n"
		" %s --plot=<file.svg> <run.json>...\n"
		" %s --decode-cid=<hex>\n\n", program_name, program_name,
		program_name, program_name);
	fprintf(out, "Measure flash media (SD cards, eMMC, USB sticks) "
		"through the raw block device.\n\nOptions:\n");
	for (size_t i = 0; i < OPTION_COUNT; i++) {
		if (i == 0 || option_defs[i].section !=
			      option_defs[i - 1].section)
			fprintf(out, "\n%s:\n",
				section_titles[option_defs[i].section]);
		usage_option(out, &option_defs[i]);
	}
	fprintf(out, "\nAn option a test does not use is refused, or, where "
		"the original flashbench\ntook it, accepted with a warning."
		"\n");
	fprintf(out, "\nSIZE is bytes, or a number with a suffix: K, M, G, "
		"T (or KiB, MiB...: powers\nof 1024).  DEVICE may be "
		"sim: or sim:PRESET,key=value,... for a simulated card.\n"
		"\nFor more details see flashbench(1).\n");
}

/* "flashbench: what: why", then the --help hint for usage errors. */
static void die(int status, const char *format, va_list args)
	__attribute__((format(printf, 2, 0), noreturn));

static void die(int status, const char *format, va_list args)
{
	fprintf(stderr, "%s: ", program_name);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	if (status == EXIT_USAGE)
		fprintf(stderr, "Try '%s --help' for more information.\n",
			program_name);
	exit(status);
}

static void usage_error(const char *format, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	die(EXIT_USAGE, format, args);
}

static void runtime_error(const char *format, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void runtime_error(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	die(EXIT_RUNTIME, format, args);
}

static const struct option_def *find_option(int id)
{
	for (size_t i = 0; i < OPTION_COUNT; i++)
		if (option_defs[i].id == id)
			return &option_defs[i];
	return NULL;
}

/* The default an option's table entry holds, for code that needs it. */
static uint64_t option_default(int id)
{
	return find_option(id)->def;
}

static bool given(const struct config *cfg, int id)
{
	return cfg->given[find_option(id) - option_defs];
}

static uint64_t size_arg(const struct option_def *o, const char *text)
{
	uint64_t value;
	int err = units_parse_size(text, &value);

	if (err == -ERANGE)
		usage_error("--%s: '%s' is too large", o->name, text);
	if (err)
		usage_error("--%s: '%s' is not a size (try 4096, 16K or 4MiB)",
			    o->name, text);
	if (value < o->min)
		usage_error("--%s: must be more than zero", o->name);
	if (o->max && value > o->max) {
		char most[32];

		usage_error("--%s: '%s' is larger than %s, the most one "
			    "transfer takes", o->name, text,
			    units_format_exact_size(most, o->max));
	}
	return value;
}

static uint64_t count_arg(const struct option_def *o, const char *text)
{
	uint64_t value;
	int err = units_parse_count(text, o->min, o->max, &value);

	if (err == -ERANGE)
		usage_error("--%s: '%s' is out of range (%llu to %llu)",
			    o->name, text, (unsigned long long)o->min,
			    (unsigned long long)o->max);
	if (err)
		usage_error("--%s: '%s' is not a whole number", o->name, text);
	return value;
}

static uint64_t seconds_arg(const struct option_def *o, const char *text)
{
	uint64_t ns;

	if (units_parse_duration(text, &ns) || ns == 0)
		usage_error("--%s: '%s' is not a duration (try %s or 2.5s)",
			    o->name, text, o->id == OPT_BUDGET ? "20" : "3");
	return ns;
}

/* Where in the config an option's value goes. */
static void *field_of(struct config *cfg, const struct option_def *o)
{
	return (char *)cfg + o->field;
}

/* Read an option's argument as its table entry says. */
static void set_value(struct config *cfg, const struct option_def *o,
		      const char *arg)
{
	switch (o->kind) {
	case ARG_FLAG: *(bool *)field_of(cfg, o) = true; break;
	case ARG_SIZE: *(uint64_t *)field_of(cfg, o) = size_arg(o, arg); break;
	case ARG_COUNT:
		*(uint64_t *)field_of(cfg, o) = count_arg(o, arg);
		break;
	case ARG_SECONDS:
		*(uint64_t *)field_of(cfg, o) = seconds_arg(o, arg);
		break;
	case ARG_TEXT: *(const char **)field_of(cfg, o) = arg; break;
	case ARG_NONE: break;
	}
}

/* Every value an option holds starts at its table default. */
static void set_defaults(struct config *cfg)
{
	*cfg = (struct config){ .format = REPORT_TEXT };
	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_def *o = &option_defs[i];

		if (o->mode == MODE_NONE && (o->kind == ARG_SIZE ||
		    o->kind == ARG_COUNT || o->kind == ARG_SECONDS))
			*(uint64_t *)field_of(cfg, o) = o->def;
	}
}

/* A test option: one test at a time; the table says what it runs. */
static void choose_test(struct config *cfg, const struct option_def *o,
			const char *arg)
{
	char option[sizeof(cfg->option_text)];

	snprintf(option, sizeof(option), "--%s",
		 o->mode == MODE_DECODE ? "decode" : o->name);
	if (cfg->test_option && strcmp(cfg->test_option, option) != 0)
		usage_error("%s and %s: one test at a time", cfg->test_option,
			    option);
	memcpy(cfg->option_text, option, sizeof(option));
	cfg->test_option = cfg->option_text;
	cfg->test_bit = o->test;
	cfg->mode = o->mode;
	cfg->test = o->program ? programs_find(o->program) : NULL;
	cfg->speed = o->speed;
	if (o->id == OPT_PROGRAM)
		cfg->program_path = arg;
	if (o->id == OPT_RESTORE)
		cfg->restore_path = arg;
	if (o->mode == MODE_DECODE) {
		cfg->decode_kind = o->name + strlen("decode-");
		cfg->decode_hex = arg;
	}
}

static void build_getopt(struct option *longs, char *shorts)
{
	size_t n = 0;

	shorts[n++] = ':';	/* a missing argument is told apart */
	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_def *o = &option_defs[i];

		longs[i] = (struct option){ o->name,
			o->arg ? required_argument : no_argument, NULL, o->id };
		if (o->id <= CHAR_MAX) {
			shorts[n++] = (char)o->id;
			if (o->arg)
				shorts[n++] = ':';
		}
	}
	longs[OPTION_COUNT] = (struct option){ 0 };
	shorts[n] = '\0';
}

static void parse_option(struct config *cfg, int id, const char *arg)
{
	const struct option_def *o = find_option(id);

	if (!o)		/* getopt's complaints are handled in parse_args */
		usage_error("unknown option");
	cfg->given[o - option_defs] = true;
	if (o->mode != MODE_NONE) {
		choose_test(cfg, o, arg);
		return;
	}
	switch (id) {
	case OPT_FORMAT:
		if (report_parse_format(arg, &cfg->format))
			usage_error("--format: unknown format '%s' (text, "
				    "csv, json)", arg);
		break;
	case 'h': usage(stdout); exit(0);
	case 'V': printf("%s %s\n", program_name, VERSION); exit(0);
	default: set_value(cfg, o, arg); break;
	}
}

/* The test as messages name it: -a, --detect, --decode-cid. */
static void test_label(const struct config *cfg, char *buf, size_t size)
{
	const struct option_def *o = NULL;

	for (size_t i = 0; i < OPTION_COUNT && !o; i++)
		if (cfg->given[i] && option_defs[i].test == cfg->test_bit)
			o = &option_defs[i];
	if (cfg->test_bit == T_PLOT_RUNS || !o)
		snprintf(buf, size, "--plot with saved runs");
	else if (o->id <= CHAR_MAX)
		snprintf(buf, size, "-%c", o->id);
	else
		snprintf(buf, size, "--%s", o->name);
}

/* The test option whose bit is test, for "--write goes with --detect". */
static const struct option_def *test_option_of(unsigned test)
{
	for (size_t i = 0; i < OPTION_COUNT; i++)
		if (option_defs[i].mode != MODE_NONE &&
		    option_defs[i].test == test)
			return &option_defs[i];
	return NULL;
}

/* With no test chosen: an option only one test takes names that test. */
static void check_without_test(const struct config *cfg)
{
	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_def *o = &option_defs[i];
		const struct option_def *test = test_option_of(o->applies);

		if (cfg->given[i] && o->mode == MODE_NONE && test)
			usage_error("--%s goes with --%s", o->name, test->name);
	}
	usage_error("no test chosen (e.g. -a for the align test)");
}

/*
 * Every option given must change the chosen test.  The original tool
 * took each of its options with each of its tests and ignored what a
 * test did not use; scripts still pass those, so they only get a warning.
 */
static void check_options(const struct config *cfg)
{
	char test[48];

	test_label(cfg, test, sizeof(test));
	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_def *o = &option_defs[i];

		if (!cfg->given[i] || o->mode != MODE_NONE ||
		    (o->applies & cfg->test_bit))
			continue;
		if (o->original && (cfg->test_bit & T_ORIGINAL)) {
			fprintf(stderr, "%s: warning: --%s has no effect with "
				"%s\n", program_name, o->name, test);
			continue;
		}
		usage_error("--%s %s %s", o->name, o->refusal ? o->refusal :
			    "does not apply to", test);
	}
}

static uint64_t round_up(uint64_t value, uint64_t step)
{
	return (value + step - 1) / step * step;
}

/* Options that take no device, or that draw saved runs. */
static bool parse_deviceless(struct config *cfg, int argc, char **argv)
{
	if (cfg->plot_path && !cfg->test_option) {
		/* flashbench --plot=X.svg run1.json run2.json ... */
		cfg->test_bit = T_PLOT_RUNS;
		check_options(cfg);
		if (optind >= argc)
			usage_error("--plot without a test needs saved json "
				    "runs to draw");
		cfg->plot_inputs = argv + optind;
		cfg->plot_input_count = argc - optind;
		return true;
	}
	if (cfg->mode == MODE_LIST || cfg->mode == MODE_DECODE) {
		check_options(cfg);
		if (optind < argc)
			usage_error("%s takes no device", cfg->mode == MODE_LIST ?
				    "--list-programs" : cfg->test_option);
		return true;
	}
	if (cfg->mode == MODE_ANALYZE) {
		check_options(cfg);
		if (optind >= argc)
			usage_error("--analyze: no file given (- for standard "
				    "input)");
		cfg->files = (const char *const *)argv + optind;
		cfg->file_count = (size_t)(argc - optind);
		return true;
	}
	return false;
}

static void parse_args(struct config *cfg, int argc, char **argv)
{
	struct option longs[OPTION_COUNT + 1];
	char shorts[2 * OPTION_COUNT + 3];
	char why[320];
	int id;

	set_defaults(cfg);
	build_getopt(longs, shorts);
	opterr = 0;
	while ((id = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (id == '?' || id == ':')
			usage_error("%s", cli_option_error(id, optopt,
				    argv[optind - 1], longs, why,
				    sizeof(why)));
		parse_option(cfg, id, optarg);
	}
	if (parse_deviceless(cfg, argc, argv))
		return;
	if (optind >= argc)
		usage_error("no device given");
	cfg->device = argv[optind++];
	if (!cfg->device[0])
		usage_error("the device name is empty");
	if (optind < argc)
		usage_error("unexpected argument '%s' after the device",
			    argv[optind]);
	if (!cfg->test_option)
		check_without_test(cfg);
	check_options(cfg);
	if (cfg->random && cfg->test_bit == T_OPEN_AU)
		cfg->test = programs_find("open-au-random");
	/* writing tests start clear of the FAT area; reading ones at 0 */
	if (!given(cfg, OPT_OFFSET))
		cfg->offset = cfg->test && cfg->test->writes ?
			      round_up(cfg->offset, cfg->erasesize) : 0;
	if (cfg->blocksize > cfg->erasesize &&
	    (cfg->test && cfg->test->writes))
		usage_error("--blocksize %llu is larger than --erasesize %llu",
			    (unsigned long long)cfg->blocksize,
			    (unsigned long long)cfg->erasesize);
}

/* ---- running a test ---- */

/*
 * Where open-au puts its erase blocks: $spacing apart from $offset.  The
 * usual 12 erase blocks apart shrinks until they fit; it never wraps.
 */
static void place_open_au(struct config *cfg, const struct dev *dev,
			  uint64_t *spacing)
{
	uint64_t e = cfg->erasesize, n = cfg->open_au_nr;
	uint64_t apart;

	for (apart = OPEN_AU_SPACING; apart >= 1; apart--)
		if (cfg->offset <= dev->size_bytes &&
		    (n - 1) * apart * e + e <= dev->size_bytes - cfg->offset)
			break;
	if (apart == 0)
		usage_error("--open-au: %llu erase blocks of %llu bytes from "
			    "offset %llu do not fit in %s (%llu bytes)",
			    (unsigned long long)n, (unsigned long long)e,
			    (unsigned long long)cfg->offset, dev->path,
			    (unsigned long long)dev->size_bytes);
	if (apart < OPEN_AU_SPACING)
		fprintf(stderr, "%s: %llu erase blocks %d apart do not fit; "
			"placing them %llu apart\n", program_name,
			(unsigned long long)n, OPEN_AU_SPACING,
			(unsigned long long)apart);
	*spacing = apart * e;
}

/* The parameters the options set, before any program is compiled. */
static void set_option_params(const struct config *cfg)
{
	struct vm_param *p = program_params;

	p[PARAM_BLOCKSIZE].value = (double)cfg->blocksize;
	p[PARAM_ERASESIZE].value = (double)cfg->erasesize;
	p[PARAM_COUNT].value = (double)cfg->count;
	p[PARAM_OFFSET].value = (double)cfg->offset;
	p[PARAM_NR].value = (double)cfg->open_au_nr;
	p[PARAM_SPACING].value = (double)(OPEN_AU_SPACING * cfg->erasesize);
	p[PARAM_FATNR].value = (double)cfg->fat_nr;
	p[PARAM_THREES].value = cfg->threes;
	p[PARAM_SCATTER_COUNT].value = (double)(1ULL << cfg->scatter_order);
	p[PARAM_SCATTER_BYTES].value =
		(double)(cfg->scatter_span * cfg->blocksize);
	p[PARAM_INTERVAL_TOP].value =
		(double)cfg->blocksize * (double)(1ULL << (cfg->interval_order - 1));
	p[PARAM_REGION].value = 16.0 * (double)cfg->erasesize;
	p[PARAM_TIME].value = (double)cfg->time_ns;
	p[PARAM_WINDOWS].value = (double)speed_windows(cfg->time_ns);
	p[PARAM_WRITES].value = !cfg->read_only;
	p[PARAM_IODEPTH].value = (double)cfg->iodepth;
}

/*
 * The JSON parameters of a built-in test: each option that applies to it,
 * named after the long option ("open-au-nr" -> open_au_nr), with the value
 * the run used (durations in ns).  A --program run reports its variables
 * under their own names instead.
 */
#define OPTION_PARAMS 32
static char option_param_names[OPTION_PARAMS][32];
static struct vm_param option_params[OPTION_PARAMS];

static size_t set_option_json_params(const struct config *cfg)
{
	size_t count = 0;

	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_def *d = &option_defs[i];
		const char *field = (const char *)cfg + d->field;
		char *name = option_param_names[count];

		if (d->section != SECTION_PARAMETERS ||
		    !(d->applies & cfg->test_bit) || count == OPTION_PARAMS ||
		    (d->kind != ARG_FLAG && d->kind != ARG_SIZE &&
		     d->kind != ARG_COUNT && d->kind != ARG_SECONDS))
			continue;
		snprintf(name, sizeof(option_param_names[0]), "%s", d->name);
		for (char *c = name; *c; c++)
			*c = *c == '-' ? '_' : *c;
		option_params[count++] = (struct vm_param){ name,
			d->kind == ARG_FLAG ? *(const bool *)field :
			(double)*(const uint64_t *)field };
	}
	return count;
}

static void set_params(struct config *cfg, const struct dev *dev)
{
	uint64_t spacing = OPEN_AU_SPACING * cfg->erasesize;

	if (cfg->test_bit == T_OPEN_AU)
		place_open_au(cfg, dev, &spacing);
	set_option_params(cfg);
	program_params[PARAM_SIZE].value = (double)dev->size_bytes;
	program_params[PARAM_LBS].value = dev->logical_block_bytes;
	program_params[PARAM_SPACING].value = (double)spacing;
	/* as read-speed has it; the speed tests set their own */
	if (cfg->offset < dev->size_bytes && cfg->blocksize)
		program_params[PARAM_SLOTS].value =
			(double)((dev->size_bytes - cfg->offset) /
				 cfg->blocksize);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t length = 0, cap = 0;
	struct stat st;
	int c;

	if (!f)
		runtime_error("%s: %s", path, strerror(errno));
	/* a directory opens, then reads as empty */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
		usage_error("--program: %s: is a directory; give a program "
			    "file", path);
	while ((c = fgetc(f)) != EOF) {
		if (length + 2 > cap) {
			cap = cap ? cap * 2 : 4096;
			if (cap > (1 << 20))
				usage_error("--program: %s is larger than "
					    "1 MiB", path);
			text = realloc(text, cap);
			if (!text)
				runtime_error("out of memory");
		}
		if (c == '\0')
			usage_error("--program: %s is not a text file", path);
		text[length++] = (char)c;
	}
	fclose(f);
	if (!text)
		usage_error("--program: %s is empty", path);
	text[length] = '\0';
	return text;
}

static struct vm_program *compile_test(const struct config *cfg,
				       char **text)
{
	struct vm_program *program;
	struct vm_diag diag;
	const char *source;

	*text = NULL;
	if (cfg->test) {
		source = cfg->test->text;
	} else {
		*text = read_file(cfg->program_path);
		source = *text;
	}
	if (vm_compile(source, program_params, PARAM_COUNT_OF, &program,
		       &diag))
		usage_error("%s:%u:%u: %s", cfg->test ? cfg->test->name :
			    cfg->program_path, diag.line, diag.column,
			    diag.message);
	return program;
}

/* A value a program computed, as its plan error shows it. */
static const char *format_value(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "undefined");
	else
		snprintf(buf, size, isfinite(v) && v == floor(v) ?
			 "%.0f" : "%g", v);
	return buf;
}

/*
 * A step whose offset, length or count is no whole number in range:
 * "read at -4096 (+4096): the offset is negative", "repeat: the count
 * is 0.5, fractional".
 */
static void describe_bad_value(const struct vm_plan *plan, char *buf,
			       size_t size)
{
	char a[64], b[64], operand[48];

	format_value(a, sizeof(a), plan->error_values[0]);
	if (plan->error_value_count == 2) {
		format_value(b, sizeof(b), plan->error_values[1]);
		snprintf(buf, size, "%s at %s (+%s): the %s is %s",
			 plan->error_op, a, b, plan->error_operand,
			 plan->error_why);
		return;
	}
	if (plan->error_operand_index)
		snprintf(operand, sizeof(operand), "%s series' operand %u",
			 plan->error_operand, plan->error_operand_index);
	else
		snprintf(operand, sizeof(operand), "%s", plan->error_operand);
	if (isnan(plan->error_values[0]))
		snprintf(buf, size, "%s: the %s is %s", plan->error_op,
			 operand, plan->error_why);
	else
		snprintf(buf, size, "%s: the %s is %s, %s", plan->error_op,
			 operand, a, plan->error_why);
}

static void plan_test(const struct config *cfg, const struct dev *dev,
		      const struct vm_program *program, struct vm_plan *plan)
{
	const char *name = cfg->test ? cfg->test->name : cfg->program_path;
	static const char *const hints[] = {
		[EINVAL] = "not a multiple of the logical block size",
		[ENOSPC] = "past the end of the device",
		[E2BIG] = "too many operations",
	};
	int err = vm_plan(program, dev, MAX_OPERATIONS, plan);
	char step[256];

	if (!err)
		return;
	if (err == -EDOM) {
		describe_bad_value(plan, step, sizeof(step));
		usage_error("%s: %s (line %u); check --blocksize, --erasesize "
			    "and --offset for %s (%llu bytes, blocks of %u)",
			    name, step, plan->error_line, dev->path,
			    (unsigned long long)dev->size_bytes,
			    dev->logical_block_bytes);
	}
	if (err == -E2BIG)
		usage_error("%s: more than %llu operations (line %u); reduce "
			    "--count or the sizes", name,
			    (unsigned long long)MAX_OPERATIONS,
			    plan->error_line);
	if (err == -EMSGSIZE)
		usage_error("%s: more than %d fields in one record (line %u)",
			    name, VM_MAX_FIELDS, plan->error_line);
	usage_error("%s: %s at %llu (+%llu) is %s (line %u); check "
		    "--blocksize, --erasesize and --offset for %s "
		    "(%llu bytes, blocks of %u)", name, plan->error_op,
		    (unsigned long long)plan->error_offset,
		    (unsigned long long)plan->error_length,
		    -err < (int)(sizeof(hints) / sizeof(hints[0])) &&
		    hints[-err] ? hints[-err] : strerror(-err),
		    plan->error_line, dev->path,
		    (unsigned long long)dev->size_bytes,
		    dev->logical_block_bytes);
}

/* Before any write: say which bytes, and let the device allow only them. */
static void announce_writes(const char *what, struct dev *dev,
			    uint64_t start, uint64_t end)
{
	char from[UNITS_BUF], to[UNITS_BUF];

	fprintf(stderr, "%s: %s overwrites bytes %llu to %llu (%s to %s) "
		"of %s\n", program_name, what, (unsigned long long)start,
		(unsigned long long)end - 1,
		units_format_exact_size(from, start),
		units_format_exact_size(to, end), dev->path);
	dev_allow_writes(dev, start, end);
}

static void open_device(const struct config *cfg, struct dev *dev,
			enum dev_mode mode);

/*
 * Loops with a depth run on an asynchronous engine; when none works the
 * run goes on at depth 1, and says so.
 */
static void setup_engine(struct dev *dev, unsigned depth)
{
	char why[320];

	if (dev_async_setup(dev, depth) == 0) {
		if (dev->engine_note[0])
			fprintf(stderr, "%s: note: %s\n", program_name,
				dev->engine_note);
		return;
	}
	dev_strerror(dev, why, sizeof(why));
	if (dev->error.usage)
		usage_error("%s", why);
	runtime_error("%s", why);
}

/*
 * The first half of every planned test: compile and plan on the
 * read-only open the caller made (nothing can be written by mistake),
 * then, when the plan writes, reopen for writing and announce the
 * plan's range as what's.
 */
static struct vm_program *plan_run(const struct config *cfg,
				   struct dev *dev, const char *what,
				   struct vm_plan *plan, char **text)
{
	struct vm_program *program = compile_test(cfg, text);

	plan_test(cfg, dev, program, plan);
	if (plan->write_end > plan->write_start) {
		dev_close(dev);
		open_device(cfg, dev, DEV_READ_WRITE);
		announce_writes(what, dev, plan->write_start, plan->write_end);
	}
	setup_engine(dev, plan->max_depth);
	return program;
}

static void print_stats(const struct dev *dev);

/*
 * The tail every test shares: stats, then the exit code from how the run
 * ended - interrupted (128 + the signal), out of memory, or the device's
 * error as a runtime failure.
 */
static int end_run(const struct config *cfg, struct dev *dev, int err,
		   const char *interrupted)
{
	char why[320];
	/* what a write test wrote reaches the medium, not only its cache */
	int flush_err = dev_flush(dev);

	if (!err)
		err = flush_err;
	if (cfg->stats)
		print_stats(dev);
	if (err == -EINTR) {
		dev_close(dev);
		fprintf(stderr, "%s: %s\n", program_name, interrupted);
		return EXIT_SIGNAL_BASE + stop_signal;
	}
	if (err == -ENOMEM)
		runtime_error("out of memory");
	if (err) {
		dev_strerror(dev, why, sizeof(why));
		dev_close(dev);
		runtime_error("%s: %s", cfg->device, why);
	}
	dev_close(dev);
	return 0;
}

static void open_device(const struct config *cfg, struct dev *dev,
			enum dev_mode mode)
{
	char why[320];
	const char *what = why;

	if (dev_open(dev, cfg->device, mode) == 0) {
		/* a detached loop device or an ejected card reads as empty */
		if (dev->size_bytes == 0)
			runtime_error("%s: the device is empty (0 bytes)",
				      cfg->device);
		return;
	}
	dev_strerror(dev, why, sizeof(why));
	if (dev->error.usage)
		usage_error("%s", why);
	/* backends name the device themselves when they can */
	if (strncmp(why, cfg->device, strlen(cfg->device)) == 0)
		runtime_error("%s", why);
	if (strncmp(why, "sim: ", 5) == 0)
		what = why + 5;		/* the spec names it better */
	runtime_error("%s: %s", cfg->device, what);
}

/* An option's value in bytes that must be whole logical blocks. */
static void check_multiple(const char *option, uint64_t value,
			   const struct dev *dev)
{
	if (value % dev->logical_block_bytes)
		usage_error("%s %llu is not a multiple of the logical block "
			    "size %u of %s", option, (unsigned long long)value,
			    dev->logical_block_bytes, dev->path);
}

static void check_alignment(const struct config *cfg, const struct dev *dev)
{
	check_multiple("--blocksize", cfg->blocksize, dev);
	check_multiple("--erasesize", cfg->erasesize, dev);
	check_multiple("--offset", cfg->offset, dev);
}

/*
 * Before timing: stay on the CPU we are on, so no migration lands inside
 * a timed operation, and with --realtime take real-time priority.  Both
 * are skipped silently when not permitted (said with -v).
 */
static void prepare_timing(const struct config *cfg)
{
	struct sched_param sp = { .sched_priority = 1 };
	int cpu = sched_getcpu();
	cpu_set_t one;

	CPU_ZERO(&one);
	if (cpu >= 0)
		CPU_SET((unsigned)cpu, &one);
	if ((cpu < 0 || sched_setaffinity(0, sizeof(one), &one)) &&
	    cfg->verbose)
		fprintf(stderr, "%s: cannot pin to a CPU (%s)\n",
			program_name, strerror(errno));
	if (!cfg->realtime)
		return;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) && cfg->verbose)
		fprintf(stderr, "%s: real-time priority not permitted (%s); "
			"running without it\n", program_name,
			strerror(errno));
}

static void print_stats(const struct dev *dev)
{
	char read_text[UNITS_BUF], written_text[UNITS_BUF];

	fprintf(stderr, "device time %.2f s, read %s, written %s\n",
		(double)dev->stats.time_ns / 1e9,
		units_format_size(read_text, (double)dev->stats.bytes_read),
		units_format_size(written_text,
				  (double)dev->stats.bytes_written));
}

/* The interval test's regression over the fastest read of each size. */
struct interval_points {
	double length[64], fastest[64];
	size_t count;
	struct report *report;
};

static int collect_interval(void *ctx, const struct vm_record *record)
{
	struct interval_points *points = ctx;

	if (points->count < 64 && record->count >= 2) {
		points->length[points->count] = record->fields[0].value;
		points->fastest[points->count++] = record->fields[1].value;
	}
	return report_record(points->report, record);
}

/* "19.6 MB/s, 418µs access time", then "4096 bytes: 87µs overhead" */
static const struct text_look regression_looks[] = {
	{ .display = TEXT_MBPS, .template = "% MB/s," },
	{ .display = TEXT_AS_UNIT, .template = "% access time" },
};
static const struct text_layout regression_layout = {
	.style = TEXT_SPACES, .looks = regression_looks, .look_count = 2 };
static const struct text_look overhead_looks[] = {
	{ .display = TEXT_AS_UNIT, .template = "% bytes:" },
	{ .display = TEXT_AS_UNIT, .template = "% overhead" },
};
static const struct text_layout overhead_layout = {
	.style = TEXT_SPACES, .looks = overhead_looks, .look_count = 2 };

static int interval_summary(struct interval_points *points)
{
	double slope, intercept;
	struct vm_record rec = { .layout = &regression_layout, .count = 2 };
	int err;

	if (analysis_interval_fit(points->length, points->fastest,
				  points->count, &slope, &intercept))
		return 0;
	rec.kind = "regression";
	rec.fields[0] = (struct vm_field){ VM_UNIT_RATE, "rate", NULL,
					   NULL, slope > 0 ? 1e9 / slope : 0 };
	rec.fields[1] = (struct vm_field){ VM_UNIT_TIME, "access", NULL,
					   NULL, intercept };
	err = report_record(points->report, &rec);
	rec.kind = "overhead";
	rec.layout = &overhead_layout;
	for (size_t i = 0; !err && i < points->count; i++) {
		rec.fields[0] = (struct vm_field){ VM_UNIT_BYTES, "length",
			NULL, NULL, points->length[i] };
		rec.fields[1] = (struct vm_field){ VM_UNIT_TIME, "overhead",
			NULL, NULL,
			points->fastest[i] - slope * points->length[i] };
		err = report_record(points->report, &rec);
	}
	return err;
}

/*
 * A run's output, the same for every test: the report on standard output
 * or --out, a --plot chart and the progress line beside it.  Records
 * reach all of them through emit_to_sinks.
 */
struct sinks {
	FILE *out;
	struct report *report;
	struct progress progress;
	uint64_t records;		/* handed to the report */
	struct plot *plot;
	int (*emit)(void *ctx, const struct vm_record *record);
	void *ctx;
	int emit_error;			/* why a record could not be taken */
};

static int emit_to_sinks(void *ctx, const struct vm_record *record)
{
	struct sinks *sinks = ctx;

	progress_clear(&sinks->progress);
	sinks->records++;
	if (sinks->plot && plot_record(sinks->plot, record))
		return sinks->emit_error = -ENOMEM;
	return sinks->emit_error = sinks->emit(sinks->ctx, record);
}

/* vm_exec.progress and speed_exec.progress get the sinks as ctx */
static void show_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct sinks *sinks = ctx;

	progress_update(&sinks->progress, done, total);
}

/*
 * Output files named on the command line (-o, --plot) are files: a
 * regular file, new or not, a FIFO or pipe (/dev/fd/N), a character
 * device such as /dev/null.  A block device - the one under test or any
 * other - or a directory is refused, named directly or through a link:
 * results written there would overwrite what it holds.
 */
static void refuse_output_kind(const char *option, const char *path,
			       mode_t mode)
{
	if (S_ISBLK(mode))
		usage_error("%s: %s: is a block device; give a file", option,
			    path);
	if (S_ISDIR(mode))
		usage_error("%s: %s: is a directory; give a file", option,
			    path);
}

/*
 * An output file that is also what the run reads would be lost: the same
 * file (out, from stat), or for one not made yet (out NULL) the same name.
 */
static void refuse_output_over(const char *option, const char *path,
			       const struct stat *out, const char *input,
			       const char *what)
{
	struct stat st;

	if (!input || strcmp(input, "-") == 0)
		return;
	if (out ? stat(input, &st) == 0 && st.st_dev == out->st_dev &&
		  st.st_ino == out->st_ino : strcmp(input, path) == 0)
		usage_error("%s: %s: is %s; give another file", option, path,
			    what);
}

static void check_output_path(const struct config *cfg, const char *option,
			      const char *path)
{
	struct stat st;
	const struct stat *out = &st;

	if (!path)
		return;
	if (!*path)
		usage_error("%s: the file name is empty", option);
	if (stat(path, &st) != 0)
		out = NULL;	/* a new file, or one open() says why not */
	else
		refuse_output_kind(option, path, st.st_mode);
	if (out && !S_ISREG(st.st_mode))
		return;		/* a pipe or /dev/null holds nothing to lose */
	if (path == cfg->plot_path)
		refuse_output_over(option, path, out, cfg->out_path,
				   "the -o file too");
	refuse_output_over(option, path, out, cfg->device,
			   "the device under test");
	for (size_t i = 0; i < cfg->file_count; i++)
		refuse_output_over(option, path, out, cfg->files[i],
				   "one of the files to analyze");
	for (int i = 0; i < cfg->plot_input_count; i++)
		refuse_output_over(option, path, out, cfg->plot_inputs[i],
				   "one of the runs to draw");
}

/* "-" names standard output, for -o and --plot alike. */
static bool is_stdout_name(const char *path)
{
	return path && strcmp(path, "-") == 0;
}

/*
 * Where results and charts go, checked once the options are: before
 * any device is opened or anything announced.  Results on standard
 * output that the shell pointed at a block device are refused as well.
 */
static void check_outputs(struct config *cfg)
{
	bool plot_to_stdout = is_stdout_name(cfg->plot_path);
	struct stat st;

	if (is_stdout_name(cfg->out_path))
		cfg->out_path = NULL;	/* -o - is standard output */
	if (plot_to_stdout && !cfg->plot_inputs && !cfg->out_path)
		usage_error("--plot: - is standard output, where the results "
			    "go too; give the results a file with -o");
	check_output_path(cfg, "-o", cfg->out_path);
	if (!plot_to_stdout)
		check_output_path(cfg, "--plot", cfg->plot_path);
	if ((!cfg->out_path || plot_to_stdout) &&
	    (!cfg->plot_inputs || plot_to_stdout) &&
	    fstat(STDOUT_FILENO, &st) == 0 && S_ISBLK(st.st_mode))
		usage_error("standard output is a block device; give a file "
			    "with -o");
}

/*
 * Open an output file that check_outputs let through.  The name may
 * name something else by now, so nothing is created over or truncated
 * until fstat says what was opened: a block device or a directory is
 * closed unwritten.
 */
static FILE *open_output_file(const char *option, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0666);
	struct stat st;
	FILE *f;

	if (fd < 0)
		runtime_error("%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0)
		runtime_error("%s: %s", path, strerror(errno));
	if (S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode)) {
		close(fd);
		refuse_output_kind(option, path, st.st_mode);
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0)
		runtime_error("%s: %s", path, strerror(errno));
	f = fdopen(fd, "w");
	if (!f)
		runtime_error("%s: %s", path, strerror(errno));
	return f;
}

static void write_plot(const struct config *cfg, struct plot *plot)
{
	FILE *f = is_stdout_name(cfg->plot_path) ? stdout :
		  open_output_file("--plot", cfg->plot_path);

	if (plot_write(plot, f) | (f == stdout ? fflush(f) : fclose(f)))
		runtime_error("%s: write error", cfg->plot_path);
	plot_free(plot);
}

/* flashbench --plot=FILE run.json...: saved runs on one chart. */
static int plot_saved_runs(const struct config *cfg)
{
	struct plot *plot = plot_new(NULL);
	char why[256];

	if (!plot)
		runtime_error("out of memory");
	for (int i = 0; i < cfg->plot_input_count; i++) {
		int err = plot_load_json(plot, cfg->plot_inputs[i], why,
					 sizeof(why));

		if (err == -EISDIR)
			usage_error("--plot: %s: %s", cfg->plot_inputs[i],
				    why);
		if (err)
			runtime_error("%s: %s", cfg->plot_inputs[i], why);
	}
	write_plot(cfg, plot);
	return 0;
}

/* The command line as one shell-quoted string, for the JSON header. */
static char *join_command(int argc, char **argv)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+,./:@%";
	size_t size = 1;
	char *text, *p;

	for (int i = 0; i < argc; i++)
		size += 4 * strlen(argv[i]) + 3;
	text = p = malloc(size);
	if (!text)
		runtime_error("out of memory");
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool quote = !*a || a[strspn(a, plain)];

		if (i)
			*p++ = ' ';
		if (quote)
			*p++ = '\'';
		for (; *a; a++) {
			if (*a == '\'' && quote) {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *a;
			}
		}
		if (quote)
			*p++ = '\'';
	}
	*p = '\0';
	return text;
}

static FILE *open_output(const struct config *cfg)
{
	return cfg->out_path ? open_output_file("-o", cfg->out_path) : stdout;
}

/* Start a test's output; meta gets the command line and the device. */
static void output_open(const struct config *cfg, const struct dev *dev,
			struct report_meta *meta, struct sinks *sinks)
{
	*sinks = (struct sinks){ .out = open_output(cfg) };
	meta->command = cfg->command;
	meta->device = cfg->device;
	meta->device_size = dev->size_bytes;
	meta->logical_block_size = dev->logical_block_bytes;
	sinks->report = report_open(sinks->out, cfg->format, meta);
	if (!sinks->report)
		runtime_error("out of memory");
	sinks->emit = report_record;
	sinks->ctx = sinks->report;
	if (cfg->plot_path) {
		sinks->plot = plot_new(NULL);
		if (!sinks->plot || plot_begin_run(sinks->plot, meta, NULL))
			runtime_error("out of memory");
	}
	progress_start(&sinks->progress, stderr, meta->test,
		       cfg->format == REPORT_TEXT && !cfg->quiet);
}

/*
 * Finish the report (marked incomplete when err is -EINTR), the output
 * file and the chart.  A record the report or the chart could not take
 * ends the program here.
 */
static void output_close(const struct config *cfg, struct sinks *sinks,
			 const struct dev *dev, int err)
{
	const char *name = cfg->out_path ? cfg->out_path : "standard output";

	progress_end(&sinks->progress);
	if (sinks->emit_error == -ENOMEM)
		runtime_error("out of memory");
	if ((report_close(sinks->report, &dev->stats, err == -EINTR) &&
	     !err) || sinks->emit_error)
		runtime_error("%s: write error", name);
	if (sinks->out != stdout && fclose(sinks->out))
		runtime_error("%s: write error", name);
	if (sinks->plot)
		write_plot(cfg, sinks->plot);
}

/* Unreadable blocks a test went past: said, not fatal. */
static void report_skipped(const char *test, uint64_t blocks,
			   uint64_t failed_reads, const struct dev_error *first)
{
	struct dev failed = { .error = *first };
	char why[320];

	dev_strerror(&failed, why, sizeof(why));
	fprintf(stderr, "%s: %s: skipped %llu unreadable block%s (%llu "
		"failed reads; first: %s)\n", program_name, test,
		(unsigned long long)blocks, blocks == 1 ? "" : "s",
		(unsigned long long)failed_reads, why);
}

static int run_test(struct config *cfg)
{
	struct dev dev;
	struct vm_plan plan;
	struct vm_program *program;
	struct interval_points points = { 0 };
	struct report_meta meta = { 0 };
	struct vm_exec exec = { 0 };
	struct sinks sinks;
	char *text;
	int err;

	open_device(cfg, &dev, DEV_READ_ONLY);
	check_alignment(cfg, &dev);
	set_params(cfg, &dev);
	program = plan_run(cfg, &dev, cfg->test ? cfg->test->name :
			   cfg->program_path, &plan, &text);
	meta = (struct report_meta){
		.test = cfg->test ? cfg->test->name : "program",
		.params = program_params, .param_count = PARAM_HEADER_COUNT };
	if (cfg->test) {
		meta.params = option_params;
		meta.param_count = set_option_json_params(cfg);
	}
	output_open(cfg, &dev, &meta, &sinks);
	points.report = sinks.report;
	prepare_timing(cfg);
	if (cfg->test && strcmp(cfg->test->name, "interval") == 0) {
		sinks.emit = collect_interval;
		sinks.ctx = &points;
	}
	exec = (struct vm_exec){ .dev = &dev, .emit = emit_to_sinks,
				 .progress = show_progress, .ctx = &sinks,
				 .stop = &stop_signal,
				 .skip_read_errors = cfg->test &&
						     cfg->test->skips_bad };
	err = vm_run(program, &plan, &exec);
	progress_end(&sinks.progress);
	if (!err && sinks.emit == collect_interval)
		err = interval_summary(&points);
	output_close(cfg, &sinks, &dev, err);
	if (exec.failed_reads) {
		report_skipped(meta.test, exec.dropped_records,
			       exec.failed_reads, &exec.first_failure);
		if (!err && sinks.records == 0)
			runtime_error("%s: %s: no block could be read",
				      cfg->device, meta.test);
	}
	vm_free(program);
	free(text);
	if (err == -ENOMEM)
		runtime_error("out of memory for buffers of %llu bytes",
			      (unsigned long long)plan.max_length);
	return end_run(cfg, &dev, err, "interrupted; results are incomplete");
}

/* The end of output written with open_output: a write error is fatal. */
static void close_output(const struct config *cfg, FILE *out, int err)
{
	if (out != stdout ? fclose(out) != 0 : fflush(out) != 0)
		err = -EIO;
	if (err)
		runtime_error("%s: write error", cfg->out_path ?
			      cfg->out_path : "standard output");
}

static int decode_register(const struct config *cfg)
{
	struct info_register reg;
	char why[256];
	FILE *out;

	/* bad hex is refused before -o is touched */
	if (info_decode_register(cfg->decode_kind, cfg->decode_hex, &reg,
				 why, sizeof(why)))
		usage_error("%s", why);
	out = open_output(cfg);
	if (info_decode(cfg->decode_kind, cfg->decode_hex, cfg->format,
			cfg->command, out, why, sizeof(why)))
		runtime_error("%s", why);
	close_output(cfg, out, 0);
	return 0;
}

/* --info: what the kernel (or the model) knows; never writes. */
static int show_info(const struct config *cfg)
{
	struct info_device device = { .path = cfg->device,
				      .debugfs_root = cfg->debugfs_root,
				      .command = cfg->command };
	struct dev dev;
	char why[320];
	FILE *out;
	int err;

	if (dev_open(&dev, cfg->device, DEV_READ_ONLY) == 0) {
		device.size_bytes = dev.size_bytes;
		device.logical_block_bytes = dev.logical_block_bytes;
		device.simulated = dev.simulated;
		dev_close(&dev);
	} else if (dev.error.usage) {
		usage_error("%s", dev_strerror(&dev, why, sizeof(why)));
	} else if (!cfg->sysfs_root) {
		/* a recorded sysfs tree names devices this machine lacks */
		runtime_error("%s", dev_strerror(&dev, why, sizeof(why)));
	}
	out = open_output(cfg);
	err = info_show(&device, cfg->sysfs_root, cfg->format, out, why,
			sizeof(why));
	if (err && out != stdout)
		fclose(out);
	if (err == -EINVAL)
		usage_error("%s", why);
	if (err)
		runtime_error("%s", why);
	close_output(cfg, out, 0);
	return 0;
}

/*
 * An erase size --detect works with: whole logical blocks, and with
 * --write one the probes fit in and the device holds them at.  Exits 2
 * when it is not.
 */
static void check_detect_erase(const struct config *cfg,
			       const struct dev *dev, uint64_t erase_bytes)
{
	uint64_t start, end;
	int err;

	check_multiple("--erasesize", erase_bytes, dev);
	if (!cfg->write)
		return;
	err = detect_write_range(dev, erase_bytes, &start, &end);
	if (err == -EINVAL)
		usage_error("--detect --write: an erase size of %llu is too "
			    "small for the probes' writes on %s; give %llu "
			    "or more", (unsigned long long)erase_bytes,
			    cfg->device, (unsigned long long)
			    detect_min_erase_bytes(dev->logical_block_bytes));
	if (err)
		usage_error("--detect --write: %s is too small for the "
			    "probes", cfg->device);
}

/* Before --detect --write writes: say where, and allow only that. */
static int announce_detect(void *ctx, struct dev *dev, uint64_t start,
			   uint64_t end)
{
	(void)ctx;
	announce_writes("detect --write", dev, start, end);
	return 0;
}

/* --analyze: findings from saved output; measures nothing. */
static int analyze_saved(const struct config *cfg)
{
	static struct analyze_result result;
	char why[4200];
	FILE *out;
	int err;

	err = analyze_files(cfg->files, cfg->file_count, &result, why,
			    sizeof(why));
	if (err == -EISDIR)
		usage_error("--analyze: %s", why);
	if (err)
		runtime_error("%s", why);
	out = open_output(cfg);
	err = analyze_report(&result, cfg->format, cfg->command, out);
	close_output(cfg, out, err);
	return 0;
}

/* A detect run's report; its parameters with the erase size it used. */
static int detect_output(const struct config *cfg, const struct dev *dev,
			 const struct detect_findings *findings, FILE *out)
{
	struct config used = *cfg;
	struct report_meta meta = { .test = "detect",
		.command = cfg->command, .device = cfg->device,
		.device_size = dev->size_bytes,
		.logical_block_size = dev->logical_block_bytes,
		.params = option_params };

	used.erasesize = findings->erase_used;
	meta.param_count = set_option_json_params(&used);
	if (report_detect(out, cfg->format, &meta, dev, findings))
		runtime_error("%s: write error", cfg->out_path ?
			      cfg->out_path : "standard output");
	return 0;
}

static int run_detect(const struct config *cfg)
{
	struct detect_options options = {
		.write = cfg->write, .budget_ns = cfg->budget_ns,
		.erase_size = given(cfg, 'e') ? cfg->erasesize : 0,
		.sysfs_root = cfg->sysfs_root, .verbose = cfg->verbose };
	struct detect_findings findings;
	struct dev dev;
	FILE *out;
	int err;

	/* the erase size given is checked on a read-only open: nothing
	   is announced or opened for writing before it holds */
	open_device(cfg, &dev, DEV_READ_ONLY);
	if (given(cfg, 'e'))
		check_detect_erase(cfg, &dev, cfg->erasesize);
	if (cfg->write) {
		dev_close(&dev);
		open_device(cfg, &dev, DEV_READ_WRITE);
	}
	options.announce = announce_detect;
	out = open_output(cfg);
	prepare_timing(cfg);
	err = detect_run(&dev, &options, &stop_signal, &findings);
	if (!err)
		err = detect_output(cfg, &dev, &findings, out);
	if (out != stdout)
		fclose(out);
	if (err == -EDOM)
		usage_error("--detect --write: no erase-block size was found; "
			    "give it with --erasesize");
	if (err == -EINVAL)
		check_detect_erase(cfg, &dev, findings.erase_used);
	if (err == -ENOSPC && dev.error.operation == NULL)
		usage_error("--detect --write: %s is too small for the probes",
			    cfg->device);
	return end_run(cfg, &dev, err, "interrupted");
}

/* The speed tests' names in reports, by enum value. */
static const char *const speed_tests[] = {
	[SPEED_READ] = "read-speed", [SPEED_WRITE] = "write-speed",
	[SPEED_IOPS] = "iops", [SPEED_CLASS] = "class-check",
};

/*
 * The JSON parameters of a speed test: its options, as for every built-in
 * test, with the values the run used (-t's and --iops' own -b default,
 * the span that fit, the queue depth that ran).
 */
static void speed_params(struct config *cfg, uint64_t block, uint64_t span,
			 unsigned iodepth, struct report_meta *meta)
{
	size_t count;

	if (cfg->speed == SPEED_READ || cfg->speed == SPEED_IOPS)
		cfg->blocksize = block;
	if (cfg->speed != SPEED_READ)
		cfg->span = span;
	count = set_option_json_params(cfg);
	/* what ran: at depth 1 when no engine could queue */
	for (size_t i = 0; i < count; i++)
		if (strcmp(option_params[i].name, "iodepth") == 0)
			option_params[i].value = iodepth;
	meta->params = option_params;
	meta->param_count = count;
}

/* -t and --iops take -b, each with its own default; the rest erase blocks */
static uint64_t speed_block(const struct config *cfg)
{
	int test = cfg->speed == SPEED_READ ? 't' : OPT_IOPS;

	if (cfg->speed != SPEED_READ && cfg->speed != SPEED_IOPS)
		return cfg->erasesize;
	return given(cfg, 'b') ? cfg->blocksize : option_default(test);
}

/* How many blocks of block_bytes a speed test walks from its offset. */
static uint64_t speed_slots(const struct config *cfg, const struct dev *dev,
			    uint64_t block, uint64_t start, uint64_t end)
{
	uint64_t slots;

	if (cfg->speed == SPEED_READ)
		return (dev->size_bytes - cfg->offset) / block;
	if (cfg->speed == SPEED_WRITE)
		return (end - start) / cfg->erasesize;
	/* random I/O: as many as an LFSR shuffle visits */
	slots = (end - start) / block;
	return slots > LFSR_MAX_SLOTS ? LFSR_MAX_SLOTS : slots;
}

static void set_speed_params(struct config *cfg, const struct dev *dev,
			     uint64_t block, uint64_t start, uint64_t end)
{
	struct vm_param *p = program_params;

	set_params(cfg, dev);
	p[PARAM_BLOCKSIZE].value = (double)block;
	p[PARAM_OFFSET].value = (double)(cfg->speed == SPEED_READ ?
					 cfg->offset : start);
	p[PARAM_SPAN].value = (double)(end - start);
	p[PARAM_TIME].value = (double)cfg->time_ns;
	p[PARAM_WINDOWS].value = (double)speed_windows(cfg->time_ns);
	p[PARAM_SLOTS].value = (double)speed_slots(cfg, dev, block, start,
						   end);
	p[PARAM_WRITES].value = !cfg->read_only;
}

/* A speed program's run: its records go to speed.c, progress to sinks. */
struct speed_run {
	struct sinks *sinks;
	struct speed_results results;
};

static int collect_speed(void *ctx, const struct vm_record *record)
{
	struct speed_run *run = ctx;

	return speed_collect(&run->results, record);
}

static void speed_progress(void *ctx, uint64_t done_ms, uint64_t total_ms)
{
	struct speed_run *run = ctx;

	show_progress(run->sinks, done_ms, total_ms);
}

/* The test's records, from what the program measured. */
static int emit_speed(const struct config *cfg, struct speed_run *run,
		      uint64_t block, uint64_t failed_reads,
		      const struct info_card *card,
		      const struct info_card *claimed, bool simulated)
{
	struct speed_exec x = { .emit = emit_to_sinks, .ctx = run->sinks,
				.failed_reads = failed_reads };
	struct hostq q;
	int err;

	/* a real device's results carry its host link */
	if (card && card->link.bus != LINK_BUS_NONE)
		x.link = &card->link;

	switch (cfg->speed) {
	case SPEED_READ:
		return speed_emit_rate(&x, &run->results, false, block);
	case SPEED_WRITE:
		return speed_emit_rate(&x, &run->results, true, block);
	case SPEED_IOPS:
		return speed_emit_iops(&x, &run->results);
	default:
		break;
	}
	err = speed_emit_classes(&x, &run->results, claimed);
	if (!err && !simulated)
		hostq_read(cfg->device, cfg->sysfs_root, &q);
	return err ? err : speed_emit_host_queue(&x, simulated ? NULL : &q);
}

static int run_speed(struct config *cfg)
{
	uint64_t start = 0, end = 0, block;
	struct info_card *card, *known = NULL, *claimed = NULL;
	struct info_device idev;
	struct report_meta meta = { .test = speed_tests[cfg->speed] };
	struct vm_program *program;
	struct vm_plan plan;
	struct vm_exec exec;
	struct speed_run run;
	struct sinks sinks;
	char why[320], *text;
	struct dev dev;
	int err = 0, emitted;

	/* plan on a read-only open: nothing can be written by mistake */
	open_device(cfg, &dev, DEV_READ_ONLY);
	check_alignment(cfg, &dev);
	if (cfg->speed != SPEED_READ &&
	    speed_write_range(&dev, cfg->erasesize, cfg->span, &start, &end))
		usage_error("%s: no whole %llu-byte erase block fits above "
			    "16MiB on %s", cfg->test_option,
			    (unsigned long long)cfg->erasesize, dev.path);
	block = speed_block(cfg);
	if (cfg->speed == SPEED_IOPS && block > end - start)
		usage_error("--iops: --blocksize %llu is larger than the %llu "
			    "bytes it may use on %s",
			    (unsigned long long)block,
			    (unsigned long long)(end - start), dev.path);
	if (cfg->speed == SPEED_READ &&
	    (cfg->offset >= dev.size_bytes ||
	     block > dev.size_bytes - cfg->offset))
		usage_error("%s: --offset %llu plus a %llu-byte block is past "
			    "the end of %s", cfg->test_option,
			    (unsigned long long)cfg->offset,
			    (unsigned long long)block, dev.path);
	/* after the usage checks, which exit: nothing to free before them */
	card = calloc(1, sizeof(*card));
	if (!card)
		runtime_error("out of memory");
	cfg->test = programs_find(meta.test);
	set_speed_params(cfg, &dev, cfg->speed == SPEED_CLASS ?
			 SPEED_IO_BYTES : block, start, end);
	program = plan_run(cfg, &dev, cfg->test_option, &plan, &text);
	idev = (struct info_device){ .path = cfg->device,
		.size_bytes = dev.size_bytes,
		.logical_block_bytes = dev.logical_block_bytes,
		.simulated = dev.simulated, .debugfs_root = cfg->debugfs_root };
	/* read before timing starts: the claims and the host link */
	if (!dev.simulated &&
	    info_read_card(&idev, cfg->sysfs_root, card, why,
			   sizeof(why)) == 0)
		known = card;
	if (known && card->has_speed)
		claimed = card;
	if (cfg->speed == SPEED_CLASS) {
		/* JSON: "classes", keyed by class name, beside "results" */
		meta.index_member = "classes";
		meta.index_key = "class";
	}
	speed_params(cfg, block, end - start,
		     dev.depth < cfg->iodepth ? dev.depth : (unsigned)cfg->iodepth,
		     &meta);
	meta.engine = dev_engine_name(dev.engine);
	output_open(cfg, &dev, &meta, &sinks);
	run.sinks = &sinks;
	if (speed_results_init(&run.results, cfg->time_ns))
		runtime_error("out of memory");
	prepare_timing(cfg);
	exec = (struct vm_exec){ .dev = &dev, .emit = collect_speed,
				 .progress = speed_progress, .ctx = &run,
				 .stop = &stop_signal,
				 .skip_read_errors = cfg->test->skips_bad };
	err = vm_run(program, &plan, &exec);
	progress_end(&sinks.progress);
	speed_results_ran_at(&run.results, dev.depth);
	if (!err || err == -EINTR) {
		emitted = emit_speed(cfg, &run, block, exec.failed_reads,
				     known, claimed, dev.simulated);
		if (emitted)
			err = emitted;
	}
	speed_results_free(&run.results);
	vm_free(program);
	free(card);
	output_close(cfg, &sinks, &dev, err);
	if (exec.failed_reads)
		report_skipped(meta.test, exec.failed_reads, exec.failed_reads,
			       &exec.first_failure);
	return end_run(cfg, &dev, err, "interrupted; results are incomplete");
}

static void print_line(void *ctx, const char *line)
{
	fprintf(ctx, "%s\n", line);
}

/*
 * A built-in program as a record of kind "program": name, summary and
 * the listing; text prints it as "# name: summary", the listing, a blank
 * line.
 */
static const struct text_look program_looks[] = {
	{ .display = TEXT_AS_UNIT, .template = "# %:" },
	{ .display = TEXT_AS_UNIT, .template = "%\n" },
	{ .display = TEXT_AS_UNIT, .template = "%" },
};
static const struct text_layout program_layout = {
	.style = TEXT_SPACES, .looks = program_looks, .look_count = 3 };

static void emit_program(struct report *report, const struct program_def *def,
			 const char *listing)
{
	struct vm_record rec = { .kind = "program", .count = 3,
				 .layout = &program_layout };

	rec.fields[0] = (struct vm_field){ VM_UNIT_LABEL, "name", NULL,
					   def->name, 0 };
	rec.fields[1] = (struct vm_field){ VM_UNIT_LABEL, "summary", NULL,
					   def->summary, 0 };
	rec.fields[2] = (struct vm_field){ VM_UNIT_LABEL, "text", NULL,
					   listing, 0 };
	report_record(report, &rec);
}

static int list_programs(const struct config *cfg)
{
	FILE *out = open_output(cfg);
	struct report_meta meta = { .test = "list-programs",
				    .command = cfg->command };
	struct report *report = report_open(out, cfg->format, &meta);
	int err = 0;

	if (!report)
		runtime_error("out of memory");
	/* compiled with the options' values: the table's defaults */
	set_option_params(cfg);
	for (size_t i = 0; i < programs_count; i++) {
		struct vm_program *program;
		struct vm_diag diag;
		char *listing = NULL;
		size_t listing_bytes = 0;
		FILE *text = open_memstream(&listing, &listing_bytes);

		if (!text)
			runtime_error("out of memory");
		if (vm_compile(programs[i].text, program_params,
			       PARAM_COUNT_OF, &program, &diag))
			runtime_error("built-in %s:%u:%u: %s",
				      programs[i].name, diag.line,
				      diag.column, diag.message);
		vm_list(program, print_line, text);
		vm_free(program);
		if (fclose(text))
			runtime_error("out of memory");
		emit_program(report, &programs[i], listing);
		free(listing);
	}
	err = report_close(report, NULL, false);
	close_output(cfg, out, err);
	return 0;
}

/* ---- --capacity-check and --restore ---- */

/* Refused before anything is opened for writing: exit 2. */
static void check_capacity_args(const struct config *cfg,
				const struct dev *dev, const char *undo_path)
{
	char why[PATH_MAX + 160];
	int err;

	if (dev->logical_block_bytes < STAMP_MIN_BYTES)
		usage_error("--capacity-check: %s has blocks of %u bytes; "
			    "stamps need %d", cfg->device,
			    dev->logical_block_bytes, STAMP_MIN_BYTES);
	if (dev->simulated && !sim_keeps_data(dev))
		usage_error("--capacity-check: the simulated card keeps no "
			    "data; give it fake=SIZE (fake=%llu for a genuine "
			    "one)", (unsigned long long)dev->size_bytes);
	if (dev->size_bytes < capacity_min_device_bytes(cfg->cache_limit))
		usage_error("--capacity-check: %s (%llu bytes) is too small "
			    "for --cache-limit %llu; give a smaller one",
			    cfg->device,
			    (unsigned long long)dev->size_bytes,
			    (unsigned long long)cfg->cache_limit);
	err = undo_check_new(undo_path, why, sizeof(why));
	if (err == -EEXIST)
		usage_error("--undo-file: %s exists (left by a run that did "
			    "not finish? %s --restore=%s %s puts its blocks "
			    "back); remove it to start over", undo_path,
			    program_name, undo_path, cfg->device);
	if (err)
		usage_error("--undo-file: %s: %s", undo_path, why);
	err = undo_check_location(undo_path, cfg->device, why, sizeof(why));
	if (err == -EXDEV)
		usage_error("--undo-file: %s; put it on another device",
			    why);
	if (err)
		usage_error("--undo-file: %s: %s", undo_path,
			    strerror(-err));
}

static void announce_capacity(const struct config *cfg, struct dev *dev,
			      const char *undo_path)
{
	uint64_t most = capacity_max_write_bytes(dev->size_bytes,
						 dev->logical_block_bytes,
						 cfg->cache_limit);

	announce_writes("--capacity-check", dev, 0, dev->size_bytes);
	fprintf(stderr, "%s: --capacity-check writes at most %llu bytes, in "
		"probe blocks across the device and a flush area at its "
		"start; each block's old contents go to %s first and are "
		"put back at the end (after a crash: %s --restore=%s %s)\n",
		program_name, (unsigned long long)most, undo_path,
		program_name, undo_path, dev->path);
}

/* A range the undo file could not put back, on stderr. */
static void print_damage(const char *device, const struct undo_damage *d)
{
	if (d->range_known)
		fprintf(stderr, "%s: %s: bytes %llu to %llu not put back: "
			"their record in the undo file is damaged\n",
			program_name, device, (unsigned long long)d->offset,
			(unsigned long long)(d->offset + d->length - 1));
	else
		fprintf(stderr, "%s: %s: the undo file's bytes %llu to %llu "
			"are damaged; the blocks they held are not known\n",
			program_name, device,
			(unsigned long long)d->file_offset,
			(unsigned long long)(d->file_offset + d->file_bytes -
					     1));
}

/* After the restore: said on stderr, and a failure is exit 1. */
static void report_restore(const struct config *cfg,
			   const struct capacity_result *r,
			   const char *undo_path, bool interrupted)
{
	const struct undo_result *u = &r->restore;

	for (size_t i = 0; i < u->damaged_count; i++)
		print_damage(cfg->device, &u->damaged[i]);
	if (u->blocks_differing == 0 && u->damaged_count == 0)
		return;
	if (u->blocks_differing == 0)
		fprintf(stderr, "%s: the undo file %s is kept: %s --restore=%s "
			"%s\n", program_name, undo_path, program_name,
			undo_path, cfg->device);
	else
		fprintf(stderr, "%s: %s: %llu of %llu blocks put back do not "
			"read back as saved (first at %llu); the undo file %s "
			"is kept: %s --restore=%s %s\n", program_name,
			cfg->device, (unsigned long long)u->blocks_differing,
			(unsigned long long)u->blocks_checked,
			(unsigned long long)u->first_differing, undo_path,
			program_name, undo_path, cfg->device);
	if (!interrupted)
		exit(EXIT_RUNTIME);
}

/* The exit status of a finished check: its verdict, for scripts. */
static int verdict_exit(const struct capacity_result *r)
{
	if (r->verdict && strcmp(r->verdict, "fake") == 0)
		return EXIT_FAKE;
	if (r->verdict && strcmp(r->verdict, "damaged") == 0)
		return EXIT_DAMAGED;
	return EXIT_OK;
}

static int run_capacity(struct config *cfg)
{
	char default_undo[PATH_MAX], undo_why[PATH_MAX + 160];
	const char *undo_path = cfg->undo_path;
	struct vm_param params[] = {
		{ "cache_limit_bytes", (double)cfg->cache_limit } };
	struct report_meta meta = { .test = "capacity-check",
				    .params = params, .param_count = 1 };
	struct capacity_options options;
	struct capacity_result result;
	struct sinks sinks;
	struct dev dev;
	int err, status;

	open_device(cfg, &dev, DEV_READ_ONLY);
	if (!undo_path) {
		if (undo_default_path(cfg->device, default_undo,
				      sizeof(default_undo), undo_why,
				      sizeof(undo_why)))
			usage_error("--undo-file: %s", undo_why);
		undo_path = default_undo;
	}
	check_capacity_args(cfg, &dev, undo_path);
	dev_close(&dev);
	open_device(cfg, &dev, DEV_READ_WRITE);
	announce_capacity(cfg, &dev, undo_path);
	output_open(cfg, &dev, &meta, &sinks);
	progress_end(&sinks.progress);
	prepare_timing(cfg);
	options = (struct capacity_options){
		.cache_limit_bytes = cfg->cache_limit, .undo_path = undo_path,
		.stop = &stop_signal, .report = sinks.report,
		.out = sinks.out, .every_probe = cfg->verbose };
	err = capacity_run(&dev, &options, &result, undo_why,
			   sizeof(undo_why));
	output_close(cfg, &sinks, &dev, err);
	if (err && err != -EINTR && access(undo_path, F_OK) == 0)
		fprintf(stderr, "%s: the undo file %s is kept: %s --restore=%s "
			"%s\n", program_name, undo_path, program_name,
			undo_path, cfg->device);
	if (undo_why[0]) {
		dev_close(&dev);
		runtime_error("%s", undo_why);
	}
	if (err == -ERANGE)
		runtime_error("--capacity-check: %s: a probe round does not fit "
			      "the device", cfg->device);
	report_restore(cfg, &result, undo_path, err == -EINTR);
	undo_result_free(&result.restore);
	status = end_run(cfg, &dev, err, "interrupted; every block written "
			 "was put back");
	return status == EXIT_OK ? verdict_exit(&result) : status;
}

/*
 * The proof undo_check_file gathered, judged: 0 to go on (saying so
 * when the device's identity is another's, or the file is FBUNDO01), or
 * -ENODEV (another device: exit 2) or -ESTALE (this device, written
 * since: exit 1) with why set.  A failure of the device ends here.
 */
static int check_undo_proof(const struct config *cfg, int undo_fd,
			    struct dev *dev, char *why, size_t size)
{
	struct undo_proof proof;
	char what[320];
	int err = undo_check_file(undo_fd, dev, &proof, why, size);

	if (err && !why[0])
		runtime_error("%s: %s", cfg->device,
			      dev_strerror(dev, what, sizeof(what)));
	if (!err && !proof.proven)
		snprintf(why, size, proof.identity_differs ?
			 "it was made for another device of the same size "
			 "(its identity differs, and the block at %llu holds "
			 "data the file neither saved nor wrote)" :
			 "the block at %llu holds data the file neither saved "
			 "nor wrote (written since the check?); nothing was "
			 "put back", (unsigned long long)proof.first_unexplained);
	if (!err && !proof.proven)
		return proof.identity_differs ? -ENODEV : -ESTALE;
	if (!err && proof.version == 1)
		fprintf(stderr, "%s: --restore: %s: an FBUNDO01 file (from an "
			"older flashbench): its records are read up to the "
			"first damaged one, none after it\n", program_name,
			cfg->restore_path);
	if (!err && proof.identity_differs)
		fprintf(stderr, "%s: --restore: %s: %s is not the device the "
			"file names (its identity differs), but each of the "
			"%llu blocks it recorded below %llu holds what the file "
			"saved or wrote: restoring\n", program_name,
			cfg->restore_path, cfg->device,
			(unsigned long long)proof.blocks_read,
			(unsigned long long)proof.usable_bytes);
	return err;
}

/*
 * Before --restore writes anything: is the undo file one only this user
 * could have written, and this device's?  Its descriptor, opened once:
 * the restore reads what was checked, whatever the name means by then.
 */
static int open_undo_file(const struct config *cfg)
{
	char why[PATH_MAX + 160];
	struct dev dev;
	int undo_fd = undo_open_trusted(cfg->restore_path, why, sizeof(why));
	int err;

	if (undo_fd == -EPERM)
		usage_error("--restore: %s: %s", cfg->restore_path, why);
	if (undo_fd < 0)
		runtime_error("--restore: %s: %s", cfg->restore_path, why);
	open_device(cfg, &dev, DEV_READ_ONLY);
	err = check_undo_proof(cfg, undo_fd, &dev, why, sizeof(why));
	dev_close(&dev);
	if (err == -ENODEV || err == -EINVAL)
		usage_error("--restore: %s: %s", cfg->restore_path, why);
	if (err)
		runtime_error("--restore: %s: %s", cfg->restore_path, why);
	return undo_fd;
}

static int run_restore(const struct config *cfg)
{
	struct report_meta meta = { .test = "restore" };
	struct undo_result r;
	struct sinks sinks;
	struct dev dev;
	char why[PATH_MAX + 160];
	int undo_fd = open_undo_file(cfg);
	int err;

	open_device(cfg, &dev, DEV_READ_WRITE);
	announce_writes("--restore", &dev, 0, dev.size_bytes);
	err = undo_restore(undo_fd, &dev, UNDO_VERIFY_MARKED, &r, why,
			   sizeof(why));
	close(undo_fd);
	if (err && why[0])
		runtime_error("--restore: %s: %s", cfg->restore_path, why);
	/* on the medium before the file that could undo it is forgotten */
	if (!err)
		err = dev_flush(&dev);
	if (!err) {
		output_open(cfg, &dev, &meta, &sinks);
		progress_end(&sinks.progress);
		capacity_emit_restore(sinks.report, &r);
		output_close(cfg, &sinks, &dev, 0);
	}
	for (size_t i = 0; !err && i < r.damaged_count; i++)
		print_damage(cfg->device, &r.damaged[i]);
	if (!err && r.damaged_count)
		runtime_error("--restore: %s: %zu damaged records not put "
			      "back; the file is kept", cfg->restore_path,
			      r.damaged_count);
	if (!err && r.blocks_differing)
		runtime_error("--restore: %s: %llu blocks do not read back as "
			      "saved (first at %llu); the file is kept",
			      cfg->device,
			      (unsigned long long)r.blocks_differing,
			      (unsigned long long)r.first_differing);
	if (!err && unlink(cfg->restore_path))
		fprintf(stderr, "%s: --restore: %s: every block is back, but "
			"the file stays: %s\n", program_name,
			cfg->restore_path, strerror(errno));
	undo_result_free(&r);
	return end_run(cfg, &dev, err, "interrupted");
}

/* What the options chose, run; its exit code. */
static int dispatch(struct config *cfg)
{
	if (cfg->mode == MODE_LIST)
		return list_programs(cfg);
	if (cfg->plot_inputs)
		return plot_saved_runs(cfg);
	switch (cfg->mode) {
	case MODE_DECODE:
		return decode_register(cfg);
	case MODE_INFO:
		return show_info(cfg);
	case MODE_ANALYZE:
		return analyze_saved(cfg);
	default:
		break;
	}
	catch_signals();
	return cfg->mode == MODE_DETECT ? run_detect(cfg) :
	       cfg->mode == MODE_RESTORE ? run_restore(cfg) :
	       cfg->mode == MODE_CAPACITY ? run_capacity(cfg) :
	       cfg->mode == MODE_SPEED ? run_speed(cfg) : run_test(cfg);
}

int main(int argc, char **argv)
{
	struct config cfg;
	int ret;

	parse_args(&cfg, argc, argv);
	check_outputs(&cfg);
	/* every JSON document names the command that made it */
	cfg.command = join_command(argc, argv);
	ret = dispatch(&cfg);
	free(cfg.command);
	return ret;
}
