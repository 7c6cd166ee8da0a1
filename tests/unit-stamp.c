/*
 * unit-stamp: the self-naming blocks of --capacity-check (stamp.c), the
 * simulated fake cards they are tested on (the fake= keys of engines/sim/),
 * and the VM's stamp and verify statements that write and read them.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"
#include "engines/sim.h"
#include "lib/le64.h"
#include "lib/stampblock.h"
#include "lib/units.h"
#include "vm/stamp.h"
#include "unit.h"
#include "vm.h"
#include "vm/compile.h"

#define SALT 0x1234abcd5678ef01ULL

static unsigned char block[4096], other[4096];

static void test_classify(void)
{
	uint64_t named;

	stamp_fill(block, 8192, 512, 512, SALT);
	UNIT_CHECK(stamp_classify(block, 8192, 512, SALT, &named) ==
		   STAMP_INTACT && named == 8192,
		   "a stamp read back where it was written is intact");
	UNIT_CHECK(stamp_classify(block, 4096, 512, SALT, &named) ==
		   STAMP_ALIAS && named == 8192,
		   "read back at another offset it names where it was written");
	UNIT_CHECK(stamp_classify(block, 8192, 512, SALT + 1, &named) ==
		   STAMP_OTHER, "another run's stamp is old data");
	block[300] ^= 1;
	UNIT_CHECK(stamp_classify(block, 8192, 512, SALT, &named) ==
		   STAMP_GARBAGE, "one flipped bit: garbage");
	memset(block, 0, 512);
	UNIT_CHECK(stamp_classify(block, 0, 512, SALT, &named) == STAMP_ZEROS,
		   "zeros");
	memset(block, 0xff, 512);
	UNIT_CHECK(stamp_classify(block, 0, 512, SALT, &named) == STAMP_ONES,
		   "ones");
	memset(block, 0x5a, 512);
	UNIT_CHECK(stamp_classify(block, 0, 512, SALT, &named) == STAMP_OTHER,
		   "anything else is other");
	stamp_fill(block, 0, 1024, 512, SALT);
	stamp_fill(other, 512, 512, 512, SALT);
	UNIT_CHECK(memcmp(block + 512, other, 512) == 0 &&
		   memcmp(block, other, 512) != 0,
		   "a long stamp is a stamp per block, each its own");
	UNIT_STREQ(stamp_state_name(STAMP_READ_ERROR), "read-error",
		   "states have names");
}

static bool open_card(struct dev *dev, const char *spec)
{
	if (dev_open(dev, spec, DEV_READ_WRITE))
		return false;
	dev_allow_writes(dev, 0, dev->size_bytes);
	return true;
}

/* Write a stamp at offset; what reading back at where returns. */
static enum stamp_state round_trip(struct dev *dev, uint64_t offset,
				   uint64_t where, uint64_t *named)
{
	uint64_t ns;

	stamp_fill(block, offset, 512, 512, SALT);
	if (dev_write(dev, block, offset, 512, &ns))
		return STAMP_WRITE_ERROR;
	if (dev_read(dev, other, where, 512, &ns))
		return STAMP_READ_ERROR;
	return stamp_classify(other, where, 512, SALT, named);
}

/*
 * The bytes of a stamp and the undo file's word checksum are what every
 * build since FBSTAMP2 made: undo files and cards hold them, and a
 * faster fill or sum must give them bit for bit (the sums of whole
 * blocks below come from the first, plain loops).
 */
static void test_known_answers(void)
{
	static const struct {
		uint64_t offset, salt, fnv;
		uint32_t bytes;
	} known[] = {
		{ 8192, SALT, 0xf5063319c5044be7ULL, 512 },
		{ 1ULL << 40, SALT, 0x15a536c7a301d43dULL, 4096 },
		{ 0, 7, 0xa730866f1bb35c0ULL, 520 },
	};
	static unsigned char many[3 * 4096];

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		stampblock_fill(block, known[i].offset, known[i].bytes,
				known[i].salt);
		UNIT_CHECK(stamp_hash(STAMP_FNV_BASIS, block, known[i].bytes) ==
			   known[i].fnv, "the stamp of %u bytes at %llu is "
			   "the one earlier builds wrote", known[i].bytes,
			   (unsigned long long)known[i].offset);
	}
	stampblock_fill_many(many, (1ULL << 40) - 4096, 3, 4096, SALT);
	stampblock_fill(block, 1ULL << 40, 4096, SALT);
	UNIT_CHECK(memcmp(many + 4096, block, 4096) == 0,
		   "a fill of many blocks makes each as a fill of one");
	for (size_t i = 0; i < sizeof(other); i++)
		other[i] = (unsigned char)(i * 7 + 3);
	UNIT_CHECK(stampblock_hash_words(other, 4093) ==
		   0xae813923c7e96e23ULL,
		   "the word checksum is the one earlier builds wrote");
}

/* The word-wise checksum of the undo file's saved data. */
static void test_hash_words(void)
{
	uint64_t whole, cut;

	for (size_t i = 0; i < sizeof(other); i++)
		other[i] = (unsigned char)(i * 7 + 3);
	whole = stampblock_hash_words(other, sizeof(other));
	UNIT_CHECK(whole == stampblock_hash_words(other, sizeof(other)),
		   "the word checksum is the same each time");
	other[1000] ^= 0x10;
	UNIT_CHECK(whole != stampblock_hash_words(other, sizeof(other)),
		   "one flipped bit changes the word checksum");
	other[1000] ^= 0x10;
	cut = stampblock_hash_words(other, sizeof(other) - 3);
	other[sizeof(other) - 4] ^= 1;	/* a byte past the last word */
	UNIT_CHECK(cut != stampblock_hash_words(other, sizeof(other) - 3) &&
		   cut != whole,
		   "the bytes past the last whole word and the length count");
	other[sizeof(other) - 4] ^= 1;
	memset(block, 0, 64);
	UNIT_CHECK(stampblock_hash_words(block, 64) !=
		   stampblock_hash_words(block, 56),
		   "zeros of two lengths differ");
}

static void test_fake_modes(void)
{
	struct dev dev;
	uint64_t named, real;

	UNIT_CHECK(open_card(&dev, "sim:size=1G,fake=300M,fake-mode=wrap"),
		   "a wrapping fake opens");
	UNIT_CHECK(round_trip(&dev, 100 * MIB, 100 * MIB, &named) ==
		   STAMP_INTACT, "wrap: below the real capacity data stays");
	UNIT_CHECK(round_trip(&dev, 310 * MIB, 10 * MIB, &named) ==
		   STAMP_ALIAS && named == 310 * MIB,
		   "wrap: past it, a write lands on offset mod real");
	UNIT_CHECK(sim_fake_resolve(&dev, 310 * MIB, &real) ==
		   SIM_FAKE_ALIASED && real == 10 * MIB,
		   "sim_fake_resolve says where it lands");
	UNIT_CHECK(sim_keeps_data(&dev), "a fake keeps data");
	dev_close(&dev);

	UNIT_CHECK(open_card(&dev, "sim:size=1G,fake=300M,fake-mode=drop"),
		   "a dropping fake opens");
	UNIT_CHECK(round_trip(&dev, 400 * MIB, 400 * MIB, &named) ==
		   STAMP_OTHER, "drop: the old data reads back");
	dev_close(&dev);

	UNIT_CHECK(open_card(&dev, "sim:size=1G,fake=300M,fake-mode=zero"),
		   "a zeroing fake opens");
	UNIT_CHECK(round_trip(&dev, 400 * MIB, 400 * MIB, &named) ==
		   STAMP_ZEROS, "zero: zeros read back");
	dev_close(&dev);

	UNIT_CHECK(open_card(&dev, "sim:size=1G,fake=300M,fake-mode=error"),
		   "a failing fake opens");
	UNIT_CHECK(round_trip(&dev, 400 * MIB, 400 * MIB, &named) ==
		   STAMP_READ_ERROR && dev.error.errnum == EIO,
		   "error: the read fails with EIO");
	dev_close(&dev);

	UNIT_CHECK(open_card(&dev, "sim:size=1G,fake=300M,fake-mode=drop,"
			     "fake-cache=1M"), "a fake with a cache opens");
	UNIT_CHECK(round_trip(&dev, 400 * MIB, 400 * MIB, &named) ==
		   STAMP_INTACT, "cache: a fresh write reads back");
	for (uint64_t at = 0; at < 2 * MIB; at += 512)
		round_trip(&dev, at, at, &named);
	UNIT_CHECK(round_trip(&dev, 0, 400 * MIB, &named) == STAMP_OTHER,
		   "cache: after 2 MiB more it is gone");
	dev_close(&dev);

	UNIT_CHECK(open_card(&dev, "sim:size=1G"), "a plain card opens");
	UNIT_CHECK(!sim_keeps_data(&dev) &&
		   sim_fake_resolve(&dev, 400 * MIB, &real) == SIM_FAKE_REAL,
		   "without fake keys: no data, every offset real");
	dev_close(&dev);
}

/* ---- the VM statements ---- */

struct seen {
	uint64_t offset, named;
	int state;
};

static struct seen seen[64];
static unsigned seen_count;

static void keep_check(void *ctx, uint64_t offset, int state, uint64_t named,
		       const void *data)
{
	(void)ctx;
	(void)data;
	if (seen_count < 64)
		seen[seen_count++] = (struct seen){ offset, named, state };
}

/* text compiled, planned and run on the device spec names, with exec. */
static int run_exec(const char *spec, const char *text,
		    struct vm_exec *exec, struct vm_plan *plan)
{
	struct vm_program *program;
	struct vm_diag diag;
	struct dev dev;
	int err;

	if (vm_compile(text, NULL, 0, &program, &diag))
		return -EINVAL;
	if (!open_card(&dev, spec)) {
		vm_free(program);
		return -ENODEV;
	}
	exec->dev = &dev;
	err = vm_plan(program, &dev, 0, plan);
	if (!err)
		err = vm_run(program, plan, exec);
	dev_close(&dev);
	vm_free(program);
	return err;
}

static int run(const char *spec, const char *text, struct vm_plan *plan)
{
	struct vm_exec exec = { .check = keep_check, .salt = SALT };

	seen_count = 0;
	return run_exec(spec, text, &exec, plan);
}

static void test_vm(void)
{
	struct vm_plan plan;
	int err;

	err = run("sim:size=1G,fake=300M",
		  "stamp 0 1024\nverify 0 1024\nverify 1024 512\n", &plan);
	UNIT_CHECK(err == 0, "stamp and verify run");
	UNIT_CHECK(plan.writes == 1 && plan.bytes_written == 1024 &&
		   plan.reads == 2 && plan.bytes_read == 1536 && plan.stamps &&
		   plan.write_start == 0 && plan.write_end == 1024,
		   "the plan counts a stamp as a write, a verify as a read");
	UNIT_CHECK(seen_count == 3 && seen[0].state == STAMP_INTACT &&
		   seen[1].offset == 512 && seen[1].state == STAMP_INTACT &&
		   seen[2].offset == 1024 && seen[2].state == STAMP_OTHER,
		   "verify classifies each block it reads");

	err = run("sim:size=1G,fake=300M,fake-mode=wrap",
		  "stamp 310M 512\nverify 10M 512\n", &plan);
	UNIT_CHECK(err == 0 && seen_count == 1 &&
		   seen[0].state == STAMP_ALIAS && seen[0].named == 310 * MIB,
		   "verify names the offset an alias came from");

	err = run("sim:size=1G,fake=300M,fake-mode=error",
		  "stamp 400M 512\nverify 400M 512\nverify 0 512\n", &plan);
	UNIT_CHECK(err == 0 && seen_count == 2 &&
		   seen[0].state == STAMP_READ_ERROR &&
		   seen[1].state == STAMP_OTHER,
		   "a failed verify is a finding, and the run goes on");

	err = run("sim:size=1G,fake=1G,bad=0+512", "stamp 0 512\n", &plan);
	UNIT_CHECK(err == 0 && seen_count == 1 &&
		   seen[0].state == STAMP_WRITE_ERROR,
		   "a failed stamp is checked as a write error");
}

/* vm_exec.check_intact: what the card vouches for comes in one call. */
static uint64_t intact_at, intact_bytes;
static unsigned intact_calls;

static void keep_intact(void *ctx, uint64_t offset, uint64_t length)
{
	(void)ctx;
	intact_at = offset;
	intact_bytes = length;
	intact_calls++;
}

static void test_intact_runs(void)
{
	struct vm_exec exec = { .check = keep_check,
				.check_intact = keep_intact, .salt = SALT };
	struct vm_plan plan;
	int err;

	seen_count = intact_calls = 0;
	err = run_exec("sim:size=1G,fake=1G", "stamp 0 1M\nverify 0 1M\n"
		       "verify 1M 512\n", &exec, &plan);
	UNIT_CHECK(err == 0 && intact_calls == 1 && intact_at == 0 &&
		   intact_bytes == MIB,
		   "a verified run of intact blocks is one check_intact call");
	UNIT_CHECK(seen_count == 1 && seen[0].offset == MIB &&
		   seen[0].state == STAMP_OTHER,
		   "blocks the card does not vouch for are checked one by one");

	seen_count = intact_calls = 0;
	err = run_exec("sim:size=1G,fake=300M,fake-mode=wrap",
		       "stamp 310M 512\nverify 10M 512\n", &exec, &plan);
	UNIT_CHECK(err == 0 && intact_calls == 0 && seen_count == 1 &&
		   seen[0].state == STAMP_ALIAS,
		   "an alias is no intact run: it is checked block by block");
}

/* A stamp as earlier builds wrote it: FBSTAMP1, FNV-1a checksum. */
static void legacy_stamp(unsigned char *b, uint64_t offset, uint64_t salt)
{
	static const unsigned char zero[8];
	uint64_t sum;

	memcpy(b, "FBSTAMP1", 8);
	put64(b + 8, offset);
	put64(b + 16, salt);
	for (unsigned i = 32; i < 512; i++)
		b[i] = (unsigned char)(offset * 31 + i);
	sum = stampblock_hash(STAMPBLOCK_FNV_BASIS, b, 24);
	sum = stampblock_hash(sum, zero, sizeof(zero));
	put64(b + 24, stampblock_hash(sum, b + 32, 512 - 32));
}

static void test_legacy(void)
{
	uint64_t offset = 0, salt = 0;

	legacy_stamp(block, 65536, SALT);
	UNIT_CHECK(stampblock_legacy(block, 512, &offset, &salt) &&
		   offset == 65536 && salt == SALT,
		   "an earlier build's stamp is known, with what it names");
	block[100] ^= 1;
	UNIT_CHECK(!stampblock_legacy(block, 512, &offset, &salt),
		   "an earlier build's stamp with a changed byte is not");
	stamp_fill(block, 65536, 512, 512, SALT);
	UNIT_CHECK(!stampblock_legacy(block, 512, &offset, &salt),
		   "today's stamp is not taken for an earlier one");
}

/* Every block a run checks, counted by state, and whether in order. */
struct tally {
	uint64_t states[STAMP_STATE_COUNT], next, blocks;
	bool in_order;
};

static void tally_check(void *ctx, uint64_t offset, int state,
			uint64_t named, const void *data)
{
	struct tally *t = ctx;

	(void)named;
	(void)data;
	if (offset != t->next)
		t->in_order = false;
	t->next = offset + 512;
	t->blocks++;
	if (state >= 0 && state < STAMP_STATE_COUNT)
		t->states[state]++;
}

/* The program on a file of 4 MiB, emptied first, its blocks tallied. */
static int run_file(const char *path, const char *text, bool overlap,
		    struct vm_keep *keep, struct tally *t)
{
	struct vm_exec exec = { .check = tally_check, .ctx = t,
				.salt = SALT, .overlap = overlap,
				.keep = keep };
	struct vm_plan plan;

	memset(t, 0, sizeof(*t));
	t->in_order = true;
	if (truncate(path, 0) || truncate(path, 4 * MIB))
		return -errno;
	return run_exec(path, text, &exec, &plan);
}

/*
 * exec.overlap: the stamps made and the reads classified on a second
 * thread give the same blocks, in the same order, as inline: on a
 * file, where the VM makes the stamps itself, emptied before each run.
 * The short stamp at 2 MiB leaves a hole of zeros, and the stamp after
 * it is not the one foreseen.
 */
static void test_overlap(void)
{
	char path[] = "/tmp/unit-stamp.XXXXXX";
	const char *text = "stamp 0 1M\nstamp 1M 1M\nstamp 2M 512K\n"
			   "stamp 3M 1M\nverify 0 1M\nverify 1M 1M\n"
			   "verify 2M 1M\nverify 3M 1M\n";
	struct tally inline_t, ahead_t;
	int fd = mkstemp(path), a, b;

	UNIT_CHECK(fd >= 0 && ftruncate(fd, 4 * MIB) == 0,
		   "a file of 4 MiB for the overlap");
	if (fd >= 0)
		close(fd);
	b = run_file(path, text, true, NULL, &ahead_t);
	a = run_file(path, text, false, NULL, &inline_t);
	UNIT_CHECK(a == 0 && b == 0, "both runs end well");
	UNIT_CHECK(inline_t.blocks == 8192 && inline_t.in_order &&
		   inline_t.states[STAMP_INTACT] == 7168 &&
		   inline_t.states[STAMP_ZEROS] == 1024,
		   "inline: every stamp intact, the hole zeros");
	UNIT_CHECK(ahead_t.blocks == inline_t.blocks && ahead_t.in_order &&
		   memcmp(ahead_t.states, inline_t.states,
			  sizeof(ahead_t.states)) == 0,
		   "overlapped: the same blocks, in order, the same states");
	unlink(path);
}

/* The two buffers of a kept pair, in either order: the same two? */
static bool same_pair(void *const a[2], void *const b[2])
{
	return a[0] && a[1] && ((a[0] == b[0] && a[1] == b[1]) ||
				(a[0] == b[1] && a[1] == b[0]));
}

/*
 * exec.keep: runs one after the other on kept buffers give the blocks
 * and states of runs on their own, and leave the buffers to the next
 * run (made anew only for a larger transfer).
 */
static void test_keep(void)
{
	char path[] = "/tmp/unit-stamp.XXXXXX";
	const char *text = "stamp 0 1M\nstamp 1M 1M\nstamp 2M 512K\n"
			   "stamp 3M 1M\nverify 0 1M\nverify 1M 1M\n"
			   "verify 2M 1M\nverify 3M 1M\n";
	struct vm_keep keep = { 0 };
	void *read[2], *stamps[2];
	struct tally own, first, second;
	int fd = mkstemp(path), err;

	if (fd >= 0)
		close(fd);
	err = run_file(path, text, true, NULL, &own) ||
	      run_file(path, text, true, &keep, &first);
	memcpy(read, keep.read, sizeof(read));
	memcpy(stamps, keep.stamps, sizeof(stamps));
	err = err || run_file(path, text, true, &keep, &second);
	UNIT_CHECK(!err && first.blocks == own.blocks && first.in_order &&
		   second.in_order &&
		   memcmp(first.states, own.states, sizeof(own.states)) == 0 &&
		   memcmp(second.states, own.states, sizeof(own.states)) == 0,
		   "kept buffers: the same blocks, in order, the same states, "
		   "run after run");
	UNIT_CHECK(same_pair(keep.read, read) && same_pair(keep.stamps, stamps)
		   && keep.read_bytes == MIB && keep.stamps_bytes == MIB,
		   "the second run took the first one's buffers");
	err = run_file(path, "verify 0 2M\n", false, &keep, &own);
	UNIT_CHECK(!err && keep.read_bytes == 2 * MIB &&
		   same_pair(keep.stamps, stamps),
		   "a larger read makes its buffers anew, the stamps' stay");
	vm_keep_free(&keep);
	UNIT_CHECK(!keep.read[0] && !keep.stamps[1] && !keep.read_bytes,
		   "let go, nothing is kept");
	unlink(path);
}

int main(void)
{
	test_legacy();
	test_classify();
	test_known_answers();
	test_hash_words();
	test_fake_modes();
	test_vm();
	test_intact_runs();
	test_overlap();
	test_keep();
	return UNIT_DONE();
}
