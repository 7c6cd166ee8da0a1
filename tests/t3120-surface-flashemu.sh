#!/bin/sh
# t3120: a damaged card through the kernel: flashemu serves a simulated
# card that keeps its data, with two bad= ranges, attached to a loop
# device and filled with random data.  --surface maps exactly those
# ranges and says "damaged", exit 4, read-only and with --keep-data;
# --keep-data leaves every byte it could read as it was and removes its
# undo file.  On a wraparound fake through the kernel --keep-data,
# blind past its chunk, says "readable-and-writable" (exit 0), never
# genuine.  A card pulled mid-run (flashemu stopped at once) is "the
# device stopped answering", never a fake: exit 1, no verdict, the undo
# file kept and its --restore command printed, which, once the card is
# back, puts every byte back.  As root with /dev/fuse and loop devices.

. "$(dirname "$0")/lib.sh"

require python3

CARD=$TRASH/emu
CARD_SPEC=sim:size=64M,fake=64M,bad=10M+64K,bad=40M+4K

# At the end, whatever a failed test left: detach, stop, unmount.
stop_card() {
	emu_stop emu
	emu_stop wrap
	emu_stop pulled
}
test_at_exit stop_card

test_emu 'flashemu serves the damaged card' '
	emu_start emu --time-scale=1000 "$CARD_SPEC" &&
	test "$(stat -c %s "$CARD/card")" = $((64 * MIB))
'

# ranges.py FILE VERDICT OFFSET+LENGTH...: the run's verdict and its
# bad ranges, in order, exactly these.
cat >"$TRASH/ranges.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
[s] = [r for r in doc["results"] if r["kind"] == "surface"]
assert s["verdict"] == sys.argv[2], s
got = ["%d+%d" % (r["offset_bytes"], r["length_bytes"])
       for r in doc["results"] if r["kind"] == "surface-bad"]
assert got == sys.argv[3:], (got, sys.argv[3:])
print(s["verdict"], " ".join(got))
PY

# sums DEV: a checksum per MiB, "unreadable" for a MiB with a bad block
sums() {
	for mib in $(seq 0 63); do
		if dd if="$1" of=mib bs=1M skip=$mib count=1 iflag=direct \
			status=none 2>/dev/null; then
			cksum <mib
		else
			echo unreadable
		fi
	done
}

BAD1=$((10 * MIB))+65536
BAD2=$((40 * MIB))+4096

test_emu 'a loop device over the card, random data where it can be written' '
	dev=$(emu_attach emu) &&
	echo "$dev" >"$TRASH/dev" &&
	for mib in $(seq 0 63); do
		dd if=/dev/urandom of="$dev" bs=1M seek=$mib count=1 \
			oflag=direct status=none 2>/dev/null || :
	done &&
	sums "$dev" >"$TRASH/before" &&
	test "$(grep -c unreadable "$TRASH/before")" = 2
'
DEV=$(cat "$TRASH/dev" 2>/dev/null)

test_emu 'read-only: the two bad ranges, damaged, exit 4' '
	{
		"$FLASHBENCH" --surface -q --format=json "$DEV" >out.json 2>err
		echo $? >code
	} &&
	cat err &&
	test "$(cat code)" = 4 &&
	python3 "$TRASH/ranges.py" out.json damaged $BAD1 $BAD2
'

test_emu '--keep-data: the same ranges, exit 4, what could be read is as it was' '
	{
		"$FLASHBENCH" --surface --keep-data -q --format=json \
			--undo-file="$TRASH/emu.undo" "$DEV" >out.json 2>err
		echo $? >code
	} &&
	cat err &&
	test "$(cat code)" = 4 &&
	test ! -e "$TRASH/emu.undo" &&
	python3 "$TRASH/ranges.py" out.json damaged $BAD1 $BAD2 &&
	sums "$DEV" >now &&
	test_cmp "$TRASH/before" now
'

test_emu 'SIGTERM stops flashemu: exit 0, nothing mounted or attached' '
	emu_detach "$DEV" &&
	kill -TERM "$(cat "$CARD.pid")" &&
	emu_gone emu
'

test_emu '--keep-data on a wraparound fake through the kernel: readable-and-writable, exit 0, never genuine' '
	emu_start wrap --time-scale=1000 sim:size=128M,fake=32M,fake-mode=wrap &&
	dev=$(emu_attach wrap) &&
	fb_start --surface --keep-data -q --undo-file="$TRASH/wrap.undo" \
		"$dev" &&
	fb_wait &&
	cat out &&
	test "$(cat code)" = 0 &&
	grep -q "^verdict: readable-and-writable (keep-data); checked 134217728 bytes" out &&
	! grep -q genuine out &&
	test ! -e "$TRASH/wrap.undo" &&
	emu_detach "$dev" &&
	kill -TERM "$(cat "$TRASH/wrap.pid")" &&
	emu_gone wrap
'

# The pulled card keeps its data in a store file, filled with random
# data first, so that once it is served again --restore can be checked
# against it.  At the model's own pace (time scale 1) the run is far
# from its end when its write calls reach 24 MiB (the first chunk saved,
# half of it stamped); flashemu, signalled twice, stops at once: every
# access fails from then on.
STORE=$TRASH/pulled.store
PULLED=sim:size=64M

# pull: flashemu stopped at once, as a card pulled from its reader
pull() {
	pl_pid=$(cat "$TRASH/pulled.pid") &&
	kill -TERM "$pl_pid" &&
	poll_until "flashemu draining" grep -q "serving until" \
		"$TRASH/pulled.err" &&
	kill -TERM "$pl_pid"
}

test_emu 'a card pulled during --keep-data: the device stopped answering, no verdict; the --restore printed puts every byte back' '
	head -c $((64 * MIB)) /dev/urandom >"$STORE" &&
	cksum <"$STORE" >"$TRASH/pulled.before" &&
	emu_start pulled --store="$STORE" "$PULLED" &&
	dev=$(emu_attach pulled) &&
	fb_start --surface --keep-data -q --format=json \
		--undo-file="$TRASH/pulled.undo" "$dev" &&
	wait_written $((24 * MIB)) &&
	pull &&
	fb_wait &&
	test "$(cat code)" = 1 &&
	grep -v "overwrites bytes\|--keep-data writes" err >failure &&
	test "$(wc -l <failure)" = 1 &&
	grep -Eq "^flashbench: --surface: $dev: the device stopped answering at [0-9]+ \(.*\); the undo file $TRASH/pulled.undo is kept: flashbench --restore=$TRASH/pulled.undo $dev\$" failure &&
	! grep -q fake failure &&
	test -s "$TRASH/pulled.undo" &&
	python3 - out <<-\PY &&
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[s] = [r for r in doc["results"] if r["kind"] == "surface"]
	assert s["verdict"] is None and s["fake_kind"] is None, s
	assert s["stopped"] == "device-stopped-answering", s
	assert s["bad_blocks"] == 0 and s["partial"] is True, s
	assert s["certainty"].startswith("no verdict: the device stopped"), s
	PY
	: the card back, the command puts every byte back &&
	emu_detach "$dev" &&
	poll_until "flashemu exit" emu_ended pulled &&
	emu_start pulled --time-scale=1000 --store="$STORE" "$PULLED" &&
	dev=$(emu_attach pulled) &&
	"$FLASHBENCH" --restore="$TRASH/pulled.undo" "$dev" >restore.out \
		2>restore.err &&
	cat restore.out restore.err &&
	test ! -e "$TRASH/pulled.undo" &&
	dev_sum "$dev" >now &&
	test_cmp "$TRASH/pulled.before" now &&
	emu_detach "$dev" &&
	kill -TERM "$(cat "$TRASH/pulled.pid")" &&
	emu_gone pulled
'

test_done
