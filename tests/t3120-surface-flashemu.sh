#!/bin/sh
# t3120: a damaged card through the kernel: flashemu serves a simulated
# card that keeps its data, with two bad= ranges, attached to a loop
# device and filled with random data.  --surface maps exactly those
# ranges and says "damaged", exit 4, read-only and with --keep-data;
# --keep-data leaves every byte it could read as it was and removes its
# undo file.  As root with /dev/fuse and loop devices.

. "$(dirname "$0")/lib.sh"

require python3

CARD=$TRASH/emu
CARD_SPEC=sim:size=64M,fake=64M,bad=10M+64K,bad=40M+4K

# At the end, whatever a failed test left: detach, stop, unmount.
stop_card() {
	emu_stop emu
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

test_done
