/*
 * modes/surface: --surface, every block of a range checked (read-only,
 * --write or --keep-data), and --resume of a stopped --keep-data run.
 * Returns the exit status (the verdict's), or -EINTR when a signal
 * stopped it; bad input and failures end in usage_error and
 * runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_SURFACE_H
#define FLASHBENCH_MODES_SURFACE_H

#include <stdint.h>

#include "dev.h"
#include "modes/options.h"

int mode_surface(struct config *cfg);

/*
 * --surface's range, [--offset, --offset + --span), whole blocks on dev
 * (by default the whole device); a range off the device exits 2.
 */
void mode_surface_range(const struct config *cfg, const struct dev *dev,
			uint64_t *start, uint64_t *end);

#endif
