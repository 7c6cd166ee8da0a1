/*
 * unit-sustained: the fall of a write rate (analysis/sustained.c) on
 * synthetic series of 4 MiB chunks - flat, a clean step, a noisy step
 * with stray chunks, a step in the last chunks of a run, and a rate
 * that never settles after its fall - so what it finds follows from
 * the series, not from a card.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/sustained.h"
#include "unit.h"

#define CHUNK (4ull << 20)
#define MB 1e6

/* A chunk written at rate bytes/s, as its bytes and device time. */
static bool add_at(struct sustained *s, double rate)
{
	return sustained_add(s, CHUNK, (uint64_t)llround(CHUNK * 1e9 / rate));
}

/* A repeatable noise in [-1, 1) (splitmix64). */
static double noise(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ull << 52) - 1;
}

static bool near(double got, double want, double fraction)
{
	return isfinite(got) && fabs(got - want) <= fraction * want;
}

/* Fast chunks, then slow ones until the detector has enough. */
static size_t step(struct sustained *s, size_t fast, double burst,
		   double native, size_t limit)
{
	size_t n = 0;

	for (size_t i = 0; i < fast; i++)
		add_at(s, burst);
	while (n < limit && !add_at(s, native))
		n++;
	return n;
}

static void test_flat(void)
{
	struct sustained s;
	struct sustained_result r;
	bool enough = false;

	sustained_init(&s, 100);
	for (int i = 0; i < 64; i++)
		enough |= add_at(&s, 10.7 * MB);
	sustained_result(&s, &r);
	UNIT_CHECK(!enough, "flat: the writer is never told it has enough");
	UNIT_CHECK(r.status == SUSTAINED_NO_FALL, "flat: no fall");
	UNIT_CHECK(r.written_bytes == 64 * CHUNK && r.chunks == 64,
		   "flat: every chunk counted");
	UNIT_CHECK(isnan(r.burst_bytes_per_s) &&
		   isnan(r.sustained_bytes_per_s),
		   "flat: no burst, no sustained rate");
	sustained_free(&s);
}

static void test_step(void)
{
	struct sustained s;
	struct sustained_result r;
	size_t after;

	sustained_init(&s, 200);
	after = step(&s, 40, 80 * MB, 20 * MB, 100);
	sustained_result(&s, &r);
	UNIT_CHECK(after + 1 == 2 * SUSTAINED_WINDOW,
		   "step: enough two windows after the fall (%zu)", after);
	UNIT_CHECK(r.status == SUSTAINED_FOUND, "step: found");
	UNIT_CHECK(r.cache_bytes == 40 * CHUNK,
		   "step: the cache is the 40 fast chunks (%llu)",
		   (unsigned long long)r.cache_bytes);
	UNIT_CHECK(near(r.burst_bytes_per_s, 80 * MB, 1e-6) &&
		   near(r.sustained_bytes_per_s, 20 * MB, 1e-6),
		   "step: burst 80, sustained 20 MB/s");
	UNIT_CHECK(r.after_fall_bytes == 16 * CHUNK,
		   "step: written after the fall");
	sustained_free(&s);
}

static void test_noisy_step(void)
{
	uint64_t seed = 42;
	struct sustained s;
	struct sustained_result r;
	bool enough = false;
	int i;

	sustained_init(&s, 400);
	for (i = 0; i < 100; i++)	/* one stray slow chunk in the burst */
		add_at(&s, (i == 50 ? 15 : 85) * MB *
			   (1 + 0.08 * noise(&seed)));
	for (i = 0; i < 200 && !enough; i++)	/* and a stray fast one */
		enough = add_at(&s, (i == 12 ? 85 : 22) * MB *
				    (1 + 0.08 * noise(&seed)));
	sustained_result(&s, &r);
	UNIT_CHECK(enough && r.status == SUSTAINED_FOUND, "noisy: found");
	UNIT_CHECK(r.cache_bytes >= 99 * CHUNK && r.cache_bytes <= 101 * CHUNK,
		   "noisy: the cache within a chunk of 100 (%.2f)",
		   (double)r.cache_bytes / CHUNK);
	UNIT_CHECK(near(r.burst_bytes_per_s, 85 * MB, 0.04) &&
		   near(r.sustained_bytes_per_s, 22 * MB, 0.04),
		   "noisy: burst %.1f and sustained %.1f MB/s within 4%%",
		   r.burst_bytes_per_s / MB, r.sustained_bytes_per_s / MB);
	sustained_free(&s);
}

/* fast chunks, then tail slow ones, and the run ends */
static void run_tail(size_t tail, struct sustained_result *r)
{
	struct sustained s;

	sustained_init(&s, 100);
	step(&s, 30, 40 * MB, 10 * MB, tail);
	sustained_result(&s, r);
	sustained_free(&s);
}

static void test_step_at_end(void)
{
	struct sustained_result r;

	run_tail(4, &r);
	UNIT_CHECK(r.status == SUSTAINED_NOT_SETTLED &&
		   r.cache_bytes == 30 * CHUNK &&
		   near(r.burst_bytes_per_s, 40 * MB, 1e-6) &&
		   isnan(r.sustained_bytes_per_s),
		   "end: four slow last chunks are a fall, the rate after it "
		   "not settled");
	UNIT_CHECK(r.after_fall_bytes == 4 * CHUNK,
		   "end: written after the fall");
	run_tail(SUSTAINED_TAIL_CHUNKS - 1, &r);
	UNIT_CHECK(r.status == SUSTAINED_NO_FALL,
		   "end: %d slow last chunks prove nothing",
		   SUSTAINED_TAIL_CHUNKS - 1);
}

static void test_no_settle(void)
{
	struct sustained s;
	struct sustained_result r;
	bool enough = false;
	double rate = 40 * MB;

	sustained_init(&s, 200);
	for (int i = 0; i < 30; i++)
		add_at(&s, 80 * MB);
	/* after the fall, a quarter slower every window */
	for (int i = 0; i < 6 * SUSTAINED_WINDOW; i++) {
		if (i && i % SUSTAINED_WINDOW == 0)
			rate *= 0.75;
		enough |= add_at(&s, rate);
	}
	sustained_result(&s, &r);
	UNIT_CHECK(!enough, "no settle: never enough");
	UNIT_CHECK(r.status == SUSTAINED_NOT_SETTLED &&
		   r.cache_bytes == 30 * CHUNK &&
		   isnan(r.sustained_bytes_per_s),
		   "no settle: the fall found, no sustained rate");
	sustained_free(&s);
}

static void test_few_and_full(void)
{
	struct sustained s;
	struct sustained_result r;
	bool enough = false;

	sustained_init(&s, 10);
	for (int i = 0; i < SUSTAINED_WINDOW - 1; i++)
		add_at(&s, 10 * MB);
	UNIT_CHECK(!sustained_add(&s, 0, 1000) && !sustained_add(&s, CHUNK, 0),
		   "a chunk without bytes or time is left out");
	sustained_result(&s, &r);
	UNIT_CHECK(r.status == SUSTAINED_TOO_FEW && r.chunks ==
		   SUSTAINED_WINDOW - 1, "too few chunks for a window");
	for (int i = 0; i < 3; i++)
		enough = add_at(&s, 10 * MB);
	UNIT_CHECK(!enough && add_at(&s, 10 * MB),
		   "a full series: enough, once a chunk found no room");
	sustained_result(&s, &r);
	UNIT_CHECK(r.full && r.chunks == 10, "a full series says so");
	sustained_free(&s);
}

int main(void)
{
	test_flat();
	test_step();
	test_noisy_step();
	test_step_at_end();
	test_no_settle();
	test_few_and_full();
	return UNIT_DONE();
}
