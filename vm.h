/*
 * vm: the micro-VM every test runs on.  A program is text (the built-in
 * tests are too) compiled into a table of opcodes; the interpreter runs it
 * against a device and hands out result records - values with their units
 * and keys.  The VM measures; it never formats or prints.  vm/compile.c
 * compiles, vm/list.c lists, vm.c plans and runs; vm/prog.h is the compiled
 * program's shape they share.
 */
#ifndef FLASHBENCH_VM_H
#define FLASHBENCH_VM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"
#include "lib/record.h"

/* A named parameter a program refers to as $name. */
struct vm_param {
	const char *name;
	double value;
};

/* Where and why a program text is wrong. */
struct vm_diag {
	unsigned line;
	unsigned column;
	char message[160];
};

struct vm_program;

/* What a program will do, found by running it without any I/O. */
struct vm_plan {
	uint64_t operations;
	uint64_t reads, writes, discards;
	uint64_t bytes_read, bytes_written;
	uint64_t max_length;		/* largest single transfer */
	/*
	 * Time-bounded loops: the sum of their bounds in ns.  Their
	 * operations are not counted (time decides how many); their
	 * offsets are planned at the series' lowest and highest values.
	 */
	uint64_t timed_ns;
	unsigned max_depth;		/* deepest "depth" of a loop; 1 */
	uint64_t write_start;		/* writes and discards: [start, end) */
	uint64_t write_end;		/* start == end: the program never writes */
	bool patterns[DEV_PATTERN_COUNT];
	bool stamps;			/* it has stamp statements */
	/*
	 * First problem found, with the offending operation: -EINVAL
	 * misaligned, -ENOSPC past the device end, -EDOM an offset, length
	 * or count that is not a whole number, -E2BIG over the operation
	 * limit, -EMSGSIZE a record of more than RECORD_MAX_FIELDS fields.
	 */
	int error;			/* 0 or one of the above */
	const char *error_op;
	uint64_t error_offset, error_length;
	unsigned error_line;
	/*
	 * -EDOM: the operand that is not a whole number in range
	 * ("offset", "length", "count", "time", "depth", or the series'
	 * name with error_operand_index its place, 1 up), what is wrong
	 * with it ("negative"...) and what it came to: for a read, write,
	 * discard, stamp or verify its offset and length (value count 2),
	 * else the operand's alone (1).  NAN: undefined.
	 */
	const char *error_operand;
	unsigned error_operand_index;
	const char *error_why;
	double error_values[2];
	unsigned error_value_count;
};

/*
 * The buffers of a run's reads and stamps (each with its spare, for
 * exec->overlap), kept by a caller from one run to the next: a run takes
 * them when they are large enough, makes them anew when not, and leaves
 * them for the next run; vm_keep_free lets them go.  A caller that runs
 * the same programs a chunk at a time (--surface --keep-data) spares each
 * run their allocation and the first touch of every page.
 */
struct vm_keep {
	void *read[2], *stamps[2];
	uint64_t read_bytes, stamps_bytes;
};

void vm_keep_free(struct vm_keep *keep);

/*
 * What a sink returns when it has seen enough of a timed loop's records
 * (a rate that has settled): not an errno (those end at 4095), so no
 * failure can be taken for it.
 */
#define VM_ENOUGH (-10000)

/* A run's connections to the rest of the tool. */
struct vm_exec {
	struct dev *dev;
	/* receives each finished record; non-zero stops the run, but
	   VM_ENOUGH, which ends only the loop bounded by time the record
	   was made in (the program goes on after it) */
	struct record_sink sink;
	/* called every so often with operations done, for progress; when
	   the plan has time-bounded loops, with ms of their device time;
	   ctx is its context and check's */
	void (*on_progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
	volatile sig_atomic_t *stop;	/* set by a signal: end the run */
	uint64_t max_operations;	/* plan refuses more than this */
	/*
	 * Tests that map the device (scatter) may go past unreadable
	 * blocks: a read failing with EIO then drops the record it belongs
	 * to instead of ending the run; the counts and the first skipped
	 * failure are kept here.
	 */
	bool skip_read_errors;
	/*
	 * Stamps carry salt; each block a verify reads (or a stamp failed
	 * to write) is handed to check, after the timed operation, with
	 * what it holds (enum stamp_state) and, for an alias, the offset
	 * its stamp names.  A failed stamp or verify does not end the run:
	 * its blocks are checked as write or read errors.
	 */
	uint64_t salt;
	void (*check)(void *ctx, uint64_t offset, int state, uint64_t named,
		      const void *block);
	/* when set, a run of blocks the device itself vouched intact (a
	   backend that keeps stamps) comes here in one call instead of
	   one check a block: a 64 GiB pass is 134 million blocks */
	void (*check_intact)(void *ctx, uint64_t offset, uint64_t length);
	/* check only the blocks of a failed verify: a read-only map of
	   the blocks that cannot be read spends no time classifying */
	bool check_failed_only;
	/* stamps made and verified blocks checked by a second thread
	   while the device moves the transfer before or after: check
	   is then called from it, in order, and once more on failures,
	   but never at the same time; emit may run beside it */
	bool overlap;
	struct vm_keep *keep;		/* NULL: the run's own buffers */
	uint64_t failed_reads;
	uint64_t dropped_records;
	struct dev_error first_failure;
};

/*
 * Plan a program: every offset, length and count evaluated, nothing read
 * or written.  dev supplies size and logical block size; plan->error
 * reports the first operation that is misaligned, past the device end or
 * over the operation limit, or the first record too large.  Returns 0 or
 * plan->error.
 */
int vm_plan(const struct vm_program *program, const struct dev *dev,
	    uint64_t max_operations, struct vm_plan *plan);

/*
 * Run a planned program.  Buffers for the plan's largest transfer are
 * allocated before the first timed operation and freed after the last.
 * Returns 0, -EINTR when *stop was set, or the failed operation's
 * negative errno (its context is in exec->dev->error).
 */
int vm_run(const struct vm_program *program, const struct vm_plan *plan,
	   struct vm_exec *exec);

#endif
