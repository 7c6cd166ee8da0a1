#!/bin/sh
# t9040: flashemu's power switch.  MOUNTPOINT/power beside the card reads
# "on"; "off" written to it cuts the card's power (every request fails
# with EIO, the loop device's too), "on" powers it again with what the
# fault model left; any other word is refused with EINVAL.  An fsync of
# the loop device reaches the card as its flush: a card with a volatile
# cache and flush=honest keeps a write flushed before the cut and loses
# one that was not, while flush=ignore loses the flushed one too.  A card
# that does not come back (cut-dead=1) keeps failing after "on".  As root
# with /dev/fuse and loop devices.

. "$(dirname "$0")/lib.sh"

# At the end, whatever a failed test left: detach, stop, unmount.
stop_cards() {
	emu_stop honest
	emu_stop liar
	emu_stop dead
}
test_at_exit stop_cards

HONEST=sim:size=64M,volatile=1M,flush=honest
LIAR=sim:size=64M,volatile=1M,flush=ignore

# power NAME WORD: WORD to NAME's power switch.
power() {
	echo "$2" >"$TRASH/$1/power"
}

# refused NAME WORD: WORD to NAME's power switch fails with EINVAL (said
# by dd: the shell's echo names no errno).
refused() {
	printf "%s\n" "$2" |
		test_expect_code 1 dd of="$TRASH/$1/power" status=none 2>err &&
	cat err &&
	grep -q "Invalid argument" err
}

# flushed DEV FILE MIB: FILE written at MIB MiB through DEV, then fsync.
flushed() {
	dd if="$2" of="$1" bs=64K seek=$(($3 * 16)) oflag=direct conv=fsync \
		status=none
}

# unflushed DEV FILE MIB: the same without the fsync.
unflushed() {
	dd if="$2" of="$1" bs=64K seek=$(($3 * 16)) oflag=direct \
		status=none
}

# at DEV MIB: the 64 KiB at MIB MiB, read past every cache.
at() {
	dd if="$1" bs=64K skip=$(($2 * 16)) count=1 iflag=direct status=none
}

# stop NAME DEV: detached, and flashemu ended well.
stop() {
	emu_detach "$2" &&
	kill -TERM "$(cat "$TRASH/$1.pid")" && emu_gone "$1"
}

test_emu 'power: a switch beside the card, reading on' '
	emu_start honest --time-scale=1000 "$HONEST" &&
	test "$(ls "$TRASH/honest")" = "$(printf "card\npower")" &&
	test "$(cat "$TRASH/honest/power")" = on
'

test_emu 'power: off fails every request with EIO; on keeps the flushed write and loses the unflushed one' '
	head -c 65536 /dev/urandom >a &&
	head -c 65536 /dev/urandom >b &&
	head -c 65536 /dev/zero >zeros &&
	dev=$(emu_attach honest) &&
	flushed "$dev" a 0 &&
	unflushed "$dev" b 1 &&
	at "$dev" 1 | cmp - b &&
	power honest off &&
	test "$(cat "$TRASH/honest/power")" = off &&
	test_expect_code 1 dd if="$dev" of=/dev/null bs=4K count=1 \
		iflag=direct 2>err &&
	grep -q "Input/output error" err &&
	test_expect_code 1 dd if=a of="$dev" bs=4K count=1 oflag=direct \
		2>err &&
	grep -q "Input/output error" err &&
	power honest on &&
	test "$(cat "$TRASH/honest/power")" = on &&
	at "$dev" 0 | cmp - a &&
	at "$dev" 1 | cmp - zeros &&
	stop honest "$dev"
'

test_emu 'power: a card that ignores flushes loses a flushed write at a cut' '
	head -c 65536 /dev/urandom >a &&
	head -c 65536 /dev/zero >zeros &&
	emu_start liar --time-scale=1000 "$LIAR" &&
	dev=$(emu_attach liar) &&
	flushed "$dev" a 0 &&
	at "$dev" 0 | cmp - a &&
	power liar off &&
	power liar on &&
	at "$dev" 0 | cmp - zeros &&
	stop liar "$dev"
'

test_emu 'power: a word other than on or off is refused, the switch unchanged' '
	emu_start liar --time-scale=1000 "$LIAR" &&
	refused liar bogus &&
	refused liar "off now" &&
	refused liar "" &&
	test "$(cat "$TRASH/liar/power")" = on &&
	kill -TERM "$(cat "$TRASH/liar.pid")" && emu_gone liar
'

test_emu 'power: a card that does not come back fails after on, and says so' '
	emu_start dead --time-scale=1000 sim:size=64M,cut-dead=1 &&
	dev=$(emu_attach dead) &&
	at "$dev" 0 >/dev/null &&
	power dead off &&
	power dead on &&
	test_expect_code 1 dd if="$dev" of=/dev/null bs=4K count=1 \
		iflag=direct 2>err &&
	grep -q "Input/output error" err &&
	grep -qx "flashemu: power on: the card did not come back; its I/O fails with EIO" \
		"$TRASH/dead.err" &&
	stop dead "$dev"
'

test_done
