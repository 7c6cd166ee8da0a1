#!/bin/sh
# t9060: the endurance passes through the kernel, across a replug.
# flashemu serves a simulated card, attached to a loop device; a run of
# passes is killed (SIGKILL) in the middle of its second pass and the
# card detached.  The same command, given its state file, waits for
# the card - saying so on stderr - until it is attached again under
# another loop node, and goes on there: the run ends with the per-pass
# figures of a run never stopped, with the same seed.  As root with
# /dev/fuse and loop devices.

. "$(dirname "$0")/lib.sh"

require python3

STATE=$TRASH/emu.state
# 64 MiB at 20 times the card's own pace: about half a second a pass
test_at_exit "emu_stop emu"

in_pass_two() {
	grep -q "^current 2 [1-9]" "$STATE"
}

waiting() {
	grep -q "^flashbench: --state: $STATE: waiting for file:$TRASH/emu/card (it was $1) to come back, under any name$" err
}

test_emu 'a run stopped mid-pass and its card detached: the run waits, finds it under another node and goes on' '
	emu_start emu --time-scale=20 sim:size=64M,fake=64M &&
	first=$(emu_attach emu) &&
	FB_OUT=killed.json fb_start --surface --write --passes=3 --seed=5 \
		--state="$STATE" -q --format=json "$first" &&
	poll_until "pass 2 under way in the state file" in_pass_two &&
	kill -KILL $fb_pid &&
	fb_wait &&
	emu_detach "$first" &&
	FB_OUT=resumed.json fb_start --surface --write --state="$STATE" -q \
		--format=json "$first" &&
	poll_until "the wait for the card" waiting "$first" &&
	truncate -s 1M other.img &&
	losetup "$first" other.img &&
	echo "$first" >>"$TRASH/.loops" &&
	second=$(emu_attach emu) &&
	test "$second" != "$first" &&
	fb_wait &&
	test "$(cat code)" = 0 &&
	grep "^flashbench: --state: file:$TRASH/emu/card is back as $second$" err &&
	grep "going on with pass 2 ([1-9][0-9]* of its 16 slices stamped)" err &&
	"$FLASHBENCH" --surface --write --passes=3 --seed=5 -q \
		--format=json "$second" >whole.json 2>/dev/null &&
	python3 - <<-\PY
	import json
	keys = ("pass result bad_blocks new_bad_blocks total_bad_blocks "
	        "bytes_written bytes_read slices_stamped").split()
	def passes(path):
	    r = json.load(open(path))["results"]
	    return [[p[k] for k in keys] for p in r
	            if p["kind"] == "surface-pass"]
	a, b = passes("resumed.json"), passes("whole.json")
	print(a)
	assert a == b and len(a) == 3, (a, b)
	PY
'

test_done
