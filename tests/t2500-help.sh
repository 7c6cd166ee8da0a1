#!/bin/sh
# t2500: --help prints the whole usage text (compared with
# t2500-help.expect), within 80 columns, and names every option the parser
# knows; --version prints "flashbench VERSION".

. "$(dirname "$0")/lib.sh"

test_expect_success '--help prints the expected text on stdout, exit 0' '
	"$FLASHBENCH" --help >out 2>err &&
	test ! -s err &&
	test_cmp "$TESTS_DIR/t2500-help.expect" out
'

test_expect_success '-h prints the same text as --help' '
	"$FLASHBENCH" -h >out &&
	test_cmp "$TESTS_DIR/t2500-help.expect" out
'

test_expect_success '--help wins over other arguments' '
	"$FLASHBENCH" -a --help sim: >out &&
	test_cmp "$TESTS_DIR/t2500-help.expect" out
'

test_expect_success '--help fits in 80 columns' '
	"$FLASHBENCH" --help >out &&
	awk "length > 80 { print; bad = 1 } END { exit bad }" out
'

test_expect_success '--help has the usage line, options and the man page pointer' '
	"$FLASHBENCH" --help >out &&
	grep "^ flashbench \[options\] <device>$" out &&
	grep "^Options:$" out &&
	grep "flashbench(1)" out
'

test_expect_success '--help lists the short options scripts use' '
	"$FLASHBENCH" --help >out &&
	for o in "-a, --align" "-s, --scatter" "-i, --interval" \
		"-f, --find-fat" "-O, --open-au" "-0, --open-au-nr" \
		"-r, --random" "-v, --verbose" "-c, --count" \
		"-b, --blocksize" "-e, --erasesize" "-o, --out" \
		"--scatter-order" "--scatter-span" "--interval-order" \
		"--fat-nr" "--offset"; do
		grep -e " $o[ =]" out || return 1
	done
'

# The parser names an option it does not take ("unknown option '--x'",
# "option '--x' is ambiguous (...)"); the first check proves the words
# looked for are the ones it prints, so the loop can catch a miss.
test_expect_success 'every long option in --help is known to the parser' '
	"$FLASHBENCH" --no-such-option >/dev/null 2>err </dev/null;
	grep -E "unknown option|is ambiguous" err &&
	"$FLASHBENCH" --s >/dev/null 2>err </dev/null;
	grep -E "unknown option|is ambiguous" err &&
	"$FLASHBENCH" --help >out &&
	sed -n "s/^ *\(-., \)\{0,1\}--\([a-z-]*\).*/\2/p" out >names &&
	test "$(wc -l <names)" -ge 25 &&
	while read -r name; do
		"$FLASHBENCH" "--$name" >/dev/null 2>err </dev/null
		if grep -E "unknown option|is ambiguous" err; then
			echo "--$name is not accepted" >&2
			return 1
		fi
	done <names
'

test_expect_success '--version prints "flashbench VERSION", exit 0' '
	"$FLASHBENCH" --version >out 2>err &&
	test ! -s err &&
	test "$(wc -l <out)" = 1 &&
	grep -Ex "flashbench [0-9]+(\.[0-9]+)*" out
'

test_expect_success '-V prints the same as --version' '
	"$FLASHBENCH" --version >expect &&
	"$FLASHBENCH" -V >out &&
	test_cmp expect out
'

test_expect_success '--list-programs prints every built-in test' '
	"$FLASHBENCH" --list-programs >out 2>err &&
	test ! -s err &&
	for p in align write-align open-au open-au-random find-fat scatter \
		interval; do
		grep "^# $p: " out || return 1
	done
'

test_done
