/*
 * run: what the measuring modes share - the device opened read-only
 * first and for writing only once the range is announced, a test's
 * program compiled and planned with the options' parameters, timing
 * prepared, and the end of a run (flush, stats, how it ended).  A bad
 * plan is a usage error, a failing device a runtime error.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/die.h"
#include "lib/exitcode.h"
#include "lib/units.h"
#include "measure/undo/keep.h"
#include "measure/undo/restore.h"
#include "measure/speed.h"
#include "modes/run.h"
#include "modes/undofile.h"
#include "vm/compile.h"

#define MAX_OPERATIONS 100000000ULL	/* refuse programs beyond this */
#define OPEN_AU_SPACING 12	/* erase blocks between open-au blocks */

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
			    "offset %llu do not fit in %s (%llu bytes); the "
			    "test needs at least %llu bytes",
			    (unsigned long long)n, (unsigned long long)e,
			    (unsigned long long)cfg->offset, dev->path,
			    (unsigned long long)dev->size_bytes,
			    (unsigned long long)(cfg->offset + n * e));
	if (apart < OPEN_AU_SPACING)
		fprintf(stderr, "%s: %llu erase blocks %d apart do not fit; "
			"placing them %llu apart\n", die_program_name,
			(unsigned long long)n, OPEN_AU_SPACING,
			(unsigned long long)apart);
	*spacing = apart * e;
}

/* The parameters the options set, before any program is compiled. */
void mode_set_option_params(const struct config *cfg,
		       struct program_params *params)
{
	struct vm_param *p = params->slot;

	program_params_init(params);
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

void mode_set_params(struct config *cfg, const struct dev *dev,
		struct program_params *params)
{
	uint64_t spacing = OPEN_AU_SPACING * cfg->erasesize;
	struct vm_param *p = params->slot;

	if (cfg->test_bit == T_OPEN_AU)
		place_open_au(cfg, dev, &spacing);
	mode_set_option_params(cfg, params);
	p[PARAM_SIZE].value = (double)dev->size_bytes;
	p[PARAM_LBS].value = dev->logical_block_bytes;
	p[PARAM_SPACING].value = (double)spacing;
	/* as read-speed has it; the speed tests set their own */
	if (cfg->offset < dev->size_bytes && cfg->blocksize)
		p[PARAM_SLOTS].value =
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

/* test's program, or --program's file's when test is NULL */
static struct vm_program *compile_test(const struct config *cfg,
				       const struct program_def *test,
				       const struct program_params *params,
				       char **text)
{
	struct vm_program *program;
	struct vm_diag diag;
	const char *source;

	*text = NULL;
	if (test) {
		source = test->text;
	} else {
		*text = read_file(cfg->program_path);
		source = *text;
	}
	if (vm_compile(source, params->slot, PARAM_COUNT_OF, &program,
		       &diag))
		usage_error("%s:%u:%u: %s", test ? test->name :
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

static void plan_test(const struct config *cfg,
		      const struct program_def *test, const struct dev *dev,
		      const struct vm_program *program, struct vm_plan *plan)
{
	const char *name = test ? test->name : cfg->program_path;
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
			    name, RECORD_MAX_FIELDS, plan->error_line);
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
void mode_announce_writes(const char *what, struct dev *dev,
		     uint64_t start, uint64_t end, const char *more)
{
	char from[UNITS_BUF], to[UNITS_BUF];

	fprintf(stderr, "%s: %s overwrites bytes %llu to %llu (%s to %s) "
		"of %s%s%s\n", die_program_name, what,
		(unsigned long long)start, (unsigned long long)end - 1,
		units_format_exact_size(from, start),
		units_format_exact_size(to, end), dev->path,
		more ? ", " : "", more ? more : "");
	dev_allow_writes(dev, start, end);
}

void mode_keep_announced(const struct config *cfg, uint64_t start,
		    uint64_t end)
{
	char why[MESSAGE_BYTES];
	int err;

	if (!cfg->keep)
		return;
	err = keep_save(cfg->keep, start, end, why, sizeof(why));
	/* a signal: the test stops before its first write, nothing kept */
	if (err && err != -EINTR)
		runtime_error("%s", why);
	if (!err)
		fprintf(stderr, "%s: --report: bytes %llu to %llu saved to %s; "
			"writing\n", die_program_name,
			(unsigned long long)start, (unsigned long long)end - 1,
			cfg->keep->undo_path);
}

/*
 * Under --report --write, once the test's figures are out: its range
 * put back from the undo file through its own open; a failure exits 1
 * naming the file that --restore puts it back with.
 */
static void keep_put_back_announced(const struct config *cfg,
				    struct dev *dev)
{
	struct undo_result result;
	char why[MESSAGE_BYTES], kept[UNDOFILE_HINT_BYTES];
	int err;

	if (!cfg->keep || !cfg->keep->saved)
		return;
	mode_undo_kept(kept, sizeof(kept), cfg->keep->undo_path, cfg->device);
	err = keep_put_back(cfg->keep, dev, &result, why, sizeof(why));
	if (err)
		runtime_error("%s: putting back what the test overwrote: %s; "
			      "%s", cfg->device, why, kept);
	if (result.blocks_differing || result.damaged_count)
		runtime_error("%s: %llu blocks the test overwrote do not read "
			      "back as saved; %s", cfg->device,
			      (unsigned long long)result.blocks_differing,
			      kept);
	undo_result_free(&result);
}

/*
 * Loops with a depth run on an asynchronous engine (Linux AIO first for
 * a test that mirrors fio's libaio jobs); when none works the run goes
 * on at depth 1, and says so.
 */
static void setup_engine(struct dev *dev, unsigned depth, bool libaio)
{
	char why[MESSAGE_BYTES];

	dev->prefer_aio = libaio;
	if (dev_async_setup(dev, depth) == 0) {
		if (dev->engine_note[0])
			fprintf(stderr, "%s: note: %s\n", die_program_name,
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
struct vm_program *mode_plan_run(const struct config *cfg,
			    const struct program_params *params,
			    struct dev *dev, const char *what,
			    struct vm_plan *plan, char **text)
{
	return mode_plan_program(cfg, cfg->test, params, dev, what, NULL,
				 plan, text);
}

struct vm_program *mode_plan_program(const struct config *cfg,
				     const struct program_def *test,
				     const struct program_params *params,
				     struct dev *dev, const char *what,
				     const char *more, struct vm_plan *plan,
				     char **text)
{
	struct vm_program *program = compile_test(cfg, test, params, text);

	plan_test(cfg, test, dev, program, plan);
	if (plan->write_end > plan->write_start) {
		dev_close(dev);
		mode_open_device(cfg, dev, DEV_READ_WRITE);
		mode_announce_writes(what, dev, plan->write_start,
				     plan->write_end, more);
		mode_keep_announced(cfg, plan->write_start, plan->write_end);
	}
	setup_engine(dev, plan->max_depth, test && test->libaio);
	return program;
}

static void print_stats(const struct dev *dev);

/*
 * The tail every test shares: stats, then the exit code from how the run
 * ended - interrupted (128 + the signal), out of memory, or the device's
 * error as a runtime failure.
 */
int mode_end_run(const struct config *cfg, struct dev *dev, int err,
	    const char *interrupted)
{
	char why[MESSAGE_BYTES];
	/* what a write test wrote reaches the medium, not only its cache */
	int flush_err = (keep_put_back_announced(cfg, dev), dev_flush(dev));

	if (!err)
		err = flush_err;
	if (cfg->stats)
		print_stats(dev);
	if (err == -EINTR) {
		dev_close(dev);
		fprintf(stderr, "%s: %s\n", die_program_name, interrupted);
		return -EINTR;		/* the front door knows the signal */
	}
	if (err == -ENOMEM)
		runtime_error("out of memory");
	if (err) {
		/* a test's own failure names no device operation */
		if (dev->error.operation || dev->error.message[0])
			dev_strerror(dev, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s", strerror(-err));
		dev_close(dev);
		runtime_error("%s: %s", cfg->device, why);
	}
	dev_close(dev);
	return 0;
}

void mode_open_device(const struct config *cfg, struct dev *dev,
		 enum dev_mode mode)
{
	char why[MESSAGE_BYTES];

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
	if (dev->error.names_device)
		runtime_error("%s", why);
	/* else the device's own name says more than the backend's */
	runtime_error("%s: %s", cfg->device, why + dev->error.what_at);
}

/* An option's value in bytes that must be whole logical blocks. */
void mode_check_multiple(const char *option, uint64_t value,
		    const struct dev *dev)
{
	if (value % dev->logical_block_bytes)
		usage_error("%s %llu is not a multiple of the logical block "
			    "size %u of %s", option, (unsigned long long)value,
			    dev->logical_block_bytes, dev->path);
}

void mode_check_alignment(const struct config *cfg, const struct dev *dev)
{
	mode_check_multiple("--blocksize", cfg->blocksize, dev);
	mode_check_multiple("--erasesize", cfg->erasesize, dev);
	mode_check_multiple("--offset", cfg->offset, dev);
}

/*
 * Before timing: stay on the CPU we are on, so no migration lands inside
 * a timed operation, and with --realtime take real-time priority.  Both
 * are skipped silently when not permitted (said with -v).
 */
void mode_prepare_timing(const struct config *cfg)
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
			die_program_name, strerror(errno));
	if (!cfg->realtime)
		return;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) && cfg->verbose)
		fprintf(stderr, "%s: real-time priority not permitted (%s); "
			"running without it\n", die_program_name,
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

/* Unreadable blocks a test went past: said, not fatal. */
void mode_report_skipped(const char *test, uint64_t blocks,
		    uint64_t failed_reads, const struct dev_error *first)
{
	struct dev failed = { .error = *first };
	char why[MESSAGE_BYTES];

	dev_strerror(&failed, why, sizeof(why));
	fprintf(stderr, "%s: %s: skipped %llu unreadable block%s (%llu "
		"failed reads; first: %s)\n", die_program_name, test,
		(unsigned long long)blocks, blocks == 1 ? "" : "s",
		(unsigned long long)failed_reads, why);
}

