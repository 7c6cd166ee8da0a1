/*
 * fuzz.h: what the libFuzzer targets share: the entry point's prototype
 * and a bounded, NUL-terminated copy of the input for parsers that take
 * C strings.  Nothing here is part of flashbench itself.
 */
#ifndef FLASHBENCH_FUZZ_H
#define FLASHBENCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Larger inputs are skipped: they find nothing a smaller one would not. */
#define FUZZ_MAX_INPUT (64 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (it ends at its first NUL), or NULL. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *text;

	if (size > FUZZ_MAX_INPUT)
		return NULL;
	text = malloc(size + 1);
	if (!text)
		return NULL;
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* A sink for formatted output, opened once per process. */
static inline FILE *fuzz_null(void)
{
	static FILE *null;

	if (!null)
		null = fopen("/dev/null", "w");
	if (!null)
		abort();
	return null;
}

#endif
