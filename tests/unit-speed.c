/*
 * unit-speed: sequential rates, random IOPS and the class table, measured
 * by the built-in speed programs (programs.c) on simulated cards whose
 * rates and latencies are set in the spec, so the expected figures follow
 * from the model.
 */
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "lib/lfsr.h"
#include "lib/units.h"
#include "vm/compile.h"
#include "vm/programs.h"
#include "measure/speed.h"
#include "records/speed.h"
#include "unit.h"

#define SEC 1000000000ULL

/* common to every card: no noise, no crossing costs, no gc */
#define QUIET "noise=0,spikes=0,page-cross=0,au-cross=0,gc=0"

static int open_sim(struct dev *dev, const char *spec, enum dev_mode mode)
{
	int err = dev_open(dev, spec, mode);

	if (err)
		printf("# %s: %s\n", spec, dev->error.message);
	return err;
}

/* Where a speed program runs, and what it gathers. */
struct speed_job {
	const char *program;		/* read-speed, write-speed, ... */
	uint64_t offset, block, span, duration_ns;
	bool writes;
	uint64_t erase;			/* $erasesize; 0: block */
	volatile sig_atomic_t *stop;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	struct speed_results results;
	uint64_t failed_reads;
	struct vm_plan plan;
};

static int job_collect(void *ctx, const struct record *record)
{
	struct speed_job *job = ctx;

	return speed_collect(&job->results, record);
}

static uint64_t job_slots(const struct speed_job *job, const struct dev *dev)
{
	uint64_t slots;

	if (strcmp(job->program, "read-speed") == 0)
		return (dev->size_bytes - job->offset) / job->block;
	slots = job->span / job->block;
	return slots > LFSR_MAX_SLOTS ? LFSR_MAX_SLOTS : slots;
}

static void job_params(const struct speed_job *job, const struct dev *dev,
		       struct program_params *params)
{
	struct vm_param *p = params->slot;

	program_params_init(params);
	p[PARAM_SIZE].value = (double)dev->size_bytes;
	p[PARAM_LBS].value = dev->logical_block_bytes;
	p[PARAM_BLOCKSIZE].value = (double)job->block;
	p[PARAM_ERASESIZE].value = (double)(job->erase ? job->erase :
					    job->block);
	p[PARAM_OFFSET].value = (double)job->offset;
	p[PARAM_SPAN].value = (double)job->span;
	p[PARAM_TIME].value = (double)job->duration_ns;
	p[PARAM_WINDOWS].value = (double)speed_windows(job->duration_ns);
	p[PARAM_SLOTS].value = (double)job_slots(job, dev);
	p[PARAM_WRITES].value = job->writes;
}

/* Compile, plan and run job->program on dev; the plan's range may be
   written.  Returns what vm_run returns, or the plan's error. */
static int run_job(struct dev *dev, struct speed_job *job)
{
	const struct program_def *def = programs_find(job->program);
	struct vm_program *program;
	struct vm_diag diag;
	struct vm_exec exec = { .dev = dev, .sink = { job_collect, job },
				.on_progress = job->progress, .ctx = job,
				.stop = job->stop,
				.skip_read_errors = def && def->skips_bad };
	struct program_params params;
	int err;

	job_params(job, dev, &params);
	if (!def || vm_compile(def->text, params.slot, PARAM_COUNT_OF,
			       &program, &diag))
		return -EINVAL;
	err = vm_plan(program, dev, 100000000, &job->plan);
	if (!err && job->plan.write_end > job->plan.write_start)
		dev_allow_writes(dev, job->plan.write_start,
				 job->plan.write_end);
	if (!err)
		err = speed_results_init(&job->results, job->duration_ns,
					 job->span / (job->erase ? job->erase :
						      job->block));
	if (!err)
		err = vm_run(program, &job->plan, &exec);
	speed_results_end(&job->results);
	job->failed_reads = exec.failed_reads;
	vm_free(program);
	return err;
}

static void test_read_rate(void)
{
	struct dev dev;
	struct speed_rate r;
	struct speed_job job = { .program = "read-speed", .block = 4 * MIB,
				 .duration_ns = 3 * SEC };
	double block = 4.0 * MIB, lat = 10e-6, expect;
	int err;

	UNIT_CHECK(open_sim(&dev, "sim:read-rate=20M,read-lat=10us,"
			    QUIET, DEV_READ_ONLY) == 0, "open read card");
	err = run_job(&dev, &job);
	speed_rate_summary(&job.results, &r);
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
	UNIT_CHECK(dev.stats.bytes_written == 0 &&
		   job.plan.write_end == job.plan.write_start,
		   "reads write nothing, and the plan says so");
	speed_results_free(&job.results);

	/* wraps at the device end: a 16 MiB card read for 3 s */
	dev_close(&dev);
	UNIT_CHECK(open_sim(&dev, "sim:size=16M,read-rate=20M,read-lat=10us,"
			    QUIET, DEV_READ_ONLY) == 0, "open small card");
	job.offset = 8 * MIB;
	err = run_job(&dev, &job);
	UNIT_CHECK(err == 0 && job.results.rate_bytes > 16 * MIB,
		   "wraps at the end");
	speed_results_free(&job.results);
	job.offset = 14 * MIB;
	job.duration_ns = SEC;
	err = run_job(&dev, &job);
	UNIT_CHECK(err == 0 && job.results.rate_bytes == 0,
		   "no block fits: nothing read (%d)", err);
	speed_results_free(&job.results);
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
/* The class check's program on a card: sequential write and both IOPS. */
static int measure(const char *spec, struct speed_measured *m)
{
	struct speed_job job = { .program = "class-check",
				 .block = SPEED_IO_BYTES, .duration_ns = SEC,
				 .writes = true, .erase = 4 * MIB };
	struct speed_results *r = &job.results;
	struct dev dev;
	uint64_t start, end;
	int err;

	*m = (struct speed_measured){ 0 };
	if (open_sim(&dev, spec, DEV_READ_WRITE))
		return -1;
	err = speed_write_range(&dev, 4 * MIB, 0, &start, &end);
	job.offset = start;
	job.span = end - start;
	if (!err)
		err = run_job(&dev, &job);
	m->has_write_rate = !err && r->has_rate;
	m->write_bytes_per_s = r->rate_ns ? (double)r->rate_bytes * 1e9 /
					    (double)r->rate_ns : 0;
	m->has_read_iops = !err && r->has_iops[0];
	m->read_iops = r->iops[0].iops;
	m->has_write_iops = !err && r->has_iops[1];
	m->write_iops = r->iops[1].iops;
	UNIT_CHECK(err || (job.plan.write_start == start &&
			   job.plan.write_end == end),
		   "class check plans exactly its range [%llu, %llu)",
		   (unsigned long long)job.plan.write_start,
		   (unsigned long long)job.plan.write_end);
	speed_results_free(r);
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
	/* no fall seen: the rate holds only as far as it was measured */
	UNIT_CHECK(speed_class_verdict("U3", &m) == SPEED_PASS_AS_FAR,
		   "passes U3 as far as measured");
	UNIT_CHECK(speed_class_verdict("V30", &m) == SPEED_PASS_AS_FAR,
		   "passes V30 as far as measured");
	UNIT_CHECK(speed_class_verdict("A1", &m) == SPEED_PASS_AS_FAR,
		   "passes A1 as far as measured (read %.0f, write %.0f IOPS)",
		   m.read_iops, m.write_iops);
	UNIT_CHECK(speed_class_verdict("V60", &m) == SPEED_FAIL,
		   "fails V60");

	UNIT_CHECK(measure("sim:write-rate=5M,write-lat=10us,prog=4K,"
			   "read-rate=20M,read-lat=50us," QUIET, &m) == 0,
		   "slow card measured");
	UNIT_CHECK(speed_class_verdict("C10", &m) == SPEED_FAIL,
		   "5 MB/s fails C10");
	UNIT_CHECK(speed_class_verdict("C4", &m) == SPEED_PASS_AS_FAR,
		   "5 MB/s passes C4 as far as measured");

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

/*
 * A pass is plain only on a rate that fell and settled; a rate that
 * never fell, however fast, passes only as far as it was measured.
 */
static void test_pass_as_far(void)
{
	struct speed_measured m = { .has_write_rate = true,
		.write_bytes_per_s = 84.5e6, .write_bytes = 244 * MIB,
		.has_sustained = true,
		.sustained = { .status = SUSTAINED_NO_FALL,
			       .burst_bytes_per_s = NAN,
			       .sustained_bytes_per_s = NAN,
			       .written_bytes = 244 * MIB } };
	double rate;

	UNIT_CHECK(speed_write_basis(&m) == SPEED_BASIS_NO_FALL &&
		   speed_write_judged(&m, &rate, NULL) && rate == 84.5e6,
		   "no fall: judged on the whole run's rate, as far as it went");
	UNIT_CHECK(speed_class_verdict("V30", &m) == SPEED_PASS_AS_FAR,
		   "a cache-fast rate that never fell: V30 only as far as "
		   "measured");
	UNIT_CHECK(speed_class_verdict("V90", &m) == SPEED_FAIL,
		   "below the requirement before any fall: a plain FAIL");
	m.sustained.status = SUSTAINED_TOO_FEW;
	UNIT_CHECK(speed_class_verdict("C10", &m) == SPEED_PASS_AS_FAR,
		   "too few chunks to see a fall: as far as measured");
	m.sustained = (struct sustained_result){ .status = SUSTAINED_FOUND,
		.burst_bytes_per_s = 84.5e6, .cache_bytes = 4ULL << 30,
		.sustained_bytes_per_s = 22e6 };
	UNIT_CHECK(speed_write_basis(&m) == SPEED_BASIS_SUSTAINED &&
		   speed_class_verdict("V10", &m) == SPEED_PASS &&
		   speed_class_verdict("V30", &m) == SPEED_FAIL,
		   "after a fall that settled: V10 a plain pass, V30 a FAIL");
	m = (struct speed_measured){ .has_read_iops = true };
	UNIT_CHECK(speed_write_basis(&m) == SPEED_BASIS_NONE,
		   "no writes: no basis");
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
	struct speed_job job = { .program = "iops", .offset = 16 * MIB,
				 .block = SPEED_IO_BYTES, .span = 256 * MIB,
				 .duration_ns = 2 * SEC };
	struct speed_iops_result *r = &job.results.iops[0];
	struct dev dev;
	int err;

	UNIT_CHECK(open_sim(&dev, "sim:read-rate=20M,read-lat=100us,"
			    "noise=0.3,spikes=0.02,seed=7", DEV_READ_ONLY) == 0,
		   "open noisy card");
	err = run_job(&dev, &job);
	UNIT_CHECK(err == 0 && r->operations > 100 && !job.results.has_iops[1],
		   "%llu random reads, no writes",
		   (unsigned long long)r->operations);
	UNIT_CHECK(r->p50_ns <= r->p99_ns && r->p99_ns <= r->max_ns,
		   "p50 %llu <= p99 %llu <= max %llu",
		   (unsigned long long)r->p50_ns,
		   (unsigned long long)r->p99_ns,
		   (unsigned long long)r->max_ns);
	UNIT_CHECK(r->p50_ns < r->max_ns, "spikes show in the maximum");
	UNIT_CHECK(fabs(r->iops * (double)r->device_time_ns / 1e9 -
			(double)r->operations) < 1e-6,
		   "IOPS is operations per second of device time");
	speed_results_free(&job.results);
	job.span = 1024;
	UNIT_CHECK(run_job(&dev, &job) == 0 && r->operations == 0,
		   "a span under one block: nothing to do");
	speed_results_free(&job.results);
	dev_close(&dev);
}

/* Records a test emits, kept as key=value text, one record a line. */
struct collected {
	char text[8192];
	size_t length;
	unsigned records;
	uint64_t progress_calls, last_done, last_total;
};

static int collect(void *ctx, const struct record *rec)
{
	struct collected *c = ctx;

	for (unsigned i = 0; i < rec->count; i++) {
		const struct record_field *f = &rec->fields[i];
		size_t room = sizeof(c->text) - c->length;
		int n = f->unit == RECORD_LABEL ?
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

/* A job whose progress goes to a struct collected. */
struct progress_job {
	struct speed_job job;		/* first: run_job's ctx */
	struct collected *c;
};

static void job_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress_job *p = ctx;

	count_progress(p->c, done, total);
}

static void test_records(void)
{
	static volatile sig_atomic_t stop = 1;
	struct collected c = { .text = "" };
	struct progress_job p = { { .program = "read-speed", .block = MIB,
				    .duration_ns = 3 * SEC,
				    .progress = job_progress }, &c };
	struct speed_exec x = { .sink = { collect, &c } };
	struct dev dev;
	int err;

	UNIT_CHECK(open_sim(&dev, "sim:" QUIET, DEV_READ_ONLY) == 0,
		   "open card for records");
	err = run_job(&dev, &p.job);
	if (!err)
		err = speed_emit_rate(&x, &p.job.results, false, MIB);
	speed_results_free(&p.job.results);
	UNIT_CHECK(err == 0 && c.records >= 3, "read: %u records",
		   c.records);
	UNIT_CHECK(strstr(c.text, "second=1 bytes_per_s=") &&
		   strstr(c.text, "second=2 bytes_per_s="),
		   "read: a record per second");
	UNIT_CHECK(strstr(c.text, "block_bytes=1048576 device_time_ns=") &&
		   strstr(c.text, " window_median_bytes_per_s=") &&
		   strstr(c.text, " failed_reads=0 \n"),
		   "read: the summary last");
	UNIT_CHECK(c.progress_calls > 40 && c.last_total == 3000 &&
		   c.last_done <= 3100 && c.last_done >= 2900,
		   "progress in ms of device time (%llu calls, %llu of %llu)",
		   (unsigned long long)c.progress_calls,
		   (unsigned long long)c.last_done,
		   (unsigned long long)c.last_total);

	c = (struct collected){ .text = "" };
	p.job = (struct speed_job){ .program = "class-check",
				    .offset = 16 * MIB,
				    .block = SPEED_IO_BYTES, .span = 64 * MIB,
				    .duration_ns = SEC / 4, .erase = 4 * MIB };
	err = run_job(&dev, &p.job);
	if (!err)
		err = speed_emit_classes(&x, &p.job.results, NULL);
	speed_results_free(&p.job.results);
	UNIT_CHECK(err == 0 && c.records == 16 &&
		   p.job.plan.write_end == p.job.plan.write_start,
		   "read-only class check: %u records, nothing written",
		   c.records);
	UNIT_CHECK(strstr(c.text, "class=C10 required.write_bytes_per_s="
				  "10000000 ") &&
		   strstr(c.text, "result=not measured pass=nan") &&
		   strstr(c.text, "CMD20"), "read-only class records");

	c = (struct collected){ .text = "" };
	p.job = (struct speed_job){ .program = "iops", .offset = 16 * MIB,
				    .block = SPEED_IO_BYTES, .span = 64 * MIB,
				    .duration_ns = SEC, .stop = &stop };
	err = run_job(&dev, &p.job);
	if (err == -EINTR)
		err = speed_emit_iops(&x, &p.job.results) ? -EIO : -EINTR;
	speed_results_free(&p.job.results);
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
	test_pass_as_far();
	test_claims();
	test_iops();
	test_records();
	return UNIT_DONE();
}
