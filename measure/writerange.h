/*
 * writerange: where the write tests may start.  The first 16 MiB hold a
 * card's FAT area, the most worn and most carefully managed erase blocks;
 * speed, detect and the -A -O offset default all keep clear of it, and
 * this one floor says by how much.
 */
#ifndef FLASHBENCH_WRITERANGE_H
#define FLASHBENCH_WRITERANGE_H

#include <stdint.h>

#include "lib/units.h"

/* Messages format this constant (units_format_exact_size), never "16MiB". */
#define MEASURE_WRITE_FLOOR_BYTES (16 * MIB)

/*
 * The first byte a write test on erase blocks of erase_bytes (not 0) may
 * write: the floor rounded up to a whole erase block.
 */
uint64_t measure_write_floor(uint64_t erase_bytes);

#endif
