/*
 * The simulated card's spec parser (spec.c): the text after "sim:" into
 * the parameters of a card.
 */
#ifndef FLASHBENCH_SIM_SPEC_H
#define FLASHBENCH_SIM_SPEC_H

#include <stddef.h>

#include "engines/sim/card.h"

/*
 * Fill *p from spec: [PRESET][,KEY=VALUE | ,ro]...; empty means the first
 * preset, and a spec that starts with a key or ro builds on "plain".
 * 0; -EINVAL with a one-line message in msg (size bytes) for a bad spec;
 * -ENOMEM.
 */
int sim_spec_parse(const char *spec, struct sim_params *p, char *msg,
		   size_t size);

#endif
