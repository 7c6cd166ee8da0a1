/*
 * unit-powercutsim: the power-cut core against the simulated card's
 * power-fault model - a seeded workload of stamped writes and flushes,
 * the power cut at a seeded moment of it, the range verified and
 * settled, cycle after cycle - so that each fault key shows as its own
 * class and as no other, and an honest card as none.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dev.h"
#include "measure/powercut.h"
#include "measure/powercutcheck.h"
#include "measure/powercutstamp.h"
#include "measure/powercutstate.h"
#include "unit.h"

#define CARD "sim:size=64M,seed=%u"
#define OFFSET (16 * 1024 * 1024)
#define SPAN (4 * 1024 * 1024)
#define UNIT 4096
#define MOST_UNITS 16
#define CYCLES 20

static unsigned char buf[MOST_UNITS * UNIT] __attribute__((aligned(4096)));

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct rig {
	struct dev dev;
	struct powercut_state st;
	uint64_t rng;
	uint64_t start_ns;	/* the card's clock at the cycle's start */
};

static uint64_t now(const struct rig *rig)
{
	return rig->dev.stats.time_ns - rig->start_ns;
}

/* The next write: 1 to 16 units anywhere in the span, stamped. */
static struct powercut_write next_write(struct rig *rig)
{
	uint64_t units = SPAN / UNIT;
	uint64_t n = 1 + next_random(&rig->rng) % MOST_UNITS;
	uint64_t u = next_random(&rig->rng) % (units - n + 1);
	struct powercut_write w = { .seq = rig->st.next_seq,
				    .offset_bytes = OFFSET + u * UNIT,
				    .length_bytes = n * UNIT,
				    .t_ns = now(rig) };

	powercut_stamp_fill(&rig->st.run, buf, w.offset_bytes, w.length_bytes,
			    w.seq, rig->st.cycle);
	return w;
}

/*
 * Write and flush until an operation fails: the cut.  0, or -1 when
 * the state refused an event or the power never failed.
 */
static int workload(struct rig *rig, struct powercut_cut *cut)
{
	unsigned to_flush = 1 + (unsigned)(next_random(&rig->rng) % 8);

	for (unsigned ops = 0; ops < 100000; ops++) {
		struct powercut_write w = next_write(rig);
		uint64_t ns;
		int err = dev_write(&rig->dev, buf, w.offset_bytes,
				    w.length_bytes, &ns);

		if (err) {
			*cut = (struct powercut_cut){ .cycle = rig->st.cycle,
				.t_ns = now(rig), .errnum = -err, .torn = true,
				.write = w };
			return 0;
		}
		if (powercut_wrote(&rig->st, w.seq, w.offset_bytes,
				   w.length_bytes, now(rig)))
			return -1;
		if (--to_flush > 0)
			continue;
		to_flush = 1 + (unsigned)(next_random(&rig->rng) % 8);
		err = dev_flush(&rig->dev);
		if (err) {
			*cut = (struct powercut_cut){ .cycle = rig->st.cycle,
				.t_ns = now(rig), .errnum = -err };
			return 0;
		}
		if (powercut_flushed(&rig->st, w.seq, now(rig)))
			return -1;
	}
	return -1;
}

/*
 * One cycle: the cut armed within the first 200 ms of the card's clock,
 * the workload, power on, verify, settle.  0; -ENODEV when the card did
 * not come back; -1 for anything else wrong.
 */
static int cycle(struct rig *rig, uint32_t n, struct powercut_cycle *out)
{
	struct powercut_cut cut;
	uint64_t after_ns = next_random(&rig->rng) % 200000000;
	int err;

	rig->start_ns = rig->dev.stats.time_ns;
	if (powercut_cycle_begin(&rig->st, n, rig->st.next_seq) ||
	    dev_power_cut(&rig->dev, after_ns) || workload(rig, &cut) ||
	    powercut_cut(&rig->st, &cut))
		return -1;
	err = dev_power_on(&rig->dev);
	if (err)
		return err == -ENODEV ? err : -1;
	if (powercut_verify(&rig->dev, &rig->st, out) ||
	    powercut_settle(&rig->dev, &rig->st) < 0)
		return -1;
	return 0;
}

/* CYCLES cycles on the card keys name: their sums, or -1. */
static int run(const char *keys, unsigned seed, struct powercut_summary *sum)
{
	struct powercut_run r = { .salt = 0x5eed0000 + seed, .seed = seed,
				  .device_bytes = 64 * 1024 * 1024,
				  .offset_bytes = OFFSET, .span_bytes = SPAN,
				  .sector_bytes = 512, .unit_bytes = UNIT };
	struct rig rig = { .rng = seed };
	struct powercut_cycle c;
	char spec[160];
	int err = -1;

	snprintf(spec, sizeof(spec), CARD ",%s", seed, keys);
	powercut_summary_init(sum);
	if (dev_open(&rig.dev, spec, DEV_READ_WRITE))
		return -1;
	dev_allow_writes(&rig.dev, OFFSET, OFFSET + SPAN);
	if (powercut_state_init(&rig.st, &r) == 0 &&
	    powercut_stamp_old(&rig.dev, &rig.st) == 0) {
		for (uint32_t n = 1; n <= CYCLES; n++) {
			err = cycle(&rig, n, &c);
			if (err)
				break;
			powercut_summary_add(sum, &c);
		}
	}
	powercut_state_free(&rig.st);
	dev_close(&rig.dev);
	return err;
}

/* Cycles with a fault of a class but a and b, or another capacity. */
static uint32_t others(const struct powercut_summary *s,
		       enum powercut_class a, enum powercut_class b)
{
	uint32_t n = 0;

	for (int k = 0; k < POWERCUT_FAULTS; k++)
		if (k != (int)a && k != (int)b)
			n += s->with[k];
	return n + s->capacity_changed;
}

static void show(const char *keys, const struct powercut_summary *s)
{
	printf("# %s:", keys);
	for (int k = 0; k < POWERCUT_CLASSES; k++)
		printf(" %s=%u/%llu", powercut_class_name((enum powercut_class)k),
		       s->with[k], (unsigned long long)s->counts[k]);
	printf("\n");
}

static void test_honest(void)
{
	const char *keys = "volatile=1M,flush=honest";
	struct powercut_summary s;
	int err = run(keys, 1, &s);

	show(keys, &s);
	UNIT_CHECK(err == 0 && s.cycles == CYCLES && s.faulty == 0 &&
		   s.with[POWERCUT_UNFLUSHED_LOST] > 0,
		   "an honest card with a cache: only unflushed writes lost, "
		   "in %u of %u cuts", s.with[POWERCUT_UNFLUSHED_LOST],
		   s.cycles);
}

static void test_lying(void)
{
	const char *keys = "volatile=1M,flush=ignore";
	struct powercut_summary s;
	int err = run(keys, 2, &s);

	show(keys, &s);
	UNIT_CHECK(err == 0 && s.with[POWERCUT_ACK_LOST] > 0 &&
		   others(&s, POWERCUT_ACK_LOST, POWERCUT_ACK_LOST) == 0,
		   "a card that ignores flushes: acknowledged writes lost "
		   "(%u of %u cuts), nothing else", s.with[POWERCUT_ACK_LOST],
		   s.cycles);
}

static void test_key(const char *keys, enum powercut_class a,
		     enum powercut_class b, const char *what)
{
	struct powercut_summary s;
	int err = run(keys, 3, &s);

	show(keys, &s);
	UNIT_CHECK(err == 0 && s.with[a] > 0 && s.with[b] > 0 &&
		   others(&s, a, b) == 0, "%s: %s and no other fault", keys,
		   what);
}

static void test_dead(void)
{
	struct powercut_summary s;

	UNIT_CHECK(run("cut-dead=1", 4, &s) == -ENODEV && s.cycles == 0,
		   "cut-dead=1: the card does not come back");
}

int main(void)
{
	test_honest();
	test_lying();
	test_key("cut-shorn=1", POWERCUT_SHORN, POWERCUT_SHORN, "shorn");
	test_key("cut-damage=0.5", POWERCUT_OLD_DAMAGED, POWERCUT_OLD_DAMAGED,
		 "old data damaged");
	test_key("cut-map=16", POWERCUT_UNSERIALIZABLE, POWERCUT_FLYING,
		 "unserializable and flying");
	test_dead();
	return UNIT_DONE();
}
