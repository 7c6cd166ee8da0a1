/*
 * programs: every built-in test as program text, next to its name and a
 * note on reading its output.  The text is compiled like a --program
 * file; `flashbench --list-programs` prints these listings.
 */
#include <errno.h>
#include <string.h>

#include "vm/compile.h"
#include "vm/programs.h"

/*
 * The names and starting values of a run's parameters.  The values are
 * the device's and the options': each run sets them in its own copy from
 * the option table (where every default lives) before it compiles or
 * lists a program.
 */
static const struct vm_param param_defaults[PARAM_COUNT_OF] = {
	[PARAM_SIZE] = { "size", 0 },
	[PARAM_LBS] = { "lbs", 0 },
	[PARAM_BLOCKSIZE] = { "blocksize", 0 },
	[PARAM_ERASESIZE] = { "erasesize", 0 },
	[PARAM_COUNT] = { "count", 0 },
	[PARAM_OFFSET] = { "offset", 0 },
	[PARAM_NR] = { "nr", 0 },
	[PARAM_SPACING] = { "spacing", 0 },
	[PARAM_FATNR] = { "fatnr", 0 },
	[PARAM_THREES] = { "threes", 0 },
	[PARAM_SCATTER_COUNT] = { "scatter_count", 0 },
	[PARAM_SCATTER_BYTES] = { "scatter_bytes", 0 },
	[PARAM_INTERVAL_TOP] = { "interval_top", 0 },
	[PARAM_REGION] = { "region", 0 },
	[PARAM_TIME] = { "time", 0 },
	[PARAM_WINDOWS] = { "windows", 0 },
	[PARAM_SLOTS] = { "slots", 0 },
	[PARAM_SPAN] = { "span", 0 },
	[PARAM_WRITES] = { "writes", 1 },
	[PARAM_IODEPTH] = { "iodepth", 1 },
	[PARAM_PI_BYTES] = { "pi_bytes", 0 },
	[PARAM_PI_TIME] = { "pi_time", 0 },
	[PARAM_ALIGN] = { "align", 0 },
	[PARAM_BOUNDARY_COUNT] = { "nb", 0 },
	[PARAM_READ_BYTES] = { "bs", 0 },
	[PARAM_LIMIT] = { "limit", 0 },
	[PARAM_REPS] = { "reps", 0 },
	[PARAM_ROUNDS] = { "rounds", 0 },
	[PARAM_BASE] = { "base", 0 },
	[PARAM_ERASE] = { "erase", 0 },
	[PARAM_SLOT] = { "slot", 0 },
	[PARAM_WRITE_BYTES] = { "w", 0 },
	[PARAM_FAT] = { "fat", 0 },
	[PARAM_WRITE_POSITION] = { "pos", 0 },
	[PARAM_PROBE_LO] = { "probe_lo", 0 },
	[PARAM_PROBE_STEP] = { "probe_step", 0 },
	[PARAM_PROBES] = { "probes", 0 },
	[PARAM_PROBE_LAST] = { "probe_last", 0 },
	[PARAM_FLUSH] = { "flush", 0 },
	[PARAM_SCAN] = { "scan", 0 },
	[PARAM_CHUNK] = { "chunk", 0 },
	[PARAM_WINDOW_AT] = { "window_at", 0 },
	[PARAM_WINDOW] = { "window", 0 },
	[PARAM_CHUNKS] = { "chunks", 0 },
	[PARAM_TAILS] = { "tails", 0 },
	[PARAM_TAIL_BYTES] = { "tail_bytes", 0 },
};

void program_params_init(struct program_params *params)
{
	memcpy(params->slot, param_defaults, sizeof(params->slot));
}

/* --surface's windows, each block stamped or verified (OP). */
#define SURFACE_PROGRAM(OP)						\
"format spaces\n"							\
"for w in linear 0 1 $windows none {\n"				\
"	for c in linear 0 1 $chunks none {\n"				\
"		" OP " $window_at + w * $window + c * $chunk $chunk\n"	\
"	}\n"								\
"	for t in linear 0 1 $tails none {\n"				\
"		" OP " $window_at + w * $window + $chunks * $chunk "	\
	"$tail_bytes\n"						\
"	}\n"								\
"	report bytes window_at $window_at + w * $window\n"		\
"	newline\n"							\
"}\n"

/*
 * The sequential speed tests: blocks of BLOCK from $offset on, back to
 * $offset after $slots of them, for $time of device time; a record per
 * one-second window (the inner loop goes on where the last window
 * stopped; the last window ends with $time), $iodepth of them in flight.
 */
#define RATE_PROGRAM(IO, BLOCK)						\
"format spaces\n"							\
"for w in linear 1 1 $windows within $time none {\n"			\
"	let t, n = for pos in linear $offset " BLOCK " $slots "		\
	"within 1000000000 resume depth $iodepth (total, runs) {\n"	\
"		" IO "\n"						\
"	}\n"								\
"	report count second w\n"					\
"	report time window_ns t\n"					\
"	report bytes window_bytes n * " BLOCK "\n"			\
"	newline\n"							\
"}\n"

/*
 * Sequential writes of whole erase blocks from $offset, each byte of
 * [$offset, $offset + $span) at most once, for at most $time: a record
 * per chunk - one write, or one batch of $iodepth in flight - so that
 * speed.c sees where the rate falls (the end of a write cache); it ends
 * the loop once the rate after a fall has settled.
 */
#define SUSTAINED_PROGRAM						\
"for c in linear 1 1 $span / $erasesize within $time none {\n"	\
"	let t, n = for pos in linear $offset $erasesize $span / $erasesize " \
	"within 1 resume once depth $iodepth (total, runs) {\n"	\
"		write pos $erasesize random\n"				\
"	}\n"								\
"	report count chunk c\n"					\
"	report time chunk_ns t\n"					\
"	report bytes chunk_bytes n * $erasesize\n"			\
"	newline\n"							\
"}\n"

/*
 * Random I/O of $blocksize at queue depth DEPTH: each of SLOTS blocks
 * from $offset once in ORDER (shuffle: LFSR order; permute: no relation
 * from one block to the next), again and again (ONCE: " once", only
 * once), for TIME; each operation's latency goes into a histogram.
 */
#define IOPS_LOOP_OF(KEY, DIRECTION, IO, ORDER, SLOTS, TIME, ONCE, DEPTH) \
"let t, n, p50, p99, slowest = for pos in " ORDER " $offset $blocksize " \
	SLOTS " within " TIME ONCE " depth " DEPTH			\
	" (total, runs, p50, p99, max) {\n"				\
"	" IO "\n"							\
"}\n"									\
"report label " KEY " \"%\" \"" DIRECTION "\"\n"			\
"report bytes block_bytes $blocksize\n"					\
"report time device_time_ns t\n"					\
"report count operations n\n"					\
"report time p50 p50\n"							\
"report time p99 p99\n"							\
"report time max slowest\n"						\
"report count iodepth " DEPTH "\n"					\
"newline\n"

/* ... over $slots for $time, again and again */
#define IOPS_LOOP(KEY, DIRECTION, IO, DEPTH)				\
IOPS_LOOP_OF(KEY, DIRECTION, IO, "shuffle", "$slots", "$time", "", DEPTH)

/*
 * KEY names the records' first field, so speed.c tells passes apart.
 * The write loop runs $writes times: 0 or 1.
 */
#define IOPS_PROGRAM(KEY, DEPTH)					\
IOPS_LOOP(KEY, "read", "read pos $blocksize", DEPTH)			\
"for pass in linear 0 1 $writes none {\n"				\
IOPS_LOOP(KEY, "write", "write pos $blocksize random", DEPTH)		\
"}\n"

/*
 * The Raspberry Pi's SD Card Speed Test, its way (agnostics' fio job,
 * sd_bench.fio: libaio at depth 32 over a 256 MiB file, $pi_bytes here),
 * its phases in its order: the file laid out with 512 KiB writes, 4 MiB
 * writes over it (measured), 4 MiB reads of it, then random 4 KiB writes
 * and random 4 KiB reads, each block at most once, in an order with no
 * relation from one to the next as fio's random offsets have none, for
 * $pi_time each.  The layout and the reads set the card's state as the
 * Pi's job does (every block of the file written in order, the time a
 * write cache folds in); the Pi judges neither.  The sequential passes
 * stop after three times the random tests' time, when a card could not
 * pass anyway.  The writes run $writes times.
 */
#define PI_RANDOM(DIRECTION, IO)					\
IOPS_LOOP_OF("pi", DIRECTION, IO, "permute", "$pi_bytes / $blocksize",	\
	     "$pi_time", " once", "32")
/* IO of BLOCK bytes over the file once, at depth 32, into REDUCE */
#define PI_PASS(BLOCK, IO, REDUCE)					\
"for pos in linear $offset " BLOCK " $pi_bytes / " BLOCK		\
	" within 3 * $pi_time once depth 32 " REDUCE " {\n"		\
"		" IO "\n"						\
"	}\n"
#define PI_PROGRAM							\
"for pass in linear 0 1 $writes none {\n"				\
"	" PI_PASS("524288", "write pos 524288 random", "none")		\
"	let t, n = " PI_PASS("4194304", "write pos 4194304 random",	\
			     "(total, runs)")				\
"	report time pi_write_ns t\n"					\
"	report bytes pi_write_bytes n * 4194304\n"			\
"	newline\n"							\
"	" PI_PASS("4194304", "read pos 4194304", "none")		\
PI_RANDOM("write", "write pos $blocksize random")			\
"}\n"									\
PI_RANDOM("read", "read pos $blocksize")


/*
 * The align tests, reading or writing: from alignment TOP down, boundaries
 * inside (LO, HI), each block of $blocksize ending at, straddling and
 * starting at them.
 */
#define ALIGN_PROGRAM(TOP, LO, HI, IO, PATTERN)				\
"format tabs\n"								\
"for align in aligns " TOP " 2 * $blocksize $threes none {\n"		\
"	let pre = for b in boundaries align 8 " LO " " HI " avg {\n"	\
"		repeat $count min { " IO " b - $blocksize $blocksize"	\
	PATTERN " }\n"							\
"	}\n"								\
"	let on = for b in boundaries align 8 " LO " " HI " avg {\n"	\
"		repeat $count min { " IO " b - $blocksize / 2 $blocksize" \
	PATTERN " }\n"							\
"	}\n"								\
"	let post = for b in boundaries align 8 " LO " " HI " avg {\n"	\
"		repeat $count min { " IO " b $blocksize" PATTERN " }\n"	\
"	}\n"								\
"	report bytes align_bytes \"align\" align\n"					\
"	report time pre_ns \"pre\" pre\n"						\
"	report time on_ns \"on\" on\n"						\
"	report time post_ns \"post\" post\n"					\
"	report time diff_ns \"diff\" on - (pre + post) / 2\n"			\
"	newline\n"								\
"}\n"

/* open-au: positions inside each erase block in ORDER (linear, shuffle). */
#define OPEN_AU_PROGRAM(ORDER)						\
"format columns\n"							\
"for block in pow2 $erasesize $blocksize none {\n"			\
"	let time = for pos in " ORDER " 0 block $erasesize / block total {\n" \
"		for au in linear $offset $spacing $nr total {\n"		\
"			write au + pos block random\n"			\
"		}\n"							\
"	}\n"								\
"	report size block_bytes block\n"					\
"	report rate bytes_per_s $erasesize * $nr time\n"			\
"	newline\n"								\
"}\n"

const struct program_def programs[] = {
	/*
	 * Reads of one block ending at (pre), straddling (on) and starting
	 * at (post) boundaries of each alignment, each the minimum of
	 * $count tries, averaged over up to 8 boundaries spread over the
	 * device (odd multiples not divisible by 3, so a boundary of one
	 * alignment is never also one of twice or three times it).  A card
	 * shows a jump in diff = on - (pre + post) / 2 at its erase-block
	 * size, repeated at every larger alignment, and often a smaller one
	 * at its page size.  A flat diff means no boundary is visible.
	 */
	{
		.name = "align",
		.summary = "read timing across alignment boundaries",
		.text =
ALIGN_PROGRAM("($size - $size % 2) / 2", "$blocksize",
	      "$size - $blocksize",
	      "read", ""),
	},
	/*
	 * The align test with writes, inside $region bytes from $offset.
	 * Crossing a page or erase-block boundary can cost a second
	 * program operation; on cards that thrash the numbers get noisy.
	 */
	{
		.name = "write-align",
		.summary = "write timing across alignment boundaries "
			   "(destructive)",
		.writes = true,
		.text =
ALIGN_PROGRAM("2 * $erasesize", "$offset + $blocksize",
	      "$offset + $region - $blocksize", "write", " random"),
	},
	/*
	 * For each block size from the erase size down to $blocksize:
	 * every block position of an erase block, in order, each written
	 * in $nr erase blocks $spacing apart in turn, so the card must keep
	 * $nr erase blocks open.  While $nr fits what the card can keep
	 * open the rate stays near its sequential speed down to small
	 * blocks; one more and it collapses (garbage collection on every
	 * write).
	 */
	{
		.name = "open-au",
		.summary = "writes to N erase blocks in turn (destructive)",
		.writes = true,
		.text =
OPEN_AU_PROGRAM("linear"),
	},
	/*
	 * open-au with the positions inside each erase block in
	 * pseudo-random order: how many erase blocks take out-of-order
	 * writes at once.  Many cards manage fewer than in linear order.
	 */
	{
		.name = "open-au-random",
		.summary = "open-au in pseudo-random order (destructive)",
		.writes = true,
		.text =
OPEN_AU_PROGRAM("shuffle"),
	},
	/*
	 * Random-order writes filling each of the first $fatnr erase
	 * blocks, one rate column each.  Columns much faster at small
	 * block sizes mark the area the card manages for the FAT.
	 */
	{
		.name = "find-fat",
		.summary = "random writes in the first erase blocks "
			   "(destructive)",
		.writes = true,
		.text =
"format columns\n"
"for block in pow2 $erasesize $blocksize none {\n"
"	report size block_bytes block\n"
"	for au in linear 0 $erasesize $fatnr none {\n"
"		let time = for pos in shuffle 0 block $erasesize / block total {\n"
"			write au + pos block random\n"
"		}\n"
"		report rate bytes_per_s $erasesize time\n"
"	}\n"
"	newline\n"
"}\n",
	},
	/*
	 * Read time of each block across a stretch of the device, for
	 * plotting: gnuplot -p -e 'plot "FILE"'.  MLC pages show as
	 * alternating fast and slow bands.
	 */
	{
		.name = "scatter",
		.summary = "read time of each block, for plotting",
		.skips_bad = true,
		.text =
"format tabs\n"
"for pos in linear $offset $blocksize $scatter_count none {\n"
"	let time = repeat $count min { read pos $scatter_bytes }\n"
"	report mib offset_bytes pos\n"
"	report ms time_ns time\n"
"	newline\n"
"}\n",
	},
	/*
	 * Reads of growing power-of-two sizes; a straight line through
	 * the fastest times gives the transfer rate (its slope) and the
	 * access time (where it meets zero bytes).
	 */
	{
		.name = "interval",
		.summary = "read time against size, with a regression",
		.text =
"format spaces\n"
"for length in pow2 $blocksize $interval_top none {\n"
"	let fastest, mean, slowest = for i in linear 0 1 $count (min, avg, max) {\n"
"		read $offset + i * length length\n"
"	}\n"
"	report bytes length_bytes \"% bytes:\" length\n"
"	report time min_ns \"min %\" fastest\n"
"	report time avg_ns \"avg %\" mean\n"
"	report time max_ns \"max %:\" slowest\n"
"	report mbps bytes_per_s \"% MB/s\" length fastest\n"
"	newline\n"
"}\n",
	},
	/*
	 * -t: sequential reads of $blocksize from $offset, back to it at
	 * the device end, for $time; a record per second of device time.
	 * The rate of a window is window_bytes / window_ns; a card that
	 * slows down over the run shows it in the windows.
	 */
	{
		.name = "read-speed",
		.summary = "sustained sequential read rate",
		.skips_bad = true,
		.timed = true,
		.text =
RATE_PROGRAM("read pos $blocksize", "$blocksize"),
	},
	/*
	 * --write-speed: sequential writes of whole erase blocks over
	 * [$offset, $offset + $span) once, for at most $time, a record per
	 * chunk.  A card with a write cache shows its burst rate, then a
	 * fall to its sustained rate; speed.c finds where, and stops the
	 * writes once the rate after the fall has settled.
	 */
	{
		.name = "write-speed",
		.summary = "burst and sustained sequential write rate "
			   "(destructive)",
		.writes = true,
		.timed = true,
		.text =
"format spaces\n"
SUSTAINED_PROGRAM,
	},
	/*
	 * --iops: random reads, then (unless --read-only) random writes,
	 * each for $time; IOPS is operations / device_time_ns, and the
	 * latency percentiles are within 1.6%.
	 */
	{
		.name = "iops",
		.summary = "random I/O, --iodepth in flight (destructive "
			   "unless --read-only)",
		.writes = true,
		.timed = true,
		.text =
"format spaces\n"
IOPS_PROGRAM("direction", "$iodepth"),
	},
	/*
	 * --class-check: what the SD speed classes require - sequential
	 * writes in erase blocks as --write-speed makes them (the classes
	 * are judged on the rate after a write cache), random 4 KiB reads
	 * and writes at queue depth 1 and again at 32 (the A classes'
	 * ratings and the tools people compare with queue), each for
	 * $time, then the Raspberry Pi's card test by its own method; with
	 * --read-only only the reads.  The verdicts are speed.c's.
	 */
	{
		.name = "class-check",
		.summary = "the SD speed classes' figures (destructive unless "
			   "--read-only)",
		.writes = true,
		.timed = true,
		/* its QD32 figures are those of fio's libaio jobs (the
		   Raspberry Pi's test, KDiskMark): through io_uring a
		   loop device took 4 MiB writes out of order */
		.libaio = true,
		.text =
"format spaces\n"
"for pass in linear 0 1 $writes none {\n"
SUSTAINED_PROGRAM
"}\n"
IOPS_PROGRAM("direction", "1")
IOPS_PROGRAM("queued", "32")
PI_PROGRAM,
	},
	/* Reads before, across and after each boundary of one alignment. */
	{
		.name = "detect-align",
		.summary = "--detect: reads across one alignment's boundaries",
		.probe = true,
		.text =
"format tabs\n"
"for b in boundaries $align $nb $bs $limit - $bs none {\n"
"	let pre = repeat $reps min { read b - $bs $bs }\n"
"	let on = repeat $reps min { read b - $bs / 2 $bs }\n"
"	let post = repeat $reps min { read b $bs }\n"
"	report time pre pre\n"
"	report time on on\n"
"	report time post post\n"
"	newline\n"
"}\n",
	},
	/* $rounds writes into each of $nr erase blocks in turn, in order. */
	{
		.name = "detect-fill",
		.summary = "--detect --write: rounds of writes, $nr "
			   "erase blocks",
		.writes = true,
		.probe = true,
		.text =
"for r in linear 0 1 $rounds none {\n"
"	for au in linear $base $erase $nr none {\n"
"		let t = write au + ($slot + r) * $w $w random\n"
"		report time t t\n"
"		newline\n"
"	}\n"
"}\n",
	},
	/*
	 * The open-count probe, one write size: $rounds rounds, each a
	 * write of $w into each of $nr erase blocks in turn, the time of a
	 * whole round per record (what one block past the card's limit
	 * costs shows in the round, not in the typical write).  In order:
	 * up from $pos.
	 */
	{
		.name = "detect-open-linear",
		.summary = "--detect --write: open erase blocks, in "
			   "order",
		.writes = true,
		.probe = true,
		.text =
"for r in linear 0 1 $rounds none {\n"
"	let t = for au in linear $base $erase $nr total {\n"
"		write au + $pos + r * $w $w random\n"
"	}\n"
"	report time t t\n"
"	newline\n"
"}\n",
	},
	/* Out of order: the same places, top down. */
	{
		.name = "detect-open-random",
		.summary = "--detect --write: open erase blocks, out "
			   "of order",
		.writes = true,
		.probe = true,
		.text =
"for r in linear 0 1 $rounds none {\n"
"	let t = for au in linear $base $erase $nr total {\n"
"		write au + $pos + ($rounds - 1 - r) * $w $w random\n"
"	}\n"
"	report time t t\n"
"	newline\n"
"}\n",
	},
	/*
	 * Out-of-order writes into one leading erase block, interleaved with
	 * $nr data erase blocks that fill the card's out-of-order places: the
	 * leading block stays cheap only if the card manages it like a FAT.
	 * The data blocks go up one round and down the next: the leading
	 * block still comes after all of them each round, while a card
	 * that keeps $nr open reopens only two blocks a round, not each.
	 */
	{
		.name = "detect-fat",
		.summary = "--detect --write: a FAT-like leading "
			   "erase block",
		.writes = true,
		.probe = true,
		.text =
"for r in linear 0 1 $rounds none {\n"
"	let t = write $fat + ($slot + $rounds - 1 - r) * $w $w random\n"
"	report time t t\n"
"	newline\n"
"	for i in linear 0 1 $nr none {\n"
"		write $base + $erase * (i + r % 2 * ($nr - 1 - 2 * i))"
" + ($slot + $rounds - 1 - r) * $w $w random\n"
"	}\n"
"}\n",
	},
	/*
	 * --capacity-check, one round of its search (capacity.c runs
	 * rounds, each narrowing the range where the real capacity ends,
	 * with this program and new $probe_* values: which probes the next
	 * round takes depends on what this one read back, and a program's
	 * offsets are fixed when it is planned).  A self-naming stamp in
	 * each probe block; then $flush bytes of stamps from offset 0, more
	 * than any write cache holds, so what is read back comes from the
	 * flash; the probes read back in pseudo-random order; and the
	 * first $scan bytes read, where the first probe past the real
	 * capacity of a wrapping card lands.  capacity.c classifies each
	 * block read; the program reports nothing itself.
	 */
	{
		.name = "capacity-check",
		.summary = "real capacity of a possibly fake card "
			   "(destructive, restored)",
		.writes = true,
		.text =
"for i in shuffle 0 1 $probes none {\n"
"	stamp $probe_lo + i * $probe_step $lbs\n"
"}\n"
"stamp $probe_last $lbs\n"
"for f in linear 0 $chunk $flush / $chunk none {\n"
"	stamp f $chunk\n"
"}\n"
"for i in shuffle 0 1 $probes none {\n"
"	verify $probe_lo + i * $probe_step $lbs\n"
"}\n"
"verify $probe_last $lbs\n"
"for s in linear 0 $chunk $scan / $chunk none {\n"
"	verify s $chunk\n"
"}\n",
	},
	/*
	 * --capacity-check, once the end is found: a block past it
	 * ($probe_last) and the block it would alias on a wrapping card
	 * ($probe_lo) stamped, then read back after each chunk of the
	 * flush.  It reads back intact as long as a write cache holds it.
	 */
	{
		.name = "capacity-cache",
		.summary = "--capacity-check: the size of a write cache "
			   "past the end",
		.writes = true,
		.probe = true,
		.text =
"stamp $probe_last $lbs\n"
"stamp $probe_lo $lbs\n"
"verify $probe_last $lbs\n"
"for f in linear 0 $chunk $flush / $chunk none {\n"
"	stamp f $chunk\n"
"	verify $probe_last $lbs\n"
"}\n",
	},
	/*
	 * --surface: $windows windows of $window bytes from $window_at,
	 * each in $chunks transfers of $chunk (and a shorter $tail_bytes
	 * where $tails says the window ends inside one), every block read
	 * and classified as the capacity check's probes are (read-only,
	 * only the blocks that cannot be read).  A record per window names
	 * it; surface.c takes the device time since the last one as the
	 * window's, and runs the program again, with $chunk the logical
	 * block, over a transfer that failed.
	 */
	{
		.name = "surface-verify",
		.summary = "--surface: read and classify windows",
		.probe = true,
		.text = SURFACE_PROGRAM("verify"),
	},
	/* --surface --write and --keep-data: the windows stamped. */
	{
		.name = "surface-stamp",
		.summary = "--surface --write: stamp windows (destructive)",
		.writes = true,
		.probe = true,
		.text = SURFACE_PROGRAM("stamp"),
	},
	/* Writes of one size, in order, in a fresh erase block. */
	{
		.name = "detect-size",
		.summary = "--detect --write: writes of one size, "
			   "in order",
		.writes = true,
		.probe = true,
		.text =
"for i in linear 0 1 $rounds none {\n"
"	let t = write $base + i * $w $w random\n"
"	report time t t\n"
"	newline\n"
"}\n",
	},
};

const size_t programs_count = sizeof(programs) / sizeof(programs[0]);

const struct program_def *programs_find(const char *name)
{
	for (size_t i = 0; i < programs_count; i++)
		if (strcmp(programs[i].name, name) == 0)
			return &programs[i];
	return NULL;
}

int programs_compile(const char *name, const struct program_params *params,
		     struct vm_program **program)
{
	const struct program_def *def = programs_find(name);
	struct vm_diag diag;

	if (!def || vm_compile(def->text, params->slot, PARAM_COUNT_OF,
			       program, &diag))
		return -EINVAL;
	return 0;
}
