#!/bin/sh
# t3210: --power-cut unattended through a loop device on flashemu, the
# cut and the power given back by writing flashemu's power switch
# (--cut-command, --power-command), the log in the scratch directory (not
# on the card).  An honest card keeps every acknowledged write (exit 0),
# one that ignores flushes loses some (exit 4); --verify of a finished
# run's log says the run's verdict again; a run stopped while it waits
# for the power, verified in a separate run once the power is back,
# gives the verdict a cut of that card gives; no byte outside the
# announced range changes.  By hand, the run asks for the cut and waits
# for the card.  As root with /dev/fuse and loop devices.

. "$(dirname "$0")/lib.sh"

stop_cards() {
	emu_stop honest
	emu_stop liar
}
test_at_exit stop_cards

HONEST=sim:size=64M,volatile=1M,flush=honest
LIAR=sim:size=64M,volatile=1M,flush=ignore
# the range: 8 MiB from 16 MiB, the default offset
ARGS="--power-cut --seed=5 --span=8M"

# outside DEV: the checksums of the device before and after the range
outside() {
	dd if="$1" bs=1M count=16 iflag=direct status=none | cksum &&
	dd if="$1" bs=1M skip=24 iflag=direct status=none | cksum
}

# card NAME SPEC: flashemu serving SPEC as NAME, attached, filled with
# random data; the device in $TRASH/NAME.dev, its outside sums beside
cards_up() {
	emu_start "$1" --time-scale=1000 "$2" &&
	dev=$(emu_attach "$1") && echo "$dev" >"$TRASH/$1.dev" &&
	fill_random "$dev" &&
	outside "$dev" >"$TRASH/$1.outside"
}

# cut NAME / on NAME: the commands that write NAME's power switch
cut() {
	echo "echo off >$TRASH/$1/power"
}
on() {
	echo "echo on >$TRASH/$1/power"
}

# classes FILE: the fault classes with units in the summary of FILE
classes() {
	python3 -c 'import json, sys
s = [r for r in json.load(open(sys.argv[1]))["results"]
     if r["kind"] == "power-cut"][0]
for k in ("flying", "shorn", "unserializable", "acknowledged_lost",
          "old_damaged", "unreadable", "dead_cuts"):
    if s[k]:
        print(k)
print("cuts", s["cuts"])' "$1"
}

test_emu python3 'an honest card: 5 unattended cuts, every acknowledged write kept (exit 0)' '
	cards_up honest "$HONEST" && dev=$(cat "$TRASH/honest.dev") &&
	"$FLASHBENCH" $ARGS --cycles=5 --cut-command="$(cut honest)" \
		--power-command="$(on honest)" --log="$TRASH/honest.log" \
		--format=json "$dev" >run.json 2>err &&
	classes run.json >got &&
	echo "cuts 5" >want &&
	test_cmp want got &&
	test "$(grep -c "running the cut command after write" err)" = 5 &&
	outside "$dev" | test_cmp "$TRASH/honest.outside" -
'

test_emu python3 'a card that ignores flushes: acknowledged writes lost (exit 4)' '
	cards_up liar "$LIAR" && dev=$(cat "$TRASH/liar.dev") &&
	test_expect_code 4 "$FLASHBENCH" $ARGS --cycles=5 \
		--cut-command="$(cut liar)" --power-command="$(on liar)" \
		--log="$TRASH/liar.log" --format=json "$dev" >run.json 2>err &&
	classes run.json >got &&
	printf "acknowledged_lost\ncuts 5\n" >want &&
	test_cmp want got &&
	outside "$dev" | test_cmp "$TRASH/liar.outside" -
'

test_emu '--verify of a finished run says its verdict again' '
	dev=$(cat "$TRASH/honest.dev") &&
	"$FLASHBENCH" --power-cut --verify="$TRASH/honest.log" "$dev" \
		>out 2>err &&
	tail -n 1 out >got &&
	echo "kept every acknowledged write in 5 of 5 cuts; old data intact" >want &&
	test_cmp want got &&
	dev=$(cat "$TRASH/liar.dev") &&
	test_expect_code 4 "$FLASHBENCH" --power-cut --verify="$TRASH/liar.log" \
		--format=json "$dev" >again.json 2>err &&
	python3 -c "import json, sys
a, b = (json.load(open(f))[\"results\"][-1] for f in sys.argv[1:])
for k in (\"summary\", \"verdict\", \"cuts\", \"acknowledged_lost\"):
    assert a[k] == b[k], (k, a[k], b[k])
assert b[\"verify_only\"] and not a[\"verify_only\"]" run.json again.json
'

# stopped_at_cut NAME: a run of one cycle on NAME with no power command,
# stopped while it waits for the power; then the power given back
stopped_at_cut() {
	dev=$(cat "$TRASH/$1.dev") &&
	rm -f "$TRASH/$1.cut.log" &&
	fb_start $ARGS --cycles=1 --cut-command="$(cut "$1")" \
		--log="$TRASH/$1.cut.log" "$dev" &&
	poll_until "the wait for the power" grep -q "waiting for $dev" err &&
	kill -TERM $fb_pid && fb_wait &&
	test "$(cat code)" = 143 &&
	grep -q "^cut cycle=1 " "$TRASH/$1.cut.log" &&
	echo on >"$TRASH/$1/power"
}

test_emu 'a run stopped at its cut, --verify once the power is back: the honest card kept every acknowledged write' '
	stopped_at_cut honest &&
	"$FLASHBENCH" --power-cut --verify="$TRASH/honest.cut.log" \
		"$(cat "$TRASH/honest.dev")" >out 2>err &&
	cat err &&
	grep -q "1 cut logged, the last one verified now" err &&
	tail -n 1 out >got &&
	echo "kept every acknowledged write in 1 of 1 cut; old data intact" >want &&
	test_cmp want got &&
	outside "$(cat "$TRASH/honest.dev")" |
		test_cmp "$TRASH/honest.outside" -
'

test_emu 'the same for the card that ignores flushes: acknowledged writes lost (exit 4)' '
	stopped_at_cut liar &&
	test_expect_code 4 "$FLASHBENCH" --power-cut \
		--verify="$TRASH/liar.cut.log" "$(cat "$TRASH/liar.dev")" \
		>out 2>err &&
	tail -n 1 out |
		grep -Ex "lost acknowledged writes in 1 of 1 cut( \(up to [0-9.]+(ms|s) of them\))?; old data intact" &&
	outside "$(cat "$TRASH/liar.dev")" | test_cmp "$TRASH/liar.outside" -
'

test_emu 'by hand: it asks for the cut, waits for the card, verifies one cut' '
	dev=$(cat "$TRASH/honest.dev") &&
	fb_start $ARGS "$dev" &&
	poll_until "the request to cut" grep -q "cut the power now: pull the card or its reader" err &&
	echo off >"$TRASH/honest/power" &&
	poll_until "the wait for the card" grep -q "waiting for $dev to come back: put the card back" err &&
	echo on >"$TRASH/honest/power" &&
	fb_wait && test "$(cat code)" = 0 &&
	tail -n 1 out >got &&
	echo "kept every acknowledged write in 1 of 1 cut; old data intact" >want &&
	test_cmp want got &&
	outside "$dev" | test_cmp "$TRASH/honest.outside" -
'

test_emu 'flashemu ends well once the cards are let go' '
	for name in honest liar; do
		emu_detach "$(cat "$TRASH/$name.dev")" &&
		kill -TERM "$(cat "$TRASH/$name.pid")" && emu_gone $name ||
			return 1
	done
'

test_done
