/*
 * undo/restore: putting back (restore.h).  Every intact record is
 * written back newest first, then each block is read back and compared
 * with what its storage held before the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/undo/format.h"
#include "measure/undo/proof.h"
#include "measure/undo/restore.h"
#include "measure/undo/scan.h"

#define NONE SIZE_MAX		/* no record */

static int put_back(struct undo_log *g, struct dev *dev,
		    const struct undo_saved *s, unsigned char *buf,
		    struct undo_result *result)
{
	uint64_t ns;
	int err = undo_log_read(g, buf, (size_t)s->length, s->data_at);

	if (err)
		return err;
	err = dev_write(dev, buf, s->offset, s->length, &ns);
	if (!err)
		result->bytes_restored += s->length;
	return err;
}

/* The records by offset, for "which saved the block at offset first". */
struct by_offset {
	uint64_t offset;
	size_t index;
};

static int compare_by_offset(const void *a, const void *b)
{
	const struct by_offset *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

struct order {
	struct by_offset *sorted;
	size_t count;
	uint64_t longest;
};

/* The oldest intact record that saved the block at offset, or NONE. */
static size_t oldest_save(const struct undo_log *g, const struct order *o,
			  uint64_t offset)
{
	size_t lo = 0, hi = o->count, best = NONE;

	while (lo < hi) {		/* the first record past offset */
		size_t mid = lo + (hi - lo) / 2;

		if (o->sorted[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && o->sorted[lo].offset + o->longest > offset) {
		const struct undo_saved *s = &g->saved[o->sorted[lo].index];

		if (offset < s->offset + s->length &&
		    o->sorted[lo].index < best)
			best = o->sorted[lo].index;
	}
	return best;
}

/*
 * What the storage under the block at offset held before the run: the
 * block record i saved, unless that is a stamp of the run - another
 * offset's write had landed there (a wrapping card) - when it is what
 * the stamp's own offset held when first saved, and so on back.  Each
 * step goes to an older record; 1 with it in block, 0 when the trail
 * ends before data (nothing to compare with), or -errno.
 */
static int storage_before(const struct undo_log *g, const struct order *o,
			  size_t i, uint64_t offset, unsigned char *block)
{
	uint64_t named;
	int err = undo_log_saved_block(g, &g->saved[i], offset, block);

	while (!err && g->version > 1 &&
	       undo_log_run_stamp(g, block, offset, &named)) {
		size_t j = oldest_save(g, o, named);

		if (j == NONE || j >= i)
			return 0;
		i = j;
		offset = named;
		err = undo_log_saved_block(g, &g->saved[i], offset, block);
	}
	return err ? err : 1;
}

static void count_block(struct undo_result *result, uint64_t offset,
			bool same)
{
	result->blocks_checked++;
	if (!same && result->blocks_differing++ == 0)
		result->first_differing = offset;
}

/* Compare the blocks record i was first to save with what they held. */
static int check_back(const struct undo_log *g, const struct order *o, size_t i,
		      struct dev *dev, uint64_t verify_below,
		      unsigned char *now, unsigned char *before,
		      struct undo_result *result)
{
	const struct undo_saved *s = &g->saved[i];
	uint32_t lbs = g->block_bytes;
	uint64_t ns, length = s->length;
	bool unreadable = false;
	int err = 0;

	if (s->offset < verify_below && verify_below - s->offset < length)
		length = verify_below - s->offset;
	if (s->offset < verify_below)
		err = dev_read(dev, now, s->offset, length, &ns);
	if (err == -EIO) {		/* counted as not put back */
		unreadable = true;
		err = 0;
	}
	for (uint64_t at = 0; err >= 0 && at < s->length; at += lbs) {
		uint64_t offset = s->offset + at;

		if (oldest_save(g, o, offset) != i)
			continue;
		if (offset >= verify_below || undo_log_in_damage(g, offset)) {
			result->blocks_unchecked++;
			continue;
		}
		err = unreadable ? 1 : storage_before(g, o, i, offset, before);
		if (err == 0)
			result->blocks_unchecked++;
		if (err > 0)
			count_block(result, offset, !unreadable &&
				    memcmp(before, now + at, lbs) == 0);
	}
	return err < 0 ? err : 0;
}

static int make_order(const struct undo_log *g, struct order *o)
{
	*o = (struct order){ .count = g->count };
	o->sorted = malloc((g->count ? g->count : 1) * sizeof(*o->sorted));
	if (!o->sorted)
		return -ENOMEM;
	for (size_t i = 0; i < g->count; i++) {
		o->sorted[i] = (struct by_offset){ g->saved[i].offset, i };
		if (g->saved[i].length > o->longest)
			o->longest = g->saved[i].length;
	}
	qsort(o->sorted, o->count, sizeof(*o->sorted), compare_by_offset);
	return 0;
}

static int restore_records(struct undo_log *g, struct dev *dev,
			   uint64_t verify_below, struct undo_result *result)
{
	uint64_t top = undo_log_largest(g);
	unsigned char *buf = dev_alloc_buffer(top, DEV_PATTERN_ZEROS);
	unsigned char *before = malloc(g->block_bytes);
	struct order o = { 0 };
	int err = buf && before ? make_order(g, &o) : -ENOMEM;

	for (size_t i = g->count; !err && i-- > 0; )
		err = put_back(g, dev, &g->saved[i], buf, result);
	result->records = g->count;
	for (size_t i = 0; !err && i < g->count; i++)
		err = check_back(g, &o, i, dev, verify_below, buf, before,
				 result);
	free(o.sorted);
	free(buf);
	free(before);
	return err;
}

void undo_result_free(struct undo_result *result)
{
	free(result->damaged);
	result->damaged = NULL;
	result->damaged_count = 0;
}

int undo_restore(int fd, struct dev *dev, uint64_t verify_below,
		 struct undo_result *result, char *why, size_t size)
{
	struct undo_log g;
	int err = undo_log_open_judged(&g, fd, dev, false, why, size);

	*result = (struct undo_result){ .version = g.version };
	if (!err) {
		if (verify_below == UNDO_VERIFY_MARKED)
			verify_below = undo_log_usable(&g);
		result->verified_below = verify_below;
		err = restore_records(&g, dev, verify_below, result);
		/* the damage goes to the caller to list */
		result->damaged = g.damaged;
		result->damaged_count = g.damaged_count;
		g.damaged = NULL;
	}
	return undo_log_finish(&g, err);
}

