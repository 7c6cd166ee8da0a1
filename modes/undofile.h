/*
 * modes/undofile: the undo file as every writing mode meets it - which
 * path (--undo-file, else the default for the device), whether a new
 * one may go there (none there yet, a trusted directory, not on the
 * device under test), an existing one opened and proven before a
 * restore, and the words that tell a person how to put the blocks back.
 * One place, so that --capacity-check, --surface --keep-data, --report
 * --write and the signal path say the same thing.
 */
#ifndef FLASHBENCH_MODES_UNDOFILE_H
#define FLASHBENCH_MODES_UNDOFILE_H

#include <limits.h>
#include <stddef.h>

#include "modes/options.h"

/* Room for a command or a hint: two paths and a device. */
#define UNDOFILE_HINT_BYTES (3 * PATH_MAX)

/*
 * The undo file of a run on cfg->device: --undo-file, else the default
 * in the user's undo directory, written in buf.  NULL, with why set,
 * when the default cannot be had.
 */
const char *mode_undo_path(const struct config *cfg, char *buf, size_t size,
			  char *why, size_t why_size);

/* mode_undo_path, or exit 2 saying why. */
const char *mode_undo_choose(const struct config *cfg, char *buf,
			    size_t size);

/*
 * A new file at path that a run keeps beside the device (an undo file,
 * --power-cut's log): its directory trusted and writable, not on the
 * device under test; else exit 2, option and noun ("log") naming it.
 * -EEXIST when a regular file is there already, for the caller to word.
 */
int mode_check_new_file(const struct config *cfg, const char *option,
			const char *noun, const char *path);

/*
 * A new undo file at undo_path: none there yet, its directory trusted
 * and writable, not on the device under test; else exit 2, in the same
 * words for every mode.
 */
void mode_undo_check_new(const struct config *cfg, const char *undo_path);

/*
 * A chunked run (--keep-data) writes each chunk's save beside its undo
 * file first (undo_staged_name): what is there may be only what a killed
 * run left, which the run removes; a file of the user's own there ends
 * the run before it writes anything (exit 2, option naming the file).
 */
void mode_undo_check_staged(const char *option, const char *undo_path);

/* "flashbench --restore=FILE DEVICE", in buf: what puts the blocks back. */
const char *mode_undo_command(char *buf, size_t size, const char *undo_path,
			     const char *device);

/*
 * What a run says when blocks it wrote are left to its undo file: "the
 * undo file FILE is kept: flashbench --restore=FILE DEVICE", in buf.
 */
const char *mode_undo_kept(char *buf, size_t size, const char *undo_path,
			  const char *device);

/* A range an undo file's restore did not put back, and why, on stderr. */
struct undo_damage;
void mode_undo_print_damage(const char *device, const struct undo_damage *d);

/*
 * Open the undo file at path for a restore (option names it in
 * messages): trusted, this device's, proven by its content; its
 * descriptor, or exit (2 for another device's file, else 1).
 */
int mode_undo_open_proven(const struct config *cfg, const char *option,
			 const char *path);

#endif
