/*
 * speed: sustained sequential rates, random 4 KiB IOPS at queue depth 1,
 * and a check of measured figures against the SD speed ratings.  Time is
 * device time (the sum of timed operations), so a sim: card runs on its
 * virtual clock.  It does not open devices or decide where writes may go.
 */
#ifndef FLASHBENCH_SPEED_H
#define FLASHBENCH_SPEED_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dev.h"
#include "info.h"

#define SPEED_WRITE_FROM_BYTES	(16ULL << 20)	/* writes start at or above */
#define SPEED_WRITE_SPAN_BYTES	(256ULL << 20)	/* default write span */
#define SPEED_IO_BYTES		4096u		/* random I/O size */
/* -t goes past this many unreadable blocks in a row, then fails */
#define SPEED_MAX_SKIPPED_IN_A_ROW 64
#define SPEED_WINDOW_NS		1000000000ULL	/* rate windows */

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
 * allocated before timing starts.  Returns 0, -EINVAL for a block that does
 * not fit, -ENOMEM, -EINTR when *stop was set (r holds what was measured)
 * or the device's error.  Free r with speed_rate_free().
 */
int speed_measure_rate(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		       uint64_t block_bytes, bool write, uint64_t duration_ns,
		       volatile sig_atomic_t *stop, struct speed_rate *r);
void speed_rate_free(struct speed_rate *r);

/*
 * Measure random SPEED_IO_BYTES reads or writes in [offset, offset +
 * span_bytes), at 4 KiB-aligned positions in an LFSR shuffle order, for
 * duration_ns of device time.
 */
int speed_measure_iops(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		       bool write, uint64_t duration_ns,
		       volatile sig_atomic_t *stop,
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
 * Run and print (text, or one JSON object when json).  Each returns 0,
 * -EINTR after printing what was measured when *stop was set, or a
 * negative errno with dev->error filled in by the device layer.
 */
int speed_read(struct dev *dev, uint64_t offset, uint64_t block_bytes,
	       uint64_t duration_ns, volatile sig_atomic_t *stop, FILE *out,
	       bool json);
int speed_write(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		uint64_t erase_bytes, uint64_t duration_ns,
		volatile sig_atomic_t *stop, FILE *out, bool json);
/* Random reads; then random writes too when write. */
int speed_iops(struct dev *dev, uint64_t offset, uint64_t span_bytes,
	       uint64_t duration_ns, bool write, volatile sig_atomic_t *stop,
	       FILE *out, bool json);

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
 * for duration_ns, then print the class table.  card may be NULL.
 */
int speed_class_check(struct dev *dev, const struct info_card *card,
		      bool read_only, uint64_t offset, uint64_t span_bytes,
		      uint64_t erase_bytes, uint64_t duration_ns,
		      volatile sig_atomic_t *stop, FILE *out, bool json);

#endif
