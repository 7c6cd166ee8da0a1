/*
 * programs: every built-in test as program text, next to its name and a
 * note on reading its output.  The text is compiled like a --program
 * file; `flashbench --list-programs` prints these listings.
 */
#include <string.h>

#include "programs.h"

/*
 * The values are the device's and the options': flashbench sets them
 * from its option table (where every default lives) before it compiles
 * or lists a program.
 */
struct vm_param program_params[PARAM_COUNT_OF] = {
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
};

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
"	report bytes \"align\" align\n"					\
"	report time \"pre\" pre\n"						\
"	report time \"on\" on\n"						\
"	report time \"post\" post\n"					\
"	report time \"diff\" on - (pre + post) / 2\n"			\
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
"	report size block block\n"					\
"	report rate rate $erasesize * $nr time\n"			\
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
ALIGN_PROGRAM("$size / 2", "$blocksize", "$size - $blocksize",
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
"	report size block block\n"
"	for au in linear 0 $erasesize $fatnr none {\n"
"		let time = for pos in shuffle 0 block $erasesize / block total {\n"
"			write au + pos block random\n"
"		}\n"
"		report rate rate $erasesize time\n"
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
"	report mib offset pos\n"
"	report ms time time\n"
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
"	report bytes length \"% bytes:\" length\n"
"	report time min \"min %\" fastest\n"
"	report time avg \"avg %\" mean\n"
"	report time max \"max %:\" slowest\n"
"	report mbps rate \"% MB/s\" length fastest\n"
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
