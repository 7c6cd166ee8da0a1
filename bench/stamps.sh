#!/bin/sh
# stamps.sh - what a stamp fill of a whole simulated card costs.
#
# Writes stamps (the self-naming blocks of --capacity-check and the
# surface test) over every byte of sim:size=SIZE,fake=SIZE (a genuine card
# that keeps its data), then reads them all back and verifies them, with
# one --program run, and prints the peak resident memory and the CPU and
# wall time it took.  The card keeps a stamp as what names it, not as its
# bytes, so the memory stays a few MiB whatever SIZE is; the time is the
# CPU making and checking 512-byte stamps (the device time the model
# adds is virtual).  The target: peak RSS under 16 MiB.
#
# Usage: bench/stamps.sh [FLASHBENCH]   (default ./flashbench, built with
# make if missing).  SIZE=64G (default) bench/stamps.sh; CARD= replaces
# the whole spec.  Exit status 0 when the target holds, 1 when it does
# not, 2 when something could not run.

set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
fb=${1:-./flashbench}
size=${SIZE:-64G}
card=${CARD:-sim:size=$size,fake=$size}
[ -x "$fb" ] || make -s >&2
[ -x "$fb" ] || { echo "stamps: no $fb" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "stamps: needs /usr/bin/time (GNU time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/fill.prog" <<'PROG'
format spaces
let stamped = for pos in linear 0 4194304 $size / 4194304 total {
	stamp pos 4194304
}
let verified = for pos in linear 0 4194304 $size / 4194304 total {
	verify pos 4194304
}
report time stamped "stamped in %" stamped
report time verified "verified in %" verified
newline
PROG

/usr/bin/time -f "%M %U %e" -o "$tmp/time" \
	"$fb" --program="$tmp/fill.prog" "$card" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; echo "stamps: the run failed" >&2; exit 2; }
read -r rss_kib user_s wall_s <"$tmp/time"
printf 'card            %s\n' "$card"
printf 'device time     %s\n' "$(cat "$tmp/out")"
printf 'peak RSS        %s KiB\n' "$rss_kib"
printf 'CPU             %s s\n' "$user_s"
printf 'wall            %s s\n' "$wall_s"
[ "$rss_kib" -lt 16384 ]
