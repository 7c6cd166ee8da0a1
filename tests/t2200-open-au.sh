#!/bin/sh
# t2200: the open-AU test (-O).  One line per block size, from the erase
# size halving down to the block size: the size left-aligned in 7
# characters, a space, then a rate.  It announces on stderr the range it
# overwrites, writes only there (N erase blocks, 12 erase blocks apart,
# from 16 MiB), never wraps past the end of the device, and refuses runs
# that do not fit before writing anything.

. "$(dirname "$0")/lib.sh"

LINE_RE="^${SIZE_RE} +${RATE_RE}\$"

# columns_ok FILE: every line is a size left-aligned in 7 characters, a
# space, and a rate.
columns_ok() {
	test_lines_match "$1" "$LINE_RE" &&
	awk '{ size = substr($0, 1, 7); sub(/ +$/, "", size)
		if (size != $1 || substr($0, 8, 1) != " " ||
		    substr($0, 9) != $2) { print "bad columns: " $0; bad = 1 }
	} END { exit bad }' "$1" >&2
}

# rate_of FILE SIZE: the rate on the line for SIZE, in bytes per second.
rate_of() {
	rate_bps "$(awk -v s="$2" '$1 == s { print $2 }' "$1")"
}

test_expect_success 'sim: -O prints 4MiB to 512KiB with rates' '
	"$FLASHBENCH" -O --erasesize=4M --blocksize=512K --open-au-nr=2 \
		sim: >out 2>err &&
	columns_ok out &&
	printf "4MiB\n2MiB\n1MiB\n512KiB\n" >expect &&
	cut -d" " -f1 out >sizes &&
	test_cmp expect sizes
'

test_expect_success 'sim: -O announces [16 MiB, 68 MiB) for 2 AUs of 4 MiB' '
	"$FLASHBENCH" -O -e 4M -b 512K -0 2 sim: >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep "^flashbench: open-au overwrites bytes " err &&
	test "$(announced_range err)" = "16777216 71303168"
'

test_expect_success 'sim: -O with more AUs than the card keeps open is slower' '
	"$FLASHBENCH" -O -e 4M -b 512K -0 2 sim: >two 2>/dev/null &&
	"$FLASHBENCH" -O -e 4M -b 512K -0 8 sim: >eight 2>/dev/null &&
	columns_ok eight &&
	fast=$(rate_of two 512KiB) && slow=$(rate_of eight 512KiB) &&
	echo "2 AUs $fast B/s, 8 AUs $slow B/s" &&
	awk -v f="$fast" -v s="$slow" "BEGIN { exit !(s * 2 < f) }"
'

test_expect_success 'sim: -O --random prints the same sizes' '
	"$FLASHBENCH" -O --random -e 4M -b 512K sim: >out 2>err &&
	columns_ok out &&
	test "$(wc -l <out)" = 4 &&
	grep "^flashbench: open-au-random overwrites bytes 16777216 to 71303167 " err
'

test_expect_success 'sim: -O places 20 AUs closer on a small card, within it' '
	"$FLASHBENCH" -O -0 20 -e 4M -b 1M sim:size=256M >out 2>err &&
	cat err &&
	columns_ok out &&
	grep "apart" err &&
	set -- $(announced_range err) &&
	test "$1" -ge $((16 * MIB)) &&
	test "$2" -le $((256 * MIB))
'

test_expect_success 'sim: -O --offset moves the announced range' '
	"$FLASHBENCH" -O --offset=32M -e 4M -b 1M sim: >out 2>err &&
	test "$(announced_range err)" = "33554432 88080384"
'

# ---- loop devices ----

if have_loop; then
	loop_setup LOOP 256M
fi
IMAGE=$TRASH/image



test_loop 'loop: setup: fill the 256 MiB device with random data' '
	test -b "$LOOP" &&
	test "$(blockdev --getsize64 "$LOOP")" = $((256 * MIB)) &&
	head -c $((64 * MIB)) /dev/urandom >random64 &&
	cat random64 random64 random64 random64 >"$IMAGE" &&
	copy_to_dev "$IMAGE" "$LOOP" &&
	chunk_sums_quick "$LOOP" $MIB >"$TRASH/image.sums" &&
	test "$(wc -l <"$TRASH/image.sums")" = 256
'

test_loop 'loop: -O -e 4M -b 512K -0 2 prints 4 size/rate lines' '
	run_checked -O --erasesize=4M --blocksize=512K --open-au-nr=2 &&
	cp out "$TRASH/o2.out" && cp err "$TRASH/o2.err" &&
	cp changed "$TRASH/o2.changed" &&
	columns_ok out &&
	printf "4MiB\n2MiB\n1MiB\n512KiB\n" >expect &&
	cut -d" " -f1 out >sizes &&
	test_cmp expect sizes
'

# the next three look at the run above
test_loop 'loop: -O -0 2 announces the range it overwrites' '
	cp "$TRASH/o2.err" err &&
	test "$(wc -l <err)" = 1 &&
	grep "^flashbench: open-au overwrites bytes 16777216 to 71303167 " err
'

test_loop 'loop: -O -0 2 changes nothing outside [16 MiB, 16 MiB + 2 x 12 x 4 MiB)' '
	cp "$TRASH/o2.err" err && cp "$TRASH/o2.changed" changed &&
	test -s changed &&
	chunks_within changed 16 $((16 + 2 * 12 * 4)) &&
	set -- $(announced_range err) &&
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
'

test_loop 'loop: -O -0 2 writes the 2 AUs 12 erase blocks apart' '
	printf "%s\n" 16 17 18 19 64 65 66 67 >expect &&
	test_cmp expect "$TRASH/o2.changed"
'

test_loop 'loop: -O -0 20 places AUs closer and says so' '
	run_checked -O --open-au-nr=20 --erasesize=4M -b 1M &&
	cp err "$TRASH/o20.err" && cp changed "$TRASH/o20.changed" &&
	columns_ok out &&
	grep "^flashbench: 20 erase blocks .*apart" err &&
	set -- $(announced_range err) &&
	test "$2" -le $((256 * MIB))
'

test_loop 'loop: -O -0 20 writes only inside its announced range, no wrap' '
	cp "$TRASH/o20.err" err && cp "$TRASH/o20.changed" changed &&
	test -s changed &&
	set -- $(announced_range err) &&
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB)) &&
	chunks_within changed 16 256
'

test_loop 'loop: -O -0 100 is refused with exit 2 and writes nothing' '
	restore &&
	test_expect_code 2 "$FLASHBENCH" -O -e 4M -b 512K -0 100 "$LOOP" \
		>out 2>err &&
	cat err &&
	test ! -s out &&
	grep "^flashbench: --open-au: .*do not fit" err &&
	test "$(dev_sum "$LOOP")" = "$(dev_sum "$IMAGE")"
'

test_loop 'loop: -O --random writes only inside its announced range' '
	run_checked -O --random -e 4M -b 512K -0 2 &&
	columns_ok out &&
	test "$(wc -l <out)" = 4 &&
	grep "^flashbench: open-au-random overwrites bytes 16777216 to " err &&
	test -s changed &&
	set -- $(announced_range err) &&
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
'

test_loop 'loop: -O --offset=100M writes from 100 MiB on' '
	run_checked -O --offset=100M -e 4M -b 1M -0 2 &&
	printf "%s\n" 100 101 102 103 148 149 150 151 >expect &&
	test_cmp expect changed
'

test_done
