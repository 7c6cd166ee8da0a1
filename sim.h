/*
 * sim: the simulated flash card, a dev backend reached as "sim:SPEC".
 * This header exposes what the front end may show about it: the preset
 * list and the geometry of an open simulated card.  The backend itself is
 * dev_sim_ops in dev.h.
 */
#ifndef FLASHBENCH_SIM_H
#define FLASHBENCH_SIM_H

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
 * Preset i (0 is what "sim:" alone means): its name, and its one-line
 * description in *description.  NULL past the last preset.
 */
const char *sim_preset(size_t i, const char **description);

/* Print "  NAME  DESCRIPTION" for each preset, one a line.  Returns 0. */
int sim_list_presets(FILE *out);

#endif
