/*
 * capacity: --capacity-check's findings as records - each probe of a
 * round's evidence, the verdict, the partition that fits a fake, and a
 * restore's account (also --restore's) - handed to a struct record_sink.
 */
#ifndef FLASHBENCH_RECORDS_CAPACITY_H
#define FLASHBENCH_RECORDS_CAPACITY_H

#include "lib/record.h"
#include "measure/capacity.h"
#include "measure/undo/undo.h"

/* A probe as the round's evidence: "round 1: block at N intact ...". */
int capacity_emit_probe(const struct record_sink *sink,
			const struct capacity_probe *probe);

/* The verdict and its certainty; a fake adds the commands that fit a
   partition to its real capacity. */
int capacity_emit_verdict(const struct record_sink *sink,
			  const struct capacity_result *result);

/*
 * The restore's records: what was put back, how much read back as saved,
 * and each range a damaged record left as it was.
 */
int capacity_emit_restore(const struct record_sink *sink,
			  const struct undo_result *restore);

/* The check's sink whose records go to sink (which must outlive it). */
struct capacity_sink capacity_sink_to(const struct record_sink *sink);

#endif
