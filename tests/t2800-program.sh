#!/bin/sh
# t2800: --program runs the example programs in tests/programs/, refuses
# bad ones with file:line:column, and lists the built-ins so they compile
# back to the same listing.
. "$(dirname "$0")/lib.sh"

P=$TESTS_DIR/programs

test_expect_success 'sequential-read: the rate climbs with the block size, then levels' '
	"$FLASHBENCH" --program="$P/sequential-read.prog" sim: >out &&
	test "$(wc -l <out)" = 9 &&
	test_lines_match out "^[0-9]+(KiB|MiB) +[0-9.]+M/s$" &&
	first=$(head -n 1 out | awk "{ print \$2 }" | tr -d M/s) &&
	last=$(tail -n 1 out | awk "{ print \$2 }" | tr -d M/s) &&
	awk -v a="$first" -v b="$last" "BEGIN { exit !(b > 2 * a) }"
'

test_expect_success 'page-scan: one line per 16KiB page of an erase block, with min and max' '
	"$FLASHBENCH" --program="$P/page-scan.prog" -c 2 --offset=16M sim: >out &&
	test "$(wc -l <out)" = 256 &&
	test_lines_match out "^[0-9]+	min [0-9.]+(µs|ms)	max [0-9.]+(µs|ms)$"
'

test_expect_success 'a program that writes announces its range and is destructive' '
	"$FLASHBENCH" --program="$P/erase-then-write.prog" --offset=16M \
		sim: >out 2>err &&
	grep -q "overwrites bytes 16777216 to 20971519" err &&
	grep -qE "^in order [0-9.]+M/s shuffled [0-9.]+M/s$" out
'

test_expect_success 'a program that writes is refused on a write-protected card' '
	test_expect_code 1 "$FLASHBENCH" --program="$P/erase-then-write.prog" \
		--offset=16M sim:ro 2>err &&
	test "$(wc -l <err)" = 1
'

test_expect_success 'a syntax error names file, line and column, exit 2' '
	test_expect_code 2 "$FLASHBENCH" \
		--program="$P/bad-unknown-variable.prog" sim: 2>err &&
	grep -q "bad-unknown-variable.prog:4:16: unknown variable .y." err
'

test_expect_success 'a program file that does not exist is a runtime error' '
	test_expect_code 1 "$FLASHBENCH" --program=nonexistent.prog sim: \
		2>err &&
	grep -q "^flashbench: nonexistent.prog: No such file" err
'

test_expect_success 'a program past the device end is refused before any I/O' '
	printf "read \$size 512\n" >past.prog &&
	test_expect_code 2 "$FLASHBENCH" --program=past.prog --stats sim: \
		>out 2>err &&
	grep -q "past the end" err &&
	test ! -s out
'

test_expect_success 'every built-in program lists and compiles back the same' '
	"$FLASHBENCH" --list-programs >listing &&
	test "$(grep -c "^# " listing)" -ge 7 &&
	grep -q "^for align in aligns" listing
'

test_expect_success 'the speed tests and the detect probes are listed programs' '
	"$FLASHBENCH" --list-programs >listing &&
	for name in read-speed write-speed iops class-check detect-align \
		detect-open-linear detect-open-random detect-fat detect-size; do
		grep -q "^# $name: " listing || { echo "no $name" >&2; return 1; }
	done
'

# A modified copy of read-speed: its windows, each a second of device
# time, with the rate added; 3 s of 1 MiB reads at the model's 19.6 MB/s.
test_expect_success 'a modified copy of read-speed runs with --program' '
	"$FLASHBENCH" --list-programs >listing &&
	sed -n "/^# read-speed:/,/^\$/p" listing | sed 1d |
		sed "s/^\treport count second w\$/&\n\treport mbps rate n * \$blocksize t/" \
		>rs.prog &&
	grep -q "report mbps rate" rs.prog &&
	"$FLASHBENCH" --program=rs.prog --time=3 -b 1M sim: >out &&
	test "$(wc -l <out)" = 3 &&
	awk "\$1 != NR || \$2 < 19.4 || \$2 > 19.8 || \$3 < 1.0 { exit 1 }" \
		out &&
	"$FLASHBENCH" -t --time=3 -b 1M sim: >t.out &&
	grep -q " 19.6 MB/s; per second: min 19.6, median 19.6" t.out
'

test_expect_success 'a loop bounded by time without I/O is refused' '
	printf "for i in linear 0 1 4 within \$time total {\n\tlet x = i\n}\n" \
		>idle.prog &&
	test_expect_code 2 "$FLASHBENCH" --program=idle.prog sim: 2>err &&
	grep -q "bounded by time needs a read, write or discard" err
'

test_expect_success 'a text longer than 1024 characters is refused, 1024 is not' '
	text=$(printf "%01022d" 0 | tr 0 x) &&
	echo "report count k \"$text %\" 1" >ok.prog &&
	"$FLASHBENCH" --program=ok.prog sim: >out &&
	echo "$text 1" >expect && test_cmp expect out &&
	echo "report count k \"${text}x %\" 1" >long.prog &&
	test_expect_code 2 "$FLASHBENCH" --program=long.prog sim: 2>err &&
	grep "long.prog:1:16: text longer than 1024 characters" err
'

test_expect_success 'a key longer than 63 characters is refused, 63 is not' '
	long=$(printf "%064d" 0 | tr 0 k) &&
	echo "report count $long 1" >long.prog &&
	test_expect_code 2 "$FLASHBENCH" --program=long.prog sim: 2>err &&
	grep "long.prog:1:14: key longer than 63 characters" err &&
	echo "report count \"${long}s %\" 1" >text.prog &&
	test_expect_code 2 "$FLASHBENCH" --program=text.prog sim: 2>err &&
	grep "key (the text.s first word) longer than 63" err &&
	echo "report count ${long#k} 1" >ok.prog &&
	"$FLASHBENCH" --program=ok.prog --format=csv sim: >out &&
	head -n 1 out >header &&
	echo "schema,kind,${long#k},note" >expect && test_cmp expect header
'

# plan_refused PROG STEP: --program=PROG on sim: exits 2 with nothing on
# stdout and, on stderr, the plan error for STEP at line 2, then the hint
plan_refused() {
	test_expect_code 2 "$FLASHBENCH" --program="$1" sim: >out 2>err &&
	cat err &&
	test ! -s out &&
	cat >expect <<-EOF &&
	flashbench: $1: $2 (line 2); check --blocksize, --erasesize and --offset for sim: (7948206080 bytes, blocks of 512)
	Try 'flashbench --help' for more information.
	EOF
	test_cmp expect err
}

test_expect_success 'a negative offset is refused with the step it makes' '
	printf "let n = 0 - 4096\nread n 4096\n" >neg.prog &&
	plan_refused neg.prog \
		"read at -4096 (+4096): the offset is negative"
'

test_expect_success 'a negative length is refused with the offset it has' '
	printf "let n = 0 - 512\nwrite 8192 n\n" >neglen.prog &&
	plan_refused neglen.prog \
		"write at 8192 (+-512): the length is negative"
'

test_expect_success 'an offset past 64 bits is said to be too large, not 2^64-1' '
	printf "let big = \$size * \$size\nread big 512\n" >big.prog &&
	plan_refused big.prog "read at 63173979890148966400 (+512): the offset is too large (9e18 or more)"
'

test_expect_success 'a fractional or undefined length is said to be so' '
	printf "let third = 1 / 3\nread 0 third\n" >third.prog &&
	plan_refused third.prog \
		"read at 0 (+0.333333): the length is fractional" &&
	printf "let z = 0\nread 1024 512 / z\n" >nan.prog &&
	plan_refused nan.prog "read at 1024 (+undefined): the length is undefined (as after a division by zero)"
'

test_expect_success 'a negative count or depth names the operand, with no (+0)' '
	printf "let n = 0 - 1\nrepeat n min { read 0 512 }\n" >count.prog &&
	plan_refused count.prog "repeat: the count is -1, negative" &&
	printf "let d = 300\nfor i in linear 0 1 4 within 1000 depth d total { read 0 512 }\n" \
		>depth.prog &&
	plan_refused depth.prog "for: the depth is 300, out of range (1 to 256)"
'

test_expect_success 'a directory given as the program is said to be one' '
	mkdir progs &&
	test_usage_error flashbench \
		"^--program: progs: is a directory; give a program file\$" \
		--program=progs sim:
'

test_done
