/*
 * compile: program text to a compiled program (vm.h runs it), and the
 * compiled program freed again.
 */
#ifndef FLASHBENCH_VMCOMPILE_H
#define FLASHBENCH_VMCOMPILE_H

#include <stddef.h>

#include "vm.h"

/*
 * Compile program text.  params are the $names it may use (their values
 * are read at run time, so callers may change them after compiling).
 * Returns 0, or -EINVAL with diag set.
 */
int vm_compile(const char *text, const struct vm_param *params,
	       size_t param_count, struct vm_program **program,
	       struct vm_diag *diag);
void vm_free(struct vm_program *program);

#endif
