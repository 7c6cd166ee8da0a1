/*
 * records/speed: the speed tests' result records with their text layout
 * (measure/speed.c gathers the figures and judges the classes), each
 * handed to x->sink.
 */
#ifndef FLASHBENCH_RECORDS_SPEED_H
#define FLASHBENCH_RECORDS_SPEED_H

#include <stdbool.h>
#include <stdint.h>

#include "identity/card.h"
#include "measure/speed.h"

/*
 * Emit a test's result records: -t and --write-speed a record per
 * one-second window (second, bytes_per_s; for the machine formats and
 * plots, text leaves it out), then the summary; --iops a record for the
 * reads and, when measured, one for the writes.  Each returns 0 or emit's
 * error.
 */
int speed_emit_rate(struct speed_exec *x, const struct speed_results *r,
		    bool write, uint64_t block_bytes);
int speed_emit_iops(struct speed_exec *x, const struct speed_results *r);

/*
 * The class check's figures (sequential write rate, random 4 KiB read
 * and write IOPS, each when measured), a record per class and a note on
 * what a host cannot reproduce.  card may be NULL.
 */
int speed_emit_classes(struct speed_exec *x, const struct speed_results *r,
		       const struct info_card *card);

struct hostq;

/*
 * --class-check: whether the host path queues (q NULL: a simulated
 * card, whose queue= key decides), so a reader knows what the QD32
 * verdicts can mean.
 */
int speed_emit_host_queue(struct speed_exec *x, const struct hostq *q);

/*
 * --class-check: the Raspberry Pi's SD Card Speed Test, measured its
 * way - its three figures and its verdict - and beside them why: the
 * sustained write rate, the host link's ceiling and whether the host
 * queues (q as speed_emit_host_queue's).
 */
int speed_emit_pi(struct speed_exec *x, const struct speed_results *r,
		  const struct hostq *q);

#endif
