#!/bin/sh
# t3110: --surface --keep-data on a loop device over random data.  A run
# says "readable-and-writable" (never genuine: a chunk at a time it is
# blind to a wraparound), leaves every byte as it was and removes its
# undo file.  Killed with
# SIGKILL at several moments (after 8, 24, 60, 80 and 110 MiB moved by
# write calls: saving the first chunk, stamping it while the second is
# saved, putting it back, in the second chunk, putting that back), it
# leaves an undo file no larger than the bound it announced, and
# --restore then leaves the device identical and removes the file and
# the one staged beside it (FILE.new).  --resume of a run killed in its
# second chunk puts the chunk in flight back, finishes the range (its
# JSON says where it went on) and leaves the device identical.  SIGINT
# stops a run
# cleanly: exit 130, a partial result marked incomplete with no verdict
# (text and JSON), every byte back, no undo file.  An undo file system
# that fills up stops the run: exit 1, one line saying so, no verdict,
# every byte back and no partial undo file left.  (A chunk is 16 MiB:
# its save, its stamps and its data back are 48 MiB of write calls; each
# chunk's save goes to a file of its own, written while the chunk before
# is tested, so the first chunk is done after 64 MiB and the second
# after 112.)

. "$(dirname "$0")/lib.sh"

require python3

SIZE=128M
UNDO=$TRASH/keep.undo

test_loop 'a loop device of random data' 'random_loop $SIZE'
LOOP=$(cat "$TRASH/loopdev" 2>/dev/null)

# same: the device holds what it held at the start
same() {
	same_as_before "$LOOP"
}

# bound: the undo file's bound, as the run announced it in err
bound() {
	sed -n "s/.* first (at most \([0-9]*\) bytes).*/\1/p" err
}

test_loop '--keep-data: readable-and-writable (not genuine), every byte back, no undo file' '
	"$FLASHBENCH" --surface --keep-data -q --format=json \
		--undo-file="$UNDO" "$LOOP" >out.json 2>err &&
	cat err &&
	test ! -e "$UNDO" &&
	same &&
	python3 - out.json <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[s] = [r for r in doc["results"] if r["kind"] == "surface"]
	assert s["verdict"] == "readable-and-writable", s
	assert s["mode"] == "keep-data" and s["stopped"] is None, s
	assert s["bytes_checked"] == 128 << 20, s
	assert s["bytes_written"] == 2 * (128 << 20), s
	assert s["bytes_restored"] == 128 << 20, s
	assert s["partial"] is False and doc["incomplete"] is False, s
	PY
'

# killed AFTER: a --keep-data run killed with SIGKILL once its write
# calls moved AFTER bytes; its undo file is left, within the bound.
killed() {
	rm -f "$UNDO" "$UNDO.new" &&
	fb_start --surface --keep-data -q --undo-file="$UNDO" "$LOOP" &&
	wait_written "$1" &&
	kill -9 $fb_pid &&
	fb_wait &&
	test "$(cat code)" = 137 &&
	test -s "$UNDO" &&
	size=$(stat -c %s "$UNDO") &&
	echo "undo file $size bytes, bound $(bound)" &&
	test "$size" -le "$(bound)"
}

for mib in 8 24 60 80 110; do
	test_loop_io "killed after $mib MiB written, --restore leaves the device identical" "
		killed $((mib * MIB)) &&
		\"\$FLASHBENCH\" --restore=\"\$UNDO\" \"\$LOOP\" >restore.out 2>restore.err &&
		cat restore.out restore.err &&
		grep -q \"^restored [0-9]* bytes from [0-9]* records\" restore.out &&
		test ! -e \"\$UNDO\" && test ! -e \"\$UNDO.new\" &&
		same
	"
done

test_loop_io '--resume finishes a killed run: every byte back, the range done' '
	killed $((130 * MIB)) &&
	"$FLASHBENCH" --surface --keep-data --resume="$UNDO" -q \
		--format=json "$LOOP" >out.json 2>err &&
	cat err &&
	grep -q "^flashbench: --resume: [0-9]* bytes put back; going on at" err &&
	test ! -e "$UNDO" &&
	same &&
	python3 - out.json <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[s] = [r for r in doc["results"] if r["kind"] == "surface"]
	assert s["verdict"] == "readable-and-writable", s
	assert 0 < s["resumed_from_bytes"] < 128 << 20, s
	assert s["checked_end_bytes"] == 128 << 20, s
	assert s["bytes_checked"] == (128 << 20) - s["resumed_from_bytes"], s
	w = [r for r in doc["results"] if r["kind"] == "surface-window"]
	assert w[0]["offset_bytes"] == s["resumed_from_bytes"], (w[0], s)
	PY
'

# interrupted [OPTIONS]: a --keep-data run, SIGINT once the first chunk
# is done (its 48 MiB of write calls and the second's save, and more: in
# the second); exit 130, every byte back, no undo file.
interrupted() {
	rm -f "$UNDO" &&
	fb_start --surface --keep-data -q "$@" --undo-file="$UNDO" "$LOOP" &&
	wait_catching &&
	wait_written $((80 * MIB)) &&
	kill -INT $fb_pid &&
	fb_wait &&
	test "$(cat code)" = 130 &&
	grep -q "interrupted; every chunk is back as it was" err &&
	test ! -e "$UNDO" && test ! -e "$UNDO.new" &&
	same
}

test_loop_io 'SIGINT: exit 130, a partial result with no verdict, every byte back, no undo file' '
	interrupted --format=json &&
	python3 - out <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[s] = [r for r in doc["results"] if r["kind"] == "surface"]
	assert doc["incomplete"] is True and s["partial"] is True, s
	assert s["verdict"] is None and s["stopped"] == "interrupted", s
	assert 16 << 20 <= s["checked_end_bytes"] < 128 << 20, s
	PY
'

test_loop_io 'SIGINT after the first chunk, text: "verdict: incomplete (interrupted)"' '
	interrupted &&
	cat out &&
	grep "^verdict: " out >verdict &&
	grep -Eq "^verdict: incomplete \(interrupted\) \(keep-data\); checked [0-9]+ bytes,.*; no verdict: interrupted; blocks from [0-9]+ on were not checked$" verdict &&
	! grep -Eq "genuine|readable" verdict
'

# A file system of 20 MiB holds the first chunk (16 MiB and headers) but
# not the second.
FULL=$TRASH/full
test_at_exit "umount '$FULL' 2>/dev/null"

test_loop_io 'a full undo file system: exit 1, one line, no verdict, every byte back, no undo file' '
	mkdir -p "$FULL" &&
	{ mountpoint -q "$FULL" || mount -t tmpfs -o size=20m tmpfs "$FULL"; } &&
	fb_start --surface --keep-data -q --format=json \
		--undo-file="$FULL/keep.undo" "$LOOP" &&
	fb_wait &&
	test "$(cat code)" = 1 &&
	grep -x "flashbench: --surface: $LOOP: the undo file $FULL/keep.undo: write: No space left on device; every chunk it wrote is back as it was" err &&
	test "$(grep -vc "overwrites bytes\|--keep-data writes" err)" = 1 &&
	test -z "$(ls -A "$FULL")" &&
	same &&
	python3 - out <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[s] = [r for r in doc["results"] if r["kind"] == "surface"]
	assert s["verdict"] is None and s["stopped"] == "undo-file-failed", s
	assert s["checked_end_bytes"] == 16 << 20, s
	PY
'

test_done
