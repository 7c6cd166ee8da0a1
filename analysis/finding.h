/*
 * finding: the one shape every reading of the analysis returns - a value,
 * whether it is known, how sure, and why not.  A type only; the readings
 * are in fit.h, staircase.h and openau.h, the records in findings.h.
 */
#ifndef FLASHBENCH_FINDING_H
#define FLASHBENCH_FINDING_H

#include <stdbool.h>
#include <stdint.h>

#define ANALYSIS_REASON_BYTES 160

/*
 * A finding: a value (bytes or a count), whether it is known, how sure,
 * and when it is not known, why not ("" when there is nothing to say).
 */
struct analysis_finding {
	bool known;
	uint64_t value;
	double confidence;	/* 0..1 */
	char reason[ANALYSIS_REASON_BYTES];
};

#endif
