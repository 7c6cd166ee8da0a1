#!/bin/sh
# bench/report-estimate.sh: what --report --write says it will take
# against what it takes, on a simulated card served by flashemu (time
# scale 1: the card's own pace) through a loop device with direct I/O,
# filled with random data.  Prints the plan's estimate, the wall time
# and their ratio, each part's estimate and time, and whether every byte
# came back.  Not part of make check: it prints figures and judges
# nothing (a run of the defaults takes about 8 minutes).  Root, /dev/fuse
# and loop devices; run from anywhere after make.
#
# SPEC (sim:size=512M,fake=512M: a 512 MiB card that keeps its data)
# chooses the card; ARGS (none: the defaults) adds options to --report.

set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
FB=$TOP/flashbench
EMU=$TOP/flashemu
SPEC=${SPEC:-sim:size=512M,fake=512M}
ARGS=${ARGS:-}

if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ] || [ ! -e /dev/loop-control ]
then
	echo "bench/report-estimate.sh: needs root, /dev/fuse and loop devices" >&2
	exit 1
fi
[ -x "$FB" ] && [ -x "$EMU" ] || { echo "run make first" >&2; exit 1; }

WORK=$(mktemp -d /tmp/report-estimate.XXXXXX)
DEV=
EMU_PID=

# the card's loop device detached, flashemu ended (it unmounts the card)
cleanup() {
	[ -n "$DEV" ] && losetup -d "$DEV"
	if [ -n "$EMU_PID" ]; then
		kill -TERM "$EMU_PID" 2>/dev/null
		wait "$EMU_PID"
	fi
	umount -l "$WORK/card" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# stamp: each line of standard input after the seconds since the epoch
stamp() {
	while IFS= read -r line; do
		printf '%s %s\n' "$(date +%s.%N)" "$line"
	done
}

# flashemu serves the card once it prints its ready line: read from a
# pipe kept open until the end (no polling)
mkdir -p "$WORK/card"
mkfifo "$WORK/emu.out"
"$EMU" "$SPEC" "$WORK/card" >"$WORK/emu.out" 2>"$WORK/emu.err" &
EMU_PID=$!
exec 3<"$WORK/emu.out"
until IFS= read -r line <&3 && [ "${line%% *}" = ready ]; do
	kill -0 "$EMU_PID" 2>/dev/null || {
		cat "$WORK/emu.err" >&2
		exit 1
	}
done
DEV=$(losetup -f --show --direct-io=on "$WORK/card/card") || exit 1
size=$(blockdev --getsize64 "$DEV")
echo "card: $SPEC on $DEV ($size bytes), --report --write $ARGS"
head -c "$size" /dev/urandom | dd of="$DEV" bs=1M iflag=fullblock \
	oflag=direct status=none
before=$(dd if="$DEV" bs=1M iflag=direct status=none | cksum)

start=$(date +%s.%N)
# shellcheck disable=SC2086
"$FB" --report --write --undo-file="$WORK/report.undo" $ARGS "$DEV" \
	2>&1 >"$WORK/report.out" | stamp >"$WORK/report.err"
end=$(date +%s.%N)
after=$(dd if="$DEV" bs=1M iflag=direct status=none | cksum)

# each part: the estimate the plan gave it (its own time and the saving's)
# and the time from its "part N of M" line to the next
awk -v start="$start" -v end="$end" '
	function secs(text) {
		if (text ~ /ms$/) return substr(text, 1, length(text) - 2) / 1000
		if (text ~ /µs$|ns$/) return 0
		return substr(text, 1, length(text) - 1) + 0
	}
	/--report runs [0-9]* parts, about/ {
		sub(/.* about /, ""); total = $1 + 0
	}
	/^[0-9.]*   [a-z0-9-]* *flashbench / {
		name = $2; est[name] = 0
		if (match($0, /; about [0-9]+ s/))
			est[name] = substr($0, RSTART + 8, RLENGTH - 10) + 0
		if (match($0, /put back in about [0-9.]+[mµn]?s/))
			est[name] += secs(substr($0, RSTART + 18, RLENGTH - 18))
		order[++parts] = name
	}
	/--report: part [0-9]* of [0-9]*, / {
		name = $0; sub(/.*, /, "", name); sub(/:.*/, "", name)
		if (last) took[last] = $1 - at
		last = name; at = $1
	}
	END {
		if (last) took[last] = end - at
		printf "%-16s %10s %10s\n", "part", "estimate", "took"
		for (i = 1; i <= parts; i++)
			printf "%-16s %9.1fs %9.1fs\n", order[i], est[order[i]],
				took[order[i]]
		actual = end - start
		printf "\nestimate %.0f s, actual %.0f s, estimate/actual %.2f\n",
			total, actual, total / actual
	}' "$WORK/report.err"
grep "saving and putting back are timed" "$WORK/report.err" | cut -d" " -f2-
if [ "$before" = "$after" ]; then
	echo "every byte back: yes"
else
	echo "every byte back: NO"
fi
