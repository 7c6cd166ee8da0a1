#!/bin/sh
# t3010: --capacity-check puts every byte back.  On an image file (any
# user) and, as root, on a loop device full of random data: after a
# completed check the whole device has its old checksum and the verdict
# is "genuine"; after a SIGINT in the middle of the run (its stdout a
# full FIFO, so it cannot finish on its own), exit 130 and the old
# checksum; after kill -9 in the middle, the device differs until
# --restore puts it back, while the same undo file is refused for
# another loop device of the same size; SIGTERM is SIGINT's 143; a
# mounted device is refused; and an undo file on the file
# system of the device under test is refused before the device is opened
# for writing (the refusal is the only line: no write announced).

. "$(dirname "$0")/lib.sh"

IMAGE=$TRASH/image
UNDO=$TRASH/dev.undo
MNT=$TRASH/mnt
FIFO=$TRASH/results.fifo
# A round writes its 20 MiB flush area and 256 probes to the device,
# their old contents to the undo file first: past this many bytes
# written the run is in its flush, or has ended its round.
IN_ROUND=$((30 * MIB))

if have_loop; then
	loop_setup LOOP 128M
	loop_setup OTHER 128M
	loop_setup MLOOP 64M
	mkdir -p "$MNT"
	test_at_exit "umount '$MNT'"
fi

# genuine FILE: the JSON run in FILE says genuine, every byte usable,
# and something was written and put back.
genuine() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["results"] if r["kind"] == "capacity"][0]
assert r["verdict"] == "genuine", r
assert r["usable_bytes"] == r["announced_bytes"] == d["device"]["size_bytes"], r
assert r["probe_bytes_written"] > 0 and r["bytes_restored"] > 0, r
' "$1"
}

exit_is() {
	test "$(cat code)" = "$1" ||
		{ echo "exit code $(cat code), want $1" >&2; return 1; }
}

test_expect_success python3 'file: a completed check leaves the image as it was, genuine' '
	head -c $((64 * MIB)) /dev/urandom >"$IMAGE" &&
	before=$(dev_sum "$IMAGE") &&
	"$FLASHBENCH" --capacity-check --format=json --undo-file="$UNDO" \
		"$IMAGE" >out.json 2>err &&
	cat err &&
	genuine out.json &&
	test "$(dev_sum "$IMAGE")" = "$before" &&
	test ! -e "$UNDO"
'

test_loop 'loop: setup: random data, and the checksum' '
	fill_random "$LOOP" &&
	dev_sum "$LOOP" >"$TRASH/loop.sum" &&
	fill_random "$OTHER" &&
	dev_sum "$OTHER" >"$TRASH/other.sum"
'

test_loop python3 'loop: a completed check leaves every byte as it was, genuine' '
	"$FLASHBENCH" --capacity-check --format=json --undo-file="$UNDO" \
		"$LOOP" >out.json 2>err &&
	cat err &&
	grep "overwrites bytes 0 to $((128 * MIB - 1)) " err &&
	genuine out.json &&
	test "$(dev_sum "$LOOP")" = "$(cat "$TRASH/loop.sum")" &&
	test ! -e "$UNDO"
'

test_loop_io 'loop: SIGINT in the middle: exit 130, every byte put back' '
	full_fifo &&
	FB_OUT=$FIFO fb_start --capacity-check --undo-file="$UNDO" "$LOOP" &&
	wait_written $IN_ROUND &&
	kill -INT $fb_pid &&
	poll_until "delivery of SIGINT" signal_taken 2 &&
	drain_fifo &&
	fb_wait &&
	exit_is 130 &&
	grep "interrupted; every block written was put back" err &&
	test "$(dev_sum "$LOOP")" = "$(cat "$TRASH/loop.sum")" &&
	test ! -e "$UNDO"
'

test_loop_io 'loop: SIGTERM in the middle: exit 143, every byte put back' '
	full_fifo &&
	FB_OUT=$FIFO fb_start --capacity-check --undo-file="$UNDO" "$LOOP" &&
	wait_written $IN_ROUND &&
	kill -TERM $fb_pid &&
	poll_until "delivery of SIGTERM" signal_taken 15 &&
	drain_fifo &&
	fb_wait &&
	exit_is 143 &&
	test "$(dev_sum "$LOOP")" = "$(cat "$TRASH/loop.sum")" &&
	test ! -e "$UNDO"
'

test_loop_io 'loop: kill -9 in the middle, then --restore: every byte back; another device refused' '
	killed_capacity_check $IN_ROUND "$UNDO" "$LOOP" &&
	test "$(dev_sum "$LOOP")" != "$(cat "$TRASH/loop.sum")" &&
	test_usage_error flashbench \
		"--restore: .*dev.undo: it was made for another device of the same size" \
		--restore="$UNDO" "$OTHER" &&
	test "$(dev_sum "$OTHER")" = "$(cat "$TRASH/other.sum")" &&
	test_usage_error flashbench \
		"--restore: .*dev.undo: it was made for a device of 134217728 bytes" \
		--restore="$UNDO" "$MLOOP" &&
	"$FLASHBENCH" --restore="$UNDO" "$LOOP" >out 2>err &&
	cat out err &&
	grep -E "^restored [0-9]+ bytes from [0-9]+ records; [0-9]+ blocks read back, 0 not as saved\$" out &&
	test "$(dev_sum "$LOOP")" = "$(cat "$TRASH/loop.sum")"
'

test_loop_ext4 'loop: an undo file on the device under test is refused, nothing written' '
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$MLOOP" &&
	mount "$MLOOP" "$MNT" &&
	test_usage_error flashbench \
		"--undo-file: the undo file $MNT/x.undo would be on $MLOOP itself; put it on another device" \
		--capacity-check --undo-file="$MNT/x.undo" "$MLOOP" &&
	test ! -e "$MNT/x.undo"
'

test_loop_ext4 'loop: a mounted device is refused in one line, nothing written' '
	refused_busy "$FLASHBENCH" --capacity-check \
		--undo-file="$TRASH/mounted.undo" "$MLOOP" &&
	test ! -e "$TRASH/mounted.undo"
'

test_done
