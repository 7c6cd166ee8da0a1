/*
 * unit-batch: dev_batch on the simulated card.  The queue= model's exact
 * times (lanes, the host's window, the budget), the checks every batch
 * gets before any I/O (the announced write range, alignment), a failed
 * operation's context, and the accounting.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "lib/units.h"
#include "unit.h"

/* 4 KiB reads: 100us + 4096 B / 4096000 B/s = 1.1 ms, nothing else */
#define CARD "sim:noise=0,spikes=0,size=64M,erase=4M,page=4K,prog=4K," \
	     "read-lat=100us,read-rate=4096000,page-cross=0,au-cross=0"
#define READ_NS 1100000ULL

static char buffer[4 * KIB];

static bool open_card(struct dev *dev, const char *extra, unsigned depth)
{
	char spec[512];

	snprintf(spec, sizeof(spec), "%s%s", CARD, extra);
	if (dev_open(dev, spec, DEV_READ_WRITE))
		return false;
	dev_allow_writes(dev, 16 * MIB, 32 * MIB);
	return dev_async_setup(dev, depth) == 0;
}

/* count 4 KiB operations from offset, 4 KiB apart */
static void fill_ios(struct dev_io *ios, unsigned count, uint64_t offset)
{
	for (unsigned i = 0; i < count; i++)
		ios[i] = (struct dev_io){ .offset = offset + i * 4 * KIB,
					  .length = 4 * KIB, .buf = buffer };
}

static int run(struct dev *dev, struct dev_batch *b, enum dev_io_kind kind,
	       struct dev_io *ios, unsigned count, unsigned depth,
	       uint64_t budget_ns)
{
	*b = (struct dev_batch){ .kind = kind, .ios = ios, .count = count,
				 .depth = depth, .budget_ns = budget_ns };
	return dev_batch(dev, b);
}

static bool all_times(const struct dev_io *ios, unsigned from, unsigned to,
		      uint64_t ns)
{
	for (unsigned i = from; i < to; i++)
		if (ios[i].ns != ns)
			return false;
	return true;
}

static void test_lanes(void)
{
	struct dev_io ios[16];
	struct dev_batch b;
	struct dev dev;

	UNIT_CHECK(open_card(&dev, ",queue=4", 8), "sim queue=4 opens at 8");
	UNIT_CHECK(dev.engine == DEV_ENGINE_SIM && dev.depth == 8,
		   "engine sim, depth 8");
	fill_ios(ios, 16, 0);
	UNIT_CHECK(run(&dev, &b, DEV_IO_READ, ios, 16, 4, UINT64_MAX) == 0 &&
		   b.done == 16, "16 reads at depth 4 run");
	UNIT_CHECK(b.elapsed_ns == 4 * READ_NS,
		   "depth 4 on 4 lanes: 16 reads in the time of 4 (%llu)",
		   (unsigned long long)b.elapsed_ns);
	UNIT_CHECK(all_times(ios, 0, 16, READ_NS),
		   "each read takes as long as alone");
	UNIT_CHECK(dev.stats.time_ns == 4 * READ_NS &&
		   dev.stats.operations == 16 &&
		   dev.stats.bytes_read == 64 * KIB,
		   "accounting: the batch's device time, every operation");

	fill_ios(ios, 16, 0);
	UNIT_CHECK(run(&dev, &b, DEV_IO_READ, ios, 16, 8, UINT64_MAX) == 0 &&
		   b.elapsed_ns == 4 * READ_NS,
		   "depth 8 on 4 lanes: no faster than 4");
	UNIT_CHECK(all_times(ios, 0, 4, READ_NS) &&
		   all_times(ios, 4, 16, 2 * READ_NS),
		   "beyond the lanes each read also waits one read's time");

	fill_ios(ios, 16, 0);
	UNIT_CHECK(run(&dev, &b, DEV_IO_READ, ios, 16, 1, UINT64_MAX) == 0 &&
		   b.elapsed_ns == 16 * READ_NS && all_times(ios, 0, 16, READ_NS),
		   "depth 1: one after another");
	dev_close(&dev);
}

static void test_budget(void)
{
	struct dev_io ios[16];
	struct dev_batch b;
	struct dev dev;

	UNIT_CHECK(open_card(&dev, ",queue=4", 4), "sim queue=4 opens at 4");
	fill_ios(ios, 16, 0);
	UNIT_CHECK(run(&dev, &b, DEV_IO_READ, ios, 16, 4, 1) == 0 &&
		   b.done == 4 && b.elapsed_ns == READ_NS,
		   "a 1 ns budget: the first window goes out, then nothing");
	fill_ios(ios, 16, 0);
	UNIT_CHECK(run(&dev, &b, DEV_IO_READ, ios, 16, 4, READ_NS + 1) == 0 &&
		   b.done == 8 && b.elapsed_ns == 2 * READ_NS,
		   "submitting stops once the budget has passed");
	dev_close(&dev);
}

static void test_checks(void)
{
	struct dev_io ios[8];
	struct dev_batch b;
	struct dev dev;

	UNIT_CHECK(open_card(&dev, ",queue=4", 8), "sim opens");
	fill_ios(ios, 8, 16 * MIB);
	ios[5].offset = 32 * MIB;	/* just past the announced range */
	UNIT_CHECK(run(&dev, &b, DEV_IO_WRITE, ios, 8, 8, UINT64_MAX) ==
		   -EPERM && b.done == 0 && dev.stats.operations == 0,
		   "a write outside the range fails the batch before any I/O");
	UNIT_CHECK(strstr(dev.error.message, "write at 33554432 (+4096): "
			  "outside the announced write range") != NULL,
		   "and says which one: %s", dev.error.message);
	fill_ios(ios, 8, 0);
	ios[2].length = 1000;
	UNIT_CHECK(run(&dev, &b, DEV_IO_READ, ios, 8, 8, UINT64_MAX) ==
		   -EINVAL && b.done == 0, "a misaligned read is refused");
	fill_ios(ios, 8, 16 * MIB);
	UNIT_CHECK(run(&dev, &b, DEV_IO_WRITE, ios, 8, 8, UINT64_MAX) == 0 &&
		   dev.stats.bytes_written == 32 * KIB,
		   "writes inside the range run");
	dev_close(&dev);
}

static void test_failure(void)
{
	struct dev_io ios[8];
	struct dev_batch b;
	struct dev dev;
	char why[256];

	UNIT_CHECK(open_card(&dev, ",queue=4,bad=8K+4K", 8),
		   "sim with a bad 4 KiB opens");
	fill_ios(ios, 8, 0);
	UNIT_CHECK(run(&dev, &b, DEV_IO_READ, ios, 8, 8, UINT64_MAX) == -EIO,
		   "the batch fails with the read's error");
	UNIT_CHECK(b.failed == 2 && ios[2].ns == DEV_IO_NO_TIME &&
		   all_times(ios, 0, 2, READ_NS),
		   "the third read failed, the two before it have times");
	UNIT_STREQ(dev_strerror(&dev, why, sizeof(why)),
		   "read at 8192 (+4096): Input/output error",
		   "reported like a single read's failure");
	UNIT_CHECK(dev.stats.operations == 2,
		   "only the reads that worked are counted");
	dev_close(&dev);
}

/* A device that recorded no failure names none: never "(null)". */
static void test_no_failure_named(void)
{
	struct dev dev = { .error = { .errnum = 0 } };
	char why[256];

	UNIT_STREQ(dev_strerror(&dev, why, sizeof(why)),
		   "no device error recorded",
		   "no operation failed: said so, no null operation");
	dev.error.errnum = EIO;
	UNIT_STREQ(dev_strerror(&dev, why, sizeof(why)),
		   "Input/output error",
		   "an error with no operation: its errno alone");
}

static void test_engine_names(void)
{
	UNIT_STREQ(dev_engine_name(DEV_ENGINE_IO_URING), "io_uring",
		   "io_uring's name");
	UNIT_STREQ(dev_engine_name(DEV_ENGINE_AIO), "aio", "aio's name");
	UNIT_STREQ(dev_engine_name(DEV_ENGINE_PSYNC), "psync",
		   "psync's name");
}

int main(void)
{
	/* the engine is the test's to choose, not the caller's environment */
	unsetenv("FLASHBENCH_ENGINE");
	test_lanes();
	test_budget();
	test_checks();
	test_failure();
	test_no_failure_named();
	test_engine_names();
	return UNIT_DONE();
}
