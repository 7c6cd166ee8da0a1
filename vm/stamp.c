/*
 * stamp: self-naming block contents, in the layout of lib/stampblock.c
 * (magic, offset, salt, checksum, filler of offset and salt).
 */
#include <stdbool.h>
#include <sys/random.h>
#include <unistd.h>

#include "dev.h"
#include "lib/stampblock.h"
#include "vm/stamp.h"

uint64_t stamp_hash(uint64_t hash, const void *data, size_t length)
{
	return stampblock_hash(hash, data, length);
}

void stamp_fill(void *buf, uint64_t offset, uint64_t length,
		uint32_t block_bytes, uint64_t salt)
{
	stampblock_fill_many(buf, offset, (size_t)(length / block_bytes),
			     block_bytes, salt);
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
	uint64_t names, its_salt;

	*named = offset;
	if (all_bytes(p, block_bytes, 0))
		return STAMP_ZEROS;
	if (all_bytes(p, block_bytes, 0xff))
		return STAMP_ONES;
	if (!stampblock_header(p, &names, &its_salt))
		return STAMP_OTHER;
	if (stampblock_stored_sum(p) != stampblock_sum(p, block_bytes))
		return STAMP_GARBAGE;
	if (its_salt != salt)
		return STAMP_OTHER;	/* an earlier run's, left behind */
	*named = names;
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

uint64_t stamp_new_salt(void)
{
	uint64_t salt = 0;

	if (getrandom(&salt, sizeof(salt), 0) != (ssize_t)sizeof(salt))
		salt = dev_now_ns() ^ (uint64_t)getpid() << 32;
	return salt;
}
