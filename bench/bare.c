/*
 * bare: the smallest loop that does what flashbench times - one pread
 * with O_DIRECT, CLOCK_MONOTONIC_RAW read right around it - as the yardstick
 * for bench/run.sh.  It also runs a command pinned to a CPU and reports its
 * peak RSS and wall time.  Random reads visit the slots in the order
 * flashbench --iops does (lfsr.c, linked in); "xorshift" picks them with
 * replacement instead.  Not part of flashbench.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/lfsr.h"

#define MAX_SAMPLES (4u << 20)	/* latencies kept; runs stop there */

static const char usage_text[] =
	"Usage:\n"
	" bare rand DEVICE OFFSET SPAN SECONDS [xorshift]\n"
	"                                       QD1 random 4096-byte reads\n"
	" bare seq DEVICE BLOCK_BYTES SECONDS   sequential reads, wrapping\n"
	" bare list DEVICE BLOCK_BYTES STRIDE COUNT\n"
	"                                       COUNT reads at i x STRIDE\n"
	" bare run [-c CPU] [-r] -- COMMAND...  peak RSS and wall time; -r:\n"
	"                                       SCHED_FIFO when permitted\n"
	"SECONDS are device time: the sum of the timed reads, as flashbench\n"
	"counts it.\n";

static void die(const char *what)
{
	fprintf(stderr, "bare: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static uint64_t number(const char *text)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || *end) {
		fprintf(stderr, "bare: not a number: %s\n%s", text,
			usage_text);
		exit(2);
	}
	return v;
}

struct run {
	int fd;
	uint64_t size_bytes;
	uint64_t block_bytes;
	void *buf;
	uint64_t *lat_ns;	/* one per read, in order */
	uint64_t ops;
	uint64_t device_ns;	/* sum of the timed reads */
	uint64_t wall_ns;	/* first clock read to last */
};

static void open_run(struct run *r, const char *path, uint64_t block_bytes)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->block_bytes = block_bytes;
	r->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st))
		die(path);
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(r->fd, BLKGETSIZE64, &r->size_bytes))
			die(path);
	} else {
		r->size_bytes = (uint64_t)st.st_size;
	}
	if (!block_bytes || block_bytes > r->size_bytes) {
		fprintf(stderr, "bare: block larger than %s\n", path);
		exit(2);
	}
	if (posix_memalign(&r->buf, 4096, block_bytes))
		die("buffer");
	memset(r->buf, 0, block_bytes);
	r->lat_ns = malloc(MAX_SAMPLES * sizeof(*r->lat_ns));
	if (!r->lat_ns)
		die("latencies");
	/* fault every page in now, not inside the loop */
	memset(r->lat_ns, 0, MAX_SAMPLES * sizeof(*r->lat_ns));
}

/* One timed read; the clock is read right around the call. */
static void timed_read(struct run *r, uint64_t offset)
{
	uint64_t start = now_ns();
	ssize_t done = pread(r->fd, r->buf, r->block_bytes, (off_t)offset);
	uint64_t ns = now_ns() - start;

	if (done != (ssize_t)r->block_bytes) {
		if (done >= 0)
			errno = EIO;
		die("pread");
	}
	r->lat_ns[r->ops++] = ns;
	r->device_ns += ns;
}

/* The next slot: flashbench's shuffle, or xorshift64 with replacement. */
struct order {
	bool xorshift;
	uint64_t x;
	struct lfsr_shuffle shuffle;
	uint32_t slots, done;
};

static uint64_t next_slot(struct order *o)
{
	if (o->xorshift) {
		o->x ^= o->x << 13;
		o->x ^= o->x >> 7;
		o->x ^= o->x << 17;
		return o->x % o->slots;
	}
	if (o->done == o->slots) {
		lfsr_shuffle_init(&o->shuffle, o->slots);
		o->done = 0;
	}
	o->done++;
	return lfsr_shuffle_next(&o->shuffle);
}

/* Seconds, fractions allowed, as nanoseconds. */
static uint64_t seconds_ns(const char *text)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(text, &end);
	if (errno || end == text || *end || !(s > 0) || s > 1e6) {
		fprintf(stderr, "bare: not a duration: %s\n%s", text,
			usage_text);
		exit(2);
	}
	return (uint64_t)(s * 1e9);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_run(struct run *r)
{
	double dev_s = (double)r->device_ns / 1e9;
	double wall_s = (double)r->wall_ns / 1e9;
	double bytes = (double)r->ops * (double)r->block_bytes;
	uint64_t p50 = 0;

	if (r->ops) {
		qsort(r->lat_ns, r->ops, sizeof(*r->lat_ns), compare_u64);
		p50 = r->lat_ns[(r->ops + 1) / 2 - 1];
	}
	printf("ops=%llu device_ns=%llu wall_ns=%llu iops=%.1f "
	       "wall_iops=%.1f mb_s=%.1f wall_mb_s=%.1f p50_ns=%llu\n",
	       (unsigned long long)r->ops, (unsigned long long)r->device_ns,
	       (unsigned long long)r->wall_ns,
	       dev_s > 0 ? (double)r->ops / dev_s : 0,
	       wall_s > 0 ? (double)r->ops / wall_s : 0,
	       dev_s > 0 ? bytes / dev_s / 1e6 : 0,
	       wall_s > 0 ? bytes / wall_s / 1e6 : 0,
	       (unsigned long long)p50);
}

static int cmd_rand(char **argv)
{
	struct run r;
	struct order o = { .x = 0x9e3779b97f4a7c15ULL };
	uint64_t offset, span, limit_ns, start;

	open_run(&r, argv[0], 4096);
	offset = number(argv[1]) / 4096 * 4096;
	span = number(argv[2]);
	limit_ns = seconds_ns(argv[3]);
	if (offset >= r.size_bytes)
		offset = 0;
	if (span > r.size_bytes - offset)
		span = r.size_bytes - offset;
	o.slots = span / 4096 < LFSR_MAX_SLOTS ? (uint32_t)(span / 4096) :
		  LFSR_MAX_SLOTS;
	if (!o.slots) {
		fprintf(stderr, "bare: span smaller than 4096 bytes\n");
		return 2;
	}
	o.xorshift = argv[4] && strcmp(argv[4], "xorshift") == 0;
	lfsr_shuffle_init(&o.shuffle, o.slots);
	start = now_ns();
	while (r.device_ns < limit_ns && r.ops < MAX_SAMPLES)
		timed_read(&r, offset + next_slot(&o) * 4096);
	r.wall_ns = now_ns() - start;
	print_run(&r);
	return 0;
}

static int cmd_seq(char **argv)
{
	struct run r;
	uint64_t limit_ns, pos = 0, start;

	open_run(&r, argv[0], number(argv[1]));
	limit_ns = seconds_ns(argv[2]);
	start = now_ns();
	while (r.device_ns < limit_ns && r.ops < MAX_SAMPLES) {
		if (r.block_bytes > r.size_bytes - pos)
			pos = 0;
		timed_read(&r, pos);
		pos += r.block_bytes;
	}
	r.wall_ns = now_ns() - start;
	print_run(&r);
	return 0;
}

static int cmd_list(char **argv)
{
	struct run r;
	uint64_t stride, count, start;

	open_run(&r, argv[0], number(argv[1]));
	stride = number(argv[2]);
	count = number(argv[3]);
	if (count > MAX_SAMPLES || (count && (count - 1) * stride >
					     r.size_bytes - r.block_bytes)) {
		fprintf(stderr, "bare: %llu reads do not fit\n",
			(unsigned long long)count);
		return 2;
	}
	start = now_ns();
	for (uint64_t i = 0; i < count; i++)
		timed_read(&r, i * stride);
	r.wall_ns = now_ns() - start;
	print_run(&r);
	return 0;
}

/*
 * Runs argv pinned to cpu (< 0: not pinned), at real-time priority if asked
 * and permitted; its output is its own.
 */
static int cmd_run(char **argv)
{
	struct rusage ru;
	uint64_t start, wall;
	int cpu = -1, status;
	bool realtime = false;
	pid_t pid;

	for (;;) {
		if (argv[0] && strcmp(argv[0], "-c") == 0 && argv[1]) {
			cpu = (int)number(argv[1]);
			argv += 2;
		} else if (argv[0] && strcmp(argv[0], "-r") == 0) {
			realtime = true;
			argv++;
		} else {
			break;
		}
	}
	if (!argv[0] || strcmp(argv[0], "--") || !argv[1]) {
		fputs(usage_text, stderr);
		return 2;
	}
	argv++;
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}
	if (realtime) {
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			fprintf(stderr, "bare: no real-time priority: %s\n",
				strerror(errno));
	}
	start = now_ns();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "bare: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		die("wait4");
	wall = now_ns() - start;
	fprintf(stderr, "bare-run: rss_kib=%ld wall_ns=%llu status=%d\n",
		ru.ru_maxrss, (unsigned long long)wall,
		WIFEXITED(status) ? WEXITSTATUS(status) :
				    128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && strcmp(argv[1], "rand") == 0)
		return cmd_rand(argv + 2);
	if (argc >= 5 && strcmp(argv[1], "seq") == 0)
		return cmd_seq(argv + 2);
	if (argc >= 6 && strcmp(argv[1], "list") == 0)
		return cmd_list(argv + 2);
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return cmd_run(argv + 2);
	fputs(usage_text, stderr);
	return 2;
}
