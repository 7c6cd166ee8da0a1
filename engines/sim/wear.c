/*
 * The simulated card wears (wear=CYCLES[:SPREAD], spare=N,
 * wear-eol=read-only|dead).
 *
 * Each erase block of the flash the card really has (fake=, or size)
 * takes a number of program/erase cycles, its endurance, drawn uniformly
 * between CYCLES x (1 - SPREAD) and CYCLES x (1 + SPREAD), rounded, at
 * least 1 (SPREAD 0.1 when not given), from seed= and the block's
 * number, so the same spec wears the same blocks at the same cycle.  A
 * cycle is a block's worth of sectors programmed into it, in any order:
 * a pass that writes every block once uses one cycle of each, whatever
 * the order of its chunks, and 4 KiB writes wear a block as fast as the
 * bytes they carry (the card's write amplification is left out).  The
 * first write of a cycle past the endurance finds the block worn.  A
 * spare block then takes its place (spare=, default 1% of the blocks,
 * rounded down): the host sees nothing, and the spare, with an endurance
 * drawn for it, wears on from there.  With no spare left the block
 * fails: by a draw of its own, writes to it fail with EIO (nothing of
 * such a write lands, and its sectors go on reading what they held), or
 * writes pass and every read of it comes back garbled - each sector's
 * first 24 bytes as they were, the rest a fixed pattern (card.h), so a
 * stamp's header still names it and its checksum fails.  With
 * wear-eol=, the first block that finds no spare ends the card instead:
 * read-only, every write (and discard) fails with EIO while reads go on,
 * or dead, every operation fails with EIO.
 *
 * Memory: 12 bytes per erase block, allocated when the card opens, and
 * nothing per write: stamps keep going to the store as runs, and the
 * store makes a garbled block's stamps from them without their filler
 * (sim_wear_garbled_bytes, the hook it is given).  Wear is counted where
 * the host's writes reach the card, before a volatile= cache.
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
#include "engines/sim/model.h"
#include "engines/sim/wear.h"

struct wear_block {
	uint32_t cycles;	/* begun on its flash (its own or a spare) */
	uint32_t sectors;	/* programmed in the cycle under way */
	uint16_t spares;	/* spare blocks taken, one after another */
	uint8_t fate;		/* enum sim_wear_fate */
};

struct sim_wear {
	uint64_t seed;
	uint64_t cycles;	/* wear=CYCLES */
	double spread;
	uint64_t erase_bytes, real_bytes;
	uint64_t nblocks;
	uint64_t spares_left, retired, worn;
	enum sim_wear_eol eol;
	enum sim_wear_end end;
	struct wear_block block[];
};

/* What a draw is for: each has a stream of its own. */
enum draw_kind { DRAW_ENDURANCE = 1, DRAW_FATE };

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A draw for block index's flash after spares spares, of kind. */
static uint64_t draw(const struct sim_wear *w, uint64_t index,
		     uint64_t spares, enum draw_kind kind)
{
	return mix64(w->seed ^ mix64(index * 0x9e3779b97f4a7c15ULL +
				     (spares << 8) + (uint64_t)kind));
}

/* The cycles block index's flash takes (its own, or its n-th spare's). */
static uint64_t endurance(const struct sim_wear *w, uint64_t index,
			  uint64_t spares)
{
	double u = (double)(draw(w, index, spares, DRAW_ENDURANCE) >> 11) *
		   0x1.0p-53;
	double e = (double)w->cycles * (1.0 + w->spread * (2.0 * u - 1.0));

	return e < 1.5 ? 1 : (uint64_t)(e + 0.5);
}

static enum sim_wear_fate fate_of(const struct sim_wear *w, uint64_t index,
				  uint64_t spares)
{
	return draw(w, index, spares, DRAW_FATE) & 1 ? SIM_WEAR_FAILS_WRITES :
						       SIM_WEAR_GARBLED;
}

static uint64_t block_sectors(const struct sim_wear *w, uint64_t index)
{
	uint64_t left = w->real_bytes - index * w->erase_bytes;

	return (left < w->erase_bytes ? left : w->erase_bytes) / SIM_SECTOR;
}

int sim_wear_open(const struct sim_params *p, struct sim_wear **out)
{
	uint64_t n = sim_real_block_count(p);
	struct sim_wear *w;

	*out = NULL;
	if (!sim_wears(p))
		return 0;
	/* at most SIM_MAX_WEAR_BLOCKS (spec.c): fits a 32-bit size_t */
	w = calloc(1, sizeof(*w) + (size_t)n * sizeof(w->block[0]));
	if (!w)
		return -ENOMEM;
	w->seed = p->seed ^ 0x7765617220656f6cULL;	/* its own stream */
	w->cycles = p->wear_cycles;
	w->spread = p->wear_spread;
	w->erase_bytes = p->erase_bytes;
	w->real_bytes = p->fake_bytes ? p->fake_bytes : p->size_bytes;
	w->nblocks = n;
	w->spares_left = p->spare_blocks;
	w->eol = p->wear_eol;
	*out = w;
	return 0;
}

void sim_wear_close(struct sim_wear *w)
{
	free(w);
}

/* --- the erase blocks an operation touches ---------------------------- */

/* Part of an operation inside one erase block of the real flash. */
struct span {
	uint64_t index;		/* the erase block */
	uint64_t real;		/* physical offset of its first byte */
	uint64_t at;		/* the offset the host named for it */
	uint64_t bytes;
};

typedef int (*span_fn)(const struct span *sp, void *ctx);

/*
 * fn for each span of [offset, offset + length) that lands on the flash,
 * where the fake store puts it (a wrapping fake's aliases wear the block
 * they land on; what a fake loses wears nothing).  The first nonzero
 * return of fn stops the walk and is returned.
 */
static int each_span(const struct sim_state *s, uint64_t offset,
		     uint64_t length, span_fn fn, void *ctx)
{
	uint64_t erase = s->wear->erase_bytes, end = offset + length;
	uint64_t pos, stop, real;
	enum sim_fake_fate fate;
	int err = 0;

	for (pos = offset; !err && pos < end; pos = stop) {
		stop = sim_fake_piece(s->fake, pos, end, &real, &fate);
		if (fate != SIM_FAKE_REAL && fate != SIM_FAKE_ALIASED)
			continue;
		for (uint64_t at = pos; !err && at < stop; ) {
			uint64_t r = real + (at - pos), index = r / erase;
			uint64_t to_end = (index + 1) * erase - r;
			uint64_t n = stop - at < to_end ? stop - at : to_end;
			struct span sp = { index, r, at, n };

			err = fn(&sp, ctx);
			at += n;
		}
	}
	return err;
}

/* --- writes --------------------------------------------------------------- */

/* Does a write of n sectors into b begin a cycle (an erase of it)? */
static bool begins_cycle(const struct sim_wear *w, uint64_t index,
			 const struct wear_block *b, uint64_t n)
{
	return b->sectors == 0 || b->sectors + n > block_sectors(w, index);
}

/*
 * Block index is past its endurance: a spare takes it over, fresh, or it
 * fails as its draw says - or, with wear-eol=, the card ends.
 */
static void wear_out(struct sim_wear *w, uint64_t index,
		     struct wear_block *b)
{
	if (w->spares_left && b->spares < UINT16_MAX) {
		w->spares_left--;
		w->retired++;
		b->spares++;
		b->cycles = 0;
		b->sectors = 0;
		return;
	}
	w->worn++;
	if (w->eol == SIM_EOL_READ_ONLY)
		w->end = SIM_WEAR_READ_ONLY;
	else if (w->eol == SIM_EOL_DEAD)
		w->end = SIM_WEAR_DEAD;
	else
		b->fate = (uint8_t)fate_of(w, index, b->spares);
}

/* The erase the write needs finds a block past its endurance worn. */
static int discover(const struct span *sp, void *ctx)
{
	struct sim_wear *w = ctx;
	struct wear_block *b = &w->block[sp->index];

	if (b->fate == SIM_WEAR_FINE && w->end == SIM_WEAR_WORKING &&
	    begins_cycle(w, sp->index, b, sp->bytes / SIM_SECTOR) &&
	    b->cycles >= endurance(w, sp->index, b->spares))
		wear_out(w, sp->index, b);
	return 0;
}

static int refuses(const struct span *sp, void *ctx)
{
	const struct sim_wear *w = ctx;

	return w->block[sp->index].fate == SIM_WEAR_FAILS_WRITES ? -EIO : 0;
}

/* The sectors programmed: a cycle begins when the last one was full. */
static int count(const struct span *sp, void *ctx)
{
	struct sim_wear *w = ctx;
	struct wear_block *b = &w->block[sp->index];
	uint64_t full = block_sectors(w, sp->index), n = sp->bytes / SIM_SECTOR;

	if (b->fate != SIM_WEAR_FINE)	/* garbled: nothing more to wear */
		return 0;
	while (n) {
		uint64_t take = full - b->sectors < n ? full - b->sectors : n;

		if (b->sectors == 0 && b->cycles < UINT32_MAX)
			b->cycles++;
		b->sectors += (uint32_t)take;
		n -= take;
		if (b->sectors == full)
			b->sectors = 0;
	}
	return 0;
}

int sim_wear_write(struct sim_state *s, uint64_t offset, uint64_t length)
{
	struct sim_wear *w = s->wear;

	if (!w)
		return 0;
	if (w->end == SIM_WEAR_WORKING)
		each_span(s, offset, length, discover, w);
	if (w->end != SIM_WEAR_WORKING ||
	    (w->worn && each_span(s, offset, length, refuses, w)))
		return -EIO;
	each_span(s, offset, length, count, w);
	return 0;
}

/* --- reads and the rest --------------------------------------------------- */

int sim_wear_alive(const struct sim_state *s)
{
	return s->wear && s->wear->end == SIM_WEAR_DEAD ? -EIO : 0;
}

int sim_wear_writable(const struct sim_state *s)
{
	return s->wear && s->wear->end != SIM_WEAR_WORKING ? -EIO : 0;
}

/* A read: the card's wear, and where its bytes land (garble_span). */
struct read_buffer {
	const struct sim_wear *w;
	unsigned char *buf;
	uint64_t offset;
};

static int garbled(const struct span *sp, void *ctx)
{
	const struct read_buffer *rb = ctx;

	return rb->w->block[sp->index].fate == SIM_WEAR_GARBLED;
}

bool sim_wear_clean(const struct sim_state *s, uint64_t offset,
		    uint64_t length)
{
	struct read_buffer rb = { s->wear, NULL, offset };

	return !s->wear || !s->wear->worn ||
	       !each_span(s, offset, length, garbled, &rb);
}

/* Each sector of a garbled block, the same on every read. */
static int garble_span(const struct span *sp, void *ctx)
{
	const struct read_buffer *rb = ctx;
	unsigned char *out = rb->buf + (sp->at - rb->offset);

	if (rb->w->block[sp->index].fate != SIM_WEAR_GARBLED)
		return 0;
	for (uint64_t at = 0; at + SIM_SECTOR <= sp->bytes; at += SIM_SECTOR)
		sim_garble_sector(out + at);
	return 0;
}

void sim_wear_garble(const struct sim_state *s, void *buf, uint64_t offset,
		     uint64_t length)
{
	struct read_buffer rb = { s->wear, buf, offset };

	if (s->wear && s->wear->worn && buf)
		each_span(s, offset, length, garble_span, &rb);
}

uint64_t sim_wear_garbled_bytes(const void *ctx, uint64_t real,
				uint64_t max)
{
	const struct sim_wear *w = ctx;
	uint64_t index = real / w->erase_bytes;
	uint64_t to_end = (index + 1) * w->erase_bytes - real;

	if (!w->worn || index >= w->nblocks ||
	    w->block[index].fate != SIM_WEAR_GARBLED)
		return 0;
	return max < to_end ? max : to_end;
}

void sim_wear_stats(const struct sim_wear *w, struct sim_stats *out)
{
	if (!w)
		return;
	out->retired_blocks = w->retired;
	out->worn_blocks = w->worn;
	out->spares_left = w->spares_left;
	out->wear_end = w->end;
	out->held_bytes += sizeof(*w) + w->nblocks * sizeof(w->block[0]);
}

int sim_wear_at(const struct sim_wear *w, uint64_t real,
		struct sim_wear_block *out)
{
	uint64_t index = real / w->erase_bytes;
	const struct wear_block *b;

	if (index >= w->nblocks)
		return -ERANGE;
	b = &w->block[index];
	*out = (struct sim_wear_block){
		.endurance = endurance(w, index, b->spares),
		.cycles = b->cycles,
		.spares = b->spares,
		.fate = (enum sim_wear_fate)b->fate,
	};
	return 0;
}
