/*
 * sim: a simulated flash card behind the dev ops table.  Each operation
 * returns the time a small model of a card's controller says it took, on a
 * virtual clock.  It stores no data (reads leave the buffer alone) and
 * keeps state only for the erase blocks the card holds open.  It sleeps
 * only when the spec asks for pace=, so that tests which interrupt a run
 * can rely on it still being inside its timed work.  With a fake= key
 * (or fake-mode=, fake-cache=) it also keeps what was written (or hands
 * it to a caller's store), and plays a counterfeit card: see "fake
 * capacity" below.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dev.h"
#include "engines/sim.h"
#include "lib/stampblock.h"
#include "lib/units.h"

#define SIM_MAX_BAD	16	/* bad= ranges per card */
#define SIM_MAX_SLOW	16	/* slow= ranges per card */
#define SIM_MAX_OPEN	256	/* open= limit: lookups scan the open set */
#define SIM_SPIKE_MIN	5.0	/* a spike multiplies an operation's time */
#define SIM_SPIKE_MAX	20.0
#define SIM_SECTOR	512ULL	/* logical block; sizes are multiples of it */
#define SIM_MAX_CROSS	8	/* cross= levels per card */
#define SIM_MAX_PACE_NS	1000000000ULL	/* pace= slows tests, not hangs them */

#define KIB	1024ULL
#define MIB	(1024ULL * KIB)
#define US	1000ULL
#define MS	(1000ULL * US)

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
};

/*
 * An erase block the card holds open for writing; the spilled blocks and
 * the small-write cache keep the same record for theirs.
 */
struct sim_block {
	uint64_t index;		/* erase block number */
	uint64_t pos_bytes;	/* high-water mark: writes below are
				   out of order */
	uint64_t base_bytes;	/* where its first write began */
	uint64_t used;		/* tick of the last write, for LRU */
	bool gaps;		/* holds old data: skipped or consolidated */
	bool random;		/* in the out-of-order set */
	bool streamed;		/* its last write went on from the write
				   before (a sequential stream) */
};

struct sim_state {
	struct sim_params p;
	uint64_t rng;		/* splitmix64 state, from seed */
	double wander;		/* drift=: the read time's relative offset */
	uint64_t tick;
	uint64_t last_index;	/* erase block of the last write */
	uint64_t last_end_bytes;	/* where the last write ended */
	unsigned int nopen;
	unsigned int nrandom;
	unsigned int ncached;
	unsigned int nspilled;
	struct sim_stats stats;	/* what the model did, for sim_stats() */
	struct sim_block *cached;	/* p.cache_blocks, after blocks */
	struct sim_block *spilled;	/* p.spill, after those */
	struct sim_fake *fake;		/* the data, with a fake key only */
	struct sim_reader *reader;	/* with reader-cache= only */
	struct sim_block blocks[];	/* p.open of them */
};

struct sim_preset {
	const char *name;
	const char *description;
	struct sim_params params;
};

/* The SU08G, fields of a struct sim_params: alone, or behind a reader. */
#define SANDISK_SU08G \
	.size_bytes = 7948206080ULL, \
	.erase_bytes = 4 * MIB, \
	.page_bytes = 8 * KIB, \
	.prog_bytes = 8 * KIB, \
	.read_lat_ns = 420 * US, \
	.read_rate = 20000000, \
	.page_cross_ns = 5 * US, \
	.au_cross_ns = 100 * US, \
	.write_lat_ns = 550 * US, \
	.write_rate = 10750000, \
	.gc_ns = 25 * MS, \
	.copy_rate = 55000000, \
	.open = 6, \
	.open_random = 1, \
	.spill = 2, \
	.spill_rate = 2000000, \
	.spill_buffer_bytes = 8 * KIB, \
	.cache_bytes = 8 * KIB, \
	.cache_lat_ns = 3 * MS, \
	.cache_blocks = 1, \
	.granule_bytes = 512 * KIB, \
	.fat = 2

/*
 * Three cards measured in 2011.  Each keeps the real card's size, erase
 * block and number of open erase blocks; rates, latencies and gc costs
 * are chosen so the align and open-AU tests show the published shapes.
 */
static const struct sim_preset presets[] = {
	{
		.name = "sandisk-su08g",
		.description = "SanDisk SU08G 8GB microSDHC: 4MiB erase "
			       "blocks, 6 open, 1 out of order",
		.params = {
			SANDISK_SU08G,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		.name = "toshiba-7au",
		.description = "Toshiba 4GB microSDHC: 4MiB erase blocks, "
			       "7 open, 32KiB program unit",
		.params = {
			.size_bytes = 3904897024ULL,
			.erase_bytes = 4 * MIB,
			.page_bytes = 8 * KIB,
			.prog_bytes = 32 * KIB,
			.read_lat_ns = 300 * US,
			.read_rate = 18000000,
			.page_cross_ns = 3 * US,
			.au_cross_ns = 60 * US,
			.write_lat_ns = 1300 * US,
			.write_rate = 12500000,
			.buffer_bytes = 896 * KIB,
			.gc_ns = 50 * MS,
			.copy_rate = 60000000,
			.open = 7,
			.open_random = 4,
			.fat = 4,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		.name = "sandisk-20au",
		.description = "SanDisk 16GB microSDHC: 4MiB erase blocks, "
			       "20 open, any order",
		.params = {
			.size_bytes = 15931539456ULL,
			.erase_bytes = 4 * MIB,
			.page_bytes = 16 * KIB,
			.prog_bytes = 16 * KIB,
			.read_lat_ns = 350 * US,
			.read_rate = 20000000,
			.page_cross_ns = 4 * US,
			.au_cross_ns = 80 * US,
			.write_lat_ns = 4 * MS,
			.write_rate = 11000000,
			.gc_ns = 147 * MS,
			.granule_bytes = 2 * MIB,
			.open = 20,
			.open_random = 20,
			.fat = 2,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		/* Arnd Bergmann's README example card (capacity not given) */
		.name = "readme-example",
		.description = "the README example SD card: 4MiB erase "
			       "blocks, 8KiB pages, 2 open",
		.params = {
			.size_bytes = 500 * MIB,
			.erase_bytes = 4 * MIB,
			.page_bytes = 8 * KIB,
			.prog_bytes = 8 * KIB,
			.read_lat_ns = 710 * US,
			.read_rate = 20000000,
			.ncross = 3,
			.cross = { { 8 * KIB, 53 * US }, { 16 * KIB, 110 * US },
				   { 4 * MIB, 135 * US } },
			.write_lat_ns = 12 * MS,
			.write_rate = 8000000,
			.gc_ns = 60 * MS,
			.copy_rate = 20000000,
			.open = 2,
			.open_random = 1,
			.fat = 2,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		.name = "wirenboard-su04g",
		.description = "SanDisk SU04G 4GB microSDHC (Wiren Board "
			       "result 12): 4MiB, 4 open, spills to 7",
		.params = {
			.size_bytes = 3965190144ULL,
			.erase_bytes = 4 * MIB,
			.page_bytes = 16 * KIB,
			.prog_bytes = 16 * KIB,
			.read_lat_ns = 530 * US,
			.read_rate = 20000000,
			.ncross = 7,
			.cross = { { 4 * KIB, 6 * US }, { 8 * KIB, 7 * US },
				   { 16 * KIB, 10 * US }, { 512 * KIB, 5 * US },
				   { 1 * MIB, 8 * US }, { 4 * MIB, 40 * US },
				   { 8 * MIB, 110 * US } },
			.write_lat_ns = 600 * US,
			.write_rate = 17900000,
			.gc_ns = 50 * MS,
			.copy_rate = 15000000,
			.open = 4,
			.open_random = 0,
			.spill = 3,
			.spill_rate = 1500000,
			.spill_buffer_bytes = 8 * KIB,
			.cache_bytes = 8 * KIB,
			.cache_lat_ns = 3500 * US,
			.granule_bytes = 512 * KIB,
			.switch_ns = 200 * US,
			.fat = 2,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		.name = "wirenboard-sa04g",
		.description = "SA04G 4GB card in a USB reader (Wiren Board "
			       "result 6_2): 4MiB, 3 open",
		.params = {
			.size_bytes = 3980394496ULL,
			.erase_bytes = 4 * MIB,
			.page_bytes = 16 * KIB,
			.prog_bytes = 8 * KIB,
			.read_lat_ns = 940 * US,
			.read_rate = 20000000,
			.ncross = 3,
			.cross = { { 4 * KIB, 65 * US }, { 16 * KIB, 210 * US },
				   { 4 * MIB, 190 * US } },
			.write_lat_ns = 300 * US,
			.write_rate = 8000000,
			.gc_ns = 20 * MS,
			.copy_rate = 8500000,
			.open = 3,
			.open_random = 0,
			.switch_ns = 1400 * US,
			.fat = 2,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		.name = "wirenboard-ncard",
		.description = "NCard 8GB microSDHC (Wiren Board result 14): "
			       "4MiB, 2 open, spills to 8",
		.params = {
			.size_bytes = 8035237888ULL,
			.erase_bytes = 4 * MIB,
			.page_bytes = 8 * KIB,
			.prog_bytes = 16 * KIB,
			.read_lat_ns = 580 * US,
			.read_rate = 20000000,
			.ncross = 5,
			.cross = { { 2 * KIB, 24 * US }, { 8 * KIB, 186 * US },
				   { 16 * KIB, 65 * US }, { 4 * MIB, 30 * US },
				   { 1024 * MIB, 60 * US } },
			.write_lat_ns = 600 * US,
			.write_rate = 8600000,
			.gc_ns = 50 * MS,
			.open = 2,
			.open_random = 2,
			.spill = 6,
			.spill_rate = 8000000,
			.switch_ns = 2700 * US,
			.fat = 2,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		/*
		 * No flash behaviour at all: every erase block may be open
		 * (open is the card's block count), closing costs nothing,
		 * no read staircase, no program unit.  What a RAM disk, a
		 * loop device over a cached file or an SSD shows.
		 */
		.name = "ramdisk",
		.description = "a RAM disk or cached SSD: 1GiB, flat fast "
			       "reads and writes, no erase-block behaviour",
		.params = {
			.size_bytes = 1024 * MIB,
			.erase_bytes = 4 * MIB,
			.page_bytes = SIM_SECTOR,
			.prog_bytes = SIM_SECTOR,
			.read_lat_ns = 15 * US,
			.read_rate = 2000000000,
			.write_lat_ns = 20 * US,
			.write_rate = 1200000000,
			.open = SIM_MAX_OPEN,
			.open_random = SIM_MAX_OPEN,
			.noise = 0.03,
			.spikes = 0.001,
			.seed = 1,
		},
	},
	{
		/*
		 * The SU08G behind a USB reader that keeps 64 MiB of writes
		 * in its RAM: a test that writes less than that never sees
		 * the card's open-erase-block limit or its FAT area.  Reads
		 * pass through, so the card's read staircase still shows.
		 */
		.name = "cached-reader",
		.description = "SanDisk SU08G behind a USB reader with a "
			       "64MiB write cache (reader-cache=)",
		.params = {
			SANDISK_SU08G,
			.reader_cache_bytes = 64 * MIB,
			.reader_lat_ns = 200 * US,
			.reader_rate = 35000000,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		/*
		 * The model before it was fitted to real write tables: the
		 * SU08G's geometry and reads, a fixed gc cost, no spill,
		 * cache, granules or buffer limit.  A spec that starts with
		 * a key builds on it, so hand-made cards (the detection
		 * matrix, the unit tests) show one clean cliff.
		 */
		.name = "plain",
		.description = "a simple card: 4MiB erase blocks, 6 open, "
			       "fixed gc, the base of a spec of keys",
		.params = {
			.size_bytes = 7948206080ULL,
			.erase_bytes = 4 * MIB,
			.page_bytes = 8 * KIB,
			.prog_bytes = 8 * KIB,
			.read_lat_ns = 420 * US,
			.read_rate = 20000000,
			.page_cross_ns = 5 * US,
			.au_cross_ns = 100 * US,
			.write_lat_ns = 550 * US,
			.write_rate = 10750000,
			.gc_ns = 100 * MS,
			.open = 6,
			.open_random = 1,
			.fat = 2,
			.noise = 0.01,
			.seed = 1,
		},
	},
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

enum sim_kind {
	SIM_SIZE,	/* units_parse_size, a positive multiple of 512 */
	SIM_TIME,	/* units_parse_duration */
	SIM_RATE,	/* units_parse_rate, positive */
	SIM_COUNT,	/* units_parse_count in [min, max] */
	SIM_FRACTION,	/* units_parse_fraction, at most max_fraction */
	SIM_RANGE,	/* OFFSET+LEN, appended to the bad list */
	SIM_SLOW,	/* OFFSET+LEN:RATE, appended to the slow list */
	SIM_CROSS,	/* SIZE:COST/SIZE:COST/..., the read staircase */
	SIM_FLAG,	/* no value */
	SIM_FAKE_MODE,	/* wrap, drop, zero or error */
};

struct sim_key {
	const char *name;
	enum sim_kind kind;
	size_t field;		/* offsetof(struct sim_params, ...) */
	uint64_t min, max;	/* SIM_COUNT */
	double max_fraction;	/* SIM_FRACTION */
};

#define FIELD(f) offsetof(struct sim_params, f)
#define KEY(n, k, f) { .name = n, .kind = k, .field = FIELD(f) }
#define COUNT(n, f, lo, hi) \
	{ .name = n, .kind = SIM_COUNT, .field = FIELD(f), \
	  .min = lo, .max = hi }
#define FRACTION(n, f, hi) \
	{ .name = n, .kind = SIM_FRACTION, .field = FIELD(f), \
	  .max_fraction = hi }

static const struct sim_key keys[] = {
	KEY("size", SIM_SIZE, size_bytes),
	KEY("erase", SIM_SIZE, erase_bytes),
	KEY("page", SIM_SIZE, page_bytes),
	KEY("prog", SIM_SIZE, prog_bytes),
	KEY("read-lat", SIM_TIME, read_lat_ns),
	KEY("read-rate", SIM_RATE, read_rate),
	KEY("page-cross", SIM_TIME, page_cross_ns),
	KEY("au-cross", SIM_TIME, au_cross_ns),
	KEY("write-lat", SIM_TIME, write_lat_ns),
	KEY("write-rate", SIM_RATE, write_rate),
	KEY("gc", SIM_TIME, gc_ns),
	COUNT("open", open, 1, SIM_MAX_OPEN),
	COUNT("open-random", open_random, 0, SIM_MAX_OPEN),
	COUNT("fat", fat, 0, UINT32_MAX),
	COUNT("spill", spill, 0, SIM_MAX_OPEN),
	KEY("spill-rate", SIM_RATE, spill_rate),
	KEY("spill-buffer", SIM_SIZE, spill_buffer_bytes),
	KEY("copy-rate", SIM_RATE, copy_rate),
	KEY("cache", SIM_SIZE, cache_bytes),
	KEY("cache-lat", SIM_TIME, cache_lat_ns),
	COUNT("cache-blocks", cache_blocks, 0, SIM_MAX_OPEN),
	KEY("buffer", SIM_SIZE, buffer_bytes),
	KEY("granule", SIM_SIZE, granule_bytes),
	KEY("switch-lat", SIM_TIME, switch_ns),
	KEY("reader-cache", SIM_SIZE, reader_cache_bytes),
	KEY("reader-lat", SIM_TIME, reader_lat_ns),
	KEY("reader-rate", SIM_RATE, reader_rate),
	FRACTION("noise", noise, 0.5),
	FRACTION("spikes", spikes, 1.0),
	FRACTION("jitter", jitter, 1.0),
	FRACTION("drift", drift, 0.5),
	COUNT("drift-reads", drift_reads, 1, 1000000000),
	COUNT("seed", seed, 0, UINT64_MAX),
	KEY("pace", SIM_TIME, pace_ns),
	COUNT("queue", queue, 1, DEV_MAX_DEPTH),
	{ .name = "cross", .kind = SIM_CROSS },
	{ .name = "bad", .kind = SIM_RANGE },
	{ .name = "slow", .kind = SIM_SLOW },
	{ .name = "ro", .kind = SIM_FLAG },
	KEY("fake", SIM_SIZE, fake_bytes),
	{ .name = "fake-mode", .kind = SIM_FAKE_MODE },
	KEY("fake-cache", SIM_SIZE, fake_cache_bytes),
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* --- spec parsing --------------------------------------------------- */

static int usage(char *msg, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int usage(char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * "a, b, c" of the preset names, or of the key names that start with
 * letter (all of them for 0).  A name that does not fit whole ends the
 * list with "...": the message it goes in has a fixed size.
 */
static const char *name_list(char *buf, size_t size, bool of_presets,
			     char letter)
{
	size_t n = of_presets ? NPRESETS : NKEYS, used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *name = of_presets ? presets[i].name : keys[i].name;
		const char *sep = used ? ", " : "";

		if (letter && name[0] != letter)
			continue;
		if (used + strlen(sep) + strlen(name) + sizeof(", ...") > size) {
			snprintf(buf + used, size - used, "%s...", sep);
			break;
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%s", sep,
					 name);
	}
	return buf;
}

static const struct sim_key *find_key(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static const struct sim_preset *find_preset(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}

static int unknown_key(const char *name, char *msg, size_t size)
{
	char list[160];

	/* the keys of its first letter, the likely misspelt ones */
	if (*name_list(list, sizeof(list), false, name[0]))
		return usage(msg, size, "sim: unknown key '%s' (keys with "
			     "'%c': %s; all in doc/simulator.md)", name,
			     name[0], list);
	return usage(msg, size, "sim: unknown key '%s' (keys: %s)", name,
		     name_list(list, sizeof(list), false, 0));
}

/* OFFSET+LEN (the first len bytes of text), both sizes; LEN positive. */
static int parse_offset_length(const char *text, size_t len,
			       struct sim_range *r)
{
	char offset[64], length[64];
	const char *plus = memchr(text, '+', len);
	size_t before = plus ? (size_t)(plus - text) : 0;

	if (!plus || before >= sizeof(offset) ||
	    len - before - 1 >= sizeof(length))
		return -EINVAL;
	memcpy(offset, text, before);
	offset[before] = '\0';
	memcpy(length, plus + 1, len - before - 1);
	length[len - before - 1] = '\0';
	if (units_parse_size(offset, &r->offset) ||
	    units_parse_size(length, &r->length) ||
	    r->length == 0 || r->offset + r->length < r->offset)
		return -EINVAL;
	return 0;
}

/* bad=OFFSET+LEN */
static int parse_range(const char *text, struct sim_params *p)
{
	struct sim_range r;

	if (parse_offset_length(text, strlen(text), &r))
		return -EINVAL;
	if (p->nbad == SIM_MAX_BAD)
		return -ENOSPC;
	p->bad[p->nbad++] = r;
	return 0;
}

/* slow=OFFSET+LEN:RATE */
static int parse_slow(const char *text, struct sim_params *p)
{
	const char *colon = strchr(text, ':');
	struct sim_slow slow;

	if (!colon ||
	    parse_offset_length(text, (size_t)(colon - text), &slow.range) ||
	    units_parse_rate(colon + 1, &slow.rate) || !slow.rate)
		return -EINVAL;
	if (p->nslow == SIM_MAX_SLOW)
		return -ENOSPC;
	p->slow[p->nslow++] = slow;
	return 0;
}

/* SIZE:COST[/SIZE:COST]...: replaces the levels the preset had. */
static int parse_cross(const char *text, struct sim_params *p)
{
	char level[96];
	unsigned int n = 0;

	while (*text) {
		const char *slash = strchr(text, '/');
		size_t len = slash ? (size_t)(slash - text) : strlen(text);
		char *colon;
		struct sim_cross c;

		if (len == 0 || len >= sizeof(level))
			return -EINVAL;
		if (n == SIM_MAX_CROSS)
			return -ENOSPC;
		memcpy(level, text, len);
		level[len] = '\0';
		colon = strchr(level, ':');
		if (!colon)
			return -EINVAL;
		*colon = '\0';
		if (units_parse_size(level, &c.size_bytes) ||
		    c.size_bytes == 0 || c.size_bytes % SIM_SECTOR ||
		    units_parse_duration(colon + 1, &c.cost_ns))
			return -EINVAL;
		p->cross[n++] = c;
		text += len;
		if (slash && !*++text)
			return -EINVAL;	/* a trailing '/' */
	}
	if (n == 0)
		return -EINVAL;
	p->ncross = n;
	return 0;
}

static int parse_number(const struct sim_key *key, const char *text,
			void *field)
{
	uint64_t *u = field;
	double *d = field;

	switch (key->kind) {
	case SIM_SIZE:
		if (units_parse_size(text, u))
			return -EINVAL;
		return *u && *u % SIM_SECTOR == 0 ? 0 : -EINVAL;
	case SIM_TIME:
		return units_parse_duration(text, u) ? -EINVAL : 0;
	case SIM_RATE:
		if (units_parse_rate(text, u))
			return -EINVAL;
		return *u ? 0 : -EINVAL;
	case SIM_COUNT:
		return units_parse_count(text, key->min, key->max, u) ?
		       -EINVAL : 0;
	case SIM_FRACTION:
		if (units_parse_fraction(text, d))
			return -EINVAL;
		return *d <= key->max_fraction ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

static int parse_fake_mode(const char *text, struct sim_params *p);
static int check_fake(const struct sim_params *p, char *msg, size_t size);

static int set_value(const struct sim_key *key, const char *text,
		     struct sim_params *p, char *msg, size_t size)
{
	int err;

	if (key->kind == SIM_FLAG)
		return usage(msg, size, "sim: key '%s' takes no value",
			     key->name);
	if (key->kind == SIM_RANGE)
		err = parse_range(text, p);
	else if (key->kind == SIM_SLOW)
		err = parse_slow(text, p);
	else if (key->kind == SIM_FAKE_MODE)
		err = parse_fake_mode(text, p);
	else if (key->kind == SIM_CROSS)
		err = parse_cross(text, p);
	else
		err = parse_number(key, text, (char *)p + key->field);
	if (err == -ENOSPC && key->kind == SIM_CROSS)
		return usage(msg, size, "sim: too many cross levels (at most "
			     "%d)", SIM_MAX_CROSS);
	if (err == -ENOSPC)
		return usage(msg, size, "sim: too many %s ranges (at most %d)",
			     key->name, key->kind == SIM_SLOW ? SIM_MAX_SLOW :
							       SIM_MAX_BAD);
	if (err)
		return usage(msg, size, "sim: bad value for %s: '%s'",
			     key->name, text);
	return 0;
}

/* An item without '=': a flag, or a preset name in first place. */
static int parse_word(const char *word, bool first, struct sim_params *p,
		      char *msg, size_t size)
{
	const struct sim_key *key = find_key(word);
	const struct sim_preset *preset = find_preset(word);

	if (!*word)
		return usage(msg, size, "sim: empty item in the spec");
	if (key && key->kind == SIM_FLAG) {
		p->ro = true;
		return 0;
	}
	if (key)
		return usage(msg, size, "sim: key '%s' needs a value (%s=...)",
			     word, word);
	if (preset && first) {
		*p = preset->params;
		return 0;
	}
	if (preset)
		return usage(msg, size, "sim: preset '%s' must come first",
			     word);
	if (first) {
		char list[200];

		return usage(msg, size, "sim: unknown preset '%s' "
			     "(presets: %s)", word,
			     name_list(list, sizeof(list), true, 0));
	}
	return unknown_key(word, msg, size);
}

/*
 * Which keys a spec gave, by their index in keys[] (a bit each), and so
 * which ways of setting the read staircase it used.
 */
struct spec_seen {
	uint64_t keys;
	bool cross;		/* cross= */
	bool shorthand;		/* page-cross= or au-cross= */
};

_Static_assert(NKEYS <= 64, "spec_seen has a bit for each key");

static bool given(const struct spec_seen *seen, const char *name)
{
	return seen->keys >> (find_key(name) - keys) & 1;
}

static int parse_item(char *item, bool first, struct sim_params *p,
		      struct spec_seen *seen, char *msg, size_t size)
{
	char *eq = strchr(item, '=');
	const struct sim_key *key;

	if (!eq)
		return parse_word(item, first, p, msg, size);
	*eq = '\0';
	key = find_key(item);
	if (!key)
		return unknown_key(item, msg, size);
	seen->keys |= 1ULL << (key - keys);
	if (key->kind == SIM_CROSS)
		seen->cross = true;
	else if (key->field == FIELD(page_cross_ns) ||
		 key->field == FIELD(au_cross_ns))
		seen->shorthand = true;
	if (seen->cross && seen->shorthand)
		return usage(msg, size, "sim: cross= and page-cross=/au-cross= "
			     "both set the read staircase; give one");
	return set_value(key, eq + 1, p, msg, size);
}

static uint64_t block_count(const struct sim_params *p)
{
	return (p->size_bytes + p->erase_bytes - 1) / p->erase_bytes;
}

static int check_divides(const char *key, uint64_t unit, uint64_t erase,
			 char *msg, size_t size)
{
	char a[UNITS_BUF], b[UNITS_BUF];

	if (erase % unit == 0)
		return 0;
	return usage(msg, size, "sim: %s %s does not divide erase %s", key,
		     units_format_exact_size(a, unit),
		     units_format_exact_size(b, erase));
}

/* A range of key name (bad, slow) that ends past the card is refused. */
static int check_range(const struct sim_params *p, const char *name,
		       const struct sim_range *r, char *msg, size_t size)
{
	if (r->offset + r->length <= p->size_bytes)
		return 0;
	return usage(msg, size, "sim: %s range %llu+%llu ends past the "
		     "card's %llu bytes", name, (unsigned long long)r->offset,
		     (unsigned long long)r->length,
		     (unsigned long long)p->size_bytes);
}

static bool overlap(const struct sim_range *a, const struct sim_range *b)
{
	return a->offset < b->offset + b->length &&
	       b->offset < a->offset + a->length;
}

/* bad= and slow= ranges lie on the card; slow ones do not overlap. */
static int check_ranges(const struct sim_params *p, char *msg, size_t size)
{
	int err = 0;

	for (unsigned int i = 0; !err && i < p->nbad; i++)
		err = check_range(p, "bad", &p->bad[i], msg, size);
	for (unsigned int i = 0; !err && i < p->nslow; i++) {
		err = check_range(p, "slow", &p->slow[i].range, msg, size);
		for (unsigned int j = 0; !err && j < i; j++)
			if (overlap(&p->slow[i].range, &p->slow[j].range))
				err = usage(msg, size, "sim: slow ranges "
					    "%u and %u overlap; give each "
					    "byte one rate", j + 1, i + 1);
	}
	return err;
}

/*
 * A preset's FAT area and open erase blocks shrink to what a small card
 * has (sim:size=1M is one erase block); keys the spec gave stay as they
 * are, for check_params to refuse when they cannot fit.
 */
static void fit_defaults(struct sim_params *p, const struct spec_seen *seen)
{
	uint64_t blocks = block_count(p);

	if (!given(seen, "fat") && p->fat > blocks)
		p->fat = blocks;
	if (!given(seen, "open") && p->open > blocks)
		p->open = blocks;
	if (!given(seen, "open-random") && p->open_random > p->open)
		p->open_random = p->open;
}

/* Geometry that no single key can check alone. */
static int check_params(const struct sim_params *p, char *msg, size_t size)
{
	int err;

	err = check_divides("page", p->page_bytes, p->erase_bytes, msg, size);
	if (!err)
		err = check_divides("prog", p->prog_bytes, p->erase_bytes,
				    msg, size);
	if (err)
		return err;
	if (p->open_random > p->open)
		return usage(msg, size, "sim: open-random %llu exceeds open "
			     "%llu", (unsigned long long)p->open_random,
			     (unsigned long long)p->open);
	if (p->fat > block_count(p))
		return usage(msg, size, "sim: fat %llu exceeds the card's "
			     "%llu erase blocks", (unsigned long long)p->fat,
			     (unsigned long long)block_count(p));
	if (p->pace_ns > SIM_MAX_PACE_NS)
		return usage(msg, size, "sim: pace is at most 1s per "
			     "operation");
	err = check_fake(p, msg, size);
	return err ? err : check_ranges(p, msg, size);
}

/*
 * [PRESET][,KEY=VALUE | ,ro]...; empty means the first preset, and a spec
 * that starts with a key or ro builds on "plain".
 */
static int parse_spec(const char *spec, struct sim_params *p, char *msg,
		      size_t size)
{
	char *copy, *rest, *item;
	struct spec_seen seen = { 0, false, false };
	bool first = true;
	int err = 0;

	*p = presets[0].params;
	if (!*spec)
		return 0;
	*p = find_preset("plain")->params;
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	rest = copy;
	while (!err && (item = strsep(&rest, ","))) {
		err = parse_item(item, first, p, &seen, msg, size);
		first = false;
	}
	free(copy);
	/* the shorthand on a preset with levels replaces those levels */
	if (!err && seen.shorthand)
		p->ncross = 0;
	if (!err)
		fit_defaults(p, &seen);
	return err ? err : check_params(p, msg, size);
}

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
 * (cache=) out of order or spilled cost cache-lat instead.  A block
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

		if (!overlap(&op, &slow->range))
			continue;
		start = offset > slow->range.offset ? offset :
						      slow->range.offset;
		end = offset + length < slow->range.offset + slow->range.length ?
		      offset + length : slow->range.offset + slow->range.length;
		inside = end - start;
		t = t - transfer_ns(inside, rate) +
		    transfer_ns(inside, slow->rate);
	}
	return t;
}

/* -EIO for a range outside the card or touching a bad= range. */
static int check_io(const struct sim_params *p, uint64_t offset,
		    uint64_t length)
{
	const struct sim_range op = { offset, length };

	if (!length || offset > p->size_bytes ||
	    length > p->size_bytes - offset)
		return -EIO;
	for (unsigned int i = 0; i < p->nbad; i++)
		if (overlap(&op, &p->bad[i]))
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
 * --- fake capacity (fake=, fake-mode=, fake-cache=) -------------------
 *
 * A counterfeit card announces size but holds fake bytes.  Only when a
 * fake key is given does the card keep the data written to it: sparsely,
 * a sector at a time, so memory grows with what a test wrote, not with
 * the card; a sector that is exactly a stamp is kept as what it names
 * (see "stamps kept as what names them").  Sectors never written read as
 * a fixed pattern of their physical number (the "old data" a card came
 * with).  Past the real capacity, wrap aliases offset to offset mod
 * fake, drop loses writes (reads return the old data), zero loses them
 * and reads zeros, error loses them and fails reads with EIO.
 * fake-cache= keeps the last SIZE bytes written, by offset, and serves
 * reads from them first: the write cache that makes a fresh write read
 * back correctly anywhere.
 * Memory is allocated inside a simulated write; its time is the model's,
 * not the clock's, so nothing measured is disturbed.  A caller that holds
 * the data itself (sim_keep_data_in: flashemu's store, bounded and kept
 * across runs) gets each stretch of real blocks at its physical offset
 * instead; the card then keeps only its fake-cache=.
 */

/* A map from a sector number to a slot: open addressing, linear probing. */
struct fake_map {
	uint64_t *keys;		/* sector + 1; 0 is an empty slot */
	uint32_t *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t count;
};

/*
 * Sectors that hold stamps (lib/stampblock.h) of 512-byte blocks, one
 * after the other: sector first + i holds the stamp naming offset
 * (first + i) x 512 + delta, of salt.  Kept instead of their bytes.
 */
struct stamp_run {
	uint64_t first, count;	/* physical sectors */
	uint64_t delta;		/* named offset - physical offset, mod 2^64 */
	uint64_t salt;
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
	struct stamp_run *runs;		/* by first, disjoint */
	size_t nruns, runs_cap;
	uint64_t cache_sectors;		/* fake-cache= in sectors */
	struct fake_map cached;		/* logical sector -> ring slot */
	uint64_t *ring_sector;		/* logical sector of each ring slot */
	unsigned char *ring_data;
	uint64_t ring_next, ring_used;
	const struct sim_data_ops *keeper;	/* holds the real blocks' data
						   instead, or NULL */
	void *keeper_ctx;
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

static bool fake_wanted(const struct sim_params *p)
{
	return p->fake_bytes || p->fake_mode || p->fake_cache_bytes;
}

static int fake_open(struct sim_state *s)
{
	struct sim_params *p = &s->p;
	struct sim_fake *f;

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
	s->fake = f;
	return 0;
}

static void fake_close(struct sim_state *s)
{
	struct sim_fake *f = s->fake;

	if (!f)
		return;
	map_free(&f->stored);
	map_free(&f->cached);
	free(f->data);
	free(f->free_slots);
	free(f->runs);
	free(f->ring_sector);
	free(f->ring_data);
	free(f);
	s->fake = NULL;
}

/* Where the card puts a sector: its fate, and the real sector for wrap. */
static enum sim_fake_fate fake_fate(const struct sim_fake *f,
				    uint64_t offset, uint64_t *real_offset)
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

/*
 * --- stamps kept as what names them ---------------------------------
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

/*
 * Which of n sectors from data on are exactly stamps: stamp[i], with what
 * they name and their salt.  The checksums, the dear part, are taken four
 * at a time.
 */
#define SIM_STAMP_BATCH 64	/* sectors judged at once */

struct stamp_seen {
	bool stamp;
	uint64_t named, salt;
};

static void find_stamps(const unsigned char *data, size_t n,
			struct stamp_seen *seen)
{
	const unsigned char *candidates[SIM_STAMP_BATCH];
	uint64_t sums[SIM_STAMP_BATCH];
	size_t which[SIM_STAMP_BATCH], m = 0;

	for (size_t i = 0; i < n; i++) {
		const unsigned char *sector = data + i * SIM_SECTOR;
		struct stamp_seen *s = &seen[i];

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

/* The first run that ends after sector (nruns when none). */
static size_t run_after(const struct sim_fake *f, uint64_t sector)
{
	size_t lo = 0, hi = f->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->runs[mid].first + f->runs[mid].count <= sector)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool run_continues(const struct stamp_run *a,
			  const struct stamp_run *b)
{
	return a->first + a->count == b->first && a->delta == b->delta &&
	       a->salt == b->salt;
}

/* Join runs[i] and runs[i + 1] when the second goes on from the first. */
static void run_join(struct sim_fake *f, size_t i)
{
	if (i + 1 >= f->nruns || !run_continues(&f->runs[i], &f->runs[i + 1]))
		return;
	f->runs[i].count += f->runs[i + 1].count;
	memmove(&f->runs[i + 1], &f->runs[i + 2],
		(f->nruns - i - 2) * sizeof(f->runs[0]));
	f->nruns--;
}

/*
 * Put run r in, over whatever runs held its sectors: those keep only
 * their parts before and after it.
 */
static int run_insert(struct sim_fake *f, struct stamp_run r)
{
	size_t i = run_after(f, r.first), j = i, k = 0;
	uint64_t end = r.first + r.count;
	struct stamp_run pieces[3];

	while (j < f->nruns && f->runs[j].first < end)
		j++;
	if (i < j && f->runs[i].first < r.first) {
		pieces[k] = f->runs[i];
		pieces[k++].count = r.first - f->runs[i].first;
	}
	pieces[k++] = r;
	if (i < j && f->runs[j - 1].first + f->runs[j - 1].count > end) {
		const struct stamp_run *last = &f->runs[j - 1];

		pieces[k] = (struct stamp_run){ end,
			last->first + last->count - end, last->delta,
			last->salt };
		k++;
	}
	if (f->nruns - (j - i) + k > f->runs_cap) {
		size_t cap = f->runs_cap ? f->runs_cap * 2 : 16;
		struct stamp_run *bigger = realloc(f->runs,
						   cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		f->runs = bigger;
		f->runs_cap = cap;
	}
	memmove(&f->runs[i + k], &f->runs[j],
		(f->nruns - j) * sizeof(f->runs[0]));
	memcpy(&f->runs[i], pieces, k * sizeof(pieces[0]));
	f->nruns = f->nruns - (j - i) + k;
	/* the new run is at i, or i + 1 after a piece before it */
	for (size_t at = i + k; at-- > (i ? i - 1 : 0); )
		run_join(f, at);
	return 0;
}

/* The run holding sector, or NULL. */
static const struct stamp_run *run_of(const struct sim_fake *f,
				      uint64_t sector)
{
	size_t i = run_after(f, sector);

	return i < f->nruns && f->runs[i].first <= sector ? &f->runs[i] :
							   NULL;
}

/*
 * A write's stamp sectors gather into one pending run while they go on
 * one from the other; anything else puts it in first.
 */
static int run_flush(struct sim_fake *f, struct stamp_run *pending)
{
	int err = pending->count ? run_insert(f, *pending) : 0;

	pending->count = 0;
	return err;
}

static int run_add(struct sim_fake *f, struct stamp_run *pending,
		   uint64_t sector, uint64_t named, uint64_t salt)
{
	struct stamp_run one = { sector, 1, named - sector * SIM_SECTOR,
				 salt };
	int err = 0;

	if (pending->count && run_continues(pending, &one)) {
		pending->count++;
		return 0;
	}
	err = run_flush(f, pending);
	*pending = one;
	return err;
}

/* Keep sector's data: as a stretch of a run when it is a stamp. */
static int fake_keep(struct sim_fake *f, struct stamp_run *pending,
		     uint64_t sector, const unsigned char *data,
		     const struct stamp_seen *seen)
{
	int err;

	if (seen->stamp) {
		err = fake_forget(f, sector);
		return err ? err : run_add(f, pending, sector, seen->named,
					   seen->salt);
	}
	err = run_flush(f, pending);
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
	struct stamp_run pending = { 0 };
	struct stamp_seen seen[SIM_STAMP_BATCH];

	for (uint64_t done = 0; done < length; done += SIM_SECTOR) {
		uint64_t real, i = done / SIM_SECTOR % SIM_STAMP_BATCH;
		enum sim_fake_fate fate = fake_fate(f, offset + done, &real);
		int err = 0;

		if (i == 0)
			find_stamps(data + done, (size_t)((length - done) /
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
	return run_flush(f, &pending);
}

/*
 * Where [pos, end) lands, as far as it lands in one piece: the physical
 * offset in *real (fake_fate's), and the end of the piece - the real
 * capacity, or the next wrap.
 */
static uint64_t fake_piece(const struct sim_fake *f, uint64_t pos,
			   uint64_t end, uint64_t *real,
			   enum sim_fake_fate *fate)
{
	uint64_t stop = end;

	*fate = fake_fate(f, pos, real);
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
 * offset with salt, written as runs: a run a piece (fake_piece), so a
 * fill of the whole card costs a run or two, not its bytes.
 */
static int fake_stamp(struct sim_fake *f, uint64_t offset, uint64_t length,
		      uint64_t salt)
{
	uint64_t end = offset + length, pos = offset, real, stop;
	enum sim_fake_fate fate;
	int err = 0;

	for (; !err && pos < end; pos = stop) {
		stop = fake_piece(f, pos, end, &real, &fate);
		if (!fate_keeps(fate))
			continue;
		for (uint64_t at = 0; !err && f->stored.count &&
		     at < stop - pos; at += SIM_SECTOR)
			err = fake_forget(f, (real + at) / SIM_SECTOR);
		if (!err)
			err = run_insert(f, (struct stamp_run){
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
static bool fake_stamped(const struct sim_fake *f, uint64_t offset,
			 uint64_t length, uint64_t salt)
{
	uint64_t end = offset + length, pos = offset, real, stop;
	enum sim_fake_fate fate;

	while (pos < end) {
		const struct stamp_run *run;
		uint64_t sector, n;

		stop = fake_piece(f, pos, end, &real, &fate);
		sector = real / SIM_SECTOR;
		run = fate_keeps(fate) ? run_of(f, sector) : NULL;
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
static const struct stamp_run *stamp_source(const struct sim_fake *f,
					    uint64_t offset, uint64_t *real)
{
	uint32_t slot;
	enum sim_fake_fate fate;

	if (map_find(&f->cached, offset / SIM_SECTOR, &slot))
		return NULL;
	fate = fake_fate(f, offset, real);
	if ((fate != SIM_FAKE_REAL && fate != SIM_FAKE_ALIASED) ||
	    map_find(&f->stored, *real / SIM_SECTOR, &slot))
		return NULL;
	return run_of(f, *real / SIM_SECTOR);
}

/*
 * Read sectors from offset on, at most max of them: a stretch that one
 * run's stamps hold, made again in one go, or else one sector.  Returns
 * how many it read.
 */
static uint64_t fake_read_stretch(const struct sim_fake *f, uint64_t offset,
				  uint64_t max, unsigned char *buf)
{
	uint64_t real, next, n = 1;
	const struct stamp_run *run = stamp_source(f, offset, &real), *more;
	uint32_t slot;
	enum sim_fake_fate fate;

	if (run) {
		while (n < max &&
		       (more = stamp_source(f, offset + n * SIM_SECTOR,
					    &next)) == run &&
		       next == real + n * SIM_SECTOR)
			n++;
		stampblock_fill_many(buf, real + run->delta, (size_t)n,
				     SIM_SECTOR, run->salt);
		return n;
	}
	if (map_find(&f->cached, offset / SIM_SECTOR, &slot)) {
		memcpy(buf, f->ring_data + (size_t)slot * SIM_SECTOR,
		       SIM_SECTOR);
		return 1;
	}
	fate = fake_fate(f, offset, &real);
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
 * The card decides where each piece lands (fake_piece) and what the
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
		stop = fake_piece(f, pos, end, &real, &fate);
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

		stop = fake_piece(f, pos, end, &real, &fate);
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
static int kept_punch(const struct sim_fake *f, uint64_t offset,
		      uint64_t length)
{
	uint64_t first = (offset + SIM_SECTOR - 1) / SIM_SECTOR * SIM_SECTOR;
	uint64_t end = (offset + length) / SIM_SECTOR * SIM_SECTOR;
	uint64_t pos, stop, real;
	enum sim_fake_fate fate;
	int err = 0;

	for (pos = first; !err && pos < end; pos = stop) {
		stop = fake_piece(f, pos, end, &real, &fate);
		if (fate_keeps(fate))
			err = f->keeper->punch(f->keeper_ctx, real, stop - pos);
	}
	return err;
}

/* error mode: a read of an uncached sector past the real capacity fails. */
static int fake_read(const struct sim_fake *f, void *buf, uint64_t offset,
		     uint64_t length)
{
	unsigned char *out = buf;
	uint32_t slot;
	uint64_t real;

	for (uint64_t done = 0; done < length; done += SIM_SECTOR)
		if (fake_fate(f, offset + done, &real) == SIM_FAKE_FAILED &&
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
static void fake_held(const struct sim_fake *f, struct sim_stats *out)
{
	const size_t map_slot = sizeof(*f->stored.keys) +
				sizeof(*f->stored.slots);

	out->held_bytes = (uint64_t)f->data_cap * SIM_SECTOR +
			  (uint64_t)(f->stored.cap + f->cached.cap) * map_slot +
			  (uint64_t)f->free_cap * sizeof(*f->free_slots) +
			  (uint64_t)f->runs_cap * sizeof(*f->runs) +
			  f->cache_sectors * (SIM_SECTOR +
					      sizeof(*f->ring_sector));
	out->stamp_runs = f->nruns;
}

/* fake-mode=wrap|drop|zero|error */
static int parse_fake_mode(const char *text, struct sim_params *p)
{
	static const char *const names[] = {
		[SIM_FAKE_WRAP] = "wrap", [SIM_FAKE_DROP] = "drop",
		[SIM_FAKE_ZERO] = "zero", [SIM_FAKE_ERROR] = "error",
	};

	for (int i = SIM_FAKE_WRAP; i <= SIM_FAKE_ERROR; i++)
		if (strcmp(text, names[i]) == 0) {
			p->fake_mode = (enum sim_fake_mode)i;
			return 0;
		}
	return -EINVAL;
}

/* fake-cache= is allocated when the card opens: a card's RAM, not more */
#define SIM_MAX_FAKE_CACHE (256 * MIB)

static int check_fake(const struct sim_params *p, char *msg, size_t size)
{
	if (p->fake_cache_bytes > SIM_MAX_FAKE_CACHE)
		return usage(msg, size, "sim: fake-cache is at most 256MiB");
	if (p->fake_bytes > p->size_bytes)
		return usage(msg, size, "sim: fake %llu is more than the "
			     "announced size %llu",
			     (unsigned long long)p->fake_bytes,
			     (unsigned long long)p->size_bytes);
	return 0;
}

/* --- the ops table -------------------------------------------------- */

/* read-lat + L / read-rate + page and erase block crossings */
/* A read of the range is done: its time, counted. */
static uint64_t read_done(struct sim_state *s, uint64_t offset,
			  uint64_t length)
{
	const struct sim_params *p = &s->p;
	uint64_t t = p->read_lat_ns + transfer_ns(length, p->read_rate) +
		     crossing_ns(p, offset, length);
	uint64_t ns = jitter(s, read_noise(s, slow_ns(p, offset, length,
						     p->read_rate, t)));

	count_op(&s->stats.reads, &s->stats.bytes_read, length, s, ns);
	pace(p);
	return ns;
}

static int sim_read(struct dev *dev, void *buf, uint64_t offset,
		    uint64_t length, uint64_t *ns)
{
	struct sim_state *s = dev->backend;
	int err = check_io(&s->p, offset, length);

	if (!err && s->fake)
		err = fake_read(s->fake, buf, offset, length);
	if (err)
		return err;
	*ns = read_done(s, offset, length);
	return 0;
}

/* write-lat + whole prog units / write-rate + gc for each eviction */
static uint64_t card_write_ns(struct sim_state *s, uint64_t offset,
			      uint64_t length)
{
	const struct sim_params *p = &s->p;
	uint64_t t, pos, end = offset + length;

	t = p->write_lat_ns +
	    transfer_ns(touched(offset, length, p->prog_bytes) *
			p->prog_bytes, p->write_rate);
	if (p->buffer_bytes && length > p->buffer_bytes)
		t += transfer_ns(length - p->buffer_bytes, p->write_rate);
	t = slow_ns(p, offset, length, p->write_rate, t);
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

/* A write of the range is done: its time, counted. */
static uint64_t write_done(struct sim_state *s, uint64_t offset,
			   uint64_t length)
{
	uint64_t ns = jitter(s, write_ns(s, offset, length));

	count_op(&s->stats.writes, &s->stats.bytes_written, length, s, ns);
	pace(&s->p);
	return ns;
}

static int sim_write(struct dev *dev, const void *buf, uint64_t offset,
		     uint64_t length, uint64_t *ns)
{
	struct sim_state *s = dev->backend;
	const struct sim_params *p = &s->p;
	int err = check_io(p, offset, length);

	if (!err && s->fake)
		err = s->fake->keeper ?
		      kept_write(s->fake, buf, offset, length) :
		      fake_write(s->fake, buf, offset, length);
	if (err)
		return err;
	*ns = write_done(s, offset, length);
	return 0;
}

/*
 * Can the card take stamps of the range without their bytes?  Its
 * blocks must be its sectors and a fake key keep its data; the write
 * cache (fake-cache=) keeps bytes, so it takes them the usual way.
 */
static bool stamps_kept(const struct dev *dev, const struct sim_state *s)
{
	return s->fake && !s->fake->cache_sectors && !s->fake->keeper &&
	       dev->logical_block_bytes == SIM_SECTOR;
}

static int sim_stamp(struct dev *dev, uint64_t offset, uint64_t length,
		     uint64_t salt, uint64_t *ns)
{
	struct sim_state *s = dev->backend;
	int err;

	if (!stamps_kept(dev, s))
		return -EOPNOTSUPP;
	err = check_io(&s->p, offset, length);
	if (!err)
		err = fake_stamp(s->fake, offset, length, salt);
	if (err)
		return err;
	*ns = write_done(s, offset, length);
	return 0;
}

static int sim_verify_stamps(struct dev *dev, uint64_t offset,
			     uint64_t length, uint64_t salt, uint64_t *ns)
{
	struct sim_state *s = dev->backend;

	if (!stamps_kept(dev, s) || check_io(&s->p, offset, length) ||
	    !fake_stamped(s->fake, offset, length, salt))
		return 0;
	*ns = read_done(s, offset, length);
	return 1;
}

/*
 * Whole erase blocks in the range return to the erased state (closed, at
 * no cost); partial ones are left alone.  Costs one write-lat.  A range
 * touching a bad= range fails with -EIO, like reads and writes.  The data
 * a fake key keeps itself stays; a caller's store is punched.
 */
static int sim_discard(struct dev *dev, uint64_t offset, uint64_t length,
		       uint64_t *ns)
{
	struct sim_state *s = dev->backend;
	const struct sim_params *p = &s->p;
	uint64_t end = offset + length, first, last, flush_ns;
	int err = check_io(p, offset, length);

	if (!err && s->fake && s->fake->keeper)
		err = kept_punch(s->fake, offset, length);
	if (err)
		return err;
	/* the reader writes what it holds before it passes a discard on */
	flush_ns = s->reader ? reader_flush(s) : 0;
	first = (offset + p->erase_bytes - 1) / p->erase_bytes;
	last = end == p->size_bytes ? block_count(p) : end / p->erase_bytes;
	for (unsigned int i = 0; i < s->nopen; ) {
		if (s->blocks[i].index >= first && s->blocks[i].index < last) {
			s->stats.closed++;
			close_block(s, &s->blocks[i]);
		}
		else
			i++;
	}
	*ns = jitter(s, flush_ns + p->write_lat_ns);
	count_op(&s->stats.discards, &s->stats.bytes_discarded, length, s,
		 *ns);
	pace(p);
	return 0;
}

static int sim_open(struct dev *dev, const char *spec, enum dev_mode mode)
{
	char *msg = dev->error.message;
	size_t size = sizeof(dev->error.message);
	struct sim_params p;
	struct sim_state *s;
	int err = parse_spec(spec, &p, msg, size);

	if (err == -ENOMEM)
		snprintf(msg, size, "sim: out of memory");
	if (err == -EINVAL)
		dev->error.usage = true;
	if (err)
		return err;
	if (p.ro && mode == DEV_READ_WRITE) {
		snprintf(msg, size, "sim: card is write-protected");
		return -EROFS;
	}
	/* each count at most SIM_MAX_OPEN */
	s = calloc(1, sizeof(*s) + (size_t)(p.open + p.cache_blocks + p.spill) *
		      sizeof(s->blocks[0]));
	if (!s)
		return -ENOMEM;
	s->p = p;
	s->last_index = UINT64_MAX;
	s->last_end_bytes = UINT64_MAX;
	s->cached = s->blocks + p.open;
	s->spilled = s->cached + p.cache_blocks;
	s->rng = p.seed;
	if (p.reader_cache_bytes)
		s->reader = calloc(1, sizeof(*s->reader));
	if ((p.reader_cache_bytes && !s->reader) || fake_open(s)) {
		free(s->reader);
		free(s);
		return -ENOMEM;
	}
	dev->backend = s;
	dev->size_bytes = p.size_bytes;
	dev->logical_block_bytes = SIM_SECTOR;
	dev->simulated = true;
	dev->fd = -1;
	return 0;
}

static void sim_close(struct dev *dev)
{
	struct sim_state *s = dev->backend;

	if (s) {
		fake_close(s);
		free(s->reader);
	}
	free(s);
	dev->backend = NULL;
	free(dev->async);
	dev->async = NULL;
}

/* --- queue=: operations in flight overlap --------------------------- */

/*
 * The card serves up to queue= operations at once, each taking the time
 * the single-operation model gives it, in submission order on the first
 * free one of min(depth, queue) lanes.  The host keeps depth in flight:
 * operation i is submitted when operation i - depth completes.  So at
 * depth d <= queue, d equal operations take the time of one; beyond
 * queue the extra ones wait in the card and go no faster.  Times are the
 * model's, relative to the batch's first submission.
 */
struct sim_queue {
	uint64_t lane_free_ns[DEV_MAX_DEPTH];
	uint64_t window_ns[DEV_MAX_DEPTH];	/* by i % depth: when the
						   slot op i took frees */
};

static int sim_async_setup(struct dev *dev, unsigned depth,
			   enum dev_engine forced)
{
	(void)forced;			/* the card has one engine: itself */
	if (!dev->async)
		dev->async = calloc(1, sizeof(struct sim_queue));
	if (!dev->async)
		return -ENOMEM;
	dev->depth = depth;
	dev->engine = DEV_ENGINE_SIM;
	return 0;
}

static unsigned sim_lanes(const struct sim_state *s, unsigned depth)
{
	uint64_t queue = s->p.queue ? s->p.queue : 1;

	return queue < depth ? (unsigned)queue : depth;
}

static unsigned first_free_lane(const struct sim_queue *q, unsigned lanes)
{
	unsigned best = 0;

	for (unsigned i = 1; i < lanes; i++)
		if (q->lane_free_ns[i] < q->lane_free_ns[best])
			best = i;
	return best;
}

/* One operation's service time from the single-operation model. */
static int sim_service(struct dev *dev, enum dev_io_kind kind,
		       const struct dev_io *io, uint64_t *ns)
{
	return kind == DEV_IO_WRITE ?
	       sim_write(dev, io->buf, io->offset, io->length, ns) :
	       sim_read(dev, io->buf, io->offset, io->length, ns);
}

static int sim_batch(struct dev *dev, struct dev_batch *b)
{
	struct sim_queue *q = dev->async;
	unsigned lanes = sim_lanes(dev->backend, b->depth);
	uint64_t end_ns = 0;

	memset(q->lane_free_ns, 0, sizeof(q->lane_free_ns));
	for (unsigned i = 0; i < b->count; i++) {
		struct dev_io *io = &b->ios[i];
		uint64_t submit_ns = i < b->depth ? 0 :
				     q->window_ns[i % b->depth];
		uint64_t service_ns, start_ns;
		unsigned lane;
		int err;

		if (i && (submit_ns >= b->budget_ns || (b->stop && *b->stop)))
			break;
		err = sim_service(dev, b->kind, io, &service_ns);
		b->done = i + 1;
		if (err) {
			io->ns = DEV_IO_NO_TIME;
			b->failed = i;
			b->elapsed_ns = end_ns;
			return err;
		}
		lane = first_free_lane(q, lanes);
		start_ns = q->lane_free_ns[lane] > submit_ns ?
			   q->lane_free_ns[lane] : submit_ns;
		q->lane_free_ns[lane] = start_ns + service_ns;
		q->window_ns[i % b->depth] = start_ns + service_ns;
		io->ns = start_ns + service_ns - submit_ns;
		if (start_ns + service_ns > end_ns)
			end_ns = start_ns + service_ns;
	}
	b->elapsed_ns = end_ns;
	return 0;
}

const struct dev_ops dev_sim_ops = {
	.name = "sim",
	.open = sim_open,
	.read = sim_read,
	.write = sim_write,
	.discard = sim_discard,
	.close = sim_close,
	.async_setup = sim_async_setup,
	.batch = sim_batch,
	.stamp = sim_stamp,
	.verify_stamps = sim_verify_stamps,
};

/* --- for the front end ---------------------------------------------- */

int sim_geometry(const struct dev *dev, struct sim_geometry *g)
{
	const struct sim_state *s = dev->backend;

	if (dev->ops != &dev_sim_ops || !s)
		return -EINVAL;
	*g = (struct sim_geometry){
		.size_bytes = s->p.size_bytes,
		.erase_bytes = s->p.erase_bytes,
		.page_bytes = s->p.page_bytes,
		.prog_bytes = s->p.prog_bytes,
		.open = (uint32_t)s->p.open,
		.open_random = (uint32_t)s->p.open_random,
		.fat = (uint32_t)s->p.fat,
	};
	return 0;
}

int sim_stats(const struct dev *dev, struct sim_stats *out)
{
	const struct sim_state *s = dev->backend;

	if (dev->ops != &dev_sim_ops || !s)
		return -EINVAL;
	*out = s->stats;
	if (s->fake)
		fake_held(s->fake, out);
	return 0;
}

const char *sim_preset(size_t i, const char **description)
{
	if (i >= NPRESETS)
		return NULL;
	if (description)
		*description = presets[i].description;
	return presets[i].name;
}

int sim_list_presets(FILE *out)
{
	for (size_t i = 0; i < NPRESETS; i++)
		fprintf(out, "  %-15s %s\n", presets[i].name,
			presets[i].description);
	return 0;
}

enum sim_fake_fate sim_fake_resolve(const struct dev *dev, uint64_t offset,
				    uint64_t *real_offset)
{
	const struct sim_state *s = dev->backend;

	if (dev->ops != &dev_sim_ops || !s || !s->fake) {
		*real_offset = offset;
		return SIM_FAKE_REAL;
	}
	return fake_fate(s->fake, offset, real_offset);
}

bool sim_keeps_data(const struct dev *dev)
{
	const struct sim_state *s = dev->backend;

	return dev->ops == &dev_sim_ops && s && s->fake;
}

int sim_keep_data_in(struct dev *dev, const struct sim_data_ops *ops,
		     void *ctx)
{
	struct sim_state *s = dev->backend;

	if (!sim_keeps_data(dev))
		return -EINVAL;
	s->fake->keeper = ops;
	s->fake->keeper_ctx = ctx;
	return 0;
}
