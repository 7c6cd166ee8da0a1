/*
 * The simulated card's model (model.c): its state - the erase blocks it
 * holds open, its clock's noise, what it did - and the time each
 * operation takes.  The data a fake key keeps is the fake store's; the
 * state only points to it for the dev_ops glue (ops.c).
 */
#ifndef FLASHBENCH_SIM_MODEL_H
#define FLASHBENCH_SIM_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "engines/sim.h"
#include "engines/sim/card.h"

struct sim_fake;
struct sim_power;
struct sim_reader;
struct sim_wear;

/*
 * An erase block the card holds open for writing; the spilled blocks and
 * the small-write cache keep the same record for theirs.
 */
struct sim_block {
	uint64_t index;		/* erase block number */
	uint64_t pos_bytes;	/* high-water mark: writes below are
				   out of order */
	uint64_t base_bytes;	/* where its first write began */
	uint64_t used;		/* tick of the last write, for LRU */
	bool gaps;		/* holds old data: skipped or consolidated */
	bool random;		/* in the out-of-order set */
	bool streamed;		/* its last write went on from the write
				   before (a sequential stream) */
};

struct sim_state {
	struct sim_params p;
	uint64_t rng;		/* splitmix64 state, from seed */
	double wander;		/* drift=: the read time's relative offset */
	uint64_t tick;
	uint64_t last_index;	/* erase block of the last write */
	uint64_t last_end_bytes;	/* where the last write ended */
	unsigned int nopen;
	unsigned int nrandom;
	unsigned int ncached;
	unsigned int nspilled;
	struct sim_stats stats;	/* what the model did, for sim_stats() */
	struct sim_wear *wear;		/* with wear= only */
	struct sim_block *cached;	/* p.cache_blocks, after blocks */
	struct sim_block *spilled;	/* p.spill, after those */
	struct sim_fake *fake;		/* the data, with a fake key or a
					   power-fault key only */
	struct sim_power *power;	/* its power: on, off, the volatile
					   cache and the faults of a cut */
	struct sim_reader *reader;	/* with reader-cache= only */
	uint64_t slc_held_bytes;	/* slc=: written to the SLC cache and
					   not yet folded into the card */
	struct sim_block blocks[];	/* p.open of them */
};

/* The state of a card of parameters p, nothing written; NULL: no memory. */
struct sim_state *sim_model_new(const struct sim_params *p);

/* Free s (not s->fake, the store's); NULL is nothing to free. */
void sim_model_free(struct sim_state *s);

/* -EIO for a range outside the card or touching a bad= range, else 0. */
int sim_model_check_io(const struct sim_params *p, uint64_t offset,
		       uint64_t length);

/*
 * A read, write or discard of the range is done: what it took on the
 * card's clock (counted in s->stats, slept for pace=).  A write passes
 * through the reader's write cache when there is one; a discard closes
 * the open erase blocks it covers whole.
 */
uint64_t sim_model_read(struct sim_state *s, uint64_t offset,
			uint64_t length);
uint64_t sim_model_write(struct sim_state *s, uint64_t offset,
			 uint64_t length);
uint64_t sim_model_discard(struct sim_state *s, uint64_t offset,
			   uint64_t length);

/* A flush that programs bytes held in the volatile cache: its time. */
uint64_t sim_model_flush(struct sim_state *s, uint64_t bytes);
/*
 * The card was idle for ns on its clock (no operation in flight): it
 * folds its SLC cache (slc=) at slc-fold meanwhile.  Costs nothing.
 */
void sim_model_idle(struct sim_state *s, uint64_t ns);

#endif
