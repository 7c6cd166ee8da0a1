/*
 * stampblock: the bytes of one stamp block, the self-naming content the
 * capacity check writes (vm/stamp.c classifies what comes back).  Here
 * below the devices so that the simulated card can recognise a stamp it
 * is given and keep only what names it.
 */
#ifndef FLASHBENCH_STAMPBLOCK_H
#define FLASHBENCH_STAMPBLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FNV-1a over bytes, continuing from hash (start with the basis). */
#define STAMPBLOCK_FNV_BASIS 0xcbf29ce484222325ULL
uint64_t stampblock_hash(uint64_t hash, const void *data, size_t length);

/*
 * A checksum of any bytes at several GB/s: the stamps' four multiply
 * chains over the 64-bit words (the length folded in), for data too
 * large to take a byte at a time.
 */
uint64_t stampblock_hash_words(const void *data, size_t length);

/* Fill one block of block_bytes (a multiple of 8, at least 64). */
void stampblock_fill(unsigned char *block, uint64_t offset,
		     uint32_t block_bytes, uint64_t salt);

/* The checksum a block of block_bytes should hold. */
uint64_t stampblock_sum(const unsigned char *block, uint32_t block_bytes);

/* The checksums of n blocks, as stampblock_sum gives each. */
void stampblock_sums(const unsigned char *const *blocks, size_t n,
		     uint32_t block_bytes, uint64_t *sums);

/*
 * Fill n blocks of block_bytes from buf on, naming offset, offset +
 * block_bytes, ...: stampblock_fill of each.
 */
void stampblock_fill_many(unsigned char *buf, uint64_t offset, size_t n,
			  uint32_t block_bytes, uint64_t salt);

/*
 * Is block, but for its checksum, the stamp of block_bytes naming offset
 * with salt?
 */
bool stampblock_filler_matches(const unsigned char *block, uint64_t offset,
			       uint32_t block_bytes, uint64_t salt);

/* The checksum it holds. */
uint64_t stampblock_stored_sum(const unsigned char *block);

/*
 * The first STAMPBLOCK_HEADER_BYTES of a stamp naming offset with salt:
 * its magic, the offset and the salt (not the checksum after them).
 */
#define STAMPBLOCK_HEADER_BYTES 24
void stampblock_put_header(unsigned char *block, uint64_t offset,
			   uint64_t salt);

/*
 * Does block start with a stamp's magic?  Then *offset and *salt are what
 * its header names (its checksum is not checked).
 */
bool stampblock_header(const unsigned char *block, uint64_t *offset,
		       uint64_t *salt);

/*
 * Is block a whole stamp of the earlier layout (magic FBSTAMP1, FNV-1a
 * over the block with its checksum field as zeros)?  Then *offset and
 * *salt are what it names.  Nothing writes these any more; an undo file
 * left by a run of an earlier build still proves its device with them.
 */
bool stampblock_legacy(const unsigned char *block, uint32_t block_bytes,
		       uint64_t *offset, uint64_t *salt);

#endif
