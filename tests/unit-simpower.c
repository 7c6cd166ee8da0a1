/*
 * unit-simpower: the simulated card's power-fault model through the
 * dev.h API.  Writes, flushes and cuts driven directly: what a volatile
 * cache keeps under each flush=, what each cut-* key does and only that,
 * every operation failing while the power is off, and the same seed
 * giving the same outcome.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "dev.h"
#include "engines/sim.h"
#include "lib/units.h"
#include "simcard.h"
#include "unit.h"

#define MS	1000000ULL
#define SECTOR	512ULL
#define UNIT	4096ULL

/* Times exact and nothing drawn but what the faults draw. */
#define CARD "sim:noise=0,size=64M,erase=4M,page=16K,prog=16K"

static unsigned char buffer[4 * MIB];
static unsigned char before[4 * MIB];

static int put(struct dev *dev, uint64_t offset, uint64_t length,
	       unsigned tag)
{
	uint64_t ns;

	simcard_fill(buffer, offset, length, tag);
	return dev_write(dev, buffer, offset, length, &ns);
}

/* Does sector offset read back as tag's?  (false on a read error) */
static bool sector_is(struct dev *dev, uint64_t offset, unsigned tag)
{
	unsigned char want[SECTOR], got[SECTOR];
	uint64_t ns;

	simcard_fill(want, offset, SECTOR, tag);
	return dev_read(dev, got, offset, SECTOR, &ns) == 0 &&
	       memcmp(want, got, SECTOR) == 0;
}

/* Sectors of the range that read back as tag's. */
static uint64_t count_is(struct dev *dev, uint64_t offset, uint64_t length,
			 unsigned tag)
{
	uint64_t n = 0;

	for (uint64_t at = 0; at < length; at += SECTOR)
		n += sector_is(dev, offset + at, tag);
	return n;
}

static bool holds(struct dev *dev, uint64_t offset, uint64_t length,
		  unsigned tag)
{
	return count_is(dev, offset, length, tag) == length / SECTOR;
}

/* Does the range read back exactly as saved (in before)? */
static bool as_before(struct dev *dev, uint64_t offset, uint64_t length)
{
	uint64_t ns;

	return dev_read(dev, buffer, offset, length, &ns) == 0 &&
	       memcmp(buffer, before, (size_t)length) == 0;
}

static void save(struct dev *dev, uint64_t offset, uint64_t length)
{
	uint64_t ns;

	dev_read(dev, before, offset, length, &ns);
}

/* The power cut now, and on again. */
static void cut_and_on(struct dev *dev)
{
	dev_power_cut(dev, 0);
	dev_power_on(dev);
}

/*
 * A card of spec (checked to open), the first 64 KiB saved, then
 * written with tag and flushed (checked to succeed, as the card says).
 */
static void flushed(struct dev *dev, const char *spec, unsigned tag)
{
	UNIT_CHECK(simcard_open(dev, spec), "%s opens", spec);
	save(dev, 0, 64 * KIB);
	put(dev, 0, 64 * KIB, tag);
	UNIT_CHECK(dev_flush(dev) == 0, "%s: the flush succeeds", spec);
}

static void test_off(void)
{
	struct dev dev;
	uint64_t ns;

	UNIT_CHECK(simcard_open(&dev, "sim:size=64M"), "a card that keeps no "
		   "data opens");
	UNIT_CHECK(dev_power_cut(&dev, 0) == 0, "its power can be cut");
	UNIT_CHECK(dev_read(&dev, NULL, 0, 4096, &ns) == -EIO,
		   "off: a read fails with EIO");
	UNIT_CHECK(dev_power_on(&dev) == 0 &&
		   dev_read(&dev, NULL, 0, 4096, &ns) == 0,
		   "on again: it reads");
	dev_close(&dev);

	UNIT_CHECK(simcard_open(&dev, CARD ",volatile=1M"), "a volatile card");
	put(&dev, 0, 64 * KIB, 1);
	dev_power_cut(&dev, 0);
	UNIT_CHECK(dev_read(&dev, buffer, 0, 4096, &ns) == -EIO,
		   "off: read EIO");
	UNIT_CHECK(put(&dev, 0, 4096, 2) == -EIO, "off: write EIO");
	UNIT_CHECK(dev_flush(&dev) == -EIO, "off: flush EIO");
	UNIT_CHECK(dev_discard(&dev, 0, 4 * MIB, &ns) == -EIO,
		   "off: discard EIO");
	UNIT_CHECK(dev_power_cut(&dev, 0) == 0, "a cut while off is nothing");
	UNIT_CHECK(dev_power_on(&dev) == 0 && dev_read(&dev, buffer, 0, 4096,
						       &ns) == 0,
		   "on again: every operation works");
	UNIT_CHECK(dev_has(&dev, DEV_CAP_KEEPS_DATA),
		   "a power-fault key makes the card keep its data");
	dev_close(&dev);
}

static void test_honest(void)
{
	struct dev dev;
	uint64_t ns = 1;

	UNIT_CHECK(simcard_open(&dev, CARD ",volatile=1M,flush=honest"),
		   "volatile=1M,flush=honest opens");
	UNIT_CHECK(dev_flush(&dev) == 0 && dev.stats.time_ns == 0,
		   "honest: an empty cache flushes in no time");
	save(&dev, MIB, 64 * KIB);
	put(&dev, 0, 64 * KIB, 1);
	UNIT_CHECK(holds(&dev, 0, 64 * KIB, 1), "reads see the cache");
	ns = dev.stats.time_ns;
	UNIT_CHECK(dev_flush(&dev) == 0, "honest: the flush succeeds");
	ns = dev.stats.time_ns - ns;
	/* plain's write-lat and write-rate: 550us + 64KiB / 10.75 MB/s */
	UNIT_CHECK(ns > 550 * 1000 + 6000 * 1000 && ns < 550 * 1000 +
		   6200 * 1000, "honest: the flush costs its bytes at "
		   "write-rate (%llu ns)", (unsigned long long)ns);
	put(&dev, MIB, 64 * KIB, 2);
	cut_and_on(&dev);
	UNIT_CHECK(holds(&dev, 0, 64 * KIB, 1),
		   "honest: the flushed write survives a cut");
	UNIT_CHECK(as_before(&dev, MIB, 64 * KIB),
		   "honest: the unflushed one is lost: its range as before");
	dev_close(&dev);
}

static void test_ignore(void)
{
	struct dev dev;

	flushed(&dev, CARD ",volatile=1M,flush=ignore", 1);
	cut_and_on(&dev);
	UNIT_CHECK(as_before(&dev, 0, 64 * KIB),
		   "ignore: a flushed write is lost at a cut");
	/* 64 KiB, then 1 MiB more: the first is evicted to the flash */
	put(&dev, 0, 64 * KIB, 3);
	for (unsigned i = 0; i < 16; i++)
		put(&dev, 8 * MIB + i * 64 * KIB, 64 * KIB, 4);
	cut_and_on(&dev);
	UNIT_CHECK(holds(&dev, 0, 64 * KIB, 3),
		   "ignore: a write evicted from the cache survives");
	UNIT_CHECK(!holds(&dev, 8 * MIB + 15 * 64 * KIB, 64 * KIB, 4),
		   "ignore: the newest, still cached, is lost");
	dev_close(&dev);
}

/* Reads of 4 KiB (0.6 ms) until the card's clock has run at least ms. */
static void pass_time(struct dev *dev, uint64_t ms)
{
	uint64_t start = dev->stats.time_ns, ns;

	while (dev->stats.time_ns - start < ms * MS)
		dev_read(dev, buffer, 32 * MIB, 4 * KIB, &ns);
}

static void test_late(void)
{
	struct dev dev;

	flushed(&dev, CARD ",volatile=1M,flush=late:10", 1);
	pass_time(&dev, 9);
	cut_and_on(&dev);
	UNIT_CHECK(as_before(&dev, 0, 64 * KIB),
		   "late:10: a flush 9 ms old is lost at a cut");
	put(&dev, 0, 64 * KIB, 2);
	dev_flush(&dev);
	pass_time(&dev, 11);
	cut_and_on(&dev);
	UNIT_CHECK(holds(&dev, 0, 64 * KIB, 2),
		   "late:10: a flush 11 ms old survives");
	dev_close(&dev);
}

/* Old data in block 1, then a 16 KiB write at 5 MiB, then the cut. */
static void damage_case(struct dev *dev)
{
	for (uint64_t at = 0; at < 12 * MIB; at += MIB)
		put(dev, at, MIB, 3);
	put(dev, 5 * MIB, 16 * KIB, 4);
	cut_and_on(dev);
}

static void test_damage(void)
{
	struct dev dev;
	uint64_t hit = 0;

	UNIT_CHECK(simcard_open(&dev, CARD ",cut-damage=0.5,seed=3"),
		   "cut-damage=0.5 opens");
	damage_case(&dev);
	for (uint64_t page = 4 * MIB; page < 5 * MIB; page += 16 * KIB)
		hit += count_is(&dev, page, 16 * KIB, 3) == 0;
	UNIT_CHECK(hit > 16 && hit < 48, "cut-damage=0.5: about half the "
		   "64 pages before the write in its block are garbled (%llu)",
		   (unsigned long long)hit);
	UNIT_CHECK(holds(&dev, 5 * MIB, 16 * KIB, 4),
		   "cut-damage: the write itself is intact");
	UNIT_CHECK(holds(&dev, 5 * MIB + 16 * KIB, 3 * MIB - 16 * KIB, 3),
		   "cut-damage: the block's pages after it are intact");
	UNIT_CHECK(holds(&dev, 0, 4 * MIB, 3) &&
		   holds(&dev, 8 * MIB, 4 * MIB, 3),
		   "cut-damage: other erase blocks are intact");
	dev_close(&dev);

	UNIT_CHECK(simcard_open(&dev, CARD ",cut-damage=0"), "cut-damage=0 opens");
	damage_case(&dev);
	UNIT_CHECK(holds(&dev, 0, 5 * MIB, 3) &&
		   holds(&dev, 5 * MIB, 16 * KIB, 4),
		   "cut-damage=0: nothing is garbled");
	dev_close(&dev);
}

/*
 * The cut falls half-way through a 64 KiB write at 0 over old data:
 * timed on a twin card first, the model being exact.  How many of its
 * sectors are new, or UINT64_MAX when it did not fail.
 */
static uint64_t torn_case(const char *spec)
{
	struct dev twin, dev;
	uint64_t ns = 0, t, n;

	if (!simcard_open(&twin, spec) || !simcard_open(&dev, spec))
		return UINT64_MAX;
	put(&twin, 0, 64 * KIB, 5);
	put(&twin, 0, 64 * KIB, 6);
	t = twin.stats.time_ns;
	put(&dev, 0, 64 * KIB, 5);
	t -= dev.stats.time_ns;
	dev_power_cut(&dev, t / 2);
	if (put(&dev, 0, 64 * KIB, 6) != -EIO ||
	    dev_read(&dev, buffer, 0, 4096, &ns) != -EIO)
		return UINT64_MAX;
	dev_power_on(&dev);
	n = count_is(&dev, 0, 64 * KIB, 6);
	if (!holds(&dev, 0, n * SECTOR, 6) ||
	    !holds(&dev, n * SECTOR, 64 * KIB - n * SECTOR, 5))
		n = UINT64_MAX - 1;	/* not a prefix */
	dev_close(&twin);
	dev_close(&dev);
	return n;
}

static void test_torn(void)
{
	uint64_t n = torn_case(CARD ",fake=64M");

	UNIT_CHECK(n < 128 && n > 0 && n % (UNIT / SECTOR) == 0,
		   "a write the cut falls in fails with EIO, as does the "
		   "next operation, and keeps a prefix of whole 4 KiB units "
		   "(%llu sectors)", (unsigned long long)n);
	n = torn_case(CARD ",cut-shorn=1");
	UNIT_CHECK(n < 128 && n % (UNIT / SECTOR) != 0,
		   "cut-shorn=1: the prefix ends inside a 4 KiB unit, the "
		   "rest of it as before (%llu sectors)",
		   (unsigned long long)n);
	n = torn_case(CARD ",cut-shorn=0");
	UNIT_CHECK(n < 128 && n % (UNIT / SECTOR) == 0,
		   "cut-shorn=0: whole units (%llu sectors)",
		   (unsigned long long)n);
}

/*
 * Old data over 512 KiB, then 8 writes of 4 KiB 64 KiB apart, a flush
 * after write i where bit i of flushes is set, then the cut.  What each
 * range holds after: its write (the index), old data (-1), another
 * write's bytes (-2 - that write), or garbage (-100).
 */
static void map_flushed(const char *spec, unsigned flushes, int *got)
{
	struct dev dev;

	if (!simcard_open(&dev, spec))
		return;
	put(&dev, 0, 512 * KIB, 9);
	for (unsigned i = 0; i < 8; i++) {
		put(&dev, i * 64 * KIB, 4 * KIB, 10 + i);
		if (flushes >> i & 1)
			dev_flush(&dev);
	}
	cut_and_on(&dev);
	for (unsigned i = 0; i < 8; i++) {
		uint64_t ns;

		got[i] = -100;
		if (holds(&dev, i * 64 * KIB, 4 * KIB, 10 + i))
			got[i] = (int)i;
		else if (holds(&dev, i * 64 * KIB, 4 * KIB, 9))
			got[i] = -1;
		dev_read(&dev, buffer, i * 64 * KIB, 4 * KIB, &ns);
		for (unsigned j = 0; j < 8 && got[i] == -100; j++) {
			simcard_fill(before, j * 64 * KIB, 4 * KIB, 10 + j);
			if (memcmp(before, buffer, 4 * KIB) == 0)
				got[i] = -2 - (int)j;
		}
	}
	dev_close(&dev);
}

static void map_case(const char *spec, int *got)
{
	map_flushed(spec, 0, got);
}

/*
 * Writes 0-3, a flush, writes 4-7, a flush, the cut: the card forgets
 * only writes a later survivor came after the flush of (0-3), never one
 * whose flush no survivor followed (4-6): those would be acknowledged
 * writes simply lost, another class.
 */
static void test_map_flushed(void)
{
	char spec[128];
	int got[8];
	bool early = true, late = true;

	for (unsigned seed = 1; seed <= 20; seed++) {
		snprintf(spec, sizeof(spec), CARD ",cut-map=8,seed=%u", seed);
		map_flushed(spec, 1u << 3 | 1u << 7, got);
		late = late && got[4] == 4 && got[5] == 5 && got[6] == 6 &&
		       got[7] == 7;
		early = early && (got[0] != 0 || got[1] != 1 || got[2] != 2 ||
				  got[3] != 3);
	}
	UNIT_CHECK(late, "cut-map=8: writes after the last flush but one "
		   "survive when the last flush came after them");
	UNIT_CHECK(early, "cut-map=8: a write before that flush is lost in "
		   "every cut (unserializable)");
}

static void test_map(void)
{
	char spec[128];
	int got[8];
	bool newest = true, lost = true, sane = true;
	bool flying = false, unserializable = false;

	for (unsigned seed = 1; seed <= 20; seed++) {
		unsigned n_lost = 0;

		snprintf(spec, sizeof(spec), CARD ",cut-map=8,seed=%u", seed);
		map_case(spec, got);
		newest = newest && got[7] == 7;
		for (unsigned i = 0; i < 7; i++) {
			n_lost += got[i] != (int)i;
			sane = sane && got[i] != -100;
			flying = flying || got[i] <= -2;
			/* lost, with a later one (not the newest) kept */
			for (unsigned j = i + 1; j < 7; j++)
				unserializable = unserializable ||
					(got[i] != (int)i && got[j] == (int)j);
		}
		lost = lost && n_lost > 0;
	}
	UNIT_CHECK(newest, "cut-map=8: the newest write always survives");
	UNIT_CHECK(lost, "cut-map=8: every cut forgets an earlier one");
	UNIT_CHECK(sane, "cut-map=8: a forgotten range reads its old data "
		   "or another write's, never garbage");
	UNIT_CHECK(unserializable, "cut-map=8: an earlier write lost while a "
		   "later one survives (unserializable)");
	UNIT_CHECK(flying, "cut-map=8: a range reads back another write's "
		   "bytes (a flying write)");
	map_case(CARD ",fake=64M", got);
	UNIT_CHECK(got[0] == 0 && got[3] == 3 && got[6] == 6,
		   "without cut-map every write survives");
}

static void test_dead(void)
{
	struct dev dev;
	uint64_t ns;

	UNIT_CHECK(simcard_open(&dev, CARD ",cut-dead=1"), "cut-dead=1 opens");
	put(&dev, 0, 4096, 1);
	dev_power_cut(&dev, 0);
	UNIT_CHECK(dev_power_on(&dev) == -ENODEV,
		   "cut-dead=1: the card does not come back (ENODEV)");
	UNIT_CHECK(dev_read(&dev, buffer, 0, 4096, &ns) == -EIO &&
		   dev_power_on(&dev) == -ENODEV,
		   "cut-dead=1: it stays gone");
	dev_close(&dev);
	UNIT_CHECK(simcard_open(&dev, CARD ",cut-dead=0"), "cut-dead=0 opens");
	dev_power_cut(&dev, 0);
	UNIT_CHECK(dev_power_on(&dev) == 0, "cut-dead=0: it comes back");
	dev_close(&dev);
}

/* Everything a card holds of [0, 12 MiB) after a run with every fault. */
static uint64_t outcome(const char *spec)
{
	struct dev dev;
	uint64_t sum = 1469598103934665603ULL, ns;
	int got[8];

	if (!simcard_open(&dev, spec))
		return 0;
	damage_case(&dev);
	for (uint64_t at = 0; at < 12 * MIB; at += MIB) {
		dev_read(&dev, buffer, at, MIB, &ns);
		for (size_t i = 0; i < MIB; i++)
			sum = (sum ^ buffer[i]) * 1099511628211ULL;
	}
	dev_close(&dev);
	map_case(spec, got);
	for (unsigned i = 0; i < 8; i++)
		sum = (sum ^ (uint64_t)(got[i] + 1000)) * 1099511628211ULL;
	return sum;
}

static void test_determinism(void)
{
	const char *a = CARD ",cut-damage=0.3,cut-map=6,seed=7";
	const char *b = CARD ",cut-damage=0.3,cut-map=6,seed=8";

	UNIT_CHECK(outcome(a) == outcome(a), "the same seed, the same cut");
	UNIT_CHECK(outcome(a) != outcome(b), "another seed, another cut");
}

/* A 64 GiB card with a cache and cut-map: memory for those, not more. */
static void test_memory(void)
{
	struct rusage before_use, after_use;
	struct dev dev;
	long grew_kib;

	getrusage(RUSAGE_SELF, &before_use);
	UNIT_CHECK(simcard_open(&dev, "sim:size=64G,volatile=4M,cut-map=16"),
		   "sim:size=64G,volatile=4M,cut-map=16 opens");
	for (unsigned i = 0; i < 64; i++)
		put(&dev, 60 * GIB + i * MIB, MIB, 1);
	dev_flush(&dev);
	cut_and_on(&dev);
	getrusage(RUSAGE_SELF, &after_use);
	grew_kib = after_use.ru_maxrss - before_use.ru_maxrss;
	/* 64 MiB stored, 4 MiB cache, 16 MiB of old contents */
	UNIT_CHECK(grew_kib < 120 * 1024, "64 MiB written to a 64 GiB "
		   "card grow its memory by %ld KiB", grew_kib);
	dev_close(&dev);
}

static const struct { const char *spec, *want; } bad_specs[] = {
	{ "sim:volatile=1M,flush=sometimes", "bad value for flush: "
	  "'sometimes' (honest, ignore or late:MS)" },
	{ "sim:volatile=1M,flush=late:", "bad value for flush" },
	{ "sim:volatile=1M,flush=late:soon", "bad value for flush" },
	{ "sim:cut-damage=2", "bad value for cut-damage: '2' (a probability "
	  "from 0 to 1)" },
	{ "sim:cut-shorn=-0.1", "bad value for cut-shorn" },
	{ "sim:cut-dead=1.5", "bad value for cut-dead" },
	{ "sim:cut-map=257", "bad value for cut-map: '257' (a count of "
	  "writes, 0 to 256)" },
	{ "sim:cut-map=1", "cut-map=1 forgets nothing" },
	{ "sim:volatile=-1", "bad value for volatile: '-1' (a size" },
	{ "sim:volatile=1000", "bad value for volatile" },
	{ "sim:volatile=512M", "volatile is at most 256MiB" },
	{ "sim:flush=ignore", "flush=ignore needs volatile=SIZE" },
	{ "sim:flush=late:5", "flush=late needs volatile=SIZE" },
};

static void test_specs(void)
{
	static const char *const good[] = {
		"sim:volatile=0", "sim:volatile=1M,flush=honest",
		"sim:volatile=64K,flush=late:250us", "sim:flush=honest",
		"sim:cut-map=0,cut-damage=0,cut-shorn=1,cut-dead=0.25",
	};
	struct dev dev;

	for (size_t i = 0; i < sizeof(bad_specs) / sizeof(bad_specs[0]);
	     i++) {
		int err = dev_open(&dev, bad_specs[i].spec, DEV_READ_ONLY);

		UNIT_CHECK(err == -EINVAL && dev.error.usage &&
			   strstr(dev.error.message, bad_specs[i].want),
			   "%s: usage error: %s", bad_specs[i].spec,
			   dev.error.message);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		UNIT_CHECK(dev_open(&dev, good[i], DEV_READ_ONLY) == 0,
			   "%s opens", good[i]);
		dev_close(&dev);
	}
	UNIT_CHECK(dev_open(&dev, "sim:size=64M", DEV_READ_ONLY) == 0 &&
		   !dev_has(&dev, DEV_CAP_KEEPS_DATA),
		   "without a power-fault key the card keeps no data");
	dev_close(&dev);
	UNIT_CHECK(simcard_open(&dev, "sim:size=64M,volatile=0") &&
		   dev_has(&dev, DEV_CAP_KEEPS_DATA),
		   "volatile=0, a power-fault key even at 0, keeps the data");
	put(&dev, 0, 64 * KIB, 1);
	cut_and_on(&dev);
	UNIT_CHECK(holds(&dev, 0, 64 * KIB, 1), "volatile=0 is no cache: "
		   "a write is durable when acknowledged, flushed or not");
	dev_close(&dev);
}

int main(void)
{
	test_specs();
	test_off();
	test_honest();
	test_ignore();
	test_late();
	test_damage();
	test_torn();
	test_map();
	test_map_flushed();
	test_dead();
	test_determinism();
	test_memory();
	return UNIT_DONE();
}
