/*
 * staircase: the levels of an align table's diff column - each step a
 * boundary of some size costs - and what they are taken for: page,
 * effective page, erase block, allocation group, each with a confidence.
 * Numbers in, a geometry out; nothing here reads a device or prints.
 */
#ifndef FLASHBENCH_STAIRCASE_H
#define FLASHBENCH_STAIRCASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/finding.h"

/* One line of an align table, times in ns. */
struct analysis_align_point {
	uint64_t align;
	double pre, on, post, diff;
	double noise;		/* standard error of diff if measured, or 0 */
};

/* What a step of the staircase is taken for. */
enum analysis_level_kind {
	ANALYSIS_LEVEL_STEP,		/* a step no rule names */
	ANALYSIS_LEVEL_PAGE,
	ANALYSIS_LEVEL_EFFECTIVE_PAGE,	/* pages read together (multi-plane) */
	ANALYSIS_LEVEL_ERASE,
	ANALYSIS_LEVEL_ERASE_ALTERNATIVE, /* a lower step that could be it */
	ANALYSIS_LEVEL_GROUP,		/* allocation group above it */
};

/* One step: reads crossing a multiple of size cost cost_ns more. */
struct analysis_level {
	uint64_t size;
	double cost_ns;
	double z;			/* the step in noise units */
	enum analysis_level_kind kind;
};

#define ANALYSIS_MAX_LEVELS 8

/* "page", "effective page", "erase block", "allocation group"... */
const char *analysis_level_name(enum analysis_level_kind kind);

enum analysis_device {
	ANALYSIS_DEVICE_UNKNOWN,	/* also USB sticks: no rule of their own */
	ANALYSIS_DEVICE_SD,
	ANALYSIS_DEVICE_EMMC,
};

/* What is known besides the table; zeros where nothing is. */
struct analysis_prior {
	enum analysis_device device;
	uint64_t capacity_bytes;
	uint64_t preferred_erase;	/* the device's own claim (sysfs) */
};

struct analysis_geometry {
	struct analysis_finding erase;
	struct analysis_finding page;
	struct analysis_finding effective_page;
	/* the second reading where two fit; its confidence is its weight */
	struct analysis_finding erase_alternative;
	/* steps were found, none where an erase block can be: the table
	   does not show it (hidden_confidence: how sure of that) */
	bool erase_hidden;
	double hidden_confidence;
	uint64_t erase_min, erase_max;	/* sizes an erase block can have */
	uint64_t span_low, span_high;	/* smallest and largest alignment */
	uint64_t spec_max_au;		/* the SD specification's bound, or 0 */
	int prior_verdict;		/* preferred_erase: 1 agrees with the
					   reading, -1 with neither, 2 with
					   the alternative, 0 none */
	struct analysis_level levels[ANALYSIS_MAX_LEVELS];
	size_t level_count;
	double boundary_ns;	/* typical diff at erase-block boundaries */
	double page_ns;		/* typical diff at page boundaries */
	double noise_ns;	/* noise of a diff */
	double read_ns;		/* typical read */
	double erase_z;		/* separation in noise units */
	double page_z;
};

/*
 * The staircase of an align table (any number of tables of one card,
 * power-of-two and 3 x 2^n alignments, any order): the levels of the diff
 * column, each named, and from them the erase block (the start of the top
 * level among sizes an erase block can have), the page (the lowest step)
 * and the effective page (a step just above it).  prior may be NULL.
 */
void analysis_align_prior(const struct analysis_align_point *points,
			  size_t count, const struct analysis_prior *prior,
			  struct analysis_geometry *geometry);

/* The same with nothing known besides the table. */
void analysis_align(const struct analysis_align_point *points, size_t count,
		    struct analysis_geometry *geometry);

#endif
