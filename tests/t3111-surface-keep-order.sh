#!/bin/sh
# t3111: --surface --keep-data never writes a block before its old
# contents are safe in the undo file.  The next chunk's save is written
# and fsync'd while the chunk before is tested, in a file beside the undo
# file that then takes its place; strace shows what reached the kernel:
# every write to the device (stamps, and the data put back) lies in a
# record of the file in place, whose fsync ended after the record and
# whose name there an fsync of the directory made last, both before the
# write began (tests/keeporder.py; it fails a run whose stamps come
# before the file is in place, or that leaves out either fsync).  No
# file in place is replaced (dropping the chunk it saved) before an
# fsync of the device has made the chunk put back last (a card's write
# cache could lose it in a power cut), nor, by --resume, before the
# chunk it put back is.  The device ends as it was, and no undo file is
# left.

. "$(dirname "$0")/lib.sh"

require python3

UNDO=$TRASH/keep.undo

test_loop 'a loop device of random data' 'random_loop 80M'
LOOP=$(cat "$TRASH/loopdev" 2>/dev/null)

# (LeakSanitizer cannot run under ptrace: the sanitizer pass checks
# leaks elsewhere)
test_traced test_loop '--keep-data: no block written before its save is fsync.d, renamed into place and its directory fsync.d; none dropped before the device is flushed' '
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -ttt -T -y -xx -s 64 -o trace \
		-e trace=openat,write,fsync,rename,renameat2,pwrite64,close \
		"$FLASHBENCH_REAL" --surface --keep-data -q \
		--undo-file="$UNDO" "$LOOP" >out 2>err &&
	cat err &&
	python3 "$TESTS_DIR/keeporder.py" trace "$LOOP" "$UNDO" &&
	test ! -e "$UNDO" && test ! -e "$UNDO.new" &&
	same_as_before "$LOOP"
'

# A run killed while it stamps its first chunk (its save and the
# second's written: 32 MiB, and 8 more), then gone on with: the chunk
# put back is flushed before the file that saved it is replaced.
test_traced test_loop_io '--resume: what it puts back flushed before its file is replaced, then the order above' '
	rm -f "$UNDO" "$UNDO.new" &&
	fb_start --surface --keep-data -q --undo-file="$UNDO" "$LOOP" &&
	wait_written $((40 * MIB)) &&
	kill -9 $fb_pid &&
	fb_wait &&
	test "$(cat code)" = 137 &&
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -ttt -T -y -xx -s 64 -o trace \
		-e trace=openat,write,fsync,rename,renameat2,pwrite64,close \
		"$FLASHBENCH_REAL" --surface --keep-data -q --resume="$UNDO" \
		"$LOOP" >out 2>err &&
	cat err &&
	grep -q "^flashbench: --resume: [1-9][0-9]* bytes put back" err &&
	python3 "$TESTS_DIR/keeporder.py" trace "$LOOP" "$UNDO" resumed &&
	test ! -e "$UNDO" && test ! -e "$UNDO.new" &&
	same_as_before "$LOOP"
'

test_done
