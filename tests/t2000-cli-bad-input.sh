#!/bin/sh
# t2000: bad command lines are refused before any I/O: exit 2, one line
# "flashbench: ..." (or "erase: ...") naming the problem, then the hint
# to try --help.  The cases are the table in bad-args.tsv.  Failures that
# only show at run time (a missing file) exit 1 without the hint.

. "$(dirname "$0")/lib.sh"

FILE=$TRASH/file64
SYNTAX=$TRASH/syntax.prog
EMPTY=$TRASH/empty.prog
truncate -s 64M "$FILE"
: >"$EMPTY"
printf 'format tabs\nlet x = 1\nfrobnicate 1 2\n' >"$SYNTAX"

while IFS=$tab read -r prog re args; do
	case $prog in
	'#'* | '') continue ;;
	esac
	test_expect_success "$prog $args: refused with /$re/" '
		eval "set -- $args" &&
		test_usage_error "$prog" "$re" "$@"
	'
done <"$TESTS_DIR/bad-args.tsv"

test_expect_success 'the table holds at least 35 flashbench and 6 erase cases' '
	test "$(grep -c "^flashbench$tab" "$TESTS_DIR/bad-args.tsv")" -ge 35 &&
	test "$(grep -c "^erase$tab" "$TESTS_DIR/bad-args.tsv")" -ge 6
'

test_expect_success 'usage errors name the program as flashbench, whatever argv[0]' '
	ln -s "$FLASHBENCH" ./fb-link &&
	test_expect_code 2 ./fb-link --bogus sim: 2>err &&
	head -n 1 err | grep "^flashbench: " &&
	test_expect_code 2 ./fb-link -a 2>err &&
	head -n 1 err | grep "^flashbench: "
'

test_expect_success 'a run of too many operations is refused, and at once' '
	test_expect_code 2 timeout 2 "$FLASHBENCH" -a -c 1000000 sim: \
		>out 2>err &&
	cat err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 2 &&
	grep "^flashbench: align: more than [0-9]* operations" err
'

test_expect_success 'refused open-au leaves the file untouched' '
	test_expect_code 2 "$FLASHBENCH" -O -0 100 "$FILE" &&
	test "$(dev_sum "$FILE")" = "$(head -c 64M /dev/zero | cksum)"
'

test_expect_success '--program with a missing file is a runtime error (exit 1)' '
	test_expect_code 1 "$FLASHBENCH" --program=$TRASH/no-such.prog sim: \
		>out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^flashbench: .*no-such\.prog: No such file or directory$" err
'

test_expect_success 'a missing device is a runtime error (exit 1)' '
	test_expect_code 1 "$FLASHBENCH" -a $TRASH/no-such-device >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^flashbench: .*no-such-device: No such file or directory$" err
'

test_expect_success 'erase of a missing device is a runtime error (exit 1)' '
	test_expect_code 1 "$ERASE" $TRASH/no-such-device 0 4M >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^erase: .*no-such-device: No such file or directory$" err
'

test_expect_success 'a write test on a read-only simulated card exits 1' '
	test_expect_code 1 "$FLASHBENCH" -O sim:size=256M,ro >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^flashbench: .*protected" err
'

test_done
