/*
 * flashemu: the simulated card as a real file, and through a loop device
 * a real block device.  It mounts a one-file FUSE file system (fuse.c) on
 * an empty directory; each read, write and hole punch of MOUNTPOINT/card
 * is charged to the model (engines/sim/) as the kernel delivers it, moves
 * data in the store (emustore.c), and completes when the model says, on
 * the wall clock.  An fsync of it is the card's flush; MOUNTPOINT/power
 * switches its power off and on.  SIGINT and SIGTERM drain: the card is
 * served until its last holder lets go, then unmounted; SIGUSR1 reports
 * what the card did so far.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/die.h"
#include "dev.h"
#include "lib/exitcode.h"
#include "lib/release.h"
#include "emu/emustore.h"
#include "emu/fuseserver.h"
#include "output/json.h"
#include "output/render.h"
#include "engines/sim.h"
#include "lib/units.h"

#define CARD_NAME "card"
#define POWER_NAME "power"
#define SECTOR_BYTES 512ULL
#define DEFAULT_MEM_CAP (1024ULL * 1024 * 1024)
#define NS_PER_S 1000000000ULL

static void usage(FILE *out)
{
	fputs("Usage:\n"
	      " flashemu [options] <spec> <mountpoint>\n\n"
	      "Serve the simulated card <spec> (sim:PRESET,key=value,..., as "
	      "for flashbench)\nas the file <mountpoint>/card, whose reads, "
	      "writes and hole punches take the\ntime the model says.  Attach "
	      "it with: losetup -f --show <mountpoint>/card\n\n"
	      "Options:\n"
	      "     --time-scale=X   run X times faster than the model "
	      "(default 1)\n"
	      "     --store=FILE     keep the data in FILE (sparse) or on a "
	      "block device,\n"
	      "                      not in memory\n"
	      "     --mem-cap=SIZE   hold at most SIZE of data in memory "
	      "(default 1GiB)\n"
	      "     --stats=FILE     write the statistics to FILE as JSON, "
	      "on SIGUSR1 and at exit\n"
	      " -h, --help           display this help\n"
	      " -V, --version        display version\n\n"
	      "Writing off to <mountpoint>/power cuts the card's power (I/O "
	      "fails with EIO\nand the card's power-fault keys strike), on "
	      "powers it again; an fsync of\nthe card is its flush.\n\n"
	      "SIGINT or SIGTERM serves the card until its last user lets go, "
	      "then unmounts\nand exits (a second one stops at once); "
	      "SIGUSR1 prints the statistics.\n\n"
	      "For more details see flashemu(1).\n", out);
}

const char die_program_name[] = "flashemu";

/* --- the card: model, store and wall clock ---------------------------- */

struct card {
	struct dev dev;			/* the model, opened on "sim:..." */
	struct emustore *store;
	double time_scale;
	uint64_t late;			/* requests the host took longer on
					   than the model allows */
	uint64_t slept_ns;
	uint64_t done_ns;		/* when the last request completed;
					   0: none yet */
	bool full_told;			/* the memory cap was reported */
	unsigned char *bounce;		/* a fake card's part-sector reads */
	uint64_t bounce_bytes;
	bool power_off;			/* MOUNTPOINT/power says off */
};

static uint64_t monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * NS_PER_S + (uint64_t)now.tv_nsec;
}

/*
 * The request that began at start_ns completes model_ns / time-scale
 * after it: sleep to that absolute deadline, so the time the host already
 * spent (FUSE, the store) counts toward it.
 */
static void complete_at(struct card *c, uint64_t start_ns, uint64_t model_ns)
{
	double wait_ns = (double)model_ns / c->time_scale;
	/* a spiked hours-long operation slowed down: at most ~30 years */
	uint64_t deadline_ns = start_ns +
		(wait_ns < 1e18 ? (uint64_t)wait_ns : (uint64_t)1e18);
	uint64_t now_ns = monotonic_ns();
	struct timespec until = {
		.tv_sec = (time_t)(deadline_ns / NS_PER_S),
		.tv_nsec = (long)(deadline_ns % NS_PER_S),
	};

	if (now_ns >= deadline_ns) {
		c->late += model_ns > 0;
		c->done_ns = now_ns;
		return;
	}
	c->slept_ns += deadline_ns - now_ns;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until,
			       NULL) == EINTR)
		;
	c->done_ns = deadline_ns;
}

/*
 * A request arrives at start_ns: the card was idle since the last one
 * completed, and does its background work (folds its SLC cache) in that
 * time, scaled to its own clock.
 */
static void idle_until(struct card *c, uint64_t start_ns)
{
	double idle_ns;

	if (!c->done_ns || start_ns <= c->done_ns)
		return;
	idle_ns = (double)(start_ns - c->done_ns) * c->time_scale;
	sim_idle(&c->dev, idle_ns < 1e18 ? (uint64_t)idle_ns : (uint64_t)1e18);
}

/* The whole sectors a byte range touches, as the card sees it. */
static void sectors(const struct card *c, uint64_t offset, uint64_t length,
		    uint64_t *start, uint64_t *count)
{
	uint64_t end = offset + length;

	*start = offset / SECTOR_BYTES * SECTOR_BYTES;
	end = (end + SECTOR_BYTES - 1) / SECTOR_BYTES * SECTOR_BYTES;
	if (end > c->dev.size_bytes)
		end = c->dev.size_bytes;
	*count = end - *start;
}

static void tell_full(struct card *c)
{
	char cap[UNITS_BUF];

	if (c->full_told)
		return;
	c->full_told = true;
	fprintf(stderr, "flashemu: the memory store is full (%s held): "
		"writes fail with ENOSPC; use --store=FILE or a larger "
		"--mem-cap\n", units_format_exact_size(cap,
		emustore_held_bytes(c->store)));
}

/*
 * A counterfeit card (a fake= key) decides where its offsets land and
 * what a read past its real capacity returns: the data moves through the
 * model, which hands its real blocks to the store (open_store).  A
 * whole-sector request goes straight through; a read of part of a sector
 * reads the whole sectors into a buffer first.  A write of part of a
 * sector would need a read the card never saw, so it is refused, as a
 * block device would.
 */
static int fake_transfer(struct card *c, bool write, void *buf,
			 uint64_t offset, uint64_t length, uint64_t first,
			 uint64_t bytes, uint64_t *model_ns)
{
	unsigned char *bigger;
	int err;

	if (first == offset && bytes == length)
		return write ? dev_write(&c->dev, buf, first, bytes, model_ns) :
			       dev_read(&c->dev, buf, first, bytes, model_ns);
	if (write)
		return -EINVAL;
	if (bytes > c->bounce_bytes) {
		bigger = realloc(c->bounce, (size_t)bytes);
		if (!bigger)
			return -ENOMEM;
		c->bounce = bigger;
		c->bounce_bytes = bytes;
	}
	err = dev_read(&c->dev, c->bounce, first, bytes, model_ns);
	if (!err)
		memcpy(buf, c->bounce + (offset - first), (size_t)length);
	return err;
}

/* A read or a write: charged to the model, moved in the store, timed. */
static int card_transfer(struct card *c, bool write, void *buf,
			 uint64_t offset, uint32_t length)
{
	uint64_t start_ns = monotonic_ns(), model_ns = 0, first, bytes;
	int err;

	idle_until(c, start_ns);
	sectors(c, offset, length, &first, &bytes);
	if (sim_keeps_data(&c->dev))
		err = fake_transfer(c, write, buf, offset, length, first,
				    bytes, &model_ns);
	else if (write)
		err = dev_write(&c->dev, buf, first, bytes, &model_ns);
	else
		err = dev_read(&c->dev, NULL, first, bytes, &model_ns);
	if (!err && !sim_keeps_data(&c->dev))
		err = write ? emustore_write(c->store, buf, offset, length) :
			      emustore_read(c->store, buf, offset, length);
	complete_at(c, start_ns, model_ns);
	if (err == -ENOSPC)	/* said after the request's time, not in it */
		tell_full(c);
	return err;
}

static int card_read(void *ctx, void *buf, uint64_t offset, uint32_t length)
{
	return card_transfer(ctx, false, buf, offset, length);
}

static int card_write(void *ctx, const void *buf, uint64_t offset,
		      uint32_t length)
{
	/* the store only reads from buf when writing */
	return card_transfer(ctx, true, (void *)buf, offset, length);
}

/*
 * A discard covers the whole sectors inside the range; the store all of
 * it, or for a fake card what the model punches of its real blocks.
 */
static int card_punch(void *ctx, uint64_t offset, uint64_t length)
{
	struct card *c = ctx;
	uint64_t start_ns = monotonic_ns(), model_ns = 0;
	uint64_t first = (offset + SECTOR_BYTES - 1) / SECTOR_BYTES *
			 SECTOR_BYTES;
	uint64_t end = (offset + length) / SECTOR_BYTES * SECTOR_BYTES;
	int err = 0;

	idle_until(c, start_ns);
	if (end > first)
		err = dev_discard(&c->dev, first, end - first, &model_ns);
	if (!err && !sim_keeps_data(&c->dev))
		err = emustore_punch(c->store, offset, length);
	complete_at(c, start_ns, model_ns);
	return err;
}

/*
 * An fsync (what a loop device makes of a flush) is the card's flush: its
 * volatile= cache made durable as its flush= says, in the model's time.
 */
static int card_sync(void *ctx)
{
	struct card *c = ctx;
	uint64_t start_ns = monotonic_ns(), before_ns = c->dev.stats.time_ns;
	int err = dev_flush(&c->dev);

	complete_at(c, start_ns, c->dev.stats.time_ns - before_ns);
	return err;
}

static const struct fuse_file_ops card_ops = {
	.read = card_read,
	.write = card_write,
	.punch = card_punch,
	.sync = card_sync,
};

/* --- MOUNTPOINT/power: the card's power switch ------------------------- */

static size_t power_show(void *ctx, char *text, size_t size)
{
	const struct card *c = ctx;

	return (size_t)snprintf(text, size, "%s\n",
				c->power_off ? "off" : "on");
}

/*
 * off cuts the power at once (every request fails with EIO until on);
 * on powers the card again, with what its fault keys left.  A card that
 * does not come back (cut-dead=) keeps failing: the switch is on, the
 * card gone.  Any other word is refused.
 */
static int power_store(void *ctx, const char *text, size_t length)
{
	struct card *c = ctx;

	while (length && (text[length - 1] == '\n' || text[length - 1] == ' '))
		length--;
	if (length == 3 && memcmp(text, "off", 3) == 0) {
		dev_power_cut(&c->dev, 0);
		c->power_off = true;
		return 0;
	}
	if (length != 2 || memcmp(text, "on", 2) != 0)
		return -EINVAL;
	if (c->power_off && dev_power_on(&c->dev) == -ENODEV)
		fprintf(stderr, "flashemu: power on: the card did not come "
			"back; its I/O fails with EIO\n");
	c->power_off = false;
	return 0;
}

static const struct fuse_control_ops power_ops = {
	.name = POWER_NAME,
	.show = power_show,
	.store = power_store,
};

/* --- statistics -------------------------------------------------------- */

struct figures {
	struct sim_stats model;
	struct fuse_counts fuse;
	uint64_t late;
	uint64_t slept_ns;
	uint64_t store_bytes;
};

/*
 * One figure: its name, which says its one unit (_bytes, _ns, or a
 * count), the unit, and where it is in struct figures.
 */
struct figure {
	const char *name;
	size_t offset;
	enum record_unit unit;
	int u32;		/* a uint32_t field */
};

#define COUNTED RECORD_COUNT
#define MODEL(n, f, k) { n, offsetof(struct figures, model.f), k, 0 }
#define FUSE(f, k, w) { "fuse_" #f, offsetof(struct figures, fuse.f), k, w }

static const struct figure figure_table[] = {
	MODEL("reads", reads, COUNTED),
	MODEL("bytes_read", bytes_read, RECORD_BYTES),
	MODEL("writes", writes, COUNTED),
	MODEL("bytes_written", bytes_written, RECORD_BYTES),
	MODEL("discards", discards, COUNTED),
	MODEL("bytes_discarded", bytes_discarded, RECORD_BYTES),
	MODEL("busy_ns", busy_ns, RECORD_TIME),
	MODEL("gcs", gcs, COUNTED), MODEL("gc_ns", gc_ns, RECORD_TIME),
	MODEL("copied_bytes", copied_bytes, RECORD_BYTES),
	MODEL("opened", opened, COUNTED), MODEL("closed", closed, COUNTED),
	MODEL("spilled", spilled, COUNTED),
	MODEL("switches", switches, COUNTED),
	FUSE(requests, COUNTED, 0), FUSE(errors, COUNTED, 0),
	FUSE(max_read_bytes, RECORD_BYTES, 1),
	FUSE(max_write_bytes, RECORD_BYTES, 1),
	{ "late_requests", offsetof(struct figures, late), COUNTED, 0 },
	{ "slept_ns", offsetof(struct figures, slept_ns), RECORD_TIME, 0 },
	{ "store_bytes", offsetof(struct figures, store_bytes), RECORD_BYTES,
	  0 },
};

#define NFIGURES (sizeof(figure_table) / sizeof(figure_table[0]))

static uint64_t figure_value(const struct figures *f, const struct figure *t)
{
	const char *at = (const char *)f + t->offset;

	if (t->u32)
		return *(const uint32_t *)(const void *)at;
	return *(const uint64_t *)(const void *)at;
}

static void gather(const struct card *c, const struct fuse_server *fs,
		   struct figures *f)
{
	memset(f, 0, sizeof(*f));
	sim_stats(&c->dev, &f->model);
	f->fuse = fs->counts;
	f->late = c->late;
	f->slept_ns = c->slept_ns;
	/* a fake card's fake-cache= is memory the data takes too */
	f->store_bytes = emustore_held_bytes(c->store) + f->model.held_bytes;
}

struct options {
	const char *spec;
	char *command;			/* the command line, for --stats */
	const char *mountpoint;
	double time_scale;
	const char *store_path;
	uint64_t mem_cap_bytes;
	const char *stats_path;
};

/*
 * The figures as one record of kind emulator, each in the unit its name
 * says: the lines on stderr ("name value", a handful a line) and the
 * --stats document both come from it.
 */
static void figures_record(const struct figures *f, struct record *rec)
{
	*rec = (struct record){ .kind = "emulator", .count = NFIGURES };
	for (size_t i = 0; i < NFIGURES; i++)
		rec->fields[i] = (struct record_field){ figure_table[i].unit,
			figure_table[i].name, NULL, NULL,
			(double)figure_value(f, &figure_table[i]) };
}

static void print_figures(const struct figures *f)
{
	char number[REPORT_NUMBER_MAX];
	struct record rec;

	figures_record(f, &rec);
	for (unsigned i = 0; i < rec.count; i++) {
		if (i % 6 == 0)
			fputs(i ? "\nflashemu: stats:" : "flashemu: stats:",
			      stderr);
		fprintf(stderr, " %s %s", rec.fields[i].key,
			render_format_number(number, sizeof(number),
					     rec.fields[i].value,
					     rec.fields[i].unit));
	}
	fputc('\n', stderr);
}

/*
 * The figures as the document every flashbench test writes (schema 3):
 * the card, the time scale and memory cap as parameters, one emulator
 * record; written whole beside path, then renamed into place.
 */
static int write_json(const char *path, const struct options *o,
		      const struct card *c, const struct figures *f)
{
	const struct vm_param params[] = {
		{ "time_scale", o->time_scale },
		{ "mem_cap", (double)o->mem_cap_bytes },
	};
	const struct render_meta meta = { .test = "flashemu",
		.command = o->command, .device = o->spec,
		.device_name = o->spec, .device_size = c->dev.size_bytes,
		.logical_block_size = c->dev.logical_block_bytes,
		.params = params, .param_count = 2 };
	size_t tmp_len = strlen(path) + 5;
	char *tmp = malloc(tmp_len);
	struct render *report;
	struct record rec;
	FILE *out;
	int err;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, tmp_len, "%s.new", path);
	out = fopen(tmp, "w");
	if (!out) {
		free(tmp);
		return -errno;
	}
	figures_record(f, &rec);
	report = render_open(out, RENDER_JSON, &meta);
	err = report ? render_record(report, &rec) : -ENOMEM;
	if (report && render_close(report, &c->dev.stats, false) && !err)
		err = -EIO;
	if (fclose(out) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	free(tmp);
	return err;
}


static void report(const struct options *o, const struct card *c,
		   const struct fuse_server *fs)
{
	struct figures f;
	int err;

	gather(c, fs, &f);
	print_figures(&f);
	if (!o->stats_path)
		return;
	err = write_json(o->stats_path, o, c, &f);
	if (err)
		fprintf(stderr, "flashemu: write stats %s: %s\n",
			o->stats_path, strerror(-err));
}

/* --- the command line -------------------------------------------------- */

static double scale_arg(const char *text)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(x) || x <= 0 || x > 1e9)
		usage_error("--time-scale '%s' is not a positive number up to "
			    "1e9 (try 1, 10 or 0.5)", text);
	return x;
}

static uint64_t size_arg(const char *what, const char *text)
{
	uint64_t value;

	if (units_parse_size(text, &value) || value == 0)
		usage_error("%s '%s' is not a size (try 256M or 2GiB)", what,
			    text);
	return value;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "time-scale", required_argument, NULL, 't' },
		{ "store", required_argument, NULL, 's' },
		{ "mem-cap", required_argument, NULL, 'm' },
		{ "stats", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	char why[MESSAGE_BYTES];
	int c;

	*o = (struct options){ .time_scale = 1.0,
			       .mem_cap_bytes = DEFAULT_MEM_CAP };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", longs, NULL)) != -1) {
		if (c == 't')
			o->time_scale = scale_arg(optarg);
		else if (c == 's')
			o->store_path = optarg;
		else if (c == 'm')
			o->mem_cap_bytes = size_arg("--mem-cap", optarg);
		else if (c == 'S')
			o->stats_path = optarg;
		else if (c == 'h') {
			usage(stdout);
			exit(EXIT_OK);
		} else if (c == 'V') {
			printf("%s %s\n", die_program_name, VERSION);
			exit(EXIT_OK);
		} else
			usage_error("%s", cli_option_error(c, optopt,
				    argv[optind - 1], longs, why,
				    sizeof(why)));
	}
	if (argc - optind != 2)
		usage_error("expected <spec> <mountpoint>, got %d argument%s",
			    argc - optind, argc - optind == 1 ? "" : "s");
	o->spec = argv[optind];
	o->mountpoint = argv[optind + 1];
	o->command = cli_join_command(argc, argv);
	if (!o->command)
		runtime_error("out of memory");
	if (strncmp(o->spec, "sim:", 4) != 0)
		usage_error("spec '%s' is not a simulated card (try "
			    "sim:sandisk-su08g or sim:size=1G)", o->spec);
}

/* --- the mountpoint ---------------------------------------------------- */

/* mountinfo writes space, tab, newline and backslash as \ooo */
static void unescape(char *text)
{
	char *out = text;

	for (; *text; text++) {
		if (text[0] == '\\' && text[1] >= '0' && text[1] <= '3' &&
		    text[2] >= '0' && text[2] <= '7' &&
		    text[3] >= '0' && text[3] <= '7') {
			*out++ = (char)((text[1] - '0') * 64 +
					(text[2] - '0') * 8 + (text[3] - '0'));
			text += 3;
		} else {
			*out++ = *text;
		}
	}
	*out = '\0';
}

/* Is path (absolute, resolved) a mountpoint in this namespace? */
static bool is_mounted(const char *path)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096], point[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			continue;
		unescape(point);
		found = strcmp(point, path) == 0;
	}
	fclose(f);
	return found;
}

static bool is_empty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 ||
			strcmp(e->d_name, "..") == 0;
	closedir(d);
	return empty;
}

/* An existing, empty directory that nothing is mounted on: resolved. */
static char *check_mountpoint(const char *mountpoint)
{
	struct stat st;
	char *path;

	if (stat(mountpoint, &st) < 0)
		usage_error("mountpoint %s: %s (create it with mkdir)",
			    mountpoint, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		usage_error("mountpoint %s: not a directory", mountpoint);
	path = realpath(mountpoint, NULL);
	if (!path)
		usage_error("mountpoint %s: %s", mountpoint, strerror(errno));
	if (is_mounted(path))
		usage_error("mountpoint %s: already mounted (umount %s, or "
			    "choose an empty directory)", mountpoint, path);
	if (!is_empty_dir(mountpoint))
		usage_error("mountpoint %s: not empty (choose an empty "
			    "directory)", mountpoint);
	return path;
}

/*
 * --store=FILE: a regular file or a block device outside the mountpoint,
 * checked before anything is made (emustore_check says what may be).
 */
static void check_store(const char *path, const char *mountpoint,
			uint64_t card_bytes, struct emustore_place *place)
{
	char why[PATH_MAX + 128];

	if (emustore_check(path, mountpoint, card_bytes, place, why,
			   sizeof(why)))
		usage_error("--store: %s: %s", path, why);
}

/* --- signals and shutdown ---------------------------------------------- */

static volatile sig_atomic_t stop_signals;	/* SIGINT/SIGTERM so far */
static volatile sig_atomic_t stop_signo;	/* the last of them */
static volatile sig_atomic_t report_wanted;	/* SIGUSR1 */

static void on_signal(int signo)
{
	if (signo == SIGUSR1) {
		report_wanted = 1;
	} else {
		stop_signals++;
		stop_signo = signo;
	}
}

static const char *stop_name(void)
{
	return stop_signo == SIGINT ? "SIGINT" : "SIGTERM";
}

/*
 * Block the signals everywhere but while waiting for a request (ppoll
 * lets them in): a request, once read, is answered before the program
 * acts on one.  *unblocked is the mask for the wait.
 */
static void setup_signals(sigset_t *unblocked)
{
	static const int handled[] = { SIGINT, SIGTERM, SIGUSR1 };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t blocked;

	sigemptyset(&blocked);
	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++) {
		sigaction(handled[i], &sa, NULL);
		sigaddset(&blocked, handled[i]);
	}
	sigprocmask(SIG_BLOCK, &blocked, unblocked);
	sigdelset(unblocked, SIGINT);
	sigdelset(unblocked, SIGTERM);
	sigdelset(unblocked, SIGUSR1);
}

/* Name every loop device whose backing file is card; how many there are. */
static int tell_loop_holders(const char *card)
{
	glob_t g;
	int n = 0;

	if (glob("/sys/block/loop*/loop/backing_file", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		char backing[4096], name[64];

		if (!f)
			continue;
		if (fgets(backing, sizeof(backing), f)) {
			backing[strcspn(backing, "\n")] = '\0';
			if (strcmp(backing, card) == 0 &&
			    sscanf(g.gl_pathv[i], "/sys/block/%63[^/]",
				   name) == 1) {
				fprintf(stderr, "flashemu: /dev/%s still holds "
					"%s: detach it with losetup -d "
					"/dev/%s\n", name, card, name);
				n++;
			}
		}
		fclose(f);
	}
	globfree(&g);
	return n;
}

/* Said once, at the first signal while something holds the card open. */
static void tell_draining(const struct fuse_server *fs)
{
	char card[4096];

	fprintf(stderr, "flashemu: %s: serving until the card is released; a "
		"second signal stops at once\n", stop_name());
	snprintf(card, sizeof(card), "%s/%s", fs->mountpoint, fs->file_name);
	tell_loop_holders(card);
}

/*
 * Unmount.  Busy though no user holds the card means a process works
 * inside the mountpoint, or the last close is still letting go of it:
 * the mount is detached lazily, and the kernel frees it after them.
 */
static void unmount(struct fuse_server *fs)
{
	int err = fuse_server_unmount(fs, 0);

	if (err == -EBUSY)
		err = fuse_server_unmount(fs, MNT_DETACH);
	if (err && err != -EINVAL)	/* EINVAL: unmounted already */
		fprintf(stderr, "flashemu: umount %s: %s\n", fs->mountpoint,
			strerror(-err));
}

/* --- main -------------------------------------------------------------- */

/* The model: a bad spec is refused before anything is made. */
static void open_card(const struct options *o, struct card *c)
{
	char why[MESSAGE_BYTES];
	int err = dev_open(&c->dev, o->spec, DEV_READ_WRITE);

	if (err == -EROFS)	/* sim:...,ro: a write-protected card */
		err = dev_open(&c->dev, o->spec, DEV_READ_ONLY);
	if (err) {
		dev_strerror(&c->dev, why, sizeof(why));
		if (c->dev.error.usage)
			usage_error("%s", why);
		runtime_error("%s: %s", o->spec, why);
	}
	dev_allow_writes(&c->dev, 0, c->dev.size_bytes);
	c->time_scale = o->time_scale;
}

/*
 * The store holds every card's data, a fake card's too: the model keeps
 * none of its own, so --mem-cap and --store hold for it as for any card.
 */
static void open_store(const struct options *o, struct card *c,
		       const struct emustore_place *place)
{
	char why[PATH_MAX + 128];

	if (emustore_open(&c->store, c->dev.size_bytes, place,
			  o->mem_cap_bytes, why, sizeof(why)))
		runtime_error("%s", why);
	if (sim_keeps_data(&c->dev))
		sim_keep_data_in(&c->dev, &emustore_sim_ops, c->store);
}

/*
 * Serve until unmounted.  The first SIGINT or SIGTERM drains: every
 * request is still served while anything holds the card open (a loop
 * device holds its backing file from attach to detach), and the file
 * system is unmounted when the last holder lets go, or at once when none
 * does; a second signal stops at once.  Returns 0, that second signal,
 * or a negative errno from /dev/fuse.
 */
static int serve(const struct options *o, struct card *c,
		 struct fuse_server *fs, const sigset_t *unblocked)
{
	bool told_ready = false, draining = false;

	for (;;) {
		int err = fuse_server_serve(fs, unblocked);

		if (err == -ENODEV) {	/* unmounted, by us or by someone */
			fs->mounted = false;
			return 0;
		}
		if (err && err != -EINTR)
			return err;
		if (fs->initialized && !told_ready) {
			printf("ready %s/%s %llu bytes\n", fs->mountpoint,
			       CARD_NAME, (unsigned long long)fs->size_bytes);
			fflush(stdout);
			told_ready = true;
		}
		if (report_wanted) {
			report_wanted = 0;
			report(o, c, fs);
		}
		if (stop_signals && fs->open_files == 0) {
			unmount(fs);
			return 0;
		}
		if (stop_signals > 1)
			return stop_signo;
		if (stop_signals && !draining) {
			tell_draining(fs);
			draining = true;
		}
	}
}

/*
 * After serving: unmounted, the store written through, the figures told.
 * A store file made by this run goes again if the card never was ready.
 */
static int finish(const struct options *o, struct card *c,
		  struct fuse_server *fs, int stopped)
{
	int status = EXIT_OK, err;

	if (stopped < 0) {
		fprintf(stderr, "flashemu: read /dev/fuse: %s\n",
			strerror(-stopped));
		status = EXIT_RUNTIME;
	} else if (stopped > 0) {
		fprintf(stderr, "flashemu: %s again: stopped at once; I/O on "
			"the card fails from now on\n", stop_name());
		status = EXIT_SIGNAL_BASE + stopped;
	}
	unmount(fs);
	/* a clean stop flushes the card, as a host does before power-off:
	   what a volatile= cache holds reaches the store as flush= says */
	dev_flush(&c->dev);
	err = emustore_flush(c->store);
	if (err) {
		fprintf(stderr, "flashemu: store %s: fsync: %s\n",
			o->store_path, strerror(-err));
		status = EXIT_RUNTIME;
	}
	report(o, c, fs);
	if (status == EXIT_RUNTIME && !fs->initialized)
		emustore_discard(c->store);
	else
		emustore_close(c->store);
	fuse_server_close(fs);
	free(c->bounce);
	dev_close(&c->dev);
	return status;
}

int main(int argc, char **argv)
{
	struct options o;
	struct card c = { 0 };
	struct fuse_server fs = { .fd = -1, .file_name = CARD_NAME };
	struct emustore_place place;
	sigset_t unblocked;
	char why[MESSAGE_BYTES], *mountpoint;
	int err;

	parse_options(argc, argv, &o);
	open_card(&o, &c);
	mountpoint = check_mountpoint(o.mountpoint);
	if (o.store_path)
		check_store(o.store_path, mountpoint, c.dev.size_bytes,
			    &place);
	free(mountpoint);
	open_store(&o, &c, o.store_path ? &place : NULL);
	fs.size_bytes = c.dev.size_bytes;
	fs.read_only = c.dev.mode == DEV_READ_ONLY;
	fs.ops = &card_ops;
	fs.control = &power_ops;
	fs.ctx = &c;
	setup_signals(&unblocked);
	err = fuse_server_mount(&fs, o.mountpoint, why, sizeof(why));
	if (err) {
		fprintf(stderr, "flashemu: %s\n", why);
		emustore_discard(c.store);
		fuse_server_close(&fs);
		dev_close(&c.dev);
		free(o.command);
		return EXIT_RUNTIME;
	}
	err = finish(&o, &c, &fs, serve(&o, &c, &fs, &unblocked));
	free(o.command);
	return err;
}
