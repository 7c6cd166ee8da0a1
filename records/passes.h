/*
 * records/passes: the endurance passes (measure/passes.h) as records -
 * one per pass with its rates and bad blocks, one per new bad range of
 * a pass (the map of where blocks went bad), and the summary with the
 * milestones and how the run ended - and their text layout.
 */
#ifndef FLASHBENCH_RECORDS_PASSES_H
#define FLASHBENCH_RECORDS_PASSES_H

#include "lib/record.h"
#include "measure/passes.h"

/* A pass's record, then its new bad ranges; 0 or sink's first error. */
int passes_emit_pass(const struct record_sink *sink,
		     const struct passes_run *run,
		     const struct passes_pass *pass);

/* Every pass the run has done, as passes_emit_pass. */
int passes_emit_done(const struct record_sink *sink,
		     const struct passes_run *run);

/* The summary: passes, milestones, how it ended. */
int passes_emit_summary(const struct record_sink *sink,
			const struct passes_run *run);

#endif
