#!/bin/sh
# t9030: a counterfeit card (fake=) served by flashemu keeps its data where
# a genuine card's goes: in the memory store, bounded by --mem-cap, or in
# the --store file.  A 4 GiB fake under --mem-cap=64M takes 64 MiB of
# writes, then fails them with ENOSPC, said once, and flashemu's memory
# stays near the cap (its statistics' store_bytes is the cap; its VmRSS
# below the cap plus 48 MiB).  A wraparound fake with --store writes an
# aliased block at the physical offset it maps to, and after a restart on
# the same store reads back what was written, at both offsets.  As root
# with /dev/fuse and loop devices.

. "$(dirname "$0")/lib.sh"

# beside the flashbench under test (the sanitized build's, say), else the
# tree's
FLASHEMU=${FLASHEMU:-$(dirname "$FLASHBENCH")/flashemu}
[ -x "$FLASHEMU" ] || FLASHEMU=$TOP/flashemu

# At the end, whatever a failed test left: detach, stop, unmount.
stop_cards() {
	emu_stop fcap
	emu_stop fstore
}
test_at_exit stop_cards

# rss_kib NAME: the resident memory of flashemu NAME, in KiB.
rss_kib() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' \
		"/proc/$(cat "$TRASH/$1.pid")/status"
}

# store_bytes NAME: the store_bytes figure flashemu NAME printed last.
store_bytes() {
	grep -o "store_bytes [0-9]*" "$TRASH/$1.err" | tail -n 1 |
		cut -d" " -f2
}

# 2048 writes of 64 KiB: the first 1024 fill the cap, chunk by chunk.
test_emu 'cap: a 4 GiB fake takes 64 MiB under --mem-cap=64M, then ENOSPC, said once' '
	emu_start fcap --time-scale=1000 --mem-cap=64M sim:size=4G,fake=4G &&
	test_expect_code 1 dd if=/dev/zero of="$TRASH/fcap/card" bs=64K \
		count=2048 oflag=direct conv=notrunc 2>err &&
	cat err &&
	grep -q "No space left on device" err &&
	grep -qx "1024+0 records out" err &&
	rss=$(rss_kib fcap) && echo "VmRSS $rss KiB" &&
	if [ -z "$FLASHBENCH_UNDER_SANITIZER" ]; then
		# the sanitizers keep shadow memory and freed blocks besides
		test "$rss" -lt $(((64 + 48) * 1024))
	fi &&
	kill -USR1 "$(cat "$TRASH/fcap.pid")" &&
	poll_until "statistics" grep -q "store_bytes" "$TRASH/fcap.err" &&
	test "$(store_bytes fcap)" = $((64 * MIB)) &&
	kill -TERM "$(cat "$TRASH/fcap.pid")" && emu_gone fcap &&
	cat "$TRASH/fcap.err" &&
	test "$(grep -c "memory store is full" "$TRASH/fcap.err")" = 1
'

# 256 MiB announced, 64 MiB real: a write at 100 MiB lands at 36 MiB.
FAKE=sim:size=256M,fake=64M,fake-mode=wrap

test_emu 'store: a wraparound fake keeps its data across a restart, at the offset it maps to' '
	head -c $MIB /dev/urandom >pattern &&
	emu_start fstore --time-scale=1000 --store="$TRASH/fake.img" "$FAKE" &&
	dev=$(emu_attach fstore) &&
	dd if=pattern of="$dev" bs=1M seek=100 oflag=direct status=none &&
	emu_detach "$dev" &&
	kill -TERM "$(cat "$TRASH/fstore.pid")" && emu_gone fstore &&
	dd if="$TRASH/fake.img" bs=1M skip=36 count=1 status=none |
		cmp pattern - &&
	emu_start fstore --time-scale=1000 --store="$TRASH/fake.img" "$FAKE" &&
	dev=$(emu_attach fstore) &&
	dd if="$dev" bs=1M skip=100 count=1 iflag=direct status=none |
		cmp pattern - &&
	dd if="$dev" bs=1M skip=36 count=1 iflag=direct status=none |
		cmp pattern - &&
	emu_detach "$dev" &&
	kill -TERM "$(cat "$TRASH/fstore.pid")" && emu_gone fstore
'

test_done
