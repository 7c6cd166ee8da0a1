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

FLASHEMU=${FLASHEMU:-$(dirname "$FLASHBENCH")/flashemu}
[ -x "$FLASHEMU" ] || FLASHEMU=$TOP/flashemu
CARD=$TRASH/emu
FAKE=sim:size=1G,fake=256M,fake-mode=wrap

if [ ! -c /dev/fuse ]; then
	if [ "${FLASHBENCH_REQUIRE_LOOP:-0}" = 1 ] && [ "$(id -u)" = 0 ]; then
		echo "not ok 1 - ${0##*/}: /dev/fuse required but unavailable"
		exit 1
	fi
	test_skip "${0##*/}: every test" "needs /dev/fuse"
	test_done
	exit
fi

# serving: flashemu has said it is ready and has not ended.
serving() {
	grep -q "^ready " "$CARD.out" 2>/dev/null && [ ! -s "$CARD.rc" ]
}

# At the end, whatever a failed test left: detach, stop, unmount.
stop_emu() {
	losetup -j "$CARD/card" 2>/dev/null | cut -d: -f1 |
	while read -r se_dev; do losetup -d "$se_dev"; done
	[ -s "$CARD.pid" ] && [ ! -s "$CARD.rc" ] &&
		kill -TERM "$(cat "$CARD.pid")"
	fb_pid=
	poll_until "flashemu exit" test -s "$CARD.rc" ||
		umount -l "$CARD"
}
test_at_exit stop_emu

test_loop 'flashemu serves the fake card' '
	mkdir -p "$CARD" &&
	(
		timeout -k 5 300 sh -c "echo \$\$ >\"\$0.pid\" && exec \"\$@\"" \
			"$CARD" "$FLASHEMU" --time-scale=1000 "$FAKE" "$CARD" \
			>"$CARD.out" 2>"$CARD.err" </dev/null
		echo $? >"$CARD.rc"
	) &
	poll_until "the ready line" serving &&
	test "$(stat -c %s "$CARD/card")" = $((1024 * MIB))
'

test_loop python3 'a wraparound fake at a power of two: fake, exit 3, no warning, every byte back' '
	dev=$(losetup -f --show --direct-io=on "$CARD/card") &&
	echo "$dev" >>"$TRASH/.loops" &&
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
	losetup -d "$dev"
'

test_loop 'SIGTERM stops flashemu: exit 0, nothing mounted' '
	stop_emu &&
	test "$(cat "$CARD.rc")" = 0 &&
	! grep -q " $CARD " /proc/self/mounts
'

test_done
