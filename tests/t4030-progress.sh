#!/bin/sh
# t4030: the progress line appears only on a terminal, only with text
# output and not with --quiet; it never reaches files or pipes.
. "$(dirname "$0")/lib.sh"

# The progress line is drawn at most every 0.2 s of wall time, at every
# 64th operation.  Each write on this card also takes 1 ms of wall time
# (pace=), so by the 256th of its 508 writes at least 0.256 s have passed
# and the line must have been drawn (on a terminal), however fast or busy
# the machine: a run that shows none shows none because it must not.
PACED_RUN="-O -0 4 --erasesize=1M --blocksize=16K sim:pace=1ms"

test_expect_success 'no progress when stderr is not a terminal' '
	"$FLASHBENCH" $PACED_RUN >out 2>err &&
	! grep -q "$(printf "\r")" err &&
	! grep -q "open-au: [0-9]*/" err &&
	! grep -q "$(printf "\r")" out
'

test_expect_success 'results are the same with --quiet' '
	"$FLASHBENCH" -a sim: >plain 2>/dev/null &&
	"$FLASHBENCH" -q -a sim: >quiet 2>/dev/null &&
	test_cmp plain quiet
'

# script(1) gives the command a terminal
if have_script; then
	test_expect_success 'progress is drawn on a terminal and cleared' "
		on_terminal '\"\$FLASHBENCH\" $PACED_RUN >out' &&
		progress_cleared open-au &&
		grep -q 'open-au: [0-9]*/508 ' tty &&
		! grep -q 'open-au: [0-9]*/' out &&
		test \"\$(wc -l <out)\" = 7
	"
	test_expect_success 'no progress on a terminal with --quiet or json' "
		on_terminal '\"\$FLASHBENCH\" -q $PACED_RUN >out' &&
		grep -q 'overwrites bytes' tty &&
		! grep -q 'open-au: [0-9]*/' tty &&
		on_terminal '\"\$FLASHBENCH\" --format=json $PACED_RUN >out' &&
		grep -q 'overwrites bytes' tty &&
		! grep -q 'open-au: [0-9]*/' tty
	"
else
	test_skip 'progress is drawn on a terminal and cleared' 'no script(1)'
	test_skip 'no progress on a terminal with --quiet or json' \
		'no script(1)'
fi

test_done
