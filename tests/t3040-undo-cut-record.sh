#!/bin/sh
# t3040: an undo file cut inside its last record never makes a restore
# say every byte is back when one is not.  As root, on a loop device of
# random data compared in full: a --surface --keep-data run killed with
# SIGKILL while it stamps its second chunk (on a flashemu card whose
# second 16 MiB are slow, so the kill lands there), a --capacity-check
# killed after its first round's writes, and a --report --write killed
# inside a writing part.  Each undo file is cut at 10 places inside its
# last record - in its head, its data and its trailer - and --restore
# (and, for the surface run, --resume) either puts every byte back (exit
# 0, the file removed) or refuses (exit 1, the file kept, the range
# listed).  Where the run's stamps lie in the cut record's range and its
# data is cut, that is a refusal; with its data whole, every byte back.
# Also: a damaged record of a chunk a later done mark covers (the
# surface run's file once that chunk is back) costs nothing (exit 0); a
# damaged header is a failure (exit 1, no --help
# hint, the file kept and named); a header-only file has nothing to put
# back (exit 0, removed) from any mode, unless its run's stamps lie
# where it stood.

. "$(dirname "$0")/lib.sh"

require python3

FIFO=$TRASH/results.fifo
SLOW_SPEC=sim:size=64M,fake=64M,slow=16M+16M:2M

if have_loop; then
	loop_setup LOOP 64M
fi
test_at_exit "emu_stop emu"

# undofile.py (in tests/) reads, cuts and damages undo files: see its
# head.
undo_py() {
	python3 "$TESTS_DIR/undofile.py" "$@"
}

image() {
	dd if="$1" of="$2" bs=1M iflag=direct status=none
}

# killed IMAGE: the loop device holds IMAGE (a killed run's device).
killed() {
	dd if="$1" of="$LOOP" bs=1M oflag=direct conv=notrunc status=none
}

same_as_orig() {
	image "$LOOP" now.img && cmp "$TRASH/orig.img" now.img
}

# after_cut MODE UNDO IMAGE AT WANT: the loop device as IMAGE, a copy of
# UNDO cut at byte AT, then --restore (MODE restore) or --resume (MODE
# resume); WANT back: exit 0, every byte as before, the copy removed;
# refused: exit 1, the copy kept, a range listed as not put back; either:
# one of the two.  Never exit 0 with a byte different.
after_cut() {
	killed "$3" &&
	cp "$2" cut.undo &&
	truncate -s "$4" cut.undo &&
	if [ "$1" = resume ]; then
		"$FLASHBENCH" --surface --keep-data -q --resume=cut.undo \
			"$LOOP" >out 2>err
	else
		"$FLASHBENCH" --restore=cut.undo "$LOOP" >out 2>err
	fi
	ac_code=$?
	echo "--$1, cut at $4: exit $ac_code"
	cat err
	case $ac_code in
	0)	same_as_orig && test ! -e cut.undo && ac_got=back ;;
	1)	test -e cut.undo && grep -q "not put back\|are a record cut short" err &&
		ac_got=refused ;;
	*)	return 1 ;;
	esac &&
	echo "$ac_got" &&
	{ [ "$5" = either ] || [ "$5" = "$ac_got" ]; }
}

# every_cut MODE UNDO IMAGE: after_cut at each of the ten places: those
# in the head and the data refused (the run stamped there), those past
# the data every byte back.
every_cut() {
	undo_py cuts "$2" >cuts &&
	while read -r name at; do
		case $name in
		trailer*) want=back ;;
		*) want=refused ;;
		esac
		after_cut "$1" "$2" "$3" "$at" "$want" || return 1
	done <cuts
}

test_loop 'setup: random data' '
	fill_random "$LOOP" &&
	image "$LOOP" "$TRASH/orig.img"
'

# ---- --surface --keep-data, killed while stamping its second chunk ----

# The first chunk is done after 64 MiB of write calls (its save, the
# second's, written while it is tested, its stamps and its data back);
# then the third's save (16 MiB) goes beside the second's stamps: past
# 84 MiB, 4 MiB of stamps at least are on the slow second 16 MiB.
test_emu python3 'a --keep-data run killed while it stamps its second chunk' '
	emu_start emu --time-scale=10 "$SLOW_SPEC" &&
	dev=$(emu_attach emu) &&
	dd if="$TRASH/orig.img" of="$dev" bs=1M oflag=direct status=none &&
	fb_start --surface --keep-data -q --undo-file="$TRASH/surface.undo" \
		"$dev" &&
	wait_written $((84 * MIB)) &&
	kill -9 $fb_pid &&
	fb_wait &&
	test "$(cat code)" = 137 &&
	image "$dev" "$TRASH/surface.img" &&
	emu_detach "$dev" &&
	emu_stop emu &&
	undo_py differ "$TRASH/orig.img" "$TRASH/surface.img" >changed &&
	cat changed &&
	read -r first length <changed && test "$first" -ge $((16 * MIB)) &&
	tail -n 1 changed | { read -r at length &&
		test $((at + length)) -le $((32 * MIB)); }
'

test_loop python3 'surface file cut at 10 places in its last record: --restore puts every byte back or refuses' '
	every_cut restore "$TRASH/surface.undo" "$TRASH/surface.img"
'

test_loop python3 'surface file cut at 10 places in its last record: --resume finishes with every byte back or refuses' '
	every_cut resume "$TRASH/surface.undo" "$TRASH/surface.img"
'

# The killed run's file as the run leaves it once the chunk in flight is
# back: the device as it was, a done mark over the chunk's record.
test_loop python3 'a damaged record of a chunk a later done mark covers: no failure, every byte back' '
	killed "$TRASH/orig.img" &&
	cp "$TRASH/surface.undo" covered.undo &&
	undo_py done covered.undo &&
	undo_py data covered.undo 1 >/dev/null &&
	"$FLASHBENCH" --restore=covered.undo "$LOOP" >out 2>err &&
	cat err &&
	! grep "not put back" err &&
	same_as_orig &&
	test ! -e covered.undo
'

# listed JSON CAUSE: the restore's JSON lists one range not put back,
# of that cause, in the second 16 MiB (where the runs stamped)
listed() {
	python3 - "$@" <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[r] = [r for r in doc["results"] if r["kind"] == "restore-damaged"]
	assert r["cause"] == sys.argv[2], r
	assert 16 << 20 <= r["offset_bytes"] < 32 << 20, r
	PY
}

test_loop python3 'a header-only --surface file over the stamps of its run: refused, the range listed' '
	killed "$TRASH/surface.img" &&
	head -c $((256 + 192)) "$TRASH/surface.undo" >head.undo &&
	test_expect_code 1 "$FLASHBENCH" --restore=head.undo --format=json \
		"$LOOP" >out.json 2>err &&
	cat err &&
	grep "^flashbench: $LOOP: bytes 1677[0-9]* to [0-9]* not put back: the run.s stamps lie there, and the undo file holds no record of what those blocks held\$" err &&
	listed out.json lost &&
	test -e head.undo
'

test_loop python3 'surface file cut in its last record data: the JSON says the cause' '
	killed "$TRASH/surface.img" &&
	cp "$TRASH/surface.undo" cut.undo &&
	truncate -s -1000 cut.undo &&
	test_expect_code 1 "$FLASHBENCH" --restore=cut.undo --format=json \
		"$LOOP" >out.json 2>err &&
	cat err &&
	grep "^flashbench: $LOOP: bytes 16777216 to 33554431 not put back: the undo file ends inside their record, and the run wrote there\$" err &&
	listed out.json cut
'

# header_only UNDO BYTES: the first BYTES of UNDO, over the device as it
# was: nothing to put back, exit 0, the file removed.
header_only() {
	killed "$TRASH/orig.img" &&
	head -c "$2" "$1" >head.undo &&
	"$FLASHBENCH" --restore=head.undo "$LOOP" >out 2>err &&
	cat err &&
	grep "^flashbench: --restore: head.undo: it holds no saved block: nothing to put back\$" err &&
	test ! -e head.undo &&
	same_as_orig
}

test_loop python3 'a header-only --surface file, no stamp of its run: exit 0, removed' '
	header_only "$TRASH/surface.undo" $((256 + 192))
'

test_loop python3 'a damaged header: exit 1, one line naming the file, no --help hint, the file kept' '
	killed "$TRASH/surface.img" &&
	cp "$TRASH/surface.undo" bad.undo &&
	undo_py flip bad.undo 100 &&
	test_expect_code 1 "$FLASHBENCH" --restore=bad.undo "$LOOP" >out 2>err &&
	cat err &&
	test "$(cat err)" = "flashbench: --restore: bad.undo: its header is damaged; the file is kept" &&
	test -e bad.undo
'

# ---- --capacity-check, killed after its first round's writes ----

# the first round on 64 MiB: 256 probe blocks and a 20 MiB flush area
# saved (a head and a trailer of 64 bytes each, after the 256-byte
# header), then written: past this many bytes written all are done
ROUND_BYTES=$((256 + 276 * 128 + 2 * (256 * 512 + 20 * MIB)))

test_loop python3 'a --capacity-check killed after its first round of writes' '
	killed "$TRASH/orig.img" &&
	killed_capacity_check $ROUND_BYTES "$TRASH/capacity.undo" "$LOOP" &&
	image "$LOOP" "$TRASH/capacity.img"
'

test_loop python3 'capacity file cut at 10 places in its last record: --restore puts every byte back or refuses' '
	every_cut restore "$TRASH/capacity.undo" "$TRASH/capacity.img"
'

# ---- --report --write, killed inside a writing part ----

# on the card whose second 16 MiB are slow (run 4 times faster than its
# model: the parts before take seconds, not minutes) the write-speed part takes
# seconds to write its range (16 MiB to 48 MiB), so it is killed while
# it writes, its range not yet put back, whatever the machine's load
test_emu python3,fuser 'a --report --write killed inside a writing part' '
	emu_start emu --time-scale=4 "$SLOW_SPEC" &&
	dev=$(emu_attach emu) &&
	dd if="$TRASH/orig.img" of="$dev" bs=1M oflag=direct status=none &&
	LOOP=$dev && UNDO="$TRASH/report.undo" &&
	fb_start --report --write -e 1M --budget=1 --time=1 --span=32M \
		--undo-file="$UNDO" "$dev" &&
	report_in_part write-speed &&
	kill_report_and_part &&
	fb_wait >/dev/null &&
	test "$(cat code)" = 137 &&
	poll_until "the part killed with the report" \
		test -z "$(fuser "$dev" 2>/dev/null)" &&
	image "$dev" "$TRASH/report.img" &&
	emu_detach "$dev" &&
	emu_stop emu &&
	! cmp -s "$TRASH/orig.img" "$TRASH/report.img"
'

test_loop python3 'report file cut at 10 places in its last record: --restore puts every byte back or refuses' '
	undo_py cuts "$TRASH/report.undo" >cuts &&
	while read -r name at; do
		after_cut restore "$TRASH/report.undo" "$TRASH/report.img" \
			"$at" either || exit 1
	done <cuts
'

test_loop python3 'a header-only --report file: exit 0, removed' '
	header_only "$TRASH/report.undo" 256
'

test_done
