/*
 * grow: room in a heap array that doubles as it fills - the one growth
 * rule behind the VM's program arrays, the undo file's record lists and
 * the chart's rows.
 */
#ifndef FLASHBENCH_GROW_H
#define FLASHBENCH_GROW_H

#include <stddef.h>

/*
 * Make *array (of *cap items of size bytes each) hold at least need items:
 * doubling from 64, so a long run of one-at-a-time appends costs few
 * reallocs.  Returns 0, or -ENOMEM with *array and *cap as they were.
 */
int grow_array(void **array, size_t *cap, size_t need, size_t size);

#endif
