/*
 * stamp: self-naming blocks for the capacity check.  Each logical block
 * of a stamp holds its own offset, the run's random salt and a checksum
 * over the whole block, so a read-back tells intact data from a block
 * that another offset's write landed on (aliasing), from old or erased
 * data, and from garbage.  It only fills and classifies buffers.
 */
#ifndef FLASHBENCH_STAMP_H
#define FLASHBENCH_STAMP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/stampblock.h"

/* What a block read back holds. */
enum stamp_state {
	STAMP_INTACT,		/* its own stamp, this run's salt */
	STAMP_ALIAS,		/* this run's stamp of another offset */
	STAMP_ZEROS,		/* every byte 0x00 */
	STAMP_ONES,		/* every byte 0xff */
	STAMP_OTHER,		/* anything else: old data, an older run */
	STAMP_GARBAGE,		/* a stamp whose checksum does not match */
	STAMP_READ_ERROR,	/* the read failed */
	STAMP_WRITE_ERROR,	/* the write of its stamp failed */
	STAMP_STATE_COUNT
};

/* Smallest block a stamp fits in: header and some filler. */
#define STAMP_MIN_BYTES 64

/* Fill [buf, buf + length) with stamps of blocks from offset on. */
void stamp_fill(void *buf, uint64_t offset, uint64_t length,
		uint32_t block_bytes, uint64_t salt);

/*
 * Classify one block read from offset; for STAMP_ALIAS, *named is the
 * offset its stamp names.
 */
enum stamp_state stamp_classify(const void *block, uint64_t offset,
				uint32_t block_bytes, uint64_t salt,
				uint64_t *named);

/* "intact", "alias", "zeros", ... for output. */
const char *stamp_state_name(enum stamp_state state);

/* FNV-1a over bytes, continuing from hash (start with STAMP_FNV_BASIS). */
#define STAMP_FNV_BASIS STAMPBLOCK_FNV_BASIS
uint64_t stamp_hash(uint64_t hash, const void *data, size_t length);

/*
 * A fresh random salt for a run's stamps or an undo file: from the
 * kernel's random pool, or, where that fails, the clock and the process
 * id, which still differ from one run to the next.
 */
uint64_t stamp_new_salt(void);

#endif
