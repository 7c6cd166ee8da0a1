/*
 * unit-staircase: the levels of the align test's diff column and what
 * they are taken for - page, effective page, erase block, allocation
 * group - on built tables: several steps, a small top step, outliers,
 * repeated runs, 3 x 2^n sizes, hidden erase blocks, priors; and the
 * device facts --analyze reads from pasted text.
 */
#include <math.h>
#include <stdlib.h>

#include "analysis/findings.h"
#include "analysis/pasted.h"
#include "lib/units.h"
#include "unit.h"

#define MAX_POINTS 128

struct step {
	uint64_t size;
	double cost_ns;
};

static struct analysis_align_point points[MAX_POINTS];
static struct analysis_geometry g;

/* A table like the original's: the sum of every step dividing the
   alignment, on a read of 500 us, with a wobble of a few percent. */
static size_t staircase(const struct step *steps, size_t count,
			uint64_t low, uint64_t high, bool three,
			unsigned seed, size_t n)
{
	for (uint64_t a = low; a <= high && n < MAX_POINTS; a *= 2)
		for (unsigned f = 1; f <= (three ? 3 : 1) && n < MAX_POINTS;
		     f += 2) {
			double diff = 0;
			/* small deterministic scatter, +-3 us */
			double wobble = (double)((a / 512 * 2654435761u + seed *
					 40503u) % 61) * 100 - 3000;

			if (f == 3 && a * 3 > high)
				continue;
			for (size_t i = 0; i < count; i++)
				if (a * f % steps[i].size == 0)
					diff += steps[i].cost_ns;
			points[n++] = (struct analysis_align_point){ a * f,
				500e3, 500e3 + diff + wobble, 500e3,
				diff + wobble, 0 };
		}
	return n;
}

static const struct analysis_level *level_at(uint64_t size)
{
	for (size_t j = 0; j < g.level_count; j++)
		if (g.levels[j].size == size)
			return &g.levels[j];
	return NULL;
}

static bool named(uint64_t size, enum analysis_level_kind kind)
{
	const struct analysis_level *l = level_at(size);

	return l && l->kind == kind;
}

static void test_readme_staircase(void)
{
	/* the README example: 8K pages read two at a time, 4M erase */
	static const struct step steps[] = {
		{ 8 * KIB, 50e3 }, { 16 * KIB, 100e3 }, { 4 * MIB, 150e3 } };
	size_t n = staircase(steps, 3, 2 * KIB, 128 * MIB, false, 1, 0);

	analysis_align(points, n, &g);
	UNIT_CHECK(g.level_count == 3 && named(8 * KIB, ANALYSIS_LEVEL_PAGE) &&
		   named(16 * KIB, ANALYSIS_LEVEL_EFFECTIVE_PAGE) &&
		   named(4 * MIB, ANALYSIS_LEVEL_ERASE),
		   "README staircase: page, effective page, erase block");
	UNIT_CHECK(g.erase.known && g.erase.value == 4 * MIB &&
		   g.page.value == 8 * KIB && g.effective_page.value == 16 * KIB,
		   "README staircase: 4MiB, 8KiB, 16KiB");
	UNIT_CHECK(fabs(level_at(4 * MIB)->cost_ns - 150e3) < 5e3 &&
		   fabs(level_at(8 * KIB)->cost_ns - 50e3) < 5e3,
		   "each level's cost is its own step");
}

static void test_small_top_step(void)
{
	/* 021: the erase step far smaller than the page step, a group above */
	static const struct step steps[] = {
		{ 8 * KIB, 190e3 }, { 16 * KIB, 65e3 }, { 4 * MIB, 30e3 },
		{ 1024 * MIB, 60e3 } };
	size_t n = staircase(steps, 4, 2 * KIB, 2048 * MIB, false, 2, 0);

	analysis_align(points, n, &g);
	UNIT_CHECK(g.erase.known && g.erase.value == 4 * MIB,
		   "a small erase step above a big page step is the erase block");
	UNIT_CHECK(named(1024 * MIB, ANALYSIS_LEVEL_GROUP),
		   "a step above 64MiB is an allocation group");
	UNIT_CHECK(g.page.known && g.page.value == 8 * KIB,
		   "the page is the lowest step");
}

static void test_outlier(void)
{
	static const struct step steps[] = {
		{ 16 * KIB, 100e3 }, { 4 * MIB, 100e3 } };
	size_t n = staircase(steps, 2, 2 * KIB, 1024 * MIB, false, 3, 0);

	for (size_t i = 0; i < n; i++)
		if (points[i].align == 64 * MIB)
			points[i].diff += 150e3;	/* one stray line */
	analysis_align(points, n, &g);
	UNIT_CHECK(g.erase.known && g.erase.value == 4 * MIB &&
		   g.level_count == 2,
		   "one stray line makes no level");
}

static void test_repeated_runs(void)
{
	static const struct step steps[] = {
		{ 8 * KIB, 40e3 }, { 8 * MIB, 25e3 } };
	size_t n = staircase(steps, 2, 2 * KIB, 1024 * MIB, false, 4, 0);
	double one;

	analysis_align(points, n, &g);
	one = g.erase.confidence;
	n = staircase(steps, 2, 2 * KIB, 1024 * MIB, false, 5, n);
	n = staircase(steps, 2, 2 * KIB, 1024 * MIB, false, 6, n);
	analysis_align(points, n, &g);
	UNIT_CHECK(g.erase.known && g.erase.value == 8 * MIB &&
		   g.erase.confidence >= one,
		   "three runs of one card: the same reading, no less sure");
}

static void test_three_times(void)
{
	static const struct step steps[] = {
		{ 16 * KIB, 80e3 }, { 3 * MIB, 100e3 } };
	size_t n = staircase(steps, 2, 2 * KIB, 256 * MIB, true, 7, 0);

	analysis_align(points, n, &g);
	UNIT_CHECK(g.erase.known && g.erase.value == 3 * MIB,
		   "3MiB erase blocks on 3 x 2^n boundaries");
	n = staircase(steps, 2, 2 * KIB, 256 * MIB, false, 7, 0);
	analysis_align(points, n, &g);
	UNIT_CHECK(!g.erase.known && g.erase_hidden &&
		   g.page.value == 16 * KIB,
		   "powers of two alone do not show it: not visible");
}

static void test_hidden_and_flat(void)
{
	static const struct step steps[] = {
		{ 8 * KIB, 50e3 }, { 16 * KIB, 100e3 } };
	size_t n = staircase(steps, 2, 2 * KIB, 1024 * MIB, false, 8, 0);

	analysis_align(points, n, &g);
	UNIT_CHECK(!g.erase.known && g.erase_hidden &&
		   g.hidden_confidence > 0.5 && g.page.value == 8 * KIB,
		   "flat from 16KiB up: erase block not visible, page found");
	n = staircase(NULL, 0, 2 * KIB, 1024 * MIB, false, 9, 0);
	analysis_align(points, n, &g);
	UNIT_CHECK(!g.erase.known && !g.erase_hidden && g.level_count == 0,
		   "no step at all: no signal, nothing named");
}

static void test_two_readings(void)
{
	/* 2 MiB erase blocks paired into a 4 MiB unit */
	static const struct step steps[] = {
		{ 8 * KIB, 100e3 }, { 2 * MIB, 60e3 }, { 4 * MIB, 60e3 } };
	size_t n = staircase(steps, 3, 2 * KIB, 1024 * MIB, false, 10, 0);
	struct analysis_prior prior = { ANALYSIS_DEVICE_SD, 8192 * MIB,
					2 * MIB };
	double weight;

	analysis_align(points, n, &g);
	UNIT_CHECK(g.erase.value == 4 * MIB && g.erase_alternative.known &&
		   g.erase_alternative.value == 2 * MIB &&
		   g.erase.confidence < 0.9 &&
		   g.erase_alternative.confidence < g.erase.confidence,
		   "2 or 4MiB: the top level, the lower one as the alternative");
	weight = g.erase_alternative.confidence;
	analysis_align_prior(points, n, &prior, &g);
	UNIT_CHECK(g.erase.value == 4 * MIB && g.prior_verdict == 2 &&
		   g.erase_alternative.confidence > weight,
		   "a sysfs claim of the lower size weighs the alternative up");
}

static void test_plausibility(void)
{
	/* a step at 32 KiB only: no erase block can be that small */
	static const struct step steps[] = { { 32 * KIB, 200e3 } };
	size_t n = staircase(steps, 1, 2 * KIB, 1024 * MIB, false, 11, 0);
	struct analysis_prior emmc = { ANALYSIS_DEVICE_EMMC, 0, 32 * KIB };

	analysis_align(points, n, &g);
	UNIT_CHECK(!g.erase.known && g.page.value == 32 * KIB,
		   "a step below 128KiB is a page, not an erase block");
	analysis_align_prior(points, n, &emmc, &g);
	UNIT_CHECK(g.erase.known && g.erase.value == 32 * KIB,
		   "unless the device reports an erase group that small");
}

static void test_lost_unit(void)
{
	static const struct step steps[] = { { 4 * MIB, 300e3 } };
	size_t n = staircase(steps, 1, 1 * MIB, 4096 * MIB, false, 12, 0);

	for (size_t i = 0; i < n; i++)
		points[i].diff *= 1e6;		/* "308s" for 308 us */
	analysis_align(points, n, &g);
	UNIT_CHECK(g.erase.known && g.erase.value == 4 * MIB &&
		   g.noise_ns < 1e6,
		   "a diff larger than its reads is recomputed from them");
}

static void test_priors_from_text(void)
{
	static struct analyze_result r;

	analyze_text("==> /sys/block/mmcblk0/device/preferred_erase_size <== "
		     "4194304 ==> /sys/block/mmcblk0/device/type <== SD\n"
		     "Disk /dev/mmcblk0: 7948 MB, 7948206080 bytes\n", &r);
	UNIT_CHECK(r.prior.preferred_erase == 4 * MIB &&
		   r.prior.device == ANALYSIS_DEVICE_SD &&
		   r.prior.capacity_bytes == 7948206080ULL,
		   "sysfs dump and fdisk: erase size, type, capacity");
	analyze_text("$ cat /sys/block/mmcblk0/device/preferred_erase_size\n"
		     "8388608\nMMC_TYPE=MMC\n", &r);
	UNIT_CHECK(r.prior.preferred_erase == 8 * MIB &&
		   r.prior.device == ANALYSIS_DEVICE_EMMC,
		   "cat prints the value on the next line");
	analyze_text("preferred_erase_size\n\n\n4194304\n", &r);
	UNIT_CHECK(r.prior.preferred_erase == 0,
		   "a number lines later is not the value");
	analyze_text("align 8589934592 pre 690us on 1.01ms post 1.44ms "
		     "diff -49389n\n", &r);
	UNIT_CHECK(r.point_count == 1 && fabs(r.points[0].diff + 49389) < 1,
		   "the original's cut \"-49389n\" is ns");
}

int main(void)
{
	test_readme_staircase();
	test_small_top_step();
	test_outlier();
	test_repeated_runs();
	test_three_times();
	test_hidden_and_flat();
	test_two_readings();
	test_plausibility();
	test_lost_unit();
	test_priors_from_text();
	return UNIT_DONE();
}
