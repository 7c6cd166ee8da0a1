#!/bin/sh
# repeat.sh: make check-repeat.  Runs tests/run.sh REPEAT times (default 5)
# while a CPU hog keeps every core busy (one busy loop per online CPU),
# prints each run's closing line ("N passed, M failed[, K skipped]") and
# exits 1 if any run failed.  The hog is stopped at the end, also after a
# failure or an interrupt.  The suite's tests synchronize on events, so a
# loaded machine makes them slower, never wrong: this is the proof.
# Usage: tests/repeat.sh [TEST...]   (passed on to run.sh)
# Environment: REPEAT (5), and what run.sh takes (FLASHBENCH_SANITIZED).

cd "$(dirname "$0")" || exit 1
runs=${REPEAT:-5}
case $runs in
'' | *[!0-9]* | 0) echo "repeat.sh: REPEAT must be a positive number" >&2
	exit 2 ;;
esac
cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
log=$(mktemp)
hogs=
suite=

# the hogs, and the suite run when interrupted in the middle of one
stop_all() {
	[ -n "$hogs$suite" ] && kill $hogs $suite 2>/dev/null
	hogs= suite=
	rm -f "$log"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

i=0
while [ $i -lt "$cpus" ]; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	i=$((i + 1))
done
echo "check-repeat: $runs runs of the suite, $cpus CPU hogs running"

failed=0
run=1
while [ $run -le "$runs" ]; do
	# in the background: a signal to this script is taken at once
	sh ./run.sh "$@" >"$log" 2>&1 &
	suite=$!
	if wait $suite; then
		result=passed
	else
		result=FAILED
		failed=$((failed + 1))
	fi
	suite=
	echo "run $run of $runs: $(tail -n 1 "$log") ($result)"
	# what failed, with the lines the test printed about it
	[ $result = passed ] ||
		grep -E -A 12 '^not ok' "$log" | grep -Ev '^ok ' | head -n 60
	run=$((run + 1))
done
echo "check-repeat: $((runs - failed)) of $runs runs passed"
[ $failed -eq 0 ]
