/*
 * speed: sustained sequential rates, random 4 KiB IOPS at queue depth 1,
 * and a check of measured figures against the SD speed ratings.  Time is
 * device time (the sum of timed operations), so a sim: card runs on its
 * virtual clock.  Results leave as result records, the same as every VM
 * test's, for report.c and plot.c to render; nothing here prints.  It does
 * not open devices or decide where writes may go.
 */
#ifndef FLASHBENCH_SPEED_H
#define FLASHBENCH_SPEED_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"
#include "info.h"
#include "vm.h"

#define SPEED_WRITE_FROM_BYTES	(16ULL << 20)	/* writes start at or above */
#define SPEED_WRITE_SPAN_BYTES	(256ULL << 20)	/* default write span */
#define SPEED_IO_BYTES		4096u		/* random I/O size */
/* -t goes past this many unreadable blocks in a row, then fails */
#define SPEED_MAX_SKIPPED_IN_A_ROW 64
#define SPEED_WINDOW_NS		1000000000ULL	/* rate windows */
#define SPEED_PROGRESS_NS	10000000ULL	/* device time between calls */

/*
 * Progress of a measurement for a progress line: progress(ctx, done,
 * total) with device time in milliseconds, called between operations,
 * never inside a timed one.  A run of several measurements (the class
 * check) says how much came before and how long all of them take.
 */
struct speed_progress {
	void (*update)(void *ctx, uint64_t done_ms, uint64_t total_ms);
	void *ctx;
	uint64_t before_ns;	/* device time of the earlier measurements */
	uint64_t total_ns;	/* of all of them; 0: this one's duration */
};

/*
 * A test's connections to the rest of the tool, as struct vm_exec's: its
 * result records go to emit (non-zero ends the run with that error) and
 * its progress to progress; unreadable blocks -t went past are counted
 * here, not printed.
 */
struct speed_exec {
	struct dev *dev;
	int (*emit)(void *ctx, const struct vm_record *record);
	void (*progress)(void *ctx, uint64_t done_ms, uint64_t total_ms);
	void *ctx;
	volatile sig_atomic_t *stop;	/* set by a signal: end the run */
	uint64_t io_bytes;		/* speed_iops' I/O size, 0: 4 KiB */
	uint64_t failed_reads;
	struct dev_error first_failure;
};

/* A sequential run: whole-run and per-window rates in bytes per second. */
struct speed_rate {
	bool write;
	uint64_t block_bytes;
	uint64_t device_time_ns;
	uint64_t bytes;
	uint64_t operations;
	double bytes_per_s;
	double *windows;		/* window_count rates, in run order */
	size_t window_count;
	double window_min, window_median, window_max;
	uint64_t failed_reads;		/* unreadable blocks skipped */
	unsigned consecutive_failures;
	struct dev_error first_failure;	/* the first of them */
};

/* A random-I/O run at queue depth 1. */
struct speed_iops_result {
	bool write;
	uint64_t io_bytes;		/* size of each read or write */
	uint64_t device_time_ns;
	uint64_t operations;
	double iops;
	uint64_t p50_ns, p99_ns, max_ns;
};

/*
 * Measure sequential reads (write false) or writes of block_bytes from
 * offset for duration_ns of device time.  Reads wrap back to offset at the
 * device end (span_bytes 0) or at offset + span_bytes; writes always stay
 * in [offset, offset + span_bytes).  The buffer and window array are
 * allocated before timing starts; progress may be NULL.  Returns 0, -EINVAL for a block that does
 * not fit, -ENOMEM, -EINTR when *stop was set (r holds what was measured)
 * or the device's error.  Free r with speed_rate_free().
 */
int speed_measure_rate(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		       uint64_t block_bytes, bool write, uint64_t duration_ns,
		       volatile sig_atomic_t *stop,
		       const struct speed_progress *progress,
		       struct speed_rate *r);
void speed_rate_free(struct speed_rate *r);

/*
 * Measure random SPEED_IO_BYTES reads or writes in [offset, offset +
 * span_bytes), at 4 KiB-aligned positions in an LFSR shuffle order, for
 * duration_ns of device time.  progress may be NULL.
 */
int speed_measure_iops(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		       bool write, uint64_t duration_ns,
		       volatile sig_atomic_t *stop,
		       const struct speed_progress *progress,
		       struct speed_iops_result *r);
/* The same with io_bytes (a multiple of the logical block size) each. */
int speed_measure_random(struct dev *dev, uint64_t offset,
			 uint64_t span_bytes, uint64_t io_bytes, bool write,
			 uint64_t duration_ns, volatile sig_atomic_t *stop,
			 const struct speed_progress *progress,
			 struct speed_iops_result *r);

/*
 * The range speed_write, speed_iops with writes and speed_class_check
 * write: from 16 MiB rounded up to erase_bytes, span_bytes long (0 means
 * SPEED_WRITE_SPAN_BYTES) rounded down to whole erase blocks and cut at
 * the device end.  Returns 0, or -ENOSPC when not one erase block fits.
 */
int speed_write_range(const struct dev *dev, uint64_t erase_bytes,
		      uint64_t span_bytes, uint64_t *start, uint64_t *end);

/*
 * Measure, then emit the records: -t and --write-speed a record per
 * one-second window (second, bytes_per_s; for the machine formats and
 * plots, text leaves it out), then the summary; --iops a record for the
 * reads and one for the writes.  Each returns 0, -EINTR after emitting what
 * was measured when *stop was set, emit's error, or a negative errno with
 * dev->error filled in by the device layer (nothing emitted).
 */
int speed_read(struct speed_exec *x, uint64_t offset, uint64_t block_bytes,
	       uint64_t duration_ns);
int speed_write(struct speed_exec *x, uint64_t offset, uint64_t span_bytes,
		uint64_t erase_bytes, uint64_t duration_ns);
/* Random reads of x->io_bytes; then random writes too when write. */
int speed_iops(struct speed_exec *x, uint64_t offset, uint64_t span_bytes,
	       uint64_t duration_ns, bool write);

/* What a class check measured; a figure not measured has its flag false. */
struct speed_measured {
	bool has_write_rate;
	double write_bytes_per_s;	/* sustained sequential write */
	bool has_read_iops;
	double read_iops;
	bool has_write_iops;
	double write_iops;
};

enum speed_verdict {
	SPEED_NOT_MEASURED,
	SPEED_PASS,
	SPEED_FAIL,
};

/* Class names in table order ("C2" ... "A2"); NULL past the last. */
const char *speed_class_name(size_t i);

/*
 * The verdict for one class: FAIL as soon as one measured figure is below
 * its threshold, PASS when all are measured and meet it, NOT_MEASURED
 * otherwise (and for an unknown name).
 */
enum speed_verdict speed_class_verdict(const char *name,
				       const struct speed_measured *m);

/* Whether the card's SSR claims the class (a higher rating implies it). */
bool speed_class_claimed(const char *name, const struct info_card *card);

/*
 * Measure sequential writes in erase-block units inside [offset, offset +
 * span_bytes) (skipped when read_only), random 4 KiB read IOPS over the
 * same range and random 4 KiB write IOPS (skipped when read_only), each
 * for duration_ns, then emit the figures, a record per class and a note
 * on what a host cannot reproduce.  card may be NULL.
 */
int speed_class_check(struct speed_exec *x, const struct info_card *card,
		      bool read_only, uint64_t offset, uint64_t span_bytes,
		      uint64_t erase_bytes, uint64_t duration_ns);

#endif
