/*
 * The simulated card's presets: the cards it can stand for, by name, each
 * a filled-in set of parameters.  The first is what "sim:" alone means,
 * and "plain" is the base a spec of keys builds on (spec.c).  Data only:
 * what a parameter does is the model's.
 */
#include <stddef.h>
#include <string.h>

#include "engines/sim/card.h"
#include "engines/sim/presets.h"
#include "lib/units.h"

#define US	1000ULL
#define MS	(1000ULL * US)

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
	/*
	 * Today's cards, constructed from published figures, not fitted to
	 * any table: allocation units of 8, 16 and 24 MiB, pages of 16 to
	 * 48 KiB, 7 to 64 open units, the A1 and A2 random I/O figures,
	 * and SLC write caches of 1-10% of the card (doc/simulator.md
	 * says where each figure comes from).  Random 4 KiB writes reach
	 * their IOPS through a small-write cache that takes them anywhere
	 * (cache-any=1), or, on the cards that keep more units open than
	 * a random test touches, in the open units in any order; larger
	 * writes to more units than are open close one each, the cliff
	 * --detect reads.
	 */
	{
		.name = "a1-32g",
		.description = "a 32GB A1 microSDHC, constructed from "
			       "published figures, not fitted: 8MiB units, "
			       "16KiB pages, 7 open, 1GiB SLC cache",
		.params = {
			.size_bytes = 31914983424ULL,
			.erase_bytes = 8 * MIB,
			.page_bytes = 16 * KIB,
			.prog_bytes = 16 * KIB,
			.read_lat_ns = 450 * US,
			.read_rate = 90000000,
			.page_cross_ns = 10 * US,
			.au_cross_ns = 100 * US,
			.write_lat_ns = 600 * US,
			.write_rate = 12000000,
			.slc_bytes = 1024 * MIB,
			.slc_rate = 40000000,
			.gc_ns = 30 * MS,
			.open = 7,
			.open_random = 2,
			.cache_bytes = 4 * KIB,
			.cache_lat_ns = 50 * US,
			.cache_any = 1,
			.fat = 2,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		/* the SanDisk Ultra 64GB review: 24MiB, 48KiB pages, 64+ */
		.name = "a2-64g",
		.description = "a 64GB A2 microSDXC, constructed from "
			       "published figures, not fitted: 24MiB units, "
			       "48KiB pages, 64 open, 6GiB SLC cache",
		.params = {
			.size_bytes = 63864569856ULL,
			.erase_bytes = 24 * MIB,
			.page_bytes = 48 * KIB,
			.prog_bytes = 16 * KIB,
			.read_lat_ns = 280 * US,
			.read_rate = 95000000,
			.page_cross_ns = 12 * US,
			.au_cross_ns = 120 * US,
			.write_lat_ns = 300 * US,
			.write_rate = 20000000,
			.slc_bytes = 6 * GIB,
			.slc_rate = 80000000,
			.gc_ns = 40 * MS,
			.open = 64,
			.open_random = 64,
			.queue = 2,
			.fat = 1,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		/* a Lexar 633x 128GB reads 16MiB units */
		.name = "u3-128g",
		.description = "a 128GB U3 A1 microSDXC, constructed from "
			       "published figures, not fitted: 16MiB units, "
			       "32KiB pages, 10 open, 4GiB SLC cache",
		.params = {
			.size_bytes = 128043712512ULL,
			.erase_bytes = 16 * MIB,
			.page_bytes = 32 * KIB,
			.prog_bytes = 32 * KIB,
			.read_lat_ns = 400 * US,
			.read_rate = 90000000,
			.page_cross_ns = 10 * US,
			.au_cross_ns = 110 * US,
			.write_lat_ns = 500 * US,
			.write_rate = 35000000,
			.slc_bytes = 4 * GIB,
			.slc_rate = 70000000,
			.gc_ns = 35 * MS,
			.open = 10,
			.open_random = 4,
			.cache_bytes = 4 * KIB,
			.cache_lat_ns = 50 * US,
			.cache_any = 1,
			.fat = 1,
			.noise = 0.01,
			.seed = 1,
		},
	},
	{
		/*
		 * A fast SLC cache before a slow native rate: a short test
		 * passes V30, a recording longer than the cache does not.
		 */
		.name = "v30-256g",
		.description = "a 256GB V30 A2 microSDXC, constructed from "
			       "published figures, not fitted: 16MiB units, "
			       "32KiB pages, 16 open, 4GiB SLC cache at "
			       "85MB/s, then 22MB/s",
		.params = {
			.size_bytes = 256060514304ULL,
			.erase_bytes = 16 * MIB,
			.page_bytes = 32 * KIB,
			.prog_bytes = 16 * KIB,
			.read_lat_ns = 260 * US,
			.read_rate = 95000000,
			.page_cross_ns = 12 * US,
			.au_cross_ns = 100 * US,
			.write_lat_ns = 250 * US,
			.write_rate = 22000000,
			.slc_bytes = 4 * GIB,
			.slc_rate = 85000000,
			.gc_ns = 40 * MS,
			.open = 16,
			.open_random = 16,
			.queue = 2,
			.fat = 1,
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

const struct sim_preset *sim_preset_at(size_t i)
{
	return i < NPRESETS ? &presets[i] : NULL;
}

const struct sim_preset *sim_preset_find(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}
