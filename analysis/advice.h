/*
 * advice: what to do with a geometry - where a partition starts, which
 * mkfs and mount options suit it - each line with its reason.  Text from
 * numbers; it never guesses a size it was not given.
 */
#ifndef FLASHBENCH_ADVICE_H
#define FLASHBENCH_ADVICE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Advice from a geometry: partition start, mkfs options.  Writes up to
 * max lines of at most ANALYSIS_ADVICE_BYTES - 1 characters; returns how
 * many (none without an erase size).
 */
#define ANALYSIS_ADVICE_BYTES 384
size_t analysis_recommend(uint64_t erase_size, uint64_t page_size,
			  unsigned open_linear,
			  char lines[][ANALYSIS_ADVICE_BYTES], size_t max);

#endif
