#!/bin/sh
# t2110: a device too small for a test's alignments or probes is refused
# before anything runs: exit 2, one line naming the test, the device's
# size and the size the test needs, then the hint.  Nothing is read or
# written, and no internal message of the program's compiler leaks out.
. "$(dirname "$0")/lib.sh"

TINY=$TRASH/tiny
ODD=$TRASH/odd
head -c 1221 /dev/zero >"$TINY"
head -c 100001 /dev/zero >"$ODD"

# TEST OPTION<TAB>what it needs at the defaults
while IFS=$tab read -r opt need; do
	test_expect_success "$opt on 1221 bytes: refused, needing $need bytes" '
		test_usage_error flashbench \
			"^[a-z-]+: .*tiny is 1221 bytes; the test needs at least $need bytes \(" \
			$opt "$TINY" &&
		! grep -E "operand|line [0-9]|fractional|past the end" usage.err
	'
done <<EOF2
-a	65536
-a -b 1024	4096
-s	8388608
-i	16777216
-f	25165824
-A	83886080
EOF2

test_expect_success '-O on 1221 bytes: refused, saying what does not fit' '
	test_usage_error flashbench "^--open-au: .* do not fit in .*tiny \(1221 bytes\); the test needs at least 25165824 bytes$" \
		-O "$TINY"
'

test_expect_success '-a on an odd size (100001 bytes): read, its top alignment whole' '
	"$FLASHBENCH" -a -b 1024 "$ODD" >out &&
	head -n 1 out | grep "^align 32768	pre " &&
	test "$(grep -c "^align " out)" -eq 5
'

test_expect_success 'the check is the size, not the name: 4 blocks is enough for -a' '
	head -c 65536 /dev/zero >"$TRASH/four" &&
	"$FLASHBENCH" -a "$TRASH/four" >out &&
	grep "^align 32768	" out
'

test_done
