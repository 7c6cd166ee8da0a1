/*
 * unit-simwear: the simulated card's wear (wear=, spare=, wear-eol=)
 * through the dev.h API.  Whole-card passes, as an endurance run makes
 * them: each block fails at the pass after its drawn endurance (inside
 * the spread), whatever the order of its writes; spares take the first
 * worn blocks unseen; a worn block fails its writes or reads back
 * garbled (a stamp as garbage); wear-eol=read-only refuses writes and
 * serves reads, dead fails everything; the same seed wears the same
 * blocks; a 64 GB card wears in a few hundred KiB and keeps stamps as
 * runs; a fake wears the flash its writes land on; bad values refused.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "engines/sim.h"
#include "lib/stampblock.h"
#include "lib/units.h"
#include "vm/stamp.h"
#include "simcard.h"
#include "unit.h"

#define SECTOR	512ULL
#define ERASE	(4 * MIB)
#define BLOCKS	16
#define CARD	"sim:noise=0,size=64M,erase=4M,page=16K,prog=16K"

/* What a pass found in a block. */
enum found { FOUND_INTACT, FOUND_WRITE_FAILED, FOUND_GARBLED };

static unsigned char buffer[ERASE];
static unsigned char back[ERASE];

/* Does block i read back as pass wrote it?  false on a read error. */
static bool block_is(struct dev *dev, unsigned i, unsigned pass)
{
	uint64_t ns;

	simcard_fill(buffer, i * ERASE, ERASE, pass);
	return dev_read(dev, back, i * ERASE, ERASE, &ns) == 0 &&
	       memcmp(buffer, back, ERASE) == 0;
}

/*
 * Does block i read back garbled: each sector's first 24 bytes as want
 * has them (a stamp's header), the rest the pattern 0x5a?
 */
static bool garbled_as(struct dev *dev, unsigned i, const unsigned char *want)
{
	uint64_t ns;

	if (dev_read(dev, back, i * ERASE, ERASE, &ns))
		return false;
	for (uint64_t at = 0; at < ERASE; at += SECTOR) {
		if (memcmp(back + at, want + at, 24) != 0)
			return false;
		for (uint64_t b = 24; b < SECTOR; b++)
			if (back[at + b] != 0x5a)
				return false;
	}
	return true;
}

/*
 * Pass number pass over the whole card, a block a write, then each
 * block read back: found[i] what block i did.
 */
static void run_pass(struct dev *dev, unsigned pass,
		     enum found found[BLOCKS])
{
	uint64_t ns;

	for (unsigned i = 0; i < BLOCKS; i++) {
		simcard_fill(buffer, i * ERASE, ERASE, pass);
		found[i] = dev_write(dev, buffer, i * ERASE, ERASE, &ns) ?
			   FOUND_WRITE_FAILED : FOUND_INTACT;
	}
	for (unsigned i = 0; i < BLOCKS; i++)
		if (found[i] == FOUND_INTACT && !block_is(dev, i, pass))
			found[i] = FOUND_GARBLED;
}

/* The pass each block first failed at (0: none), passes 1 to last. */
static void first_failures(struct dev *dev, unsigned last,
			   unsigned first[BLOCKS])
{
	enum found found[BLOCKS];

	memset(first, 0, BLOCKS * sizeof(first[0]));
	for (unsigned pass = 1; pass <= last; pass++) {
		run_pass(dev, pass, found);
		for (unsigned i = 0; i < BLOCKS; i++)
			if (found[i] != FOUND_INTACT && !first[i])
				first[i] = pass;
	}
}

static struct sim_wear_block wear_of(const struct dev *dev, uint64_t offset)
{
	struct sim_wear_block b = { 0, 0, 0, SIM_WEAR_FINE };

	sim_wear_block(dev, offset, &b);
	return b;
}

static void test_endurance(void)
{
	struct dev dev;
	unsigned first[BLOCKS], early = 0, late = 0, fates[3] = { 0 };
	uint64_t e[BLOCKS], lowest = UINT64_MAX, highest = 0;
	bool each = true, pattern = true;

	UNIT_CHECK(simcard_open(&dev, CARD ",wear=10:0.2,spare=0"),
		   "a card of 16 blocks wearing after 10 cycles +-20%% opens");
	for (unsigned i = 0; i < BLOCKS; i++) {
		e[i] = wear_of(&dev, i * ERASE).endurance;
		lowest = e[i] < lowest ? e[i] : lowest;
		highest = e[i] > highest ? e[i] : highest;
	}
	UNIT_CHECK(lowest >= 8 && highest <= 12 && lowest < highest,
		   "endurances drawn inside 8..12, not all alike (%llu..%llu)",
		   (unsigned long long)lowest, (unsigned long long)highest);
	first_failures(&dev, 13, first);
	for (unsigned i = 0; i < BLOCKS; i++) {
		each = each && first[i] == e[i] + 1;
		early += first[i] <= 8;
		late += first[i] > 13;
		fates[wear_of(&dev, i * ERASE).fate]++;
		simcard_fill(buffer, i * ERASE, ERASE, 13);
		if (wear_of(&dev, i * ERASE).fate == SIM_WEAR_GARBLED)
			pattern = pattern && garbled_as(&dev, i, buffer);
	}
	UNIT_CHECK(each && !early && !late,
		   "each block fails at the pass after its endurance, none "
		   "before the 9th, all by the 13th");
	UNIT_CHECK(fates[SIM_WEAR_FINE] == 0 && fates[SIM_WEAR_GARBLED] &&
		   fates[SIM_WEAR_FAILS_WRITES],
		   "worn blocks fail writes (%u) or read back garbled (%u), "
		   "by their own draw", fates[SIM_WEAR_FAILS_WRITES],
		   fates[SIM_WEAR_GARBLED]);
	UNIT_CHECK(pattern, "garbled: each sector's first 24 bytes as "
		   "written, the rest 0x5a");
	dev_close(&dev);
}

/* Block 0 written in pieces of piece bytes, last piece first. */
static int write_backwards(struct dev *dev, uint64_t piece, unsigned pass)
{
	uint64_t ns;
	int err = 0;

	for (uint64_t at = ERASE; !err && at; at -= piece) {
		simcard_fill(buffer, at - piece, piece, pass);
		err = dev_write(dev, buffer, at - piece, piece, &ns);
	}
	return err;
}

static void test_any_order(void)
{
	struct dev dev;
	bool counted = true;

	UNIT_CHECK(simcard_open(&dev, CARD ",wear=3:0,spare=0"),
		   "a card whose blocks take exactly 3 cycles opens");
	for (unsigned pass = 1; pass <= 3; pass++)
		counted = counted &&
			  write_backwards(&dev, pass == 2 ? 4 * KIB : 256 * KIB,
					  pass) == 0 &&
			  wear_of(&dev, 0).cycles == pass &&
			  block_is(&dev, 0, pass);
	UNIT_CHECK(counted, "a block's worth of sectors, written backwards "
		   "in 256K or 4K pieces, is one cycle, and holds");
	UNIT_CHECK(write_backwards(&dev, 256 * KIB, 4) != 0 ||
		   !block_is(&dev, 0, 4),
		   "the 4th cycle finds the block worn");
	UNIT_CHECK(wear_of(&dev, ERASE).cycles == 0,
		   "a block never written has begun no cycle");
	dev_close(&dev);
}

/* Blocks the spares took over, and the pass of the card's first error. */
static unsigned spared_run(struct dev *dev, uint64_t *retired)
{
	unsigned first[BLOCKS], at = 0;
	struct sim_stats st;

	first_failures(dev, 13, first);
	for (unsigned i = 0; i < BLOCKS; i++)
		if (first[i] && (!at || first[i] < at))
			at = first[i];
	sim_stats(dev, &st);
	*retired = st.retired_blocks;
	return at;
}

static void test_spares(void)
{
	struct dev bare, spared;
	uint64_t e[BLOCKS], retired, none;
	unsigned bare_at, spared_at, taken = 0, weakest = 0;

	UNIT_CHECK(simcard_open(&bare, CARD ",wear=10:0.2,spare=0") &&
		   simcard_open(&spared, CARD ",wear=10:0.2,spare=3"),
		   "the same card with no spare and with 3 opens");
	for (unsigned i = 0; i < BLOCKS; i++)
		e[i] = wear_of(&spared, i * ERASE).endurance;
	bare_at = spared_run(&bare, &none);
	spared_at = spared_run(&spared, &retired);
	UNIT_CHECK(none == 0 && retired == 3 && spared_at > bare_at,
		   "3 spares take the first 3 worn blocks unseen: the first "
		   "error comes at pass %u instead of %u", spared_at, bare_at);
	for (unsigned i = 0; i < BLOCKS; i++) {
		unsigned below = 0;

		for (unsigned j = 0; j < BLOCKS; j++)
			below += e[j] < e[i] || (e[j] == e[i] && j < i);
		taken += wear_of(&spared, i * ERASE).spares == 1;
		weakest += below < 3 && wear_of(&spared, i * ERASE).spares;
	}
	UNIT_CHECK(taken == 3 && weakest == 3,
		   "the spares went to the 3 blocks that wore first");
	dev_close(&bare);
	dev_close(&spared);
}

/* Passes 1 to 3 of a card whose blocks take 3 cycles: all intact. */
static bool three_passes(struct dev *dev)
{
	enum found found[BLOCKS];
	bool intact = true;

	for (unsigned pass = 1; pass <= 3; pass++) {
		run_pass(dev, pass, found);
		for (unsigned i = 0; i < BLOCKS; i++)
			intact = intact && found[i] == FOUND_INTACT;
	}
	return intact;
}

static void test_read_only(void)
{
	struct dev dev;
	struct sim_stats st;
	bool refused = true, served = true;
	uint64_t ns;

	UNIT_CHECK(simcard_open(&dev, CARD ",wear=3:0,spare=1,wear-eol=read-only")
		   && three_passes(&dev),
		   "read-only at end of life: 3 passes intact");
	simcard_fill(buffer, 0, ERASE, 4);
	UNIT_CHECK(dev_write(&dev, buffer, 0, ERASE, &ns) == 0,
		   "the first block to wear takes the spare");
	simcard_fill(buffer, ERASE, ERASE, 4);
	UNIT_CHECK(dev_write(&dev, buffer, ERASE, ERASE, &ns) == -EIO,
		   "the next, with no spare left, fails with EIO");
	for (unsigned i = 0; i < BLOCKS; i++) {
		simcard_fill(buffer, i * ERASE, SECTOR, 5);
		refused = refused &&
			  dev_write(&dev, buffer, i * ERASE, SECTOR, &ns) ==
			  -EIO;
		served = served && block_is(&dev, i, i == 0 ? 4 : 3);
	}
	UNIT_CHECK(refused, "from then on every write fails with EIO, "
		   "even to the spared block");
	UNIT_CHECK(served, "every block reads back the last data it took");
	UNIT_CHECK(dev_discard(&dev, 0, ERASE, &ns) == -EIO &&
		   dev_flush(&dev) == 0,
		   "a discard fails too; a flush, which writes nothing, not");
	sim_stats(&dev, &st);
	UNIT_CHECK(st.wear_end == SIM_WEAR_READ_ONLY && st.retired_blocks == 1
		   && st.worn_blocks == 1 && st.spares_left == 0,
		   "the card says it is read-only: 1 block spared, 1 worn");
	dev_close(&dev);
}

static void test_dead(void)
{
	struct dev dev;
	struct sim_stats st;
	bool failing = true;
	uint64_t ns;

	UNIT_CHECK(simcard_open(&dev, CARD ",wear=3:0,spare=0,wear-eol=dead") &&
		   three_passes(&dev),
		   "dead at end of life: 3 passes intact");
	simcard_fill(buffer, 0, ERASE, 4);
	UNIT_CHECK(dev_write(&dev, buffer, 0, ERASE, &ns) == -EIO,
		   "the first worn block, no spare, fails the write");
	for (unsigned i = 0; i < BLOCKS; i++)
		failing = failing &&
			  dev_read(&dev, back, i * ERASE, SECTOR, &ns) ==
			  -EIO &&
			  dev_write(&dev, buffer, i * ERASE, SECTOR, &ns) ==
			  -EIO;
	UNIT_CHECK(failing && dev_discard(&dev, 0, ERASE, &ns) == -EIO &&
		   dev_flush(&dev) == -EIO,
		   "then every read, write, discard and flush fails with EIO");
	sim_stats(&dev, &st);
	UNIT_CHECK(st.wear_end == SIM_WEAR_DEAD, "the card says it is dead");
	dev_close(&dev);
}

/* The endurance and fate of every block after 13 passes, as a number. */
static uint64_t outcome(const char *spec)
{
	struct dev dev;
	unsigned first[BLOCKS];
	uint64_t sum = 0;

	if (!simcard_open(&dev, spec))
		return 0;
	first_failures(&dev, 13, first);
	for (unsigned i = 0; i < BLOCKS; i++) {
		struct sim_wear_block b = wear_of(&dev, i * ERASE);

		sum = sum * 31 + first[i] * 3 + b.fate + b.endurance * 1009;
	}
	dev_close(&dev);
	return sum;
}

static void test_seed(void)
{
	uint64_t a = outcome(CARD ",wear=10:0.2,spare=2,seed=7");

	UNIT_CHECK(a && a == outcome(CARD ",wear=10:0.2,spare=2,seed=7"),
		   "the same seed wears the same blocks the same way");
	UNIT_CHECK(a != outcome(CARD ",wear=10:0.2,spare=2,seed=8"),
		   "another seed, other blocks");
}

/* Stamps of salt over every block, a block a stamp: the failed ones. */
static unsigned stamp_all(struct dev *dev, uint64_t salt)
{
	unsigned failed = 0;
	uint64_t ns;

	for (unsigned i = 0; i < BLOCKS; i++)
		failed += dev_stamp(dev, i * ERASE, ERASE, salt, &ns) != 0;
	return failed;
}

/* Every sector of block i read back classifies as want (of salt). */
static bool classified(struct dev *dev, unsigned i, uint64_t salt,
		       enum stamp_state want)
{
	uint64_t ns, named;

	if (dev_read(dev, back, i * ERASE, ERASE, &ns))
		return false;
	for (uint64_t at = 0; at < ERASE; at += SECTOR)
		if (stamp_classify(back + at, i * ERASE + at, SECTOR, salt,
				   &named) != want)
			return false;
	return true;
}

static void test_stamps(void)
{
	struct dev dev;
	unsigned failed, right = 0, headed = 0;
	uint64_t ns;
	bool verified = true;

	UNIT_CHECK(simcard_open(&dev, CARD ",wear=1:0,spare=0"),
		   "a card of one cycle a block opens");
	UNIT_CHECK(stamp_all(&dev, 11) == 0, "the first stamps all pass");
	for (unsigned i = 0; i < BLOCKS; i++)
		verified = verified &&
			   dev_verify_stamps(&dev, i * ERASE, ERASE, 11, &ns);
	UNIT_CHECK(verified, "and verify as runs, without their bytes");
	failed = stamp_all(&dev, 12);
	for (unsigned i = 0; i < BLOCKS; i++) {
		bool garbled = wear_of(&dev, i * ERASE).fate ==
			       SIM_WEAR_GARBLED;

		right += garbled ?
			 !dev_verify_stamps(&dev, i * ERASE, ERASE, 12, &ns) &&
			 classified(&dev, i, 12, STAMP_GARBAGE) :
			 classified(&dev, i, 12, STAMP_OTHER) &&
			 classified(&dev, i, 11, STAMP_INTACT);
		stampblock_fill_many(buffer, i * ERASE, ERASE / SECTOR, SECTOR,
				     12);
		headed += garbled && garbled_as(&dev, i, buffer);
	}
	UNIT_CHECK(failed && failed < BLOCKS && right == BLOCKS,
		   "worn, %u blocks fail the next stamps and keep the old "
		   "ones; the others' stamps read back as garbage", failed);
	UNIT_CHECK(headed == BLOCKS - failed,
		   "garbled stamps, made from their runs, keep their header "
		   "over the pattern, as bytes do");
	dev_close(&dev);
}

static void test_lean(void)
{
	struct dev dev;
	struct sim_stats st;
	unsigned failed = 0;
	uint64_t ns;

	UNIT_CHECK(simcard_open(&dev, "sim:size=64G,wear=100"),
		   "a 64 GB card that wears opens");
	sim_stats(&dev, &st);
	UNIT_CHECK(st.held_bytes <= 16384 * 12 + 4096 &&
		   st.spares_left == 163,
		   "its counters take %llu bytes; 1%% of 16384 blocks spare",
		   (unsigned long long)st.held_bytes);
	for (unsigned pass = 0; pass < 2; pass++)
		for (uint64_t at = 0; at < 64 * GIB; at += ERASE)
			failed += dev_stamp(&dev, at, ERASE, 21 + pass, &ns) != 0;
	sim_stats(&dev, &st);
	UNIT_CHECK(failed == 0 && st.stamp_runs <= 2 &&
		   st.held_bytes < 1 * MIB &&
		   wear_of(&dev, 63 * GIB).cycles == 2,
		   "two stamp passes: 2 cycles, %llu runs, %llu bytes held",
		   (unsigned long long)st.stamp_runs,
		   (unsigned long long)st.held_bytes);
	dev_close(&dev);
}

static void test_fake(void)
{
	struct dev dev;
	struct sim_wear_block b;
	uint64_t ns;

	UNIT_CHECK(simcard_open(&dev, CARD ",fake=16M,wear=2:0,spare=0"),
		   "a fake of 16 MiB in 64 that wears opens");
	simcard_fill(buffer, 0, ERASE, 1);
	dev_write(&dev, buffer, 0, ERASE, &ns);
	simcard_fill(buffer, 16 * MIB, ERASE, 2);
	dev_write(&dev, buffer, 16 * MIB, ERASE, &ns);
	UNIT_CHECK(wear_of(&dev, 0).cycles == 2 &&
		   wear_of(&dev, 32 * MIB).cycles == 2,
		   "a write and its alias wear the one block they land on");
	simcard_fill(buffer, 32 * MIB, ERASE, 3);
	UNIT_CHECK(dev_write(&dev, buffer, 32 * MIB, ERASE, &ns) != 0 ||
		   !block_is(&dev, 8, 3),
		   "the third write there finds it worn");
	dev_close(&dev);
	UNIT_CHECK(simcard_open(&dev, CARD ",fake=16M,fake-mode=drop,wear=1:0") &&
		   sim_wear_block(&dev, 32 * MIB, &b) == -ERANGE,
		   "what a fake drops lands on no flash: no block to wear");
	dev_close(&dev);
}

static void refused(const char *spec, const char *want)
{
	struct dev dev;
	int err = dev_open(&dev, spec, DEV_READ_ONLY);

	UNIT_CHECK(err == -EINVAL && strstr(dev.error.message, want),
		   "%s is refused: %s", spec, dev.error.message);
	if (!err)
		dev_close(&dev);
}

static void test_specs(void)
{
	struct dev dev;
	struct sim_wear_block b;

	refused("sim:wear=0", "bad value for wear: '0' (CYCLES[:SPREAD]");
	refused("sim:wear=100:1.5", "bad value for wear: '100:1.5'");
	refused("sim:wear=100:", "bad value for wear");
	refused("sim:wear=100000001", "bad value for wear");
	refused("sim:wear=10,wear-eol=soon", "wear-eol: 'soon' (read-only "
		"or dead)");
	refused("sim:wear-eol=dead", "wear-eol= needs wear=CYCLES");
	refused("sim:spare=4", "spare= needs wear=CYCLES");
	refused("sim:wear=10,spare=x", "bad value for spare");
	refused("sim:size=64G,erase=8K,page=8K,prog=8K,wear=10",
		"wear= counts at most 4194304 erase blocks");
	UNIT_CHECK(dev_open(&dev, "sim:size=64M", DEV_READ_ONLY) == 0 &&
		   sim_wear_block(&dev, 0, &b) == -EINVAL,
		   "a card without wear= has no wear to tell");
	dev_close(&dev);
}

int main(void)
{
	test_specs();
	test_endurance();
	test_any_order();
	test_spares();
	test_read_only();
	test_dead();
	test_seed();
	test_stamps();
	test_lean();
	test_fake();
	return UNIT_DONE();
}
