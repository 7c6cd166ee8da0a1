/*
 * unit-vm: the program compiler (syntax errors with line and column), the
 * planner (write range, refusals) and the interpreter (series, reducers,
 * records), on a fake device that logs every operation.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include "dev.h"
#include "vm/programs.h"
#include "unit.h"
#include "vm.h"
#include "vm/compile.h"
#include "vm/list.h"

#define LOG_MAX 4096

static struct {
	char op;
	uint64_t offset, length;
} io_log[LOG_MAX];
static unsigned io_count;
/* a "signal" arrives after this many operations (0: never) */
static unsigned stop_after;
static volatile sig_atomic_t stop_flag;

static int fake_io(char op, uint64_t offset, uint64_t length, uint64_t *ns)
{
	if (io_count < LOG_MAX)
		io_log[io_count] = (typeof(io_log[0])){ op, offset, length };
	io_count++;
	if (stop_after && io_count == stop_after)
		stop_flag = 1;
	/* time = 1000 + offset / 1024: distinct and predictable */
	*ns = 1000 + offset / 1024;
	return 0;
}

static int fake_read(struct dev *dev, void *buf, uint64_t offset,
		     uint64_t length, uint64_t *ns)
{
	(void)dev;
	(void)buf;
	return fake_io('r', offset, length, ns);
}

static int fake_write(struct dev *dev, const void *buf, uint64_t offset,
		      uint64_t length, uint64_t *ns)
{
	(void)dev;
	(void)buf;
	return fake_io('w', offset, length, ns);
}

static int fake_discard(struct dev *dev, uint64_t offset, uint64_t length,
			uint64_t *ns)
{
	(void)dev;
	return fake_io('d', offset, length, ns);
}

static const struct dev_ops fake_ops = {
	.name = "fake", .read = fake_read, .write = fake_write,
	.discard = fake_discard,
};

static struct dev fake_dev(uint64_t size)
{
	struct dev dev = { .ops = &fake_ops, .path = "fake", .fd = -1,
			   .mode = DEV_READ_WRITE, .size_bytes = size,
			   .logical_block_bytes = 512,
			   .write_end = UINT64_MAX };
	return dev;
}

static struct vm_param params[] = {
	{ "bs", 4096 }, { "size", 1 << 20 },
};

static struct record records[64];
static unsigned record_count;
static char first_key[32];
/* the sink has enough after this many records (0: never) */
static unsigned enough_after;

static int keep(void *ctx, const struct record *record)
{
	(void)ctx;
	if (record_count == 0 && record->count)
		snprintf(first_key, sizeof(first_key), "%s",
			 record->fields[0].key);
	if (record_count < 64)
		records[record_count++] = *record;
	return enough_after && record_count == enough_after ? VM_ENOUGH : 0;
}

/* Compile, plan and run text on a fake device of size bytes. */
static int run_text(const char *text, uint64_t size, struct vm_plan *plan)
{
	struct vm_program *program;
	struct vm_diag diag;
	struct dev dev = fake_dev(size);
	struct vm_exec exec = { .dev = &dev, .sink = { keep, NULL },
				.stop = &stop_flag };
	int err;

	io_count = 0;
	stop_flag = 0;
	record_count = 0;
	if (vm_compile(text, params, 2, &program, &diag)) {
		printf("# compile: %u:%u: %s\n", diag.line, diag.column,
		       diag.message);
		return -EINVAL;
	}
	err = vm_plan(program, &dev, 100000, plan);
	if (!err)
		err = vm_run(program, plan, &exec);
	vm_free(program);
	return err;
}

static void expect_syntax_error(const char *text, unsigned line,
				unsigned column, const char *words)
{
	struct vm_program *program = NULL;
	struct vm_diag diag;
	int err = vm_compile(text, params, 2, &program, &diag);

	UNIT_CHECK(err == -EINVAL && diag.line == line &&
		   diag.column == column && strstr(diag.message, words),
		   "syntax error at %u:%u mentioning '%s' (got %u:%u: %s)",
		   line, column, words, diag.line, diag.column,
		   diag.message);
	vm_free(program);
}

static void test_syntax_errors(void)
{
	expect_syntax_error("", 1, 1, "empty");
	expect_syntax_error("bogus 1 2", 1, 1, "expected a statement");
	expect_syntax_error("read 0 512\nread 0", 2, 7, "expected a number");
	expect_syntax_error("repeat 3 min { read 0 512", 1, 26, "missing '}'");
	expect_syntax_error("read x 512", 1, 6, "unknown variable 'x'");
	expect_syntax_error("read $nope 512", 1, 6, "unknown parameter");
	expect_syntax_error("let t = read 0 512\nread t 512", 2, 6,
			    "measured");
	expect_syntax_error("read 12Q 512", 1, 6, "bad number");
	expect_syntax_error("report label x \"abc", 1, 16, "unterminated");
	expect_syntax_error("repeat 3 { read 0 512 }", 1, 10, "reducer");
	expect_syntax_error("let t = for i in linear 0 1 2 none { read 0 512 }",
			    1, 9, "no value");
	expect_syntax_error("for i in sideways 0 1 { }", 1, 10, "series");
	expect_syntax_error("write 0 512 purple", 1, 13, "pattern");
	expect_syntax_error("}", 1, 1, "without a matching");
	expect_syntax_error("read 0 512 @", 1, 12, "unexpected character");
	expect_syntax_error("format fancy\nread 0 512", 1, 8, "text format");
	expect_syntax_error("report size 512", 1, 13, "key");
}

static void test_plan(void)
{
	struct vm_plan plan;
	int err;

	err = run_text("for i in linear 65536 4096 4 total { write i 4096 }\n"
		       "read 0 1024", 1 << 20, &plan);
	UNIT_CHECK(err == 0 && plan.write_start == 65536 &&
		   plan.write_end == 65536 + 4 * 4096 && plan.writes == 4 &&
		   plan.reads == 1 && plan.max_length == 4096,
		   "plan finds the exact write range");
	err = run_text("read 1048064 1024", 1 << 20, &plan);
	UNIT_CHECK(err == -ENOSPC && plan.error_offset == 1048064 &&
		   io_count == 0, "read past the end refused before any I/O");
	err = run_text("read 0 1000", 1 << 20, &plan);
	UNIT_CHECK(err == -EINVAL && io_count == 0,
		   "misaligned length refused before any I/O");
	err = run_text("read 0 - 512 512", 1 << 20, &plan);
	UNIT_CHECK(err == -EDOM && io_count == 0, "negative offset refused");
	err = run_text("read 1 / 0 512", 1 << 20, &plan);
	UNIT_CHECK(err == -EDOM, "division by zero in an offset refused");
	err = run_text("repeat 1000000 total { read 0 512 }", 1 << 20, &plan);
	UNIT_CHECK(err == -E2BIG && io_count == 0,
		   "too many operations refused");
	err = run_text("repeat 100000000000 total { let x = 1 }", 1 << 20,
		       &plan);
	UNIT_CHECK(err == -E2BIG, "a loop without I/O cannot spin forever");
	err = run_text("for i in linear 0 1 33 none { report count c i }\n"
		       "newline", 1 << 20, &plan);
	UNIT_CHECK(err == -EMSGSIZE && plan.error_line == 1 &&
		   record_count == 0,
		   "a record of more than RECORD_MAX_FIELDS fields refused, "
		   "not taken for too many operations");
	err = run_text("for i in linear 0 1 32 none { report count c i }\n"
		       "newline", 1 << 20, &plan);
	UNIT_CHECK(err == 0 && record_count == 1 &&
		   records[0].count == RECORD_MAX_FIELDS,
		   "a record of RECORD_MAX_FIELDS fields is fine");
}

static void test_reducers(void)
{
	struct vm_plan plan;
	const char *text =
		"let a = for i in linear 0 1024 4 min { read i 512 }\n"
		"let b = for i in linear 0 1024 4 max { read i 512 }\n"
		"let c = for i in linear 0 1024 4 avg { read i 512 }\n"
		"let d = for i in linear 0 1024 4 total { read i 512 }\n"
		"report time a a\nreport time b b\nreport time c c\n"
		"report time d d\nreport rate r 1000 d\nnewline\n";
	int err = run_text(text, 1 << 20, &plan);
	double *v[5];

	for (int i = 0; i < 5; i++)
		v[i] = &records[0].fields[i].value;
	/* reads at 0, 1K, 2K, 3K take 1000, 1001, 1002, 1003 ns */
	UNIT_CHECK(err == 0 && record_count == 1 && records[0].count == 5,
		   "one record with five fields");
	UNIT_CHECK(*v[0] == 1000 && *v[1] == 1003 && *v[2] == 1001.5 &&
		   *v[3] == 4006, "min, max, avg, total");
	UNIT_CHECK(fabs(*v[4] - 1000 * 1e9 / 4006) < 1e-6,
		   "rate is bytes per second from bytes and ns");
	UNIT_STREQ(first_key, "a", "field key");
}

static void test_timed_loops(void)
{
	struct vm_plan plan;
	int err;

	/* 1000..1003 ns a read; round and round until 10000 ns */
	err = run_text("let t, n = for i in linear 0 1024 4 within 10000 "
		       "(total, runs) { read i 512 }\n"
		       "report time t t\nreport count n n\nnewline\n",
		       1 << 20, &plan);
	UNIT_CHECK(err == 0 && record_count == 1 &&
		   records[0].fields[0].value == 10013 &&
		   records[0].fields[1].value == 10,
		   "a timed loop runs until its I/O took the bound "
		   "(%g ns, %g runs)", records[0].fields[0].value,
		   records[0].fields[1].value);
	UNIT_CHECK(io_count == 10 && io_log[4].offset == 0 &&
		   io_log[9].offset == 1024, "the series starts over");
	UNIT_CHECK(plan.timed_ns == 10000, "the plan sums time bounds");

	err = run_text("for i in shuffle 65536 4096 1000 within 1000000000 total "
		       "{ write i 4096 }", 1 << 23, &plan);
	UNIT_CHECK(err == 0 && plan.write_start == 65536 &&
		   plan.write_end == 65536 + 1000 * 4096 &&
		   plan.operations == 2,
		   "a timed loop's write range is its series' range "
		   "[%llu, %llu), planned in %llu operations",
		   (unsigned long long)plan.write_start,
		   (unsigned long long)plan.write_end,
		   (unsigned long long)plan.operations);

	err = run_text("for i in linear 0 4096 300 within 1000000000 total "
		       "{ read i 4096 }", 1 << 20, &plan);
	UNIT_CHECK(err == -ENOSPC, "a timed loop past the device end is "
		   "refused by the plan");

	/* per-"second" windows: an inner loop of 3000 ns that goes on
	   with its series, inside an outer one of 10000 ns */
	err = run_text("for w in linear 1 1 100 within 10000 none {\n"
		       "let t, n = for i in linear 0 1024 4 within 3000 resume "
		       "(total, runs) { read i 512 }\n"
		       "report time t t\nreport count n n\nnewline\n}\n",
		       1 << 20, &plan);
	UNIT_CHECK(err == 0 && record_count == 4 &&
		   records[0].fields[0].value == 3003 &&
		   records[1].fields[0].value == 3004 &&
		   records[2].fields[0].value == 3005 &&
		   records[3].fields[0].value == 1001 &&
		   records[3].fields[1].value == 1,
		   "windows: each ends at its bound, the last at the outer "
		   "loop's");
	UNIT_CHECK(io_count == 10 && io_log[3].offset == 3072 &&
		   io_log[4].offset == 0 && io_log[9].offset == 1024,
		   "a resumed series goes on where it stopped");

	stop_after = 7;
	err = run_text("let n = for i in linear 0 1024 4 within 1000000000000 runs "
		       "{ read i 512 }\nreport count n n\n", 1 << 20, &plan);
	stop_after = 0;
	UNIT_CHECK(err == -EINTR && record_count == 1 &&
		   records[0].fields[0].value == 7,
		   "a signal ends a timed loop, its figures still reported");

	expect_syntax_error("for i in linear 0 1 4 within 100 total {\n"
			    "let x = 1\n}\n", 1, 1, "bounded by time");
}

/* "once", and a sink that has enough */
static void test_once_and_enough(void)
{
	struct vm_plan plan;
	int err;

	err = run_text("let t, n = for i in linear 0 1024 4 within 1000000 "
		       "once (total, runs) { read i 512 }\n"
		       "report count n n\n", 1 << 20, &plan);
	UNIT_CHECK(err == 0 && io_count == 4 && records[0].fields[0].value == 4,
		   "a timed loop with once walks its series once (%u reads)",
		   io_count);
	/* a chunk per record: one read each, then none left */
	err = run_text("for w in linear 1 1 100 within 1000000 none {\n"
		       "let n = for i in linear 0 1024 4 within 1 resume once "
		       "runs { read i 512 }\nreport count n n\nnewline\n}\n",
		       1 << 20, &plan);
	UNIT_CHECK(err == 0 && io_count == 4 && record_count == 5 &&
		   records[0].fields[0].value == 1 &&
		   records[3].fields[0].value == 1 &&
		   !(records[4].fields[0].value > 0),
		   "a window of one read each; the loop ends when the series "
		   "is spent (%u reads, %u records)", io_count, record_count);
	UNIT_CHECK(plan.write_end == plan.write_start, "it plans no write");
	enough_after = 2;
	err = run_text("for w in linear 1 1 100 within 1000000 none {\n"
		       "let n = for i in linear 0 1024 4 within 1 resume "
		       "runs { read i 512 }\nreport count n n\nnewline\n}\n"
		       "read 8192 512\n", 1 << 20, &plan);
	enough_after = 0;
	UNIT_CHECK(err == 0 && record_count == 2 && io_count == 3 &&
		   io_log[2].offset == 8192,
		   "a sink's VM_ENOUGH ends its timed loop, and the program "
		   "goes on (%u records, %u operations)", record_count,
		   io_count);
}

static void test_percentiles(void)
{
	struct vm_plan plan;
	double *v = NULL;
	int err;

	/* reads of 1000 .. 1099 ns; buckets 16 ns wide there */
	err = run_text("let a, b, c, d = for i in linear 0 1024 100 "
		       "(p50, p99, max, runs) { read i 512 }\n"
		       "report time a a\nreport time b b\n"
		       "report time c c\nreport count d d\n",
		       1 << 20, &plan);
	if (record_count)
		v = &records[0].fields[0].value;
	UNIT_CHECK(err == 0 && v && records[0].fields[0].value == 1040 &&
		   records[0].fields[1].value == 1088 &&
		   records[0].fields[2].value == 1099 &&
		   records[0].fields[3].value == 100,
		   "p50, p99 from the histogram, max exact, runs counted");
	UNIT_CHECK(v && fabs(records[0].fields[0].value - 1049) / 1049 <
		   0.016 && fabs(records[0].fields[1].value - 1098) / 1098 <
		   0.016, "percentiles within 1.6%%");
	err = run_text("let a = for i in linear 0 1024 0 p50 { read i 512 }\n"
		       "report time a a\n", 1 << 20, &plan);
	UNIT_CHECK(err == 0 && record_count == 1 &&
		   isnan(records[0].fields[0].value),
		   "the percentile of no runs is unknown");
}

static void test_series(void)
{
	struct vm_plan plan;
	int err;

	err = run_text("for s in pow2 8192 1024 none { read 0 s }", 1 << 20,
		       &plan);
	UNIT_CHECK(err == 0 && io_count == 4 && io_log[0].length == 8192 &&
		   io_log[3].length == 1024, "pow2 halves from 8K to 1K");
	err = run_text("for s in pow2 1024 8192 none { read 0 s }", 1 << 20,
		       &plan);
	UNIT_CHECK(err == 0 && io_count == 4 && io_log[3].length == 8192,
		   "pow2 doubles from 1K to 8K");
	err = run_text("for a in aligns 49152 4096 1 none { read 0 a }",
		       1 << 20, &plan);
	{
		static const uint64_t want[] = { 49152, 32768, 24576, 16384,
						 12288, 8192, 6144, 4096 };
		int ok = err == 0 && io_count == 8;

		for (unsigned i = 0; ok && i < 8; i++)
			ok = io_log[i].length == want[i];
		UNIT_CHECK(ok, "aligns merges 2^n and 3 x 2^n, descending");
	}
	err = run_text("for b in boundaries 4096 100 0 1048576 none "
		       "{ read b 512 }", 1 << 20, &plan);
	{
		int ok = err == 0 && io_count > 50;

		for (unsigned i = 0; ok && i < io_count; i++) {
			uint64_t m = io_log[i].offset / 4096;

			ok = io_log[i].offset % 4096 == 0 && m % 2 && m % 3 &&
			     io_log[i].offset > 0 &&
			     io_log[i].offset < 1048576;
		}
		UNIT_CHECK(ok, "boundaries are odd multiples not divisible "
			   "by 3, inside the range");
	}
	err = run_text("for b in boundaries 65536 4 0 1048576 none "
		       "{ read b 512 }", 1 << 20, &plan);
	UNIT_CHECK(err == 0 && io_count == 4 && io_log[0].offset == 65536 &&
		   io_log[3].offset > 524288,
		   "boundaries spread over the range");
	err = run_text("for i in shuffle 0 512 16 none { read i 512 }",
		       1 << 20, &plan);
	{
		unsigned seen = 0, in_order = 1;

		for (unsigned i = 0; i < io_count && i < 16; i++) {
			seen |= 1u << (io_log[i].offset / 512);
			in_order &= io_log[i].offset == i * 512;
		}
		UNIT_CHECK(err == 0 && io_count == 16 && seen == 0xffff &&
			   !in_order, "shuffle visits each slot once, "
			   "out of order");
	}
}

static char listing[16384];

static void append_line(void *ctx, const char *line)
{
	(void)ctx;
	strncat(listing, line, sizeof(listing) - strlen(listing) - 2);
	strcat(listing, "\n");
}

static void test_listings_round_trip(void)
{
	struct program_params builtin;

	program_params_init(&builtin);
	for (size_t i = 0; i < programs_count; i++) {
		struct vm_program *a = NULL, *b = NULL;
		struct vm_diag diag;
		char first[16384];
		int ok;

		ok = vm_compile(programs[i].text, builtin.slot,
				PARAM_COUNT_OF, &a, &diag) == 0;
		listing[0] = '\0';
		if (ok)
			vm_list(a, append_line, NULL);
		strcpy(first, listing);
		ok = ok && vm_compile(first, builtin.slot, PARAM_COUNT_OF,
				      &b, &diag) == 0;
		listing[0] = '\0';
		if (ok)
			vm_list(b, append_line, NULL);
		UNIT_CHECK(ok && strcmp(first, listing) == 0,
			   "built-in %s compiles and its listing round-trips",
			   programs[i].name);
		vm_free(a);
		vm_free(b);
	}
}

static void test_write_window(void)
{
	struct dev dev = fake_dev(1 << 20);
	uint64_t ns;

	dev_allow_writes(&dev, 4096, 8192);
	io_count = 0;
	UNIT_CHECK(dev_write(&dev, "", 4096, 4096, &ns) == 0,
		   "write inside the announced range");
	UNIT_CHECK(dev_write(&dev, "", 0, 4096, &ns) == -EPERM,
		   "write before the announced range refused");
	UNIT_CHECK(dev_write(&dev, "", 4608, 4096, &ns) == -EPERM,
		   "write overlapping its end refused");
	UNIT_CHECK(dev_discard(&dev, 8192, 512, &ns) == -EPERM,
		   "discard after it refused");
	UNIT_CHECK(io_count == 1, "refused writes never reach the device (%u)", io_count);
	dev.mode = DEV_READ_ONLY;
	UNIT_CHECK(dev_write(&dev, "", 4096, 512, &ns) == -EBADF,
		   "read-only device refuses writes");
}

int main(void)
{
	test_syntax_errors();
	test_plan();
	test_reducers();
	test_timed_loops();
	test_once_and_enough();
	test_percentiles();
	test_series();
	test_listings_round_trip();
	test_write_window();
	return UNIT_DONE();
}
