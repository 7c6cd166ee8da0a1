#!/bin/sh
# t9010: --capacity-check through the kernel on the most common
# counterfeit: flashemu serves a wraparound fake whose real capacity is a
# power of two (256 MiB of an announced 1 GiB: the device's last block
# aliases the block below the real end), attached to a loop device and
# filled with random data.  The check ends with the fake verdict, exit 3
# and nothing on stderr but its announcement, removes its undo file,
# and every byte of the real capacity has its old checksum.  As root
# with /dev/fuse and loop devices.

. "$(dirname "$0")/lib.sh"

CARD=$TRASH/emu
FAKE=sim:size=1G,fake=256M,fake-mode=wrap

# At the end, whatever a failed test left: detach, stop, unmount.
stop_card() {
	emu_stop emu
}
test_at_exit stop_card

test_emu 'flashemu serves the fake card' '
	emu_start emu --time-scale=1000 "$FAKE" &&
	test "$(stat -c %s "$CARD/card")" = $((1024 * MIB))
'

test_emu python3 'a wraparound fake at a power of two: fake, exit 3, no warning, every byte back' '
	dev=$(emu_attach emu) &&
	dd if=/dev/urandom of="$dev" bs=1M count=256 oflag=direct \
		status=none &&
	dd if="$dev" bs=1M count=256 iflag=direct status=none |
		cksum >before &&
	{
		"$FLASHBENCH" --capacity-check --cache-limit=4M \
			--undo-file="$TRASH/fake.undo" --format=json "$dev" \
			>fake.json 2>err
		echo "exit $?" >code
	} &&
	cat code err &&
	test "$(cat code)" = "exit 3" &&
	test "$(wc -l <err)" = 2 &&
	test ! -e "$TRASH/fake.undo" &&
	python3 - fake.json <<-\PY &&
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[r] = [r for r in doc["results"] if r["kind"] == "capacity"]
	assert r["verdict"] == "fake" and r["fake_kind"] == "wraparound", r
	assert r["usable_bytes"] == 256 * 1024 * 1024, r
	PY
	dd if="$dev" bs=1M count=256 iflag=direct status=none |
		cksum >after &&
	test_cmp before after &&
	emu_detach "$dev"
'

test_emu 'SIGTERM stops flashemu: exit 0, nothing mounted or attached' '
	kill -TERM "$(cat "$CARD.pid")" &&
	emu_gone emu
'

test_done
