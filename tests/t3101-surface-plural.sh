#!/bin/sh
# t3101: --surface's verdict line counts its bad ranges in words that
# agree with the number: "in 1 range", "in 2 ranges", "in 0 ranges".
. "$(dirname "$0")/lib.sh"

# verdict_of SPEC: the verdict line of a read-only --surface of SPEC
verdict_of() {
	"$FLASHBENCH" --surface -q "$1" >out 2>err
	test $? -le 4 && grep "^verdict: " out
}

test_expect_success 'one bad range is "1 range", two are "2 ranges"' '
	verdict_of sim:size=64M,bad=10M+64K >one &&
	grep -q "128 bad blocks in 1 range;" one &&
	verdict_of sim:size=64M,bad=10M+64K,bad=20M+64K >two &&
	grep -q "256 bad blocks in 2 ranges;" two &&
	verdict_of sim:size=64M >none &&
	grep -q " 0 bad blocks in 0 ranges;" none
'

test_done
