#!/bin/sh
# bench/timings.sh: the wall-clock comparisons that used to be assertions
# in the test suite, as figures.  The suite asserts no timing: on a busy
# machine a timing moves, and a test that fails with the load teaches
# nothing.  Here the figures are printed, with the bounds they are meant
# to stay within, for a person to read.
#
#   -a on sim:           wall time of one align run on the simulated card
#                        (expected well under 1 s: the simulator is cheap)
#   -t -b 1M / dd        flashbench's read rate over dd iflag=direct's on
#                        a loop device (root only): medians of interleaved
#                        runs; expected within 10% of 1.00
#
# Usage: bench/timings.sh   (FLASHBENCH=binary, default ./flashbench,
# built when missing; TIMINGS_ROUNDS=3 rounds of the dd comparison).
# Exit 0 when every figure could be measured, 1 otherwise; the figures'
# distance from their bounds never changes the exit status.

set -u
cd "$(dirname "$0")/.." || exit 1
FB=${FLASHBENCH:-./flashbench}
ROUNDS=${TIMINGS_ROUNDS:-3}
if [ -z "${FLASHBENCH:-}" ]; then
	${MAKE:-make} -s flashbench || exit 1
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/flashbench-timings.XXXXXX") || exit 1
LOOP=
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
status=0

# median: the middle of the numbers on standard input
median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# ---- -a on the simulated card ----

start_ns=$(date +%s%N)
if "$FB" -a sim: >"$TMP/align" 2>&1; then
	end_ns=$(date +%s%N)
	echo "-a sim: $(((end_ns - start_ns) / 1000000)) ms wall" \
		"(expected well under 1000 ms)"
else
	echo "-a sim: failed:" >&2
	cat "$TMP/align" >&2
	status=1
fi

# ---- -t against dd on a loop device ----

# fb_rate: one -t -b 1M run of 0.3 s of device time; bytes per second.
fb_rate() {
	"$FB" -t -b 1M --time=0.3 --format=json "$LOOP" >"$TMP/doc.json" &&
	grep -o '"bytes_per_s": *[0-9][0-9.e+]*' "$TMP/doc.json" |
		tail -n 1 | sed 's/.*: *//'
}

# dd_rate: three passes of dd over the whole device (about as long as
# fb_rate); bytes per second from dd's own counts and times.
dd_rate() {
	for pass in 1 2 3; do
		LC_ALL=C dd if="$LOOP" of=/dev/null bs=1M iflag=direct ||
			return 1
	done 2>"$TMP/dd.err" &&
	awk '/ copied, / { bytes += $1; s += $(NF - 3); n++ }
		END { if (n != 3) exit 1; print bytes / s }' "$TMP/dd.err"
}

if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null 2>&1; then
	echo "-t -b 1M / dd: not measured (needs root and losetup)"
	status=1
elif ! head -c $((256 * 1048576)) /dev/urandom >"$TMP/image" ||
	! LOOP=$(losetup -f --show "$TMP/image"); then
	echo "-t -b 1M / dd: not measured (no loop device)"
	LOOP=
	status=1
else
	round=1
	: >"$TMP/ratios"
	while [ $round -le "$ROUNDS" ]; do
		: >"$TMP/fb" && : >"$TMP/dd"
		# three of each, interleaved, taking turns to go first
		for i in 1 2 3; do
			if [ $(((i + round) % 2)) = 1 ]; then
				fb_rate >>"$TMP/fb" && dd_rate >>"$TMP/dd"
			else
				dd_rate >>"$TMP/dd" && fb_rate >>"$TMP/fb"
			fi || { echo "-t -b 1M / dd: a run failed" >&2
				status=1; break 2; }
		done
		f=$(median <"$TMP/fb") d=$(median <"$TMP/dd")
		ratio=$(awk -v f="$f" -v d="$d" 'BEGIN { printf "%.3f", f / d }')
		echo "$ratio" >>"$TMP/ratios"
		echo "round $round: flashbench $(awk -v f="$f" \
			'BEGIN { printf "%.1f", f / 1e6 }') MB/s, dd $(awk \
			-v d="$d" 'BEGIN { printf "%.1f", d / 1e6 }') MB/s," \
			"ratio $ratio"
		round=$((round + 1))
	done
	if [ -s "$TMP/ratios" ]; then
		echo "-t -b 1M / dd iflag=direct: median ratio" \
			"$(median <"$TMP/ratios") over $(wc -l <"$TMP/ratios")" \
			"rounds (expected 0.90 to 1.10)"
	fi
fi
exit $status
