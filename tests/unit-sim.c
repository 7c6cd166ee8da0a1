/*
 * unit-sim: the simulated card through the dev.h API.  Checks the model's
 * exact times with noise off, its spec errors, determinism, and that the
 * presets show the shapes of the real cards they stand for.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "dev.h"
#include "engines/sim.h"
#include "lib/units.h"
#include "unit.h"
#include "vm/stamp.h"

#define US	1000ULL
#define MS	(1000ULL * US)
#define FAIL	UINT64_MAX	/* what op() returns for a failed call */

/* 16KiB pages and prog units, 4MiB erase blocks, blocks 0-1 are FAT */
#define BASE "sim:noise=0,size=1G,erase=4M,page=16K,prog=16K," \
	     "read-lat=100us,read-rate=10M,page-cross=7us,au-cross=50us," \
	     "write-lat=200us,write-rate=8M,gc=10ms,open=3,open-random=1,fat=2"

/* time of a 16KiB write with no gc: 200us + 16384 B / 8 MB/s */
#define W16K	(200 * US + 2048 * US)

enum op { READ, WRITE, DISCARD };

static char buffer[16 * MIB];	/* never touched by the simulated card */

static bool open_rw(struct dev *dev, const char *spec)
{
	if (dev_open(dev, spec, DEV_READ_WRITE))
		return false;
	dev_allow_writes(dev, 0, dev->size_bytes);
	return true;
}

/* Time of one operation, or FAIL. */
static uint64_t op(struct dev *dev, enum op what, uint64_t offset,
		   uint64_t length)
{
	uint64_t ns = 0;
	int err;

	if (what == READ)
		err = dev_read(dev, buffer, offset, length, &ns);
	else if (what == WRITE)
		err = dev_write(dev, buffer, offset, length, &ns);
	else
		err = dev_discard(dev, offset, length, &ns);
	return err ? FAIL : ns;
}

static uint64_t rd(struct dev *dev, uint64_t offset, uint64_t length)
{
	return op(dev, READ, offset, length);
}

static uint64_t wr(struct dev *dev, uint64_t offset, uint64_t length)
{
	return op(dev, WRITE, offset, length);
}

static void test_open(void)
{
	struct dev dev;
	struct sim_geometry g;
	int err = dev_open(&dev, "sim:", DEV_READ_ONLY);

	UNIT_CHECK(err == 0, "sim: alone opens");
	UNIT_CHECK(dev.size_bytes == 7948206080ULL, "sim: is the SU08G size");
	UNIT_CHECK(dev.logical_block_bytes == 512, "512-byte blocks");
	UNIT_CHECK(dev_has(&dev, DEV_CAP_MODEL_TIME) &&
		   !dev_has(&dev, DEV_CAP_HOST_NODE) && dev.fd == -1,
		   "simulated, no fd");
	UNIT_CHECK(!dev_has(&dev, DEV_CAP_KEEPS_DATA) &&
		   !dev_has(&dev, DEV_CAP_OUTLIVES_CLOSE),
		   "a plain sim: keeps no data, not even to its close");
	UNIT_CHECK(sim_geometry(&dev, &g) == 0 && g.erase_bytes == 4 * MIB &&
		   g.open == 6 && g.open_random == 1,
		   "sim: has 4MiB erase blocks, 6 open, 1 random");
	dev_close(&dev);

	memset(&dev, 0, sizeof(dev));
	dev.ops = &dev_blockdev_ops;
	UNIT_CHECK(sim_geometry(&dev, &g) == -EINVAL,
		   "no geometry for a block device");
}

static void test_presets(void)
{
	const char *description = NULL;
	struct sim_geometry g;
	struct dev dev;
	char *text = NULL;
	size_t size = 0;
	FILE *out;
	size_t i;

	for (i = 0; sim_preset(i, &description); i++) {
		char spec[64];

		bool opened;

		snprintf(spec, sizeof(spec), "sim:%s", sim_preset(i, NULL));
		opened = open_rw(&dev, spec);
		UNIT_CHECK(opened && description && *description,
			   "preset %s opens", spec);
		dev_close(&dev);
	}
	UNIT_CHECK(i == 14, "fourteen presets");
	UNIT_STREQ(sim_preset(0, NULL), "sandisk-su08g", "first preset");

	out = open_memstream(&text, &size);
	sim_list_presets(out);
	fclose(out);
	UNIT_CHECK(text && strstr(text, "toshiba-7au") &&
		   strstr(text, "sandisk-20au") && strstr(text, "plain") &&
		   strstr(text, "wirenboard-ncard") && strstr(text, "ramdisk") &&
		   strstr(text, "cached-reader") && strstr(text, "a2-64g") &&
		   strstr(text, "constructed from published figures, not "
			  "fitted"), "list names every preset");
	free(text);

	dev_open(&dev, "sim:toshiba-7au", DEV_READ_ONLY);
	sim_geometry(&dev, &g);
	UNIT_CHECK(g.open == 7 && g.prog_bytes == 32 * KIB,
		   "toshiba-7au: 7 open, 32KiB prog");
	dev_close(&dev);
	dev_open(&dev, "sim:a2-64g", DEV_READ_ONLY);
	sim_geometry(&dev, &g);
	UNIT_CHECK(g.erase_bytes == 24 * MIB && g.page_bytes == 48 * KIB &&
		   g.open == 64, "a2-64g: 24MiB units, 48KiB pages, 64 open");
	dev_close(&dev);
	dev_open(&dev, "sim:sandisk-20au,open=21,open-random=3", DEV_READ_ONLY);
	sim_geometry(&dev, &g);
	UNIT_CHECK(g.open == 21 && g.open_random == 3,
		   "keys override a preset");
	dev_close(&dev);
}

static void test_read_cost(void)
{
	struct dev dev;

	open_rw(&dev, BASE);
	UNIT_CHECK(rd(&dev, 0, 4 * KIB) == 100 * US + 409600,
		   "read: latency plus transfer");
	UNIT_CHECK(rd(&dev, 14 * KIB, 4 * KIB) == 100 * US + 409600 + 7 * US,
		   "read: one page crossing");
	UNIT_CHECK(rd(&dev, 0, 64 * KIB) == 100 * US + 6553600 + 3 * 7 * US,
		   "read: 64KiB touches four pages");
	UNIT_CHECK(rd(&dev, 4 * MIB - 2 * KIB, 4 * KIB) ==
		   100 * US + 409600 + 7 * US + 50 * US,
		   "read: erase block crossing");
	UNIT_CHECK(rd(&dev, 2 * MIB, 8 * MIB) ==
		   100 * US + 838860800 + 511 * 7 * US + 2 * 50 * US,
		   "read: 8MiB over three erase blocks");
	dev_close(&dev);
}

/* cross=: every level whose size divides a crossed boundary adds up. */
static void test_cross_levels(void)
{
	struct dev dev;
	const uint64_t base = 100 * US + 409600;	/* a 4KiB read */

	open_rw(&dev, "sim:noise=0,size=1G,erase=3M,read-lat=100us,"
		"read-rate=10M,cross=8K:50us/16K:100us/4M:150us/1536K:20us");
	UNIT_CHECK(rd(&dev, 0, 4 * KIB) == base, "cross: no boundary");
	UNIT_CHECK(rd(&dev, 6 * KIB, 4 * KIB) == base + 50 * US,
		   "cross: an 8KiB boundary costs its level");
	UNIT_CHECK(rd(&dev, 14 * KIB, 4 * KIB) == base + 150 * US,
		   "cross: a 16KiB boundary costs 8K + 16K levels");
	UNIT_CHECK(rd(&dev, 4 * MIB - 2 * KIB, 4 * KIB) == base + 300 * US,
		   "cross: a 4MiB boundary costs all power-of-two levels");
	UNIT_CHECK(rd(&dev, 1536 * KIB - 2 * KIB, 4 * KIB) ==
		   base + 170 * US,
		   "cross: 1536KiB is a multiple of 8K, 16K and 1536K");
	UNIT_CHECK(rd(&dev, 12 * MIB - 2 * KIB, 4 * KIB) ==
		   base + 320 * US, "cross: 12MiB pays every level");
	dev_close(&dev);
	open_rw(&dev, "sim:noise=0,size=1G,read-lat=100us,read-rate=10M,"
		"page=16K,page-cross=7us,au-cross=50us");
	UNIT_CHECK(rd(&dev, 4 * MIB - 2 * KIB, 4 * KIB) ==
		   base + 57 * US, "cross: the shorthand is two levels");
	dev_close(&dev);
}

/* Transfer times past 2^64 / 1e9 bytes (18 GB) still come out exact. */
static void test_big_transfer(void)
{
	struct dev dev;

	open_rw(&dev, "sim:noise=0,size=64G,read-lat=0,read-rate=1M,"
		"page-cross=0,au-cross=0");
	UNIT_CHECK(rd(&dev, 0, 32 * 1024 * MIB) == 32 * 1024 * MIB * 1000,
		   "transfer: 32GiB at 1MB/s without 128-bit arithmetic");
	UNIT_CHECK(rd(&dev, 0, 3 * KIB) == 3072000,
		   "transfer: rounding of a partial second");
	dev_close(&dev);
}

static void test_prog(void)
{
	struct dev dev;
	uint64_t t16, t32, t2;

	open_rw(&dev, BASE ",prog=32K");
	t16 = wr(&dev, 0, 16 * KIB);
	t32 = wr(&dev, 32 * KIB, 32 * KIB);
	t2 = wr(&dev, 88 * KIB, 16 * KIB);
	dev_close(&dev);
	UNIT_CHECK(t16 == 200 * US + 4096 * US && t16 == t32,
		   "16KiB write costs a whole 32KiB prog unit");
	UNIT_CHECK(t2 == 200 * US + 8192 * US,
		   "16KiB across two prog units costs both");
}

/* Linear 16KiB writes round robin over n erase blocks from block 10. */
static int round_robin_gcs(const char *spec, unsigned int n)
{
	struct dev dev;
	int gcs = 0;

	open_rw(&dev, spec);
	for (uint64_t pos = 0; pos < 8; pos++)
		for (unsigned int i = 0; i < n; i++) {
			uint64_t offset = (10 + i) * 4 * MIB + pos * 16 * KIB;
			uint64_t t = wr(&dev, offset, 16 * KIB);

			gcs += t == W16K + 10 * MS;
			if (t != W16K && t != W16K + 10 * MS)
				gcs = -1000;
		}
	dev_close(&dev);
	return gcs;
}

static void test_open_lru(void)
{
	int three = round_robin_gcs(BASE, 3), four = round_robin_gcs(BASE, 4);
	int open4 = round_robin_gcs(BASE ",open=4", 4);

	UNIT_CHECK(three == 0, "linear writes to 3 blocks with open=3: no gc");
	UNIT_CHECK(four == 8 * 4 - 3,
		   "linear writes to 4 blocks with open=3: gc on every write");
	UNIT_CHECK(open4 == 0, "linear writes to 4 blocks with open=4: no gc");
}

/* Descending 16KiB writes round robin over n blocks from block first. */
static int descending_gcs(const char *spec, uint64_t first, unsigned int n)
{
	struct dev dev;
	int gcs = 0;

	open_rw(&dev, spec);
	for (uint64_t pos = 8; pos-- > 0; )
		for (unsigned int i = 0; i < n; i++)
			gcs += wr(&dev, (first + i) * 4 * MIB + pos * 16 * KIB,
				  16 * KIB) != W16K;
	dev_close(&dev);
	return gcs;
}

static void test_out_of_order(void)
{
	int one = descending_gcs(BASE, 10, 1);
	int two = descending_gcs(BASE, 10, 2);
	int two_slots = descending_gcs(BASE ",open-random=2", 10, 2);
	int no_slot = descending_gcs(BASE ",open-random=0", 10, 1);
	int fat = descending_gcs(BASE ",open-random=0", 0, 2);

	UNIT_CHECK(one == 0,
		   "out-of-order writes in one block, open-random=1: no gc");
	UNIT_CHECK(two == 8 * 2 - 3,
		   "out of order in 2 blocks, open-random=1: gc every write");
	UNIT_CHECK(two_slots == 0,
		   "out of order in 2 blocks, open-random=2: no gc");
	UNIT_CHECK(no_slot == 7,
		   "open-random=0: every out-of-order write costs gc");
	UNIT_CHECK(fat == 0, "FAT area: any order is cheap");
}

static void test_restart(void)
{
	struct dev dev;
	int extra = 0;

	open_rw(&dev, BASE ",open-random=0");
	for (int round = 0; round < 3; round++)
		for (uint64_t pos = 0; pos < 4 * MIB; pos += 1 * MIB)
			extra += wr(&dev, 10 * 4 * MIB + pos, 1 * MIB) !=
				 200 * US + 131072 * US;
	UNIT_CHECK(extra == 0, "rewriting a block written through: no gc");
	dev_close(&dev);
}

static void test_discard(void)
{
	struct dev dev;
	uint64_t t[4];

	open_rw(&dev, BASE ",open=1");
	wr(&dev, 40 * MIB, 16 * KIB);
	t[0] = wr(&dev, 44 * MIB, 16 * KIB);
	t[1] = op(&dev, DISCARD, 44 * MIB, 4 * MIB);
	t[2] = wr(&dev, 40 * MIB, 16 * KIB);
	op(&dev, DISCARD, 40 * MIB, 2 * MIB);
	t[3] = wr(&dev, 48 * MIB, 16 * KIB);
	dev_close(&dev);
	UNIT_CHECK(t[0] == W16K + 10 * MS,
		   "open=1: second block evicts the first");
	UNIT_CHECK(t[1] == 200 * US, "discard costs one write-lat");
	UNIT_CHECK(t[2] == W16K, "after discard the block is closed: no gc");
	UNIT_CHECK(t[3] == W16K + 10 * MS,
		   "partial discard leaves the block open");

	open_rw(&dev, BASE);
	wr(&dev, 40 * MIB + 64 * KIB, 16 * KIB);
	wr(&dev, 40 * MIB, 16 * KIB);
	op(&dev, DISCARD, 40 * MIB, 4 * MIB);
	wr(&dev, 44 * MIB + 64 * KIB, 16 * KIB);
	t[0] = wr(&dev, 44 * MIB, 16 * KIB);
	t[1] = wr(&dev, 40 * MIB + 64 * KIB, 16 * KIB);
	dev_close(&dev);
	UNIT_CHECK(t[0] == W16K, "discard frees the out-of-order slot");
	UNIT_CHECK(t[1] == W16K, "a discarded block writes as erased");
}

/*
 * 16KiB writes round robin over n erase blocks from block 10, 8 rounds:
 * t[i] is block 10 + i's time in the last round; returns how many writes
 * of all rounds took a gc (10ms or more over W16K).
 */
static int round_robin_times(const char *spec, unsigned int n, uint64_t *t)
{
	struct dev dev;
	int gcs = 0;

	open_rw(&dev, spec);
	for (uint64_t pos = 0; pos < 8; pos++)
		for (unsigned int i = 0; i < n; i++) {
			t[i] = wr(&dev, (10 + i) * 4 * MIB + pos * 16 * KIB,
				  16 * KIB);
			gcs += t[i] >= W16K + 10 * MS;
		}
	dev_close(&dev);
	return gcs;
}

/*
 * spill=: with open=3, spill=1 a fourth block written in turn spills (its
 * bytes again at spill-rate, past spill-buffer); with a fifth the open
 * blocks go idle too long, and the card is back to closing them.
 */
static void test_spill(void)
{
	uint64_t t[5], buffered[4];
	int four = round_robin_times(BASE ",spill=1,spill-rate=4M", 4, t);
	int buffered_gcs = round_robin_times(BASE ",spill=1,spill-rate=4M,"
					     "spill-buffer=8K", 4, buffered);
	uint64_t five[5];
	int five_gcs = round_robin_times(BASE ",spill=1,spill-rate=4M", 5,
					 five);

	UNIT_CHECK(four == 0 && buffered_gcs == 0,
		   "spill=1: 4 blocks over open=3, no gc");
	UNIT_CHECK(t[0] == W16K && t[1] == W16K && t[2] == W16K,
		   "spill: the open blocks stay open");
	UNIT_CHECK(t[3] == W16K + 4096 * US,
		   "spill: a spilled 16KiB costs 16KiB again at 4MB/s");
	UNIT_CHECK(buffered[3] == W16K + 2048 * US,
		   "spill-buffer=8K: only the bytes past 8KiB cost");
	UNIT_CHECK(five_gcs > 8 * 5 / 2,
		   "spill=1: 5 blocks over open=3, gc on most writes: %d",
		   five_gcs);
}

/*
 * A write that goes on from where the last one ended never spills, and a
 * block such a stream wrote through does not keep the card spilling:
 * whole erase blocks in sequence, even past a jump back to the start, run
 * at the rate of one; the same blocks 12 apart spill.
 */
static void test_stream(void)
{
	const char *spec = BASE ",spill=2,spill-rate=4M";
	const uint64_t whole = 200 * US + 524288 * US;	/* 4MiB at 8MB/s */
	uint64_t slow_apart = 0, slow_in_turn = 0;
	struct dev dev;

	open_rw(&dev, spec);
	for (uint64_t round = 0; round < 2; round++)
		for (uint64_t i = 0; i < 16; i++)
			slow_in_turn += wr(&dev, (10 + i) * 4 * MIB, 4 * MIB) !=
					whole;
	dev_close(&dev);
	open_rw(&dev, spec);
	for (uint64_t i = 0; i < 16; i++)
		slow_apart += wr(&dev, (10 + 12 * i) * 4 * MIB, 4 * MIB) !=
			      whole;
	dev_close(&dev);
	UNIT_CHECK(slow_in_turn == 0, "stream: 16 whole blocks in sequence, "
		   "twice over, at the rate of one");
	UNIT_CHECK(slow_apart > 0, "whole blocks 12 apart spill: %llu of 16",
		   (unsigned long long)slow_apart);
}

/* copy-rate=: a close copies what the block's in-order run left out. */
static void test_copy(void)
{
	struct dev dev;
	uint64_t t[3];

	open_rw(&dev, BASE ",open=1,copy-rate=8M");
	wr(&dev, 40 * MIB, 16 * KIB);
	t[0] = wr(&dev, 44 * MIB, 16 * KIB);
	wr(&dev, 44 * MIB + 64 * KIB, 16 * KIB);
	t[1] = wr(&dev, 48 * MIB, 16 * KIB);
	wr(&dev, 52 * MIB, 4 * MIB);
	t[2] = wr(&dev, 56 * MIB, 16 * KIB);
	dev_close(&dev);
	UNIT_CHECK(t[0] == W16K + 10 * MS + 522240 * US,
		   "copy-rate: closing after 16KiB copies the other 4080KiB");
	UNIT_CHECK(t[1] == W16K + 10 * MS + 524288 * US,
		   "copy-rate: a block with a gap copies all of it");
	UNIT_CHECK(t[2] == W16K, "a block written through closes for free");
}

/* cache=: small out-of-order writes cost cache-lat instead of a gc. */
static void test_cache(void)
{
	int small = descending_gcs(BASE ",open-random=0,cache=16K,"
				   "cache-lat=0", 10, 1);
	int big = descending_gcs(BASE ",open-random=0,cache=8K", 10, 1);
	struct dev dev;
	uint64_t t;

	open_rw(&dev, BASE ",open-random=0,cache=16K,cache-lat=1ms");
	wr(&dev, 40 * MIB + 64 * KIB, 16 * KIB);
	t = wr(&dev, 40 * MIB, 16 * KIB);
	dev_close(&dev);
	UNIT_CHECK(small == 0, "cache=16K: 16KiB out of order, no gc");
	UNIT_CHECK(t == W16K + 1 * MS, "cache-lat: what the cache adds");
	UNIT_CHECK(big == 7, "cache=8K: 16KiB writes are not small");
}

/* cache-blocks=: small spilled writes of more blocks flush the cache. */
static void test_cache_blocks(void)
{
	struct dev dev;
	uint64_t one = 0, two = 0;
	const char *spec = BASE ",open=1,spill=2,cache=16K,cache-lat=1ms,"
			   "cache-blocks=1";

	open_rw(&dev, spec);
	for (uint64_t pos = 0; pos < 4; pos++)
		for (int i = 0; i < 2; i++)
			one = wr(&dev, (10 + i) * 4 * MIB + pos * 16 * KIB,
				 16 * KIB);
	dev_close(&dev);
	open_rw(&dev, spec);
	for (uint64_t pos = 0; pos < 4; pos++)
		for (int i = 0; i < 3; i++)
			two = wr(&dev, (10 + i) * 4 * MIB + pos * 16 * KIB,
				 16 * KIB);
	dev_close(&dev);
	UNIT_CHECK(one == W16K + 1 * MS,
		   "cache-blocks=1: one spilled block combines");
	UNIT_CHECK(two == W16K + 1 * MS + 10 * MS,
		   "cache-blocks=1: two spilled blocks flush each time");
}

/* granule=: a write that starts a granule is never out of order. */
static void test_granule(void)
{
	struct dev dev;
	uint64_t gcs = 0, t;

	open_rw(&dev, BASE ",open-random=0,granule=64K");
	for (uint64_t pos = 8; pos-- > 0; )
		gcs += wr(&dev, 40 * MIB + pos * 64 * KIB, 64 * KIB) !=
		       200 * US + 8192 * US;
	dev_close(&dev);
	UNIT_CHECK(gcs == 0, "granule=64K: 64KiB writes in any order");
	UNIT_CHECK(descending_gcs(BASE ",open-random=0,granule=64K", 10, 1)
		   == 5, "granule=64K: 16KiB ones inside a granule are not");
	open_rw(&dev, BASE ",open=1,granule=2M,copy-rate=8M");
	wr(&dev, 40 * MIB, 2 * MIB);
	t = wr(&dev, 44 * MIB, 16 * KIB);
	dev_close(&dev);
	UNIT_CHECK(t == W16K, "granule=2M: a block written to 2MiB closes "
		   "for free");
}

/* buffer= and switch-lat= */
static void test_buffer_switch(void)
{
	struct dev dev;
	uint64_t t[4];

	open_rw(&dev, BASE ",buffer=1M,switch-lat=1ms");
	t[0] = wr(&dev, 40 * MIB, 2 * MIB);
	t[1] = wr(&dev, 42 * MIB, 16 * KIB);
	t[2] = wr(&dev, 48 * MIB, 16 * KIB);
	t[3] = wr(&dev, 48 * MIB + 16 * KIB, 1 * MIB);
	dev_close(&dev);
	UNIT_CHECK(t[0] == 200 * US + 262144 * US + 131072 * US + 1 * MS,
		   "buffer=1M: the second MiB of a 2MiB write costs twice");
	UNIT_CHECK(t[1] == W16K, "switch-lat: same block, no cost");
	UNIT_CHECK(t[2] == W16K + 1 * MS, "switch-lat: another block");
	UNIT_CHECK(t[3] == 200 * US + 131072 * US,
		   "buffer=1M: a 1MiB write is not past it");
}

static void test_bad(void)
{
	struct dev dev;
	bool opened = open_rw(&dev, BASE ",bad=1M+4K,bad=100M+512");
	uint64_t t;

	UNIT_CHECK(opened, "bad= ranges accepted");
	UNIT_CHECK(rd(&dev, 1 * MIB, 4 * KIB) == FAIL &&
		   dev.error.errnum == EIO, "read in a bad range: EIO");
	UNIT_CHECK(rd(&dev, 1 * MIB, 4 * KIB) == FAIL, "and again");
	UNIT_CHECK(rd(&dev, 1 * MIB - 4 * KIB, 8 * KIB) == FAIL,
		   "read overlapping a bad range: EIO");
	UNIT_CHECK(rd(&dev, 1 * MIB - 4 * KIB, 4 * KIB) != FAIL &&
		   rd(&dev, 1 * MIB + 4 * KIB, 4 * KIB) != FAIL,
		   "reads next to a bad range work");
	UNIT_CHECK(rd(&dev, 100 * MIB, 512) == FAIL, "second range fails");
	t = wr(&dev, 1 * MIB + 2 * KIB, 512);
	UNIT_CHECK(t == FAIL && dev.error.errnum == EIO,
		   "write in a bad range: EIO");
	t = op(&dev, DISCARD, 0, 4 * MIB);
	UNIT_CHECK(t == FAIL, "discard touching a bad range: EIO");
	t = op(&dev, DISCARD, 4 * MIB, 4 * MIB);
	UNIT_CHECK(t != FAIL, "discard elsewhere works");
	dev_close(&dev);
}

/* slow=: the bytes inside the range move at its rate, read or written. */
static void test_slow(void)
{
	struct dev dev;
	/* BASE: reads at 10MB/s, writes at 8MB/s; 1MiB is 64 pages */
	const uint64_t read_1m = 100 * US + 104857600 + 63 * 7 * US;
	const uint64_t write_1m = 200 * US + 131072 * US;
	uint64_t t[6], plain;

	open_rw(&dev, BASE ",slow=40M+4M:2M,slow=100M+1M:1M");
	t[0] = rd(&dev, 40 * MIB, 1 * MIB);
	t[1] = rd(&dev, 39 * MIB + 512 * KIB, 1 * MIB);
	t[2] = rd(&dev, 50 * MIB, 1 * MIB);
	t[3] = wr(&dev, 41 * MIB, 1 * MIB);
	t[4] = rd(&dev, 100 * MIB, 1 * MIB);
	t[5] = rd(&dev, 43 * MIB + 512 * KIB, 57 * MIB);
	dev_close(&dev);
	UNIT_CHECK(t[0] == read_1m - 104857600 + 524288 * US,
		   "slow=40M+4M:2M: a 1MiB read inside takes 1MiB at 2MB/s");
	UNIT_CHECK(t[1] == read_1m + 50 * US - 52428800 + 262144 * US,
		   "slow: a read half inside pays the rate for that half");
	UNIT_CHECK(t[2] == read_1m, "slow: a read outside as before");
	UNIT_CHECK(t[3] == write_1m - 131072 * US + 524288 * US,
		   "slow: a 1MiB write inside takes 1MiB at 2MB/s");
	UNIT_CHECK(t[4] == read_1m - 104857600 + 1048576 * US,
		   "slow: each range its own rate");
	open_rw(&dev, BASE);
	plain = rd(&dev, 43 * MIB + 512 * KIB, 57 * MIB);
	dev_close(&dev);
	/* half a MiB in each: at 2MB/s and 1MB/s instead of 10MB/s */
	UNIT_CHECK(t[5] == plain - 2 * 52428800 + 262144 * US + 524288 * US,
		   "slow: a long read pays every range it crosses");
}

static void test_ro(void)
{
	struct dev dev;
	int err = dev_open(&dev, "sim:toshiba-7au,ro", DEV_READ_WRITE);
	uint64_t t;

	UNIT_CHECK(err == -EROFS && !dev.error.usage &&
		   strstr(dev.error.message, "write-protected"),
		   "ro card refuses read-write open: %s", dev.error.message);
	UNIT_CHECK(!dev.error.names_device &&
		   !strcmp(dev.error.message + dev.error.what_at,
			   "card is write-protected"),
		   "its message says what, for the caller to name the card");
	err = dev_open(&dev, "sim:ro", DEV_READ_ONLY);
	t = rd(&dev, 0, 4 * KIB);
	UNIT_CHECK(err == 0 && t != FAIL, "ro card opens and reads read-only");
	dev_close(&dev);
}

static const struct {
	const char *spec;
	const char *want;	/* must appear in the message */
} bad_specs[] = {
	{ "sim:foo=1", "unknown key 'foo' (keys with 'f': fat, fake," },
	{ "sim:zz=1", "unknown key 'zz' (keys: size, erase," },
	{ "sim:erase=x", "bad value for erase: 'x'" },
	{ "sim:page=48K", "sim: page 48KiB does not divide erase 4MiB" },
	{ "sim:erase=4M,prog=12K", "prog 12KiB does not divide" },
	{ "sim:size=1000", "bad value for size" },
	{ "sim:open=0", "bad value for open: '0'" },
	{ "sim:open=300", "bad value for open" },
	{ "sim:open=4,open-random=5", "open-random 5 exceeds open 4" },
	{ "sim:read-rate=0", "bad value for read-rate" },
	{ "sim:write-lat=fast", "bad value for write-lat" },
	{ "sim:gc=-1ms", "bad value for gc" },
	{ "sim:noise=2", "bad value for noise" },
	{ "sim:spikes=1.5", "bad value for spikes" },
	{ "sim:jitter=2", "bad value for jitter" },
	{ "sim:drift=0.6", "bad value for drift" },
	{ "sim:drift-reads=0", "bad value for drift-reads" },
	{ "sim:seed=x", "bad value for seed" },
	{ "sim:bad=5", "bad value for bad: '5'" },
	{ "sim:bad=1M+0", "bad value for bad" },
	{ "sim:slow=1G+64M", "bad value for slow: '1G+64M'" },
	{ "sim:slow=1G+64M:0", "bad value for slow" },
	{ "sim:slow=1G+0:2M", "bad value for slow" },
	{ "sim:slow=1G:2M", "bad value for slow" },
	{ "sim:size=1G,slow=1G+1M:2M", "slow range 1073741824+1048576 ends "
	  "past" },
	{ "sim:slow=1G+64M:2M,slow=1G+1M:1M", "slow ranges 1 and 2 overlap" },
	{ "sim:size=1G,bad=2G+1M", "bad range" },
	{ "sim:size=1G,fat=500", "fat 500 exceeds" },
	{ "sim:size=1M,fat=2", "fat 2 exceeds the card's 1 erase blocks" },
	{ "sim:toshiba-7au,size=8M,fat=3", "fat 3 exceeds" },
	{ "sim:ro=1", "'ro' takes no value" },
	{ "sim:size", "'size' needs a value" },
	{ "sim:nosuchcard", "unknown preset 'nosuchcard'" },
	{ "sim:erase=4M,toshiba-7au", "preset 'toshiba-7au' must come" },
	{ "sim:erase=4M,bogus", "unknown key 'bogus'" },
	{ "sim:,", "empty item" },
	{ "sim:erase=", "bad value for erase: ''" },
	{ "sim:cross=8K", "bad value for cross: '8K'" },
	{ "sim:cross=8K:50us/", "bad value for cross" },
	{ "sim:cross=1000:5us", "bad value for cross" },
	{ "sim:cross=8K:fast", "bad value for cross" },
	{ "sim:cross=", "bad value for cross" },
	{ "sim:cross=1K:1us/2K:1us/3K:1us/4K:1us/5K:1us/6K:1us/7K:1us/"
	  "8K:1us/9K:1us", "too many cross levels" },
	{ "sim:cross=8K:50us,page-cross=1us", "give one" },
	{ "sim:au-cross=9us,cross=8K:50us", "give one" },
	{ "sim:pace=slow", "bad value for pace" },
	{ "sim:pace=2s", "pace is at most 1s" },
	{ "sim:spill-rate=0", "bad value for spill-rate" },
	{ "sim:spill=300", "bad value for spill" },
	{ "sim:spill-buffer=100", "bad value for spill-buffer" },
	{ "sim:copy-rate=fast", "bad value for copy-rate" },
	{ "sim:cache=100", "bad value for cache" },
	{ "sim:cache-lat=x", "bad value for cache-lat" },
	{ "sim:cache-blocks=300", "bad value for cache-blocks" },
	{ "sim:granule=0", "bad value for granule" },
	{ "sim:buffer=1000", "bad value for buffer" },
	{ "sim:switch-lat=-1us", "bad value for switch-lat" },
	{ "sim:slc=1M:0", "bad value for slc: '1M:0'" },
	{ "sim:slc=100", "bad value for slc: '100'" },
	{ "sim:slc=:1M", "bad value for slc" },
	{ "sim:slc=1M:", "bad value for slc" },
	{ "sim:slc=1M,slc-fold=0", "bad value for slc-fold" },
	{ "sim:size=1G,slc=2G", "slc 2GiB is more than the card's size 1GiB" },
	{ "sim:slc-fold=5M", "slc-fold needs an SLC cache" },
	{ "sim:slc=1M,slc=0,slc-fold=5M", "slc-fold needs an SLC cache" },
	{ "sim:cache-any=2", "bad value for cache-any" },
};

static void test_bad_specs(void)
{
	for (size_t i = 0; i < sizeof(bad_specs) / sizeof(bad_specs[0]);
	     i++) {
		struct dev dev;
		int err = dev_open(&dev, bad_specs[i].spec, DEV_READ_ONLY);

		UNIT_CHECK(err == -EINVAL && dev.error.usage &&
			   strstr(dev.error.message, bad_specs[i].want),
			   "%s: usage error: %s", bad_specs[i].spec,
			   dev.error.message);
	}
}

static void test_good_specs(void)
{
	static const char *const specs[] = {
		"sim:erase=12M", "sim:erase=3M,page=16K",
		"sim:size=1G,erase=3M",
		"sim:toshiba-7au,noise=0,seed=5", "sim:read-rate=20M/s",
		"sim:open=1,open-random=0,fat=0", "sim:bad=0+512,ro",
		"sim:cross=12M:5us", "sim:pace=0",
		"sim:toshiba-7au,cross=8K:50us/16K:100us/4M:150us",
		"sim:slc=0", "sim:slc=1G:100M,slc-fold=5M",
		"sim:size=256G,slc=8G", "sim:cache-any=1",
	};

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct dev dev;
		int err = dev_open(&dev, specs[i], DEV_READ_ONLY);

		UNIT_CHECK(err == 0, "%s opens", specs[i]);
		dev_close(&dev);
	}
}

/* A tiny card: a preset's FAT area and open blocks shrink to fit it. */
static void test_tiny_card(void)
{
	static const struct {
		const char *spec;
		uint32_t fat, open, open_random;
	} cards[] = {
		{ "sim:size=1M", 1, 1, 1 },
		{ "sim:size=512K", 1, 1, 1 },
		{ "sim:toshiba-7au,size=12M", 3, 3, 3 },
		{ "sim:ramdisk,size=1M", 0, 1, 1 },
		{ "sim:size=1M,open=4", 1, 4, 1 },	/* given: kept */
		{ "sim:size=1M,fat=0", 0, 1, 1 },
		{ "sim:size=64M", 2, 6, 1 },		/* fits: as it was */
	};

	for (size_t i = 0; i < sizeof(cards) / sizeof(cards[0]); i++) {
		struct sim_geometry g = { 0 };
		struct dev dev;
		bool opened = open_rw(&dev, cards[i].spec);

		if (opened)
			sim_geometry(&dev, &g);
		UNIT_CHECK(opened && g.fat == cards[i].fat &&
			   g.open == cards[i].open &&
			   g.open_random == cards[i].open_random,
			   "%s opens with fat %u, open %u, %u random",
			   cards[i].spec, cards[i].fat, cards[i].open,
			   cards[i].open_random);
		if (opened) {
			UNIT_CHECK(wr(&dev, 0, 64 * KIB) != FAIL &&
				   rd(&dev, 0, 64 * KIB) != FAIL,
				   "%s reads and writes", cards[i].spec);
			dev_close(&dev);
		}
	}
}

/* A fixed mix of operations; their times go to t[0..99]. */
static void run_mix(const char *spec, uint64_t *t)
{
	struct dev dev;

	open_rw(&dev, spec);
	for (int i = 0; i < 100; i++) {
		uint64_t offset = (uint64_t)(i * 7919 % 256) * 64 * KIB;

		t[i] = op(&dev, i % 3 ? READ : WRITE, offset + 16 * MIB,
			  16 * KIB);
	}
	dev_close(&dev);
}

static void test_determinism(void)
{
	uint64_t a[100], b[100], c[100], plain[100];
	bool bounded = true;

	run_mix("sim:noise=0.05,seed=7", a);
	run_mix("sim:noise=0.05,seed=7", b);
	run_mix("sim:noise=0.05,seed=8", c);
	run_mix("sim:noise=0,seed=7", plain);
	UNIT_CHECK(memcmp(a, b, sizeof(a)) == 0, "same seed, same times");
	UNIT_CHECK(memcmp(a, c, sizeof(a)) != 0, "other seed, other times");
	for (int i = 0; i < 100; i++)
		bounded &= a[i] >= plain[i] * 0.95 && a[i] <= plain[i] * 1.05 &&
			   a[i] != FAIL;
	UNIT_CHECK(bounded, "noise=0.05 stays within 5%%");
}

static void test_spikes(void)
{
	struct dev dev;
	int spikes = 0, wrong = 0;
	uint64_t base = 100 * US + 409600;

	open_rw(&dev, BASE ",spikes=0.2,seed=3");
	for (int i = 0; i < 1000; i++) {
		uint64_t t = rd(&dev, 0, 4 * KIB);

		if (t >= 5 * base && t <= 20 * base)
			spikes++;
		else if (t != base)
			wrong++;
	}
	dev_close(&dev);
	UNIT_CHECK(wrong == 0 && spikes > 120 && spikes < 280,
		   "spikes=0.2: %d of 1000 reads 5-20x longer", spikes);
}

/* on - pre in us for 1KiB reads at a boundary, as the align test sees */
static int64_t crossing_us(struct dev *dev, uint64_t boundary)
{
	int64_t on = (int64_t)rd(dev, boundary - 512, 1 * KIB);

	return (on - (int64_t)rd(dev, boundary - 1 * KIB, 1 * KIB)) / 1000;
}

/* Times of n 4KiB reads at offset 0 of spec, into t. */
static void read_series(const char *spec, uint64_t *t, int n)
{
	struct dev dev;

	open_rw(&dev, spec);
	for (int i = 0; i < n; i++)
		t[i] = rd(&dev, 0, 4 * KIB);
	dev_close(&dev);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* jitter=: reads only ever slower, most a little, a few very much. */
static void test_jitter(void)
{
	static uint64_t t[10000], again[10000];
	const double base = 100 * US + 409600;	/* a 4KiB read of BASE */
	int over10 = 0, over50 = 0, faster = 0;
	struct dev dev;
	uint64_t w[2];

	read_series(BASE ",jitter=0.1,seed=5", t, 10000);
	read_series(BASE ",jitter=0.1,seed=5", again, 10000);
	UNIT_CHECK(memcmp(t, again, sizeof(t)) == 0,
		   "jitter: same seed, same times");
	for (int i = 0; i < 10000; i++) {
		faster += (double)t[i] < base;
		over10 += (double)t[i] > base * (1 + 0.1 * 10);
		over50 += (double)t[i] > base * (1 + 0.1 * 50);
	}
	qsort(t, 10000, sizeof(t[0]), cmp_u64);
	UNIT_CHECK(faster == 0, "jitter: no read faster than the model");
	UNIT_CHECK((double)t[5000] > base * 1.05 &&
		   (double)t[5000] < base * 1.07,
		   "jitter=0.1: the median read 5.9%% slower: %.4f",
		   (double)t[5000] / base);
	UNIT_CHECK(over10 > 150 && over10 < 400,
		   "jitter=0.1: %d in 10000 reads more than twice as long "
		   "(Pareto: 270)", over10);
	UNIT_CHECK(over50 > 10 && over50 < 60,
		   "jitter=0.1: %d in 10000 reads more than 6x (Pareto: 27)",
		   over50);
	open_rw(&dev, BASE ",jitter=0.1");
	w[0] = wr(&dev, 40 * MIB, 16 * KIB);
	w[1] = wr(&dev, 40 * MIB + 16 * KIB, 16 * KIB);
	dev_close(&dev);
	UNIT_CHECK(w[0] == W16K && w[1] == W16K, "jitter: writes keep "
		   "their time");
}

/* drift=: the read time wanders slowly, by about drift, around the model. */
static void test_drift(void)
{
	static uint64_t t[100000];
	const double base = 100 * US + 409600;
	double sum = 0, sum2 = 0, max_step = 0, lo = 1e30, hi = 0;

	read_series(BASE ",drift=0.05,seed=2", t, 100000);
	for (int i = 0; i < 100000; i++) {
		double f = (double)t[i] / base - 1;

		sum += f;
		sum2 += f * f;
		lo = f < lo ? f : lo;
		hi = f > hi ? f : hi;
		if (i && fabs((double)t[i] - (double)t[i - 1]) > max_step)
			max_step = fabs((double)t[i] - (double)t[i - 1]);
	}
	sum /= 100000;
	UNIT_CHECK(fabs(sum) < 0.02, "drift: the mean stays the model's: "
		   "%+.4f", sum);
	UNIT_CHECK(sqrt(sum2 / 100000 - sum * sum) > 0.035 &&
		   sqrt(sum2 / 100000 - sum * sum) < 0.065,
		   "drift=0.05: the read time's deviation is about 5%%: %.4f",
		   sqrt(sum2 / 100000 - sum * sum));
	UNIT_CHECK(max_step < base * 0.01 && hi - lo > 0.1,
		   "drift: from read to read under 1%%, over the run "
		   "%.3f to %+.3f", lo, hi);
	read_series(BASE ",drift=0.05,drift-reads=10,seed=2", t, 1000);
	max_step = 0;
	for (int i = 1; i < 1000; i++)
		if (fabs((double)t[i] - (double)t[i - 1]) > max_step)
			max_step = fabs((double)t[i] - (double)t[i - 1]);
	UNIT_CHECK(max_step > base * 0.02, "drift-reads=10: it turns faster");
}

static void test_odd_erase(void)
{
	struct dev dev;

	open_rw(&dev, BASE ",erase=12M");
	UNIT_CHECK(crossing_us(&dev, 12 * MIB) == 57 &&
		   crossing_us(&dev, 24 * MIB) == 57 &&
		   crossing_us(&dev, 36 * MIB) == 57,
		   "erase=12M: boundaries at multiples of 12MiB");
	UNIT_CHECK(crossing_us(&dev, 8 * MIB) == 7 &&
		   crossing_us(&dev, 16 * MIB) == 7 &&
		   crossing_us(&dev, 32 * MIB) == 7,
		   "erase=12M: none at 8, 16, 32MiB");
	dev_close(&dev);
	open_rw(&dev, BASE ",erase=3M");
	UNIT_CHECK(crossing_us(&dev, 3 * MIB) == 57 &&
		   crossing_us(&dev, 4 * MIB) == 7 &&
		   crossing_us(&dev, 6 * MIB) == 57,
		   "erase=3M: boundaries at 3 and 6MiB, not 4MiB");
	dev_close(&dev);
}

static void test_su08g_align(void)
{
	struct dev dev;

	dev_open(&dev, "sim:sandisk-su08g,noise=0", DEV_READ_ONLY);
	UNIT_CHECK(rd(&dev, 0, 1 * KIB) > 460 * US &&
		   rd(&dev, 0, 1 * KIB) < 510 * US, "su08g: 1KiB read ~470us");
	UNIT_CHECK(crossing_us(&dev, 64 * MIB) > 95 &&
		   crossing_us(&dev, 4 * MIB) < 115,
		   "su08g: ~100us more across 4MiB boundaries");
	UNIT_CHECK(crossing_us(&dev, 2 * MIB) < 10 &&
		   crossing_us(&dev, 2 * MIB) > 0 &&
		   crossing_us(&dev, 4 * KIB) == 0,
		   "su08g: a few us across pages, none inside one");
	dev_close(&dev);
}

/* xorshift for the test's own shuffles */
static uint32_t shuffle_next(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

static void shuffle(uint64_t *pos, uint64_t n, bool random)
{
	uint32_t state = 12345;

	for (uint64_t i = 0; i < n; i++)
		pos[i] = i;
	for (uint64_t i = n; random && i > 1; i--) {
		uint64_t j = shuffle_next(&state) % i, tmp = pos[i - 1];

		pos[i - 1] = pos[j];
		pos[j] = tmp;
	}
}

/*
 * The open-AU test: for block sizes 4MiB down to 8KiB, every position of
 * an erase block in turn in each of n erase blocks 12 apart from 16MiB.
 * rate[k] is bytes per second at size 4MiB >> k.
 */
static void open_au(const char *spec, unsigned int n, bool random,
		    double *rate)
{
	static uint64_t pos[512];
	struct dev dev;

	open_rw(&dev, spec);
	for (int k = 0; k < 10; k++) {
		uint64_t size = 4 * MIB >> k, count = 4 * MIB / size, ns = 0;

		shuffle(pos, count, random);
		for (uint64_t i = 0; i < count; i++)
			for (unsigned int au = 0; au < n; au++)
				ns += wr(&dev, 16 * MIB + au * 48 * MIB +
					 pos[i] * size, size);
		rate[k] = (double)(count * n * size) * 1e9 / (double)ns;
	}
	dev_close(&dev);
}

/*
 * Is the rate with n blocks below 70% of the rate with n - 1 at every size
 * below limit?  *holds_above: and above 70% at the sizes above limit.
 */
static bool falls_below(const char *spec, unsigned int n, bool random,
			uint64_t limit, bool *holds_above)
{
	double fewer[10], more[10];
	bool falls = true;

	open_au(spec, n - 1, random, fewer);
	open_au(spec, n, random, more);
	*holds_above = true;
	for (int k = 0; k < 10; k++) {
		if ((4 * MIB >> k) < limit)
			falls &= more[k] < 0.7 * fewer[k];
		else if ((4 * MIB >> k) > limit)
			*holds_above &= more[k] > 0.7 * fewer[k];
	}
	return falls;
}

/* Is every rate in more[from..to] within [lo, hi] times that in fewer? */
static bool scaled(const double *more, const double *fewer, int from,
		   int to, double lo, double hi)
{
	bool within = true;

	for (int k = from; k <= to; k++)
		within &= more[k] >= lo * fewer[k] && more[k] <= hi * fewer[k];
	return within;
}

/*
 * The SU08G's published sweeps (-O -e 4M -b 8K): about 10.7MB/s with 1 to
 * 6 open; with 7 every size from 4MiB to 16KiB drops to about half, not
 * to gc-bound rates; with 8 the 8KiB row collapses.  In random order 8KiB
 * writes beat 16KiB ones (the small-write cache) and 512KiB ones keep up.
 */
static void test_su08g_shapes(void)
{
	double six[10], seven[10], eight[10], linear2[10], random2[10];
	double rate[10];
	bool steady = true;

	for (unsigned int n = 1; n <= 6; n++) {
		open_au("sim:sandisk-su08g", n, false, rate);
		steady &= rate[0] > 10.4e6 && rate[0] < 11e6 && rate[3] > 10e6;
	}
	UNIT_CHECK(steady, "su08g: ~10.7MB/s for 1 to 6 open blocks");
	open_au("sim:sandisk-su08g", 6, false, six);
	open_au("sim:sandisk-su08g", 7, false, seven);
	open_au("sim:sandisk-su08g", 8, false, eight);
	UNIT_CHECK(scaled(seven, six, 0, 8, 0.4, 0.8),
		   "su08g: 7 blocks degrade to about half from 4MiB to 16KiB");
	UNIT_CHECK(scaled(eight, six, 0, 8, 0.3, 0.8) &&
		   eight[9] < 0.2 * seven[9],
		   "su08g: 8 blocks collapse at 8KiB only");
	open_au("sim:sandisk-su08g", 2, false, linear2);
	open_au("sim:sandisk-su08g", 2, true, random2);
	UNIT_CHECK(random2[9] > 2 * random2[8],
		   "su08g: 8KiB random writes beat 16KiB ones");
	UNIT_CHECK(scaled(random2, linear2, 5, 8, 0, 0.6) &&
		   scaled(random2, linear2, 0, 3, 0.9, 1.1),
		   "su08g: random writes fall off below 256KiB only");
}

static void test_shapes(void)
{
	double rate[10];
	bool falls, above;

	test_su08g_shapes();
	falls = falls_below("sim:toshiba-7au", 8, false, 1 * MIB, &above);
	UNIT_CHECK(falls && above, "toshiba-7au: 7 hold, 8 fall below 1MiB");
	falls = falls_below("sim:sandisk-20au", 21, false, 2 * MIB, &above);
	UNIT_CHECK(falls && above,
		   "sandisk-20au: 20 hold, 21 fall below 2MiB");
	open_au("sim:toshiba-7au", 1, false, rate);
	UNIT_CHECK(rate[8] < 0.52 * rate[7],
		   "toshiba-7au: 16KiB writes half as fast as 32KiB");
	open_au("sim:toshiba-7au", 1, false, rate);
	UNIT_CHECK(rate[0] < 0.8 * rate[3],
		   "toshiba-7au: a whole 4MiB write is slower than 512KiB "
		   "ones (buffer)");
}

/*
 * Writes of 16KiB round robin over n erase blocks from block 10, 32 a
 * block: the slowest and the fastest of them.
 */
static void round_robin_range(const char *spec, unsigned int n,
			      uint64_t *min_ns, uint64_t *max_ns)
{
	struct dev dev;

	*min_ns = UINT64_MAX;
	*max_ns = 0;
	open_rw(&dev, spec);
	for (uint64_t pos = 0; pos < 32; pos++)
		for (unsigned int i = 0; i < n; i++) {
			uint64_t t = wr(&dev, (10 + i) * 4 * MIB +
					pos * 16 * KIB, 16 * KIB);

			*min_ns = t < *min_ns ? t : *min_ns;
			*max_ns = t > *max_ns ? t : *max_ns;
		}
	dev_close(&dev);
}

/* ramdisk: no read step, no open limit, no order penalty. */
static void test_ramdisk(void)
{
	const char *flat = "sim:ramdisk,noise=0,spikes=0";
	uint64_t min_ns, max_ns, on, off, down = 0;
	struct dev dev;

	round_robin_range(flat, 32, &min_ns, &max_ns);
	UNIT_CHECK(min_ns == max_ns && max_ns < 100 * US,
		   "ramdisk: 16KiB writes to 32 blocks in turn all take "
		   "%llu ns", (unsigned long long)max_ns);
	open_rw(&dev, flat);
	on = rd(&dev, 4 * MIB - 2 * KIB, 4 * KIB);
	off = rd(&dev, 4 * MIB + 2 * KIB, 4 * KIB);
	for (uint64_t pos = 64; pos-- > 0; )
		down += wr(&dev, 100 * MIB + pos * 4 * KIB, 4 * KIB) !=
			wr(&dev, 200 * MIB + pos * 4 * KIB, 4 * KIB);
	dev_close(&dev);
	UNIT_CHECK(on == off, "ramdisk: crossing an erase block costs "
		   "nothing");
	UNIT_CHECK(down == 0, "ramdisk: descending writes cost the same");
	open_rw(&dev, "sim:ramdisk");
	on = rd(&dev, 0, 4 * KIB);
	off = rd(&dev, 0, 4 * KIB);
	dev_close(&dev);
	UNIT_CHECK(on != off, "ramdisk: has noise by default");
}

/*
 * reader-cache=: writes that fit the reader's cache cost reader-lat and
 * their bytes at reader-rate, whatever the card does; the one that does
 * not fit waits for all of them to reach the card.
 */
static void test_reader_cache(void)
{
	const char *cached = BASE ",reader-cache=1M,reader-lat=10us,"
			     "reader-rate=32M";
	const uint64_t fast = 10 * US + 512 * US;	/* 16KiB at 32MB/s */
	uint64_t min_ns, max_ns, t[3];
	struct dev dev;

	open_rw(&dev, cached);
	for (uint64_t pos = 0; pos < 64; pos++)	/* 1MiB: all fit */
		t[0] = wr(&dev, (10 + pos % 8) * 4 * MIB + pos / 8 * 16 * KIB,
			  16 * KIB);
	t[1] = wr(&dev, 90 * MIB, 16 * KIB);
	t[2] = wr(&dev, 95 * MIB, 16 * KIB);
	dev_close(&dev);
	UNIT_CHECK(t[0] == fast, "reader-cache: 8 blocks in turn at the "
		   "reader's rate");
	/* the 64 writes reach the card: 8 blocks over open=3, 61 gcs */
	UNIT_CHECK(t[1] == fast + 64 * W16K + 61 * 10 * MS,
		   "reader-cache: a full cache flushes to the card");
	UNIT_CHECK(t[2] == fast, "reader-cache: empty again after a flush");
	open_rw(&dev, cached);
	t[0] = wr(&dev, 40 * MIB, 16 * KIB);
	t[1] = wr(&dev, 44 * MIB, 2 * MIB);
	dev_close(&dev);
	UNIT_CHECK(t[1] == W16K + 200 * US + 262144 * US,
		   "reader-cache: a write larger than the cache goes to the "
		   "card after what it held");
	round_robin_range("sim:cached-reader,noise=0", 12, &min_ns, &max_ns);
	UNIT_CHECK(max_ns == min_ns && max_ns < 1 * MS,
		   "cached-reader: 12 blocks in turn below the cache, no "
		   "limit shows");
	round_robin_range("sim:sandisk-su08g,noise=0", 12, &min_ns, &max_ns);
	UNIT_CHECK(max_ns > 10 * MS, "the same card without the reader: "
		   "gc on 12 blocks in turn");
}

/*
 * slc=: a write's bytes go into the cache at its rate while it has room,
 * the rest at write-rate; reads and idle time fold it at slc-fold.
 */
static void test_slc(void)
{
	const char *spec = BASE ",slc=1M:32M,slc-fold=1M";
	/* 256KiB at 32 MB/s, at 8 MB/s */
	const uint64_t fast = 200 * US + 8192 * US, slow = 200 * US + 32768 * US;
	uint64_t t[7];
	struct dev dev;

	open_rw(&dev, spec);
	for (int i = 0; i < 4; i++)		/* 1MiB: fills the cache */
		t[0] = wr(&dev, 8 * MIB + (uint64_t)i * 256 * KIB, 256 * KIB);
	t[1] = wr(&dev, 9 * MIB, 256 * KIB);
	UNIT_CHECK(sim_idle(&dev, 131072 * US) == 0, "slc: idle");
	/* 128KiB folded at 1 MB/s: half the next write at each rate */
	t[2] = wr(&dev, 9 * MIB + 256 * KIB, 256 * KIB);
	t[3] = wr(&dev, 9 * MIB + 512 * KIB, 256 * KIB);
	rd(&dev, 16 * MIB, 1 * MIB);		/* 105ms: 105KB, saving 9.8ms */
	t[4] = wr(&dev, 9 * MIB + 768 * KIB, 256 * KIB);
	dev_close(&dev);
	open_rw(&dev, BASE ",slc=1M");		/* 4 x 8 MB/s */
	t[5] = wr(&dev, 8 * MIB, 256 * KIB);
	t[6] = wr(&dev, 8 * MIB + 256 * KIB, 4 * KIB);
	dev_close(&dev);
	UNIT_CHECK(t[6] == 200 * US + 512 * US, "slc: a small write "
		   "programs a whole 16KiB unit there");
	UNIT_CHECK(t[0] == fast, "slc: writes at its rate while it has room");
	UNIT_CHECK(t[1] == slow, "slc: full, writes at write-rate");
	UNIT_CHECK(t[2] == 200 * US + 4096 * US + 16384 * US,
		   "slc: idle time folds it at slc-fold");
	UNIT_CHECK(t[3] == slow, "slc: what was folded is used up");
	UNIT_CHECK(t[4] > fast && t[4] < slow - 9 * MS,
		   "slc: reads fold it too");
	UNIT_CHECK(t[5] == fast, "slc: its rate is 4 x write-rate by "
		   "default");
}

/*
 * cache-any=1: a small write to a block that is not open goes to the
 * small-write cache for cache-lat, opening none and closing none.
 */
static void test_cache_any(void)
{
	const char *spec = BASE ",cache=4K,cache-lat=50us";
	uint64_t t[2];
	struct dev dev;

	for (int any = 0; any < 2; any++) {
		open_rw(&dev, any ? BASE ",cache=4K,cache-lat=50us,"
			"cache-any=1" : spec);
		for (uint64_t b = 0; b < 8; b++)	/* 8 blocks, 3 open */
			t[any] = wr(&dev, (10 + b) * 4 * MIB, 4 * KIB);
		dev_close(&dev);
	}
	UNIT_CHECK(t[0] == W16K + 10 * MS, "without cache-any: a 4KiB write "
		   "to an eighth block closes one");
	UNIT_CHECK(t[1] == W16K + 50 * US, "cache-any: it goes to the cache");
}

#define SALT	0x5eed5a17ULL

/* Write length bytes of stamps naming named on, at offset. */
static bool stamp_at(struct dev *dev, uint64_t offset, uint64_t named,
		     uint64_t length, uint64_t salt)
{
	uint64_t ns;

	stamp_fill(buffer, named, length, 512, salt);
	return dev_write(dev, buffer, offset, length, &ns) == 0;
}

/* Do length bytes at offset read back as the stamps naming named on? */
static bool reads_stamps(struct dev *dev, uint64_t offset, uint64_t named,
			 uint64_t length, uint64_t salt)
{
	static char want[1 * MIB];
	uint64_t ns;

	stamp_fill(want, named, length, 512, salt);
	return dev_read(dev, buffer, offset, length, &ns) == 0 &&
	       memcmp(want, buffer, length) == 0;
}

static struct sim_stats stats_of(const struct dev *dev)
{
	struct sim_stats st;

	sim_stats(dev, &st);
	return st;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * A fake= card keeps a stamp of 512-byte blocks as what names it, and
 * makes it again on read: a stamp fill of a whole card takes one run.
 */
static void test_compact_stamps(void)
{
	const uint64_t card = 256 * MIB;
	long rss_before = peak_rss_kib();
	bool wrote = true, read = true;
	struct sim_stats st;
	struct dev dev;

	open_rw(&dev, "sim:noise=0,size=256M,fake=256M");
	UNIT_CHECK(dev_has(&dev, DEV_CAP_KEEPS_DATA | DEV_CAP_MODEL_TIME) &&
		   !dev_has(&dev, DEV_CAP_OUTLIVES_CLOSE),
		   "a fake= card keeps its data until it is closed");
	for (uint64_t at = 0; at < card; at += 1 * MIB)
		wrote &= stamp_at(&dev, at, at, 1 * MIB, SALT);
	st = stats_of(&dev);
	for (uint64_t at = 0; at < card; at += 1 * MIB)
		read &= reads_stamps(&dev, at, at, 1 * MIB, SALT);
	UNIT_CHECK(wrote && read, "stamps: a 256MiB fill reads back byte "
		   "for byte");
	UNIT_CHECK(st.stamp_runs == 1 && st.held_bytes < 64 * KIB,
		   "stamps: kept as %llu run in %llu bytes",
		   (unsigned long long)st.stamp_runs,
		   (unsigned long long)st.held_bytes);
	UNIT_CHECK(peak_rss_kib() - rss_before < 8 * 1024,
		   "stamps: peak RSS grew %ld KiB", peak_rss_kib() - rss_before);

	/* bytes in the middle split the run; stamps again join it */
	memset(buffer, 0x5a, 4 * KIB);
	dev_write(&dev, buffer, 100 * MIB, 4 * KIB, &(uint64_t){ 0 });
	UNIT_CHECK(stats_of(&dev).held_bytes > 4 * KIB &&
		   reads_stamps(&dev, 100 * MIB - 1 * MIB, 100 * MIB - 1 * MIB,
				1 * MIB, SALT) &&
		   dev_read(&dev, buffer, 100 * MIB, 4 * KIB,
			    &(uint64_t){ 0 }) == 0 &&
		   buffer[0] == 0x5a && buffer[4 * KIB - 1] == 0x5a,
		   "stamps: other bytes over them read back as written");
	stamp_at(&dev, 100 * MIB, 100 * MIB, 4 * KIB, SALT);
	UNIT_CHECK(stats_of(&dev).stamp_runs == 1 &&
		   reads_stamps(&dev, 100 * MIB, 100 * MIB, 1 * MIB, SALT),
		   "stamps over them again: one run");
	stamp_at(&dev, 10 * MIB, 10 * MIB, 1 * MIB, SALT + 1);
	UNIT_CHECK(stats_of(&dev).stamp_runs == 3 &&
		   reads_stamps(&dev, 10 * MIB, 10 * MIB, 1 * MIB, SALT + 1) &&
		   reads_stamps(&dev, 11 * MIB, 11 * MIB, 1 * MIB, SALT),
		   "another run's salt in the middle: three runs");
	dev_close(&dev);
}

/* A stamp that names another offset than its own reads back as written. */
static void test_stamp_aliases(void)
{
	struct dev dev;
	unsigned char *garbage = (unsigned char *)buffer;

	open_rw(&dev, "sim:noise=0,size=64M,fake=16M");
	UNIT_CHECK(stamp_at(&dev, 20 * MIB, 20 * MIB, 1 * MIB, SALT) &&
		   reads_stamps(&dev, 4 * MIB, 20 * MIB, 1 * MIB, SALT) &&
		   reads_stamps(&dev, 20 * MIB, 20 * MIB, 1 * MIB, SALT),
		   "wrap: a stamp aliased to offset mod real names its own "
		   "offset at both");
	UNIT_CHECK(stamp_at(&dev, 1 * MIB, 7 * MIB + 512, 64 * KIB, SALT) &&
		   reads_stamps(&dev, 1 * MIB, 7 * MIB + 512, 64 * KIB, SALT),
		   "a stamp written where it does not belong reads back as "
		   "written");
	stamp_fill(buffer, 2 * MIB, 1024, 512, SALT);
	garbage[100] ^= 1;		/* filler off: not a stamp */
	garbage[512 + 24] ^= 1;		/* checksum off: not a stamp */
	dev_write(&dev, buffer, 2 * MIB, 1024, &(uint64_t){ 0 });
	memcpy(buffer + 1 * MIB, buffer, 1024);
	UNIT_CHECK(dev_read(&dev, buffer, 2 * MIB, 1024,
			    &(uint64_t){ 0 }) == 0 &&
		   memcmp(buffer, buffer + 1 * MIB, 1024) == 0,
		   "a block that is almost a stamp reads back as written");
	dev_close(&dev);
}

/*
 * The card's own stamp and verify operations: the bytes dev_write of a
 * stamp fill would leave, in the time it would take; verify says yes
 * only where every block is its own stamp of the salt.
 */
static void test_stamp_ops(void)
{
	uint64_t ns = 0, write_ns = 0, read_ns = 0;
	struct dev dev, twin, plain;

	open_rw(&dev, "sim:noise=0,size=64M,fake=16M");
	open_rw(&twin, "sim:noise=0,size=64M,fake=16M");
	UNIT_CHECK(dev_stamp(&dev, 0, 1 * MIB, SALT, &ns) == 0 &&
		   stamp_at(&twin, 0, 0, 1 * MIB, SALT) &&
		   dev_read(&twin, buffer, 0, 1 * MIB, &read_ns) == 0,
		   "stamp op: written");
	dev_write(&twin, buffer, 1 * MIB, 1 * MIB, &write_ns);
	dev_stamp(&dev, 1 * MIB, 1 * MIB, SALT, &ns);
	UNIT_CHECK(ns == write_ns, "stamp op: the time of the write (%llu, "
		   "%llu ns)", (unsigned long long)ns,
		   (unsigned long long)write_ns);
	UNIT_CHECK(dev_verify_stamps(&dev, 0, 1 * MIB, SALT, &ns) &&
		   ns == read_ns, "verify op: the time of the read");
	UNIT_CHECK(dev_stamp(&dev, 0, 32 * MIB, SALT, &ns) == 0 &&
		   stats_of(&dev).stamp_runs == 1 &&
		   reads_stamps(&dev, 8 * MIB, 24 * MIB, 1 * MIB, SALT) &&
		   reads_stamps(&dev, 24 * MIB, 24 * MIB, 1 * MIB, SALT),
		   "stamp op over the wrap: the bytes a write leaves, one run");
	UNIT_CHECK(dev_verify_stamps(&dev, 16 * MIB, 16 * MIB, SALT, &ns) &&
		   !dev_verify_stamps(&dev, 0, 1 * MIB, SALT, &ns) &&
		   !dev_verify_stamps(&dev, 16 * MIB, 1 * MIB, SALT + 1, &ns) &&
		   !dev_verify_stamps(&dev, 32 * MIB, 1 * MIB, SALT, &ns),
		   "verify op: yes only for blocks holding their own stamp");
	memset(buffer, 0x5a, 4 * KIB);
	dev_write(&dev, buffer, 20 * MIB, 4 * KIB, &ns);
	UNIT_CHECK(!dev_verify_stamps(&dev, 16 * MIB, 16 * MIB, SALT, &ns) &&
		   dev_verify_stamps(&dev, 16 * MIB, 4 * MIB, SALT, &ns) &&
		   dev_verify_stamps(&dev, 20 * MIB + 4 * KIB, 1 * MIB, SALT,
				     &ns),
		   "verify op: other bytes over a stamp are no stamp");
	open_rw(&plain, "sim:noise=0,size=64M");
	UNIT_CHECK(dev_stamp(&plain, 0, 1 * MIB, SALT, &ns) == -EOPNOTSUPP &&
		   !dev_verify_stamps(&plain, 0, 1 * MIB, SALT, &ns),
		   "a card that keeps no data has no stamp ops");
	dev_close(&plain);
	dev_close(&twin);
	dev_close(&dev);
}

/* Under a wrapper such as valgrind only a gross slowdown counts. */
static void test_speed(void)
{
	const char *wrapper = getenv("UNIT_WRAPPER");
	double limit = wrapper && *wrapper ? 30.0 : 0.5, seconds;
	clock_t start = clock();
	struct dev dev;

	dev_open(&dev, "sim:", DEV_READ_ONLY);
	for (uint64_t i = 0; i < 1000000; i++)
		rd(&dev, (i * 4 * KIB) % (1024 * MIB), 4 * KIB);
	seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
	dev_close(&dev);
	UNIT_CHECK(seconds < limit, "a million 4KiB reads in %.3fs of CPU",
		   seconds);
}

int main(void)
{
	test_open();
	test_presets();
	test_read_cost();
	test_cross_levels();
	test_big_transfer();
	test_prog();
	test_open_lru();
	test_out_of_order();
	test_restart();
	test_discard();
	test_spill();
	test_stream();
	test_copy();
	test_cache();
	test_cache_blocks();
	test_granule();
	test_buffer_switch();
	test_ramdisk();
	test_reader_cache();
	test_slc();
	test_cache_any();
	test_bad();
	test_slow();
	test_compact_stamps();
	test_stamp_aliases();
	test_stamp_ops();
	test_ro();
	test_bad_specs();
	test_good_specs();
	test_tiny_card();
	test_determinism();
	test_spikes();
	test_jitter();
	test_drift();
	test_odd_erase();
	test_su08g_align();
	test_shapes();
	test_speed();
	return UNIT_DONE();
}
