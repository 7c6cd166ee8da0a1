/*
 * programs: the built-in tests, each a named VM program with a note on
 * what it measures and how to read it.  The parameters every program may
 * use ($blocksize, $erasesize, ...) are listed here too.
 */
#ifndef FLASHBENCH_PROGRAMS_H
#define FLASHBENCH_PROGRAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "vm.h"

struct program_def {
	const char *name;	/* "align", "open-au", ... */
	const char *summary;	/* one line for listings */
	bool writes;		/* destructive: opens read-write */
	bool skips_bad;		/* goes past unreadable blocks, counting them */
	bool timed;		/* a speed test: runs for $time, its records
				   are speed.c's to sum up */
	bool probe;		/* one of --detect's, not a test of its own */
	bool libaio;		/* at depth, Linux AIO before io_uring: it
				   mirrors fio's libaio jobs */
	const char *text;	/* the program */
};

/* Parameters: the slots of a struct program_params. */
enum program_param {
	PARAM_SIZE,		/* device size in bytes */
	PARAM_LBS,		/* logical block size */
	PARAM_BLOCKSIZE,	/* -b */
	PARAM_ERASESIZE,	/* -e */
	PARAM_COUNT,		/* -c: repetitions */
	PARAM_OFFSET,		/* --offset, or the test's default */
	PARAM_NR,		/* -0: erase blocks written in turn */
	PARAM_SPACING,		/* bytes between them: 12 erase blocks */
	PARAM_FATNR,		/* --fat-nr */
	PARAM_THREES,		/* 1: align tests also probe 3 x 2^n */
	PARAM_SCATTER_COUNT,	/* 2^--scatter-order */
	PARAM_SCATTER_BYTES,	/* --scatter-span blocks, in bytes */
	PARAM_INTERVAL_TOP,	/* largest size of the interval test */
	PARAM_REGION,		/* bytes write-align may use from offset */
	/* the ones above are what a VM test's JSON header lists */
	PARAM_TIME,		/* --time, in ns of device time */
	PARAM_HEADER_COUNT = PARAM_TIME,
	PARAM_WINDOWS,		/* speed tests: per-second windows at most;
				   --surface: windows in a run */
	PARAM_SLOTS,		/* speed tests: blocks from $offset they use */
	PARAM_SPAN,		/* speed tests: bytes they may write */
	PARAM_WRITES,		/* 0 with --read-only, else 1 */
	PARAM_IODEPTH,		/* --iodepth: operations in flight */
	PARAM_PI_BYTES,		/* --class-check: the Raspberry Pi test's
				   file, bytes from $offset */
	PARAM_PI_TIME,		/* its random I/O's time, ns */
	/* --detect's probes; detect.c sets them before each run */
	PARAM_ALIGN,		/* the alignment whose boundaries are read */
	PARAM_BOUNDARY_COUNT,	/* $nb: boundaries per alignment */
	PARAM_READ_BYTES,	/* $bs: read size, two logical blocks */
	PARAM_LIMIT,		/* boundaries below this (the device size) */
	PARAM_REPS,		/* reads per boundary; the fastest counts */
	PARAM_ROUNDS,		/* writes per erase block */
	PARAM_BASE,		/* first erase block written */
	PARAM_ERASE,		/* erase-block size used */
	PARAM_SLOT,		/* first write slot inside an erase block */
	PARAM_WRITE_BYTES,	/* $w: write size */
	PARAM_FAT,		/* the candidate FAT erase block's offset */
	PARAM_WRITE_POSITION,	/* $pos: where writes start inside each
				   erase block, in bytes */
	/* --capacity-check; capacity.c sets them before each round */
	PARAM_PROBE_LO,		/* first probe block */
	PARAM_PROBE_STEP,	/* bytes between probes */
	PARAM_PROBES,		/* probes from $probe_lo on */
	PARAM_PROBE_LAST,	/* one more probe: the top of the range */
	PARAM_FLUSH,		/* bytes stamped from 0 to flush a cache */
	PARAM_SCAN,		/* bytes verified from 0: where aliases land */
	PARAM_CHUNK,		/* transfer size of the flush and the scan */
	/* --surface; surface.c sets them before each run */
	PARAM_WINDOW_AT,	/* first byte of the first window */
	PARAM_WINDOW,		/* bytes in each */
	PARAM_CHUNKS,		/* whole $chunk transfers in a window */
	PARAM_TAILS,		/* 1: a shorter transfer ends each window */
	PARAM_TAIL_BYTES,	/* its length */
	PARAM_COUNT_OF
};

/*
 * The values one run gives its programs, by slot.  Each run fills its
 * own and passes slot to vm_compile; the compiled program reads the
 * values when it runs, so the set outlives it and changes between runs
 * of it (detect's probes) are seen.
 */
struct program_params {
	struct vm_param slot[PARAM_COUNT_OF];
};

/* Every name in its slot; $writes and $iodepth 1, every other value 0. */
void program_params_init(struct program_params *params);

extern const struct program_def programs[];
extern const size_t programs_count;

const struct program_def *programs_find(const char *name);

/*
 * Compile the built-in program name against params (which the program
 * reads when it runs, so they must outlive it).  Returns 0, or -EINVAL
 * when no program has that name or its text does not compile: a bug in
 * this file, never the user's.
 */
int programs_compile(const char *name, const struct program_params *params,
		     struct vm_program **program);

#endif
