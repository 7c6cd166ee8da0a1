#!/bin/sh
# t9050: a card that wears, through flashemu and the kernel.  The card
# lives as long as flashemu serves it, so runs one after another wear
# it as passes would: on sim:size=64M,wear=2:0,spare=0 (every 4 MiB
# erase block takes exactly 2 cycles) two --surface --write runs over
# its first 32 MiB find them genuine, exit 0, and a third over the whole
# card finds each erase block of those 32 MiB worn, whole - its blocks
# read back garbled ("garbage") or, where its writes failed, the second
# run's stamps ("other") - and the rest intact: "damaged", exit 4.
# With wear-eol=read-only the third write of the card fails with EIO
# and the card still reads back the second one whole; with
# wear-eol=dead the read fails too.  As root with /dev/fuse and loop
# devices.

. "$(dirname "$0")/lib.sh"

require python3

stop_cards() {
	emu_stop worn
	emu_stop ro
	emu_stop dead
}
test_at_exit stop_cards

WORN=sim:size=64M,wear=2:0,spare=0

# surface DEV OPTIONS...: --surface --write as JSON into out.json, its
# code in code.
surface() {
	sf_dev=$1
	shift
	"$FLASHBENCH" --surface --write -q --format=json "$@" "$sf_dev" \
		>out.json 2>err
	echo $? >code
	cat err
}

# worn.py FILE: every erase block of the first 32 MiB bad whole, garbled
# or not written; the rest intact.
cat >"$TRASH/worn.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
erase, card = 4 << 20, 32 << 20
[s] = [r for r in doc["results"] if r["kind"] == "surface"]
[b] = [r for r in doc["results"] if r["kind"] == "surface-blocks"]
assert s["verdict"] == "damaged" and s["bad_blocks"] == card // 512, s
assert b["garbage"] + b["other"] == card // 512, b
assert b["intact"] == card // 512, b
assert b["garbage"] and b["other"], b
assert b["garbage"] % (erase // 512) == 0, b
at = 0
for r in doc["results"]:
    if r["kind"] != "surface-bad":
        continue
    assert r["offset_bytes"] == at and r["length_bytes"] % erase == 0, r
    assert r["result"] in ("garbage", "other"), r
    at += r["length_bytes"]
assert at == card, at
print("garbled", b["garbage"] // (erase // 512), "erase blocks, unwritten",
      b["other"] // (erase // 512))
PY

test_emu 'two --surface --write runs use 2 cycles of the first 32 MiB: genuine, exit 0' '
	emu_start worn --time-scale=1000 "$WORN" &&
	dev=$(emu_attach worn) &&
	echo "$dev" >"$TRASH/worn.dev" &&
	for run in 1 2; do
		surface "$dev" --span=32M &&
		test "$(cat code)" = 0 &&
		grep -q "\"verdict\": \"genuine\"" out.json || return 1
	done
'

test_emu 'a third over the card finds those erase blocks worn whole, the rest intact: damaged, exit 4' '
	surface "$(cat "$TRASH/worn.dev")" &&
	test "$(cat code)" = 4 &&
	python3 "$TRASH/worn.py" out.json &&
	emu_detach "$(cat "$TRASH/worn.dev")" &&
	kill -TERM "$(cat "$TRASH/worn.pid")" &&
	emu_gone worn
'

# pass DEV FILE: FILE over the whole card, past every cache.
pass() {
	dd if="$2" of="$1" bs=1M oflag=direct status=none
}

test_emu 'wear-eol=read-only: the third pass fails with EIO, the second reads back whole' '
	head -c $((64 * MIB)) /dev/urandom >one &&
	head -c $((64 * MIB)) /dev/urandom >two &&
	emu_start ro --time-scale=1000 "$WORN,wear-eol=read-only" &&
	dev=$(emu_attach ro) &&
	pass "$dev" one && pass "$dev" two &&
	! pass "$dev" one 2>err &&
	cat err &&
	grep -q "Input/output error" err &&
	! dd if=one of="$dev" bs=512 count=1 seek=100 oflag=direct \
		status=none 2>/dev/null &&
	dd if="$dev" bs=1M iflag=direct status=none | cmp - two &&
	emu_detach "$dev" &&
	kill -TERM "$(cat "$TRASH/ro.pid")" &&
	emu_gone ro
'

test_emu 'wear-eol=dead: after the third pass fails, reads fail too' '
	head -c $((64 * MIB)) /dev/urandom >one &&
	emu_start dead --time-scale=1000 "$WORN,wear-eol=dead" &&
	dev=$(emu_attach dead) &&
	pass "$dev" one && pass "$dev" one &&
	! pass "$dev" one 2>/dev/null &&
	! dd if="$dev" of=/dev/null bs=1M count=1 iflag=direct \
		status=none 2>err &&
	cat err &&
	grep -q "Input/output error" err &&
	emu_detach "$dev" &&
	kill -TERM "$(cat "$TRASH/dead.pid")" &&
	emu_gone dead
'

test_done
