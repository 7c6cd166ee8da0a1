/*
 * unit-analyze: reading saved align and open-AU output as people paste
 * it (folded lines, units, prompts, escape junk, hostile input), and the
 * findings and reports for the pasted outputs in tests/analyze/.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/pasted.h"
#include "records/analyze.h"
#include "unit.h"

static struct analyze_result r;

static bool near(double got, double want)
{
	return fabs(got - want) <= 1e-6 * fabs(want) + 1e-9;
}

static void test_empty_and_garbage(void)
{
	static const char garbage[] =
		"\x01\x02\xff\xfe binary \x7f junk\n"
		"align\nalign x pre on post diff\nalign 4096 pre 1us on\n"
		"4MiB\n10M/s 4MiB\n-5MiB 3M/s\n4MiB -3M/s\n4MB 3M/s\n"
		"nan inf 1e9M/s 0x10KiB .5MiB 5.MiB 4KiB 1e3K/s\n";

	UNIT_CHECK(analyze_text("", &r) == 0 && r.lines == 0 &&
		   r.point_count == 0 && r.run_count == 0 &&
		   r.lines_ignored == 0, "empty input: nothing, no error");
	UNIT_CHECK(analyze_text("\n  \n\t\n", &r) == 0 && r.lines == 3 &&
		   r.lines_ignored == 0, "blank lines are not ignored lines");
	UNIT_CHECK(analyze_text(garbage, &r) == 0 && r.point_count == 0 &&
		   r.run_count == 0 && r.lines_ignored == r.lines &&
		   r.lines == 10, "garbage: no records, every line ignored");
}

static void test_align(void)
{
	static const char text[] =
		"align 4194304\tpre 492\xc2\xb5s\ton 593\xc2\xb5s\t"
		"post 480\xc2\xb5s\tdiff 107\xc2\xb5s\n"
		"align 2097152 pre 480us on 1.5ms post 0.5s diff 4.16us\n"
		"align 1048576 pre 482ns on 481ns post 470ns diff -9689ns\n"
		"align 524288 pre 482\xce\xbcs on 482\xb5s post 467us "
		"diff -412331\n"
		"align 262144 pre 480 on 479us post 469us diff 4us\n";

	analyze_text(text, &r);
	UNIT_CHECK(r.point_count == 4 && r.table_count == 1 &&
		   r.lines_ignored == 1, "align lines: tabs, spaces, units");
	UNIT_CHECK(r.points[0].align == 4194304 && near(r.points[0].pre,
		   492000) && near(r.points[0].diff, 107000),
		   "µs is 1000 ns");
	UNIT_CHECK(near(r.points[1].pre, 480000) &&
		   near(r.points[1].on, 1.5e6) && near(r.points[1].post, 5e8),
		   "us, ms and s");
	UNIT_CHECK(near(r.points[2].pre, 482) && near(r.points[2].diff, -9689),
		   "ns and a negative diff with its unit");
	UNIT_CHECK(near(r.points[3].diff, -412331) &&
		   near(r.points[3].pre, 482000) && near(r.points[3].on, 482000),
		   "truncated unitless diff is ns; Greek mu, Latin-1 micro");
	UNIT_CHECK(r.points[0].noise == 0, "noise is not measured: 0");
}

static void test_folded_and_tables(void)
{
	static const char folded[] =
		"$ ./flashbench -a /dev/sdb align 8192 pre 1us on 2us post 1us "
		"diff 1us align 4096 pre 1us on 1us post 1us diff 0ns "
		"align 2048 pre 1us on 1us post 1us diff 0ns\n"
		"align 8192 pre 1us on 2us post 1us diff 1us\n"
		"$ flashbench -a /dev/sdb\n"
		"align 1024 pre 1us on 2us post 1us diff 1us\n";

	analyze_text(folded, &r);
	UNIT_CHECK(r.point_count == 5 && r.table_count == 3,
		   "folded align table; a repeat or command starts a table");
	UNIT_CHECK(r.point_table[2] == 0 && r.point_table[3] == 1 &&
		   r.point_table[4] == 2, "each line in its table");
	UNIT_CHECK(r.commands == 2 && r.lines_ignored == 0,
		   "command lines are counted, not ignored");
}

static void test_open_au_commands(void)
{
	static const char text[] =
		"# ./flashbench -O -0 6  -b 512 /dev/block/mmcblk0p9\n"
		"4MiB    5.91M/s\n2MiB    8.84M/s\n^C\n"
		"$ sudo ./flashbench /dev/mmcblk0 --open-au "
		"--erasesize=$[4 * 1024 * 1024] --open-au-nr=7 --random "
		"4MiB 6.55M/s 2MiB 7.04M/s 8KiB 614K/s 4KiB 2.5G/s 2KiB 12B/s\n"
		"flashbench -O --open-au-nr 8 -r /dev/x\n512KiB\t13M/s\n"
		"flashbench -Or -09 /dev/x\n1.5MiB 1M/s\n"
		"flashbench -O /dev/x\n4MiB 1M/s\n"
		"4MiB 2M/s\n"
		"/usr/bin/flashbench -a -e 4096 -0 3 x\n1KiB 1k/s\n"
		"myflashbench -0 5\n1KiB 1k/s\n";

	analyze_text(text, &r);
	UNIT_CHECK(r.run_count == 8, "a command or a size not below the last "
		   "starts a run (%zu)", r.run_count);
	UNIT_CHECK(r.runs[0].nr == 6 && !r.runs[0].random &&
		   r.runs[0].count == 2 && r.runs[0].size[1] == 2 << 20 &&
		   near(r.runs[0].rate[0], 5.91e6), "-0 6 with extra spaces");
	UNIT_CHECK(r.runs[1].nr == 7 && r.runs[1].random &&
		   r.runs[1].count == 5, "--open-au-nr=7 --random, folded");
	UNIT_CHECK(near(r.runs[1].rate[2], 614e3) &&
		   near(r.runs[1].rate[3], 2.5e9) &&
		   near(r.runs[1].rate[4], 12) && r.runs[1].size[3] == 4096 &&
		   r.runs[1].size[4] == 2048, "K/s, G/s, B/s; KiB");
	UNIT_CHECK(r.runs[2].nr == 8 && r.runs[2].random &&
		   r.runs[2].size[0] == 512 << 10, "--open-au-nr 8 -r, a tab");
	UNIT_CHECK(r.runs[3].nr == 9 && r.runs[3].random &&
		   r.runs[3].size[0] == 1572864, "-Or -09; 1.5MiB");
	UNIT_CHECK(r.runs[4].nr == 2 && r.runs[5].nr == 2,
		   "-O without -0 is the default 2, kept for a repeated run");
	UNIT_CHECK(r.runs[6].nr == 3, "-e takes its argument; -0 3 after it");
	UNIT_CHECK(r.runs[7].nr == 3 && r.commands == 6,
		   "myflashbench is not flashbench");

	analyze_text("4MiB 10M/s\n2MiB 9M/s\n", &r);
	UNIT_CHECK(r.run_count == 1 && r.runs[0].nr == 0 &&
		   r.runs[0].count == 2, "no command: nr 0");
	analyze_text("flashbench -f /dev/x\n4MiB 1M/s 2M/s 3M/s\n"
		     "2MiB 1M/s\n8KiB 1M/s 9M/s\n", &r);
	UNIT_CHECK(r.run_count == 0 && r.dropped == 3,
		   "find-fat rows are not open-AU runs");
	analyze_text("4MiB 1M/s 2M/s\n", &r);
	UNIT_CHECK(r.run_count == 0 && r.dropped == 1,
		   "a size with several rates is a find-fat row");
}

static void test_junk(void)
{
	static const char text[] =
		"# ./flashbench -O -0 7  -b 512 /dev/block/mmcblk0p9\r\n"
		"256KiB  13M/s\r\n"
		"^[[A^[[D^[[A128KiB  12.3M/s\n"
		"\x1b[A\x1b[1;5D64KiB\x1b[0m 11M/s\n"
		"32KiB\xc2\xa0\xc2\xa0" "9M/s\n"
		"^C\n"
		"andrew@bradford:~/flashbench$ ls\n"
		"The Sandisk one has 20 AUs.\n";

	analyze_text(text, &r);
	UNIT_CHECK(r.run_count == 1 && r.runs[0].count == 4 &&
		   r.runs[0].nr == 7, "CRLF, escapes, no-break spaces");
	UNIT_CHECK(r.runs[0].size[1] == 128 << 10 &&
		   near(r.runs[0].rate[1], 12.3e6) &&
		   r.runs[0].size[2] == 64 << 10 && r.runs[0].size[3] == 32768,
		   "pasted ^[[A and real escape sequences are dropped");
	UNIT_CHECK(r.lines_ignored == 3 && r.commands == 1,
		   "^C, a prompt and prose are ignored lines");
}

static void test_bounds(void)
{
	size_t size = 400 * 64 + 1;
	char *text = malloc(size), *p;

	UNIT_CHECK(analyze_text("align 99999999999999999999999 pre 1us on 1us "
				"post 1us diff 1us\n"
				"align 4096 pre 1e9us on 1us post 1us diff 1us\n"
				"align 4096 pre 99999999999999s on 1us post 1us "
				"diff 1us\n"
				"9999999999999999999GiB 1M/s\n"
				"4KiB 9999999999999M/s\n"
				"flashbench -0 99999999999999999999999\n"
				"4KiB 1M/s\n", &r) == 0 &&
		   r.point_count == 0 && r.run_count == 1 &&
		   r.runs[0].nr == 0, "huge numbers are junk, not overflows");
	if (!text)
		return;
	p = text;
	for (int i = 0; i < 400; i++)
		p += sprintf(p, "align %d pre 1us on 1us post 1us diff 1us\n",
			     4096 * (400 - i));
	UNIT_CHECK(analyze_text(text, &r) == 0 &&
		   r.point_count == ANALYZE_MAX_POINTS &&
		   r.dropped == 400 - ANALYZE_MAX_POINTS, "align lines capped");
	p = text;
	for (int i = 0; i < 400; i++)
		p += sprintf(p, "flashbench -0 %d 4MiB 1M/s\n", i + 1);
	UNIT_CHECK(analyze_text(text, &r) == 0 &&
		   r.run_count == ANALYZE_MAX_RUNS &&
		   r.dropped == 400 - ANALYZE_MAX_RUNS, "runs capped");
	p = text;
	for (int i = 0; i < 60; i++)
		p += sprintf(p, "%dB 1M/s ", 1000 - i);
	UNIT_CHECK(analyze_text(text, &r) == 0 && r.run_count == 1 &&
		   r.runs[0].count == ANALYSIS_MAX_SIZES &&
		   r.dropped == 60 - ANALYSIS_MAX_SIZES, "sizes per run capped");
	free(text);
}

/* ---- open-AU pastes: what sets each run's N and order ---- */

static void test_sweep_separators(void)
{
	static const char text[] =
		"# command: flashbench --open-au --open-au-nr=$i /dev/x and "
		"flashbench --random --open-au --open-au-nr=$i /dev/x\n"
		"======= AU=1, linear access =======\n4MiB 9M/s\n2MiB 9M/s\n"
		"======= AU=2, linear access =======\n4MiB 9M/s\n"
		"======= AU=1, random access =======\n4MiB 9M/s\n"
		"======= AU=12, Random access =======\n4MiB 9M/s\n";

	analyze_text(text, &r);
	UNIT_CHECK(r.run_count == 4 && r.runs[0].nr == 1 &&
		   !r.runs[0].random && r.runs[0].count == 2 &&
		   r.runs[1].nr == 2 && !r.runs[1].random,
		   "separators: linear runs with their N over the header's");
	UNIT_CHECK(r.runs[2].nr == 1 && r.runs[2].random &&
		   r.runs[3].nr == 12 && r.runs[3].random,
		   "separators: random runs, any case");
	analyze_text("flashbench -O --open-au-nr=$i /dev/x\n4MiB 9M/s\n"
		     "flashbench -O -0 ${i} /dev/x\n4MiB 9M/s\n"
		     "for i in 1 2; do flashbench -O -0 $[i*2] x; done\n"
		     "4MiB 9M/s\n", &r);
	UNIT_CHECK(r.run_count == 3 && r.runs[0].nr == 0 &&
		   r.runs[1].nr == 0 && r.runs[2].nr == 0,
		   "-0 $i with nothing naming i, or -0 $[...]: unknown");
	analyze_text("# N=3\nflashbench -O /dev/x\n4MiB 9M/s\n"
		     "flashbench -O /dev/x\n4MiB 9M/s\n"
		     "# random, nr=5:\n4MiB 9M/s\n", &r);
	UNIT_CHECK(r.run_count == 3 && r.runs[0].nr == 3 &&
		   r.runs[1].nr == 2 && r.runs[2].nr == 5 && r.runs[2].random,
		   "a comment names the next run only; its order word counts");
	analyze_text("# now -0 6:\n4MiB 9M/s\n$ fb -O -07 x\n4MiB 9M/s\n"
		     "> ./fb --open-au-nr 8 --random x\n4MiB 9M/s\n"
		     "try -0 9 next\n4MiB 9M/s\n", &r);
	UNIT_CHECK(r.run_count == 4 && r.runs[0].nr == 6 && r.runs[1].nr == 7 &&
		   r.runs[2].nr == 8 && r.runs[2].random && r.runs[3].nr == 0,
		   "-0 N on a comment or prompt line; not in prose");
	analyze_text("The Sandisk one has 20 AUs, random is fine.\n"
		     "flashbench -O -0 4 /dev/x\n4MiB 9M/s\n", &r);
	UNIT_CHECK(r.run_count == 1 && r.runs[0].nr == 4 && !r.runs[0].random,
		   "prose with order words but no N= names nothing");
}

static void test_shell_loops(void)
{
	analyze_text("$ for i in 1 2 3; do sudo ./flashbench -O -0 $i /dev/x;"
		     " done\n4MiB 9M/s\n2MiB 9M/s\n4MiB 8M/s\n4MiB 7M/s\n", &r);
	UNIT_CHECK(r.run_count == 3 && r.runs[0].nr == 1 &&
		   r.runs[0].count == 2 && r.runs[1].nr == 2 &&
		   r.runs[2].nr == 3, "for i in 1 2 3: one run per value");
	analyze_text("for n in {4..5} ; do flashbench -O --open-au-nr=$n x; "
		     "done\n4MiB 9M/s\n4MiB 9M/s\n", &r);
	UNIT_CHECK(r.run_count == 2 && r.runs[0].nr == 4 &&
		   r.runs[1].nr == 5, "for n in {4..5}");
	analyze_text("for i in $(seq 2 2 6); do flashbench -O -0 $i x; "
		     "flashbench -O -r -0 $i x; done\n"
		     "4MiB 9M/s\n4MiB 9M/s\n4MiB 9M/s\n4MiB 9M/s\n4MiB 9M/s\n",
		     &r);
	UNIT_CHECK(r.run_count == 5 && r.runs[0].nr == 2 &&
		   !r.runs[0].random && r.runs[1].nr == 2 && r.runs[1].random &&
		   r.runs[2].nr == 4 && !r.runs[2].random &&
		   r.runs[3].nr == 4 && r.runs[3].random && r.runs[4].nr == 6,
		   "$(seq 2 2 6), two commands a pass: they alternate");
	analyze_text("$ for i in `seq 3`\n> do\n"
		     "> flashbench -O --random --open-au-nr $i /dev/x\n"
		     "> done\n4MiB 9M/s\n4MiB 9M/s\n4MiB 9M/s\n4MiB 9M/s\n",
		     &r);
	UNIT_CHECK(r.run_count == 4 && r.runs[0].nr == 1 && r.runs[0].random &&
		   r.runs[2].nr == 3 && r.runs[3].nr == 0,
		   "a loop over lines; past its values N is unknown");
	analyze_text("for i in 1 2; do flashbench -O -0 $i x; done\n"
		     "4MiB 9M/s\nflashbench -O -0 7 x\n4MiB 9M/s\n4MiB 9M/s\n",
		     &r);
	UNIT_CHECK(r.run_count == 3 && r.runs[0].nr == 1 &&
		   r.runs[1].nr == 7 && r.runs[2].nr == 7,
		   "a command after the loop ends it");
	analyze_text("for f in *.txt; do cat $f; done\n"
		     "flashbench -O -0 3 x\n4MiB 9M/s\n", &r);
	UNIT_CHECK(r.run_count == 1 && r.runs[0].nr == 3,
		   "a loop over no numbers is not a sweep");
}

static void test_paste_shapes(void)
{
	analyze_text("$ sudo ./flashbench -O --erasesize=$[4 * 1024 * 1024] \\\n"
		     "\t--blocksize=$[256 * 1024] /dev/mmcblk0  "
		     "--open-au-nr=3\n4MiB 7.75M/s\n", &r);
	UNIT_CHECK(r.run_count == 1 && r.runs[0].nr == 3,
		   "a command continued with a backslash keeps its options");
	analyze_text("flashbench -O -0 2 x\n4MiB 9M/s\n2MiB 9M/s\n^C\n"
		     "1MiB 9M/s\n", &r);
	UNIT_CHECK(r.run_count == 2 && r.runs[0].count == 2,
		   "^C ends the run it cut short");
	analyze_text("\t1 AU\t 2 AU\t  8 AU\n"
		     "4MiB    8.98M/s  8.99M/s  9M/s\n"
		     "2MiB    9.09M/s  1.02e+0  4.84M/s\n"
		     "after the table\n4MiB 1M/s 2M/s\n", &r);
	UNIT_CHECK(r.run_count == 3 && r.runs[0].nr == 1 &&
		   r.runs[1].nr == 2 && r.runs[2].nr == 8 &&
		   r.runs[0].count == 2 && r.runs[1].count == 1 &&
		   near(r.runs[2].rate[1], 4.84e6) && r.dropped == 1,
		   "one column per count; a truncated cell is left out; the "
		   "layout ends with the table");
	analyze_text("align 4096 pre 1us on 1us post 1us diff -49389n\n"
		     "align 2048 pre 1us on 1us post 1us diff -412331\n"
		     "align 1024 pre 1us on 1us post 1n diff 1us\n", &r);
	UNIT_CHECK(r.point_count == 2 && near(r.points[0].diff, -49389) &&
		   near(r.points[1].diff, -412331),
		   "diffs cut to 8 bytes are ns; only the diff may be cut");
}

static void test_open_combined(void)
{
	struct analyze_findings f;

	analyze_text("flashbench -O -0 1\n4MiB 9M/s\n1MiB 10M/s\n256KiB 10M/s\n"
		     "flashbench -O -0 1\n4MiB 9M/s\n1MiB 12M/s\n256KiB 2M/s\n"
		     "flashbench -O -0 1\n4MiB 9M/s\n1MiB 11M/s\n"
		     "flashbench -O -0 2\n4MiB 9M/s\n1MiB 10M/s\n256KiB 9M/s\n",
		     &r);
	UNIT_CHECK(r.run_count == 4 && r.combined_count == 2 &&
		   r.combined[0].combined == 3 && r.combined[0].count == 3 &&
		   near(r.combined[0].rate[1], 11e6) &&
		   near(r.combined[0].rate[2], 6e6) && r.run_combined[3] == 1,
		   "repeated runs: one, the median per size");
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.linear.known && f.open.linear.value == 2 &&
		   f.open.linear_lower_bound && f.open.linear.confidence > 0.9,
		   "N=2 held against the combined N=1: at least 2");
	analyze_text("flashbench -O -0 1\n4MiB 9M/s\n2MiB 9M/s\n1MiB 9M/s\n"
		     "512KiB 9M/s\nflashbench -O -0 2\n4MiB 2M/s\n2MiB 3M/s\n"
		     "1MiB 9M/s\n512KiB 9M/s\n", &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.linear.known && f.open.linear_lower_bound &&
		   f.open.linear.value == 2,
		   "the whole-block row and one stray row do not decide");
	analyze_text("flashbench -O -0 1\n4MiB 9M/s\n2MiB 9M/s\n1MiB 9M/s\n"
		     "flashbench -O -0 2\n4MiB 9M/s\n2MiB 2M/s\n1MiB 1M/s\n"
		     "flashbench -O -0 1 -r\n4MiB 9M/s\n2MiB 9M/s\n1MiB 8M/s\n"
		     "flashbench -O -0 3 -r\n4MiB 9M/s\n2MiB 9M/s\n1MiB 9M/s\n",
		     &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.linear.known && f.open.linear.value == 1 &&
		   !f.open.linear_lower_bound && f.open.random.known &&
		   f.open.random.value == 3 && f.open.random_lower_bound,
		   "linear falls at 2: 1; random holds to 3: at least 3");
}

/* An align table of 8KiB to 4GiB from its diffs in us, reads of 480us. */
static void align_table(char *text, size_t size, const double *diff_us)
{
	size_t n = 0;

	text[0] = 0;
	for (int e = 32; e >= 13 && n < size; e--)
		n += (size_t)snprintf(text + n, size - n, "align %llu\tpre "
				      "480us\ton %.1fus\tpost 480us\tdiff "
				      "%.1fus\n", 1ULL << e,
				      480 + diff_us[32 - e], diff_us[32 - e]);
}

/*
 * Confidence that means it: a step of a few noise units whose lines
 * above fall back into the level below is no 0.97; a clean one is sure.
 */
static void test_noisy_confidence(void)
{
	/* 4GiB .. 1MiB, then 512KiB .. 8KiB */
	static const double noisy[] = { 89, 93, 96, 91, 94, 71, 85, 60, 88,
					92, 97, 95, 90, 56, 54, 56, 55, 53,
					52, 50 };
	static const double clean[] = { 91, 92, 90, 91, 92, 90, 91, 92, 90,
					91, 92, 90, 91, 52, 54, 53, 55, 53,
					52, 54 };
	static char text[4096];
	struct analyze_findings f;

	align_table(text, sizeof(text), noisy);
	analyze_text(text, &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(r.point_count == 20 && (!f.geometry.erase.known ||
		   f.geometry.erase.confidence < 0.9),
		   "diff 50-56us to 512KiB, 60-97us above, 32MiB and 128MiB "
		   "falling back: below 0.9 (%.2f)",
		   f.geometry.erase.confidence);
	align_table(text, sizeof(text), clean);
	analyze_text(text, &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(f.geometry.erase.known &&
		   f.geometry.erase.value == 1 << 20 &&
		   f.geometry.erase.confidence >= 0.9,
		   "the same step, every line above it high: 1MiB, sure "
		   "(%.2f)", f.geometry.erase.confidence);
}

/* An open-AU run as a command line and its rows, for analyze_text. */
static void add_run(char *text, size_t size, unsigned nr, bool random,
		    const double *rates_mb, size_t sizes)
{
	size_t n = strlen(text);

	n += (size_t)snprintf(text + n, size - n, "flashbench -O -0 %u%s\n",
			      nr, random ? " --random" : "");
	for (size_t j = 0; j < sizes && n < size; j++)
		n += (size_t)snprintf(text + n, size - n, "%lluKiB %.3gM/s\n",
				      4096ULL >> j, rates_mb[j]);
}

/* 4MiB down to 128KiB; linear holds to 4, N=5 thrashes */
static const double fast[] = { 6, 6, 6, 6, 6, 5.7 };
static const double thrash[] = { 6, 1.5, 0.8, 0.6, 0.45, 0.3 };

/* text: a linear sweep N=1..5 that falls off at 5 */
static void linear_sweep(char *text, size_t size)
{
	text[0] = 0;
	for (unsigned nr = 1; nr <= 5; nr++)
		add_run(text, size, nr, false, nr < 5 ? fast : thrash, 6);
}

/*
 * Random order is read like linear order, against the random runs with
 * fewer erase blocks, and is 0 only when its N=1 run is no faster than
 * the card's thrashing rate.
 */
static void test_random_rule(void)
{
	static const double third[] = { 6, 5, 4, 3, 2.4, 1.9 };
	static const double collapse[] = { 6, 1.5, 0.8, 0.6, 0.45, 0.298 };
	static char text[8192];
	struct analyze_findings f;

	linear_sweep(text, sizeof(text));
	for (unsigned nr = 1; nr <= 4; nr++)
		add_run(text, sizeof(text), nr, true,
			nr < 4 ? third : collapse, 6);
	analyze_text(text, &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.linear.known && f.open.linear.value == 4,
		   "linear: 4 hold, 5 falls off: 4");
	UNIT_CHECK(f.open.random.known && f.open.random.value == 3 &&
		   !f.open.random_lower_bound && !f.open.random_thrashing,
		   "random flat at 1.9M/s from N=1 to 3, 298K/s at 4: 3");
	UNIT_CHECK(f.open.random_linear.known &&
		   f.open.random_linear.nr == 1 &&
		   f.open.random_linear.ratio > 0.4 &&
		   f.open.random_linear.ratio < 0.6,
		   "random/linear at N=1 reported apart: about a half");

	linear_sweep(text, sizeof(text));
	for (unsigned nr = 1; nr <= 3; nr++)
		add_run(text, sizeof(text), nr, true, thrash, 6);
	analyze_text(text, &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.random.known && f.open.random.value == 0 &&
		   f.open.random_thrashing && !f.open.random_lower_bound,
		   "random N=1 already at the thrashing rate: 0");

	linear_sweep(text, sizeof(text));
	for (unsigned nr = 1; nr <= 3; nr++)
		add_run(text, sizeof(text), nr, true, third, 6);
	analyze_text(text, &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.random.known && f.open.random.value == 3 &&
		   f.open.random_lower_bound,
		   "random slow but far above thrashing, flat to 3: at "
		   "least 3");

	linear_sweep(text, sizeof(text));
	for (unsigned nr = 2; nr <= 3; nr++)
		add_run(text, sizeof(text), nr, true, thrash, 6);
	analyze_text(text, &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(!f.open.random.known && f.open.random_slow_nr == 2 &&
		   strstr(f.random_why, "N=2"),
		   "thrashing already at N=2: fewer open, how many unknown");
}

/* The report of r in one format, as a string to search (NULL if none). */
static char *render(const struct analyze_result *result,
		    enum render_format format, const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	UNIT_CHECK(out && analyze_report(result, format, NULL, out) == 0, "%s", what);
	if (out)
		fclose(out);
	return buf;
}

static void test_lower_bound_reports(void)
{
	char *buf;

	analyze_text("flashbench -O -0 1\n4MiB 9M/s\n1MiB 9M/s\n"
		     "flashbench -O -0 4\n4MiB 9M/s\n1MiB 9M/s\n", &r);
	buf = render(&r, RENDER_TEXT, "text report written");
	UNIT_CHECK(buf && strstr(buf, "Open erase blocks:    at least 4 ("),
		   "text: at least 4");
	free(buf);
	buf = render(&r, RENDER_JSON, "JSON report written");
	UNIT_CHECK(buf && strstr(buf, "\"open_au_linear\": {\"value\": 4, "
				 "\"confidence\": ") &&
		   strstr(buf, "\"lower_bound\": true}") &&
		   strstr(buf, "\"open_au_random\": {\"value\": null, ") &&
		   strstr(buf, "\"lower_bound\": false}") &&
		   strstr(buf, "{\"kind\": \"open_au_combined\", \"nr\": 4, "
			  "\"order\": \"linear\", \"runs\": 1,"),
		   "JSON: the count and its lower-bound flag");
	free(buf);
}

/* Test data sits in tests/analyze/, whether run from the top or tests/. */
static int load(const char *name)
{
	char path[2][128], why[256];
	const char *paths[1];

	snprintf(path[0], sizeof(path[0]), "analyze/%s", name);
	snprintf(path[1], sizeof(path[1]), "tests/analyze/%s", name);
	paths[0] = path[0];
	if (analyze_files(paths, 1, &r, why, sizeof(why)) == 0)
		return 0;
	paths[0] = path[1];
	return analyze_files(paths, 1, &r, why, sizeof(why));
}

static void test_seeds(void)
{
	struct analyze_findings f;

	UNIT_CHECK(load("su08g.txt") == 0 && r.point_count == 21 &&
		   r.run_count == 7, "su08g: one align table, seven runs");
	analyze_findings(&r, &f);
	UNIT_CHECK(f.geometry.erase.known &&
		   f.geometry.erase.value == 4 << 20 &&
		   f.geometry.erase.confidence > 0.9,
		   "su08g: erase block 4MiB");
	UNIT_CHECK(near(r.points[19].diff, -9689), "su08g: diff -9689ns");
	UNIT_CHECK(!f.geometry.page.known && f.page_why[0],
		   "su08g: page not determined, with a reason");
	UNIT_CHECK(f.open.linear.known && f.open.linear.value == 6,
		   "su08g: 6 open erase blocks (7 falls off)");
	UNIT_CHECK(f.open.random.known && f.open.random.value == 6 &&
		   !f.open.random_thrashing && f.open.random_linear.known &&
		   f.open.random_linear.nr == 2 &&
		   f.open.random_linear.ratio < 0.5,
		   "su08g: random order slow at N=2, flat to N=6 and falling "
		   "at 7: 6, and its cost against linear apart");

	UNIT_CHECK(load("toshiba.txt") == 0 && r.run_count == 5 &&
		   r.point_count == 0, "toshiba: five runs");
	UNIT_CHECK(r.runs[1].nr == 7 && r.runs[1].count == 6 &&
		   r.runs[1].size[5] == 128 << 10, "toshiba: the ^[[A line");
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.linear.known && f.open.linear.value == 7 &&
		   f.open.linear.confidence > 0.8, "toshiba: 7 open erase blocks");
	UNIT_CHECK(!f.geometry.erase.known &&
		   strstr(f.erase_why, "no align table"),
		   "toshiba: no align table, said so");

	UNIT_CHECK(load("sandisk.txt") == 0 && r.run_count == 4,
		   "sandisk: four runs (-0 2 printed nothing)");
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.linear.known && f.open.linear.value == 20,
		   "sandisk: 20 open erase blocks");
	UNIT_CHECK(!f.open.random.known &&
		   strstr(f.random_why, "no --random"),
		   "sandisk: no random runs, said so");
}

static void test_open_reasons(void)
{
	struct analyze_findings f;

	analyze_text("flashbench -O -0 4\n4MiB 1M/s\n", &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(!f.open.linear.known && strstr(f.linear_why, "only N=4"),
		   "a single N: not determined");
	analyze_text("flashbench -0 1\n4MiB 10M/s\n1MiB 10M/s\n"
		     "flashbench -0 5\n4MiB 9M/s\n1MiB 9M/s\n", &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.linear.known && f.open.linear.value == 5 &&
		   f.open.linear_lower_bound && f.open.linear_at_least == 5,
		   "nothing fell: at least 5, a lower bound");
	analyze_text("flashbench -0 1\n4MiB 10M/s\nflashbench -0 5\n"
		     "4MiB 9M/s\n", &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(!f.open.linear.known && f.open.linear_at_least == 1 &&
		   strstr(f.linear_why, "no run above N=1 had a size below "
			  "the erase size"),
		   "whole erase blocks only: no bound, said why");
	analyze_text("4MiB 10M/s\n", &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(!f.open.linear.known && strstr(f.linear_why, "known"),
		   "unknown N: not determined");
	analyze_text("", &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(strcmp(f.linear_why, "no open-AU runs found") == 0,
		   "no runs: said so");
	analyze_text("flashbench -0 1\n4MiB 10M/s\n8KiB 5M/s\n"
		     "flashbench -0 1 -r\n4MiB 10M/s\n8KiB 1M/s\n", &r);
	analyze_findings(&r, &f);
	UNIT_CHECK(f.open.random.known && f.open.random.value == 0,
		   "random slow at N=1: no erase block open in random order");
}

static void test_reports(void)
{
	char *buf;

	if (load("su08g.txt"))
		return;
	buf = render(&r, RENDER_TEXT, "text report written");
	UNIT_CHECK(buf && strstr(buf, "Erase block size:     4MiB") &&
		   strstr(buf, "Open erase blocks:    6") &&
		   strstr(buf, "falls off") && strstr(buf, "not determined") &&
		   strstr(buf, "Advice:\n  partition start: sector 8192"),
		   "text: findings, evidence, what is unknown");
	free(buf);
	buf = render(&r, RENDER_JSON, "JSON report written");
	UNIT_CHECK(buf && buf[0] == '{' &&
		   strstr(buf, "\"test\": \"analyze\"") &&
		   strstr(buf, "\"erase_size\": {\"value\": 4194304, ") &&
		   strstr(buf, "\"page_size\": {\"value\": null, ") &&
		   strstr(buf, "\"open_au_linear\": {\"value\": 6, ") &&
		   strstr(buf, "\"open_au_random\": {\"value\": 6, ") &&
		   strstr(buf, "\"min_write_size\": {\"value\": null, ") &&
		   strstr(buf, "\"fat_area\": {\"value\": null, ") &&
		   strstr(buf, "\"bytes_written\": 0,") &&
		   strstr(buf, "{\"kind\": \"recommendation\", \"text\": "
			  "\"partition start: sector 8192 (4MiB)"),
		   "JSON: findings, nulls, advice");
	free(buf);
	buf = render(&r, RENDER_CSV, "CSV report written");
	UNIT_CHECK(buf && strncmp(buf, "schema,kind,align_lines,", 24) == 0 &&
		   strstr(buf, ",name,value,confidence,why,") &&
		   strstr(buf, "\n3,finding,,,,,,,,,erase_size,4194304,0.") &&
		   strstr(buf, "\n3,finding,,,,,,,,,open_au_linear,6,0.") &&
		   strstr(buf, "\n3,finding,,,,,,,,,page_size,,,no step") &&
		   strstr(buf, "\n3,recommendation,") &&
		   strstr(buf, "\n3,align,"),
		   "CSV: one table of findings, advice and evidence");
	free(buf);
}

/*
 * The interval regression weighs relative errors: a line through the
 * small sizes is found although the largest size is far off it, where an
 * unweighted fit would follow that one point.
 */
static void test_interval_fit(void)
{
	double length[8], time_ns[8], slope, access;

	for (int i = 0; i < 8; i++) {
		length[i] = 16384.0 * (1 << i);
		time_ns[i] = 400000 + 50 * length[i];
	}
	UNIT_CHECK(analysis_interval_fit(length, time_ns, 8, &slope,
					 &access) == 0 &&
		   fabs(slope - 50) < 1e-9 && fabs(access - 400000) < 1e-3,
		   "interval fit: an exact line found (%g ns/B, %g ns)", slope,
		   access);
	time_ns[7] *= 1.05;
	UNIT_CHECK(analysis_interval_fit(length, time_ns, 8, &slope,
					 &access) == 0 &&
		   fabs(access - 400000) < 40000,
		   "interval fit: the access time held by the small sizes "
		   "(%g ns)", access);
	UNIT_CHECK(analysis_interval_fit(length, time_ns, 1, &slope,
					 &access) == -1,
		   "interval fit: one point is no line");
}

static int write_temp(char *path, const char *text, size_t len)
{
	int fd = mkstemp(path);
	FILE *f;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f)
		return -1;
	fwrite(text, 1, len, f);
	return fclose(f);
}

static void test_files(void)
{
	char why[256], one[] = "/tmp/unit-analyze.XXXXXX";
	char two[] = "/tmp/unit-analyze.XXXXXX";
	const char *paths[2] = { "/nonexistent/flashbench-out.txt", two };

	UNIT_CHECK(analyze_files(paths, 1, &r, why, sizeof(why)) == -ENOENT &&
		   strstr(why, "/nonexistent/flashbench-out.txt: "),
		   "missing file: -ENOENT, named");
	if (write_temp(one, "flashbench -0 6\n4MiB\0 1M/s\n", 27) ||
	    write_temp(two, "2MiB 1M/s\n", 10))
		return;
	paths[0] = one;
	UNIT_CHECK(analyze_files(paths, 2, &r, why, sizeof(why)) == 0 &&
		   r.run_count == 2 && r.runs[0].nr == 6 && r.runs[1].nr == 0,
		   "a NUL byte is a space; each file starts afresh");
	unlink(one);
	unlink(two);
}

int main(void)
{
	test_empty_and_garbage();
	test_align();
	test_folded_and_tables();
	test_open_au_commands();
	test_junk();
	test_bounds();
	test_seeds();
	test_open_reasons();
	test_reports();
	test_interval_fit();
	test_files();
	test_sweep_separators();
	test_shell_loops();
	test_paste_shapes();
	test_open_combined();
	test_lower_bound_reports();
	test_random_rule();
	test_noisy_confidence();
	return UNIT_DONE();
}
