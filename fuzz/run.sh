#!/bin/sh
# run.sh: replay each libFuzzer target's regression inputs
# (tests/fuzz-regressions/NAME/), then fuzz it for SECONDS on its committed
# corpus (tests/fuzz-corpus/NAME/).  New inputs go to NEWDIR/NAME/, never
# to the corpus; crash inputs and logs go to NEWDIR/.  One line a target,
# "NAME: N runs, 0 crashes" or "NAME: FAILED ...".  Exit 1 if any failed.
# Usage: fuzz/run.sh SECONDS BINDIR NEWDIR [NAME...]
# FUZZ_JOBS=N runs N targets at a time (default 1).

top=$(cd "$(dirname "$0")/.." && pwd)
seconds=$1
bin=$2
new=$3
shift 3
if [ $# -eq 0 ]; then
	set -- $(cd "$top/fuzz" && ls fuzz-*.c | sed 's/^fuzz-//; s/\.c$//')
fi
jobs=${FUZZ_JOBS:-1}
mkdir -p "$new" || exit 1

# fuzz_one NAME: replay, then fuzz; the outcome line goes to NEWDIR/NAME.res
fuzz_one() {
	name=$1
	target=$bin/fuzz-$name
	log=$new/$name.log
	regressions=$top/tests/fuzz-regressions/$name
	res=$new/$name.res
	mkdir -p "$new/$name"
	if [ ! -x "$target" ]; then
		echo "$name: FAILED, no $target" >"$res"
		return
	fi
	if [ -d "$regressions" ] && [ -n "$(ls "$regressions")" ] &&
	   ! "$target" "$regressions"/* >"$log" 2>&1; then
		echo "$name: FAILED replaying $regressions (see $log)" >"$res"
		return
	fi
	if ! "$target" -max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$new/$name-" \
		"$new/$name" "$top/tests/fuzz-corpus/$name" >"$log" 2>&1; then
		echo "$name: FAILED (see $log and $new/$name-crash-*)" >"$res"
		return
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	echo "$name: ${runs:-?} runs, 0 crashes" >"$res"
}

running=0
for name in "$@"; do
	fuzz_one "$name" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

status=0
for name in "$@"; do
	cat "$new/$name.res"
	grep -q 'FAILED' "$new/$name.res" && status=1
done
exit $status
