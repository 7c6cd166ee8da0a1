/*
 * options: the one table of flashbench's options - getopt's tables,
 * --help, the defaults and the check that an option fits its test are
 * all built from it - and the reading of the command line into a
 * struct config.  Bad input ends in usage_error (exit 2).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "lib/cli.h"
#include "lib/die.h"
#include "lib/units.h"
#include "lib/release.h"
#include "measure/passes.h"
#include "measure/speed.h"
#include "measure/writerange.h"
#include "modes/options.h"
#include "output/render.h"
#include "vm/programs.h"

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
 * so in a run's program parameters, and the check that an option fits its
 * test are all built from this.
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
	TEST(OPT_SURFACE, "surface", SECTION_TESTS,
	     "every block read; checked with --write, --keep-data",
	     MODE_SURFACE, NULL, SPEED_NONE, T_SURFACE),
	TEST(OPT_POWER_CUT, "power-cut", SECTION_TESTS,
	     "what survives a power cut (destructive)",
	     MODE_POWER_CUT, NULL, SPEED_NONE, T_POWER_CUT),
	{ .id = OPT_RESTORE, .name = "restore", .arg = "FILE",
	  .section = SECTION_TESTS,
	  .help = "put back the blocks saved in an undo FILE",
	  .mode = MODE_RESTORE, .test = T_RESTORE },
	TEST(OPT_ANALYZE, "analyze", SECTION_TESTS,
	     "read saved -a, -O output from FILEs (- is stdin)",
	     MODE_ANALYZE, NULL, SPEED_NONE, T_ANALYZE),
	TEST(OPT_COMPARE, "compare", SECTION_TESTS,
	     "saved json runs of several cards in one table",
	     MODE_COMPARE, NULL, SPEED_NONE, T_COMPARE),
	TEST(OPT_INFO, "info", SECTION_TESTS,
	     "identity of the device and card, from sysfs",
	     MODE_INFO, NULL, SPEED_NONE, T_INFO),
	TEST(OPT_REPORT, "report", SECTION_TESTS,
	     "identity, geometry and speed in one run",
	     MODE_REPORT, NULL, SPEED_NONE, T_REPORT),
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
		     T_DETECT | T_WRITE_SPEED | T_IOPS | T_CLASS | T_REPORT,
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
	  "start of a test's range (%s: -A, -O, --power-cut)",
	  .kind = ARG_SIZE, .field = FIELD(offset),
	  .def = MEASURE_WRITE_FLOOR_BYTES,	/* clear of the FAT area */
	  .applies = T_WRITE_ALIGN | T_OPEN_AU | T_SCATTER | T_INTERVAL |
		     T_PROGRAM | T_READ_SPEED | T_SURFACE | T_POWER_CUT,
	  .original = true },
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
	  "--detect, --report, --surface write too (destructive)",
	  .kind = ARG_FLAG, .field = FIELD(write),
	  .applies = T_DETECT | T_REPORT | T_SURFACE },
	{ OPT_KEEP_DATA, "keep-data", NULL, SECTION_PARAMETERS,
	  "--surface writes, keeping every byte (undo file)",
	  .kind = ARG_FLAG, .field = FIELD(keep_data), .applies = T_SURFACE },
	{ OPT_RESUME, "resume", "FILE", SECTION_PARAMETERS,
	  "--surface --keep-data goes on from an undo FILE",
	  .kind = ARG_TEXT, .field = FIELD(resume_path),
	  .applies = T_SURFACE },
	{ OPT_PASSES, "passes", "N", SECTION_PARAMETERS,
	  "--surface --write: N passes, the endurance test",
	  .kind = ARG_COUNT, .field = FIELD(passes), .min = 1,
	  .max = PASSES_MAX, .applies = T_SURFACE },
	{ OPT_UNTIL, "until", "WHEN", SECTION_PARAMETERS,
	  "passes until first-error, PERCENT bad or read-only",
	  .kind = ARG_TEXT, .field = FIELD(until), .applies = T_SURFACE },
	{ OPT_STATE, "state", "FILE", SECTION_PARAMETERS,
	  "the passes' state FILE: an existing one goes on",
	  .kind = ARG_TEXT, .field = FIELD(state_path),
	  .applies = T_SURFACE },
	{ OPT_BUDGET, "budget", "SECONDS", SECTION_PARAMETERS,
	  "device time --detect may spend reading (default %s)",
	  .kind = ARG_SECONDS, .field = FIELD(budget_ns), .def = SECONDS(20),
	  .applies = T_DETECT | T_REPORT },
	{ OPT_TIME, "time", "SECONDS", SECTION_PARAMETERS,
	  "device time per measurement (default %s)", .kind = ARG_SECONDS,
	  .field = FIELD(time_ns), .def = SECONDS(3),
	  .applies = T_SPEED | T_PROGRAM | T_REPORT },
	{ OPT_SPAN, "span", "SIZE", SECTION_PARAMETERS,
	  "range tested (default %s, --power-cut 64MiB)", .kind = ARG_SIZE,
	  .field = FIELD(span), .def = SPEED_WRITE_SPAN_BYTES, .min = 1,
	  .applies = T_WRITE_SPEED | T_IOPS | T_CLASS | T_REPORT |
		     T_SURFACE | T_POWER_CUT },
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
	  .min = 1, .applies = T_CAPACITY | T_REPORT },
	{ OPT_UNDO_FILE, "undo-file", "FILE", SECTION_PARAMETERS,
	  "undo FILE of --capacity-check, --keep-data, --report",
	  .kind = ARG_TEXT, .field = FIELD(undo_path),
	  .applies = T_CAPACITY | T_REPORT | T_SURFACE },
	{ OPT_CYCLES, "cycles", "N", SECTION_PARAMETERS,
	  "power cuts of --power-cut (default %s; by hand 1)",
	  .kind = ARG_COUNT, .field = FIELD(cycles), .def = 10, .min = 1,
	  .max = 100000, .applies = T_POWER_CUT },
	{ OPT_LOG, "log", "FILE", SECTION_PARAMETERS,
	  "--power-cut logs each write to FILE (- is stdout)",
	  .kind = ARG_TEXT, .field = FIELD(log_path),
	  .applies = T_POWER_CUT },
	{ OPT_CUT_COMMAND, "cut-command", "CMD", SECTION_PARAMETERS,
	  "shell command that cuts the device's power",
	  .kind = ARG_TEXT, .field = FIELD(cut_command),
	  .applies = T_POWER_CUT },
	{ OPT_POWER_COMMAND, "power-command", "CMD", SECTION_PARAMETERS,
	  "shell command that gives the power back",
	  .kind = ARG_TEXT, .field = FIELD(power_command),
	  .applies = T_POWER_CUT },
	{ OPT_VERIFY, "verify", "LOG", SECTION_PARAMETERS,
	  "--power-cut checks the device against a saved LOG",
	  .kind = ARG_TEXT, .field = FIELD(verify_path),
	  .applies = T_POWER_CUT },
	{ OPT_SEED, "seed", "N", SECTION_PARAMETERS,
	  "--power-cut's cuts, --passes' order (default random)",
	  .kind = ARG_COUNT, .field = FIELD(seed), .max = UINT32_MAX,
	  .applies = T_POWER_CUT | T_SURFACE },
	{ OPT_SYSFS_ROOT, "sysfs-root", "DIR", SECTION_PARAMETERS,
	  "read sysfs from DIR, not /sys", .kind = ARG_TEXT,
	  .field = FIELD(sysfs_root),
	  .applies = T_INFO | T_DETECT | T_SPEED | T_REPORT },
	{ OPT_DEBUGFS_ROOT, "debugfs-root", "DIR", SECTION_PARAMETERS,
	  "read debugfs from DIR, not /sys/kernel/debug",
	  .kind = ARG_TEXT, .field = FIELD(debugfs_root),
	  .applies = T_INFO | T_SPEED | T_REPORT },

	{ OPT_FORMAT, "format", "FORMAT", SECTION_OUTPUT,
	  "output format: text (default), csv or json",
	  .applies = T_OUTPUT },
	{ OPT_PLOT, "plot", "FILE", SECTION_OUTPUT,
	  "draw the results (or saved json runs) as SVG in FILE",
	  .kind = ARG_TEXT, .field = FIELD(plot_path),
	  .applies = T_VM | T_READ_SPEED | T_WRITE_SPEED | T_PLOT_RUNS |
		     T_SURFACE | T_COMPARE,
	  .refusal = "is not available for" },
	{ 'o', "out", "FILE", SECTION_OUTPUT, "write results to FILE (- for standard output)",
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
	  .field = FIELD(quiet), .applies = T_MEASURE | T_REPORT },
	{ 'v', "verbose", NULL, SECTION_OUTPUT, "say more", .kind = ARG_FLAG,
	  .field = FIELD(verbose), .applies = T_MEASURE | T_ANALYZE,
	  .original = true },
	{ 'h', "help", NULL, SECTION_OUTPUT, "display this help",
	  .applies = T_ALL },
	{ 'V', "version", NULL, SECTION_OUTPUT, "display version",
	  .applies = T_ALL },
};

#define OPTION_COUNT (sizeof(option_defs) / sizeof(option_defs[0]))
_Static_assert(OPTION_COUNT <= sizeof(((struct config *)0)->given),
	       "struct config's given[] holds a flag per option");
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
		" %s --compare <run.json>...\n"
		" %s --decode-cid=<hex>\n\n", die_program_name,
		die_program_name, die_program_name, die_program_name,
		die_program_name);
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

static const struct option_def *find_option(int id)
{
	for (size_t i = 0; i < OPTION_COUNT; i++)
		if (option_defs[i].id == id)
			return &option_defs[i];
	return NULL;
}

/* The default an option's table entry holds, for code that needs it. */
uint64_t mode_option_default(int id)
{
	return find_option(id)->def;
}

bool mode_option_given(const struct config *cfg, int id)
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
	*cfg = (struct config){ .format = RENDER_TEXT };
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

	if (!o)		/* getopt's complaints are handled in mode_parse_args */
		usage_error("unknown option");
	cfg->given[o - option_defs] = true;
	if (o->mode != MODE_NONE) {
		choose_test(cfg, o, arg);
		return;
	}
	switch (id) {
	case OPT_FORMAT:
		if (render_parse_format(arg, &cfg->format))
			usage_error("--format: unknown format '%s' (text, "
				    "csv, json)", arg);
		break;
	case 'h': usage(stdout); exit(0);
	case 'V': printf("%s %s\n", die_program_name, VERSION); exit(0);
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

/* The test options of the tests in applies, if few: "--detect or --surface". */
static bool few_tests(unsigned applies, char *buf, size_t size)
{
	unsigned count = 0;

	buf[0] = '\0';
	for (unsigned bit = 1; bit && bit < T_END; bit <<= 1) {
		const struct option_def *test = test_option_of(bit);
		size_t used = strlen(buf);

		if (!(applies & bit) || !test)
			continue;
		if (++count > 2)
			return false;
		snprintf(buf + used, size - used, "%s--%s",
			 count > 1 ? " or " : "", test->name);
	}
	return count > 0;
}

/* With no test chosen: an option one or two tests take names them. */
static void check_without_test(const struct config *cfg)
{
	char tests[96];

	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_def *o = &option_defs[i];
		/* --report takes most options besides their own test */
		unsigned applies = o->applies & ~(unsigned)T_REPORT;

		if (cfg->given[i] && o->mode == MODE_NONE &&
		    few_tests(applies, tests, sizeof(tests)))
			usage_error("--%s goes with %s", o->name, tests);
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
				"%s\n", die_program_name, o->name, test);
			continue;
		}
		usage_error("--%s %s %s", o->name, o->refusal ? o->refusal :
			    "does not apply to", test);
	}
}

/* Options that take no device, or that draw saved runs. */
static bool parse_deviceless(struct config *cfg, int argc, char **argv)
{
	if (cfg->plot_path && !cfg->test_option) {
		/* flashbench --plot=X.svg run1.json run2.json ... */
		cfg->test_bit = T_PLOT_RUNS;
		cfg->mode = MODE_PLOT;
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
	if (cfg->mode == MODE_COMPARE) {
		check_options(cfg);
		if (optind >= argc)
			usage_error("--compare: no saved json run given");
		cfg->files = (const char *const *)argv + optind;
		cfg->file_count = (size_t)(argc - optind);
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

void mode_parse_args(struct config *cfg, int argc, char **argv)
{
	struct option longs[OPTION_COUNT + 1];
	char shorts[2 * OPTION_COUNT + 3];
	char why[MESSAGE_BYTES];
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
	if (!mode_option_given(cfg, OPT_OFFSET))
		cfg->offset = cfg->test && cfg->test->writes ?
			      units_round_up(cfg->offset, cfg->erasesize) : 0;
	if (cfg->blocksize > cfg->erasesize &&
	    (cfg->test && cfg->test->writes))
		usage_error("--blocksize %llu is larger than --erasesize %llu",
			    (unsigned long long)cfg->blocksize,
			    (unsigned long long)cfg->erasesize);
}

/*
 * The JSON parameters of a built-in test: each option that applies to it,
 * named after the long option ("open-au-nr" -> open_au_nr), with the value
 * the run used (durations in ns).  A --program run reports its variables
 * under their own names instead.
 */
size_t mode_set_option_json_params(struct config *cfg)
{
	size_t count = 0;

	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_def *d = &option_defs[i];
		const char *field = (const char *)cfg + d->field;
		char *name = cfg->json_names[count];

		if (d->section != SECTION_PARAMETERS ||
		    !(d->applies & cfg->test_bit) ||
		    count == OPTION_JSON_PARAMS ||
		    (d->kind != ARG_FLAG && d->kind != ARG_SIZE &&
		     d->kind != ARG_COUNT && d->kind != ARG_SECONDS))
			continue;
		snprintf(name, sizeof(cfg->json_names[0]), "%s", d->name);
		for (char *c = name; *c; c++)
			*c = *c == '-' ? '_' : *c;
		cfg->json_params[count++] = (struct vm_param){ name,
			d->kind == ARG_FLAG ? *(const bool *)field :
			(double)*(const uint64_t *)field };
		cfg->json_flags[count - 1] = d->kind == ARG_FLAG;
	}
	return count;
}

