/*
 * modes/capacity: --capacity-check and --restore.  A driver returns the
 * exit status, or -EINTR when a signal stopped it; bad input and failures
 * end the program in usage_error and runtime_error (lib/die.h).
 */
#ifndef FLASHBENCH_MODES_CAPACITY_H
#define FLASHBENCH_MODES_CAPACITY_H

#include "dev.h"
#include <limits.h>
#include <stddef.h>

#include "modes/options.h"

int mode_capacity(struct config *cfg);	/* --capacity-check */
int mode_restore(struct config *cfg);	/* --restore=FILE */

/* Stamps need blocks of STAMP_MIN_BYTES and a card that keeps data. */
void check_stamps_fit(const struct config *cfg, const struct dev *dev,
		      const char *what);

/* --undo-file, or the default beside the device's name, in buf. */
const char *choose_undo_path(const struct config *cfg, char *buf,
			     size_t size);

/* A new undo file: none there yet, and not on the device: else exit 2. */
void check_new_undo_file(const struct config *cfg, const char *undo_path);

/*
 * What a run says when blocks it wrote are left to its undo file: "the
 * undo file FILE is kept: flashbench --restore=FILE DEVICE", in buf.
 */
#define RESTORE_HINT_BYTES (3 * PATH_MAX)	/* two paths and a device */
const char *restore_hint(char *buf, size_t size, const char *undo_path,
			 const char *device);

/*
 * Open the undo file at path for a restore (option names it in
 * messages): trusted, this device's, proven by its content; its
 * descriptor, or exit (2 for another device's file, else 1).
 */
int open_proven_undo(const struct config *cfg, const char *option,
		     const char *path);

/* A range an undo file's restore did not put back, and why, on stderr. */
struct undo_damage;
void print_undo_damage(const char *device, const struct undo_damage *d);

#endif
