#!/bin/sh
# save-output.sh: flashbench ($FLASHBENCH_REAL) run as usual, with each
# JSON or CSV document it writes to standard output (a file or a pipe) or
# to -o kept in $FLASHBENCH_RESULTS/json/ or csv/, for t9900 and t9910 to
# check against the schema and the CSV rules.  Its exit code goes beside
# it (NAME.code).  Anything else - text, a terminal, /dev/full, a block
# device - runs flashbench itself, unchanged (exec).  lib.sh points
# $FLASHBENCH here when tests/run.sh gives a results directory.
real=$FLASHBENCH_REAL
format= out= prev=
for arg in "$@"; do
	case $prev in
	-o | --out) out=$arg ;;
	--format) format=$arg ;;
	esac
	case $arg in
	--format=*) format=${arg#--format=} ;;
	--out=*) out=${arg#--out=} ;;
	-o?*) out=${arg#-o} ;;
	esac
	prev=$arg
done
case $format in
json | csv) ;;
*) exec "$real" "$@" ;;
esac
dir=$FLASHBENCH_RESULTS/$format
mkdir -p "$dir" 2>/dev/null
keep=$(mktemp "$dir/run.XXXXXXXX") || exec "$real" "$@"
stdout=$(readlink /proc/$$/fd/1 2>/dev/null)
if [ -n "$out" ] && [ "$out" != - ]; then
	"$real" "$@"
	code=$?
	if [ -f "$out" ]; then cp "$out" "$keep.$format"; fi
elif [ -f "$stdout" ]; then
	# what this run adds to the file, not what was there before
	start=$(stat -c %s "$stdout")
	"$real" "$@"
	code=$?
	tail -c +$((start + 1)) "$stdout" >"$keep.$format"
else
	case $stdout in
	pipe:*) ;;
	*)
		rm -f "$keep"
		exec "$real" "$@"
		;;
	esac
	{
		"$real" "$@"
		echo $? >"$keep.code"
	} | tee "$keep.$format"
	code=$(cat "$keep.code")
fi
echo "$code" >"$keep.code"
printf '%s\n' "$*" >"$keep"
exit "$code"
