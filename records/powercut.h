/*
 * records/powercut: what --power-cut found, as records - one per cycle
 * (its counts per class), one per example of a fault, and one summary
 * with the verdict's sentence - and their text layout.  The core
 * (measure/powercut*.c) fills a struct powercut_cycle per cut and sums
 * them; this file only turns them into records.
 */
#ifndef FLASHBENCH_RECORDS_POWERCUT_H
#define FLASHBENCH_RECORDS_POWERCUT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/record.h"
#include "measure/powercut.h"
#include "measure/powercutcheck.h"

/* The run as its summary names it, beside the core's sums. */
struct powercut_outcome {
	struct powercut_summary sum;	/* the verified cycles */
	uint64_t offset_bytes, span_bytes;
	uint64_t bytes_written, device_time_ns;
	bool verify_only;		/* --verify: judged from a log */
	bool partial;			/* stopped before its last cycle */
};

/* A cycle's record, then one per example of each class; sink's error. */
int powercut_emit_cycle(const struct record_sink *sink,
			const struct powercut_cycle *c);

/* The summary, its verdict's sentence shown; sink's error. */
int powercut_emit_summary(const struct record_sink *sink,
			  const struct powercut_outcome *o);

/* The verdict: "kept", "damaged", or NULL before any cut. */
const char *powercut_verdict(const struct powercut_summary *s);

#endif
