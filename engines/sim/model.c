/*
 * The simulated card's model: each operation returns the time a small
 * model of a card's controller says it took, on a virtual clock, and
 * counts what the model did.  It keeps state only for the erase blocks
 * the card holds open (and a reader's write cache), never the data: that
 * is the fake store's (fake.c).  It sleeps only when the spec asks for
 * pace=, so that tests which interrupt a run can rely on it still being
 * inside its timed work.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "engines/sim/card.h"
#include "engines/sim/model.h"

#define SIM_SPIKE_MIN	5.0	/* a spike multiplies an operation's time */
#define SIM_SPIKE_MAX	20.0

/*
 * --- statistics --------------------------------------------------------
 *
 * What the model did, counted where it decides it: the numbers that show
 * why one workload is kinder to a card than another.  Counting never
 * changes a time.
 */

/* A garbage collection: gc_ns spent, copy_bytes moved inside the card. */
static void count_gc(struct sim_state *s, uint64_t copy_bytes, uint64_t ns)
{
	s->stats.gcs++;
	s->stats.copied_bytes += copy_bytes;
	s->stats.gc_ns += ns;
}

/* One read, write or discard of length bytes that took ns. */
static void count_op(uint64_t *ops, uint64_t *bytes, uint64_t length,
		     struct sim_state *s, uint64_t ns)
{
	(*ops)++;
	*bytes += length;
	s->stats.busy_ns += ns;
}

/*
 * --- the model -------------------------------------------------------
 *
 * Reads cost read-lat + length / read-rate, plus, for each level of the
 * staircase, its cost for each multiple of its size the read crosses: with
 * cross=8K:50us/4M:150us a read across a 4 MiB boundary pays both levels.
 * Without cross=, the levels are page-cross at page and au-cross at erase.
 *
 * Writes cost write-lat + (whole prog units touched) / write-rate, plus
 * the bytes past buffer once more, plus switch-lat when they go to another
 * erase block than the write before, plus what the card must do to take
 * them.  Outside the first fat erase blocks, the card holds up to open
 * erase blocks open, each with a high-water mark and the start of its
 * in-order run.  Writing a block that is not open opens it; if open are
 * open already, the least recently written one is closed: gc plus the
 * copy of what its run left out at copy-rate, or nothing when it was
 * written through.  With spill=, while the open blocks are all in use a
 * write to another block spills instead (its bytes again at spill-rate):
 * graceful degradation up to open + spill blocks.  A write below a block's
 * mark is out of order: the block joins the set of open-random blocks
 * that take any order; if that set is full, its least recently written
 * member is consolidated (gc) and stays open for writes above its mark.
 * granule= lets a write that starts a granule go anywhere.  Small writes
 * (cache=) out of order or spilled cost cache-lat instead; with
 * cache-any=1 so do small writes to a block that is not open, which then
 * opens none.  A block
 * written in order from its start to its end holds nothing old, so
 * writing it again from lower down starts it over for free.  Discarding
 * whole erase blocks closes them for free.
 */

/* splitmix64: the noise source, seeded so runs repeat */
static uint64_t next_random(struct sim_state *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static double next_uniform(struct sim_state *s)
{
	return (double)(next_random(s) >> 11) * 0x1.0p-53;
}

/* Apply noise and spikes; draws nothing when both are off. */
static uint64_t jitter(struct sim_state *s, uint64_t ns)
{
	double t = (double)ns;

	if (s->p.noise > 0)
		t *= 1.0 + s->p.noise * (2.0 * next_uniform(s) - 1.0);
	if (s->p.spikes > 0 && next_uniform(s) < s->p.spikes)
		t *= SIM_SPIKE_MIN +
		     (SIM_SPIKE_MAX - SIM_SPIKE_MIN) * next_uniform(s);
	/* a spec of hours per operation, spiked, passes 2^64 ns */
	if (t >= 0x1p64)
		return UINT64_MAX;
	return (uint64_t)(t + 0.5);
}

/*
 * jitter=: a read takes 1 + jitter x X as long, X Pareto-distributed
 * with shape 1.5 from 0 (u^(-2/3) - 1): half the reads pay at most
 * 0.59 x jitter, one in 37 over 10 x jitter, one in a thousand over 99 x
 * jitter; capped at 1000 x jitter.  Its variance is infinite, so means of
 * a few dozen reads wander as a real device's under interference do.
 */
#define SIM_JITTER_SHAPE	1.5
#define SIM_JITTER_CAP		1000.0

static double heavy_tail(struct sim_state *s)
{
	double u = 1.0 - next_uniform(s);	/* in (0, 1] */
	double x = pow(u, -1.0 / SIM_JITTER_SHAPE) - 1.0;

	return x < SIM_JITTER_CAP ? x : SIM_JITTER_CAP;
}

/*
 * drift=: the read time wanders slowly around the model's, by a walk
 * that returns toward 0 (each read keeps 1 - 1/drift-reads of the offset
 * and adds a uniform step), so the offset's standard deviation is drift
 * and it turns over about drift-reads reads.  The factor stays above 0.1.
 */
#define SIM_DRIFT_READS		1000

static double drift_factor(struct sim_state *s)
{
	double n = s->p.drift_reads ? (double)s->p.drift_reads :
				      SIM_DRIFT_READS;
	/* uniform on [-sqrt 3, sqrt 3]: variance 1 */
	double step = (2.0 * next_uniform(s) - 1.0) * sqrt(3.0);

	s->wander = s->wander * (1.0 - 1.0 / n) +
		    s->p.drift * sqrt(2.0 / n - 1.0 / (n * n)) * step;
	return 1.0 + s->wander > 0.1 ? 1.0 + s->wander : 0.1;
}

/* A read's time with jitter= and drift=; draws nothing without them. */
static uint64_t read_noise(struct sim_state *s, uint64_t ns)
{
	double t = (double)ns;

	if (s->p.drift > 0)
		t *= drift_factor(s);
	if (s->p.jitter > 0)
		t *= 1.0 + s->p.jitter * heavy_tail(s);
	return t >= 0x1p64 ? UINT64_MAX : (uint64_t)(t + 0.5);
}

/*
 * bytes * 1e9 / rate, rounded, without a 128-bit type (32-bit targets
 * have none): split bytes into whole seconds' worth and a remainder below
 * rate, whose product with 1e9 fits 64 bits while rate < 2^34 (16 GiB/s).
 * Faster rates, which no card has, lose precision but not magnitude.
 */
static uint64_t transfer_ns(uint64_t bytes, uint64_t rate)
{
	const uint64_t ns_per_s = 1000000000U;
	uint64_t seconds = bytes / rate, rest = bytes % rate;

	if (seconds > UINT64_MAX / ns_per_s)
		return UINT64_MAX;
	if (rate >= (1ULL << 34))
		return seconds * ns_per_s +
		       (uint64_t)((double)rest * 1e9 / (double)rate + 0.5);
	return seconds * ns_per_s + (rest * ns_per_s + rate / 2) / rate;
}

/* How many units of the given size [offset, offset + length) touches. */
static uint64_t touched(uint64_t offset, uint64_t length,
			      uint64_t unit)
{
	return (offset + length - 1) / unit - offset / unit + 1;
}

/*
 * slow=: the bytes of [offset, offset + length) inside a slow range move
 * at its rate instead of rate: what that changes in an operation's time
 * t, which holds their transfer at rate.
 */
static uint64_t slow_ns(const struct sim_params *p, uint64_t offset,
			uint64_t length, uint64_t rate, uint64_t t)
{
	const struct sim_range op = { offset, length };

	for (unsigned int i = 0; i < p->nslow; i++) {
		const struct sim_slow *slow = &p->slow[i];
		uint64_t start, end, inside;

		if (!sim_ranges_overlap(&op, &slow->range))
			continue;
		start = offset > slow->range.offset ? offset :
						      slow->range.offset;
		end = slow->range.offset + slow->range.length;
		if (offset + length < end)
			end = offset + length;
		inside = end - start;
		t = t - transfer_ns(inside, rate) +
		    transfer_ns(inside, slow->rate);
	}
	return t;
}

/* -EIO for a range outside the card or touching a bad= range. */
int sim_model_check_io(const struct sim_params *p, uint64_t offset,
		       uint64_t length)
{
	const struct sim_range op = { offset, length };

	if (!length || offset > p->size_bytes ||
	    length > p->size_bytes - offset)
		return -EIO;
	for (unsigned int i = 0; i < p->nbad; i++)
		if (sim_ranges_overlap(&op, &p->bad[i]))
			return -EIO;
	return 0;
}

static struct sim_block *find_block(struct sim_state *s, uint64_t index)
{
	for (unsigned int i = 0; i < s->nopen; i++)
		if (s->blocks[i].index == index)
			return &s->blocks[i];
	return NULL;
}

/* Least recently written open block (of the out-of-order set only). */
static struct sim_block *lru_block(struct sim_state *s, bool random_only)
{
	struct sim_block *lru = NULL;

	for (unsigned int i = 0; i < s->nopen; i++) {
		struct sim_block *b = &s->blocks[i];

		if (random_only && !b->random)
			continue;
		if (!lru || b->used < lru->used)
			lru = b;
	}
	return lru;
}

/* Forget b; the last entry moves into its slot. */
static void close_block(struct sim_state *s, struct sim_block *b)
{
	if (b->random)
		s->nrandom--;
	*b = s->blocks[--s->nopen];
}

static uint64_t block_bytes(const struct sim_params *p, uint64_t index)
{
	uint64_t left = p->size_bytes - index * p->erase_bytes;

	return left < p->erase_bytes ? left : p->erase_bytes;
}

/*
 * The entry for erase block index in a table of at most max entries,
 * taking over the least recently used one when it is full: *taken says
 * whether one was, *old gets what it held.  The caller fills a new entry
 * in.
 */
static struct sim_block *lookup(struct sim_block *table, unsigned int *n,
				uint64_t max, uint64_t index, bool *taken,
				struct sim_block *old)
{
	struct sim_block *lru = NULL;

	*taken = false;
	for (unsigned int i = 0; i < *n; i++) {
		if (table[i].index == index)
			return &table[i];
		if (!lru || table[i].used < lru->used)
			lru = &table[i];
	}
	if (*n < max) {
		lru = &table[(*n)++];
		*lru = (struct sim_block){ .index = index };
		return lru;
	}
	*taken = true;
	*old = *lru;
	*lru = (struct sim_block){ .index = index };
	return lru;
}

/* lookup() without caring what it displaced. */
static struct sim_block *slot(struct sim_block *table, unsigned int *n,
			      uint64_t max, uint64_t index)
{
	struct sim_block old;
	bool taken;

	return lookup(table, n, max, index, &taken, &old);
}

/* Time to copy bytes inside the card: copy-rate, or free without it. */
static uint64_t copy_ns(const struct sim_params *p, uint64_t bytes)
{
	return p->copy_rate ? transfer_ns(bytes, p->copy_rate) : 0;
}

/* Does offset start a granule (or the block)?  Without granule=, 0 only. */
static bool granule_start(const struct sim_params *p, uint64_t offset)
{
	return offset == 0 ||
	       (p->granule_bytes && offset % p->granule_bytes == 0);
}

/* Does mark end a granule (or the block)?  Without granule=, the block. */
static bool granule_end(const struct sim_params *p, uint64_t index,
			uint64_t mark)
{
	return mark == block_bytes(p, index) || granule_start(p, mark);
}

/*
 * Written in order from the start of a granule (or of the block) to the
 * end of one: it holds nothing old that a close would have to copy.
 */
static bool complete(const struct sim_params *p, const struct sim_block *b)
{
	return !b->gaps && !b->random && granule_start(p, b->base_bytes) &&
	       granule_end(p, b->index, b->pos_bytes);
}

/*
 * Move b's mark past a write of [start, end).  The first write sets where
 * b's run begins; a later one above the mark leaves old data in between
 * unless it starts a granule.
 */
static void advance(const struct sim_params *p, struct sim_block *b,
		    uint64_t start, uint64_t end)
{
	if (b->pos_bytes == 0)
		b->base_bytes = start;
	else if (!b->random && start > b->pos_bytes && !granule_start(p, start))
		b->gaps = true;
	if (end > b->pos_bytes)
		b->pos_bytes = end;
}

/*
 * Close b to free its slot.  A complete block closes for free.  Any other
 * costs gc plus a copy from the old block at copy-rate: of what its one
 * in-order run did not write, or of the whole block when it has gaps or
 * took writes out of order.
 */
static uint64_t evict(struct sim_state *s, struct sim_block *b)
{
	uint64_t ns = 0, copy_bytes = block_bytes(&s->p, b->index);

	if (!complete(&s->p, b)) {
		if (!b->gaps && !b->random)
			copy_bytes -= b->pos_bytes - b->base_bytes;
		ns = s->p.gc_ns + copy_ns(&s->p, copy_bytes);
		count_gc(s, copy_bytes, ns);
		if (s->p.spill)
			*slot(s->spilled, &s->nspilled, s->p.spill,
			      b->index) = *b;
	}
	s->stats.closed++;
	close_block(s, b);
	return ns;
}

/*
 * With spill=, a card whose open slots are all in use keeps them while
 * they are in use: the least recently written one was written within the
 * last open + spill writes.  A write to another block then spills.  A
 * block a sequential stream wrote through is done with, not in use.
 */
static bool spills(struct sim_state *s)
{
	const struct sim_block *lru;

	if (!s->p.spill || s->nopen < s->p.open)
		return false;
	lru = lru_block(s, false);
	if (lru->streamed && complete(&s->p, lru))
		return false;
	return lru->used + s->p.open + s->p.spill > s->tick;
}

/* Open an erased block for writing, closing the LRU one if need be. */
static struct sim_block *open_block(struct sim_state *s, uint64_t index,
				    uint64_t *gc_ns)
{
	struct sim_block *b;

	if (s->nopen == s->p.open)
		*gc_ns += evict(s, lru_block(s, false));
	b = &s->blocks[s->nopen++];
	*b = (struct sim_block){ .index = index };
	s->stats.opened++;
	return b;
}

/*
 * Consolidate b: its data is copied into a fresh block (gc), which the
 * card keeps open for appends above b's high-water mark.
 */
static uint64_t consolidate(struct sim_state *s, struct sim_block *b)
{
	if (b->random)
		s->nrandom--;
	b->random = false;
	b->gaps = true;
	count_gc(s, b->pos_bytes, s->p.gc_ns);
	return s->p.gc_ns;
}

/* An out-of-order write into b: it joins the out-of-order set. */
static uint64_t go_random(struct sim_state *s, struct sim_block *b)
{
	uint64_t gc_ns = 0;

	if (s->p.open_random == 0)
		return consolidate(s, b);
	if (s->nrandom == s->p.open_random)
		gc_ns = consolidate(s, lru_block(s, true));
	b->random = true;
	s->nrandom++;
	return gc_ns;
}

/*
 * A small spilled write for erase block index, ending at end, goes to the
 * small-write cache, which combines the spilled writes of cache-blocks
 * erase blocks.  One for a block it does not hold flushes the least
 * recently used one, as an eviction would: gc plus the rest of that block
 * at copy-rate.
 */
static uint64_t cache_write(struct sim_state *s, uint64_t index,
			    uint64_t end)
{
	struct sim_block *c, old;
	bool flushed;
	uint64_t ns = 0;

	if (!s->p.cache_blocks)
		return 0;
	c = lookup(s->cached, &s->ncached, s->p.cache_blocks, index,
		   &flushed, &old);
	if (flushed) {
		uint64_t rest = block_bytes(&s->p, old.index) - old.pos_bytes;

		ns = s->p.gc_ns + copy_ns(&s->p, rest);
		count_gc(s, rest, ns);
	}
	c->used = s->tick;
	c->pos_bytes = end;
	return ns;
}

/*
 * Is a write at start, below mark, out of order?  With granule=, one that
 * starts a granule is not: the card maps the block in granules.
 */
static bool out_of_order(const struct sim_params *p, uint64_t mark,
			 uint64_t start)
{
	if (start >= mark)
		return false;
	return !p->granule_bytes || start % p->granule_bytes;
}

/*
 * A write to a block that is not open, while the open ones are in use,
 * spills when it is in order for that block (spilled blocks keep a mark
 * too), small, or on a card whose open blocks all take any order: its
 * bytes past the first spill-buffer cost again at spill-rate, or a small
 * one goes to the cache for cache-lat.  Returns false when it cannot
 * spill.
 */
static bool spill(struct sim_state *s, uint64_t index, uint64_t start,
		  uint64_t end, bool small, uint64_t *ns)
{
	bool any_order = s->p.open_random == s->p.open;
	struct sim_block *b;

	if (!spills(s))
		return false;
	b = slot(s->spilled, &s->nspilled, s->p.spill, index);
	if (start < b->pos_bytes && complete(&s->p, b))
		b->pos_bytes = 0;
	else if (!small && !any_order &&
		 out_of_order(&s->p, b->pos_bytes, start))
		return false;
	advance(&s->p, b, start, end);
	b->used = s->tick;
	s->stats.spilled++;
	if (small)
		*ns += s->p.cache_lat_ns + cache_write(s, index, end);
	else if (s->p.spill_rate && end - start > s->p.spill_buffer_bytes)
		*ns += transfer_ns(end - start - s->p.spill_buffer_bytes,
				   s->p.spill_rate);
	return true;
}

/* Take index off the spilled list: it is about to be opened. */
static void unspill(struct sim_state *s, uint64_t index)
{
	for (unsigned int i = 0; i < s->nspilled; i++)
		if (s->spilled[i].index == index) {
			s->spilled[i] = s->spilled[--s->nspilled];
			return;
		}
}

/*
 * What writing [start, end) inside erase block index costs on top of its
 * transfer: gc, spills, the cache.  A block written in order from its
 * start through to its end holds nothing old: writing it again from lower
 * down starts it over at no cost.  A small write out of order in an open
 * block is absorbed by the cache for cache-lat instead of consolidating.
 * A write that goes on from where the one before ended (stream) never
 * spills: the card sees one sequential stream and gives it a fresh block,
 * closing the least recently written one, so whole erase blocks written
 * one after the other run at the rate of one block written alone.
 */
static uint64_t write_block(struct sim_state *s, uint64_t index,
			    uint64_t start, uint64_t end, bool stream)
{
	const struct sim_params *p = &s->p;
	bool small = p->cache_bytes && end - start <= p->cache_bytes;
	struct sim_block *b;
	uint64_t gc_ns = 0;

	if (index < p->fat)
		return 0;
	s->tick++;
	b = find_block(s, index);
	/* cache-any: a page-mapped log takes small writes anywhere */
	if (!b && small && p->cache_any)
		return p->cache_lat_ns + cache_write(s, index, end);
	if (!b && !stream && spill(s, index, start, end, small, &gc_ns))
		return gc_ns;
	if (!b) {
		if (p->spill)
			unspill(s, index);
		b = open_block(s, index, &gc_ns);
	}
	b->used = s->tick;
	if (!b->random && start < b->pos_bytes && complete(p, b))
		b->pos_bytes = 0;
	else if (!b->random && out_of_order(p, b->pos_bytes, start))
		gc_ns += small ? p->cache_lat_ns : go_random(s, b);
	advance(p, b, start, end);
	b->streamed = stream;
	return gc_ns;
}

/*
 * --- the SLC write cache (slc=) ------------------------------------------
 *
 * Today's cards take their first writes into a part of their flash run as
 * SLC, one bit a cell, fast: a write's bytes go there at slc's rate while
 * the cache has room, the rest at write-rate, the card's native rate.  The
 * card folds the cache into its native cells while it takes no writes -
 * while it reads, discards or idles - at slc-fold bytes/s, so after a
 * pause the burst comes back.  Only a count of the bytes it holds is kept.
 */
static uint64_t slc_rate(const struct sim_params *p)
{
	if (p->slc_rate)
		return p->slc_rate;
	return p->write_rate < UINT64_MAX / SIM_SLC_RATE_FACTOR ?
	       p->write_rate * SIM_SLC_RATE_FACTOR : UINT64_MAX;
}

/* The bytes the card folds in ns at slc-fold (write-rate by default). */
static uint64_t fold_bytes(const struct sim_params *p, uint64_t ns)
{
	const uint64_t ns_per_s = 1000000000U;
	uint64_t rate = p->slc_fold_rate ? p->slc_fold_rate : p->write_rate;
	double rest = (double)(ns % ns_per_s) * (double)rate / 1e9;

	if (ns / ns_per_s > UINT64_MAX / rate)
		return UINT64_MAX;
	return ns / ns_per_s * rate + (uint64_t)rest;
}

/* ns in which the card took no writes: it folds the cache meanwhile. */
static void slc_fold(struct sim_state *s, uint64_t ns)
{
	uint64_t folded = fold_bytes(&s->p, ns);

	if (!s->slc_held_bytes)
		return;
	folded = folded < s->slc_held_bytes ? folded : s->slc_held_bytes;
	s->slc_held_bytes -= folded;
}

/*
 * A write that programs units_bytes (whole program units), whose transfer
 * at write-rate is in t: the bytes the cache has room for are programmed
 * there, at its rate, instead.
 */
static uint64_t slc_write_ns(struct sim_state *s, uint64_t units_bytes,
			     uint64_t t)
{
	const struct sim_params *p = &s->p;
	uint64_t room = p->slc_bytes - s->slc_held_bytes;
	uint64_t taken = units_bytes < room ? units_bytes : room;
	uint64_t native_ns = transfer_ns(taken, p->write_rate);

	if (!taken)
		return t;
	s->slc_held_bytes += taken;
	/* a slow= range's rate, faster than write-rate, took less */
	return (t > native_ns ? t - native_ns : 0) +
	       transfer_ns(taken, slc_rate(p));
}

void sim_model_idle(struct sim_state *s, uint64_t ns)
{
	slc_fold(s, ns);
}

/* What the staircase adds to a read of [offset, offset + length). */
static uint64_t crossing_ns(const struct sim_params *p, uint64_t offset,
			    uint64_t length)
{
	uint64_t t = 0;

	if (p->ncross == 0)
		return (touched(offset, length, p->page_bytes) - 1) *
		       p->page_cross_ns +
		       (touched(offset, length, p->erase_bytes) - 1) *
		       p->au_cross_ns;
	for (unsigned int i = 0; i < p->ncross; i++)
		t += (touched(offset, length, p->cross[i].size_bytes) - 1) *
		     p->cross[i].cost_ns;
	return t;
}

/* pace=: the operation also takes this long on the wall clock. */
static void pace(const struct sim_params *p)
{
	struct timespec left = {
		.tv_sec = (time_t)(p->pace_ns / 1000000000U),
		.tv_nsec = (long)(p->pace_ns % 1000000000U),
	};

	/* a signal cuts the sleep short: the run stops sooner, not later */
	if (p->pace_ns)
		nanosleep(&left, NULL);
}

/*
 * A read of the range is done: read-lat + length / read-rate + the
 * staircase, with its noise; counted.
 */
uint64_t sim_model_read(struct sim_state *s, uint64_t offset,
			uint64_t length)
{
	const struct sim_params *p = &s->p;
	uint64_t t = p->read_lat_ns + transfer_ns(length, p->read_rate) +
		     crossing_ns(p, offset, length);
	uint64_t ns = jitter(s, read_noise(s, slow_ns(p, offset, length,
						     p->read_rate, t)));

	count_op(&s->stats.reads, &s->stats.bytes_read, length, s, ns);
	slc_fold(s, ns);
	pace(p);
	return ns;
}

/*
 * write-lat + whole prog units / write-rate (the SLC cache's bytes at its
 * rate) + gc for each eviction
 */
static uint64_t card_write_ns(struct sim_state *s, uint64_t offset,
			      uint64_t length)
{
	const struct sim_params *p = &s->p;
	uint64_t units_bytes = touched(offset, length, p->prog_bytes) *
			       p->prog_bytes;
	uint64_t t, pos, end = offset + length;

	t = p->write_lat_ns + transfer_ns(units_bytes, p->write_rate);
	if (p->buffer_bytes && length > p->buffer_bytes)
		t += transfer_ns(length - p->buffer_bytes, p->write_rate);
	t = slow_ns(p, offset, length, p->write_rate, t);
	if (p->slc_bytes)
		t = slc_write_ns(s, units_bytes, t);
	for (pos = offset; pos < end; ) {
		uint64_t index = pos / p->erase_bytes;
		uint64_t base = index * p->erase_bytes;
		uint64_t stop = end - base < p->erase_bytes ?
				end - base : p->erase_bytes;

		/* from where the last write ended, or inside this one */
		bool stream = pos != offset || offset == s->last_end_bytes;

		t += write_block(s, index, pos - base, stop, stream);
		if (index != s->last_index) {
			t += p->switch_ns;
			s->stats.switches++;
		}
		s->last_index = index;
		pos = base + stop;
	}
	s->last_end_bytes = end;
	return t;
}

/*
 * --- the reader's write cache (reader-cache=) -------------------------
 *
 * A reader in front of the card takes writes into its RAM for reader-lat
 * plus their bytes at reader-rate (read-rate without it), as long as they
 * fit in reader-cache bytes.  The write that does not fit first waits
 * while the reader writes everything it holds to the card, in the order
 * it came, each write costing what the card's model says; a write larger
 * than the whole cache goes to the card straight after that.  So a test
 * that writes less than the cache never meets the card's limits, and a
 * long one meets them on average.  Writes that continue the one before
 * are kept as one; a full list of writes flushes like a full cache.
 */
#define SIM_READER_WRITES	4096

struct sim_reader {
	uint64_t held_bytes;
	unsigned int nheld;
	struct sim_range held[SIM_READER_WRITES];
};

/* Everything the reader holds goes to the card. */
static uint64_t reader_flush(struct sim_state *s)
{
	struct sim_reader *r = s->reader;
	uint64_t t = 0;

	for (unsigned int i = 0; i < r->nheld; i++)
		t += card_write_ns(s, r->held[i].offset, r->held[i].length);
	r->nheld = 0;
	r->held_bytes = 0;
	return t;
}

static uint64_t reader_write_ns(struct sim_state *s, uint64_t offset,
				uint64_t length)
{
	const struct sim_params *p = &s->p;
	struct sim_reader *r = s->reader;
	struct sim_range *last = r->nheld ? &r->held[r->nheld - 1] : NULL;
	bool continues = last && last->offset + last->length == offset;
	uint64_t t = 0;

	if (length > p->reader_cache_bytes)
		return reader_flush(s) + card_write_ns(s, offset, length);
	if (r->held_bytes + length > p->reader_cache_bytes ||
	    (!continues && r->nheld == SIM_READER_WRITES)) {
		t = reader_flush(s);
		continues = false;
	}
	if (continues)
		r->held[r->nheld - 1].length += length;
	else
		r->held[r->nheld++] = (struct sim_range){ offset, length };
	r->held_bytes += length;
	return t + p->reader_lat_ns +
	       transfer_ns(length, p->reader_rate ? p->reader_rate :
						    p->read_rate);
}

/* What a write takes: the reader's cache when there is one, else the card. */
static uint64_t write_ns(struct sim_state *s, uint64_t offset,
			 uint64_t length)
{
	return s->reader ? reader_write_ns(s, offset, length) :
			   card_write_ns(s, offset, length);
}

/* A write of the range is done: its time, with noise; counted. */
uint64_t sim_model_write(struct sim_state *s, uint64_t offset,
			 uint64_t length)
{
	uint64_t ns = jitter(s, write_ns(s, offset, length));

	count_op(&s->stats.writes, &s->stats.bytes_written, length, s, ns);
	pace(&s->p);
	return ns;
}

/*
 * A flush of bytes the card held in its volatile cache (volatile=): they
 * are programmed at write-rate after one write-lat; nothing to program,
 * no time.  Counted as busy time.
 */
uint64_t sim_model_flush(struct sim_state *s, uint64_t bytes)
{
	uint64_t ns;

	if (!bytes)
		return 0;
	ns = s->p.write_lat_ns + transfer_ns(bytes, s->p.write_rate);
	s->stats.busy_ns += ns;
	pace(&s->p);
	return ns;
}

/*
 * Whole erase blocks in the range return to the erased state (closed, at
 * no cost); partial ones are left alone.  Costs one write-lat, after the
 * reader (reader-cache=) has written what it holds.
 */
uint64_t sim_model_discard(struct sim_state *s, uint64_t offset,
			   uint64_t length)
{
	const struct sim_params *p = &s->p;
	uint64_t end = offset + length, first, last, ns;
	/* the reader writes what it holds before it passes a discard on */
	uint64_t flush_ns = s->reader ? reader_flush(s) : 0;

	first = (offset + p->erase_bytes - 1) / p->erase_bytes;
	last = end == p->size_bytes ? sim_block_count(p) :
				      end / p->erase_bytes;
	for (unsigned int i = 0; i < s->nopen; ) {
		if (s->blocks[i].index >= first && s->blocks[i].index < last) {
			s->stats.closed++;
			close_block(s, &s->blocks[i]);
		}
		else
			i++;
	}
	ns = jitter(s, flush_ns + p->write_lat_ns);
	count_op(&s->stats.discards, &s->stats.bytes_discarded, length, s, ns);
	slc_fold(s, ns);
	pace(p);
	return ns;
}

struct sim_state *sim_model_new(const struct sim_params *p)
{
	/* each count at most SIM_MAX_OPEN */
	struct sim_state *s = calloc(1, sizeof(*s) +
				     (size_t)(p->open + p->cache_blocks +
					      p->spill) * sizeof(s->blocks[0]));

	if (!s)
		return NULL;
	s->p = *p;
	s->last_index = UINT64_MAX;
	s->last_end_bytes = UINT64_MAX;
	s->cached = s->blocks + p->open;
	s->spilled = s->cached + p->cache_blocks;
	s->rng = p->seed;
	if (p->reader_cache_bytes) {
		s->reader = calloc(1, sizeof(*s->reader));
		if (!s->reader) {
			free(s);
			return NULL;
		}
	}
	return s;
}

void sim_model_free(struct sim_state *s)
{
	if (s)
		free(s->reader);
	free(s);
}
