#!/bin/sh
# t2100: the read-alignment test (-a).  One line per alignment, from the
# largest power of two that fits in half the device down to twice the
# block size, in the original's tab-separated format; it reads only, so it
# works on read-only devices, leaves the data alone and needs little
# memory.  On the simulated card the 4 MiB erase blocks show as a jump in
# diff; on loop devices the same invariants hold with real timings.

. "$(dirname "$0")/lib.sh"


# expected_aligns SIZE BLOCKSIZE [threes]: the alignments -a should print,
# one a line: powers of two (and with threes, 3 x powers of two) from
# size / 2 down to 2 x blocksize, largest first.
expected_aligns() {
	awk -v size="$1" -v bs="$2" -v threes="${3:-}" 'BEGIN {
		for (p = 1; p * 2 <= size / 2; p *= 2)
			;
		if (threes != "" && 3 * p / 2 <= size / 2)
			printf "%.0f\n", 3 * p / 2
		for (v = p; v >= 2 * bs; v /= 2) {
			printf "%.0f\n", v
			if (threes != "" && v % 4 == 0 && 3 * v / 4 >= 2 * bs)
				printf "%.0f\n", 3 * v / 4
		}
	}'
}

# diff_ns FILE ALIGN: the diff column of the line for ALIGN, in ns.
diff_ns() {
	time_ns "$(awk -v a="$2" '$2 == a { print $NF }' "$1")"
}

test_expect_success 'expected_aligns helper: 64 MiB, 1 KiB blocks' '
	expected_aligns 67108864 1024 >list &&
	test "$(head -n 1 list)" = 33554432 &&
	test "$(tail -n 1 list)" = 2048 &&
	test "$(wc -l <list)" = 15 &&
	expected_aligns 67108864 1024 threes >list3 &&
	test "$(sed -n 2p list3)" = 25165824 &&
	test "$(tail -n 2 list3 | head -n 1)" = 3072
'

test_expect_success 'sim: -a --blocksize=1024 prints well-formed align lines' '
	"$FLASHBENCH" -a sim: --blocksize=1024 >out 2>err &&
	test ! -s err &&
	test_lines_match out "$ALIGN_RE"
'

test_expect_success 'sim: -a aligns run from 2 GiB (top power of two) to 2 KiB' '
	"$FLASHBENCH" -a sim: --blocksize=1024 >out &&
	cut -f1 out | sed "s/^align //" >aligns &&
	expected_aligns 7948206080 1024 >expect &&
	test_cmp expect aligns
'

test_expect_success 'sim: -a diff jumps at the 4 MiB erase block' '
	"$FLASHBENCH" -a sim: --blocksize=1024 >out &&
	big=$(diff_ns out 4194304) && small=$(diff_ns out 2097152) &&
	echo "diff at 4MiB $big ns, at 2MiB $small ns" &&
	awk -v b="$big" -v s="$small" "BEGIN { exit !(b > 5 * s && b > 0) }" &&
	for a in 8388608 16777216 1073741824; do
		d=$(diff_ns out $a) &&
		awk -v d="$d" -v s="$small" "BEGIN { exit !(d > 5 * s) }" ||
		return 1
	done
'

test_expect_success 'sim: -a on erase=3M with --threes shows the jump at 3 MiB' '
	"$FLASHBENCH" -a --threes -b 1024 sim:erase=3M >out &&
	test_lines_match out "$ALIGN_RE" &&
	three=$(diff_ns out 3145728) && two=$(diff_ns out 2097152) &&
	four=$(diff_ns out 4194304) &&
	echo "3MiB $three 2MiB $two 4MiB $four" &&
	awk -v t="$three" -v a="$two" -v b="$four" \
		"BEGIN { exit !(t > 5 * a && t > 5 * b) }"
'

test_expect_success 'sim: --threes adds the 3 x 2^n alignments in order' '
	"$FLASHBENCH" -a --threes sim:size=64M --blocksize=1024 >out &&
	test_lines_match out "$ALIGN_RE" &&
	cut -f1 out | sed "s/^align //" >aligns &&
	expected_aligns 67108864 1024 threes >expect &&
	test_cmp expect aligns
'

test_expect_success 'sim: -a output is the same on every run' '
	"$FLASHBENCH" -a sim: -b 4K -c 2 >one &&
	"$FLASHBENCH" -a sim: -b 4K -c 2 >two &&
	test_cmp one two
'

test_expect_success 'sim: -a --out=FILE writes the lines to FILE, not stdout' '
	"$FLASHBENCH" -a sim: -b 4K -c 2 >stdout-run &&
	"$FLASHBENCH" -a sim: -b 4K -c 2 --out=file-run >out &&
	test ! -s out &&
	test_cmp stdout-run file-run
'

test_expect_success 'sim: -a on a write-protected card works' '
	"$FLASHBENCH" -a -b 4K -c 2 sim:size=256M,ro >out &&
	test_lines_match out "$ALIGN_RE"
'

# ---- loop devices ----

if have_loop; then
	loop_setup LOOP 64M
	loop_setup ROLOOP 64M -r
fi

test_loop 'loop: setup: fill the device with random data' '
	test -b "$LOOP" &&
	fill_random "$LOOP" &&
	dev_sum "$LOOP" >"$TRASH/loop.sum"
'

test_loop 'loop: -a --blocksize=1024 prints one align line per power of two' '
	"$FLASHBENCH" -a "$LOOP" --blocksize=1024 >out 2>err &&
	test ! -s err &&
	test_lines_match out "$ALIGN_RE" &&
	cut -f1 out | sed "s/^align //" >aligns &&
	expected_aligns 67108864 1024 >expect &&
	test_cmp expect aligns
'

test_loop 'loop: -a leaves the data unchanged' '
	"$FLASHBENCH" -a "$LOOP" --blocksize=1024 >out &&
	"$FLASHBENCH" -a "$LOOP" --threes -c 2 >out &&
	test "$(dev_sum "$LOOP")" = "$(cat "$TRASH/loop.sum")"
'

test_loop 'loop: -a --threes adds the 3 x 2^n lines in order' '
	"$FLASHBENCH" -a --threes "$LOOP" --blocksize=1024 >out &&
	test_lines_match out "$ALIGN_RE" &&
	cut -f1 out | sed "s/^align //" >aligns &&
	expected_aligns 67108864 1024 threes >expect &&
	test_cmp expect aligns
'

test_loop 'loop: -a works on a read-only loop device' '
	test -b "$ROLOOP" &&
	test "$(blockdev --getro "$ROLOOP")" = 1 &&
	"$FLASHBENCH" -a "$ROLOOP" --blocksize=1024 >out 2>err &&
	test ! -s err &&
	test_lines_match out "$ALIGN_RE" &&
	test "$(wc -l <out)" = 15
'

test_loop 'loop: a write test on a read-only loop device exits 1' '
	test_expect_code 1 "$FLASHBENCH" -O -e 1M -b 512K "$ROLOOP" \
		>out 2>err &&
	cat err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^flashbench: .*read-only" err
'

# the sanitizers' shadow memory is not the tool's
if [ -n "$FLASHBENCH_UNDER_SANITIZER" ]; then
	test_skip 'loop: -a peak RSS stays under 8 MiB' 'sanitizer build'
else
test_loop 'loop: -a peak RSS stays under 8 MiB' '
	/usr/bin/time -f %M -o rss "$FLASHBENCH" -a "$LOOP" \
		--blocksize=1024 >out &&
	echo "peak RSS $(cat rss) KiB" &&
	test "$(tail -n 1 rss)" -lt 8192
'
fi

test_done
