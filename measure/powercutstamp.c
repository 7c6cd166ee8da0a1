/*
 * powercutstamp: the power-cut test's stamps.  A sector:
 *
 *	0	"FBPCUT01"
 *	8	the run's salt
 *	16	the sector's own offset on the device
 *	24	the write's sequence number (low 32 bits), its cycle (high)
 *	32	filler drawn from all three, so no two stamps share bytes
 *	n-8	a checksum of the bytes before it
 *
 * every word little-endian.  The filler keeps a compressing or
 * deduplicating controller from storing less than was written.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/le64.h"
#include "lib/stampblock.h"
#include "measure/powercutstamp.h"

#define MAGIC "FBPCUT01"
#define SALT_AT 8
#define OFFSET_AT 16
#define SEQ_AT 24
#define FILL_AT 32

/* splitmix64: one step of the filler, cheap and well mixed */
static uint64_t mix_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t sector_sum(const unsigned char *sector, uint32_t bytes)
{
	return stampblock_hash_words(sector, bytes - 8);
}

static void fill_sector(unsigned char *p, uint32_t bytes, uint64_t salt,
			uint64_t offset, uint64_t seq_cycle)
{
	uint64_t state = salt ^ (offset * 0x2545f4914f6cdd1dULL) ^ seq_cycle;

	memcpy(p, MAGIC, 8);
	put64(p + SALT_AT, salt);
	put64(p + OFFSET_AT, offset);
	put64(p + SEQ_AT, seq_cycle);
	for (uint32_t at = FILL_AT; at < bytes - 8; at += 8)
		put64(p + at, mix_next(&state));
	put64(p + bytes - 8, sector_sum(p, bytes));
}

void powercut_stamp_fill(const struct powercut_run *run, void *buf,
			 uint64_t offset, uint64_t length, uint32_t seq,
			 uint32_t cycle)
{
	unsigned char *p = buf;
	uint32_t bytes = run->sector_bytes;
	uint64_t seq_cycle = (uint64_t)cycle << 32 | seq;

	for (uint64_t at = 0; at + bytes <= length; at += bytes)
		fill_sector(p + at, bytes, run->salt, offset + at, seq_cycle);
}

static bool all_bytes(const unsigned char *p, uint32_t bytes,
		      unsigned char value)
{
	return p[0] == value && memcmp(p, p + 1, bytes - 1) == 0;
}

/*
 * A whole stamp: the magic and a checksum that matches.  Whose it is
 * the caller reads from the header; the filler is covered by the sum.
 */
static bool whole_stamp(const unsigned char *p, uint32_t bytes)
{
	return memcmp(p, MAGIC, 8) == 0 &&
	       get64(p + bytes - 8) == sector_sum(p, bytes);
}

enum powercut_sector powercut_stamp_check(const struct powercut_run *run,
					  const void *sector, uint64_t offset,
					  struct powercut_stamp *stamp)
{
	const unsigned char *p = sector;
	uint32_t bytes = run->sector_bytes;
	uint64_t named, seq_cycle;

	if (!whole_stamp(p, bytes)) {
		if (all_bytes(p, bytes, 0xff))
			return POWERCUT_SECTOR_ERASED;
		if (all_bytes(p, bytes, 0x00))
			return POWERCUT_SECTOR_ZEROS;
		return POWERCUT_SECTOR_GARBAGE;
	}
	if (get64(p + SALT_AT) != run->salt)
		return POWERCUT_SECTOR_FOREIGN;
	named = get64(p + OFFSET_AT);
	seq_cycle = get64(p + SEQ_AT);
	stamp->offset_bytes = named;
	stamp->seq = (uint32_t)seq_cycle;
	stamp->cycle = (uint32_t)(seq_cycle >> 32);
	return named == offset ? POWERCUT_SECTOR_OURS : POWERCUT_SECTOR_FLYING;
}

const char *powercut_sector_name(enum powercut_sector kind)
{
	static const char *const names[POWERCUT_SECTOR_KINDS] = {
		[POWERCUT_SECTOR_OURS] = "ours",
		[POWERCUT_SECTOR_FLYING] = "flying",
		[POWERCUT_SECTOR_FOREIGN] = "foreign",
		[POWERCUT_SECTOR_GARBAGE] = "garbage",
		[POWERCUT_SECTOR_ERASED] = "erased",
		[POWERCUT_SECTOR_ZEROS] = "zeros",
	};

	return (unsigned)kind < POWERCUT_SECTOR_KINDS ? names[kind] : "?";
}
