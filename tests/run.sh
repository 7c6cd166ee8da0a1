#!/bin/sh
# run.sh: run every unit test binary and shell test, count their TAP lines,
# and end with "N passed, M failed[, K skipped]".  Exit 1 on any failure.
# Usage: tests/run.sh [TEST...]   (default: every tests/unit-* and tests/t*.sh)

cd "$(dirname "$0")" || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

if [ $# -eq 0 ]; then
	set -- $(ls unit-*.c 2>/dev/null | sed 's/\.c$//') $(ls t[0-9]*.sh)
fi

for test in "$@"; do
	case $test in
	*.sh) cmd="sh ./$test" ;;
	*) cmd="$UNIT_WRAPPER ./$test" ;;
	esac
	echo "== $test"
	if ! $cmd >"$log" 2>&1; then
		status=1
		grep -q '^not ok' "$log" ||
			echo "not ok - $test exited with an error" >>"$log"
	fi
	cat "$log"
	cat "$log" >>results.log.$$
done

passed=$(grep -Ec '^ok [0-9]+( -|$)' results.log.$$ | head -n1)
skipped=$(grep -Ec '^ok [0-9]+ # skip' results.log.$$)
failed=$(grep -Ec '^not ok' results.log.$$)
rm -f results.log.$$
passed=$((passed))
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
