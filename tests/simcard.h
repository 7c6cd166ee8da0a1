/*
 * simcard.h: helpers the simulated card's unit tests share - a card
 * opened for writing over its whole range, and sectors that name their
 * offset and a tag, so what reads back tells which write put it there.
 */
#ifndef FLASHBENCH_TESTS_SIMCARD_H
#define FLASHBENCH_TESTS_SIMCARD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dev.h"

#define SIMCARD_SECTOR 512ULL

/* spec opened read-write, every byte allowed; its error said on failure. */
static inline bool simcard_open(struct dev *dev, const char *spec)
{
	int err = dev_open(dev, spec, DEV_READ_WRITE);

	if (err)
		printf("# %s: %s\n", spec, dev->error.message);
	else
		dev_allow_writes(dev, 0, dev->size_bytes);
	return err == 0;
}

/* Each sector of a tagged write names its offset and the tag. */
static inline void simcard_fill(unsigned char *buf, uint64_t offset,
				uint64_t length, unsigned tag)
{
	for (uint64_t at = 0; at < length; at += SIMCARD_SECTOR) {
		uint64_t name[2] = { offset + at, tag };

		memset(buf + at, (int)tag, SIMCARD_SECTOR);
		memcpy(buf + at, name, sizeof(name));
	}
}

#endif
