#!/bin/sh
# t2600: the write-align (-A), find-fat (-f), scatter (-s) and interval
# (-i) tests run, print lines in their formats, and write only inside the
# range they announce; -s and -i write nothing at all.

. "$(dirname "$0")/lib.sh"

SCATTER_RE="^${N}${tab}${N}\$"
INTERVAL_RE="^[0-9]+ bytes: min $T avg $T max $T: $N MB/s\$"
REGRESSION_RE="^$N MB/s, $T access time\$"
OVERHEAD_RE="^[0-9]+ bytes: $T overhead\$"

# fat_re NR: a find-fat line: a size in 7 characters, then NR rates.
fat_re() {
	printf '^%s +%s( +%s){%d}$' "$SIZE_RE" "$RATE_RE" "$RATE_RE" $(($1 - 1))
}

# interval_ok FILE SIZES: FILE is -i output for the given number of sizes:
# the per-size lines, the regression line, the per-size overhead lines.
interval_ok() {
	n=$2
	test "$(wc -l <"$1")" = $((2 * n + 1)) &&
	head -n "$n" "$1" >sizes.part &&
	test_lines_match sizes.part "$INTERVAL_RE" &&
	sed -n "$((n + 1))p" "$1" | grep -Ex "$REGRESSION_RE" &&
	tail -n "$n" "$1" >overhead.part &&
	test_lines_match overhead.part "$OVERHEAD_RE"
}

# min_avg_max_ok FILE: on each per-size line of -i output,
# min <= avg <= max.
min_avg_max_ok() {
	grep " bytes: min " "$1" | while read -r len _ _ min _ avg _ max _; do
		a=$(time_ns "$min") && b=$(time_ns "$avg") &&
		c=$(time_ns "${max%:}") || return 1
		if ! awk -v a="$a" -v b="$b" -v c="$c" \
			"BEGIN { exit !(a <= b && b <= c) }"; then
			echo "$len bytes: min $min avg $avg max $max" >&2
			return 1
		fi
	done
}

test_expect_success 'sim: -A prints align lines from 2 x erasesize down' '
	"$FLASHBENCH" -A -c 1 -e 1M -b 64K sim: >out 2>err &&
	test_lines_match out "$ALIGN_RE" &&
	printf "%s\n" 2097152 1048576 524288 262144 131072 >expect &&
	cut -f1 out | sed "s/^align //" >aligns &&
	test_cmp expect aligns &&
	grep "^flashbench: write-align overwrites bytes " err
'

test_expect_success 'sim: -f prints one rate per leading erase block' '
	"$FLASHBENCH" -f -b 1M sim: >out 2>err &&
	test_lines_match out "$(fat_re 6)" &&
	printf "4MiB\n2MiB\n1MiB\n" >expect &&
	cut -d" " -f1 out >sizes &&
	test_cmp expect sizes &&
	grep "^flashbench: find-fat overwrites bytes 0 to 25165823 " err
'

test_expect_success 'sim: -f --fat-nr=3 prints three rates per line' '
	"$FLASHBENCH" -f --fat-nr=3 -e 1M -b 256K sim: >out 2>/dev/null &&
	test_lines_match out "$(fat_re 3)" &&
	test "$(wc -l <out)" = 3
'

test_expect_success 'sim: -s prints offset and time for 2^order blocks' '
	"$FLASHBENCH" -s --scatter-order=4 -b 1M -c 1 sim: >out 2>err &&
	test ! -s err &&
	test_lines_match out "$SCATTER_RE" &&
	seq 0 15 >expect &&
	cut -f1 out >offsets &&
	test_cmp expect offsets
'

test_expect_success 'sim: -i prints sizes, the regression and overheads' '
	"$FLASHBENCH" -i --interval-order=4 -c 2 sim: >out 2>err &&
	test ! -s err &&
	interval_ok out 4 &&
	printf "%s\n" 16384 32768 65536 131072 >expect &&
	head -n 4 out | cut -d" " -f1 >lengths &&
	test_cmp expect lengths
'

test_expect_success 'sim: -i rates are plain numbers, not exponents' '
	"$FLASHBENCH" -i --interval-order=8 -b 1M -c 2 \
		sim:read-rate=4G,read-lat=1us >out &&
	cat out &&
	! grep "e+" out
'

test_expect_success 'sim: -i min <= avg <= max on every line' '
	"$FLASHBENCH" -i --interval-order=3 -c 2 sim: >out &&
	cat out &&
	min_avg_max_ok out
'

# ---- loop devices ----

if have_loop; then
	loop_setup LOOP 64M
fi
IMAGE=$TRASH/image


# within_announced: the changed chunks are inside the range in err.
within_announced() {
	set -- $(announced_range err) &&
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
}

test_loop 'loop: setup: fill the 64 MiB device with random data' '
	test -b "$LOOP" &&
	head -c $((64 * MIB)) /dev/urandom >"$IMAGE" &&
	copy_to_dev "$IMAGE" "$LOOP" &&
	chunk_sums_quick "$LOOP" $MIB >"$TRASH/image.sums"
'

test_loop 'loop: -A prints align lines and writes only its range' '
	run_checked -A -c 1 -e 1M -b 64K &&
	test_lines_match out "$ALIGN_RE" &&
	printf "%s\n" 2097152 1048576 524288 262144 131072 >expect &&
	cut -f1 out | sed "s/^align //" >aligns &&
	test_cmp expect aligns &&
	grep "^flashbench: write-align overwrites bytes " err &&
	test -s changed &&
	within_announced
'

test_loop 'loop: -f prints size and rates, writes only the first blocks' '
	run_checked -f -e 1M -b 256K --fat-nr=3 &&
	test_lines_match out "$(fat_re 3)" &&
	printf "1MiB\n512KiB\n256KiB\n" >expect &&
	cut -d" " -f1 out >sizes &&
	test_cmp expect sizes &&
	grep "^flashbench: find-fat overwrites bytes 0 to 3145727 " err &&
	printf "%s\n" 0 1 2 >expect &&
	test_cmp expect changed
'

test_loop 'loop: -s prints offsets and times, writes nothing' '
	run_checked -s --scatter-order=4 -b 1M -c 1 &&
	test ! -s err &&
	test_lines_match out "$SCATTER_RE" &&
	seq 0 15 >expect &&
	cut -f1 out >offsets &&
	test_cmp expect offsets &&
	test ! -s changed
'

test_loop 'loop: -s with the default order writes nothing' '
	run_checked -s -c 1 &&
	test "$(wc -l <out)" = 512 &&
	test_lines_match out "$SCATTER_RE" &&
	test ! -s changed
'

test_loop 'loop: -i prints its lines and writes nothing' '
	run_checked -i --interval-order=4 -c 2 &&
	test ! -s err &&
	interval_ok out 4 &&
	test ! -s changed
'

test_loop 'loop: -i min <= avg <= max on every line' '
	"$FLASHBENCH" -i --interval-order=6 -c 4 "$LOOP" >out &&
	cat out &&
	min_avg_max_ok out
'

test_loop 'loop: -a writes nothing' '
	run_checked -a -b 4K -c 2 &&
	test ! -s err &&
	test ! -s changed
'

test_done
