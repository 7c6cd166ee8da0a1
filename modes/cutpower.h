/*
 * modes/cutpower: how --power-cut's power is cut and how the device
 * comes back.  A simulated card's own cut is armed at a seeded moment of
 * each cycle (card time); on a real device a --cut-command runs at a
 * seeded write of the cycle, or the user pulls the card.  Afterwards
 * the simulated card powers on, or a --power-command or the user brings
 * the device back, and it is found again by its identity under any
 * node name (identity/devfind.h) and reopened.  A failed or idle cut
 * command and a device back as another end the run here (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_CUTPOWER_H
#define FLASHBENCH_MODES_CUTPOWER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dev.h"
#include "identity/devfind.h"
#include "modes/options.h"

enum mode_cut_way {
	MODE_CUT_SIM,		/* the simulated card cuts its own power */
	MODE_CUT_COMMAND,	/* --cut-command */
	MODE_CUT_HAND,		/* the user pulls the card or its reader */
};

/* How the device came back from a cut. */
struct mode_cut_return {
	bool dead;		/* it did not */
	bool read_only;		/* it refuses writes now */
	char node[PATH_MAX];	/* under this node (where it was, or not) */
};

struct mode_cut {
	const struct config *cfg;
	enum mode_cut_way way;
	struct devfind_key key;		/* the device before the first cut */
	char node[PATH_MAX];		/* its node now: the open's path */
	uint64_t start, end;		/* the announced range */
	uint64_t rng;			/* the cut moments' draws */
	/* the cycle's */
	uint32_t cycle;
	uint64_t at;			/* sim: card time into the cycle (ns);
					   command: the write it follows */
	uint64_t cycle_start_ns;	/* card time at the cycle's start */
	uint64_t writes;		/* completed in the cycle */
	pid_t child;			/* the cut command while it runs */
	bool ran;			/* it ended, with status 0 */
	uint64_t ran_ns;		/* then (wall clock) */
	uint64_t writes_since;		/* completed since */
};

/*
 * The way dev's power is cut, chosen before anything is written (a cut
 * or power command for a simulated card is refused: exit 2); the
 * device's identity kept, to find it again.
 */
void mode_cut_setup(struct mode_cut *c, const struct config *cfg,
		    const struct dev *dev, uint64_t seed, uint64_t start,
		    uint64_t end);

/* "the simulated card cuts its power at a seeded moment of each cycle" */
const char *mode_cut_how(const struct mode_cut *c);

/* A cycle begins: the cut armed (sim:), placed (command) or asked for. */
void mode_cut_arm(struct mode_cut *c, struct dev *dev, uint32_t cycle);

/*
 * After each completed write: the cut command started at its write,
 * and watched - a command that failed, or one after which the device
 * kept writing, ends the run (exit 1).
 */
void mode_cut_after_write(struct mode_cut *c, const struct dev *dev);

/* Whether err, a write's or a flush's, is how a cut shows. */
bool mode_cut_seen(int err);

/*
 * The cut was seen: the power back (the card's own power-on, or
 * --power-command, or the user), the device found by its identity and
 * reopened on dev for the range, its counts going on.  0 with *back
 * said, or -EINTR when a signal stopped the wait; a real device that is
 * not back is left closed (dev->ops NULL).
 */
int mode_cut_back(struct mode_cut *c, struct dev *dev,
		  struct mode_cut_return *back);

/* A seeded draw in [lo, hi], splitmix64's. */
uint64_t mode_cut_draw(uint64_t *rng, uint64_t lo, uint64_t hi);

#endif
