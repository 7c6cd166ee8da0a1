/*
 * sim: the simulated flash card, a dev backend reached as "sim:SPEC".
 * This header exposes what the front end may show about it: the preset
 * list and the geometry of an open simulated card.  The backend itself is
 * dev_sim_ops in dev.h.
 */
#ifndef FLASHBENCH_SIM_H
#define FLASHBENCH_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dev.h"

/* The model's geometry, what --info reports for a simulated card. */
struct sim_geometry {
	uint64_t size_bytes;
	uint64_t erase_bytes;	/* erase block (allocation unit) */
	uint64_t page_bytes;
	uint64_t prog_bytes;	/* smallest efficient write */
	uint32_t open;		/* erase blocks open for linear writes */
	uint32_t open_random;	/* of those, how many take any order */
	uint32_t fat;		/* leading erase blocks written page by page */
};

/*
 * Fill *g for a device opened on "sim:".  Returns 0, or -EINVAL when dev
 * is not a simulated card.
 */
int sim_geometry(const struct dev *dev, struct sim_geometry *g);

/*
 * What the model did since the card was opened.  A garbage collection is
 * any work the card does to take a write besides programming it: closing
 * an erase block that holds old data (its rest is copied), consolidating
 * one written out of order, flushing the small-write cache.
 */
struct sim_stats {
	uint64_t reads, writes, discards;	/* operations */
	uint64_t bytes_read, bytes_written, bytes_discarded;
	uint64_t busy_ns;		/* model time of all operations */
	uint64_t gcs;			/* garbage collections */
	uint64_t gc_ns;			/* model time they cost */
	uint64_t copied_bytes;		/* bytes they moved inside the card */
	uint64_t opened;		/* erase blocks opened for writing */
	uint64_t closed;		/* open ones closed (evicted, discarded) */
	uint64_t spilled;		/* writes taken while the open set was
					   full, without opening a block */
	uint64_t switches;		/* writes to another erase block than
					   the write before */
	uint64_t held_bytes;		/* memory the data of a card with a
					   fake key takes (its fake-cache=
					   only, when a caller's store holds
					   the rest: sim_keep_data_in), its
					   volatile= cache and what cut-map=
					   keeps included */
	uint64_t stamp_runs;		/* of it, runs of stamps kept as what
					   names them */
	/* wear= (0 without it) */
	uint64_t retired_blocks;	/* worn blocks a spare took over */
	uint64_t worn_blocks;		/* worn with no spare left: failing */
	uint64_t spares_left;
	uint64_t wear_end;		/* enum sim_wear_end */
};

/* Fill *out for a device opened on "sim:"; -EINVAL for any other. */
int sim_stats(const struct dev *dev, struct sim_stats *out);

/*
 * The card opened on dev was idle for ns of its time, between two
 * operations (a host with a wall clock, flashemu, knows such gaps): it
 * does its background work meanwhile - folds its SLC cache (slc=).
 * -EINVAL when dev is not a simulated card.
 */
int sim_idle(struct dev *dev, uint64_t ns);

/*
 * Preset i (0 is what "sim:" alone means): its name, and its one-line
 * description in *description.  NULL past the last preset.
 */
const char *sim_preset(size_t i, const char **description);

/* Print "  NAME  DESCRIPTION" for each preset, one a line.  Returns 0. */
int sim_list_presets(FILE *out);

/* fake-mode=: what a counterfeit card does past its real capacity. */
enum sim_fake_mode {
	SIM_FAKE_NONE,		/* no fake-mode= given: wrap */
	SIM_FAKE_WRAP,		/* offsets alias offset mod real capacity */
	SIM_FAKE_DROP,		/* writes are lost, reads return old data */
	SIM_FAKE_ZERO,		/* writes are lost, reads return zeros */
	SIM_FAKE_ERROR,		/* writes are lost, reads fail with EIO */
};

/* Where a write to an offset of a simulated card ends up. */
enum sim_fake_fate {
	SIM_FAKE_REAL,		/* stored at the offset itself */
	SIM_FAKE_ALIASED,	/* stored at *real_offset, a lower one */
	SIM_FAKE_DROPPED,	/* lost; reads return the old data */
	SIM_FAKE_ZEROED,	/* lost; reads return zeros */
	SIM_FAKE_FAILED,	/* lost; reads fail with EIO */
};

/*
 * How the card opened on dev maps offset (a multiple of 512), for a
 * component that serves a simulated card's data itself: the fate of a
 * write there and, for REAL and ALIASED, the offset that holds it in
 * *real_offset.  Not counted: fake-cache=, which serves the most recent
 * writes (up to its size) correctly wherever the fate sends them.  A
 * card without fake keys, or a dev that is not simulated, is all REAL.
 */
enum sim_fake_fate sim_fake_resolve(const struct dev *dev, uint64_t offset,
				    uint64_t *real_offset);

/*
 * Does the simulated card keep the data written to it (a fake key was
 * given)?  Only then can a test read back what it wrote.
 */
bool sim_keeps_data(const struct dev *dev);

/*
 * Where a card with a fake key puts the data of its real blocks when a
 * caller holds it (flashemu's store): each call moves one stretch of
 * whole sectors at the physical offset real, below the real capacity.
 * 0, or a negative errno that fails the operation (-ENOSPC: full).
 */
struct sim_data_ops {
	int (*read)(void *ctx, void *buf, uint64_t real, uint64_t length);
	int (*write)(void *ctx, const void *buf, uint64_t real,
		     uint64_t length);
	int (*punch)(void *ctx, uint64_t real, uint64_t length);
};

/*
 * From now on the card opened on dev keeps the data of its real blocks
 * in ops (called with ctx), not in its own memory.  What the card
 * decides stays its own: where an offset lands, what a read past the
 * real capacity returns, the fake-cache= it holds.  A block never
 * written reads as ops return it (zeros, for flashemu's store), not as
 * the card's old data, and a discard punches the real blocks it covers
 * whole sectors of.  Call it before the first write.  0, or -EINVAL when
 * dev is not a simulated card with a fake key.
 */
int sim_keep_data_in(struct dev *dev, const struct sim_data_ops *ops,
		     void *ctx);

/* wear=, wear-eol=: where the card as a whole stands. */
enum sim_wear_end {
	SIM_WEAR_WORKING,	/* blocks may fail, the card works */
	SIM_WEAR_READ_ONLY,	/* wear-eol=read-only came: writes fail */
	SIM_WEAR_DEAD,		/* wear-eol=dead came: everything fails */
};

/* What a worn erase block does, once no spare took it over. */
enum sim_wear_fate {
	SIM_WEAR_FINE,		/* not worn (or a spare took it over) */
	SIM_WEAR_FAILS_WRITES,	/* writes to it fail with EIO */
	SIM_WEAR_GARBLED,	/* writes pass, reads come back garbled */
};

/* One erase block of a card with wear=, by sim_wear_block(). */
struct sim_wear_block {
	uint64_t endurance;	/* P/E cycles its flash takes: the drawn
				   one of the block, or of its spare */
	uint64_t cycles;	/* cycles begun on that flash */
	uint64_t spares;	/* spare blocks it took, one after another */
	enum sim_wear_fate fate;
};

/*
 * The erase block (of the flash the card really has) that holds offset
 * on the card opened on dev: 0, or -EINVAL when dev is not a simulated
 * card with wear=, -ERANGE past its capacity or where a fake keeps
 * nothing.
 */
int sim_wear_block(const struct dev *dev, uint64_t offset,
		   struct sim_wear_block *out);

#endif
