/*
 * modes/surface: --surface, every block of a range checked (read-only,
 * --write or --keep-data), and --resume of a stopped --keep-data run.
 * Returns the exit status (the verdict's), or -EINTR when a signal
 * stopped it; bad input and failures end in usage_error and
 * runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_SURFACE_H
#define FLASHBENCH_MODES_SURFACE_H

#include "modes/options.h"

int mode_surface(struct config *cfg);

#endif
