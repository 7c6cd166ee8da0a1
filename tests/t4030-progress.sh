#!/bin/sh
# t4030: the progress line appears only on a terminal, only with text
# output and not with --quiet; it never reaches files or pipes.
. "$(dirname "$0")/lib.sh"

test_expect_success 'no progress when stderr is not a terminal' '
	"$FLASHBENCH" -O --erasesize=4M --blocksize=16K sim: >out 2>err &&
	! grep -q "$(printf "\r")" err &&
	! grep -q "open-au: [0-9]*/" err &&
	! grep -q "$(printf "\r")" out
'

test_expect_success 'results are the same with --quiet' '
	"$FLASHBENCH" -a sim: >plain 2>/dev/null &&
	"$FLASHBENCH" -q -a sim: >quiet 2>/dev/null &&
	test_cmp plain quiet
'

# script(1) gives the command a terminal; a slow simulated card (many
# small writes) runs long enough for at least one redraw.
if command -v script >/dev/null 2>&1 && script -qc true /dev/null \
	>/dev/null 2>&1; then
	slow="-O -0 8 --erasesize=64M --blocksize=512 sim:"
	test_expect_success 'progress is drawn on a terminal and cleared' "
		script -qc '\"\$FLASHBENCH\" $slow >out' /dev/null >tty &&
		grep -q 'open-au: [0-9]*/[0-9]* ' tty &&
		! grep -q 'open-au: [0-9]*/' out
	"
	test_expect_success 'no progress on a terminal with --quiet or json' "
		script -qc '\"\$FLASHBENCH\" -q $slow >out' /dev/null >tty &&
		! grep -q 'open-au: [0-9]*/' tty &&
		script -qc '\"\$FLASHBENCH\" --format=json $slow >out' \
			/dev/null >tty &&
		! grep -q 'open-au: [0-9]*/' tty
	"
else
	test_skip 'progress is drawn on a terminal and cleared' 'no script(1)'
	test_skip 'no progress on a terminal with --quiet or json' \
		'no script(1)'
fi

test_done
