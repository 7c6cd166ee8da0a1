#!/bin/sh
# t8000: interrupts.  Ctrl-C (SIGINT) during a run exits 130 with the
# results so far: whole lines, rows or records only, marked incomplete
# ("# incomplete: interrupted" in text, "incomplete": true in still valid
# JSON), --stats still printed, and nothing written outside the announced
# range.  SIGTERM exits 143; a second SIGINT exits at once.

. "$(dirname "$0")/lib.sh"

OPEN_AU_LINE="^${SIZE_RE} +${RATE_RE}\$"
MARK='# incomplete: interrupted'
IMAGE=$TRASH/image
# a long -O on the simulated card: about a second, more under sanitizers
SIM_LONG='-O -0 8 --erasesize=64M --blocksize=512 sim:'
# a long -O on the loop device: several seconds of small writes
LOOP_LONG='-O -e 16M -b 512 -0 4'

if have_loop; then
	loop_setup LOOP 256M
fi




# signal_run SIG DELAY: after DELAY seconds send SIG to the run (which
# must still be going), wait for it.
signal_run() {
	sleep "$2"
	if ! kill -"$1" $fb_pid 2>/dev/null; then
		fb_wait
		echo "the run ended before SIG$1" >&2
		return 1
	fi
	fb_wait
}

# interrupt SIG DELAY ARGS...: start flashbench ARGS, wait for its write
# announcement (if it writes), then DELAY seconds, send SIG, wait.
interrupt() {
	it_sig=$1 it_delay=$2
	shift 2
	fb_start "$@" || return 1
	case " $* " in
	*" -O "*|*--write*|*" -A "*|*" -f "*) wait_announced || return 1 ;;
	esac
	signal_run "$it_sig" "$it_delay"
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

# csv_whole_rows FILE: a header, then rows with as many fields, then the
# line that marks the run incomplete (only that line when interrupted
# before the first row).
csv_whole_rows() {
	whole_lines "$1" &&
	test "$(tail -n 1 "$1")" = "# incomplete: interrupted" &&
	{ grep -v "^#" "$1" >rows.csv || :; } &&
	{ test ! -s rows.csv || head -n 1 rows.csv | grep -q "^schema,"; } &&
	awk -F, 'NR == 1 { n = NF } NF != n { print "bad row: " $0; bad = 1 }
		END { exit bad }' rows.csv >&2
}

stats_printed() {
	grep -E "^device time [0-9.]+ s, read [^,]+, written " err
}

# ---- simulated card ----

test_expect_success 'sim: SIGINT during -O: exit 130, text marked incomplete, stats' '
	interrupt INT 0.2 $SIM_LONG --stats &&
	exit_is 130 &&
	text_incomplete out &&
	stats_printed &&
	grep "interrupted" err
'

test_expect_success 'sim: SIGINT during -O --format=json: valid JSON, "incomplete": true' '
	interrupt INT 0.2 $SIM_LONG --format=json &&
	exit_is 130 &&
	json_incomplete out
'

test_expect_success 'sim: SIGINT during -O --format=json -o FILE: FILE is valid JSON, incomplete' '
	interrupt INT 0.2 $SIM_LONG --format=json -o run.json &&
	exit_is 130 &&
	test ! -s out &&
	json_incomplete run.json
'

test_expect_success 'sim: SIGINT during -O --format=csv: whole rows only' '
	interrupt INT 0.2 $SIM_LONG --format=csv &&
	exit_is 130 &&
	csv_whole_rows out
'

test_expect_success 'sim: SIGTERM during -O: exit 143, marked incomplete' '
	interrupt TERM 0.2 $SIM_LONG &&
	exit_is 143 &&
	text_incomplete out
'

test_expect_success 'sim: SIGINT during -a: exit 130, marked incomplete' '
	interrupt INT 0.5 -a -b 1024 -c 100000 sim: &&
	exit_is 130 &&
	whole_lines out &&
	test "$(tail -n 1 out)" = "$MARK"
'

test_expect_success 'sim: a second SIGINT exits 130 at once' '
	fb_start $SIM_LONG &&
	wait_announced &&
	kill -INT $fb_pid && kill -INT $fb_pid &&
	fb_wait &&
	exit_is 130
'

# ---- loop device ----


# loop_interrupt SIG DELAY ARGS...: restore the device, interrupt
# flashbench ARGS DEVICE, and leave in changed the MiB pieces that differ
# from the image.
loop_interrupt() {
	li_sig=$1 li_delay=$2
	shift 2
	restore &&
	rm -f "$TRASH/dirty" &&
	interrupt "$li_sig" "$li_delay" "$@" "$LOOP"
	li_rc=$?
	chunk_sums_quick "$LOOP" $MIB >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	cp changed "$TRASH/dirty" &&
	echo "changed MiB: $(tr "\n" " " <changed)" &&
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

test_loop 'loop: SIGINT during -O: exit 130, partial text marked incomplete, stats, writes inside the range' '
	loop_interrupt INT 0.5 $LOOP_LONG --stats &&
	exit_is 130 &&
	text_incomplete out &&
	test -s results &&
	stats_printed &&
	grep "interrupted" err &&
	written_inside
'

test_loop 'loop: SIGINT during -O -o FILE: FILE complete up to its last record' '
	loop_interrupt INT 0.5 $LOOP_LONG -o run.txt &&
	exit_is 130 &&
	test ! -s out &&
	text_incomplete run.txt &&
	written_inside
'

test_loop 'loop: SIGINT during -O -r --format=json -o FILE: valid JSON, incomplete' '
	loop_interrupt INT 0.5 -O -r -e 16M -b 512 -0 4 --format=json \
		-o run.json --stats &&
	exit_is 130 &&
	json_incomplete run.json &&
	stats_printed &&
	written_inside
'

test_loop 'loop: SIGINT during -O --format=csv: whole rows only' '
	loop_interrupt INT 0.5 $LOOP_LONG --format=csv &&
	exit_is 130 &&
	csv_whole_rows out &&
	written_inside
'

test_loop 'loop: SIGTERM during -O: exit 143, marked incomplete, writes inside the range' '
	loop_interrupt TERM 0.5 $LOOP_LONG &&
	exit_is 143 &&
	text_incomplete out &&
	written_inside
'

test_loop 'loop: a second SIGINT exits 130 at once, writes inside the range' '
	restore && rm -f "$TRASH/dirty" &&
	fb_start $LOOP_LONG "$LOOP" &&
	wait_announced &&
	sleep 0.3 &&
	kill -INT $fb_pid && kill -INT $fb_pid &&
	fb_wait &&
	chunk_sums_quick "$LOOP" $MIB >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	cp changed "$TRASH/dirty" &&
	exit_is 130 &&
	whole_lines out &&
	written_inside
'

# The write probes take a fraction of a second on a loop device, so the
# signal may come after the end; either way nothing is written outside.
test_loop 'loop: SIGINT during --detect --write: exit 130 or done, writes inside the range' '
	loop_interrupt INT 0 --detect --write --erasesize=1M &&
	{ exit_is 0 || { exit_is 130 && grep "interrupted" err; }; } &&
	set -- $(announced_range err) &&
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
'

test_loop 'loop: SIGINT during -a: exit 130, marked incomplete, nothing written' '
	loop_interrupt INT 0.5 -a -b 1024 -c 2048 &&
	exit_is 130 &&
	whole_lines out &&
	test "$(tail -n 1 out)" = "$MARK" &&
	test ! -s changed
'

test_loop 'loop: SIGINT during --write-speed: exit 130, writes inside the range' '
	loop_interrupt INT 0.5 --write-speed --time=20 -e 1M &&
	exit_is 130 &&
	grep "interrupted" err &&
	written_inside
'

test_done
