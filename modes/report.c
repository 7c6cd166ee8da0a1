/*
 * report: --report [--write], each part one of the modes, run as it
 * runs alone (its options parsed by the same table), its output kept
 * for after the summary and its JSON read for the summary's figures.
 * With --write, what a part overwrites is saved to the one undo file
 * before it writes and put back when it ends (measure/undo/keep.h); the
 * capacity check uses the same file in its own way.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/saved.h"
#include "lib/die.h"
#include "lib/exitcode.h"
#include "lib/units.h"
#include "measure/capacity.h"
#include "measure/detect.h"
#include "measure/speed.h"
#include "measure/writerange.h"
#include "measure/undo/keep.h"
#include "modes/capacity.h"
#include "modes/detect.h"
#include "modes/info.h"
#include "modes/report.h"
#include "modes/reportsum.h"
#include "modes/run.h"
#include "modes/sinks.h"
#include "modes/speed.h"
#include "modes/test.h"
#include "modes/undofile.h"
#include "output/reportsummary.h"
#include "vm/stamp.h"

/* READ_ONLY_OR_INSTEAD: also with --write when the part before it
   (its writing form) does not apply to the device */
enum part_when { ALWAYS, READ_ONLY, WITH_WRITE, READ_ONLY_OR_INSTEAD };
enum part_check { NO_CHECK, CHECK_READ, CHECK_DETECT_WRITE, CHECK_SPAN,
		  CHECK_CAPACITY };

/* The parts, in the order they run; each is one mode's command line. */
static const struct part_def {
	const char *name;
	const char *args[4];		/* the mode's options, NULL-ended */
	int (*run)(struct config *cfg);
	enum part_when when;
	enum part_check check;
	unsigned time_units;		/* device time: --time's, or... */
	bool budget;			/* ...--budget's (detect) */
	bool writes;
	/* and the Raspberry Pi test's random I/O time (mode_pi_time_ns):
	   its sequential passes' bounds and two runs */
	unsigned pi_units;
} part_defs[] = {
	{ "info", { "--info" }, mode_info, ALWAYS, NO_CHECK, 0, false, false,
	  0 },
	{ "detect-write", { "--detect", "--write" }, mode_detect, WITH_WRITE,
	  CHECK_DETECT_WRITE, 0, true, true, 0 },
	{ "detect", { "--detect" }, mode_detect, READ_ONLY_OR_INSTEAD,
	  NO_CHECK, 0, true, false, 0 },
	/* the original's align table: what --analyze reads in a report */
	{ "align", { "-a" }, mode_test, ALWAYS, NO_CHECK, 0, false, false,
	  0 },
	{ "read-speed", { "-t" }, mode_speed, ALWAYS, CHECK_READ, 1, false,
	  false, 0 },
	{ "iops", { "--iops", "--read-only" }, mode_speed, READ_ONLY,
	  CHECK_SPAN, 1, false, false, 0 },
	{ "iops-qd32", { "--iops", "--read-only", "--iodepth=32" },
	  mode_speed, READ_ONLY, CHECK_SPAN, 1, false, false, 0 },
	{ "write-speed", { "--write-speed" }, mode_speed, WITH_WRITE,
	  CHECK_SPAN, 1, false, true, 0 },
	{ "iops", { "--iops" }, mode_speed, WITH_WRITE, CHECK_SPAN, 2, false,
	  true, 0 },
	{ "iops-qd32", { "--iops", "--iodepth=32" }, mode_speed, WITH_WRITE,
	  CHECK_SPAN, 2, false, true, 0 },
	{ "class-check", { "--class-check" }, mode_speed, WITH_WRITE,
	  CHECK_SPAN, 7, false, true,
	  SPEED_PI_SEQ_PASSES * SPEED_PI_SEQ_TIMES + 2 },
	{ "capacity-check", { "--capacity-check" }, mode_capacity, WITH_WRITE,
	  CHECK_CAPACITY, 0, false, true, 0 },
};
#define PART_COUNT (sizeof(part_defs) / sizeof(part_defs[0]))

/* The report's options a part takes, when given and when it applies. */
static const struct passed {
	int id;
	const char *name;
	bool seconds;
	unsigned applies;
} passed_options[] = {
	{ 'e', "erasesize", false,
	  T_DETECT | T_WRITE_SPEED | T_IOPS | T_CLASS },
	{ OPT_BUDGET, "budget", true, T_DETECT },
	{ OPT_TIME, "time", true, T_SPEED },
	{ OPT_SPAN, "span", false, T_WRITE_SPEED | T_IOPS | T_CLASS },
	{ OPT_CACHE_LIMIT, "cache-limit", false, T_CAPACITY },
	{ OPT_SYSFS_ROOT, "sysfs-root", false, T_INFO | T_DETECT | T_SPEED },
	{ OPT_DEBUGFS_ROOT, "debugfs-root", false, T_INFO | T_SPEED },
	{ OPT_UNDO_FILE, "undo-file", false, T_CAPACITY },
};
#define PASSED_COUNT (sizeof(passed_options) / sizeof(passed_options[0]))

/*
 * Saving and putting back a part's range is timed by rates measured
 * before the plan: PROBE_BYTES read from the device (in the saving's
 * chunks) and written to the undo file's disk (synced, as the saving
 * syncs).  Writes to the device cannot be measured before the plan
 * announces them: they are timed at a third of its read rate (flash
 * cards and USB sticks commonly write sequentially at a fifth to a half
 * of their read rate) until a part has put its range back, and then by
 * what that part took.
 */
#define PROBE_BYTES (8 * KEEP_CHUNK_BYTES)
#define ASSUMED_READS_PER_WRITE 3.0

/* What the report knows while it runs. */
struct report_run {
	struct config *cfg;
	struct dev dev;			/* read-only, for the plan only */
	char undo_path[PATH_MAX];
	struct keep keep;
	bool keeps;			/* the writing parts' ranges saved */
	const struct part_def *defs[PART_COUNT];
	struct summary_part parts[PART_COUNT];
	char commands[PART_COUNT][MESSAGE_BYTES];
	uint64_t cost_ns[PART_COUNT], writes_bytes[PART_COUNT];
	double read_bytes_per_s;	/* the device's, measured; 0: not */
	double undo_bytes_per_s;	/* the undo file's disk's; 0: not */
	double keep_ns_per_byte;	/* saving and putting back a byte */
	size_t count;
	struct devname names;		/* the document's device names */
};

/* ---- the plan: which parts, what they cost ---- */

static void passed_value(const struct config *cfg, const struct passed *p,
			 char *buf, size_t size)
{
	const char *text = p->id == OPT_SYSFS_ROOT ? cfg->sysfs_root :
			   p->id == OPT_DEBUGFS_ROOT ? cfg->debugfs_root :
			   p->id == OPT_UNDO_FILE ? cfg->undo_path : NULL;
	uint64_t value = p->id == 'e' ? cfg->erasesize :
			 p->id == OPT_BUDGET ? cfg->budget_ns :
			 p->id == OPT_TIME ? cfg->time_ns :
			 p->id == OPT_SPAN ? cfg->span : cfg->cache_limit;

	if (text)
		snprintf(buf, size, "--%s=%s", p->name, text);
	else if (p->seconds)
		snprintf(buf, size, "--%s=%.9g", p->name, (double)value / 1e9);
	else
		snprintf(buf, size, "--%s=%llu", p->name,
			 (unsigned long long)value);
}

/* The test bit of a part's first option, as the table chose it. */
static unsigned part_test_bit(const struct part_def *d)
{
	static const struct { const char *arg; unsigned bit; } bits[] = {
		{ "--info", T_INFO }, { "--detect", T_DETECT },
		{ "-a", T_ALIGN }, { "-t", T_READ_SPEED }, { "--iops", T_IOPS },
		{ "--write-speed", T_WRITE_SPEED },
		{ "--class-check", T_CLASS },
		{ "--capacity-check", T_CAPACITY },
	};

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (strcmp(bits[i].arg, d->args[0]) == 0)
			return bits[i].bit;
	return 0;
}

/*
 * The part's command line, as a person would type it to run the mode
 * alone: argv (strings in store) and the joined text in command.
 */
static int part_argv(const struct config *cfg, const struct part_def *d,
		     char *argv[], char store[][PATH_MAX + 32],
		     char *command, size_t size)
{
	unsigned bit = part_test_bit(d);
	static const char *const formats[] = { "--format=text",
		"--format=csv", "--format=json" };
	int argc = 0;
	size_t used;

	argv[argc++] = (char *)die_program_name;
	for (size_t i = 0; i < 4 && d->args[i]; i++)
		argv[argc++] = (char *)d->args[i];
	for (size_t i = 0; i < PASSED_COUNT; i++) {
		if (!mode_option_given(cfg, passed_options[i].id) ||
		    !(passed_options[i].applies & bit))
			continue;
		passed_value(cfg, &passed_options[i], store[i],
			     sizeof(store[i]));
		argv[argc++] = store[i];
	}
	used = (size_t)snprintf(command, size, "%s", argv[0]);
	for (int i = 1; i < argc && used < size; i++)
		used += (size_t)snprintf(command + used, size - used, " %s",
					 argv[i]);
	if (used < size)
		snprintf(command + used, size - used, " %s", cfg->device);
	argv[argc++] = (char *)formats[cfg->format];
	/* -q: no progress line in the parts that draw one; not part of
	   the command shown, whose output it does not change */
	if (cfg->quiet && (bit & T_MEASURE))
		argv[argc++] = "--quiet";
	argv[argc++] = (char *)cfg->device;
	argv[argc] = NULL;
	return argc;
}

/* Why a part does not apply to this device, or "" when it does. */
static void part_applies(const struct report_run *r, const struct part_def *d,
			 char *why, size_t size)
{
	const struct config *cfg = r->cfg;
	const struct dev *dev = &r->dev;
	char floor[UNITS_BUF];
	uint64_t start, end;

	why[0] = '\0';
	switch (d->check) {
	case CHECK_READ:
		if (dev->size_bytes < mode_option_default('t'))
			snprintf(why, size, "the device is smaller than one "
				 "%llu-byte block", (unsigned long long)
				 mode_option_default('t'));
		break;
	case CHECK_DETECT_WRITE:
		if (detect_write_range(dev, cfg->erasesize, &start, &end))
			snprintf(why, size, "the device is too small for the "
				 "write probes");
		break;
	case CHECK_SPAN:
		if (speed_write_range(dev, cfg->erasesize, cfg->span, &start,
				      &end))
			snprintf(why, size, "no whole %llu-byte erase block "
				 "fits above %s", (unsigned long long)
				 cfg->erasesize, units_format_exact_size(floor,
				 MEASURE_WRITE_FLOOR_BYTES));
		break;
	case CHECK_CAPACITY:
		if (dev->logical_block_bytes < STAMP_MIN_BYTES)
			snprintf(why, size, "blocks of %u bytes are too small "
				 "for stamps", dev->logical_block_bytes);
		else if (!dev_has(dev, DEV_CAP_KEEPS_DATA))
			snprintf(why, size, "the simulated card keeps no data "
				 "(give it fake=SIZE)");
		else if (dev->size_bytes <
			 capacity_min_device_bytes(cfg->cache_limit))
			snprintf(why, size, "the device is too small for "
				 "--cache-limit %llu", (unsigned long long)
				 cfg->cache_limit);
		break;
	default:
		break;
	}
}

/* Device time a part may take by its mode's budget, and bytes written. */
static void part_cost(struct report_run *r, size_t i)
{
	const struct part_def *d = r->defs[i];
	const struct config *cfg = r->cfg;
	uint64_t start = 0, end = 0;

	r->cost_ns[i] = d->budget ? cfg->budget_ns :
			d->time_units * cfg->time_ns;
	r->cost_ns[i] += d->pi_units * mode_pi_time_ns(cfg);
	if (d->check == CHECK_DETECT_WRITE)
		detect_write_range(&r->dev, cfg->erasesize, &start, &end);
	else if (d->writes && d->check == CHECK_SPAN)
		speed_write_range(&r->dev, cfg->erasesize, cfg->span, &start,
				  &end);
	r->writes_bytes[i] = end - start;
	if (d->check == CHECK_CAPACITY)
		r->writes_bytes[i] = capacity_max_write_bytes(
			r->dev.size_bytes, r->dev.logical_block_bytes,
			cfg->cache_limit);
}

static void plan_parts(struct report_run *r)
{
	char store[PASSED_COUNT][PATH_MAX + 32], *argv[24];

	for (size_t i = 0; i < PART_COUNT; i++) {
		const struct part_def *d = &part_defs[i];
		struct summary_part *p = &r->parts[r->count];

		bool instead = d->when == READ_ONLY_OR_INSTEAD && r->count &&
			       r->parts[r->count - 1].skipped[0];

		if ((d->when == READ_ONLY && r->cfg->write) ||
		    (d->when == READ_ONLY_OR_INSTEAD && r->cfg->write &&
		     !instead) ||
		    (d->when == WITH_WRITE && !r->cfg->write))
			continue;
		r->defs[r->count] = d;
		*p = (struct summary_part){ .name = d->name,
			.command = r->commands[r->count] };
		part_argv(r->cfg, d, argv, store, r->commands[r->count],
			  sizeof(r->commands[r->count]));
		part_applies(r, d, p->skipped, sizeof(p->skipped));
		part_cost(r, r->count);
		r->count++;
	}
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* The device's read rate over PROBE_BYTES from its start; 0 on an error. */
static double probe_device(struct report_run *r, void *buf)
{
	uint64_t bytes = 0, time_ns = 0, ns;

	while (bytes < PROBE_BYTES &&
	       bytes + KEEP_CHUNK_BYTES <= r->dev.size_bytes) {
		if (dev_read(&r->dev, buf, bytes, KEEP_CHUNK_BYTES, &ns))
			return 0;
		bytes += KEEP_CHUNK_BYTES;
		time_ns += ns;
	}
	return time_ns ? (double)bytes * 1e9 / (double)time_ns : 0;
}

/*
 * The undo file's disk: PROBE_BYTES written to an unnamed file in its
 * directory (gone when closed) and synced; 0 when it cannot tell.
 */
static double probe_undo_disk(const struct report_run *r, const void *buf)
{
	const char *slash = strrchr(r->undo_path, '/');
	char dir[PATH_MAX] = ".";
	uint64_t start_ns, bytes = 0;
	int fd;

	if (slash == r->undo_path)
		snprintf(dir, sizeof(dir), "/");
	else if (slash)
		snprintf(dir, sizeof(dir), "%.*s",
			 (int)(slash - r->undo_path), r->undo_path);
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	start_ns = now_ns();
	while (bytes < PROBE_BYTES &&
	       write(fd, buf, (size_t)KEEP_CHUNK_BYTES) ==
	       (ssize_t)KEEP_CHUNK_BYTES)
		bytes += KEEP_CHUNK_BYTES;
	if (bytes < PROBE_BYTES || fdatasync(fd))
		bytes = 0;
	close(fd);
	return bytes ? (double)bytes * 1e9 / (double)(now_ns() - start_ns) : 0;
}

/*
 * What saving and putting back a byte takes: saving reads the device
 * and writes the undo file; putting back reads the file, writes the
 * device and reads it again to check.  0 when the device cannot be
 * read (then not counted).
 */
static void estimate_keeping(struct report_run *r)
{
	void *buf;

	if (!r->keeps)
		return;
	buf = dev_alloc_buffer(KEEP_CHUNK_BYTES, DEV_PATTERN_ZEROS);
	if (!buf)
		runtime_error("out of memory");
	r->read_bytes_per_s = probe_device(r, buf);
	r->undo_bytes_per_s = probe_undo_disk(r, buf);
	free(buf);
	if (r->read_bytes_per_s > 0)
		r->keep_ns_per_byte = 1e9 * ((2 + ASSUMED_READS_PER_WRITE) /
			r->read_bytes_per_s + (r->undo_bytes_per_s > 0 ?
			2 / r->undo_bytes_per_s : 0));
}

/* Saving and putting back what part i overwrites, in ns. */
static uint64_t keep_cost(const struct report_run *r, size_t i)
{
	if (!r->keeps || !r->defs[i]->writes)
		return 0;
	return (uint64_t)((double)r->writes_bytes[i] * r->keep_ns_per_byte);
}

/* The time the parts from the one at from on take: theirs and keeping. */
static uint64_t cost_from(const struct report_run *r, size_t from)
{
	uint64_t ns = 0;

	for (size_t i = from; i < r->count; i++)
		if (!r->parts[i].skipped[0])
			ns += r->cost_ns[i] + keep_cost(r, i);
	return ns;
}

/*
 * After a part that saved its range and put it back: keeping timed by
 * what that took, the part's time less its own device time (its
 * document's).  A part that wrote nothing (--detect --write that found
 * no geometry) saved nothing to time.
 */
static void learn_keeping(struct report_run *r, size_t i, uint64_t took_ns)
{
	const struct json_value *doc = r->parts[i].json;
	const struct json_value *own = json_get(doc, "device_time_ns");
	const struct json_value *wrote = json_get(doc, "bytes_written");

	/* the capacity check saves block by block, not as a range */
	if (!keep_cost(r, i) || r->defs[i]->check == CHECK_CAPACITY ||
	    r->parts[i].failed[0] || !own || own->type != JSON_NUMBER ||
	    !wrote || wrote->type != JSON_NUMBER || wrote->number <= 0 ||
	    (double)took_ns <= own->number)
		return;
	r->keep_ns_per_byte = ((double)took_ns - own->number) /
			      (double)r->writes_bytes[i];
}

/* A part's line of the plan: its command, its time, what it writes. */
static void announce_part(const struct report_run *r, size_t i)
{
	char took[UNITS_BUF];

	fprintf(stderr, "  %-15s %s; ", r->parts[i].name,
		r->parts[i].command);
	if (r->defs[i]->check == CHECK_CAPACITY)
		fprintf(stderr, "time as its write rate allows");
	else if (r->defs[i]->run == mode_test)
		fprintf(stderr, "a fixed count of reads at each alignment");
	else
		fprintf(stderr, "about %.0f s", (double)r->cost_ns[i] / 1e9);
	if (r->writes_bytes[i])
		fprintf(stderr, ", writes up to %llu bytes",
			(unsigned long long)r->writes_bytes[i]);
	if (keep_cost(r, i))
		fprintf(stderr, ", saved and put back in about %s",
			units_format_time(took, (double)keep_cost(r, i)));
	fputc('\n', stderr);
}

/* The plan's first line: the time in all, and what it is made of. */
static void announce_time(const struct report_run *r)
{
	uint64_t keeping_ns = 0;

	for (size_t i = 0; i < r->count; i++)
		if (!r->parts[i].skipped[0])
			keeping_ns += keep_cost(r, i);
	fprintf(stderr, "%s: --report runs %zu parts, about %.0f s",
		die_program_name, r->count, (double)cost_from(r, 0) / 1e9);
	if (keeping_ns)
		fprintf(stderr, ": %.0f s of the parts' device time and %.0f s "
			"to save and put back what they overwrite:\n",
			(double)(cost_from(r, 0) - keeping_ns) / 1e9,
			(double)keeping_ns / 1e9);
	else
		fprintf(stderr, " of device time:\n");
}

/* How the saving and putting back were timed, with what evidence. */
static void announce_rates(const struct report_run *r)
{
	char rate[UNITS_BUF];

	if (!r->keep_ns_per_byte) {
		fprintf(stderr, "%s: --report: the time to save and put back "
			"is not counted: the device could not be read\n",
			die_program_name);
		return;
	}
	fprintf(stderr, "%s: --report: saving and putting back are timed by "
		"the device's reads at %s, ", die_program_name,
		units_format_rate(rate, r->read_bytes_per_s));
	if (r->undo_bytes_per_s > 0)
		fprintf(stderr, "the undo file's disk at %s, ",
			units_format_rate(rate, r->undo_bytes_per_s));
	fprintf(stderr, "measured now, and writes at a third of the read "
		"rate, assumed until a part has put its range back\n");
}

/* Before anything runs: what each part costs, what it all writes. */
static void announce_plan(const struct report_run *r)
{
	uint64_t written = 0, most = 0;
	char size[UNITS_BUF], command[UNDOFILE_HINT_BYTES];

	announce_time(r);
	for (size_t i = 0; i < r->count; i++) {
		if (r->parts[i].skipped[0]) {
			fprintf(stderr, "  %-15s not run: %s\n",
				r->parts[i].name, r->parts[i].skipped);
			continue;
		}
		announce_part(r, i);
		written += r->writes_bytes[i];
		if (r->writes_bytes[i] > most)
			most = r->writes_bytes[i];
	}
	if (!r->cfg->write)
		return;
	fprintf(stderr, "%s: --report --write writes at most %llu bytes in "
		"all; ", die_program_name, (unsigned long long)written);
	if (!r->keeps) {
		fprintf(stderr, "a simulated card starts afresh at each part: "
			"nothing to save\n");
		return;
	}
	fprintf(stderr, "each part first saves what it overwrites to %s (at "
		"most %s at a time) and puts it back when it ends (after a "
		"crash: %s)\n", r->undo_path,
		units_format_exact_size(size, most),
		mode_undo_command(command, sizeof(command), r->undo_path,
				 r->cfg->device));
	announce_rates(r);
}

/* ---- running a part ---- */

/* What a part wrote to its memory file, as a string in *text. */
static int read_memory_file(int fd, char **text, size_t *bytes_out)
{
	off_t bytes = lseek(fd, 0, SEEK_END);

	*text = NULL;
	*bytes_out = 0;
	if (bytes < 0)
		return -errno;
	*text = malloc((size_t)bytes + 1);
	if (!*text)
		return -ENOMEM;
	if (pread(fd, *text, (size_t)bytes, 0) != bytes)
		return -EIO;
	(*text)[bytes] = '\0';
	*bytes_out = (size_t)bytes;
	return 0;
}

static int memory_file(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		runtime_error("--report: a memory file: %s", strerror(errno));
	return fd;
}

static void parse_part_json(struct summary_part *p, const char *text,
			    size_t length)
{
	char why[MESSAGE_BYTES];

	if (length && saved_run_parse(text, length, &p->json, why,
				      sizeof(why)))
		p->json = NULL;
}

/* Installed so that SIGCHLD is neither ignored nor lost while held. */
static void on_child(int signo)
{
	(void)signo;
}

/*
 * In the part's process: the mode run as it runs alone, its exit status
 * as the front door would give it (128 + the signal that stopped it).
 * A part's usage or runtime error ends this process, not the report.
 */
static void part_process(const struct report_run *r, char *argv[], int argc,
			 const struct part_def *d, size_t i, int out_fd,
			 int json_fd, const sigset_t *mask, pid_t report)
{
	char path[64], json_path[64];
	struct config pc;
	int status;

	/* the report's end stops the part as SIGTERM does: even after a
	   kill -9 of the report, what the part wrote goes back */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != report)	/* gone before that: nothing written */
		_exit(EXIT_SIGNAL_BASE + SIGTERM);
	/* a terminal's ^C goes to the report, which passes it on */
	setpgid(0, 0);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	optind = 0;	/* getopt starts afresh on the part's line */
	mode_parse_args(&pc, argc, argv);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", out_fd);
	pc.out_path = d ? path : NULL;
	pc.stop = r->cfg->stop;
	pc.command = d ? (char *)r->commands[i] : NULL;
	pc.keep = d && d->writes && r->keeps && d->check != CHECK_CAPACITY ?
		  (struct keep *)&r->keep : NULL;
	if (d && d->check == CHECK_CAPACITY)
		pc.undo_path = r->undo_path;
	snprintf(json_path, sizeof(json_path), "/proc/self/fd/%d", json_fd);
	pc.also_json = d && pc.format != RENDER_JSON ?
		       fopen(json_path, "w") : NULL;
	if (d && pc.format != RENDER_JSON && !pc.also_json)
		runtime_error("--report: a memory file: %s", strerror(errno));
	if (!d)		/* the restore's lines are not the report's */
		dup2(STDERR_FILENO, STDOUT_FILENO);
	status = d ? d->run(&pc) : mode_restore(&pc);
	if (pc.also_json && fclose(pc.also_json))
		runtime_error("--report: a memory file: write error");
	fflush(NULL);
	_exit(status == -EINTR ? EXIT_SIGNAL_BASE + *r->cfg->stop :
	      status < 0 ? EXIT_RUNTIME : status);
}

/*
 * Run argv in a process of its own and wait for it, however many signals
 * come: each is passed on (the first stops the part, which puts back
 * what it wrote; it decides what a further one does), and the report
 * ends only after its part.  The first is the report's too.  Its exit
 * status, 128 + a signal that killed it.
 */
static int spawn_part(const struct report_run *r, char *argv[], int argc,
		      const struct part_def *d, size_t i, int out_fd,
		      int json_fd)
{
	struct sigaction sa = { .sa_handler = on_child };
	pid_t report = getpid(), pid;
	sigset_t held, old;
	int wstatus = 0, signo;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	exit_signal_set(&held);
	sigaddset(&held, SIGCHLD);
	sigprocmask(SIG_BLOCK, &held, &old);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		runtime_error("--report: a process for %s: %s", argv[1],
			      strerror(errno));
	/* a signal taken before the fork is the part's too: it inherits
	   the flag; those held since are taken here, none is missed */
	if (pid == 0)
		part_process(r, argv, argc, d, i, out_fd, json_fd, &old,
			     report);
	while (waitpid(pid, &wstatus, WNOHANG) == 0) {
		signo = sigwaitinfo(&held, NULL);
		if (signo <= 0 || signo == SIGCHLD)
			continue;
		if (!*r->cfg->stop)
			*r->cfg->stop = signo;
		kill(pid, signo);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
	       EXIT_SIGNAL_BASE + WTERMSIG(wstatus);
}

static int run_part(struct report_run *r, size_t i)
{
	const struct part_def *d = r->defs[i];
	struct summary_part *p = &r->parts[i];
	char store[PASSED_COUNT][PATH_MAX + 32], *argv[24];
	char *json = NULL;
	size_t json_bytes = 0;
	int argc, out_fd, json_fd, err;

	argc = part_argv(r->cfg, d, argv, store, r->commands[i],
			 sizeof(r->commands[i]));
	out_fd = memory_file(d->name);
	json_fd = memory_file(d->name);
	if (!r->cfg->quiet)	/* the report's progress, as -q quiets it */
		fprintf(stderr, "%s: --report: part %zu of %zu, %s: about "
			"%.0f s left\n", die_program_name, i + 1, r->count,
			d->name, (double)cost_from(r, i) / 1e9);
	p->status = spawn_part(r, argv, argc, d, i, out_fd, json_fd);
	err = read_memory_file(out_fd, &p->section, &p->section_bytes);
	if (!err)
		err = read_memory_file(json_fd, &json, &json_bytes);
	close(out_fd);
	close(json_fd);
	if (err)
		runtime_error("--report: %s: %s", d->name, strerror(-err));
	if (json_bytes)
		parse_part_json(p, json, json_bytes);
	else
		parse_part_json(p, p->section, p->section_bytes);
	free(json);
	return p->status;
}

/*
 * After a part that ended before putting back what it wrote (an error,
 * a crash): --restore from the undo file, as a person would run it.
 * true when nothing is left to put back.
 */
static bool put_back_left(const struct report_run *r)
{
	char option[PATH_MAX + 16], command[UNDOFILE_HINT_BYTES];
	char *argv[] = { (char *)die_program_name, option,
			 (char *)r->cfg->device, NULL };

	if (!r->keeps || access(r->undo_path, F_OK) != 0)
		return true;
	snprintf(option, sizeof(option), "--restore=%s", r->undo_path);
	fprintf(stderr, "%s: --report: the part ended with its range not put "
		"back: %s\n", die_program_name,
		mode_undo_command(command, sizeof(command), r->undo_path,
				 r->cfg->device));
	spawn_part(r, argv, 3, NULL, 0, -1, -1);
	return access(r->undo_path, F_OK) != 0;
}

/* ---- the mode ---- */

static void setup_undo(struct report_run *r)
{
	const struct config *cfg = r->cfg;
	char buf[PATH_MAX];

	snprintf(r->undo_path, sizeof(r->undo_path), "%s",
		 mode_undo_choose(cfg, buf, sizeof(buf)));
	mode_undo_check_new(cfg, r->undo_path);
	r->keep = (struct keep){ .device = cfg->device,
		.undo_path = r->undo_path, .stop = cfg->stop };
	/* a simulated card is made afresh at each open: nothing to keep */
	r->keeps = dev_has(&r->dev, DEV_CAP_OUTLIVES_CLOSE);
}

/*
 * A device that cannot be written (read-only, mounted, no permission)
 * is refused here as every write mode refuses it, by the same open and
 * with its words and exit status, before any part runs: not once per
 * part, each failing.  The open is closed at once: each part opens the
 * device for itself, exclusively.
 */
static void refuse_unwritable(const struct config *cfg)
{
	struct dev dev;

	mode_open_device(cfg, &dev, DEV_READ_WRITE);
	dev_close(&dev);
}

/* A fake card's 3 (or a damaged one's 4) above all, then a failed part. */
static int report_status(const struct report_run *r)
{
	int status = EXIT_OK;

	for (size_t i = 0; i < r->count; i++) {
		int st = r->parts[i].status;

		if (st == EXIT_FAKE || st == EXIT_DAMAGED)
			return st;
		if (r->parts[i].failed[0])
			status = EXIT_RUNTIME;
	}
	return status;
}

/*
 * Each part in turn.  A part that fails (its message on stderr) leaves
 * the rest to run once its range is back; one whose range cannot be put
 * back stops the report.  -EINTR on a signal, -ESTALE when the undo file
 * is left, else 0.
 */
static int run_parts(struct report_run *r)
{
	for (size_t i = 0; i < r->count; i++) {
		struct summary_part *p = &r->parts[i];
		uint64_t started_ns;
		int status;

		if (p->skipped[0]) {
			fprintf(stderr, "%s: --report: %s not run: %s\n",
				die_program_name, p->name, p->skipped);
			continue;
		}
		started_ns = now_ns();
		status = run_part(r, i);
		if (!put_back_left(r))
			return -ESTALE;
		if (*r->cfg->stop)
			return -EINTR;
		if (status == EXIT_USAGE || status == EXIT_RUNTIME ||
		    status >= EXIT_SIGNAL_BASE)
			snprintf(p->failed, sizeof(p->failed), "it failed "
				 "(exit %d), as its message on standard error "
				 "says", status);
		learn_keeping(r, i, now_ns() - started_ns);
	}
	return 0;
}

int mode_report(struct config *cfg)
{
	struct report_run *r = calloc(1, sizeof(*r));
	struct report_summary *s = calloc(1, sizeof(*s));
	struct render_meta device = { 0 };
	char kept[UNDOFILE_HINT_BYTES];
	FILE *out;
	int err, status;

	if (!r || !s)
		runtime_error("out of memory");
	r->cfg = cfg;
	mode_open_device(cfg, &r->dev, DEV_READ_ONLY);
	if (cfg->write) {
		setup_undo(r);
		refuse_unwritable(cfg);
	}
	plan_parts(r);
	estimate_keeping(r);
	announce_plan(r);
	err = run_parts(r);
	for (size_t i = 0; i < r->count; i++)
		if (!r->parts[i].skipped[0] && !r->parts[i].section)
			snprintf(r->parts[i].skipped, sizeof(r->parts[i].skipped),
				 "the report stopped before it");
	mode_output_name_device(cfg, &r->dev, &device, &r->names);
	*s = (struct report_summary){ .device = cfg->device,
		.device_identity = device.device_identity,
		.device_name = device.device_name,
		.device_bytes = r->dev.size_bytes,
		.logical_block_bytes = r->dev.logical_block_bytes,
		.command = cfg->command, .write = cfg->write,
		.incomplete = err != 0 };
	if (err)
		snprintf(s->incomplete_why, sizeof(s->incomplete_why), "%s",
			 err == -EINTR ? "interrupted" : "a part's range was "
			 "not put back");
	mode_report_summarize(&(struct mode_report_parts){ r->parts, r->count,
							 cfg->write }, s);
	out = mode_open_output(cfg);
	mode_close_output(cfg, out, summary_write(out, cfg->format, s, r->parts,
					     r->count));
	status = report_status(r);
	if (err == -ESTALE)
		runtime_error("%s: --report stopped: what a part wrote is not "
			      "all back; %s", cfg->device,
			      mode_undo_kept(kept, sizeof(kept), r->undo_path,
					    cfg->device));
	dev_close(&r->dev);
	for (size_t i = 0; i < r->count; i++) {
		free(r->parts[i].section);
		json_free(r->parts[i].json);
	}
	free(r);
	free(s);
	if (err == -EINTR)
		fprintf(stderr, "%s: --report: interrupted; the summary is "
			"marked incomplete%s\n", die_program_name,
			cfg->write ? " and every byte written was put back" :
			"");
	return err == -EINTR ? err : status;
}
