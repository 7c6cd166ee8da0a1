/*
 * The simulated card's wear (wear.c): each erase block's program/erase
 * cycles counted against an endurance drawn for it, spare blocks that
 * take over worn ones, and what the card does once none is left
 * (wear=, spare=, wear-eol=).  Every call does nothing on a card
 * without wear=.
 */
#ifndef FLASHBENCH_SIM_WEAR_H
#define FLASHBENCH_SIM_WEAR_H

#include <stdbool.h>
#include <stdint.h>

#include "engines/sim.h"
#include "engines/sim/card.h"
#include "engines/sim/model.h"

struct sim_wear;

/* The wear of a card of parameters p in *out: NULL without wear=. */
int sim_wear_open(const struct sim_params *p, struct sim_wear **out);

/* Free w; NULL is nothing to free. */
void sim_wear_close(struct sim_wear *w);

/*
 * A write of a range already checked is about to be made: the cycles it
 * begins are counted, a block past its endurance is retired into a spare
 * or worn.  0, or -EIO when the write must fail - it touches a block
 * that fails writes, or the card is read-only or dead - and then nothing
 * of it was counted.
 */
int sim_wear_write(struct sim_state *s, uint64_t offset, uint64_t length);

/* Any other operation (read, discard, flush): -EIO on a dead card. */
int sim_wear_alive(const struct sim_state *s);

/* A discard too changes what the card holds: -EIO read-only or dead. */
int sim_wear_writable(const struct sim_state *s);

/* Does a read of the range come back as the card holds it, ungarbled? */
bool sim_wear_clean(const struct sim_state *s, uint64_t offset,
		    uint64_t length);

/* The sectors of the range read into buf that lie in garbled blocks. */
void sim_wear_garble(const struct sim_state *s, void *buf, uint64_t offset,
		     uint64_t length);

/*
 * A sim_garbled_fn (fake.h) over w: the store makes the stamps of a
 * garbled block garbled, without their bytes.
 */
uint64_t sim_wear_garbled_bytes(const void *ctx, uint64_t real,
				uint64_t max);

/* Its counters and the memory it takes, into *out. */
void sim_wear_stats(const struct sim_wear *w, struct sim_stats *out);

/* The block at physical offset real: 0, or -ERANGE past the card. */
int sim_wear_at(const struct sim_wear *w, uint64_t real,
		struct sim_wear_block *out);

#endif
