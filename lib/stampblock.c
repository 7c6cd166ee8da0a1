/*
 * stampblock: layout of a block (little endian): 8 bytes magic, 8 offset,
 * 8 salt, 8 checksum, then filler that depends on offset and salt, so no
 * two blocks of a run are alike and nothing compresses.  The checksum is
 * FNV-1a over the block with the checksum field taken as zero.
 */
#include <string.h>

#include "lib/le64.h"
#include "lib/stampblock.h"

static const unsigned char stamp_magic[8] = { 'F', 'B', 'S', 'T', 'A', 'M',
					      'P', '1' };

enum { MAGIC_AT = 0, OFFSET_AT = 8, SALT_AT = 16, SUM_AT = 24,
       FILLER_AT = 32 };

#define FNV_PRIME 0x100000001b3ULL
#define CHAINS 4	/* FNV chains hashed side by side */

uint64_t stampblock_hash(uint64_t hash, const void *data, size_t length)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < length; i++) {
		hash ^= p[i];
		hash *= FNV_PRIME;
	}
	return hash;
}

uint64_t stampblock_sum(const unsigned char *block, uint32_t block_bytes)
{
	static const unsigned char zero[8];
	uint64_t h = stampblock_hash(STAMPBLOCK_FNV_BASIS, block, SUM_AT);

	h = stampblock_hash(h, zero, sizeof(zero));
	return stampblock_hash(h, block + FILLER_AT, block_bytes - FILLER_AT);
}

uint64_t stampblock_stored_sum(const unsigned char *block)
{
	return get64(block + SUM_AT);
}

static uint64_t splitmix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void stampblock_sums(const unsigned char *const *blocks, size_t n,
		     uint32_t block_bytes, uint64_t *sums)
{
	static const unsigned char zero[8];
	size_t i = 0;

	for (; i + CHAINS <= n; i += CHAINS) {
		const unsigned char *b[CHAINS];
		uint64_t h[CHAINS];

		for (int k = 0; k < CHAINS; k++) {
			b[k] = blocks[i + (size_t)k];
			h[k] = stampblock_hash(STAMPBLOCK_FNV_BASIS, b[k],
					       SUM_AT);
			h[k] = stampblock_hash(h[k], zero, sizeof(zero));
		}
		for (uint32_t at = FILLER_AT; at < block_bytes; at++)
			for (int k = 0; k < CHAINS; k++)
				h[k] = (h[k] ^ b[k][at]) * FNV_PRIME;
		memcpy(sums + i, h, sizeof(h));
	}
	for (; i < n; i++)
		sums[i] = stampblock_sum(blocks[i], block_bytes);
}

/* All of a block but its checksum, which stays zero. */
static void fill_unsummed(unsigned char *block, uint64_t offset,
			  uint32_t block_bytes, uint64_t salt)
{
	uint64_t state = offset ^ salt;

	memcpy(block + MAGIC_AT, stamp_magic, sizeof(stamp_magic));
	put64(block + OFFSET_AT, offset);
	put64(block + SALT_AT, salt);
	put64(block + SUM_AT, 0);
	for (uint32_t i = FILLER_AT; i + 8 <= block_bytes; i += 8)
		put64(block + i, splitmix(&state));
}

void stampblock_fill(unsigned char *block, uint64_t offset,
		     uint32_t block_bytes, uint64_t salt)
{
	fill_unsummed(block, offset, block_bytes, salt);
	put64(block + SUM_AT, stampblock_sum(block, block_bytes));
}

void stampblock_fill_many(unsigned char *buf, uint64_t offset, size_t n,
			  uint32_t block_bytes, uint64_t salt)
{
	for (size_t done = 0; done < n; done += CHAINS) {
		const unsigned char *blocks[CHAINS];
		uint64_t sums[CHAINS];
		size_t m = n - done < CHAINS ? n - done : CHAINS;

		for (size_t k = 0; k < m; k++) {
			unsigned char *block = buf + (done + k) * block_bytes;

			fill_unsummed(block, offset + (done + k) * block_bytes,
				      block_bytes, salt);
			blocks[k] = block;
		}
		stampblock_sums(blocks, m, block_bytes, sums);
		for (size_t k = 0; k < m; k++)
			put64(buf + (done + k) * block_bytes + SUM_AT,
			      sums[k]);
	}
}

bool stampblock_filler_matches(const unsigned char *block, uint64_t offset,
			       uint32_t block_bytes, uint64_t salt)
{
	uint64_t state = offset ^ salt;

	if (memcmp(block + MAGIC_AT, stamp_magic, sizeof(stamp_magic)) != 0 ||
	    get64(block + OFFSET_AT) != offset || get64(block + SALT_AT) != salt)
		return false;
	for (uint32_t i = FILLER_AT; i + 8 <= block_bytes; i += 8)
		if (get64(block + i) != splitmix(&state))
			return false;
	return true;
}

bool stampblock_header(const unsigned char *block, uint64_t *offset,
		       uint64_t *salt)
{
	if (memcmp(block + MAGIC_AT, stamp_magic, sizeof(stamp_magic)) != 0)
		return false;
	*offset = get64(block + OFFSET_AT);
	*salt = get64(block + SALT_AT);
	return true;
}
