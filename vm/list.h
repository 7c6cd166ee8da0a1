/*
 * list: a compiled program printed back as text, one statement a line.
 */
#ifndef FLASHBENCH_VMLIST_H
#define FLASHBENCH_VMLIST_H

#include "vm.h"

/* Print the compiled program back as text, one statement a line. */
void vm_list(const struct vm_program *program, void (*line)(void *ctx,
	     const char *text), void *ctx);

#endif
