/*
 * The simulated card's fake capacity (fake=, fake-mode=, fake-cache=):
 * its data store.  A counterfeit card announces size but holds fake
 * bytes.  Only when a fake key (or a power-fault key, or wear=) is given
 * does the card keep the data written to it: sparsely, a sector at a time, so memory grows with what
 * a test wrote, not with the card; a sector that is exactly a stamp is
 * kept as what it names (stamprun.c).  Sectors never written read as a
 * fixed pattern of their physical number (the "old data" a card came
 * with).  Past the real capacity, wrap aliases offset to offset mod
 * fake, drop loses writes (reads return the old data), zero loses them
 * and reads zeros, error loses them and fails reads with EIO.
 * fake-cache= keeps the last SIZE bytes written, by offset, and serves
 * reads from them first: the write cache that makes a fresh write read
 * back correctly anywhere.
 *
 * Memory is allocated inside a simulated write; its time is the model's,
 * not the clock's, so nothing measured is disturbed.  A caller that holds
 * the data itself (sim_keep_data_in: flashemu's store, bounded and kept
 * across runs) gets each stretch of real blocks at its physical offset
 * instead; the card then keeps only its fake-cache=.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engines/sim.h"
#include "engines/sim/card.h"
#include "engines/sim/fake.h"
#include "engines/sim/stamprun.h"
#include "lib/stampblock.h"

/* A map from a sector number to a slot: open addressing, linear probing. */
struct fake_map {
	uint64_t *keys;		/* sector + 1; 0 is an empty slot */
	uint32_t *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t count;
};

struct sim_fake {
	uint64_t real_bytes;
	enum sim_fake_mode mode;
	struct fake_map stored;		/* physical sector -> data slot */
	unsigned char *data;		/* SIM_SECTOR bytes a slot */
	size_t data_cap;
	size_t data_used;		/* slots handed out */
	uint32_t *free_slots;		/* of them, the ones given back */
	size_t nfree, free_cap;
	struct sim_runs runs;		/* sectors kept as stamps */
	uint64_t cache_sectors;		/* fake-cache= in sectors */
	struct fake_map cached;		/* logical sector -> ring slot */
	uint64_t *ring_sector;		/* logical sector of each ring slot */
	unsigned char *ring_data;
	uint64_t ring_next, ring_used;
	const struct sim_data_ops *keeper;	/* holds the real blocks' data
						   instead, or NULL */
	void *keeper_ctx;
	sim_garbled_fn garbled;		/* worn blocks (wear=), or NULL */
	const void *garbled_ctx;
};

static size_t map_home(const struct fake_map *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (m->cap - 1);
}

static bool map_find(const struct fake_map *m, uint64_t sector,
		     uint32_t *slot)
{
	if (!m->cap)
		return false;
	for (size_t i = map_home(m, sector + 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == sector + 1) {
			*slot = m->slots[i];
			return true;
		}
	return false;
}

static int map_grow(struct fake_map *m);

static int map_put(struct fake_map *m, uint64_t sector, uint32_t slot)
{
	size_t i;

	if ((m->count + 1) * 2 > m->cap && map_grow(m))
		return -ENOMEM;
	for (i = map_home(m, sector + 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == sector + 1)
			break;
	if (!m->keys[i])
		m->count++;
	m->keys[i] = sector + 1;
	m->slots[i] = slot;
	return 0;
}

static int map_grow(struct fake_map *m)
{
	struct fake_map bigger = { .cap = m->cap ? m->cap * 2 : 1024 };

	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.keys || !bigger.slots) {
		free(bigger.keys);
		free(bigger.slots);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			map_put(&bigger, m->keys[i] - 1, m->slots[i]);
	free(m->keys);
	free(m->slots);
	*m = bigger;
	return 0;
}

/* Remove sector, moving later members of its run back into the hole. */
static void map_remove(struct fake_map *m, uint64_t sector)
{
	size_t hole, i;

	if (!m->cap)
		return;
	for (hole = map_home(m, sector + 1); m->keys[hole] != sector + 1;
	     hole = (hole + 1) & (m->cap - 1))
		if (!m->keys[hole])
			return;
	m->count--;
	for (i = (hole + 1) & (m->cap - 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1)) {
		size_t home = map_home(m, m->keys[i]);

		/* stays if its home lies cyclically in (hole, i] */
		if (hole < i ? home > hole && home <= i :
			       home > hole || home <= i)
			continue;
		m->keys[hole] = m->keys[i];
		m->slots[hole] = m->slots[i];
		hole = i;
	}
	m->keys[hole] = 0;
}

static void map_free(struct fake_map *m)
{
	free(m->keys);
	free(m->slots);
}

/*
 * A fake key, a power-fault key or wear=: a card that can lose or garble
 * data keeps it.
 */
static bool fake_wanted(const struct sim_params *p)
{
	return p->fake_bytes || p->fake_mode || p->fake_cache_bytes ||
	       sim_power_faults(p) || sim_wears(p);
}

int sim_fake_open(const struct sim_params *p, struct sim_fake **out)
{
	struct sim_fake *f;

	*out = NULL;
	if (!fake_wanted(p))
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->real_bytes = p->fake_bytes ? p->fake_bytes : p->size_bytes;
	f->mode = p->fake_mode ? p->fake_mode : SIM_FAKE_WRAP;
	/* at most SIM_MAX_FAKE_CACHE: fits a 32-bit size_t */
	f->cache_sectors = p->fake_cache_bytes / SIM_SECTOR;
	if (f->cache_sectors) {
		f->ring_sector = calloc((size_t)f->cache_sectors,
					sizeof(*f->ring_sector));
		f->ring_data = malloc((size_t)(f->cache_sectors * SIM_SECTOR));
		if (!f->ring_sector || !f->ring_data) {
			free(f->ring_sector);
			free(f->ring_data);
			free(f);
			return -ENOMEM;
		}
	}
	*out = f;
	return 0;
}

void sim_fake_close(struct sim_fake *f)
{
	if (!f)
		return;
	map_free(&f->stored);
	map_free(&f->cached);
	free(f->data);
	free(f->free_slots);
	free(f->runs.run);
	free(f->ring_sector);
	free(f->ring_data);
	free(f);
}

/* Where the card puts a sector: its fate, and the real sector for wrap. */
enum sim_fake_fate sim_fake_place(const struct sim_fake *f, uint64_t offset,
				  uint64_t *real_offset)
{
	*real_offset = offset;
	if (offset < f->real_bytes)
		return SIM_FAKE_REAL;
	switch (f->mode) {
	case SIM_FAKE_WRAP:
		*real_offset = offset % f->real_bytes;
		return SIM_FAKE_ALIASED;
	case SIM_FAKE_ZERO:
		return SIM_FAKE_ZEROED;
	case SIM_FAKE_ERROR:
		return SIM_FAKE_FAILED;
	default:
		return SIM_FAKE_DROPPED;
	}
}

/* What a sector held before anything was written: fixed, never zeros. */
static void fake_old_data(uint64_t sector, unsigned char *buf)
{
	uint64_t state = sector * 0x2545f4914f6cdd1dULL + 0x5851f42d4c957f2dULL;

	for (size_t i = 0; i < SIM_SECTOR; i += 8) {
		uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z ^= z >> 27;
		memcpy(buf + i, &z, 8);
	}
}

/* A free data slot: one given back, else the next, growing the array. */
static int fake_slot(struct sim_fake *f, uint32_t *slot)
{
	if (f->nfree) {
		*slot = f->free_slots[--f->nfree];
		return 0;
	}
	if (f->data_used == f->data_cap) {
		size_t cap = f->data_cap ? f->data_cap * 2 : 256;
		unsigned char *bigger = realloc(f->data, cap * SIM_SECTOR);

		if (!bigger)
			return -ENOMEM;
		f->data = bigger;
		f->data_cap = cap;
	}
	*slot = (uint32_t)f->data_used++;
	return 0;
}

/* Sector's bytes are no longer kept: a stamp took their place. */
static int fake_forget(struct sim_fake *f, uint64_t sector)
{
	uint32_t slot;

	if (!map_find(&f->stored, sector, &slot))
		return 0;
	if (f->nfree == f->free_cap) {
		size_t cap = f->free_cap ? f->free_cap * 2 : 256;
		uint32_t *bigger = realloc(f->free_slots,
					   cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		f->free_slots = bigger;
		f->free_cap = cap;
	}
	map_remove(&f->stored, sector);
	f->free_slots[f->nfree++] = slot;
	return 0;
}

static int fake_store(struct sim_fake *f, uint64_t sector,
		      const unsigned char *data)
{
	uint32_t slot;

	if (!map_find(&f->stored, sector, &slot) &&
	    (fake_slot(f, &slot) || map_put(&f->stored, sector, slot)))
		return -ENOMEM;
	memcpy(f->data + (size_t)slot * SIM_SECTOR, data, SIM_SECTOR);
	return 0;
}

/* Keep sector's data: as a stretch of a run when it is a stamp. */
static int fake_keep(struct sim_fake *f, struct sim_stamp_run *pending,
		     uint64_t sector, const unsigned char *data,
		     const struct sim_stamp_seen *seen)
{
	int err;

	if (seen->stamp) {
		err = fake_forget(f, sector);
		return err ? err : sim_runs_add(&f->runs, pending, sector,
						seen->named, seen->salt);
	}
	err = sim_runs_flush(&f->runs, pending);
	return err ? err : fake_store(f, sector, data);
}

/* The cache keeps the newest writes; the oldest slot is reused. */
static int fake_cache(struct sim_fake *f, uint64_t sector,
		      const unsigned char *data)
{
	uint32_t slot = (uint32_t)(f->ring_next % f->cache_sectors), held;

	if (f->ring_used == f->cache_sectors &&
	    map_find(&f->cached, f->ring_sector[slot], &held) &&
	    held == slot)
		map_remove(&f->cached, f->ring_sector[slot]);
	if (f->ring_used < f->cache_sectors)
		f->ring_used++;
	f->ring_sector[slot] = sector;
	memcpy(f->ring_data + (size_t)slot * SIM_SECTOR, data, SIM_SECTOR);
	f->ring_next++;
	return map_put(&f->cached, sector, slot);
}

static int fake_write(struct sim_fake *f, const void *buf, uint64_t offset,
		      uint64_t length)
{
	const unsigned char *data = buf;
	struct sim_stamp_run pending = { 0 };
	struct sim_stamp_seen seen[SIM_STAMP_BATCH];

	for (uint64_t done = 0; done < length; done += SIM_SECTOR) {
		uint64_t real, i = done / SIM_SECTOR % SIM_STAMP_BATCH;
		enum sim_fake_fate fate = sim_fake_place(f, offset + done,
							 &real);
		int err = 0;

		if (i == 0)
			sim_stamps_find(data + done, (size_t)((length - done) /
				    SIM_SECTOR < SIM_STAMP_BATCH ?
				    (length - done) / SIM_SECTOR :
				    SIM_STAMP_BATCH), seen);
		if (f->cache_sectors)
			err = fake_cache(f, (offset + done) / SIM_SECTOR,
					 data + done);
		if (!err && (fate == SIM_FAKE_REAL || fate == SIM_FAKE_ALIASED))
			err = fake_keep(f, &pending, real / SIM_SECTOR,
					data + done, &seen[i]);
		if (err)
			return err;
	}
	return sim_runs_flush(&f->runs, &pending);
}

uint64_t sim_fake_piece(const struct sim_fake *f, uint64_t pos,
			uint64_t end, uint64_t *real,
			enum sim_fake_fate *fate)
{
	uint64_t stop = end;

	*fate = sim_fake_place(f, pos, real);
	if (pos < f->real_bytes && f->real_bytes < end)
		stop = f->real_bytes;
	else if (*fate == SIM_FAKE_ALIASED &&
		 end - pos > f->real_bytes - *real)
		stop = pos + (f->real_bytes - *real);
	return stop;
}

static bool fate_keeps(enum sim_fake_fate fate)
{
	return fate == SIM_FAKE_REAL || fate == SIM_FAKE_ALIASED;
}

/*
 * Stamps of [offset, offset + length), each sector naming its own
 * offset with salt, written as runs: a run a piece (sim_fake_piece), so a
 * fill of the whole card costs a run or two, not its bytes.
 */
int sim_fake_stamp(struct sim_fake *f, uint64_t offset, uint64_t length,
		   uint64_t salt)
{
	uint64_t end = offset + length, pos = offset, real, stop;
	enum sim_fake_fate fate;
	int err = 0;

	for (; !err && pos < end; pos = stop) {
		stop = sim_fake_piece(f, pos, end, &real, &fate);
		if (!fate_keeps(fate))
			continue;
		for (uint64_t at = 0; !err && f->stored.count &&
		     at < stop - pos; at += SIM_SECTOR)
			err = fake_forget(f, (real + at) / SIM_SECTOR);
		if (!err)
			err = sim_runs_insert(&f->runs, (struct sim_stamp_run){
				real / SIM_SECTOR, (stop - pos) / SIM_SECTOR,
				pos - real, salt });
	}
	return err;
}

/* No sector of [sector, sector + n) kept as bytes (they win over runs)? */
static bool none_stored(const struct sim_fake *f, uint64_t sector,
			uint64_t n)
{
	uint32_t slot;

	for (uint64_t i = 0; f->stored.count && i < n; i++)
		if (map_find(&f->stored, sector + i, &slot))
			return false;
	return true;
}

/*
 * Does every sector of [offset, offset + length) read back as the stamp
 * naming its own offset with salt?  A walk over the runs, not the bytes.
 */
bool sim_fake_stamped(const struct sim_fake *f, uint64_t offset,
		      uint64_t length, uint64_t salt)
{
	uint64_t end = offset + length, pos = offset, real, stop;
	enum sim_fake_fate fate;

	while (pos < end) {
		const struct sim_stamp_run *run;
		uint64_t sector, n;

		stop = sim_fake_piece(f, pos, end, &real, &fate);
		sector = real / SIM_SECTOR;
		run = fate_keeps(fate) ? sim_runs_of(&f->runs, sector) : NULL;
		if (!run || run->salt != salt || run->delta != pos - real)
			return false;
		n = run->first + run->count - sector;
		if (n > (stop - pos) / SIM_SECTOR)
			n = (stop - pos) / SIM_SECTOR;
		if (!none_stored(f, sector, n))
			return false;
		pos += n * SIM_SECTOR;
	}
	return true;
}

/*
 * Where sector offset's data comes from when it is a run's stamp: that
 * run, and in *real the physical offset; NULL when it is anything else.
 */
static const struct sim_stamp_run *stamp_source(const struct sim_fake *f,
					    uint64_t offset, uint64_t *real)
{
	uint32_t slot;
	enum sim_fake_fate fate;

	if (map_find(&f->cached, offset / SIM_SECTOR, &slot))
		return NULL;
	fate = sim_fake_place(f, offset, real);
	if ((fate != SIM_FAKE_REAL && fate != SIM_FAKE_ALIASED) ||
	    map_find(&f->stored, *real / SIM_SECTOR, &slot))
		return NULL;
	return sim_runs_of(&f->runs, *real / SIM_SECTOR);
}

/* n garbled stamps naming offset on: a stamp's header, then the pattern. */
static void garbled_stamps(unsigned char *buf, uint64_t offset, uint64_t n,
			   uint64_t salt)
{
	for (uint64_t i = 0; i < n; i++) {
		unsigned char *sector = buf + i * SIM_SECTOR;

		stampblock_put_header(sector, offset + i * SIM_SECTOR, salt);
		sim_garble_sector(sector);
	}
}

/*
 * Read sectors from offset on, at most max of them: a stretch that one
 * run's stamps hold, made again in one go (garbled where a worn block
 * garbles it), or else one sector.  Returns how many it read.
 */
static uint64_t fake_read_stretch(const struct sim_fake *f, uint64_t offset,
				  uint64_t max, unsigned char *buf)
{
	uint64_t real, next, n = 1, garbled;
	const struct sim_stamp_run *run = stamp_source(f, offset, &real), *more;
	uint32_t slot;
	enum sim_fake_fate fate;

	if (run) {
		while (n < max &&
		       (more = stamp_source(f, offset + n * SIM_SECTOR,
					    &next)) == run &&
		       next == real + n * SIM_SECTOR)
			n++;
		garbled = f->garbled ? f->garbled(f->garbled_ctx, real,
						  n * SIM_SECTOR) / SIM_SECTOR :
				       0;
		if (garbled) {
			garbled_stamps(buf, real + run->delta, garbled,
				       run->salt);
			return garbled;
		}
		stampblock_fill_many(buf, real + run->delta, (size_t)n,
				     SIM_SECTOR, run->salt);
		return n;
	}
	if (map_find(&f->cached, offset / SIM_SECTOR, &slot)) {
		memcpy(buf, f->ring_data + (size_t)slot * SIM_SECTOR,
		       SIM_SECTOR);
		return 1;
	}
	fate = sim_fake_place(f, offset, &real);
	if (fate == SIM_FAKE_ZEROED)
		memset(buf, 0, SIM_SECTOR);
	else if ((fate == SIM_FAKE_REAL || fate == SIM_FAKE_ALIASED) &&
		 map_find(&f->stored, real / SIM_SECTOR, &slot))
		memcpy(buf, f->data + (size_t)slot * SIM_SECTOR, SIM_SECTOR);
	else
		fake_old_data(real / SIM_SECTOR, buf);
	return 1;
}

/*
 * --- the real blocks' data in a caller's store (sim_keep_data_in) ----
 *
 * The card decides where each piece lands (sim_fake_piece) and what the
 * pieces that keep nothing read as; the store moves the bytes of the
 * others at their physical offsets.  The fake-cache= stays the card's.
 */

/* Each kept piece of the range, stored; the cache then takes the rest. */
static int kept_write(struct sim_fake *f, const unsigned char *data,
		      uint64_t offset, uint64_t length)
{
	uint64_t end = offset + length, pos, stop, real;
	enum sim_fake_fate fate;
	int err = 0;

	for (pos = offset; !err && pos < end; pos = stop) {
		stop = sim_fake_piece(f, pos, end, &real, &fate);
		if (fate_keeps(fate))
			err = f->keeper->write(f->keeper_ctx,
					       data + (pos - offset), real,
					       stop - pos);
	}
	for (uint64_t done = 0; !err && f->cache_sectors && done < length;
	     done += SIM_SECTOR)
		err = fake_cache(f, (offset + done) / SIM_SECTOR, data + done);
	return err;
}

/* Each piece from the store, as zeros or as old data; the cache over it. */
static int kept_read(const struct sim_fake *f, unsigned char *buf,
		     uint64_t offset, uint64_t length)
{
	uint64_t end = offset + length, pos, stop, real;
	enum sim_fake_fate fate;
	uint32_t slot;
	int err = 0;

	for (pos = offset; !err && pos < end; pos = stop) {
		unsigned char *out = buf + (pos - offset);

		stop = sim_fake_piece(f, pos, end, &real, &fate);
		if (fate_keeps(fate))
			err = f->keeper->read(f->keeper_ctx, out, real,
					      stop - pos);
		else if (fate == SIM_FAKE_ZEROED)
			memset(out, 0, (size_t)(stop - pos));
		else	/* dropped, or failed but cached: the cache wins */
			for (uint64_t at = 0; at < stop - pos; at += SIM_SECTOR)
				fake_old_data((real + at) / SIM_SECTOR,
					      out + at);
	}
	for (uint64_t done = 0; !err && f->cache_sectors && done < length;
	     done += SIM_SECTOR)
		if (map_find(&f->cached, (offset + done) / SIM_SECTOR, &slot))
			memcpy(buf + done, f->ring_data +
			       (size_t)slot * SIM_SECTOR, SIM_SECTOR);
	return err;
}

/* A discard's whole sectors: the real blocks they land on are punched. */
int sim_fake_punch(const struct sim_fake *f, uint64_t offset,
		   uint64_t length)
{
	uint64_t first = (offset + SIM_SECTOR - 1) / SIM_SECTOR * SIM_SECTOR;
	uint64_t end = (offset + length) / SIM_SECTOR * SIM_SECTOR;
	uint64_t pos, stop, real;
	enum sim_fake_fate fate;
	int err = 0;

	if (!f->keeper)
		return 0;
	for (pos = first; !err && pos < end; pos = stop) {
		stop = sim_fake_piece(f, pos, end, &real, &fate);
		if (fate_keeps(fate))
			err = f->keeper->punch(f->keeper_ctx, real, stop - pos);
	}
	return err;
}

/* error mode: a read of an uncached sector past the real capacity fails. */
int sim_fake_read(const struct sim_fake *f, void *buf, uint64_t offset,
		  uint64_t length)
{
	unsigned char *out = buf;
	uint32_t slot;
	uint64_t real;

	for (uint64_t done = 0; done < length; done += SIM_SECTOR)
		if (sim_fake_place(f, offset + done, &real) ==
		    SIM_FAKE_FAILED &&
		    !map_find(&f->cached, (offset + done) / SIM_SECTOR, &slot))
			return -EIO;
	if (f->keeper)
		return kept_read(f, out, offset, length);
	for (uint64_t done = 0; done < length; )
		done += SIM_SECTOR *
			fake_read_stretch(f, offset + done,
					  (length - done) / SIM_SECTOR,
					  out + done);
	return 0;
}

/* What the data takes in memory: slots, maps, runs, the cache. */
void sim_fake_held(const struct sim_fake *f, struct sim_stats *out)
{
	const size_t map_slot = sizeof(*f->stored.keys) +
				sizeof(*f->stored.slots);

	out->held_bytes = (uint64_t)f->data_cap * SIM_SECTOR +
			  (uint64_t)(f->stored.cap + f->cached.cap) * map_slot +
			  (uint64_t)f->free_cap * sizeof(*f->free_slots) +
			  (uint64_t)f->runs.cap * sizeof(*f->runs.run) +
			  f->cache_sectors * (SIM_SECTOR +
					      sizeof(*f->ring_sector));
	out->stamp_runs = f->runs.n;
}

/* Into the caller's store when there is one, else into the card's. */
int sim_fake_write(struct sim_fake *f, const void *buf, uint64_t offset,
		   uint64_t length)
{
	return f->keeper ? kept_write(f, buf, offset, length) :
			   fake_write(f, buf, offset, length);
}

bool sim_fake_takes_stamps(const struct sim_fake *f)
{
	return !f->cache_sectors && !f->keeper;
}

void sim_fake_garbled_by(struct sim_fake *f, sim_garbled_fn garbled,
			 const void *ctx)
{
	f->garbled = garbled;
	f->garbled_ctx = ctx;
}

void sim_fake_keep_in(struct sim_fake *f, const struct sim_data_ops *ops,
		      void *ctx)
{
	f->keeper = ops;
	f->keeper_ctx = ctx;
}
