/*
 * speed: sustained sequential rates, random 4 KiB IOPS at queue depth 1,
 * and a check of measured figures against the SD speed ratings.  Time is
 * device time (the sum of timed operations), so a sim: card runs on its
 * virtual clock.  What the programs measured is gathered here and the
 * classes judged; records/speed.c makes the result records.  Nothing here
 * prints, opens devices or decides where writes may go.
 */
#ifndef FLASHBENCH_SPEED_H
#define FLASHBENCH_SPEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/sustained.h"
#include "dev.h"
#include "identity/card.h"
#include "vm.h"

#define SPEED_WRITE_SPAN_BYTES	(256ULL << 20)	/* default write span */
#define SPEED_IO_BYTES		4096u		/* random I/O size */
#define SPEED_WINDOW_NS		1000000000ULL	/* rate windows */

/*
 * A test's connections to the rest of the tool, as struct vm_exec's: its
 * result records go to sink (non-zero ends with that error); unreadable
 * blocks -t went past are counted by the VM and copied here.
 */
struct speed_exec {
	struct record_sink sink;
	uint64_t failed_reads;
	/* the device's host link (a real device): the results add the
	   link record and their share of its ceiling; NULL adds neither */
	const struct link_info *link;
	/* the range the sequential writes may cover once */
	uint64_t span_bytes;
	/* --class-check's Raspberry Pi test: its file, its random I/O's
	   time each */
	uint64_t pi_file_bytes, pi_random_ns;
	/* how far the sequential writes could go on the device: from
	   their start to its end (0: not known) */
	uint64_t room_bytes;
};

/* A sequential run: whole-run and per-window rates in bytes per second. */
struct speed_rate {
	uint64_t device_time_ns;
	uint64_t bytes;
	double bytes_per_s;
	const double *windows;		/* window_count rates, in run order */
	size_t window_count;
	double window_min, window_median, window_max;
};

/* A random-I/O run at queue depth 1. */
struct speed_iops_result {
	bool write;
	unsigned iodepth;		/* operations in flight */
	uint64_t io_bytes;		/* size of each read or write */
	uint64_t device_time_ns;
	uint64_t operations;
	double iops;
	uint64_t p50_ns, p99_ns, max_ns;
};

/*
 * The speed tests are VM programs (programs.c: read-speed, write-speed,
 * iops, class-check).  What their records say is gathered here, as
 * vm_run hands them out: speed_collect is the run's emit, with a
 * struct speed_results, set up before the run (the window and chunk
 * arrays are allocated then, never while timing), as ctx.  The
 * sequential writes come a chunk at a time: each goes to the write
 * cache's detector (analysis/sustained.c), which may say it has seen
 * enough (VM_ENOUGH ends the writes), and into one-second windows.
 */
struct speed_results {
	double *windows;		/* rates of the windows that count */
	size_t window_count, window_cap;
	uint64_t window_ns, window_bytes;	/* the window being filled */
	bool has_rate;			/* sequential: totals of the run */
	uint64_t rate_ns, rate_bytes;
	bool has_chunks;		/* the writes came in chunks */
	struct sustained chunks;
	struct speed_iops_result iops[2];	/* random reads, writes */
	bool has_iops[2];
	/* --class-check's second pass, at SPEED_CLASS_DEPTH */
	struct speed_iops_result queued[2];
	bool has_queued[2];
	/* --class-check's Raspberry Pi test: 4 MiB writes, random I/O */
	bool has_pi_write;
	uint64_t pi_write_ns, pi_write_bytes;
	struct speed_iops_result pi[2];
	bool has_pi[2];
};

/* The depth --class-check also measures at, as A2 ratings assume. */
#define SPEED_CLASS_DEPTH 32

/*
 * The Raspberry Pi's SD Card Speed Test (agnostics: fio's sd_bench.fio
 * and sdtest.sh): libaio at depth 32 over a 256 MiB file, laid out with
 * 512 KiB writes, 4 MiB sequential writes and reads, then random 4 KiB
 * writes and reads for 10 s each; it passes at 10,000 KB/s (fio's KB:
 * 1024 bytes) of sequential write, 500 random write IOPS and 1,500
 * random read IOPS.
 */
#define SPEED_PI_FILE_BYTES	(256ULL << 20)
#define SPEED_PI_BLOCK_BYTES	(4ULL << 20)
#define SPEED_PI_RANDOM_NS	(10 * SPEED_WINDOW_NS)
#define SPEED_PI_SEQ_TIMES	3	/* a pass over the file stops after
					   3 x that */
#define SPEED_PI_SEQ_PASSES	3	/* its layout, writes and reads */
#define SPEED_PI_WRITE_BYTES_PER_S	(10000.0 * 1024)
#define SPEED_PI_WRITE_IOPS	500.0
#define SPEED_PI_READ_IOPS	1500.0

/*
 * Room for duration_ns of one-second windows and max_chunks chunks of
 * sequential writes (0 for a test without them).  0 or -ENOMEM.
 */
int speed_results_init(struct speed_results *r, uint64_t duration_ns,
		       uint64_t max_chunks);
void speed_results_free(struct speed_results *r);
int speed_collect(void *ctx, const struct record *record);

/*
 * After the run: the device kept at most depth operations in flight (1
 * when no engine could queue).  The records say the depth that ran, and
 * figures meant for SPEED_CLASS_DEPTH measured below it are dropped: a
 * verdict on them is "not measured", not a QD1 figure passed off as QD32.
 */
void speed_results_ran_at(struct speed_results *r, unsigned depth);

/* After the run: the last window, if it counts (see take_window). */
void speed_results_end(struct speed_results *r);

/* $windows of a program that runs duration_ns: every window that fits */
uint64_t speed_windows(uint64_t duration_ns);

/* The whole-run rate and the spread of the windows (r's array). */
void speed_rate_summary(const struct speed_results *r,
			struct speed_rate *summary);

/*
 * The range speed_write, speed_iops with writes and speed_class_check
 * write: from measure_write_floor(erase_bytes), span_bytes long (0 means
 * SPEED_WRITE_SPAN_BYTES) rounded down to whole erase blocks and cut at
 * the device end.  Returns 0, or -ENOSPC when not one erase block fits.
 */
int speed_write_range(const struct dev *dev, uint64_t erase_bytes,
		      uint64_t span_bytes, uint64_t *start, uint64_t *end);

/* What a class check measured; a figure not measured has its flag false. */
struct speed_measured {
	bool has_write_rate;
	double write_bytes_per_s;	/* sequential write, the whole run */
	uint64_t write_bytes;		/* written by it */
	/* what the sequential writes showed of a write cache */
	bool has_sustained;
	struct sustained_result sustained;
	bool has_read_iops;
	double read_iops;
	bool has_write_iops;
	double write_iops;
	bool has_ceiling;		/* the host link's, bytes/s */
	double ceiling_bytes_per_s;
	/* the same at SPEED_CLASS_DEPTH */
	bool has_queued_read_iops;
	double queued_read_iops;
	bool has_queued_write_iops;
	double queued_write_iops;
	unsigned write_depth;		/* of the sequential writes; 0 is 1 */
	/* the Raspberry Pi test's figures, at its depth */
	bool has_pi_write;
	double pi_write_bytes_per_s;
	uint64_t pi_write_bytes;	/* the part of its file written */
	bool has_pi_write_iops, has_pi_read_iops;
	double pi_write_iops, pi_read_iops;
};

enum speed_verdict {
	SPEED_NOT_MEASURED,
	SPEED_PASS,
	SPEED_FAIL,
	SPEED_LINK_LIMITED,	/* failed where the link cannot carry it */
	SPEED_PASS_AS_FAR,	/* passed on a write rate that never fell:
				   a larger write cache than the writes
				   reached could hide a slower one */
};

enum speed_family {
	SPEED_FAMILY_C, SPEED_FAMILY_U, SPEED_FAMILY_V, SPEED_FAMILY_A
};

/* A speed class and what it requires. */
struct speed_class {
	const char *name;
	enum speed_family family;
	unsigned level;			/* as the SSR codes it */
	double write_mb;		/* sustained sequential write, MB/s */
	double read_iops;		/* 0: no requirement */
	double write_iops;
	unsigned iodepth;		/* of the IOPS figures judged */
};

/* What the sequential write rate a class is judged on is. */
enum speed_write_basis {
	SPEED_BASIS_NONE,	/* no writes */
	SPEED_BASIS_SUSTAINED,	/* after a fall, settled: the card's own */
	SPEED_BASIS_NO_FALL,	/* the whole run's, which never fell: it
				   holds as far as the writes went */
	SPEED_BASIS_UNSETTLED,	/* a fall the run ended too soon after:
				   below the burst, how far not known */
};

enum speed_write_basis speed_write_basis(const struct speed_measured *m);

/*
 * The sequential write rate a class is judged on: the sustained rate
 * after a write cache when the writes saw one fall and settle, else the
 * whole run's (no cache seen).  False when there is none to judge by:
 * no writes, or a fall the run ended too soon after; then *capped, when
 * not NULL, says whether the rate is known to be at most *value (the
 * burst, which the sustained rate stays below).
 */
bool speed_write_judged(const struct speed_measured *m, double *value,
			bool *capped);

/* The Raspberry Pi test's verdict, by its thresholds alone. */
enum speed_verdict speed_pi_verdict(const struct speed_measured *m);

/* The classes in table order ("C2" ... "A2"); NULL past the last. */
const struct speed_class *speed_class_at(size_t i);

/* The verdict for class c (as speed_class_verdict's, below). */
enum speed_verdict speed_class_judge(const struct speed_class *c,
				     const struct speed_measured *m);

/* Whether the card's SSR claims c (a higher rating implies it). */
bool speed_class_claims(const struct speed_class *c,
			const struct info_card *card);

/* The random I/O figures a class at this depth is judged by. */
struct speed_iops_figures {
	bool has_read, has_write;
	double read, write;
};

struct speed_iops_figures speed_iops_at(const struct speed_measured *m,
					unsigned iodepth);

/*
 * The verdict for one class: FAIL as soon as one measured figure is below
 * its threshold, PASS when all are measured and meet it - PASS_AS_FAR
 * when the write rate that met it never fell (SPEED_BASIS_NO_FALL), so
 * only the burst was seen - NOT_MEASURED otherwise (and for an unknown
 * name).  A write rate below the class's
 * requirement on a link whose ceiling is below it too is LINK_LIMITED:
 * the host, not the card, failed it, and the card is not judged.
 */
enum speed_verdict speed_class_verdict(const char *name,
				       const struct speed_measured *m);

/* Whether the card's SSR claims the class (a higher rating implies it). */
bool speed_class_claimed(const char *name, const struct info_card *card);

/* The figures of results r measured through link (NULL: none known). */
void speed_measured_of(const struct speed_results *r,
		       const struct link_info *link, struct speed_measured *m);

#endif
