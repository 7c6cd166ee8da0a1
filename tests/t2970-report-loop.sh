#!/bin/sh
# t2970: --report --write on a loop device full of random data leaves
# every byte as it was; killed (kill -9) inside a writing part, the undo
# file it names puts every byte back with --restore.

. "$(dirname "$0")/lib.sh"

UNDO=$TRASH/report.undo
ARGS="--write -e 1M --budget=1 --time=0.2 --span=32M --undo-file=$UNDO"

if have_loop; then
	loop_setup LOOP 320M
fi

test_loop '--report --write leaves every byte as before' '
	fill_random "$LOOP" &&
	before=$(dev_sum "$LOOP") &&
	"$FLASHBENCH" --report $ARGS "$LOOP" >out 2>err &&
	grep -q "saves what it overwrites to $UNDO" err &&
	grep -q "^  open erase blocks " out &&
	test ! -e "$UNDO" &&
	test "$(dev_sum "$LOOP")" = "$before"
'

# killed_in PART BYTES: kill -9 once PART has run and BYTES are written
killed_in() {
	fill_random "$LOOP" &&
	before=$(dev_sum "$LOOP") &&
	fb_start --report $ARGS "$LOOP" &&
	poll_until "part $1" grep -q "overwrites bytes.*$LOOP" err &&
	poll_until "$1 announced" grep -q "part [0-9] of [0-9], $1:" err &&
	wait_written "$2" &&
	kill -9 "$fb_pid" && fb_wait &&
	test -e "$UNDO" &&
	"$FLASHBENCH" --restore="$UNDO" "$LOOP" >/dev/null 2>err.restore &&
	test "$(dev_sum "$LOOP")" = "$before"
}

test_loop_io 'kill -9 in detect --write, then --restore: every byte back' '
	killed_in detect-write $((170 * MIB))
'

test_loop_io 'kill -9 in write-speed, then --restore: every byte back' '
	killed_in write-speed $((260 * MIB))
'

test_done
