/*
 * undo/format: the file's magics and checksums, and the progress
 * record's words, shared by the writer and the reader (format.h).
 */
#include <stdint.h>

#include "lib/le64.h"
#include "lib/stampblock.h"
#include "vm/stamp.h"
#include "measure/undo/format.h"

/* each exactly 8 bytes: C keeps no terminator where none fits */
const char undo_magic_header1[8] = "FBUNDO01";
const char undo_magic_header[8] = "FBUNDO02";
const char undo_magic_record1[8] = { 'F', 'B', 'U', 'R', 0, 0, 0, 0 };
const char undo_magic_head[8] = "FBUREC02";
const char undo_magic_trailer[8] = "FBUEND02";

uint64_t undo_salted_sum(uint64_t salt, const unsigned char *p,
			 size_t length)
{
	unsigned char seed[8];

	put64(seed, salt);
	return stamp_hash(stamp_hash(STAMP_FNV_BASIS, seed, sizeof(seed)), p,
			  length);
}

uint64_t undo_data_hash(uint64_t kind, const void *data, size_t length)
{
	return kind == UNDO_KIND_WORDS ?
	       stampblock_hash_words(data, length) :
	       stamp_hash(STAMP_FNV_BASIS, data, length);
}

void undo_put_progress(unsigned char *p, const struct undo_progress *pr)
{
	const uint64_t words[UNDO_PROGRESS_WORDS] = { pr->start, pr->end,
		pr->next, pr->window_bytes, pr->chunk_bytes, pr->bad_blocks,
		pr->first_bad, pr->good_end };

	for (unsigned i = 0; i < UNDO_PROGRESS_WORDS; i++)
		put64(p + 8 * i, words[i]);
}

void undo_get_progress(const unsigned char *p, struct undo_progress *pr)
{
	*pr = (struct undo_progress){ .start = get64(p), .end = get64(p + 8),
		.next = get64(p + 16), .window_bytes = get64(p + 24),
		.chunk_bytes = get64(p + 32), .bad_blocks = get64(p + 40),
		.first_bad = get64(p + 48), .good_end = get64(p + 56) };
}
