/*
 * modes/passes: --surface --write --passes=N | --until=WHEN
 * [--state=FILE], the endurance test: its options, the state file (a
 * new one checked and written before the first write; an existing one
 * trusted as an undo file is, refused for another device, and gone on
 * with once its device is back, under any node name), the
 * announcement, the wear log's output and the exit status: 0 when no
 * block went bad, 4 when blocks did or the card turned read-only or
 * stopped answering, or -EINTR when a signal stopped it.
 */
#ifndef FLASHBENCH_MODES_PASSES_H
#define FLASHBENCH_MODES_PASSES_H

#include <stdbool.h>

#include "modes/options.h"

/* Whether the command line asks for the passes (--passes, --until,
   --state). */
bool mode_passes_asked(const struct config *cfg);

int mode_surface_passes(struct config *cfg);

#endif
