#!/bin/sh
# t8030: every signal that would end the process puts the data back
# first.  SIGHUP (a closed ssh session), SIGQUIT, SIGPIPE, SIGUSR1 and
# SIGALRM, sent in the middle of --surface --keep-data, --capacity-check
# and each writing part of --report --write on a loop device of random
# data: exit 128 + the signal, every byte as before, no undo file left.
# A second signal while the data goes back waits for it and says so; a
# kill -9 of the report leaves its part to put back what it wrote; and a
# report whose reader goes away (| head) leaves the device as it was and
# nothing that blocks the next run.  A run catches every signal of
# lib/exitcode.c's table, and the man page's SIGNALS lists that table.

. "$(dirname "$0")/lib.sh"

UNDO=$TRASH/run.undo
FIFO=$TRASH/results.fifo
REPORT_ARGS="--write -e 1M --budget=1 --time=1 --span=32M --undo-file=$UNDO"

if have_loop; then
	loop_setup LOOP 320M
fi

test_expect_success 'flashbench.1 SIGNALS lists the table, each with 128 + its number' '
	table_signals >table &&
	test "$(wc -l <table)" = 10 &&
	sed -n "/^\.SH SIGNALS/,/^\.SH /p" "$TOP/doc/flashbench.1" |
		sed -n "s/^SIG\([A-Z0-9]*\)\t\([0-9]*\)\t.*/\1 \2/p" >page &&
	cut -d" " -f1 page | sort >names &&
	test_cmp table names &&
	while read -r name code; do
		test "$code" = $((128 + $(signum "$name"))) ||
			{ echo "SIG$name: $code" >&2; return 1; }
	done <page
'

# a run on a paced simulated card lasts until a signal ends it
test_expect_success 'a run catches every signal of the table' '
	fb_start -O -0 8 --erasesize=64M --blocksize=512 sim:pace=1ms &&
	wait_catching &&
	mask=$(sed -n "s/^SigCgt:[[:space:]]*//p" "/proc/$fb_pid/status") &&
	kill -TERM $fb_pid && fb_wait >/dev/null &&
	for name in $(table_signals); do
		n=$(signum "$name") &&
		[ $(( 0x$mask >> (n - 1) & 1 )) = 1 ] ||
			{ echo "SIG$name not caught (SigCgt $mask)" >&2; return 1; }
	done &&
	test "$(cat code)" = 143
'

test_loop 'a loop device of random data' '
	fill_random "$LOOP" &&
	dd if="$LOOP" of="$TRASH/image" bs=1M iflag=direct status=none &&
	dev_sum "$LOOP" >"$TRASH/before"
'

# fresh: no undo file, and the device as at the start, copied back from
# its image if a test before left it otherwise; the device is "dirty"
# until a test finds every byte back
fresh() {
	rm -f "$UNDO" "$UNDO.new" &&
	if [ -e "$TRASH/dirty" ]; then
		copy_to_dev "$TRASH/image" "$LOOP"
	fi &&
	: >"$TRASH/dirty"
}

# same: the device holds what it held at the start
same() {
	dev_sum "$LOOP" >now &&
	test_cmp "$TRASH/before" now &&
	rm -f "$TRASH/dirty"
}

# put_back SIG: the run ended 128 + SIG (its code in code), left no undo
# file (nor one staged beside it), and the device holds what it held at
# the start
put_back() {
	pb_want=$((128 + $(signum "$1"))) &&
	{ test "$(cat code)" = $pb_want ||
	  { echo "exit $(cat code), want $pb_want" >&2; return 1; }; } &&
	test ! -e "$UNDO" && test ! -e "$UNDO.new" &&
	same
}

# surface_signalled SIG: SIG once --surface --keep-data stamps its first
# chunk (past its 16 MiB saved, 8 MiB more)
surface_signalled() {
	fresh &&
	fb_start --surface --keep-data -q --undo-file="$UNDO" "$LOOP" &&
	wait_catching &&
	wait_written $((24 * MIB)) &&
	kill -"$1" $fb_pid &&
	fb_wait &&
	grep -q "interrupted; every chunk is back as it was" err &&
	put_back "$1"
}

# capacity_signalled SIG: SIG in the first round of --capacity-check,
# its output a full FIFO that holds it there
capacity_signalled() {
	fresh &&
	full_fifo &&
	FB_OUT=$FIFO fb_start --capacity-check --undo-file="$UNDO" "$LOOP" &&
	wait_written $((30 * MIB)) &&
	kill -"$1" $fb_pid &&
	poll_until "delivery of SIG$1" signal_taken "$(signum "$1")" &&
	drain_fifo &&
	fb_wait &&
	grep -q "interrupted; every block written was put back" err &&
	put_back "$1"
}

# report_in PART: --report --write started afresh, PART writing
report_in() {
	fresh &&
	fb_start --report $REPORT_ARGS "$LOOP" &&
	report_in_part "$1"
}

# pending PID SIGNUM...: each signal is pending for the process (sent
# by kill: in its shared pending set)
pending() {
	pd_pid=$1
	shift
	pd_hex=$(sed -n "s/^ShdPnd:[[:space:]]*//p" "/proc/$pd_pid/status") &&
	pd_mask=$((0x${pd_hex#"${pd_hex%????????}"})) &&
	for pd_sig in "$@"; do
		[ $((pd_mask & (1 << (pd_sig - 1)))) != 0 ] || return 1
	done
}

report_signalled() {
	report_in "$2" &&
	kill -"$1" $fb_pid &&
	fb_wait &&
	grep -q "interrupted; the summary is marked incomplete and every byte written was put back" err &&
	head -1 out | grep -q "INCOMPLETE: interrupted" &&
	put_back "$1"
}

for sig in HUP QUIT PIPE USR1 ALRM; do
	test_loop_io "SIG$sig in --surface --keep-data: exit 128 + SIG$sig, every byte back, no undo file" "
		surface_signalled $sig
	"
done

for sig in HUP QUIT PIPE USR1 ALRM; do
	test_loop_io "SIG$sig in --capacity-check: exit 128 + SIG$sig, every byte back, no undo file" "
		capacity_signalled $sig
	"
done

# one writing part each
for sig_part in HUP:write-speed QUIT:detect-write PIPE:iops \
		USR1:class-check ALRM:capacity-check; do
	sig=${sig_part%%:*} part=${sig_part#*:}
	test_loop_io "SIG$sig in --report --write, part $part: exit 128 + SIG$sig, every byte back, no undo file" "
		report_signalled $sig $part
	"
done

# SIGINT and SIGTERM reach the run at once, while it is stopped: the
# first stops it, the second finds the undo file there and waits
test_loop_io 'a second signal while the chunk goes back waits for it and says so' '
	fresh &&
	fb_start --surface --keep-data -q --undo-file="$UNDO" "$LOOP" &&
	wait_catching &&
	wait_written $((24 * MIB)) &&
	kill -STOP $fb_pid &&
	poll_until "the run stopped" stopped $fb_pid &&
	kill -INT $fb_pid && kill -TERM $fb_pid && kill -CONT $fb_pid &&
	fb_wait &&
	test "$(grep -c "^flashbench: putting back what was written before stopping (kill -9 would leave it to flashbench --restore=$UNDO $LOOP)\$" err)" = 1 &&
	grep -q "interrupted; every chunk is back as it was" err &&
	put_back INT
'

# the part stopped, the report passes both on; once it goes on, the
# part takes the first as the one that stops it
test_loop_io 'a second signal to the report waits for its part to put back' '
	report_in write-speed &&
	child=$(part_pid) && test -n "$child" &&
	kill -STOP "$child" &&
	poll_until "the part stopped" stopped "$child" &&
	kill -INT $fb_pid && kill -TERM $fb_pid &&
	{ poll_until "both passed on" pending "$child" 2 15; ok=$?
	  kill -CONT "$child"; test $ok = 0; } &&
	fb_wait &&
	grep -q "^flashbench: putting back what was written before stopping" err &&
	put_back INT
'

test_loop_io 'kill -9 of the report: its part puts back what it wrote' '
	report_in class-check &&
	child=$(part_pid) && test -n "$child" &&
	kill -9 $fb_pid && fb_wait >/dev/null &&
	test "$(cat code)" = 137 &&
	poll_until "the part ends" gone "$child" &&
	test ! -e "$UNDO" &&
	same
'

# the next run is not blocked: no undo file in its way, the device free
next_run_goes() {
	"$FLASHBENCH" --capacity-check --undo-file="$UNDO" "$LOOP" \
		>next.out 2>next.err &&
	grep -q "^verdict: genuine" next.out &&
	test ! -e "$UNDO"
}

# the reader stops after the line that announces detect --write's
# range: the part's next line, once its range is saved, has nowhere to go
test_loop '--report --write 2>&1 | sed ...q: exit 141, every byte back, the next run goes' '
	fresh &&
	# the reader goes once the first writing part has announced itself
	{ "$FLASHBENCH_REAL" --report $REPORT_ARGS "$LOOP" 2>&1
	  echo $? >code; } | sed "/detect --write overwrites bytes/q" >head.out &&
	cat head.out &&
	tail -1 head.out | grep -q "detect --write overwrites bytes" &&
	put_back PIPE &&
	next_run_goes
'

# the summary comes last, once every part has put back its range: the
# run ends 141 if head is gone by then, else 0
test_loop '--report --write | head -3: every byte back, the next run goes' '
	fresh &&
	{ "$FLASHBENCH_REAL" --report $REPORT_ARGS "$LOOP" 2>err
	  echo $? >code; } | head -n 3 >head.out &&
	test "$(wc -l <head.out)" = 3 &&
	head -1 head.out | grep -q "^report: $LOOP " &&
	{ test "$(cat code)" = 0 || put_back PIPE; } &&
	test ! -e "$UNDO" &&
	same &&
	next_run_goes
'

test_done
