/*
 * The simulated card's presets (presets.c): a named card, its one-line
 * description and its parameters.
 */
#ifndef FLASHBENCH_SIM_PRESETS_H
#define FLASHBENCH_SIM_PRESETS_H

#include <stddef.h>

#include "engines/sim/card.h"

struct sim_preset {
	const char *name;
	const char *description;
	struct sim_params params;
};

/* Preset i, in the order --list-presets shows; NULL past the last. */
const struct sim_preset *sim_preset_at(size_t i);

/* The preset of that name, or NULL. */
const struct sim_preset *sim_preset_find(const char *name);

#endif
