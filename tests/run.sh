#!/bin/sh
# run.sh: run every unit test binary and shell test, count their TAP lines,
# and end with "N passed, M failed[, K skipped]".  Exit 1 on any failure.
# Usage: tests/run.sh [TEST...]   (default: every tests/unit-* and tests/t*.sh)
# With FLASHBENCH_SANITIZED=DIR (a tree built with the sanitizers), every
# test runs a second time against DIR's binaries.  FLASHBENCH_BIN_DIR=DIR
# takes the binaries from DIR instead of the tree (a 32-bit build, say).

cd "$(dirname "$0")" || exit 1
log=$(mktemp)
results=$(mktemp)
# every JSON and CSV document the tests have flashbench write (lib.sh),
# checked by t9900 and t9910 at the end (a directory given is kept)
made_results=
if [ -z "$FLASHBENCH_RESULTS" ]; then
	FLASHBENCH_RESULTS=$(mktemp -d) && made_results=$FLASHBENCH_RESULTS
fi
export FLASHBENCH_RESULTS
trap 'rm -f "$log" "$results"; [ -z "$made_results" ] || rm -rf "$made_results"' EXIT
status=0

if [ $# -eq 0 ]; then
	set -- $(ls unit-*.c 2>/dev/null | sed 's/\.c$//') $(ls t[0-9]*.sh)
fi

# run_one LABEL COMMAND...: run, show and keep its TAP lines
run_one() {
	label=$1
	shift
	echo "== $label"
	if ! "$@" >"$log" 2>&1; then
		status=1
		grep -q '^not ok' "$log" ||
			echo "not ok - $label exited with an error" >>"$log"
	fi
	cat "$log"
	cat "$log" >>"$results"
}

# run_suite BIN_DIR PREFIX: every test against the binaries in BIN_DIR
run_suite() {
	for test in "$@"; do
		case $test in
		*.sh) run_one "$prefix$test" env FLASHBENCH="$bin/flashbench" \
			ERASE="$bin/erase" sh "./$test" ;;
		*) run_one "$prefix$test" $UNIT_WRAPPER "$bin/tests/$test" ;;
		esac
	done
}

bin=${FLASHBENCH_BIN_DIR:-$(cd .. && pwd)}
prefix=
run_suite "$@"
if [ -n "$FLASHBENCH_SANITIZED" ]; then
	# LeakSanitizer too: a leak fails the test like any other report
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
	FLASHBENCH_UNDER_SANITIZER=1
	export ASAN_OPTIONS UBSAN_OPTIONS FLASHBENCH_UNDER_SANITIZER
	bin=$FLASHBENCH_SANITIZED
	prefix="sanitized: "
	run_suite "$@"
fi

passed=$(grep -Ec '^ok [0-9]+( -|$)' "$results")
skipped=$(grep -Ec '^ok [0-9]+ # skip' "$results")
failed=$(grep -Ec '^not ok' "$results")
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
