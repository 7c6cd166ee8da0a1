/*
 * detected: what a --detect run found, in the findings' terms: the
 * geometry, the open-erase-block counts, the smallest efficient write,
 * the FAT area, the evidence and the advice.  measure/detect.c fills it;
 * output/reportdetect.c renders it.
 */
#ifndef FLASHBENCH_DETECTED_H
#define FLASHBENCH_DETECTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/findings.h"

#define DETECT_MAX_ALIGNS 64	/* alignments the read probes time */
#define DETECT_ADVICE_MAX 8

struct detect_findings {
	struct analysis_geometry geometry;
	struct analysis_finding open_linear, open_random;
	struct analysis_finding min_write, fat_area;
	/* out-of-order rate against in-order at the lowest N, and why
	   not, where not known */
	struct analysis_order_cost random_linear;
	char random_linear_reason[ANALYSIS_REASON_BYTES];
	/* a count not determined because no probe fell off: at least this
	   many (0: none) */
	unsigned open_linear_at_least, open_random_at_least;
	double write_noise;		/* how far write rates wandered, 0.05:
					   5% (see measure/detect.c) */
	uint64_t erase_used;		/* measured, or given */
	bool sysfs_known;
	uint64_t sysfs_erase;		/* preferred_erase_size */
	struct analysis_prior prior;	/* what the reading is told */
	char identity[192];		/* "SanDisk SU08G, serial ..., 2011-11" */
	bool wrote;			/* the write probes ran */
	/* the read timing the geometry was found from */
	struct analysis_align_point evidence[DETECT_MAX_ALIGNS];
	size_t evidence_count;
	unsigned boundaries;		/* each point a median over these */
	char advice[DETECT_ADVICE_MAX][ANALYSIS_ADVICE_BYTES];
	size_t advice_count;
};

#endif
