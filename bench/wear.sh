#!/bin/sh
# wear.sh - what an endurance run to a card's end costs in wall time.
#
# Runs `--surface --write` pass after pass on a simulated card that wears
# (sim:size=SIZE,wear=CYCLES,seed=1, 64 GB at 100 cycles by default) until
# 10% of its blocks are bad (the first error comes at about pass 91), and
# prints the passes, the card's virtual time, the wall and CPU time and
# the peak resident memory.  The target: a 64 GB card at wear=100 runs to
# the end within a minute of wall time.
#
# Usage: bench/wear.sh [FLASHBENCH]   (default ./flashbench, built with
# make if missing).  SIZE=, WEAR= and UNTIL= change the run; CARD=
# replaces the whole spec.  Exit status 0 when the target holds (with
# the defaults), 1 when it does not, 2 when something could not run.

set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
fb=${1:-./flashbench}
card=${CARD:-sim:size=${SIZE:-64G},wear=${WEAR:-100},seed=1}
until=${UNTIL:-10%}
[ -x "$fb" ] || make -s >&2
[ -x "$fb" ] || { echo "wear: no $fb" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "wear: needs /usr/bin/time (GNU time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
/usr/bin/time -f "%M %U %e" -o "$tmp/time" \
	"$fb" --surface --write --until="$until" --seed=1 "$card" \
	>"$tmp/out" 2>"$tmp/err" || status=$?
# exit 4: blocks went bad, as they should on a card run to its end
[ "$status" -eq 0 ] || [ "$status" -eq 4 ] ||
	{ cat "$tmp/err" >&2; echo "wear: the run failed" >&2; exit 2; }
# GNU time puts "Command exited with non-zero status 4" first
tail -n 1 "$tmp/time" >"$tmp/figures"
read -r rss_kib user_s wall_s <"$tmp/figures"
printf 'card            %s\n' "$card"
printf 'until           %s\n' "$until"
grep '^endurance:' "$tmp/out" | sed 's/^/summary         /'
printf 'peak RSS        %s KiB\n' "$rss_kib"
printf 'CPU             %s s\n' "$user_s"
printf 'wall            %s s (target: 60 s)\n' "$wall_s"
awk -v w="$wall_s" 'BEGIN { exit !(w <= 60) }'
