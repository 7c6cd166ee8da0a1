/*
 * stamp: self-naming block contents.  Layout of a block (little endian):
 * 8 bytes magic, 8 offset, 8 salt, 8 checksum, then filler that depends
 * on offset and salt, so no two blocks of a run are alike and nothing
 * compresses.  The checksum is FNV-1a over the block with the checksum
 * field taken as zero.
 */
#include <stdbool.h>
#include <string.h>

#include "lib/le64.h"
#include "vm/stamp.h"

static const unsigned char stamp_magic[8] = { 'F', 'B', 'S', 'T', 'A', 'M',
					      'P', '1' };

enum { MAGIC_AT = 0, OFFSET_AT = 8, SALT_AT = 16, SUM_AT = 24,
       FILLER_AT = 32 };

uint64_t stamp_hash(uint64_t hash, const void *data, size_t length)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < length; i++) {
		hash ^= p[i];
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

/* The block's checksum: its bytes with the checksum field as zeros. */
static uint64_t block_sum(const unsigned char *block, uint32_t block_bytes)
{
	static const unsigned char zero[8];
	uint64_t h = stamp_hash(STAMP_FNV_BASIS, block, SUM_AT);

	h = stamp_hash(h, zero, sizeof(zero));
	return stamp_hash(h, block + FILLER_AT, block_bytes - FILLER_AT);
}

static uint64_t splitmix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fill_block(unsigned char *block, uint64_t offset,
		       uint32_t block_bytes, uint64_t salt)
{
	uint64_t state = offset ^ salt;

	memcpy(block + MAGIC_AT, stamp_magic, sizeof(stamp_magic));
	put64(block + OFFSET_AT, offset);
	put64(block + SALT_AT, salt);
	put64(block + SUM_AT, 0);
	for (uint32_t i = FILLER_AT; i + 8 <= block_bytes; i += 8)
		put64(block + i, splitmix(&state));
	put64(block + SUM_AT, block_sum(block, block_bytes));
}

void stamp_fill(void *buf, uint64_t offset, uint64_t length,
		uint32_t block_bytes, uint64_t salt)
{
	unsigned char *p = buf;

	for (uint64_t done = 0; done + block_bytes <= length;
	     done += block_bytes)
		fill_block(p + done, offset + done, block_bytes, salt);
}

static bool all_bytes(const unsigned char *p, uint32_t n, unsigned char c)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i] != c)
			return false;
	return true;
}

enum stamp_state stamp_classify(const void *block, uint64_t offset,
				uint32_t block_bytes, uint64_t salt,
				uint64_t *named)
{
	const unsigned char *p = block;

	*named = offset;
	if (all_bytes(p, block_bytes, 0))
		return STAMP_ZEROS;
	if (all_bytes(p, block_bytes, 0xff))
		return STAMP_ONES;
	if (memcmp(p + MAGIC_AT, stamp_magic, sizeof(stamp_magic)) != 0)
		return STAMP_OTHER;
	if (get64(p + SUM_AT) != block_sum(p, block_bytes))
		return STAMP_GARBAGE;
	if (get64(p + SALT_AT) != salt)
		return STAMP_OTHER;	/* an earlier run's, left behind */
	*named = get64(p + OFFSET_AT);
	return *named == offset ? STAMP_INTACT : STAMP_ALIAS;
}

const char *stamp_state_name(enum stamp_state state)
{
	static const char *const names[] = {
		[STAMP_INTACT] = "intact", [STAMP_ALIAS] = "alias",
		[STAMP_ZEROS] = "zeros", [STAMP_ONES] = "ones",
		[STAMP_OTHER] = "other", [STAMP_GARBAGE] = "garbage",
		[STAMP_READ_ERROR] = "read-error",
		[STAMP_WRITE_ERROR] = "write-error",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == STAMP_STATE_COUNT,
		       "one name per state");

	return state < STAMP_STATE_COUNT ? names[state] : "?";
}
