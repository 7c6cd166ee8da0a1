/*
 * die: the one way out of flashbench, erase and flashemu on an error.
 * "PROG: message" on stderr, then for a usage error the hint to --help;
 * the exit status from lib/exitcode.h.  PROG is die_program_name, which
 * each program's main file defines once (a constant, never written).
 */
#ifndef FLASHBENCH_DIE_H
#define FLASHBENCH_DIE_H

#include <limits.h>
#include <stdarg.h>

/* Room for one message: a path and what went wrong with it. */
#define MESSAGE_BYTES 320
/* Room for a message that may quote a whole path: PATH_MAX and the why. */
#define MESSAGE_PATH_BYTES (PATH_MAX + 160)

/* The program's name as messages start: "flashbench", "erase"... */
extern const char die_program_name[];

/* "PROG: message", the --help hint when status is EXIT_USAGE, exit. */
void die_status(int status, const char *format, va_list args)
	__attribute__((format(printf, 2, 0), noreturn));

/* Bad input: exit 2, before any I/O. */
void usage_error(const char *format, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* A failure while running: exit 1. */
void runtime_error(const char *format, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif
