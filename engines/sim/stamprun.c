/*
 * Stamps kept as what names them, for the fake store (fake.c).
 *
 * A sector written with exactly the stamp of a 512-byte block (the card's
 * logical block, what the capacity check and the surface test write) is
 * kept as a stretch of a stamp run, not as bytes, and made again on read:
 * a stamp fill of the whole card costs a run or a few, whatever its size.
 * What a sector names is kept as written, so an alias (a stamp that
 * landed on another offset than the one it names) reads back as written.
 * Only a byte-exact stamp is kept so; anything else is kept as bytes,
 * which take precedence over the runs until a stamp is written there.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engines/sim/card.h"
#include "engines/sim/stamprun.h"
#include "lib/stampblock.h"

/*
 * Which of n sectors from data on are exactly stamps: stamp[i], with what
 * they name and their salt.  The checksums, the dear part, are taken four
 * at a time.
 */
void sim_stamps_find(const unsigned char *data, size_t n,
		     struct sim_stamp_seen *seen)
{
	/* set, though only the first m are read: gcc cannot see that */
	const unsigned char *candidates[SIM_STAMP_BATCH] = { NULL };
	uint64_t sums[SIM_STAMP_BATCH];
	size_t which[SIM_STAMP_BATCH], m = 0;

	for (size_t i = 0; i < n; i++) {
		const unsigned char *sector = data + i * SIM_SECTOR;
		struct sim_stamp_seen *s = &seen[i];

		s->stamp = stampblock_header(sector, &s->named, &s->salt) &&
			   stampblock_filler_matches(sector, s->named,
						     SIM_SECTOR, s->salt);
		if (s->stamp) {
			which[m] = i;
			candidates[m++] = sector;
		}
	}
	stampblock_sums(candidates, m, SIM_SECTOR, sums);
	for (size_t k = 0; k < m; k++)
		seen[which[k]].stamp =
			sums[k] == stampblock_stored_sum(candidates[k]);
}

/* The first run that ends after sector (rs->n when none). */
static size_t run_after(const struct sim_runs *rs, uint64_t sector)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->run[mid].first + rs->run[mid].count <= sector)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool run_continues(const struct sim_stamp_run *a,
			  const struct sim_stamp_run *b)
{
	return a->first + a->count == b->first && a->delta == b->delta &&
	       a->salt == b->salt;
}

/* Join run[i] and run[i + 1] when the second goes on from the first. */
static void run_join(struct sim_runs *rs, size_t i)
{
	if (i + 1 >= rs->n || !run_continues(&rs->run[i], &rs->run[i + 1]))
		return;
	rs->run[i].count += rs->run[i + 1].count;
	memmove(&rs->run[i + 1], &rs->run[i + 2],
		(rs->n - i - 2) * sizeof(rs->run[0]));
	rs->n--;
}

/*
 * Put run r in, over whatever runs held its sectors: those keep only
 * their parts before and after it.
 */
int sim_runs_insert(struct sim_runs *rs, struct sim_stamp_run r)
{
	size_t i = run_after(rs, r.first), j = i, k = 0;
	uint64_t end = r.first + r.count;
	struct sim_stamp_run pieces[3];

	while (j < rs->n && rs->run[j].first < end)
		j++;
	if (i < j && rs->run[i].first < r.first) {
		pieces[k] = rs->run[i];
		pieces[k++].count = r.first - rs->run[i].first;
	}
	pieces[k++] = r;
	if (i < j && rs->run[j - 1].first + rs->run[j - 1].count > end) {
		const struct sim_stamp_run *last = &rs->run[j - 1];

		pieces[k] = (struct sim_stamp_run){ end,
			last->first + last->count - end, last->delta,
			last->salt };
		k++;
	}
	if (rs->n - (j - i) + k > rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 16;
		struct sim_stamp_run *bigger = realloc(rs->run,
						       cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		rs->run = bigger;
		rs->cap = cap;
	}
	memmove(&rs->run[i + k], &rs->run[j],
		(rs->n - j) * sizeof(rs->run[0]));
	memcpy(&rs->run[i], pieces, k * sizeof(pieces[0]));
	rs->n = rs->n - (j - i) + k;
	/* the new run is at i, or i + 1 after a piece before it */
	for (size_t at = i + k; at-- > (i ? i - 1 : 0); )
		run_join(rs, at);
	return 0;
}

/* The run holding sector, or NULL. */
const struct sim_stamp_run *sim_runs_of(const struct sim_runs *rs,
					uint64_t sector)
{
	size_t i = run_after(rs, sector);

	return i < rs->n && rs->run[i].first <= sector ? &rs->run[i] : NULL;
}

/*
 * A write's stamp sectors gather into one pending run while they go on
 * one from the other; anything else puts it in first.
 */
int sim_runs_flush(struct sim_runs *rs, struct sim_stamp_run *pending)
{
	int err = pending->count ? sim_runs_insert(rs, *pending) : 0;

	pending->count = 0;
	return err;
}

int sim_runs_add(struct sim_runs *rs, struct sim_stamp_run *pending,
		 uint64_t sector, uint64_t named, uint64_t salt)
{
	struct sim_stamp_run one = { sector, 1, named - sector * SIM_SECTOR,
				     salt };
	int err = 0;

	if (pending->count && run_continues(pending, &one)) {
		pending->count++;
		return 0;
	}
	err = sim_runs_flush(rs, pending);
	*pending = one;
	return err;
}
