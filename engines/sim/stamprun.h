/*
 * The fake store's stamp runs (stamprun.c): sectors kept as the stamps
 * they are, a stretch at a time, instead of as their bytes.
 */
#ifndef FLASHBENCH_SIM_STAMPRUN_H
#define FLASHBENCH_SIM_STAMPRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Sectors that hold stamps (lib/stampblock.h) of 512-byte blocks, one
 * after the other: sector first + i holds the stamp naming offset
 * (first + i) x 512 + delta, of salt.  Kept instead of their bytes.
 */
struct sim_stamp_run {
	uint64_t first, count;	/* physical sectors */
	uint64_t delta;		/* named offset - physical offset, mod 2^64 */
	uint64_t salt;
};

/* A card's runs, by first, disjoint. */
struct sim_runs {
	struct sim_stamp_run *run;
	size_t n, cap;
};

/* What a sector was judged to be: a stamp, naming named with salt. */
struct sim_stamp_seen {
	bool stamp;
	uint64_t named, salt;
};

#define SIM_STAMP_BATCH 64	/* sectors judged at once */

/*
 * Which of n sectors (at most SIM_STAMP_BATCH) from data on are exactly
 * stamps: seen[i], with what they name and their salt.
 */
void sim_stamps_find(const unsigned char *data, size_t n,
		     struct sim_stamp_seen *seen);

/*
 * Put run r in, over whatever runs held its sectors: those keep only
 * their parts before and after it.  0 or -ENOMEM.
 */
int sim_runs_insert(struct sim_runs *rs, struct sim_stamp_run r);

/* The run holding sector, or NULL. */
const struct sim_stamp_run *sim_runs_of(const struct sim_runs *rs,
					uint64_t sector);

/*
 * A write's stamp sectors gather into one pending run while they go on
 * one from the other (sim_runs_add); anything else puts it in first
 * (sim_runs_flush).  0 or -ENOMEM.
 */
int sim_runs_add(struct sim_runs *rs, struct sim_stamp_run *pending,
		 uint64_t sector, uint64_t named, uint64_t salt);
int sim_runs_flush(struct sim_runs *rs, struct sim_stamp_run *pending);

#endif
