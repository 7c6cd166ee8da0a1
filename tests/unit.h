/*
 * unit.h: the smallest harness for C unit tests.  Each check prints one
 * TAP line ("ok N - what" or "not ok N - what"); tests/run.sh counts them.
 */
#ifndef FLASHBENCH_UNIT_H
#define FLASHBENCH_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_number;
static int unit_failures;

/* cond is evaluated exactly once: it may have side effects */
#define UNIT_CHECK(cond, ...) do {					\
	int unit_ok = !!(cond);						\
	unit_number++;							\
	if (!unit_ok)							\
		unit_failures++;					\
	printf("%s %d - ", unit_ok ? "ok" : "not ok", unit_number);	\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!unit_ok)							\
		printf("#   failed: %s (%s:%d)\n", #cond,		\
		       __FILE__, __LINE__);				\
} while (0)

#define UNIT_STREQ(got, want, ...) do {					\
	const char *unit_got = (got), *unit_want = (want);		\
	int unit_same = unit_got && strcmp(unit_got, unit_want) == 0;	\
	UNIT_CHECK(unit_same, __VA_ARGS__);				\
	if (!unit_same)							\
		printf("#   got '%s', want '%s'\n",			\
		       unit_got ? unit_got : "(null)", unit_want);	\
} while (0)

#define UNIT_DONE() (unit_failures ? 1 : 0)

#endif
