/*
 * The simulated card's power and what a power cut does to it.
 *
 * The card's clock is the sum of its operations' times.  A cut armed
 * after_ns ahead (sim_power_cut) falls inside the operation that would
 * run the clock past it: that operation is torn and fails with EIO, and
 * so does every later one until the power comes back (sim_power_on).
 * A torn write keeps the sectors programmed before the cut, whole 4 KiB
 * units of them (what a file system writes as one block), or with
 * cut-shorn=P, with probability P, a few 512-byte sectors into the next
 * unit: a shorn write.
 *
 * volatile=SIZE: acknowledged writes wait in a cache of SIZE bytes, in
 * the order they came, and reads see them; the oldest go to the store
 * (are made durable) when a write needs room, a write larger than the
 * cache goes to the store at once, after what the cache held.  flush=
 * says what a flush does: honest programs the cache (its bytes at
 * write-rate), ignore does nothing, late:MS returns at once and the
 * cache's writes become durable MS later on the card's clock.  A cut
 * loses whatever is not durable yet.
 *
 * At a cut, after the cache is lost: cut-map=N forgets a seeded subset
 * of the last N durable writes (their ranges read as before them: the
 * mapping table rolled back, not in order), always keeping the newest
 * and forgetting only writes a flush separates from it (or none, when
 * nothing was flushed since), and some forgotten ones read back another
 * of those writes' bytes (a flying write); cut-damage=P turns each page of the erase block last
 * programmed that lies before the write programmed there (programmed
 * earlier, as NAND fills a block) into garbage with probability P;
 * cut-dead=P, with probability P, keeps the card from coming back.
 *
 * All of it is drawn from a generator of its own started at seed=, so a
 * run repeats and the timing model's draws are untouched.  Memory: the
 * cache's SIZE bytes and a record per 512 bytes of it, allocated when
 * the card opens; for cut-map= the old contents of the last N durable
 * writes, buffers reused; cut-damage= keeps only where the last one was.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engines/sim/card.h"
#include "engines/sim/fake.h"
#include "engines/sim/model.h"
#include "engines/sim/power.h"

#define UNIT_BYTES	4096ULL		/* a file system's block */
#define NOT_FLUSHED	UINT64_MAX	/* a cached write no flush covers */

/*
 * A write the host made: in the volatile cache, its bytes at ring offset
 * at.  Its epoch is the number of flushes the host had made before it:
 * a flush that came after it has a number of its own.
 */
struct cached_write {
	uint64_t offset, length;
	uint64_t at;
	uint64_t durable_ns;	/* flush=late: durable from then on */
	uint64_t epoch;
};

/* A durable write cut-map= may forget, and what its range held before. */
struct undo {
	uint64_t offset, length;
	uint64_t epoch;		/* the host's write's (cached_write) */
	unsigned char *prior;	/* length bytes, when saved */
	size_t cap;
	bool saved;		/* prior holds them: it can be forgotten */
	bool torn;		/* the write the cut fell in: kept */
	bool candidate;		/* at the cut: one it may forget */
	bool kept;		/* decided at the cut */
};

struct sim_power {
	bool off, dead, armed;
	bool tearing;		/* the write the cut fell in is being kept */
	uint64_t clock_ns;	/* the card's clock */
	uint64_t flushes;	/* the host's, whatever the card did */
	uint64_t cut_ns;	/* armed: when the power fails */
	uint64_t rng;		/* splitmix64, from seed= */
	/* volatile=: a ring of ring_bytes, used_bytes of it from head */
	unsigned char *ring;
	uint64_t ring_bytes, head, used_bytes;
	struct cached_write *writes;	/* a ring of nwrites from first */
	size_t writes_cap, first, nwrites;
	/* cut-map=: the last durable writes, the newest before undo_next */
	struct undo *undo;
	size_t undo_cap, undo_next, nundo;
	/* cut-damage=: the last durable write */
	bool programmed;
	uint64_t prog_offset, prog_length;
};

static uint64_t next_random(struct sim_power *pw)
{
	uint64_t z = (pw->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Does an event of probability p happen?  Draws nothing for p = 0. */
static bool happens(struct sim_power *pw, double p)
{
	return p > 0 && (double)(next_random(pw) >> 11) * 0x1.0p-53 < p;
}

int sim_power_open(const struct sim_params *p, struct sim_power **out)
{
	struct sim_power *pw = calloc(1, sizeof(*pw));

	*out = NULL;
	if (!pw)
		return -ENOMEM;
	/* its own stream: the timing model's draws stay as they were */
	pw->rng = p->seed ^ 0x706f7765722d6375ULL;
	pw->ring_bytes = p->volatile_bytes;	/* at most 256 MiB */
	pw->writes_cap = (size_t)(p->volatile_bytes / SIM_SECTOR);
	pw->undo_cap = p->cut_map ? (size_t)p->cut_map + 1 : 0;
	if (pw->ring_bytes) {
		pw->ring = malloc((size_t)pw->ring_bytes);
		pw->writes = calloc(pw->writes_cap, sizeof(*pw->writes));
	}
	if (pw->undo_cap)
		pw->undo = calloc(pw->undo_cap, sizeof(*pw->undo));
	if ((pw->ring_bytes && (!pw->ring || !pw->writes)) ||
	    (pw->undo_cap && !pw->undo)) {
		sim_power_close(pw);
		return -ENOMEM;
	}
	*out = pw;
	return 0;
}

void sim_power_close(struct sim_power *pw)
{
	if (!pw)
		return;
	for (size_t i = 0; i < pw->undo_cap && pw->undo; i++)
		free(pw->undo[i].prior);
	free(pw->undo);
	free(pw->ring);
	free(pw->writes);
	free(pw);
}

uint64_t sim_power_held(const struct sim_power *pw)
{
	uint64_t bytes = pw->ring_bytes +
			 (uint64_t)pw->writes_cap * sizeof(*pw->writes) +
			 (uint64_t)pw->undo_cap * sizeof(*pw->undo);

	for (size_t i = 0; i < pw->undo_cap; i++)
		bytes += pw->undo[i].cap;
	return bytes;
}

bool sim_power_plain(const struct sim_state *s)
{
	const struct sim_power *pw = s->power;

	return !sim_power_faults(&s->p) && !pw->off && !pw->armed;
}

/* --- durable writes: the store, and what a cut needs of them --------- */

/* The k-th newest remembered write (k < nundo). */
static struct undo *undo_at(const struct sim_power *pw, size_t k)
{
	return &pw->undo[(pw->undo_next + pw->undo_cap - 1 - k) %
			 pw->undo_cap];
}

/* cut-map=: what the range of write w holds before it. */
static int remember(struct sim_state *s, const struct cached_write *w,
		    bool torn)
{
	struct sim_power *pw = s->power;
	uint64_t offset = w->offset, length = w->length;
	struct undo *u;

	if (!pw->undo_cap)
		return 0;
	u = &pw->undo[pw->undo_next];
	pw->undo_next = (pw->undo_next + 1) % pw->undo_cap;
	if (pw->nundo < pw->undo_cap)
		pw->nundo++;
	u->offset = offset;
	u->length = length;
	u->epoch = w->epoch;
	u->torn = torn;
	u->saved = false;
	if (u->cap < length) {
		unsigned char *bigger = realloc(u->prior, (size_t)length);

		if (!bigger)
			return -ENOMEM;
		u->prior = bigger;
		u->cap = (size_t)length;
	}
	/* a counterfeit's sector that fails reads cannot be put back */
	u->saved = sim_fake_read(s->fake, u->prior, offset, length) == 0;
	return 0;
}

/*
 * Program write w into the store: its first a_bytes from a, the rest
 * from b (the ring's start, where a cached write wraps); torn, the part
 * of the write the cut fell in.
 */
static int durable_write(struct sim_state *s, const struct cached_write *w,
			 const unsigned char *a, uint64_t a_bytes,
			 const unsigned char *b, bool torn)
{
	struct sim_power *pw = s->power;
	int err;

	if (!s->fake)		/* a card that keeps no data */
		return 0;
	err = remember(s, w, torn);
	if (!err)
		err = sim_fake_write(s->fake, a, w->offset, a_bytes);
	if (!err && w->length > a_bytes)
		err = sim_fake_write(s->fake, b, w->offset + a_bytes,
				     w->length - a_bytes);
	if (err)
		return err;
	pw->programmed = true;
	pw->prog_offset = w->offset;
	pw->prog_length = w->length;
	return 0;
}

/* Straight to the store, without the cache. */
static int write_through(struct sim_state *s, const void *buf,
			 uint64_t offset, uint64_t length)
{
	struct cached_write w = { offset, length, 0, 0, s->power->flushes };

	return durable_write(s, &w, buf, length, NULL, s->power->tearing);
}

/* --- the volatile cache (volatile=, flush=) -------------------------- */

static void ring_in(struct sim_power *pw, uint64_t at, const void *src,
		    uint64_t length)
{
	uint64_t first = pw->ring_bytes - at < length ?
			 pw->ring_bytes - at : length;

	memcpy(pw->ring + at, src, (size_t)first);
	memcpy(pw->ring, (const unsigned char *)src + first,
	       (size_t)(length - first));
}

static void ring_out(const struct sim_power *pw, uint64_t at, void *dst,
		     uint64_t length)
{
	uint64_t first = pw->ring_bytes - at < length ?
			 pw->ring_bytes - at : length;

	memcpy(dst, pw->ring + at, (size_t)first);
	memcpy((unsigned char *)dst + first, pw->ring,
	       (size_t)(length - first));
}

/* The oldest cached write goes to the store; it stays on failure. */
static int evict_oldest(struct sim_state *s)
{
	struct sim_power *pw = s->power;
	const struct cached_write *w = &pw->writes[pw->first];
	uint64_t first = pw->ring_bytes - w->at < w->length ?
			 pw->ring_bytes - w->at : w->length;
	int err = durable_write(s, w, pw->ring + w->at, first, pw->ring,
				false);

	if (err)
		return err;
	pw->head = (pw->head + w->length) % pw->ring_bytes;
	pw->used_bytes -= w->length;
	pw->first = (pw->first + 1) % pw->writes_cap;
	pw->nwrites--;
	return 0;
}

static int evict_all(struct sim_state *s)
{
	int err = 0;

	while (!err && s->power->nwrites)
		err = evict_oldest(s);
	return err;
}

/* flush=late: the cached writes whose time has come are durable. */
static int settle(struct sim_state *s)
{
	struct sim_power *pw = s->power;
	int err = 0;

	while (!err && pw->nwrites &&
	       pw->writes[pw->first].durable_ns <= pw->clock_ns)
		err = evict_oldest(s);
	return err;
}

/* Into the cache, making room oldest first; past its size, through. */
static int cache_write(struct sim_state *s, const void *buf,
		       uint64_t offset, uint64_t length)
{
	struct sim_power *pw = s->power;
	uint64_t at;
	int err = 0;

	if (length > pw->ring_bytes) {
		err = evict_all(s);
		return err ? err : write_through(s, buf, offset, length);
	}
	while (!err && pw->used_bytes + length > pw->ring_bytes)
		err = evict_oldest(s);
	if (err)
		return err;
	/* each write is 512 bytes or more: writes_cap of them fill it */
	at = (pw->head + pw->used_bytes) % pw->ring_bytes;
	ring_in(pw, at, buf, length);
	pw->writes[(pw->first + pw->nwrites) % pw->writes_cap] =
		(struct cached_write){ offset, length, at, NOT_FLUSHED,
				       pw->flushes };
	pw->nwrites++;
	pw->used_bytes += length;
	return 0;
}

static int take_write(struct sim_state *s, const void *buf, uint64_t offset,
		      uint64_t length)
{
	return s->power->ring ? cache_write(s, buf, offset, length) :
				write_through(s, buf, offset, length);
}

/* A read: the store's bytes, the cached writes over them, oldest first. */
static int read_data(struct sim_state *s, unsigned char *buf,
		     uint64_t offset, uint64_t length)
{
	const struct sim_power *pw = s->power;
	uint64_t end = offset + length;
	int err = s->fake ? sim_fake_read(s->fake, buf, offset, length) : 0;

	for (size_t i = 0; !err && i < pw->nwrites; i++) {
		const struct cached_write *w =
			&pw->writes[(pw->first + i) % pw->writes_cap];
		uint64_t lo = w->offset > offset ? w->offset : offset;
		uint64_t hi = w->offset + w->length < end ?
			      w->offset + w->length : end;

		if (lo < hi)
			ring_out(pw, (w->at + (lo - w->offset)) %
				 pw->ring_bytes, buf + (lo - offset), hi - lo);
	}
	return err;
}

/* --- the cut ----------------------------------------------------------- */

/*
 * cut-map=: which of the last N durable writes the card forgets.  The
 * newest survives.  It may forget those that came before a flush that
 * came before the newest (a write after the flush that acknowledged them
 * survives them: unserializable), or when the host made no flush since
 * the newest, any before it (none of them acknowledged).  Each with
 * probability 1/2, and at least one where one may be.
 */
static void choose_forgotten(struct sim_state *s)
{
	struct sim_power *pw = s->power;
	const struct undo *newest = NULL;
	size_t window = 0, candidates = 0, forgotten = 0, pick;

	for (size_t k = 0; k < pw->nundo; k++) {
		struct undo *u = undo_at(pw, k);

		u->kept = true;
		u->candidate = false;
		if (u->torn || !u->saved || window == s->p.cut_map)
			continue;
		window++;
		if (!newest) {
			newest = u;
			continue;
		}
		if (u->epoch >= newest->epoch && pw->flushes != newest->epoch)
			continue;
		u->candidate = true;
		candidates++;
		if (happens(pw, 0.5)) {
			u->kept = false;
			forgotten++;
		}
	}
	if (forgotten || !candidates)
		return;
	pick = (size_t)(next_random(pw) % candidates);
	for (size_t k = 0; k < pw->nundo; k++) {
		struct undo *u = undo_at(pw, k);

		if (u->candidate && !pick--) {
			u->kept = false;
			return;
		}
	}
}

static bool overlap(const struct undo *a, const struct undo *b)
{
	return a->offset < b->offset + b->length &&
	       b->offset < a->offset + a->length;
}

/*
 * A forgotten write that the rolled-back table points at another
 * recent write's bytes (half of them, where one lies elsewhere): its
 * range reads back that write's data, which names another offset.  Read
 * before anything is put back.
 */
static void fly(struct sim_state *s, struct undo *u)
{
	struct sim_power *pw = s->power;
	size_t candidates = 0, pick;

	if (!happens(pw, 0.5))
		return;
	for (size_t k = 0; k < pw->nundo; k++)
		candidates += !overlap(undo_at(pw, k), u) &&
			      !undo_at(pw, k)->torn;
	if (!candidates)
		return;
	pick = (size_t)(next_random(pw) % candidates);
	for (size_t k = 0; k < pw->nundo; k++) {
		const struct undo *v = undo_at(pw, k);

		if (overlap(v, u) || v->torn || pick--)
			continue;
		sim_fake_read(s->fake, u->prior, v->offset,
			      v->length < u->length ? v->length : u->length);
		return;
	}
}

/*
 * The k-th newest write is forgotten: what its range held before goes
 * back, but not where a newer write the card kept lies over it.
 */
static void put_back(struct sim_state *s, size_t k)
{
	const struct sim_power *pw = s->power;
	const struct undo *u = undo_at(pw, k);
	uint64_t pos = u->offset, end = u->offset + u->length;

	while (pos < end) {
		uint64_t skip = pos, next = end;

		for (size_t j = 0; j < k; j++) {
			const struct undo *v = undo_at(pw, j);
			uint64_t v_end = v->offset + v->length;

			if (!v->kept)
				continue;
			if (v->offset <= pos && pos < v_end && v_end > skip)
				skip = v_end;
			else if (v->offset > pos && v->offset < next)
				next = v->offset;
		}
		if (skip > pos) {
			pos = skip < end ? skip : end;
			continue;
		}
		sim_fake_write(s->fake, u->prior + (pos - u->offset), pos,
			       next - pos);
		pos = next;
	}
}

/* cut-map=: the mapping table rolls back, not in order. */
static void forget(struct sim_state *s)
{
	struct sim_power *pw = s->power;

	choose_forgotten(s);
	for (size_t k = 0; k < pw->nundo; k++)
		if (!undo_at(pw, k)->kept)
			fly(s, undo_at(pw, k));
	for (size_t k = 0; k < pw->nundo; k++)
		if (!undo_at(pw, k)->kept)
			put_back(s, k);
}

/* Bytes no stamp and no write ever held: a page the cut garbled. */
static void garbage(struct sim_power *pw, unsigned char *sector)
{
	for (size_t i = 0; i < SIM_SECTOR; i += 8) {
		uint64_t z = next_random(pw);

		memcpy(sector + i, &z, 8);
	}
}

/*
 * cut-damage=: the erase block being programmed is the one the last
 * durable write ended in; each page before that write's start in it
 * (programmed earlier) is garbled with probability P.
 */
static void damage(struct sim_state *s)
{
	struct sim_power *pw = s->power;
	const struct sim_params *p = &s->p;
	unsigned char junk[SIM_SECTOR];
	uint64_t last, block, start;

	if (!pw->programmed || !s->fake)
		return;
	last = pw->prog_offset + pw->prog_length - SIM_SECTOR;
	block = last / p->erase_bytes * p->erase_bytes;
	start = pw->prog_offset > block ? pw->prog_offset : block;
	for (uint64_t page = block; page + p->page_bytes <= start;
	     page += p->page_bytes) {
		if (!happens(pw, p->cut_damage))
			continue;
		for (uint64_t at = 0; at < p->page_bytes; at += SIM_SECTOR) {
			garbage(pw, junk);
			sim_fake_write(s->fake, junk, page + at, SIM_SECTOR);
		}
	}
}

/*
 * The power fails now: what was due becomes durable, the faults strike,
 * the cache is lost.  A store that fails here (flashemu's, full) loses
 * what it could not take, as the card would.
 */
static void cut(struct sim_state *s)
{
	struct sim_power *pw = s->power;

	settle(s);
	if (s->p.cut_map && s->fake)
		forget(s);
	damage(s);
	pw->nwrites = 0;
	pw->used_bytes = 0;
	pw->head = 0;
	pw->dead = pw->dead || happens(pw, s->p.cut_dead);
	pw->off = true;
	pw->armed = false;
	pw->nundo = 0;
	pw->programmed = false;
}

/* Does the armed cut fall in an operation of t_ns starting now? */
static bool cut_within(const struct sim_power *pw, uint64_t t_ns)
{
	return pw->armed && t_ns && pw->cut_ns - pw->clock_ns <= t_ns;
}

/*
 * The bytes of a write programmed before the cut, done_ns into its t_ns:
 * whole units, and with cut-shorn= perhaps 1 to 7 sectors of the next.
 */
static uint64_t torn_bytes(struct sim_state *s, uint64_t offset,
			   uint64_t length, uint64_t done_ns, uint64_t t_ns)
{
	uint64_t sectors = length / SIM_SECTOR;
	uint64_t made = (uint64_t)((double)sectors * (double)done_ns /
				   (double)t_ns);
	uint64_t end = (offset + made * SIM_SECTOR) / UNIT_BYTES * UNIT_BYTES;
	uint64_t room, most = UNIT_BYTES / SIM_SECTOR - 1;

	if (end < offset)
		end = offset;
	room = (offset + length - end) / SIM_SECTOR;
	if (room > most)
		room = most;
	if (room && happens(s->power, s->p.cut_shorn))
		end += (1 + next_random(s->power) % room) * SIM_SECTOR;
	return end - offset;
}

/* The cut falls in this write: its first sectors land, then the cut. */
static int torn_write(struct sim_state *s, const void *buf, uint64_t offset,
		      uint64_t length, uint64_t t_ns)
{
	struct sim_power *pw = s->power;
	uint64_t keep = torn_bytes(s, offset, length,
				   pw->cut_ns - pw->clock_ns, t_ns);

	pw->clock_ns = pw->cut_ns;
	pw->tearing = true;
	if (keep)
		take_write(s, buf, offset, keep);
	pw->tearing = false;
	cut(s);
	return -EIO;
}

/* --- the operations ---------------------------------------------------- */

/* Each operation begins here: off, or what a late flush made due. */
static int begin(struct sim_state *s)
{
	return s->power->off ? -EIO : settle(s);
}

/* The operation of t_ns is done: the clock runs on. */
static int done(struct sim_power *pw, uint64_t t_ns, uint64_t *ns)
{
	pw->clock_ns += t_ns;
	*ns = t_ns;
	return 0;
}

/* The cut fell in an operation that leaves nothing behind. */
static int fail(struct sim_state *s)
{
	s->power->clock_ns = s->power->cut_ns;
	cut(s);
	return -EIO;
}

int sim_power_read(struct sim_state *s, void *buf, uint64_t offset,
		   uint64_t length, uint64_t *ns)
{
	int err = begin(s);
	uint64_t t;

	if (!err)
		err = read_data(s, buf, offset, length);
	if (err)
		return err;
	t = sim_model_read(s, offset, length);
	return cut_within(s->power, t) ? fail(s) : done(s->power, t, ns);
}

int sim_power_write(struct sim_state *s, const void *buf, uint64_t offset,
		    uint64_t length, uint64_t *ns)
{
	struct sim_power *pw = s->power;
	int err = begin(s);
	uint64_t t;

	if (err)
		return err;
	if (pw->armed) {	/* where the cut falls decides what lands */
		t = sim_model_write(s, offset, length);
		if (cut_within(pw, t))
			return torn_write(s, buf, offset, length, t);
		err = take_write(s, buf, offset, length);
		return err ? err : done(pw, t, ns);
	}
	err = take_write(s, buf, offset, length);
	if (err)
		return err;
	return done(pw, sim_model_write(s, offset, length), ns);
}

/*
 * A discard: the cache's writes go to the flash first (a card passes a
 * discard on after what it holds), and no write before it can be
 * forgotten any more.
 */
int sim_power_discard(struct sim_state *s, uint64_t offset, uint64_t length,
		      uint64_t *ns)
{
	struct sim_power *pw = s->power;
	int err = begin(s);
	uint64_t t;

	if (!err)
		err = evict_all(s);
	if (!err && s->fake)
		err = sim_fake_punch(s->fake, offset, length);
	if (err)
		return err;
	pw->nundo = 0;
	t = sim_model_discard(s, offset, length);
	return cut_within(pw, t) ? fail(s) : done(pw, t, ns);
}

/* flush=honest cut short: the writes programmed in the time it had. */
static int torn_flush(struct sim_state *s, uint64_t t_ns)
{
	struct sim_power *pw = s->power;
	uint64_t part = (uint64_t)((double)pw->used_bytes *
				   (double)(pw->cut_ns - pw->clock_ns) /
				   (double)t_ns);

	while (pw->nwrites && pw->writes[pw->first].length <= part) {
		part -= pw->writes[pw->first].length;
		if (evict_oldest(s))
			break;
	}
	return fail(s);
}

/* The clock after ns more; never NOT_FLUSHED's "never". */
static uint64_t late_ns(const struct sim_power *pw, uint64_t ns)
{
	return UINT64_MAX - 1 - pw->clock_ns < ns ? UINT64_MAX - 1 :
	       pw->clock_ns + ns;
}

static int flush_cache(struct sim_state *s, uint64_t *ns)
{
	struct sim_power *pw = s->power;
	int err = begin(s);
	uint64_t t;

	if (err)
		return err;
	if (!pw->ring || s->p.flush == SIM_FLUSH_IGNORE)
		return done(pw, 0, ns);
	if (s->p.flush == SIM_FLUSH_LATE) {
		for (size_t i = 0; i < pw->nwrites; i++) {
			struct cached_write *w =
				&pw->writes[(pw->first + i) % pw->writes_cap];

			if (w->durable_ns == NOT_FLUSHED)
				w->durable_ns = late_ns(pw, s->p.flush_late_ns);
		}
		return done(pw, 0, ns);
	}
	t = sim_model_flush(s, pw->used_bytes);
	if (cut_within(pw, t))
		return torn_flush(s, t);
	err = evict_all(s);
	return err ? err : done(pw, t, ns);
}

/* A flush the card acknowledged counts, whatever the card did with it. */
int sim_power_flush(struct sim_state *s, uint64_t *ns)
{
	int err = flush_cache(s, ns);

	if (!err)
		s->power->flushes++;
	return err;
}

int sim_power_cut(struct sim_state *s, uint64_t after_ns)
{
	struct sim_power *pw = s->power;

	if (pw->off)
		return 0;
	if (!after_ns) {
		cut(s);
		return 0;
	}
	pw->armed = true;
	pw->cut_ns = late_ns(pw, after_ns);
	return 0;
}

int sim_power_on(struct sim_state *s)
{
	struct sim_power *pw = s->power;

	if (pw->dead)
		return -ENODEV;
	pw->off = false;
	return 0;
}
