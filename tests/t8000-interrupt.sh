#!/bin/sh
# t8000: interrupts.  Ctrl-C (SIGINT) during a run exits 130 with the
# results so far: whole lines, rows or records only, marked incomplete
# ("# incomplete: interrupted" in text, a row of kind incomplete in CSV,
# "incomplete": true in still valid JSON), --stats still printed, and nothing written outside the announced
# range.  SIGTERM exits 143; a second SIGINT exits at once.

. "$(dirname "$0")/lib.sh"

OPEN_AU_LINE="^${SIZE_RE} +${RATE_RE}\$"
MARK='# incomplete: interrupted'
IMAGE=$TRASH/image
# Each operation on these simulated cards also takes 1 ms of wall time
# (pace=), so their runs last hours and only a signal ends them; a
# signal cuts the pause short, so a stopped run ends at once.
PACED=sim:pace=1ms
SIM_LONG="-O -0 8 --erasesize=64M --blocksize=512 $PACED"
# A long -O on the loop device, ending with 131072 writes of 512 bytes.
# Its first record comes after 4 x 16 MiB written, so a run that has
# written FIRST_ROW_DONE bytes is on its second row, the first printed.
LOOP_LONG='-O -e 16M -b 512 -0 4'
FIRST_ROW_DONE=$((65 * MIB))

if have_loop; then
	loop_setup LOOP 256M
fi

# signal_run SIG: send SIG to the run (which must still be going) and
# wait for it to end.
signal_run() {
	if ! kill -"$1" $fb_pid 2>/dev/null; then
		fb_wait
		echo "the run ended before SIG$1" >&2
		return 1
	fi
	fb_wait
}

# interrupt SIG READY ARGS...: start flashbench ARGS, run the shell
# command READY (one of lib.sh's wait_* helpers: it returns once the run
# is inside its timed work), then send SIG and wait for the end.
interrupt() {
	it_sig=$1 it_ready=$2
	shift 2
	fb_start "$@" || return 1
	eval "$it_ready" || { fb_wait; return 1; }
	signal_run "$it_sig"
}

# full_fifo NAME: a FIFO named NAME, held open on fd 3 and filled up, so
# that whatever writes to it blocks (nothing reads it).  A run whose
# standard output it is cannot write its results, so it cannot end on
# its own once it has stopped: only a second signal ends it.
full_fifo() {
	rm -f "$1" && mkfifo "$1" && exec 3<>"$1" &&
	# non-blocking writes of whole pages, until one finds no room
	{ dd if=/dev/zero of="$1" bs=4096 count=1024 oflag=nonblock \
		2>/dev/null; test $? -le 1; }
}

# close_fifo: close the FIFO from full_fifo; a run still writing to it
# would get EPIPE.
close_fifo() {
	exec 3<&-
}

# second_sigint: the run (its output going to a full FIFO) takes one
# SIGINT, stops, and blocks writing its results; a second SIGINT must end
# it at once: exit 130, without the line a finished stop prints.
second_sigint() {
	kill -INT $fb_pid &&
	poll_until "delivery of the first SIGINT" signal_taken 2 &&
	kill -INT $fb_pid &&
	{ fb_wait; close_fifo; } &&
	exit_is 130 &&
	if grep "interrupted; results are incomplete" err; then
		echo "the second SIGINT did not end the run at once" >&2
		return 1
	fi
}

exit_is() {
	test "$(cat code)" = "$1" ||
		{ echo "exit code $(cat code), want $1" >&2; return 1; }
}

# whole_lines FILE: FILE is empty or ends with a newline.
whole_lines() {
	test ! -s "$1" || test -z "$(tail -c 1 "$1")" ||
		{ echo "$1 ends in a partial line" >&2; return 1; }
}

# text_incomplete FILE: whole lines, open-AU lines (in results) then the
# marker.
text_incomplete() {
	whole_lines "$1" &&
	test "$(tail -n 1 "$1")" = "$MARK" &&
	sed '$d' "$1" >results &&
	{ test ! -s results || test_lines_match results "$OPEN_AU_LINE"; } &&
	echo "$(wc -l <results) result lines before the interrupt"
}

# json_incomplete FILE: valid JSON with "incomplete": true.
json_incomplete() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["incomplete"] is True, d["incomplete"]
assert isinstance(d["results"], list)
print(len(d["results"]), "records before the interrupt")
' "$1"
}

# csv_whole_rows FILE: a header, then rows with as many fields, the
# last of kind "incomplete" with empty cells and "interrupted" in the
# note column (only the header and that row when interrupted before the
# first row).
csv_whole_rows() {
	whole_lines "$1" &&
	head -n 1 "$1" | grep -q "^schema,kind,.*note\$" &&
	tail -n 1 "$1" | grep -Eq "^3,incomplete,(,)*interrupted\$" &&
	! grep -q "^#" "$1" &&
	awk -F, 'NR == 1 { n = NF } NF != n { print "bad row: " $0; bad = 1 }
		END { exit bad }' "$1" >&2
}

stats_printed() {
	grep -E "^device time [0-9.]+ s, read [^,]+, written " err
}

# ---- simulated card ----

test_expect_success 'sim: SIGINT during -O: exit 130, text marked incomplete, stats' '
	interrupt INT wait_announced $SIM_LONG --stats &&
	exit_is 130 &&
	text_incomplete out &&
	stats_printed &&
	grep "interrupted" err
'

test_expect_success python3 'sim: SIGINT during -O --format=json: valid JSON, "incomplete": true' '
	interrupt INT wait_announced $SIM_LONG --format=json &&
	exit_is 130 &&
	json_incomplete out
'

test_expect_success python3 'sim: SIGINT during -O --format=json -o FILE: FILE is valid JSON, incomplete' '
	interrupt INT wait_announced $SIM_LONG --format=json -o run.json &&
	exit_is 130 &&
	test ! -s out &&
	json_incomplete run.json
'

test_expect_success 'sim: SIGINT during -O --format=csv: whole rows only' '
	interrupt INT wait_announced $SIM_LONG --format=csv &&
	exit_is 130 &&
	csv_whole_rows out
'

test_expect_success 'sim: SIGTERM during -O: exit 143, marked incomplete' '
	interrupt TERM wait_announced $SIM_LONG &&
	exit_is 143 &&
	text_incomplete out
'

test_expect_success 'sim: SIGINT during -a: exit 130, marked incomplete' '
	interrupt INT wait_catching -a -b 1024 -c 1000 $PACED &&
	exit_is 130 &&
	whole_lines out &&
	test "$(tail -n 1 out)" = "$MARK"
'

test_expect_success 'sim: a second SIGINT exits 130 at once' '
	full_fifo results.fifo &&
	FB_OUT=results.fifo fb_start $SIM_LONG &&
	wait_announced &&
	second_sigint
'

test_expect_success 'sim: SIGINT during --detect --write: exit 130, nothing printed as found' '
	interrupt INT wait_announced --detect --write $PACED &&
	exit_is 130 &&
	grep "interrupted" err &&
	! grep "^erase block size:" out
'

# ---- loop device ----


# device_changes: leave in changed the MiB pieces of the device that
# differ from the image, and remember them for the next restore.
device_changes() {
	chunk_sums_quick "$LOOP" $MIB >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	cp changed "$TRASH/dirty" &&
	echo "changed MiB: $(tr "\n" " " <changed)"
}

# loop_interrupt SIG READY ARGS...: restore the device, interrupt
# flashbench ARGS DEVICE once READY returns, and leave in changed the MiB
# pieces that differ from the image.
loop_interrupt() {
	li_sig=$1 li_ready=$2
	shift 2
	restore &&
	rm -f "$TRASH/dirty" &&
	interrupt "$li_sig" "$li_ready" "$@" "$LOOP"
	li_rc=$?
	device_changes &&
	return $li_rc
}

# written_inside: the run announced one range and changed only pieces
# inside it (some, since it was interrupted after writing).
written_inside() {
	set -- $(announced_range err) ||
		{ echo "no single announced range" >&2; return 1; }
	test -s changed &&
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
}

test_loop 'loop: setup: fill the 256 MiB device with random data' '
	head -c $((64 * MIB)) /dev/urandom >random64 &&
	cat random64 random64 random64 random64 >"$IMAGE" &&
	copy_to_dev "$IMAGE" "$LOOP" &&
	chunk_sums_quick "$LOOP" $MIB >"$TRASH/image.sums" &&
	test "$(wc -l <"$TRASH/image.sums")" = 256
'

AFTER_FIRST_ROW="wait_written $FIRST_ROW_DONE"

test_loop_io 'loop: SIGINT during -O: exit 130, partial text marked incomplete, stats, writes inside the range' '
	loop_interrupt INT "$AFTER_FIRST_ROW" $LOOP_LONG --stats &&
	exit_is 130 &&
	text_incomplete out &&
	test -s results &&
	stats_printed &&
	grep "interrupted" err &&
	written_inside
'

test_loop_io 'loop: SIGINT during -O -o FILE: FILE complete up to its last record' '
	loop_interrupt INT "$AFTER_FIRST_ROW" $LOOP_LONG -o run.txt &&
	exit_is 130 &&
	test ! -s out &&
	text_incomplete run.txt &&
	test -s results &&
	written_inside
'

test_loop_io python3 'loop: SIGINT during -O -r --format=json -o FILE: valid JSON, incomplete' '
	loop_interrupt INT "$AFTER_FIRST_ROW" -O -r -e 16M -b 512 -0 4 \
		--format=json -o run.json --stats &&
	exit_is 130 &&
	json_incomplete run.json &&
	stats_printed &&
	written_inside
'

test_loop_io 'loop: SIGINT during -O --format=csv: whole rows only' '
	loop_interrupt INT "$AFTER_FIRST_ROW" $LOOP_LONG --format=csv &&
	exit_is 130 &&
	csv_whole_rows out &&
	grep -q "^3,measurement," out &&
	written_inside
'

test_loop_io 'loop: SIGTERM during -O: exit 143, marked incomplete, writes inside the range' '
	loop_interrupt TERM "$AFTER_FIRST_ROW" $LOOP_LONG &&
	exit_is 143 &&
	text_incomplete out &&
	written_inside
'

test_loop_io 'loop: a second SIGINT exits 130 at once, writes inside the range' '
	restore && rm -f "$TRASH/dirty" &&
	full_fifo results.fifo &&
	FB_OUT=results.fifo fb_start $LOOP_LONG "$LOOP" &&
	wait_written $FIRST_ROW_DONE &&
	second_sigint &&
	device_changes &&
	written_inside
'

# The write probes take a fraction of a second on a loop device, so the
# run may have ended by the time the signal comes (the simulated card's
# test above is the one sure to interrupt it); either way nothing is
# written outside the announced range.
test_loop 'loop: SIGINT during --detect --write: exit 130 or done, writes inside the range' '
	restore && rm -f "$TRASH/dirty" &&
	fb_start --detect --write --erasesize=1M "$LOOP" &&
	wait_announced &&
	{ kill -INT $fb_pid 2>/dev/null; fb_wait; } &&
	device_changes &&
	{ exit_is 0 || { exit_is 130 && grep "interrupted" err; }; } &&
	set -- $(announced_range err) &&
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
'

test_loop_io 'loop: SIGINT during -a: exit 130, marked incomplete, nothing written' '
	loop_interrupt INT "wait_read $MIB" -a -b 1024 -c 2048 &&
	exit_is 130 &&
	whole_lines out &&
	test "$(tail -n 1 out)" = "$MARK" &&
	test ! -s changed
'

# --time=20 is device time: the run lasts at least 20 s of writes
# --write-speed writes its range once: on the loop device that takes a
# fraction of a second, over before a signal could be sent.  A card
# served by flashemu at its own pace (sim:sandisk-su08g, about 10 MB/s:
# the 48 MiB from the write floor take seconds, however fast the host)
# is still writing when the signal comes.  It keeps its data and reads
# zeros where nothing was written.
PACED_CARD=sim:sandisk-su08g,size=64M,fake=64M

stop_card() {
	emu_stop paced
}
test_at_exit stop_card

test_emu 'loop over a card at its pace: SIGINT during --write-speed: exit 130, writes inside the range' '
	emu_start paced "$PACED_CARD" &&
	PACED_DEV=$(emu_attach paced) &&
	chunk_sums_quick "$PACED_DEV" $MIB >before &&
	interrupt INT "wait_written $((2 * MIB))" --write-speed \
		--time=20 -e 1M "$PACED_DEV" &&
	exit_is 130 &&
	grep "interrupted" err &&
	chunk_sums_quick "$PACED_DEV" $MIB >after &&
	changed_chunks before after >changed &&
	echo "changed MiB: $(tr "\n" " " <changed)" &&
	written_inside &&
	emu_detach "$PACED_DEV" &&
	emu_stop paced
'

test_done
