#!/bin/sh
# t3140: the endurance passes on a loop device, and their state file.
# A run killed with SIGKILL in the middle of a pass goes on from its
# state file (--state=FILE, the same command) and ends with the same
# per-pass figures as a run never stopped, with the same seed; nothing
# outside its range is written.  A state file is refused with one line
# (exit 2) when it is another device's, damaged, or someone else's; a
# card that no longer opens for writing ends the run read-only.
# The kill and the refusals need root and loop devices.

. "$(dirname "$0")/lib.sh"

require python3

loop_setup LOOP 320M --direct-io=on
loop_setup OTHER 64M --direct-io=on
loop_setup SHUT 64M --direct-io=on
STATE=$TRASH/run.state
RANGE="--offset=32M --span=256M"

# figures.py A B: the passes of two documents, their figures that do
# not hang on the clock, the same; both ended as they were asked.
cat >"$TRASH/figures.py" <<'PY'
import json, sys
keys = ("pass result bad_blocks new_bad_blocks new_bad_ranges "
        "total_bad_blocks write_errors read_errors bytes_written "
        "bytes_read slices_stamped").split()
def passes(path):
    r = json.load(open(path))["results"]
    [s] = [x for x in r if x["kind"] == "surface-passes"]
    assert s["end"] == "all-done", s
    return [[p[k] for k in keys] for p in r if p["kind"] == "surface-pass"]
a, b = passes(sys.argv[1]), passes(sys.argv[2])
print(a)
assert a == b, (a, b)
assert len(a) == 3, a
PY

in_pass_two() {
	grep -q "^current 2 [1-9]" "$STATE"
}

test_loop_io 'a run killed mid-pass goes on from its state file and ends as one never stopped' '
	fill_random "$LOOP" &&
	chunk_sums "$LOOP" $MIB >before &&
	FB_OUT=killed.json fb_start --surface --write --passes=3 --seed=9 \
		--state="$STATE" $RANGE -q --format=json "$LOOP" &&
	poll_until "pass 2 under way in the state file" in_pass_two &&
	kill -STOP $fb_pid &&
	grep "^current 2 " "$STATE" &&
	kill -KILL $fb_pid &&
	fb_wait &&
	test "$(cat code)" = 137 &&
	"$FLASHBENCH" --surface --write --state="$STATE" -q --format=json \
		"$LOOP" >resumed.json 2>err &&
	cat err &&
	grep "^flashbench: --state: $STATE: 1 pass done; going on with pass 2 ([1-9][0-9]* of its 16 slices stamped)$" err &&
	announced_range err >range &&
	test "$(cat range)" = "$((32 * MIB)) $((288 * MIB))" &&
	chunk_sums "$LOOP" $MIB >after &&
	changed_chunks before after >changed &&
	chunks_within changed 32 288 &&
	"$FLASHBENCH" --surface --write --passes=3 --seed=9 $RANGE -q \
		--format=json "$LOOP" >whole.json 2>/dev/null &&
	python3 "$TRASH/figures.py" resumed.json whole.json
'

test_loop 'the state file of a finished run reports it again, and writes nothing' '
	chunk_sums "$LOOP" $MIB >before &&
	"$FLASHBENCH" --surface --write --state="$STATE" -q "$LOOP" >out 2>err &&
	cat out err &&
	test "$(grep -c "^pass [1-3]: clean;" out)" = 3 &&
	! grep "overwrites bytes" err &&
	chunk_sums "$LOOP" $MIB >after &&
	test_cmp before after
'

test_loop 'a state file of another device is refused with one line' '
	test_usage_error flashbench \
		"^--state: .*run.state is the run of file:.*; $OTHER is another device \(file:.*\)$" \
		--surface --write --state="$STATE" "$OTHER"
'

test_loop 'a damaged state file is refused with one line' '
	cp "$STATE" damaged.state &&
	sed -i "s/^seed 9$/seed 8/" damaged.state &&
	test_usage_error flashbench \
		"^--state: .*damaged.state: damaged: its checksum does not match \(cut short or changed\)$" \
		--surface --write --state=damaged.state "$LOOP" &&
	head -c 100 "$STATE" >short.state &&
	test_usage_error flashbench "^--state: .*short.state: damaged" \
		--surface --write --state=short.state "$LOOP"
'

test_loop 'a state file another user owns is refused with one line' '
	cp "$STATE" theirs.state &&
	chown 65534 theirs.state &&
	test_usage_error flashbench \
		"^--state: .*theirs.state: is owned by uid 65534, not by you \(uid 0\); someone else could have written it$" \
		--surface --write --state=theirs.state "$LOOP" &&
	cp "$STATE" open.state &&
	chmod 666 open.state &&
	test_usage_error flashbench "^--state: .*open.state: is writable by its group or others" \
		--surface --write --state=open.state "$LOOP"
'

test_loop 'a card that no longer opens for writing ends the run read-only, exit 4' '
	"$FLASHBENCH" --surface --write --passes=1 --seed=2 --state=shut.state \
		-q "$SHUT" >/dev/null 2>&1 &&
	blockdev --setro "$SHUT" &&
	{
		"$FLASHBENCH" --surface --write --passes=2 --state=shut.state \
			-q "$SHUT" >out 2>err
		echo $? >code
		blockdev --setrw "$SHUT"
	} &&
	cat out err &&
	test "$(cat code)" = 4 &&
	grep "^flashbench: --surface: $SHUT cannot be opened for writing any more (read-only): the run ends there$" err &&
	grep "^pass 2: read-only;" out &&
	tail -n 1 out | grep "^endurance: 2 passes; ended: read-only at pass 2 " &&
	grep "^end read-only$" shut.state
'

test_loop mkfs.ext4 'a new state file is refused on the device under test' '
	mkdir -p mnt &&
	mkfs.ext4 -q -F "$OTHER" &&
	mount "$OTHER" mnt &&
	test_at_exit "umount \"$TRASH/mnt\"" &&
	test_usage_error flashbench \
		"^--state: the state file .*mnt/new.state would be on $OTHER itself; put it on another device$" \
		--surface --write --passes=1 --state="$TRASH/mnt/new.state" \
		"$OTHER" &&
	umount mnt &&
	test ! -e mnt/new.state
'

test_done
