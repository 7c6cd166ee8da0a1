/*
 * The simulated card's power (power.c): every read, write, discard and
 * flush passes through it, on the card's own clock.  It holds the
 * volatile write cache (volatile=, flush=) in front of the store that
 * keeps the durable data (fake.c), cuts the power when the clock comes to
 * an armed moment, and does then what the fault keys say (cut-damage=,
 * cut-shorn=, cut-map=, cut-dead=).
 */
#ifndef FLASHBENCH_SIM_POWER_H
#define FLASHBENCH_SIM_POWER_H

#include <stdbool.h>
#include <stdint.h>

#include "engines/sim/card.h"
#include "engines/sim/model.h"

struct sim_power;

/* The power of a card of parameters p, on, in *out: 0 or -ENOMEM. */
int sim_power_open(const struct sim_params *p, struct sim_power **out);

/* Free pw and what it holds; NULL is nothing to free. */
void sim_power_close(struct sim_power *pw);

/* The memory its cache and what cut-map= keeps take, in bytes. */
uint64_t sim_power_held(const struct sim_power *pw);

/*
 * Nothing stands between the card's store and its clock: no cache, no
 * fault key, the power on and no cut armed.  Only then may stamps go to
 * the store as runs (ops.c), passing by.
 */
bool sim_power_plain(const struct sim_state *s);

/*
 * A read, write or discard of a range already checked: its data moved
 * (the store's, with the volatile cache over it) and its time in *ns.
 * -EIO while the power is off; an operation the cut falls in is torn (a
 * write keeps a prefix of its sectors) and fails with -EIO.  Else 0, or
 * the store's error.  buf may be NULL for a card that keeps no data.
 */
int sim_power_read(struct sim_state *s, void *buf, uint64_t offset,
		   uint64_t length, uint64_t *ns);
int sim_power_write(struct sim_state *s, const void *buf, uint64_t offset,
		    uint64_t length, uint64_t *ns);
int sim_power_discard(struct sim_state *s, uint64_t offset, uint64_t length,
		      uint64_t *ns);

/* A flush, as flush= says: 0 and its time, or -EIO as above. */
int sim_power_flush(struct sim_state *s, uint64_t *ns);

/*
 * The power fails once the card's clock has run after_ns more (0: now);
 * nothing happens to a card already off.  power_on: 0, or -ENODEV when
 * the card does not come back (cut-dead=): it stays off.
 */
int sim_power_cut(struct sim_state *s, uint64_t after_ns);
int sim_power_on(struct sim_state *s);

#endif
