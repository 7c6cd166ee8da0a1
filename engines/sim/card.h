/*
 * What the files of the simulated card share: the limits of a spec and
 * the parameters it sets (a preset is one filled-in instance), with two
 * small helpers on them.  The card's state is the model's (model.h); the
 * face the rest of the tool sees is engines/sim.h.
 */
#ifndef FLASHBENCH_SIM_CARD_H
#define FLASHBENCH_SIM_CARD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "engines/sim.h"
#include "lib/stampblock.h"

#define SIM_MAX_BAD	16	/* bad= ranges per card */
#define SIM_MAX_SLOW	16	/* slow= ranges per card */
#define SIM_MAX_OPEN	256	/* open= limit: lookups scan the open set */
#define SIM_SECTOR	512ULL	/* logical block; sizes are multiples of it */
#define SIM_MAX_CROSS	8	/* cross= levels per card */
/* wear=: a few bytes per erase block, allocated when the card opens */
#define SIM_MAX_WEAR_BLOCKS	(1ULL << 22)
#define SIM_MAX_WEAR_CYCLES	100000000ULL
#define SIM_WEAR_SPREAD		0.1	/* wear=CYCLES without :SPREAD */
#define SIM_SPARE_PERCENT	1	/* spare= not given: of the blocks */
/* a garbled sector keeps its first bytes (a stamp's magic, the offset
   and salt it names); the rest reads as a fixed pattern */
#define SIM_GARBLE_KEPT		STAMPBLOCK_HEADER_BYTES
#define SIM_GARBLE_BYTE		0x5a
/* fake-cache= is allocated when the card opens: a card's RAM, not more */
#define SIM_MAX_FAKE_CACHE	(256ULL << 20)
/* volatile= too: the write cache a power cut empties */
#define SIM_MAX_VOLATILE	(256ULL << 20)
/* cut-map=: the writes whose old contents the card keeps to forget them */
#define SIM_MAX_CUT_MAP		256
/* slc= without a rate: the cache takes writes this many times faster */
#define SIM_SLC_RATE_FACTOR	4

struct sim_range {
	uint64_t offset;
	uint64_t length;
};

/* slow=: a region whose bytes move at rate bytes/s, read or written. */
struct sim_slow {
	struct sim_range range;
	uint64_t rate;
};

/* One level of the read staircase: crossing a multiple of size costs. */
struct sim_cross {
	uint64_t size_bytes;
	uint64_t cost_ns;
};

/* flush=: what the card does with a flush of its volatile= cache. */
enum sim_flush {
	SIM_FLUSH_HONEST,	/* the cache becomes durable */
	SIM_FLUSH_IGNORE,	/* nothing: only evictions make it durable */
	SIM_FLUSH_LATE,		/* durable flush_late_ns after the flush */
};

/* wear-eol=: what the card does once a block wears with no spare left. */
enum sim_wear_eol {
	SIM_EOL_NONE,		/* nothing: worn blocks fail one by one */
	SIM_EOL_READ_ONLY,	/* every write fails, reads go on */
	SIM_EOL_DEAD,		/* every operation fails */
};

/* Everything a spec sets; a preset is one filled-in instance. */
struct sim_params {
	uint64_t size_bytes;
	uint64_t erase_bytes;
	uint64_t page_bytes;
	uint64_t prog_bytes;
	uint64_t read_lat_ns;
	uint64_t read_rate;		/* bytes per second */
	uint64_t page_cross_ns;
	uint64_t au_cross_ns;
	unsigned int ncross;		/* 0: page-cross and au-cross apply */
	struct sim_cross cross[SIM_MAX_CROSS];
	uint64_t write_lat_ns;
	uint64_t write_rate;		/* bytes per second */
	uint64_t gc_ns;
	uint64_t open;
	uint64_t open_random;
	uint64_t fat;
	uint64_t spill;			/* blocks beyond open that spill */
	uint64_t spill_rate;		/* 0: spilled bytes cost nothing */
	uint64_t spill_buffer_bytes;	/* of each spilled write, free */
	uint64_t copy_rate;		/* 0: gc copies nothing extra */
	uint64_t cache_bytes;		/* 0: no small-write cache */
	uint64_t cache_lat_ns;
	uint64_t cache_blocks;		/* 0: the cache never flushes */
	uint64_t buffer_bytes;		/* 0: no write buffer limit */
	uint64_t granule_bytes;		/* 0: out of order is below the mark */
	uint64_t switch_ns;		/* a write to another block than the
					   last one's */
	uint64_t reader_cache_bytes;	/* 0: no write cache in front */
	uint64_t reader_lat_ns;		/* a write the reader's cache takes */
	uint64_t reader_rate;		/* 0: read-rate */
	double noise;
	double spikes;
	double jitter;			/* heavy-tailed read delays */
	double drift;			/* typical wander of the read time */
	uint64_t drift_reads;		/* reads the wander takes to turn */
	uint64_t seed;
	uint64_t pace_ns;		/* wall-clock sleep per operation */
	uint64_t queue;			/* operations served at once; 0 is 1 */
	bool ro;
	unsigned int nbad;
	struct sim_range bad[SIM_MAX_BAD];
	unsigned int nslow;
	struct sim_slow slow[SIM_MAX_SLOW];
	uint64_t fake_bytes;		/* fake=: real capacity, 0 none */
	enum sim_fake_mode fake_mode;	/* fake-mode=, 0 not given */
	uint64_t fake_cache_bytes;	/* fake-cache= */
	/* the wear model (wear.c); wear_cycles 0: blocks never wear */
	uint64_t wear_cycles;		/* wear=CYCLES */
	double wear_spread;		/* wear=CYCLES:SPREAD */
	uint64_t spare_blocks;		/* spare=N */
	enum sim_wear_eol wear_eol;	/* wear-eol= */
	/* the power-fault model (power.c); all 0: an honest card */
	bool power_keys;		/* one of its keys was given */
	uint64_t volatile_bytes;	/* volatile=: 0, no write cache */
	enum sim_flush flush;		/* flush= */
	uint64_t flush_late_ns;		/* flush=late:MS */
	double cut_damage;		/* cut-damage=P */
	double cut_shorn;		/* cut-shorn=P */
	uint64_t cut_map;		/* cut-map=N */
	double cut_dead;		/* cut-dead=P */
	uint64_t slc_bytes;		/* slc=: 0, no SLC write cache */
	uint64_t slc_rate;		/* 0: SIM_SLC_RATE_FACTOR x write-rate */
	uint64_t slc_fold_rate;		/* slc-fold=; 0: write-rate */
	uint64_t cache_any;		/* cache-any=1: the small-write cache
					   takes small writes to blocks that
					   are not open too */
};

/* How many erase blocks the card has, the last one perhaps short. */
static inline uint64_t sim_block_count(const struct sim_params *p)
{
	return (p->size_bytes + p->erase_bytes - 1) / p->erase_bytes;
}

/*
 * Does p ask for the power-fault model: one of its keys given, even as 0
 * (a sweep over P starts there)?  Such a card keeps its data (a card
 * that holds no bytes cannot lose them), as a fake key's does.
 */
static inline bool sim_power_faults(const struct sim_params *p)
{
	return p->power_keys;
}

/*
 * Does p ask for the wear model?  Such a card keeps its data: a worn
 * block reads back what it was given with bits flipped.
 */
static inline bool sim_wears(const struct sim_params *p)
{
	return p->wear_cycles != 0;
}

/* Erase blocks of the capacity the card really has (fake=, or size). */
static inline uint64_t sim_real_block_count(const struct sim_params *p)
{
	uint64_t real = p->fake_bytes ? p->fake_bytes : p->size_bytes;

	return (real + p->erase_bytes - 1) / p->erase_bytes;
}

/*
 * What a read of a sector of a worn, garbled erase block returns (wear.c):
 * made the same on every path, from the store's bytes or its stamp runs.
 */
static inline void sim_garble_sector(unsigned char *sector)
{
	memset(sector + SIM_GARBLE_KEPT, SIM_GARBLE_BYTE,
	       SIM_SECTOR - SIM_GARBLE_KEPT);
}

/* Do two ranges share a byte? */
static inline bool sim_ranges_overlap(const struct sim_range *a,
				      const struct sim_range *b)
{
	return a->offset < b->offset + b->length &&
	       b->offset < a->offset + a->length;
}

#endif
