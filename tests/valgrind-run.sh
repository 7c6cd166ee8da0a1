#!/bin/sh
# valgrind-run.sh: make check-valgrind.  Each unit test runs under
# valgrind's memcheck, and each shell test with FLASHBENCH and ERASE
# pointing at tests/valgrind-flashbench.sh and tests/valgrind-erase.sh.
# A memory error or definite leak in any process fails the test it came
# from, with valgrind's report.  Ends with "N passed, M failed[, K
# skipped]"; exit 1 on any failure.
# Usage: tests/valgrind-run.sh [TEST...]
# With no TEST: every unit test and the shell tests in $quick below, which
# reach every module and both programs in about six minutes.  Left out:
# the tests that signal, stop or shrink under a run in its middle (t8000,
# t8010: under valgrind such runs reach their time limit), and the
# usage, help, mount, progress-line and data-safety tests, which add
# little code but many processes.  VALGRIND_ALL=1 runs every shell test.
# VALGRIND_OPTS adds valgrind options (e.g. --track-origins=yes).
# FLASHBENCH_UNDER_SANITIZER and FLASHBENCH_UNDER_VALGRIND are set, so
# tests that measure memory or need real speed can skip themselves.

quick="t1000-sim-spec.sh t2100-align.sh t2200-open-au.sh t2300-erase.sh
t2600-other-tests.sh t4000-format-json.sh t4010-format-csv.sh t4020-plot.sh
t5000-analyze-seeds.sh t5100-detect.sh t6000-info-json.sh
t6001-info-text.sh"

cd "$(dirname "$0")" || exit 1
tests=$(pwd)
log=$(mktemp)
results=$(mktemp)
VALGRIND_LOG_DIR=$(mktemp -d)
trap 'rm -rf "$log" "$results" "$VALGRIND_LOG_DIR"' EXIT
trap 'exit 1' INT TERM
FLASHBENCH_UNDER_SANITIZER=1
FLASHBENCH_UNDER_VALGRIND=1
UNIT_WRAPPER="sh $tests/valgrind-exec.sh"
export VALGRIND_LOG_DIR FLASHBENCH_UNDER_SANITIZER FLASHBENCH_UNDER_VALGRIND
status=0

if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind-run.sh: valgrind not found" >&2
	exit 1
fi
if [ $# -eq 0 ]; then
	if [ "${VALGRIND_ALL:-0}" = 1 ]; then
		quick=$(ls t[0-9]*.sh)
	fi
	set -- $(ls unit-*.c 2>/dev/null | sed 's/\.c$//') $quick
fi

# valgrind_reports LABEL: a failing TAP line for each process that
# reported something, then its report.  Valgrind's notes on ioctls it
# does not model (BLKDISCARD, BLKZEROOUT: no data comes back) are not
# reports.
valgrind_reports() {
	for report in "$VALGRIND_LOG_DIR"/*.log; do
		[ -s "$report" ] || continue
		grep -v -e 'Warning: noted but unhandled ioctl' \
			-e 'This could cause spurious value errors' \
			-e 'README_MISSING_SYSCALL_OR_IOCTL' "$report" |
			grep -q . || continue
		echo "not ok - $1: valgrind: ${report##*/}"
		sed 's/^/#   /' "$report" | head -n 60
	done
	rm -f "$VALGRIND_LOG_DIR"/*.log
}

# run_test TEST: the unit test binary or shell script, under valgrind
run_test() {
	case $1 in
	*.sh) env FLASHBENCH="$tests/valgrind-flashbench.sh" \
		ERASE="$tests/valgrind-erase.sh" sh "./$1" ;;
	*) env UNIT_WRAPPER="$UNIT_WRAPPER" $UNIT_WRAPPER "./$1" ;;
	esac
}

for test in "$@"; do
	echo "== valgrind: $test"
	start=$(date +%s)
	if ! run_test "$test" >"$log" 2>&1; then
		status=1
		grep -q '^not ok' "$log" ||
			echo "not ok - $test exited with an error" >>"$log"
	fi
	valgrind_reports "$test" >>"$log"
	echo "# $test: $(($(date +%s) - start))s" >>"$log"
	cat "$log"
	cat "$log" >>"$results"
done

passed=$(grep -Ec '^ok [0-9]+( -|$)' "$results")
skipped=$(grep -Ec '^ok [0-9]+ # skip' "$results")
failed=$(grep -Ec '^not ok' "$results")
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
