/*
 * unit-speed: sequential rates, random IOPS and the class table, measured
 * on simulated cards whose rates and latencies are set in the spec, so the
 * expected figures follow from the model.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "speed.h"
#include "unit.h"

#define SEC 1000000000ULL
#define MIB (1024ULL * 1024)

/* common to every card: no noise, no crossing costs, no gc */
#define QUIET "noise=0,spikes=0,page-cross=0,au-cross=0,gc=0"

static int open_sim(struct dev *dev, const char *spec, enum dev_mode mode)
{
	int err = dev_open(dev, spec, mode);

	if (err)
		printf("# %s: %s\n", spec, dev->error.message);
	return err;
}

static void test_read_rate(void)
{
	struct dev dev;
	struct speed_rate r;
	double block = 4.0 * MIB, lat = 10e-6, expect;
	int err;

	UNIT_CHECK(open_sim(&dev, "sim:read-rate=20M,read-lat=10us,"
			    QUIET, DEV_READ_ONLY) == 0, "open read card");
	err = speed_measure_rate(&dev, 0, 0, 4 * MIB, false, 3 * SEC, NULL,
				 NULL, &r);
	UNIT_CHECK(err == 0, "read run succeeds");
	expect = block / (lat + block / 20e6);
	UNIT_CHECK(fabs(r.bytes_per_s - expect) / expect < 0.02,
		   "read rate %.0f within 2%% of %.0f", r.bytes_per_s,
		   expect);
	UNIT_CHECK(r.device_time_ns >= 3 * SEC, "ran for 3 s of device time");
	UNIT_CHECK(r.window_count >= 2 && r.window_count <= 4,
		   "%zu one-second windows", r.window_count);
	UNIT_CHECK(r.window_min <= r.window_median &&
		   r.window_median <= r.window_max, "windows ordered");
	UNIT_CHECK(dev.stats.bytes_written == 0, "reads write nothing");
	speed_rate_free(&r);

	/* wraps at the device end: a 16 MiB card read for 3 s */
	dev_close(&dev);
	UNIT_CHECK(open_sim(&dev, "sim:size=16M,read-rate=20M,read-lat=10us,"
			    QUIET, DEV_READ_ONLY) == 0, "open small card");
	err = speed_measure_rate(&dev, 8 * MIB, 0, 4 * MIB, false, 3 * SEC,
				 NULL, NULL, &r);
	UNIT_CHECK(err == 0 && r.bytes > 16 * MIB, "wraps at the end");
	speed_rate_free(&r);
	err = speed_measure_rate(&dev, 14 * MIB, 0, 4 * MIB, false, SEC,
				 NULL, NULL, &r);
	UNIT_CHECK(err == -EINVAL, "block past the end refused");
	speed_rate_free(&r);
	dev_close(&dev);
}

static void test_write_range(void)
{
	struct dev dev;
	uint64_t start, end;

	UNIT_CHECK(open_sim(&dev, "sim:size=64M,erase=3M," QUIET,
			    DEV_READ_ONLY) == 0, "open 64 MiB card");
	UNIT_CHECK(speed_write_range(&dev, 3 * MIB, 0, &start, &end) == 0 &&
		   start == 18 * MIB && end == 63 * MIB,
		   "range [%llu, %llu) from 16 MiB rounded up, cut at the end",
		   (unsigned long long)start, (unsigned long long)end);
	UNIT_CHECK(speed_write_range(&dev, 3 * MIB, 7 * MIB, &start,
				     &end) == 0 && end - start == 6 * MIB,
		   "span rounded down to erase blocks");
	dev_close(&dev);
	UNIT_CHECK(open_sim(&dev, "sim:size=16M," QUIET,
			    DEV_READ_ONLY) == 0, "open 16 MiB card");
	UNIT_CHECK(speed_write_range(&dev, 4 * MIB, 0, &start, &end) ==
		   -ENOSPC, "no room above 16 MiB");
	dev_close(&dev);
}

/* Measure a card for the class table: sequential write and both IOPS. */
static int measure(const char *spec, struct speed_measured *m)
{
	struct speed_iops_result io;
	struct speed_rate r;
	struct dev dev;
	uint64_t start, end;
	int err;

	*m = (struct speed_measured){ 0 };
	if (open_sim(&dev, spec, DEV_READ_WRITE))
		return -1;
	err = speed_write_range(&dev, 4 * MIB, 0, &start, &end);
	if (!err) {
		dev_allow_writes(&dev, start, end);
		err = speed_measure_rate(&dev, start, end - start, 4 * MIB,
					 true, 3 * SEC, NULL, NULL, &r);
		m->has_write_rate = !err;
		m->write_bytes_per_s = r.bytes_per_s;
		speed_rate_free(&r);
	}
	if (!err)
		err = speed_measure_iops(&dev, start, end - start, false,
					 SEC, NULL, NULL, &io);
	m->has_read_iops = !err;
	m->read_iops = io.iops;
	if (!err)
		err = speed_measure_iops(&dev, start, end - start, true,
					 SEC, NULL, NULL, &io);
	m->has_write_iops = !err;
	m->write_iops = io.iops;
	dev_close(&dev);
	return err;
}

static void test_classes(void)
{
	struct speed_measured m;

	UNIT_CHECK(measure("sim:write-rate=40M,write-lat=10us,prog=4K,"
			   "read-rate=20M,read-lat=50us," QUIET, &m) == 0,
		   "fast card measured");
	UNIT_CHECK(fabs(m.write_bytes_per_s - 40e6) / 40e6 < 0.02,
		   "sequential write %.0f near 40 MB/s", m.write_bytes_per_s);
	UNIT_CHECK(speed_class_verdict("U3", &m) == SPEED_PASS, "passes U3");
	UNIT_CHECK(speed_class_verdict("V30", &m) == SPEED_PASS,
		   "passes V30");
	UNIT_CHECK(speed_class_verdict("A1", &m) == SPEED_PASS,
		   "passes A1 (read %.0f, write %.0f IOPS)", m.read_iops,
		   m.write_iops);
	UNIT_CHECK(speed_class_verdict("V60", &m) == SPEED_FAIL,
		   "fails V60");

	UNIT_CHECK(measure("sim:write-rate=5M,write-lat=10us,prog=4K,"
			   "read-rate=20M,read-lat=50us," QUIET, &m) == 0,
		   "slow card measured");
	UNIT_CHECK(speed_class_verdict("C10", &m) == SPEED_FAIL,
		   "5 MB/s fails C10");
	UNIT_CHECK(speed_class_verdict("C4", &m) == SPEED_PASS,
		   "5 MB/s passes C4");

	m = (struct speed_measured){ .has_read_iops = true,
				     .read_iops = 2000 };
	UNIT_CHECK(speed_class_verdict("A1", &m) == SPEED_NOT_MEASURED,
		   "A1 not measured without writes");
	m.read_iops = 1000;
	UNIT_CHECK(speed_class_verdict("A1", &m) == SPEED_FAIL,
		   "A1 fails on reads alone");
	UNIT_CHECK(speed_class_verdict("C2", &m) == SPEED_NOT_MEASURED,
		   "C2 not measured without writes");
}

static void test_claims(void)
{
	struct info_card card = { .has_speed = true, .speed_class = 10,
				  .uhs_grade = 1, .app_class = 1 };

	UNIT_CHECK(speed_class_claimed("C4", &card), "C10 card claims C4");
	UNIT_CHECK(speed_class_claimed("U1", &card) &&
		   !speed_class_claimed("U3", &card), "U1 but not U3");
	UNIT_CHECK(speed_class_claimed("A1", &card) &&
		   !speed_class_claimed("A2", &card), "A1 but not A2");
	UNIT_CHECK(!speed_class_claimed("V6", &card), "no video class");
	UNIT_CHECK(!speed_class_claimed("C2", NULL), "no card, no claims");
}

static void test_iops(void)
{
	struct speed_iops_result r;
	struct dev dev;
	int err;

	UNIT_CHECK(open_sim(&dev, "sim:read-rate=20M,read-lat=100us,"
			    "noise=0.3,spikes=0.02,seed=7", DEV_READ_ONLY) == 0,
		   "open noisy card");
	err = speed_measure_iops(&dev, 16 * MIB, 256 * MIB, false, 2 * SEC,
				 NULL, NULL, &r);
	UNIT_CHECK(err == 0 && r.operations > 100, "%llu random reads",
		   (unsigned long long)r.operations);
	UNIT_CHECK(r.p50_ns <= r.p99_ns && r.p99_ns <= r.max_ns,
		   "p50 %llu <= p99 %llu <= max %llu",
		   (unsigned long long)r.p50_ns, (unsigned long long)r.p99_ns,
		   (unsigned long long)r.max_ns);
	UNIT_CHECK(r.p50_ns < r.max_ns, "spikes show in the maximum");
	UNIT_CHECK(speed_measure_iops(&dev, 0, 1024, false, SEC, NULL,
				      NULL, &r) == -EINVAL, "span under 4 KiB");
	dev_close(&dev);
}

/* Records a test emits, kept as key=value text, one record a line. */
struct collected {
	char text[8192];
	size_t length;
	unsigned records;
	uint64_t progress_calls, last_done, last_total;
};

static int collect(void *ctx, const struct vm_record *rec)
{
	struct collected *c = ctx;

	for (unsigned i = 0; i < rec->count; i++) {
		const struct vm_field *f = &rec->fields[i];
		size_t room = sizeof(c->text) - c->length;
		int n = f->unit == VM_UNIT_LABEL ?
			snprintf(c->text + c->length, room, "%s=%s ", f->key,
				 f->label) :
			snprintf(c->text + c->length, room, "%s=%.17g ", f->key,
				 f->value);

		if (n > 0 && (size_t)n < room)
			c->length += (size_t)n;
	}
	if (c->length + 1 < sizeof(c->text))
		c->text[c->length++] = '\n';
	c->text[c->length] = '\0';
	c->records++;
	return 0;
}

static void count_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct collected *c = ctx;

	c->progress_calls++;
	c->last_done = done;
	c->last_total = total;
}

static void test_records(void)
{
	static volatile sig_atomic_t stop = 1;
	struct collected c = { .text = "" };
	struct speed_exec x;
	struct dev dev;
	int err;

	UNIT_CHECK(open_sim(&dev, "sim:" QUIET, DEV_READ_ONLY) == 0,
		   "open card for records");
	x = (struct speed_exec){ .dev = &dev, .emit = collect,
				 .progress = count_progress, .ctx = &c };
	err = speed_read(&x, 0, MIB, 3 * SEC);
	UNIT_CHECK(err == 0 && c.records >= 3, "read: %u records",
		   c.records);
	UNIT_CHECK(strstr(c.text, "second=1 bytes_per_s=") &&
		   strstr(c.text, "second=2 bytes_per_s="),
		   "read: a record per second");
	UNIT_CHECK(strstr(c.text, "block_bytes=1048576 device_time_ns=") &&
		   strstr(c.text, " window_median=") &&
		   strstr(c.text, " failed_reads=0 \n"),
		   "read: the summary last");
	UNIT_CHECK(c.progress_calls > 40 && c.last_total == 3000 &&
		   c.last_done <= 3100 && c.last_done >= 2900,
		   "progress in ms of device time (%llu calls, %llu of %llu)",
		   (unsigned long long)c.progress_calls,
		   (unsigned long long)c.last_done,
		   (unsigned long long)c.last_total);

	c = (struct collected){ .text = "" };
	err = speed_class_check(&x, NULL, true, 16 * MIB, 64 * MIB, 4 * MIB,
				SEC / 4);
	UNIT_CHECK(err == 0 && c.records == 15, "class check: %u records",
		   c.records);
	UNIT_CHECK(strstr(c.text, "class=C10 required.write_bytes_per_s="
				  "10000000 ") &&
		   strstr(c.text, "result=not measured pass=nan") &&
		   strstr(c.text, "CMD20"), "read-only class records");

	c = (struct collected){ .text = "" };
	x.stop = &stop;
	err = speed_iops(&x, 16 * MIB, 64 * MIB, SEC, false);
	UNIT_CHECK(err == -EINTR && c.records == 1 &&
		   strstr(c.text, "direction=read ") &&
		   strstr(c.text, " operations=0 "),
		   "a set stop flag interrupts; what was measured is emitted");
	dev_close(&dev);
}

int main(void)
{
	test_read_rate();
	test_write_range();
	test_classes();
	test_claims();
	test_iops();
	test_records();
	return UNIT_DONE();
}
