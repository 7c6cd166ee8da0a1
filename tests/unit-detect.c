/*
 * unit-detect: how far --detect --write searches the open erase blocks,
 * and the range it announces for it.  Up to 32 on devices below 32 GiB,
 * as on the cards of 2011 (their ranges byte for byte as before); up to
 * 128 on larger ones, where today's cards keep 64 units open and more,
 * as far as a quarter of the device holds; and a card of 64 open found
 * as 64, one of more than 128 as "at least 128".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dev.h"
#include "lib/units.h"
#include "measure/detect.h"
#include "unit.h"

/* The range --detect --write announces on spec with erase blocks of
   erase: [0, *end). */
static bool range_of(const char *spec, uint64_t erase, uint64_t *end)
{
	struct dev dev;
	uint64_t start = 1;
	int err;

	if (dev_open(&dev, spec, DEV_READ_ONLY))
		return false;
	err = detect_write_range(&dev, erase, &start, end);
	dev_close(&dev);
	return err == 0 && start == 0;
}

/* Each region as many erase blocks as the count searched, two of them
   after a pool base of 8 blocks (the FAT candidates; 16 MiB at least),
   then the control and size blocks (8): the search's limit, read back. */
static uint64_t searched(uint64_t end, uint64_t erase)
{
	uint64_t base = 8 * erase < 16 * MIB ? 16 * MIB : 8 * erase;

	return ((end - base) / erase - 8) / 2;
}

static void test_ranges(void)
{
	uint64_t end = 0;

	UNIT_CHECK(range_of("sim:sandisk-su08g", 4 * MIB, &end) &&
		   end == 320 * MIB && searched(end, 4 * MIB) == 32,
		   "an 8 GB card of 2011: 32 searched, 320 MiB announced, as "
		   "before");
	UNIT_CHECK(range_of("sim:a1-32g", 8 * MIB, &end) &&
		   end == 640 * MIB && searched(end, 8 * MIB) == 32,
		   "a 32 GB card (29.7 GiB): still 32");
	UNIT_CHECK(range_of("sim:size=31G", 4 * MIB, &end) &&
		   searched(end, 4 * MIB) == 32, "31 GiB: 32");
	UNIT_CHECK(range_of("sim:size=32G", 4 * MIB, &end) &&
		   end == 1088 * MIB && searched(end, 4 * MIB) == 128,
		   "32 GiB: 128 searched, 1088 MiB announced");
	UNIT_CHECK(range_of("sim:a2-64g", 24 * MIB, &end) &&
		   end == 6528 * MIB && searched(end, 24 * MIB) == 128,
		   "a 64 GB card of 24 MiB units: 128, 6528 MiB announced");
	UNIT_CHECK(range_of("sim:size=32G,erase=64M", 64 * MIB, &end) &&
		   end == 8 * GIB && searched(end, 64 * MIB) == 56,
		   "32 GiB of 64 MiB blocks: as many as a quarter holds (56)");
	UNIT_CHECK(range_of("sim:size=128M", 4 * MIB, &end) &&
		   end == 128 * MIB && searched(end, 4 * MIB) == 8,
		   "a small device: as many as it has room for (8)");
}

static int allow(void *ctx, struct dev *dev, uint64_t start, uint64_t end)
{
	uint64_t *announced = ctx;

	*announced = end;
	dev_allow_writes(dev, start, end);
	return 0;
}

/* --detect --write on spec: its findings and the end of its range. */
static bool detect(const char *spec, struct detect_findings *f,
		   uint64_t *announced)
{
	volatile sig_atomic_t stop = 0;
	struct detect_options o = { .write = true, .budget_ns = 20000000000ULL,
				    .announce = allow, .ctx = announced };
	struct dev dev;
	int err;

	memset(f, 0, sizeof(*f));
	if (dev_open(&dev, spec, DEV_READ_WRITE))
		return false;
	err = detect_run(&dev, &o, &stop, f);
	dev_close(&dev);
	return err == 0;
}

static void test_counts(void)
{
	struct detect_findings f;
	uint64_t end = 0;

	UNIT_CHECK(detect("sim:a2-64g", &f, &end) && end == 6528 * MIB &&
		   f.open_linear.known && f.open_linear.value == 64 &&
		   f.open_random.known && f.open_random.value == 64,
		   "a2-64g: 64 open, in order and out of order (got %llu, %llu)",
		   (unsigned long long)f.open_linear.value,
		   (unsigned long long)f.open_random.value);
	UNIT_CHECK(detect("sim:v30-256g,open=200,open-random=200", &f, &end) &&
		   !f.open_linear.known && f.open_linear_at_least == 128 &&
		   !f.open_random.known && f.open_random_at_least == 128 &&
		   strstr(f.open_linear.reason, "at least 128"),
		   "200 open on 256 GB: at least 128, no count (%s)",
		   f.open_linear.reason);
	UNIT_CHECK(detect("sim:sandisk-20au", &f, &end) &&
		   end == 320 * MIB && f.open_linear.known &&
		   f.open_linear.value == 20,
		   "a 16 GB card of 20 open: 20, in the range of before");
}

int main(void)
{
	test_ranges();
	test_counts();
	return UNIT_DONE();
}
