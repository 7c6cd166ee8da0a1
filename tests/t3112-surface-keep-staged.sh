#!/bin/sh
# t3112: the file --surface --keep-data stages each chunk's save in,
# beside its undo file (FILE.new), never takes the place of a file of
# the user's own.  What a killed run left there (an undo file's header,
# or nothing yet) is removed and the run goes on; anything else there -
# a file of other data, a symbolic link, a file another user owns -
# ends the run before it writes a byte (exit 2, one line naming it), and
# stays as it was.  --resume refuses the same, and --restore puts every
# byte back and leaves such a file alone.

. "$(dirname "$0")/lib.sh"

UNDO=$TRASH/keep.undo

test_loop 'a loop device of random data' 'random_loop 64M'
LOOP=$(cat "$TRASH/loopdev" 2>/dev/null)

# refused WHY: the run with $UNDO.new as it is: exit 2, one line naming
# it with WHY (and the hint), nothing written, no undo file
refused() {
	rm -f "$UNDO" &&
	test_expect_code 2 "$FLASHBENCH" --surface --keep-data -q \
		--undo-file="$UNDO" "$LOOP" >out 2>err &&
	cat err &&
	test "$(grep -c "^flashbench: " err)" = 1 &&
	grep -x "flashbench: --undo-file: $UNDO.new $1; --keep-data saves each chunk there first: move it away or choose another undo file" err &&
	test ! -e "$UNDO" &&
	same_as_before "$LOOP"
}

test_loop 'a file of other data at FILE.new: refused, kept as it was' '
	echo "my notes" >"$UNDO.new" &&
	refused "is not an undo file (it holds other data)" &&
	test "$(cat "$UNDO.new")" = "my notes"
'

test_loop 'a symbolic link at FILE.new: refused, its target untouched' '
	rm -f "$UNDO.new" &&
	echo "precious" >target &&
	ln -s "$PWD/target" "$UNDO.new" &&
	refused "is a symbolic link, not a staged undo file" &&
	test -h "$UNDO.new" && test "$(cat target)" = precious
'

test_loop 'another user'"'"'s undo file at FILE.new: refused, kept' '
	rm -f "$UNDO.new" &&
	printf "FBUNDO02" >"$UNDO.new" &&
	chown 65534 "$UNDO.new" &&
	refused "is owned by uid 65534, not by you (uid 0); someone else could have written it" &&
	test "$(stat -c %u "$UNDO.new")" = 65534
'

test_loop 'what a killed run staged at FILE.new (a header, or nothing): removed, the run ends as one run alone' '
	for left in "FBUNDO02 and what followed" ""; do
		rm -f "$UNDO" "$UNDO.new" &&
		printf "%s" "$left" >"$UNDO.new" &&
		"$FLASHBENCH" --surface --keep-data -q --undo-file="$UNDO" \
			"$LOOP" >out 2>err &&
		cat err &&
		grep -q "^verdict: readable-and-writable" out &&
		test ! -e "$UNDO" && test ! -e "$UNDO.new" &&
		same_as_before "$LOOP" || return 1
	done
'

test_loop_io 'a run killed in its second chunk, a file of other data at FILE.new: --resume refuses, --restore puts every byte back and leaves it' '
	rm -f "$UNDO" "$UNDO.new" &&
	fb_start --surface --keep-data -q --undo-file="$UNDO" "$LOOP" &&
	wait_written $((72 << 20)) &&
	kill -9 $fb_pid &&
	fb_wait &&
	test "$(cat code)" = 137 &&
	test -s "$UNDO" &&
	rm -f "$UNDO.new" && echo "my notes" >"$UNDO.new" &&
	test_expect_code 2 "$FLASHBENCH" --surface --keep-data -q \
		--resume="$UNDO" "$LOOP" >out 2>err &&
	cat err &&
	grep -x "flashbench: --resume: $UNDO.new is not an undo file (it holds other data); --keep-data saves each chunk there first: move it away or choose another undo file" err &&
	test -s "$UNDO" &&
	"$FLASHBENCH" --restore="$UNDO" "$LOOP" >out 2>err &&
	cat out err &&
	test ! -e "$UNDO" &&
	test "$(cat "$UNDO.new")" = "my notes" &&
	same_as_before "$LOOP"
'

test_done
