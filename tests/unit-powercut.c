/*
 * unit-powercut: the power-cut test's core - its stamps, the expected
 * state, the verification that gives each unit one class (each class
 * made alone on a simulated card by tampering with what it holds),
 * settling, and the log written and replayed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"
#include "measure/powercut.h"
#include "measure/powercutcheck.h"
#include "measure/powercutlog.h"
#include "measure/powercutstamp.h"
#include "measure/powercutstate.h"
#include "unit.h"

#define SALT 0x0123456789abcdefULL
#define SPEC "sim:size=16M,fake=16M"
#define OFFSET (1024 * 1024)
#define SPAN (2 * 1024 * 1024)
#define UNIT 4096
/* a unit of the range by number */
#define AT(n) ((uint64_t)OFFSET + (uint64_t)(n) * UNIT)

static unsigned char sector[4096] __attribute__((aligned(4096)));
static unsigned char scratch[64 * 1024] __attribute__((aligned(4096)));

static struct powercut_run test_run(void)
{
	struct powercut_run r = {
		.salt = SALT, .seed = 7, .device_bytes = 16 * 1024 * 1024,
		.offset_bytes = OFFSET, .span_bytes = SPAN,
		.sector_bytes = 512, .unit_bytes = UNIT };

	snprintf(r.identity, sizeof(r.identity), "sim:size=16M,fake=16M");
	return r;
}

static void test_stamps(void)
{
	struct powercut_run r = test_run();
	struct powercut_stamp s = { 0 };

	powercut_stamp_fill(&r, sector, 8192, 1024, 42, 3);
	UNIT_CHECK(powercut_stamp_check(&r, sector + 512, 8704, &s) ==
		   POWERCUT_SECTOR_OURS && s.seq == 42 && s.cycle == 3 &&
		   s.offset_bytes == 8704,
		   "a stamp read back where it was written names its write");
	UNIT_CHECK(powercut_stamp_check(&r, sector, 4096, &s) ==
		   POWERCUT_SECTOR_FLYING && s.offset_bytes == 8192,
		   "read back elsewhere it names where it was written");
	UNIT_CHECK(memcmp(sector, sector + 512, 512) != 0,
		   "every sector is its own");
	r.salt++;
	UNIT_CHECK(powercut_stamp_check(&r, sector, 8192, &s) ==
		   POWERCUT_SECTOR_FOREIGN, "another run's stamp is foreign");
	r.salt--;
	sector[200] ^= 0x10;
	UNIT_CHECK(powercut_stamp_check(&r, sector, 8192, &s) ==
		   POWERCUT_SECTOR_GARBAGE, "one changed bit: garbage");
	sector[200] ^= 0x10;
	sector[509] ^= 0x01;
	UNIT_CHECK(powercut_stamp_check(&r, sector, 8192, &s) ==
		   POWERCUT_SECTOR_GARBAGE, "a changed checksum: garbage");
	memset(sector, 0xff, 512);
	UNIT_CHECK(powercut_stamp_check(&r, sector, 0, &s) ==
		   POWERCUT_SECTOR_ERASED, "erased");
	memset(sector, 0, 512);
	UNIT_CHECK(powercut_stamp_check(&r, sector, 0, &s) ==
		   POWERCUT_SECTOR_ZEROS, "zeros");
	r.sector_bytes = 4096;
	powercut_stamp_fill(&r, sector, 0, 4096, 1, 1);
	UNIT_CHECK(powercut_stamp_check(&r, sector, 0, &s) ==
		   POWERCUT_SECTOR_OURS,
		   "a stamp as long as a 4 KiB logical block");
	UNIT_STREQ(powercut_sector_name(POWERCUT_SECTOR_FLYING), "flying",
		   "sector kinds have names");
}

/* A simulated card that keeps data, its old data stamped, cycle 1 begun. */
struct fixture {
	struct dev dev;
	struct powercut_state st;
	struct powercut_cycle c;
	uint64_t t_ns;
};

static int fx_open(struct fixture *fx, const char *spec)
{
	struct powercut_run r = test_run();

	memset(fx, 0, sizeof(*fx));
	if (dev_open(&fx->dev, spec, DEV_READ_WRITE))
		return -1;
	dev_allow_writes(&fx->dev, OFFSET, OFFSET + SPAN);
	return powercut_state_init(&fx->st, &r);
}

static int fx_start(struct fixture *fx)
{
	if (fx_open(fx, SPEC) || powercut_stamp_old(&fx->dev, &fx->st) != 0)
		return -1;
	return powercut_cycle_begin(&fx->st, 1, 1);
}

static void fx_close(struct fixture *fx)
{
	powercut_state_free(&fx->st);
	dev_close(&fx->dev);
}

/* Stamps of seq naming [named, +length) written at offset. */
static int put_stamps(struct fixture *fx, uint64_t offset, uint64_t named,
		      uint64_t length, uint32_t seq)
{
	uint64_t ns;

	powercut_stamp_fill(&fx->st.run, scratch, named, length, seq,
			    fx->st.cycle);
	return dev_write(&fx->dev, scratch, offset, length, &ns);
}

/* The workload's write seq over units [n, n + count), logged complete. */
static int wrote(struct fixture *fx, uint32_t seq, unsigned n,
		 unsigned count)
{
	fx->t_ns += 1000000;
	if (put_stamps(fx, AT(n), AT(n), (uint64_t)count * UNIT, seq))
		return -1;
	return powercut_wrote(&fx->st, seq, AT(n), (uint64_t)count * UNIT,
			      fx->t_ns);
}

static int flushed(struct fixture *fx, uint32_t seq)
{
	fx->t_ns += 1000000;
	if (dev_flush(&fx->dev))
		return -1;
	return powercut_flushed(&fx->st, seq, fx->t_ns);
}

static int cut_now(struct fixture *fx)
{
	struct powercut_cut cut = { .cycle = fx->st.cycle,
				    .t_ns = fx->t_ns + 1000000,
				    .errnum = EIO };

	return powercut_cut(&fx->st, &cut);
}

static int put_bytes(struct fixture *fx, uint64_t offset, uint64_t length,
		     int byte)
{
	uint64_t ns;

	memset(scratch, byte, length);
	return dev_write(&fx->dev, scratch, offset, length, &ns);
}

/* Exactly n units of cls and no unit of any other fault class. */
static int only(const struct powercut_cycle *c, enum powercut_class cls,
		uint64_t n)
{
	for (int k = 0; k < POWERCUT_FAULTS; k++)
		if (c->counts[k] != (k == (int)cls ? n : 0))
			return 0;
	return 1;
}

static int no_fault(const struct powercut_cycle *c)
{
	return only(c, POWERCUT_FAULTS, 0) && !powercut_cycle_faulty(c);
}

/* What the progress hook was last told, and how often. */
struct told {
	unsigned calls;
	uint64_t done_bytes, total_bytes;
};

static void tell(void *ctx, uint64_t done_bytes, uint64_t total_bytes)
{
	struct told *t = ctx;

	t->calls++;
	t->done_bytes = done_bytes;
	t->total_bytes = total_bytes;
}

static void test_untouched(void)
{
	struct fixture fx;
	struct told told = { 0 };
	int ok = fx_start(&fx) == 0 && wrote(&fx, 1, 10, 4) == 0 &&
		 flushed(&fx, 1) == 0 && wrote(&fx, 2, 100, 16) == 0 &&
		 wrote(&fx, 3, 12, 1) == 0 && cut_now(&fx) == 0;

	fx.st.progress = tell;
	fx.st.progress_ctx = &told;
	ok = ok && powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;
	UNIT_CHECK(ok && told.calls == SPAN / POWERCUT_CHUNK_BYTES &&
		   told.done_bytes == SPAN && told.total_bytes == SPAN,
		   "verifying tells its progress chunk by chunk");

	UNIT_CHECK(ok && no_fault(&fx.c) && fx.c.intact == SPAN / UNIT &&
		   fx.c.counts[POWERCUT_UNFLUSHED_LOST] == 0,
		   "an untouched range: every unit intact, no class");
	UNIT_CHECK(ok && fx.c.units == SPAN / UNIT && fx.c.cycle == 1 &&
		   fx.c.cut_ns == 5000000 && !fx.c.capacity_changed,
		   "the cycle's result names the cycle, its cut, its units");
	fx_close(&fx);
}

static void test_ack_lost(void)
{
	struct fixture fx;
	int ok = fx_start(&fx) == 0 && wrote(&fx, 1, 10, 2) == 0 &&
		 flushed(&fx, 1) == 0 && cut_now(&fx) == 0 &&
		 put_stamps(&fx, AT(11), AT(11), UNIT, 0) == 0 &&
		 powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;
	const struct powercut_example *ex =
		&fx.c.examples[POWERCUT_ACK_LOST][0];

	UNIT_CHECK(ok && only(&fx.c, POWERCUT_ACK_LOST, 1) &&
		   powercut_cycle_faulty(&fx.c),
		   "an acknowledged write reading back as old data: lost");
	UNIT_CHECK(ok && ex->offset_bytes == AT(11) && ex->seq == 1 &&
		   ex->found_seq == 0 && ex->before_cut_ns == 2000000 &&
		   fx.c.ack_lost_before_cut_ns == 2000000,
		   "its example: offset, version, what is there, ms before "
		   "the cut");
	fx_close(&fx);
}

static void test_unserializable(void)
{
	struct fixture fx;
	int ok = fx_start(&fx) == 0 && wrote(&fx, 1, 10, 1) == 0 &&
		 flushed(&fx, 1) == 0 && wrote(&fx, 2, 20, 1) == 0 &&
		 wrote(&fx, 3, 10, 1) == 0 && cut_now(&fx) == 0 &&
		 put_stamps(&fx, AT(10), AT(10), UNIT, 0) == 0 &&
		 powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;

	UNIT_CHECK(ok && only(&fx.c, POWERCUT_UNSERIALIZABLE, 1) &&
		   fx.c.examples[POWERCUT_UNSERIALIZABLE][0].seq == 1,
		   "acknowledged write lost while a later one survived: "
		   "unserializable");
	fx_close(&fx);
}

static void test_flying(void)
{
	struct fixture fx;
	int ok = fx_start(&fx) == 0 && wrote(&fx, 1, 10, 1) == 0 &&
		 flushed(&fx, 1) == 0 && cut_now(&fx) == 0 &&
		 put_stamps(&fx, AT(300), AT(10), UNIT, 1) == 0 &&
		 powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;
	const struct powercut_example *ex = &fx.c.examples[POWERCUT_FLYING][0];

	UNIT_CHECK(ok && only(&fx.c, POWERCUT_FLYING, 1) &&
		   ex->offset_bytes == AT(300) && ex->named_bytes == AT(10) &&
		   ex->seq == 1,
		   "a write's stamps at another offset: flying, naming both");
	fx_close(&fx);
}

static void test_shorn(void)
{
	struct fixture fx;
	int ok = fx_start(&fx) == 0 && wrote(&fx, 1, 10, 2) == 0 &&
		 cut_now(&fx) == 0 &&
		 put_stamps(&fx, AT(11) + 2048, AT(11) + 2048, 2048, 0) == 0 &&
		 powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;

	UNIT_CHECK(ok && only(&fx.c, POWERCUT_SHORN, 1) &&
		   fx.c.examples[POWERCUT_SHORN][0].offset_bytes == AT(11) &&
		   fx.c.counts[POWERCUT_UNFLUSHED_LOST] == 0,
		   "half a unit new, half old: shorn, though not acknowledged");
	fx_close(&fx);
}

static void test_old_damaged(void)
{
	struct fixture fx;
	int ok = fx_start(&fx) == 0 && wrote(&fx, 1, 10, 1) == 0 &&
		 flushed(&fx, 1) == 0 && wrote(&fx, 2, 40, 2) == 0 &&
		 cut_now(&fx) == 0 && put_bytes(&fx, AT(45), UNIT, 0x5a) == 0 &&
		 put_bytes(&fx, AT(10), UNIT, 0xff) == 0 &&
		 powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;
	const struct powercut_example *ex =
		&fx.c.examples[POWERCUT_OLD_DAMAGED][0];

	UNIT_CHECK(ok && only(&fx.c, POWERCUT_OLD_DAMAGED, 2),
		   "garbage in old data, an acknowledged unit erased: old data "
		   "damaged");
	UNIT_CHECK(ok && ex[0].offset_bytes == AT(10) &&
		   ex[0].distance_bytes == 29 * UNIT &&
		   ex[1].offset_bytes == AT(45) &&
		   ex[1].distance_bytes == 3 * UNIT && ex[1].seq == 0,
		   "each named with its distance from the write in flight");
	fx_close(&fx);
}

static void test_unflushed(void)
{
	struct fixture fx;
	struct powercut_cut cut = { .cycle = 1, .t_ns = 9000000,
				    .errnum = EIO, .torn = true,
				    .write = { .seq = 4, .offset_bytes = AT(60),
					       .length_bytes = 2 * UNIT,
					       .t_ns = 8500000 } };
	int ok = fx_start(&fx) == 0 && wrote(&fx, 1, 10, 1) == 0 &&
		 flushed(&fx, 1) == 0 && wrote(&fx, 2, 10, 1) == 0 &&
		 wrote(&fx, 3, 50, 1) == 0 &&
		 powercut_cut(&fx.st, &cut) == 0 &&
		 put_stamps(&fx, AT(10), AT(10), UNIT, 1) == 0 &&
		 put_bytes(&fx, AT(50), UNIT, 0x00) == 0 &&
		 put_stamps(&fx, AT(60), AT(60), UNIT, 4) == 0 &&
		 put_bytes(&fx, AT(61), UNIT, 0xff) == 0 &&
		 powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;

	UNIT_CHECK(ok && no_fault(&fx.c) &&
		   fx.c.counts[POWERCUT_UNFLUSHED_LOST] == 3 &&
		   fx.c.newer == 1,
		   "unacknowledged writes lost, or torn at a unit's edge: "
		   "expected, no fault");
	UNIT_CHECK(ok && fx.st.next_seq == 5,
		   "the torn write's seq is never used again");
	fx_close(&fx);
}

/* Old data everywhere but where the card cannot be written at all. */
static int stamp_around(struct fixture *fx, unsigned bad, unsigned count)
{
	for (unsigned u = 0; u < SPAN / UNIT; u++)
		if ((u < bad || u >= bad + count) &&
		    put_stamps(fx, AT(u), AT(u), UNIT, 0))
			return -1;
	powercut_old(&fx->st);
	return powercut_cycle_begin(&fx->st, 1, 1);
}

static void test_unreadable(void)
{
	char spec[96];
	struct fixture fx;
	int ok;

	snprintf(spec, sizeof(spec), "%s,bad=%llu+%u", SPEC,
		 (unsigned long long)AT(200), 2 * UNIT);
	ok = fx_open(&fx, spec) == 0 && stamp_around(&fx, 200, 2) == 0 &&
	     cut_now(&fx) == 0 && powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;
	UNIT_CHECK(ok && only(&fx.c, POWERCUT_UNREADABLE, 2) &&
		   fx.c.intact == SPAN / UNIT - 2 &&
		   fx.c.examples[POWERCUT_UNREADABLE][1].offset_bytes == AT(201),
		   "units a read fails on: unreadable, the rest read");
	fx_close(&fx);
}

static void test_capacity(void)
{
	struct fixture fx;
	int ok = fx_start(&fx) == 0 && cut_now(&fx) == 0;

	fx.st.run.device_bytes = 32 * 1024 * 1024;
	ok = ok && powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;
	UNIT_CHECK(ok && fx.c.capacity_changed &&
		   fx.c.capacity_bytes == 16 * 1024 * 1024 &&
		   powercut_cycle_faulty(&fx.c),
		   "a device of another size: capacity changed, a fault");
	fx_close(&fx);
}

static void test_settle(void)
{
	struct fixture fx;
	struct powercut_cycle again;
	long long rewritten = -1;
	int ok = fx_start(&fx) == 0 && wrote(&fx, 1, 10, 1) == 0 &&
		 flushed(&fx, 1) == 0 && wrote(&fx, 2, 11, 3) == 0 &&
		 cut_now(&fx) == 0 &&
		 put_stamps(&fx, AT(10), AT(10), UNIT, 0) == 0 &&
		 put_bytes(&fx, AT(12), UNIT, 0) == 0 &&
		 put_stamps(&fx, AT(400), AT(11), UNIT, 2) == 0 &&
		 powercut_verify(&fx.dev, &fx.st, &fx.c) == 0;

	UNIT_CHECK(ok && fx.c.counts[POWERCUT_UNSERIALIZABLE] == 1 &&
		   fx.c.counts[POWERCUT_FLYING] == 1 &&
		   fx.c.counts[POWERCUT_UNFLUSHED_LOST] == 1,
		   "a cycle with damage to settle");
	ok = ok && (rewritten = powercut_settle(&fx.dev, &fx.st)) >= 0 &&
	     powercut_cycle_begin(&fx.st, 2, fx.st.next_seq) == 0 &&
	     cut_now(&fx) == 0 &&
	     powercut_verify(&fx.dev, &fx.st, &again) == 0;
	UNIT_CHECK(ok && rewritten == 3 && no_fault(&again) &&
		   again.intact == SPAN / UNIT &&
		   again.counts[POWERCUT_UNFLUSHED_LOST] == 0,
		   "settled: the next cycle's range holds every newest version");
	UNIT_CHECK(powercut_cycle_begin(&fx.st, 3, fx.st.next_seq) == -EINVAL,
		   "no cycle begins on a cut range not settled");
	fx_close(&fx);
}

static void test_summary(void)
{
	struct powercut_summary s;
	struct powercut_cycle a = { .cycle = 1 }, b = { .cycle = 2 };

	a.counts[POWERCUT_ACK_LOST] = 3;
	a.ack_lost_before_cut_ns = 3200000000ULL;
	b.ack_lost_before_cut_ns = POWERCUT_UNKNOWN;
	b.counts[POWERCUT_UNFLUSHED_LOST] = 9;
	powercut_summary_init(&s);
	powercut_summary_add(&s, &a);
	powercut_summary_add(&s, &b);
	UNIT_CHECK(s.cycles == 2 && s.faulty == 1 && s.ack_lost_cycles == 1 &&
		   s.ack_lost_before_cut_ns == 3200000000ULL &&
		   s.counts[POWERCUT_UNFLUSHED_LOST] == 9 &&
		   s.with[POWERCUT_UNFLUSHED_LOST] == 1,
		   "the sums over cycles: faulty cycles, the longest loss");
	UNIT_STREQ(powercut_class_name(POWERCUT_ACK_LOST), "acknowledged-lost",
		   "classes have one name");
	UNIT_CHECK(powercut_class_named("old-damaged") == POWERCUT_OLD_DAMAGED &&
		   powercut_class_named("nonsense") == POWERCUT_CLASSES,
		   "and are found by it");
}

/* A live run that logs every event as it goes. */
static int lwrote(struct fixture *fx, struct powercut_log *log, uint32_t seq,
		  unsigned n, unsigned count)
{
	return wrote(fx, seq, n, count) ||
	       powercut_log_write(log, seq, AT(n), (uint64_t)count * UNIT,
				  fx->t_ns);
}

static int lflushed(struct fixture *fx, struct powercut_log *log,
		    uint32_t seq)
{
	return flushed(fx, seq) || powercut_log_flush(log, seq, fx->t_ns);
}

static int lcycle(struct fixture *fx, struct powercut_log *log,
		  uint32_t cycle)
{
	uint32_t seq = fx->st.next_seq;

	return powercut_cycle_begin(&fx->st, cycle, seq) ||
	       powercut_log_cycle(log, cycle, seq);
}

/*
 * Cycle 1 cut in a write, a unit of it unserializable, verified and
 * settled; cycle 2 cut with an acknowledged write lost, not verified.
 */
static int live_run(struct fixture *fx, struct powercut_log *log)
{
	struct powercut_cut cut = { .cycle = 1, .errnum = EIO, .torn = true,
				    .write = { .seq = 5, .offset_bytes = AT(90),
					       .length_bytes = UNIT } };
	long long rewritten;

	if (fx_open(fx, SPEC) || powercut_stamp_old(&fx->dev, &fx->st) ||
	    powercut_log_old(log) || lcycle(fx, log, 1) ||
	    lwrote(fx, log, 1, 10, 2) || lwrote(fx, log, 2, 30, 4) ||
	    lflushed(fx, log, 2) || lwrote(fx, log, 3, 10, 1) ||
	    lwrote(fx, log, 4, 31, 1))
		return -1;
	cut.t_ns = cut.write.t_ns = fx->t_ns + 500;
	if (powercut_cut(&fx->st, &cut) || powercut_log_cut(log, &cut) ||
	    put_stamps(fx, AT(30), AT(30), UNIT, 0) ||
	    powercut_verify(&fx->dev, &fx->st, &fx->c) ||
	    powercut_log_verify(log, &fx->c))
		return -1;
	rewritten = powercut_settle(&fx->dev, &fx->st);
	if (rewritten < 0 ||
	    powercut_log_settled(log, 1, (uint64_t)rewritten) ||
	    lcycle(fx, log, 2) || lwrote(fx, log, 6, 200, 8) ||
	    lflushed(fx, log, 6))
		return -1;
	cut = (struct powercut_cut){ .cycle = 2, .t_ns = fx->t_ns + 9,
				     .errnum = ENODEV };
	return powercut_cut(&fx->st, &cut) || powercut_log_cut(log, &cut) ||
	       put_stamps(fx, AT(200), AT(200), UNIT, 1);
}

static char log_path[64];

/* The log's text, changed by edit, in a file of its own: its fd. */
static int edited_log(const char *text, size_t length,
		      void (*edit)(char *text, size_t *length))
{
	static char copy[1 << 16];
	char path[sizeof(log_path) + 8];
	size_t n = length;
	int fd;

	memcpy(copy, text, length);
	edit(copy, &n);
	snprintf(path, sizeof(path), "%s.edit", log_path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0 && (write(fd, copy, n) != (ssize_t)n ||
			lseek(fd, 0, SEEK_SET) != 0)) {
		close(fd);
		fd = -1;
	}
	unlink(path);
	return fd;
}

static void tear_tail(char *text, size_t *length)
{
	memcpy(text + *length, "write seq=8 offs", 16);
	*length += 16;
}

static void spoil_tail(char *text, size_t *length)
{
	text[*length - 3] ^= 1;	/* the last line's sum */
}

/* A byte of the third line (the first cycle's) changed. */
static void spoil_third(char *text, size_t *length)
{
	char *line = strchr(strchr(text, '\n') + 1, '\n') + 1;

	(void)length;
	line[6] ^= 1;
}

static int same_counts(const struct powercut_cycle *a,
		       const struct powercut_cycle *b)
{
	return memcmp(a->counts, b->counts, sizeof(a->counts)) == 0 &&
	       a->intact == b->intact && a->newer == b->newer &&
	       a->units == b->units && a->cut_ns == b->cut_ns &&
	       a->ack_lost_before_cut_ns == b->ack_lost_before_cut_ns;
}

static int replay_fd(int fd, const struct powercut_expect *ex,
		     struct powercut_replay *r, char *why, size_t size)
{
	int err = fd < 0 ? -EBADF : powercut_log_replay(fd, ex, r, why, size);

	if (fd >= 0)
		close(fd);
	return err;
}

static void test_log_replays(const struct fixture *fx, int fd)
{
	struct powercut_replay r;
	struct powercut_cycle live, again;
	struct fixture *f = (struct fixture *)fx;
	char why[256] = "";
	int err = powercut_log_replay(fd, NULL, &r, why, sizeof(why));

	UNIT_CHECK(err == 0 && !r.torn_tail && r.verified_n == 1 &&
		   same_counts(&r.verified[0], &fx->c) &&
		   r.verified[0].counts[POWERCUT_UNSERIALIZABLE] == 1,
		   "the log reads back, its verify line as the run's: %s", why);
	UNIT_CHECK(err == 0 && powercut_state_equal(&r.state, &fx->st),
		   "replay rebuilds exactly the state the run kept");
	err = err || powercut_verify(&f->dev, &f->st, &live) ||
	      powercut_verify(&f->dev, &r.state, &again);
	UNIT_CHECK(err == 0 && same_counts(&live, &again) &&
		   live.counts[POWERCUT_ACK_LOST] == 1,
		   "a later verification from the log judges as the run would");
	powercut_replay_free(&r);
}

static void test_log_refusals(const char *text, size_t n)
{
	struct powercut_expect other_dev = { .identity = "cid:0123" };
	struct powercut_expect other_run = { .salt = SALT + 1 };
	struct powercut_expect same = { .identity = SPEC, .salt = SALT };
	struct powercut_replay r;
	char why[256] = "";

	UNIT_CHECK(replay_fd(edited_log(text, n, tear_tail), NULL, &r, why,
			     sizeof(why)) == 0 && r.torn_tail &&
		   r.state.cut_seen && (powercut_replay_free(&r), 1),
		   "a torn last line is ignored");
	UNIT_CHECK(replay_fd(edited_log(text, n, spoil_tail), NULL, &r, why,
			     sizeof(why)) == 0 && r.torn_tail &&
		   !r.state.cut_seen && (powercut_replay_free(&r), 1),
		   "a last line whose sum fails is torn: ignored");
	UNIT_CHECK(replay_fd(edited_log(text, n, spoil_third), NULL, &r, why,
			     sizeof(why)) == -EBADMSG &&
		   strncmp(why, "line 3: ", 8) == 0,
		   "a changed byte in the middle: damaged, by line (%s)", why);
	UNIT_CHECK(replay_fd(open(log_path, O_RDONLY), &other_dev, &r, why,
			     sizeof(why)) == -EXDEV &&
		   strstr(why, "another device"),
		   "a log of another device is refused (%s)", why);
	UNIT_CHECK(replay_fd(open(log_path, O_RDONLY), &other_run, &r, why,
			     sizeof(why)) == -EXDEV &&
		   strstr(why, "another run"),
		   "a log of another run is refused (%s)", why);
	UNIT_CHECK(replay_fd(open(log_path, O_RDONLY), &same, &r, why,
			     sizeof(why)) == 0 && (powercut_replay_free(&r), 1),
		   "the log of this device and run is taken");
}

static void test_log(void)
{
	static char text[1 << 16];
	struct fixture fx;
	struct powercut_run run = test_run();
	struct powercut_log *log;
	char why[256] = "";
	ssize_t n;
	int fd;

	snprintf(log_path, sizeof(log_path), "/tmp/unit-powercut.%d",
		 (int)getpid());
	fd = open(log_path, O_RDWR | O_CREAT | O_EXCL, 0600);
	log = fd >= 0 ? powercut_log_open(fd, &run, why, sizeof(why)) : NULL;
	UNIT_CHECK(log && live_run(&fx, log) == 0 &&
		   powercut_log_close(log) == 0,
		   "a run writes its log (%s)", why);
	n = pread(fd, text, sizeof(text), 0);
	UNIT_CHECK(n > 0 && strncmp(text, "flashbench-power-cut 1 salt="
				   "0123456789abcdef ", 45) == 0 &&
		   strstr(text, " identity=sim:size=16M,fake=16M sum="),
		   "the header names the format, the salt, the device");
	test_log_replays(&fx, fd);
	if (n > 0)
		test_log_refusals(text, (size_t)n);
	close(fd);
	unlink(log_path);
	fx_close(&fx);
}

static void test_log_order(void)
{
	struct powercut_run run = test_run();
	struct powercut_replay r;
	struct powercut_log *log;
	char why[256] = "", path[64];
	int fd, err = -1;

	snprintf(path, sizeof(path), "/tmp/unit-powercut-order.%d",
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	log = fd >= 0 ? powercut_log_open(fd, &run, why, sizeof(why)) : NULL;
	if (log && powercut_log_old(log) == 0 &&
	    powercut_log_cycle(log, 1, 1) == 0 &&
	    powercut_log_write(log, 9, AT(0), UNIT, 1) == 0 &&
	    powercut_log_flush(log, 9, 2) == 0 && powercut_log_close(log) == 0)
		err = powercut_log_replay(fd, NULL, &r, why, sizeof(why));
	UNIT_CHECK(err == -EBADMSG && strncmp(why, "line 4: ", 8) == 0,
		   "a whole line that does not follow is refused (%s)", why);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

static void test_log_pipe(void)
{
	struct powercut_run run = test_run();
	struct powercut_replay r;
	struct powercut_log *log;
	char why[256] = "";
	int fds[2], err = -1;

	if (pipe(fds) != 0)
		return;
	log = powercut_log_open(fds[1], &run, why, sizeof(why));
	close(fds[1]);
	if (log && powercut_log_old(log) == 0 &&
	    powercut_log_cycle(log, 1, 1) == 0 &&
	    powercut_log_write(log, 1, AT(4), UNIT, 10) == 0 &&
	    powercut_log_flush(log, 1, 20) == 0 && powercut_log_close(log) == 0)
		err = powercut_log_replay(fds[0], NULL, &r, why, sizeof(why));
	UNIT_CHECK(err == 0 && r.state.flushed_seq == 1 &&
		   r.state.acked[4] == 1 && (powercut_replay_free(&r), 1),
		   "the log streams through a pipe and reads back from one (%s)",
		   why);
	close(fds[0]);
}

int main(void)
{
	test_stamps();
	test_untouched();
	test_ack_lost();
	test_unserializable();
	test_flying();
	test_shorn();
	test_old_damaged();
	test_unflushed();
	test_unreadable();
	test_capacity();
	test_settle();
	test_summary();
	test_log();
	test_log_order();
	test_log_pipe();
	return UNIT_DONE();
}
