/*
 * stampblock: layout of a block (little endian): 8 bytes magic, 8 offset,
 * 8 salt, 8 checksum, then filler that depends on offset and salt, so no
 * two blocks of a run are alike and nothing compresses.  Filler and
 * checksum work a 64-bit word at a time: the filler's word i is a mix of
 * the block's seed and i (no chain from word to word), and the checksum
 * is four multiply chains over the words side by side (the checksum field
 * taken as zero), so a stamp is made and checked at several GB/s and
 * stamping keeps up with a fast device.
 */
#include <string.h>

#include "lib/le64.h"
#include "lib/stampblock.h"

static const unsigned char stamp_magic[8] = { 'F', 'B', 'S', 'T', 'A', 'M',
					      'P', '2' };

enum { MAGIC_AT = 0, OFFSET_AT = 8, SALT_AT = 16, SUM_AT = 24,
       FILLER_AT = 32, HEAD_WORDS = FILLER_AT / 8 };

#define FNV_PRIME 0x100000001b3ULL
#define GOLDEN 0x9e3779b97f4a7c15ULL
#define MIX1 0xbf58476d1ce4e5b9ULL
#define MIX2 0x94d049bb133111ebULL
#define LANES 4		/* checksum chains over the words side by side */

uint64_t stampblock_hash(uint64_t hash, const void *data, size_t length)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < length; i++) {
		hash ^= p[i];
		hash *= FNV_PRIME;
	}
	return hash;
}

/* splitmix64's finaliser: every input bit reaches every output bit. */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * MIX1;
	z = (z ^ (z >> 27)) * MIX2;
	return z ^ (z >> 31);
}

/* The filler's word i of a block, from x = seed + i * GOLDEN. */
static inline uint64_t filler_of(uint64_t x)
{
	x = (x ^ (x >> 32)) * MIX1;
	return x ^ (x >> 29);
}

/* The filler's word i of the block whose seed is seed: one multiply. */
static inline uint64_t filler_word(uint64_t seed, uint64_t i)
{
	return filler_of(seed + i * GOLDEN);
}

static uint64_t seed_of(uint64_t offset, uint64_t salt)
{
	return mix64(offset ^ mix64(salt));
}

static inline uint64_t lane_step(uint64_t h, uint64_t word)
{
	h = (h ^ word) * MIX2;
	return h ^ (h >> 32);
}

struct lanes {
	uint64_t h[LANES];
};

static void lanes_start(struct lanes *l, uint32_t block_bytes)
{
	for (int k = 0; k < LANES; k++)
		l->h[k] = mix64(STAMPBLOCK_FNV_BASIS + (uint64_t)k +
				block_bytes);
}

static uint64_t lanes_end(const struct lanes *l)
{
	uint64_t r = 0;

	for (int k = 0; k < LANES; k++)
		r = mix64(r ^ l->h[k]);
	return r;
}

/* The head's four words with the checksum taken as zero. */
static void head_words(const unsigned char *block, uint64_t *w)
{
	w[0] = get64(block + MAGIC_AT);
	w[1] = get64(block + OFFSET_AT);
	w[2] = get64(block + SALT_AT);
	w[3] = 0;
}

/*
 * The hot loops take the words four at a time, word k of a group into
 * lane k.  Scalar, the lanes sit in four locals (kept in registers, the
 * four chains run side by side, each step one multiply); where the CPU
 * multiplies four 64-bit words at once (x86-64 with AVX-512DQ and VL),
 * the four lanes are one vector.  Both give the same bits.
 */
static void sum_groups(uint64_t *h, const unsigned char *p, size_t groups)
{
	uint64_t h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3];

	for (size_t g = 0; g < groups; g++, p += 8 * LANES) {
		h0 = lane_step(h0, get64(p));
		h1 = lane_step(h1, get64(p + 8));
		h2 = lane_step(h2, get64(p + 16));
		h3 = lane_step(h3, get64(p + 24));
	}
	h[0] = h0, h[1] = h1, h[2] = h2, h[3] = h3;
}

/* Filler words from x (seed + i * GOLDEN of the first), made and summed
   in one pass while they are in registers. */
static void fill_groups(uint64_t *h, unsigned char *p, size_t groups,
			uint64_t x)
{
	uint64_t h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3];

	for (size_t g = 0; g < groups; g++, p += 8 * LANES,
	     x += LANES * GOLDEN) {
		uint64_t w0 = filler_of(x), w1 = filler_of(x + GOLDEN),
			 w2 = filler_of(x + 2 * GOLDEN),
			 w3 = filler_of(x + 3 * GOLDEN);

		put64(p, w0);
		put64(p + 8, w1);
		put64(p + 16, w2);
		put64(p + 24, w3);
		h0 = lane_step(h0, w0);
		h1 = lane_step(h1, w1);
		h2 = lane_step(h2, w2);
		h3 = lane_step(h3, w3);
	}
	h[0] = h0, h[1] = h1, h[2] = h2, h[3] = h3;
}

#if defined(__x86_64__) && defined(__GNUC__) && LE64_NATIVE && \
    !defined(STAMPBLOCK_SCALAR)
#define STAMPBLOCK_VECTORS 1
typedef uint64_t lanes4 __attribute__((vector_size(8 * LANES)));
#define VECTOR_CODE __attribute__((target("avx2,avx512f,avx512dq,avx512vl")))

VECTOR_CODE static lanes4 vector_step(lanes4 h, lanes4 w)
{
	h = (h ^ w) * MIX2;
	return h ^ (h >> 32);
}

VECTOR_CODE static void sum_groups_vector(uint64_t *h,
					  const unsigned char *p,
					  size_t groups)
{
	lanes4 v, w;

	memcpy(&v, h, sizeof(v));
	for (size_t g = 0; g < groups; g++, p += sizeof(w)) {
		memcpy(&w, p, sizeof(w));
		v = vector_step(v, w);
	}
	memcpy(h, &v, sizeof(v));
}

VECTOR_CODE static void fill_groups_vector(uint64_t *h, unsigned char *p,
					   size_t groups, uint64_t x)
{
	lanes4 v, w, t, xs = { x, x + GOLDEN, x + 2 * GOLDEN,
			       x + 3 * GOLDEN };

	memcpy(&v, h, sizeof(v));
	for (size_t g = 0; g < groups; g++, p += sizeof(w)) {
		t = (xs ^ (xs >> 32)) * MIX1;
		w = t ^ (t >> 29);
		memcpy(p, &w, sizeof(w));
		v = vector_step(v, w);
		xs += LANES * GOLDEN;
	}
	memcpy(h, &v, sizeof(v));
}

/* The CPU's own answer, kept by the compiler's runtime, not here. */
static bool vectors(void)
{
	return __builtin_cpu_supports("avx512dq") &&
	       __builtin_cpu_supports("avx512vl");
}
#endif

static void sum_words(uint64_t *h, const unsigned char *p, size_t groups)
{
#ifdef STAMPBLOCK_VECTORS
	if (vectors()) {
		sum_groups_vector(h, p, groups);
		return;
	}
#endif
	sum_groups(h, p, groups);
}

static void fill_words(uint64_t *h, unsigned char *p, size_t groups,
		       uint64_t x)
{
#ifdef STAMPBLOCK_VECTORS
	if (vectors()) {
		fill_groups_vector(h, p, groups, x);
		return;
	}
#endif
	fill_groups(h, p, groups, x);
}

/* The words of [j, words) of p into the lanes, word i into lane i % 4. */
static void lanes_add_words(struct lanes *l, const unsigned char *p,
			    size_t j, size_t words)
{
	for (; j % LANES && j < words; j++)
		l->h[j % LANES] = lane_step(l->h[j % LANES], get64(p + 8 * j));
	if (j < words) {
		sum_words(l->h, p + 8 * j, (words - j) / LANES);
		j += (words - j) / LANES * LANES;
	}
	for (; j < words; j++)
		l->h[j % LANES] = lane_step(l->h[j % LANES], get64(p + 8 * j));
}

uint64_t stampblock_sum(const unsigned char *block, uint32_t block_bytes)
{
	uint64_t head[HEAD_WORDS];
	struct lanes l;

	lanes_start(&l, block_bytes);
	head_words(block, head);
	for (int k = 0; k < HEAD_WORDS; k++)
		l.h[k % LANES] = lane_step(l.h[k % LANES], head[k]);
	lanes_add_words(&l, block, HEAD_WORDS, block_bytes / 8);
	return lanes_end(&l);
}

uint64_t stampblock_hash_words(const void *data, size_t length)
{
	const unsigned char *p = data;
	size_t words = length / 8;
	struct lanes l;

	lanes_start(&l, (uint32_t)length);
	l.h[0] = lane_step(l.h[0], (uint64_t)length);
	lanes_add_words(&l, p, 0, words);
	/* the bytes past the last whole word, FNV-1a into the first lane */
	l.h[0] = stampblock_hash(l.h[0], p + 8 * words, length % 8);
	return lanes_end(&l);
}

uint64_t stampblock_stored_sum(const unsigned char *block)
{
	return get64(block + SUM_AT);
}

void stampblock_sums(const unsigned char *const *blocks, size_t n,
		     uint32_t block_bytes, uint64_t *sums)
{
	for (size_t i = 0; i < n; i++)
		sums[i] = stampblock_sum(blocks[i], block_bytes);
}

/*
 * What every block of a fill shares: the salt's mix (in each seed) and
 * the lanes after the head, whose words are the same in every block but
 * the offset's, in lane 1.
 */
struct fill_key {
	uint64_t salt, salt_mix;
	uint32_t block_bytes;
	struct lanes head;		/* lane 1: not yet the offset's */
};

static void fill_key_init(struct fill_key *k, uint32_t block_bytes,
			  uint64_t salt)
{
	unsigned char magic_head[8];

	memcpy(magic_head, stamp_magic, sizeof(magic_head));
	k->salt = salt;
	k->salt_mix = mix64(salt);
	k->block_bytes = block_bytes;
	lanes_start(&k->head, block_bytes);
	/* head_words: the magic, the offset, the salt, the checksum as 0 */
	k->head.h[0] = lane_step(k->head.h[0], get64(magic_head));
	k->head.h[2] = lane_step(k->head.h[2], salt);
	k->head.h[3] = lane_step(k->head.h[3], 0);
}

static void fill_block(unsigned char *block, uint64_t offset,
		       const struct fill_key *k)
{
	uint64_t seed = mix64(offset ^ k->salt_mix);
	uint32_t words = k->block_bytes / 8, j = HEAD_WORDS;
	struct lanes l = k->head;

	memcpy(block + MAGIC_AT, stamp_magic, sizeof(stamp_magic));
	put64(block + OFFSET_AT, offset);
	put64(block + SALT_AT, k->salt);
	l.h[1] = lane_step(l.h[1], offset);
	fill_words(l.h, block + 8 * j, (words - j) / LANES,
		   seed + j * GOLDEN);
	for (j += (words - j) / LANES * LANES; j < words; j++) {
		uint64_t w = filler_word(seed, j);

		put64(block + 8 * j, w);
		l.h[j % LANES] = lane_step(l.h[j % LANES], w);
	}
	put64(block + SUM_AT, lanes_end(&l));
}

void stampblock_fill(unsigned char *block, uint64_t offset,
		     uint32_t block_bytes, uint64_t salt)
{
	struct fill_key k;

	fill_key_init(&k, block_bytes, salt);
	fill_block(block, offset, &k);
}

void stampblock_fill_many(unsigned char *buf, uint64_t offset, size_t n,
			  uint32_t block_bytes, uint64_t salt)
{
	struct fill_key k;

	fill_key_init(&k, block_bytes, salt);
	for (size_t i = 0; i < n; i++)
		fill_block(buf + i * block_bytes, offset + i * block_bytes,
			   &k);
}

bool stampblock_filler_matches(const unsigned char *block, uint64_t offset,
			       uint32_t block_bytes, uint64_t salt)
{
	uint64_t seed = seed_of(offset, salt);

	if (memcmp(block + MAGIC_AT, stamp_magic, sizeof(stamp_magic)) != 0 ||
	    get64(block + OFFSET_AT) != offset || get64(block + SALT_AT) != salt)
		return false;
	for (uint32_t j = HEAD_WORDS; j < block_bytes / 8; j++)
		if (get64(block + 8 * j) != filler_word(seed, j))
			return false;
	return true;
}

void stampblock_put_header(unsigned char *block, uint64_t offset,
			   uint64_t salt)
{
	memcpy(block + MAGIC_AT, stamp_magic, sizeof(stamp_magic));
	put64(block + OFFSET_AT, offset);
	put64(block + SALT_AT, salt);
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

bool stampblock_legacy(const unsigned char *block, uint32_t block_bytes,
		       uint64_t *offset, uint64_t *salt)
{
	static const unsigned char legacy_magic[8] = { 'F', 'B', 'S', 'T',
						       'A', 'M', 'P', '1' };
	static const unsigned char zero[8];
	uint64_t sum;

	if (block_bytes < FILLER_AT ||
	    memcmp(block + MAGIC_AT, legacy_magic, sizeof(legacy_magic)))
		return false;
	sum = stampblock_hash(STAMPBLOCK_FNV_BASIS, block, SUM_AT);
	sum = stampblock_hash(sum, zero, sizeof(zero));
	sum = stampblock_hash(sum, block + FILLER_AT, block_bytes - FILLER_AT);
	if (sum != get64(block + SUM_AT))
		return false;
	*offset = get64(block + OFFSET_AT);
	*salt = get64(block + SALT_AT);
	return true;
}
