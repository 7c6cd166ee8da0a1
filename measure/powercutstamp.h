/*
 * powercutstamp: the power-cut test's self-naming sectors.  Every sector
 * of a written unit is a stamp: magic, the run's salt, the sector's own
 * offset, the write's sequence number, the cycle that wrote it, filler
 * drawn from those, and a checksum over it all - so what reads back after
 * a cut names itself: this write here, a write that landed elsewhere,
 * or damage.
 */
#ifndef FLASHBENCH_POWERCUTSTAMP_H
#define FLASHBENCH_POWERCUTSTAMP_H

#include <stddef.h>
#include <stdint.h>

#include "measure/powercut.h"

/* What one sector read back is. */
enum powercut_sector {
	POWERCUT_SECTOR_OURS,	/* this run's stamp naming this offset */
	POWERCUT_SECTOR_FLYING,	/* this run's stamp naming another offset */
	POWERCUT_SECTOR_FOREIGN,/* a whole stamp of another run */
	POWERCUT_SECTOR_GARBAGE,/* anything else: a stamp with a changed
				   byte, random bytes */
	POWERCUT_SECTOR_ERASED,	/* every byte 0xff */
	POWERCUT_SECTOR_ZEROS,	/* every byte 0x00 */
	POWERCUT_SECTOR_KINDS
};

/* What a stamp names, when it is one of this run's. */
struct powercut_stamp {
	uint64_t offset_bytes;
	uint32_t seq;
	uint32_t cycle;
};

/*
 * Fill buf with the stamps of [offset, offset + length) for write seq of
 * cycle (seq 0: old data): length / run->sector_bytes sectors, each
 * naming its own offset.  offset and length are multiples of
 * sector_bytes.
 */
void powercut_stamp_fill(const struct powercut_run *run, void *buf,
			 uint64_t offset, uint64_t length, uint32_t seq,
			 uint32_t cycle);

/*
 * What the sector of run->sector_bytes read at offset is; for OURS and
 * FLYING, *stamp says what it names (else it is left alone).
 */
enum powercut_sector powercut_stamp_check(const struct powercut_run *run,
					  const void *sector, uint64_t offset,
					  struct powercut_stamp *stamp);

/* "ours", "flying", "foreign", "garbage", "erased", "zeros" */
const char *powercut_sector_name(enum powercut_sector kind);

#endif
