/*
 * flashbench: the front door.  Options (one table, which also prints
 * --help), their checks, and dispatch to a test program.  Only main()
 * prints errors and chooses exit codes: 0 success, 1 runtime failure,
 * 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "analyze.h"
#include "cli.h"
#include "detect.h"
#include "dev.h"
#include "info.h"
#include "plot.h"
#include "programs.h"
#include "progress.h"
#include "speed.h"
#include "report.h"
#include "units.h"
#include "vm.h"

#define VERSION "1.0"
#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define MIB (1024ULL * 1024)
#define OPEN_AU_SPACING 12	/* erase blocks between open-au blocks */
#define DEFAULT_AU_OFFSET (16 * MIB)	/* clear of the card's FAT area */
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
	OPT_ANALYZE,
	OPT_PLOT,
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
};

enum speed_test { SPEED_NONE, SPEED_READ, SPEED_WRITE, SPEED_IOPS,
		  SPEED_CLASS };

struct option_def {
	int id;			/* short option character or OPT_* */
	const char *name;
	const char *arg;	/* argument name in --help, NULL for none */
	const char *help;
	enum run_mode mode;	/* a test option: what it runs */
	const char *program;	/* MODE_PROGRAM: the built-in's name */
	enum speed_test speed;	/* MODE_SPEED: which measurement */
};

/* Every option, in --help order.  getopt's tables are built from this. */
static const struct option_def option_defs[] = {
	{ 'a', "align", NULL, "read-alignment test (read-only)",
	  MODE_PROGRAM, "align", SPEED_NONE },
	{ 'A', "write-align", NULL,
	  "write-alignment test (destructive)",
	  MODE_PROGRAM, "write-align", SPEED_NONE },
	{ 'O', "open-au", NULL,
	  "open erase-block (allocation unit) test (destructive)",
	  MODE_PROGRAM, "open-au", SPEED_NONE },
	{ 'f', "find-fat", NULL,
	  "random writes in the first erase blocks (destructive)",
	  MODE_PROGRAM, "find-fat", SPEED_NONE },
	{ 's', "scatter", NULL, "read time of each block, for plotting",
	  MODE_PROGRAM, "scatter", SPEED_NONE },
	{ 'i', "interval", NULL, "read time against size, with regression",
	  MODE_PROGRAM, "interval", SPEED_NONE },
	{ OPT_PROGRAM, "program", "FILE",
	  "run the test program in FILE (see flashbench(1))",
	  MODE_PROGRAM, NULL, SPEED_NONE },
	{ OPT_LIST_PROGRAMS, "list-programs", NULL,
	  "print the built-in test programs", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_DETECT, "detect", NULL,
	  "find erase block and page size, with advice",
	  MODE_DETECT, NULL, SPEED_NONE },
	{ OPT_WRITE, "write", NULL,
	  "--detect also finds open erase blocks (destructive)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_BUDGET, "budget", "SECONDS",
	  "device time --detect may spend reading (default 20)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ 't', "read-speed", NULL, "sequential read rate (-b, default 1MiB)",
	  MODE_SPEED, NULL, SPEED_READ },
	{ OPT_WRITE_SPEED, "write-speed", NULL,
	  "sequential write rate in erase blocks (destructive)",
	  MODE_SPEED, NULL, SPEED_WRITE },
	{ OPT_IOPS, "iops", NULL,
	  "random 4KiB read and write IOPS (destructive)",
	  MODE_SPEED, NULL, SPEED_IOPS },
	{ OPT_CLASS_CHECK, "class-check", NULL,
	  "measure against SD speed classes (destructive)",
	  MODE_SPEED, NULL, SPEED_CLASS },
	{ OPT_READ_ONLY, "read-only", NULL,
	  "with --iops, --class-check: never write", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_TIME, "time", "SECONDS", "device time per measurement (default 3)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_SPAN, "span", "SIZE",
	  "range written or randomly read (default 256MiB)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_ANALYZE, "analyze", NULL,
	  "read saved -a, -O output from FILEs (- is stdin)",
	  MODE_ANALYZE, NULL, SPEED_NONE },
	{ OPT_INFO, "info", NULL,
	  "identity of the device and card, from sysfs",
	  MODE_INFO, NULL, SPEED_NONE },
	{ OPT_SYSFS_ROOT, "sysfs-root", "DIR", "read sysfs from DIR, not /sys", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_DECODE_CID, "decode-cid", "HEX",
	  "decode a CID register (prefix mmc: for eMMC)",
	  MODE_DECODE, NULL, SPEED_NONE },
	{ OPT_DECODE_CSD, "decode-csd", "HEX", "decode a CSD register",
	  MODE_DECODE, NULL, SPEED_NONE },
	{ OPT_DECODE_SCR, "decode-scr", "HEX", "decode an SD SCR register",
	  MODE_DECODE, NULL, SPEED_NONE },
	{ OPT_DECODE_SSR, "decode-ssr", "HEX",
	  "decode an SD status register",
	  MODE_DECODE, NULL, SPEED_NONE },
	{ 'b', "blocksize", "SIZE", "block size (default 16KiB)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ 'e', "erasesize", "SIZE", "erase block size (default 4MiB)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ 'c', "count", "N", "repetitions of each read (default 8)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ '0', "open-au-nr", "N",
	  "erase blocks written in turn by -O (default 2)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ 'r', "random", NULL, "-O writes in pseudo-random order", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_OFFSET, "offset", "SIZE",
	  "start of -O, -A, -s, -i (default 16MiB for -O, -A)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_FAT_NR, "fat-nr", "N",
	  "erase blocks written by -f (default 6)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_SCATTER_ORDER, "scatter-order", "N",
	  "-s reads 2^N blocks (default 9)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_SCATTER_SPAN, "scatter-span", "N",
	  "-s reads N blocks at a time (default 1)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_INTERVAL_ORDER, "interval-order", "N",
	  "-i reads N sizes (default 8)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_THREES, "threes", NULL,
	  "-a, -A also probe 3 x 2^n boundaries (3, 6, 12MiB...)", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_FORMAT, "format", "FORMAT",
	  "output format: text (default), csv or json", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_PLOT, "plot", "FILE",
	  "draw the results (or saved json runs) as SVG in FILE", MODE_NONE, NULL,
	  SPEED_NONE },
	{ 'o', "out", "FILE", "write results to FILE", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_STATS, "stats", NULL,
	  "print device time and bytes moved on stderr", MODE_NONE, NULL,
	  SPEED_NONE },
	{ OPT_REALTIME, "realtime", NULL,
	  "run at real-time priority when permitted", MODE_NONE, NULL,
	  SPEED_NONE },
	{ 'q', "quiet", NULL, "no progress line on the terminal", MODE_NONE, NULL,
	  SPEED_NONE },
	{ 'v', "verbose", NULL, "say more", MODE_NONE, NULL,
	  SPEED_NONE },
	{ 'h', "help", NULL, "display this help", MODE_NONE, NULL,
	  SPEED_NONE },
	{ 'V', "version", NULL, "display version", MODE_NONE, NULL,
	  SPEED_NONE },
};

#define OPTION_COUNT (sizeof(option_defs) / sizeof(option_defs[0]))

struct config {
	const struct program_def *test;
	const char *test_option;	/* as given, for messages */
	char option_text[40];		/* what test_option points to */
	const char *device;
	const char *program_path;
	const char *out_path;
	uint64_t blocksize, erasesize, count, offset, open_au_nr, fat_nr;
	uint64_t scatter_order, scatter_span, interval_order;
	bool offset_set, random, threes, stats, verbose, realtime;
	enum run_mode mode;
	bool list_programs, write;
	enum speed_test speed;
	bool read_only;
	uint64_t time_ns, span;
	const char *const *files;	/* --analyze */
	size_t file_count;
	const char *plot_path;
	char **plot_inputs;		/* saved json runs to plot, no test */
	int plot_input_count;
	char *command;			/* the command line, for json */
	bool quiet;
	uint64_t budget_ns;
	bool erasesize_set, blocksize_set;
	const char *sysfs_root;
	const char *decode_kind, *decode_hex;
	enum report_format format;
};

static const char *program_name = "flashbench";

/* Set by SIGINT or SIGTERM: the VM stops before its next operation. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int signo)
{
	/* a second interrupt does not wait for anything */
	if (stop_signal)
		_exit(128 + signo);
	stop_signal = signo;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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
		const struct option_def *o = &option_defs[i];
		char left[48];

		if (o->id <= CHAR_MAX)
			snprintf(left, sizeof(left), " -%c, --%s%s%s", o->id,
				 o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "     --%s%s%s", o->name,
				 o->arg ? "=" : "", o->arg ? o->arg : "");
		if (strlen(left) > 26)
			fprintf(out, "%s\n%-27s%s\n", left, "", o->help);
		else
			fprintf(out, "%-27s%s\n", left, o->help);
	}
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

static uint64_t size_arg(int id, const char *text, bool zero_ok)
{
	uint64_t value;
	int err = units_parse_size(text, &value);

	if (err == -ERANGE)
		usage_error("--%s: '%s' is too large", find_option(id)->name,
			    text);
	if (err)
		usage_error("--%s: '%s' is not a size (try 4096, 16K or 4MiB)",
			    find_option(id)->name, text);
	if (value == 0 && !zero_ok)
		usage_error("--%s: must be more than zero",
			    find_option(id)->name);
	return value;
}

static uint64_t count_arg(int id, const char *text, uint64_t min,
			  uint64_t max)
{
	uint64_t value;
	int err = units_parse_count(text, min, max, &value);

	if (err == -ERANGE)
		usage_error("--%s: '%s' is out of range (%llu to %llu)",
			    find_option(id)->name, text,
			    (unsigned long long)min, (unsigned long long)max);
	if (err)
		usage_error("--%s: '%s' is not a whole number",
			    find_option(id)->name, text);
	return value;
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
	cfg->mode = o->mode;
	cfg->test = o->program ? programs_find(o->program) : NULL;
	cfg->speed = o->speed;
	if (o->id == OPT_PROGRAM)
		cfg->program_path = arg;
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

	if (o && o->mode != MODE_NONE) {
		choose_test(cfg, o, arg);
		return;
	}
	switch (id) {
	case OPT_LIST_PROGRAMS: cfg->list_programs = true; break;
	case OPT_SYSFS_ROOT: cfg->sysfs_root = arg; break;
	case 'b':
		cfg->blocksize = size_arg(id, arg, false);
		cfg->blocksize_set = true;
		break;
	case 'e':
		cfg->erasesize = size_arg(id, arg, false);
		cfg->erasesize_set = true;
		break;
	case OPT_WRITE: cfg->write = true; break;
	case OPT_READ_ONLY: cfg->read_only = true; break;
	case OPT_TIME:
		if (units_parse_duration(arg, &cfg->time_ns) || !cfg->time_ns)
			usage_error("--time: '%s' is not a duration (try 3 or "
				    "2.5s)", arg);
		break;
	case OPT_SPAN: cfg->span = size_arg(id, arg, false); break;
	case OPT_BUDGET:
		if (units_parse_duration(arg, &cfg->budget_ns) ||
		    cfg->budget_ns == 0)
			usage_error("--budget: '%s' is not a duration (try 20 "
				    "or 500ms)", arg);
		break;
	case 'c': cfg->count = count_arg(id, arg, 1, 1000000); break;
	case '0': cfg->open_au_nr = count_arg(id, arg, 1, 10000); break;
	case 'r': cfg->random = true; break;
	case OPT_OFFSET:
		cfg->offset = size_arg(id, arg, true);
		cfg->offset_set = true;
		break;
	case OPT_FAT_NR: cfg->fat_nr = count_arg(id, arg, 1, 10000); break;
	case OPT_SCATTER_ORDER:
		cfg->scatter_order = count_arg(id, arg, 0, 24);
		break;
	case OPT_SCATTER_SPAN:
		cfg->scatter_span = count_arg(id, arg, 1, 65536);
		break;
	case OPT_INTERVAL_ORDER:
		cfg->interval_order = count_arg(id, arg, 1, 32);
		break;
	case OPT_THREES: cfg->threes = true; break;
	case OPT_FORMAT:
		if (report_parse_format(arg, &cfg->format))
			usage_error("--format: unknown format '%s' (text, "
				    "csv, json)", arg);
		break;
	case 'o': cfg->out_path = arg; break;
	case OPT_STATS: cfg->stats = true; break;
	case OPT_PLOT: cfg->plot_path = arg; break;
	case 'q': cfg->quiet = true; break;
	case OPT_REALTIME: cfg->realtime = true; break;
	case 'v': cfg->verbose = true; break;
	case 'h': usage(stdout); exit(0);
	case 'V': printf("%s %s\n", program_name, VERSION); exit(0);
	default:
		/* getopt's complaints are handled in parse_args */
		usage_error("unknown option");
	}
}

static void parse_args(struct config *cfg, int argc, char **argv)
{
	struct option longs[OPTION_COUNT + 1];
	char shorts[2 * OPTION_COUNT + 3];
	char why[320];
	int id;

	*cfg = (struct config){ .blocksize = 16384, .erasesize = 4 * MIB,
				.count = 8, .open_au_nr = 2, .fat_nr = 6,
				.scatter_order = 9, .scatter_span = 1,
				.interval_order = 8,
				.budget_ns = 20000000000ULL,
				.time_ns = 3000000000ULL };
	build_getopt(longs, shorts);
	opterr = 0;
	while ((id = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (id == '?' || id == ':')
			usage_error("%s", cli_option_error(id, optopt,
				    argv[optind - 1], longs, why,
				    sizeof(why)));
		parse_option(cfg, id, optarg);
	}
	if (cfg->list_programs)
		return;
	if (cfg->plot_path && !cfg->test_option) {
		/* flashbench --plot=X.svg run1.json run2.json ... */
		if (optind >= argc)
			usage_error("--plot without a test needs saved json "
				    "runs to draw");
		cfg->plot_inputs = argv + optind;
		cfg->plot_input_count = argc - optind;
		return;
	}
	if (cfg->mode == MODE_DECODE) {
		if (optind < argc)
			usage_error("--decode-%s takes no device",
				    cfg->decode_kind);
		return;
	}
	if (cfg->mode == MODE_ANALYZE) {
		if (optind >= argc)
			usage_error("--analyze: no file given (- for standard "
				    "input)");
		cfg->files = (const char *const *)argv + optind;
		cfg->file_count = (size_t)(argc - optind);
		return;
	}
	if (optind >= argc)
		usage_error("no device given");
	cfg->device = argv[optind++];
	if (!cfg->device[0])
		usage_error("the device name is empty");
	if (optind < argc)
		usage_error("unexpected argument '%s' after the device",
			    argv[optind]);
	if (cfg->write && cfg->mode != MODE_DETECT)
		usage_error("--write goes with --detect");
	if (cfg->threes && !(cfg->test && strstr(cfg->test->name, "align")))
		usage_error("--threes goes with --align or --write-align");
	if (cfg->read_only && cfg->speed != SPEED_IOPS &&
	    cfg->speed != SPEED_CLASS)
		usage_error("--read-only goes with --iops or --class-check");
	if (!cfg->test_option)
		usage_error("no test chosen (e.g. -a for the align test)");
	if (cfg->plot_path &&
	    (cfg->speed == SPEED_IOPS || cfg->speed == SPEED_CLASS))
		usage_error("--plot is not available for %s",
			    cfg->test_option);
	if (cfg->random && cfg->test && strcmp(cfg->test->name, "open-au"))
		usage_error("--random goes with --open-au");
	if (cfg->random)
		cfg->test = programs_find("open-au-random");
	if (cfg->blocksize > cfg->erasesize &&
	    (cfg->test && cfg->test->writes))
		usage_error("--blocksize %llu is larger than --erasesize %llu",
			    (unsigned long long)cfg->blocksize,
			    (unsigned long long)cfg->erasesize);
}

/* ---- running a test ---- */

static uint64_t round_up(uint64_t value, uint64_t step)
{
	return (value + step - 1) / step * step;
}

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

static void set_params(struct config *cfg, const struct dev *dev)
{
	struct vm_param *p = program_params;
	uint64_t spacing = OPEN_AU_SPACING * cfg->erasesize;
	bool writes = cfg->test && cfg->test->writes;

	if (!cfg->offset_set && writes)
		cfg->offset = round_up(DEFAULT_AU_OFFSET, cfg->erasesize);
	if (cfg->test && !strncmp(cfg->test->name, "open-au", 7))
		place_open_au(cfg, dev, &spacing);
	p[PARAM_SIZE].value = (double)dev->size_bytes;
	p[PARAM_LBS].value = dev->logical_block_bytes;
	p[PARAM_BLOCKSIZE].value = (double)cfg->blocksize;
	p[PARAM_ERASESIZE].value = (double)cfg->erasesize;
	p[PARAM_COUNT].value = (double)cfg->count;
	p[PARAM_OFFSET].value = (double)cfg->offset;
	p[PARAM_NR].value = (double)cfg->open_au_nr;
	p[PARAM_SPACING].value = (double)spacing;
	p[PARAM_FATNR].value = (double)cfg->fat_nr;
	p[PARAM_THREES].value = cfg->threes;
	p[PARAM_SCATTER_COUNT].value = (double)(1ULL << cfg->scatter_order);
	p[PARAM_SCATTER_BYTES].value =
		(double)(cfg->scatter_span * cfg->blocksize);
	p[PARAM_INTERVAL_TOP].value =
		(double)cfg->blocksize * (double)(1ULL << (cfg->interval_order - 1));
	p[PARAM_REGION].value = 16.0 * (double)cfg->erasesize;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t length = 0, cap = 0;
	int c;

	if (!f)
		runtime_error("%s: %s", path, strerror(errno));
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

static void plan_test(const struct config *cfg, const struct dev *dev,
		      const struct vm_program *program, struct vm_plan *plan)
{
	const char *name = cfg->test ? cfg->test->name : cfg->program_path;
	static const char *const hints[] = {
		[EINVAL] = "not a multiple of the logical block size",
		[ENOSPC] = "past the end of the device",
		[EDOM] = "negative, fractional or undefined",
		[E2BIG] = "too many operations",
	};
	int err = vm_plan(program, dev, MAX_OPERATIONS, plan);

	if (!err)
		return;
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

static void announce_writes(const struct config *cfg, const struct dev *dev,
			    const struct vm_plan *plan)
{
	char start[UNITS_BUF], end[UNITS_BUF];

	fprintf(stderr, "%s: %s overwrites bytes %llu to %llu (%s to %s) "
		"of %s\n", program_name,
		cfg->test ? cfg->test->name : cfg->program_path,
		(unsigned long long)plan->write_start,
		(unsigned long long)plan->write_end - 1,
		units_format_exact_size(start, plan->write_start),
		units_format_exact_size(end, plan->write_end), dev->path);
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

static void check_alignment(const struct config *cfg, const struct dev *dev)
{
	uint32_t lbs = dev->logical_block_bytes;

	if (cfg->blocksize % lbs)
		usage_error("--blocksize %llu is not a multiple of the logical "
			    "block size %u of %s",
			    (unsigned long long)cfg->blocksize, lbs,
			    dev->path);
	if (cfg->erasesize % lbs)
		usage_error("--erasesize %llu is not a multiple of the logical "
			    "block size %u of %s",
			    (unsigned long long)cfg->erasesize, lbs,
			    dev->path);
	if (cfg->offset % lbs)
		usage_error("--offset %llu is not a multiple of the logical "
			    "block size %u of %s",
			    (unsigned long long)cfg->offset, lbs, dev->path);
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
		CPU_SET(cpu, &one);
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

static int interval_summary(struct interval_points *points)
{
	double slope, intercept;
	struct vm_record rec = { .style = VM_STYLE_SPACES, .count = 2 };
	int err;

	double weight[64];

	/* relative errors: the small sizes decide the access time */
	for (size_t i = 0; i < points->count; i++)
		weight[i] = points->fastest[i] > 0 ?
			    1 / (points->fastest[i] * points->fastest[i]) : 0;
	if (analysis_weighted_fit(points->length, points->fastest, weight,
				  points->count, &slope, &intercept))
		return 0;
	rec.fields[0] = (struct vm_field){ VM_UNIT_MBPS, "rate", "% MB/s,",
					   NULL, slope > 0 ? 1e9 / slope : 0 };
	rec.fields[1] = (struct vm_field){ VM_UNIT_TIME, "access",
					   "% access time", NULL, intercept };
	err = report_record(points->report, &rec);
	for (size_t i = 0; !err && i < points->count; i++) {
		rec.fields[0] = (struct vm_field){ VM_UNIT_BYTES, "length",
			"% bytes:", NULL, points->length[i] };
		rec.fields[1] = (struct vm_field){ VM_UNIT_TIME, "overhead",
			"% overhead", NULL,
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

static void write_plot(const struct config *cfg, struct plot *plot)
{
	FILE *f = fopen(cfg->plot_path, "w");

	if (!f)
		runtime_error("%s: %s", cfg->plot_path, strerror(errno));
	if (plot_write(plot, f) | fclose(f))
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
	for (int i = 0; i < cfg->plot_input_count; i++)
		if (plot_load_json(plot, cfg->plot_inputs[i], why,
				   sizeof(why)))
			runtime_error("%s: %s", cfg->plot_inputs[i], why);
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
	FILE *out;

	if (!cfg->out_path)
		return stdout;
	out = fopen(cfg->out_path, "w");
	if (!out)
		runtime_error("%s: %s", cfg->out_path, strerror(errno));
	return out;
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
	char *text, why[320];
	bool writes;
	int err;

	/* plan on a read-only open: nothing can be written by mistake */
	open_device(cfg, &dev, DEV_READ_ONLY);
	check_alignment(cfg, &dev);
	set_params(cfg, &dev);
	program = compile_test(cfg, &text);
	plan_test(cfg, &dev, program, &plan);
	writes = plan.write_end > plan.write_start;
	if (writes) {
		dev_close(&dev);
		open_device(cfg, &dev, DEV_READ_WRITE);
		announce_writes(cfg, &dev, &plan);
		dev_allow_writes(&dev, plan.write_start, plan.write_end);
	}
	meta = (struct report_meta){
		.test = cfg->test ? cfg->test->name : "program",
		.params = program_params, .param_count = PARAM_COUNT_OF };
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
	if (cfg->stats)
		print_stats(&dev);
	vm_free(program);
	free(text);
	if (err == -ENOMEM)
		runtime_error("out of memory for buffers of %llu bytes",
			      (unsigned long long)plan.max_length);
	if (err == -EINTR) {
		dev_close(&dev);
		fprintf(stderr, "%s: interrupted; results are incomplete\n",
			program_name);
		return 128 + stop_signal;
	}
	if (err) {
		dev_strerror(&dev, why, sizeof(why));
		dev_close(&dev);
		runtime_error("%s: %s", cfg->device, why);
	}
	dev_close(&dev);
	return 0;
}

static int decode_register(const struct config *cfg)
{
	char why[256];

	if (info_decode(cfg->decode_kind, cfg->decode_hex,
			cfg->format == REPORT_JSON, stdout, why, sizeof(why)))
		usage_error("%s", why);
	return 0;
}

/* --info: what the kernel (or the model) knows; never writes. */
static int show_info(const struct config *cfg)
{
	struct info_device device = { .path = cfg->device };
	struct dev dev;
	char why[320];
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
	err = info_show(&device, cfg->sysfs_root, cfg->format == REPORT_JSON,
			stdout, why, sizeof(why));
	if (err == -EINVAL)
		usage_error("%s", why);
	if (err)
		runtime_error("%s", why);
	return 0;
}

/* Before --detect --write writes: say where, and allow only that. */
static int announce_detect(void *ctx, struct dev *dev, uint64_t start,
			   uint64_t end)
{
	char from[UNITS_BUF], to[UNITS_BUF];

	(void)ctx;
	fprintf(stderr, "%s: detect --write overwrites bytes %llu to %llu "
		"(%s to %s) of %s\n", program_name, (unsigned long long)start,
		(unsigned long long)end - 1,
		units_format_exact_size(from, start),
		units_format_exact_size(to, end), dev->path);
	dev_allow_writes(dev, start, end);
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
	if (err)
		runtime_error("%s", why);
	out = open_output(cfg);
	err = analyze_report(&result, cfg->format == REPORT_JSON, out);
	if (out != stdout && fclose(out))
		err = -EIO;
	if (err)
		runtime_error("%s: write error", cfg->out_path ?
			      cfg->out_path : "standard output");
	return 0;
}

static int run_detect(const struct config *cfg)
{
	struct detect_options options = {
		.write = cfg->write, .budget_ns = cfg->budget_ns,
		.erase_size = cfg->erasesize_set ? cfg->erasesize : 0,
		.sysfs_root = cfg->sysfs_root,
		.json = cfg->format == REPORT_JSON, .verbose = cfg->verbose };
	struct detect_findings findings;
	struct dev dev;
	FILE *out;
	char why[320];
	int err;

	open_device(cfg, &dev, cfg->write ? DEV_READ_WRITE : DEV_READ_ONLY);
	options.announce = announce_detect;
	{
		uint64_t start, end;

		/* with the erase size given, a device too small is known
		   before the first read */
		if (cfg->write && cfg->erasesize_set &&
		    detect_write_range(&dev, cfg->erasesize, &start, &end))
			usage_error("--detect --write: %s is too small for the "
				    "probes", cfg->device);
	}
	out = open_output(cfg);
	prepare_timing(cfg);
	err = detect_run(&dev, &options, &stop_signal, out, &findings);
	if (cfg->stats)
		print_stats(&dev);
	if (out != stdout)
		fclose(out);
	if (err == -EDOM)
		usage_error("--detect --write: no erase-block size was found; "
			    "give it with --erasesize");
	if (err == -ENOSPC && dev.error.operation == NULL)
		usage_error("--detect --write: %s is too small for the probes",
			    cfg->device);
	if (err == -EINTR) {
		dev_close(&dev);
		fprintf(stderr, "%s: interrupted\n", program_name);
		return 128 + stop_signal;
	}
	if (err) {
		dev_strerror(&dev, why, sizeof(why));
		dev_close(&dev);
		runtime_error("%s: %s", cfg->device, why);
	}
	dev_close(&dev);
	return 0;
}

/* The speed tests' names in reports, by enum value. */
static const char *const speed_tests[] = {
	[SPEED_READ] = "read-speed", [SPEED_WRITE] = "write-speed",
	[SPEED_IOPS] = "iops", [SPEED_CLASS] = "class-check",
};

/* Parameters of a speed test, for the machine formats' headers. */
enum {
	SPEED_PARAM_BLOCK, SPEED_PARAM_OFFSET, SPEED_PARAM_SPAN,
	SPEED_PARAM_TIME, SPEED_PARAM_QUEUE, SPEED_PARAM_READ_ONLY,
	SPEED_PARAM_COUNT
};

static void speed_params(const struct config *cfg, uint64_t block,
			 uint64_t offset, uint64_t span,
			 struct vm_param *p, struct report_meta *meta)
{
	p[SPEED_PARAM_BLOCK] = (struct vm_param){ "block_bytes",
						  (double)block };
	p[SPEED_PARAM_OFFSET] = (struct vm_param){ "offset", (double)offset };
	p[SPEED_PARAM_SPAN] = (struct vm_param){ "span_bytes", (double)span };
	p[SPEED_PARAM_TIME] = (struct vm_param){ "duration_ns",
						 (double)cfg->time_ns };
	p[SPEED_PARAM_QUEUE] = (struct vm_param){ "queue_depth", 1 };
	p[SPEED_PARAM_READ_ONLY] = (struct vm_param){ "read_only",
						      cfg->read_only };
	meta->params = p;
	/* -t and --write-speed: block, offset, span, time */
	meta->param_count = cfg->speed == SPEED_IOPS ||
			    cfg->speed == SPEED_CLASS ? SPEED_PARAM_COUNT :
			    SPEED_PARAM_QUEUE;
}

static int run_speed(struct config *cfg)
{
	bool writes = cfg->speed == SPEED_WRITE ||
		      ((cfg->speed == SPEED_IOPS ||
			cfg->speed == SPEED_CLASS) && !cfg->read_only);
	uint64_t start = 0, end = 0, block;
	struct info_card *card = calloc(1, sizeof(*card)), *claimed = NULL;
	struct info_device idev;
	struct vm_param params[SPEED_PARAM_COUNT];
	struct report_meta meta = { .test = speed_tests[cfg->speed] };
	struct speed_exec exec;
	struct sinks sinks;
	char why[320], a[UNITS_BUF], b[UNITS_BUF];
	struct dev dev;
	int err = 0;

	if (!card)
		runtime_error("out of memory");
	open_device(cfg, &dev, writes ? DEV_READ_WRITE : DEV_READ_ONLY);
	check_alignment(cfg, &dev);
	if (cfg->speed != SPEED_READ &&
	    speed_write_range(&dev, cfg->erasesize, cfg->span, &start, &end))
		usage_error("%s: no whole %llu-byte erase block fits above "
			    "16MiB on %s", cfg->test_option,
			    (unsigned long long)cfg->erasesize, dev.path);
	if (writes) {
		fprintf(stderr, "%s: %s overwrites bytes %llu to %llu (%s to "
			"%s) of %s\n", program_name, cfg->test_option,
			(unsigned long long)start, (unsigned long long)end - 1,
			units_format_exact_size(a, start),
			units_format_exact_size(b, end), dev.path);
		dev_allow_writes(&dev, start, end);
	}
	if (cfg->speed == SPEED_CLASS) {
		idev = (struct info_device){ .path = cfg->device,
			.size_bytes = dev.size_bytes,
			.logical_block_bytes = dev.logical_block_bytes,
			.simulated = dev.simulated };
		if (!dev.simulated &&
		    info_read_card(&idev, cfg->sysfs_root, card, why,
				   sizeof(why)) == 0 && card->has_speed)
			claimed = card;
		/* JSON: "classes", keyed by class name, beside "results" */
		meta.index_member = "classes";
		meta.index_key = "class";
	}
	/* -t: large blocks by default, as hdparm -t and dd bs=1M */
	block = cfg->speed == SPEED_READ ? (cfg->blocksize_set ?
		cfg->blocksize : MIB) : cfg->speed == SPEED_IOPS ?
		SPEED_IO_BYTES : cfg->erasesize;
	if (cfg->speed == SPEED_READ &&
	    (cfg->offset >= dev.size_bytes ||
	     block > dev.size_bytes - cfg->offset))
		usage_error("%s: --offset %llu plus a %llu-byte block is past "
			    "the end of %s", cfg->test_option,
			    (unsigned long long)cfg->offset,
			    (unsigned long long)block, dev.path);
	if (cfg->speed == SPEED_READ)
		speed_params(cfg, block, cfg->offset, 0, params, &meta);
	else
		speed_params(cfg, block, start, end - start, params, &meta);
	output_open(cfg, &dev, &meta, &sinks);
	prepare_timing(cfg);
	exec = (struct speed_exec){ .dev = &dev, .emit = emit_to_sinks,
				    .progress = show_progress, .ctx = &sinks,
				    .stop = &stop_signal };
	switch (cfg->speed) {
	case SPEED_READ:
		err = speed_read(&exec, cfg->offset, block, cfg->time_ns);
		break;
	case SPEED_WRITE:
		err = speed_write(&exec, start, end - start, block,
				  cfg->time_ns);
		break;
	case SPEED_IOPS:
		err = speed_iops(&exec, start, end - start, cfg->time_ns,
				 !cfg->read_only);
		break;
	default:
		err = speed_class_check(&exec, claimed, cfg->read_only, start,
					end - start, cfg->erasesize,
					cfg->time_ns);
		break;
	}
	free(card);
	output_close(cfg, &sinks, &dev, err);
	if (exec.failed_reads)
		report_skipped(meta.test, exec.failed_reads, exec.failed_reads,
			       &exec.first_failure);
	if (cfg->stats)
		print_stats(&dev);
	if (err == -EINTR) {
		dev_close(&dev);
		fprintf(stderr, "%s: interrupted; results are incomplete\n",
			program_name);
		return 128 + stop_signal;
	}
	if (err == -ENOMEM)
		runtime_error("out of memory");
	if (err == -EINVAL)
		usage_error("%s: --offset %llu plus a %llu-byte block is past "
			    "the end of %s", cfg->test_option,
			    (unsigned long long)cfg->offset,
			    (unsigned long long)block, dev.path);
	if (err) {
		dev_strerror(&dev, why, sizeof(why));
		dev_close(&dev);
		runtime_error("%s: %s", cfg->device, why);
	}
	dev_close(&dev);
	return 0;
}

static void print_line(void *ctx, const char *line)
{
	fprintf(ctx, "%s\n", line);
}

static int list_programs(void)
{
	for (size_t i = 0; i < programs_count; i++) {
		struct vm_program *program;
		struct vm_diag diag;

		printf("# %s: %s\n", programs[i].name, programs[i].summary);
		if (vm_compile(programs[i].text, program_params,
			       PARAM_COUNT_OF, &program, &diag))
			runtime_error("built-in %s:%u:%u: %s",
				      programs[i].name, diag.line,
				      diag.column, diag.message);
		vm_list(program, print_line, stdout);
		vm_free(program);
		printf("\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct config cfg;
	int ret;

	parse_args(&cfg, argc, argv);
	if (cfg.list_programs)
		return list_programs();
	if (cfg.plot_inputs)
		return plot_saved_runs(&cfg);
	switch (cfg.mode) {
	case MODE_DECODE:
		return decode_register(&cfg);
	case MODE_INFO:
		return show_info(&cfg);
	case MODE_ANALYZE:
		return analyze_saved(&cfg);
	default:
		break;
	}
	catch_signals();
	if (cfg.mode == MODE_DETECT)
		return run_detect(&cfg);
	cfg.command = join_command(argc, argv);
	ret = cfg.mode == MODE_SPEED ? run_speed(&cfg) : run_test(&cfg);
	free(cfg.command);
	return ret;
}
