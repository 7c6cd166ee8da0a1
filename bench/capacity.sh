#!/bin/sh
# capacity.sh - --capacity-check against f3probe on the same genuine device.
#
# Makes a loop device of SIZE (default 1G) backed by a file under
# /var/tmp, fills it with random data, and runs on it, one after the other,
#
#   f3probe --time-ops DEV                          (Debian package f3)
#   flashbench --capacity-check --format=json DEV
#
# For each: the verdict and usable size it reports, the bytes it wrote
# (sectors written in /sys/block/LOOP/stat, probes and restore together,
# measured the same way for both; and the probe writes alone, as each
# tool counts them), the device's busy time (ms reading plus ms writing
# in the same stat file), the wall time, and whether the device's
# checksum afterwards is the one before.  Then the ratios, flashbench's
# over f3probe's.  The target: flashbench writes at most 1/8 of what
# f3probe writes.
#
# Usage: bench/capacity.sh [FLASHBENCH]   (root; default ./flashbench, built
# with make if missing).  SIZE=4G bench/capacity.sh for another size.
# DEVICE=/dev/loopN bench/capacity.sh measures that device instead (a loop
# device over an emulated counterfeit card, as bench/flashemu.sh runs it);
# its contents are overwritten with random data first.
# Prints a text table, then the same as markdown.  Exit status 0 when the
# target holds, 1 when it does not, 2 when something could not run.

set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
fb=${1:-./flashbench}
size=${SIZE:-1G}
[ -x "$fb" ] || make -s >&2
[ -x "$fb" ] || { echo "capacity: no $fb" >&2; exit 2; }
command -v f3probe >/dev/null ||
	{ echo "capacity: needs f3probe (Debian package f3)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "capacity: needs root for a loop device" >&2; exit 2; }

tmp=$(mktemp -d)
img=
loop=
cleanup() {
	[ -z "$img" ] || [ -z "$loop" ] || losetup -d "$loop"
	rm -rf "$tmp" ${img:+"$img"}
}
trap cleanup EXIT INT TERM
if [ -n "${DEVICE:-}" ]; then
	loop=$DEVICE
	what="device $loop"
else
	img=$(mktemp /var/tmp/flashbench-capacity.XXXXXX)
	truncate -s "$size" "$img"
	loop=$(losetup -f --show "$img")
	what="genuine loop device"
fi
name=${loop#/dev/}
bytes=$(blockdev --getsize64 "$loop")
head -c "$bytes" /dev/urandom |
	dd of="$loop" bs=1M iflag=fullblock oflag=direct status=none

stat_field() { awk -v f="$1" '{ print $f }' "/sys/block/$name/stat"; }
dev_sum() { dd if="$loop" bs=1M iflag=direct status=none | cksum; }
now_ns() { date +%s%N; }

# measure TOOL CMD...: run CMD on the device; leaves TOOL's written
# sectors, busy ms, wall ns and checksum in $tmp/TOOL.*
measure() {
	tool=$1
	shift
	# each tool against the device as it found it
	tool_sum=$(dev_sum)
	w0=$(stat_field 7) r_ms0=$(stat_field 4) w_ms0=$(stat_field 8)
	t0=$(now_ns)
	# f3probe's exit status is not 0 for a fake or damaged device: only
	# no output at all is a failure to run
	"$@" >"$tmp/$tool.out" 2>"$tmp/$tool.err" || [ -s "$tmp/$tool.out" ] ||
		{ echo "capacity: failed: $*" >&2; cat "$tmp/$tool.err" >&2; exit 2; }
	t1=$(now_ns)
	echo $(( ($(stat_field 7) - w0) * 512 )) >"$tmp/$tool.written"
	echo $(( $(stat_field 4) - r_ms0 + $(stat_field 8) - w_ms0 )) >"$tmp/$tool.busy"
	echo $(( t1 - t0 )) >"$tmp/$tool.wall"
	if [ "$(dev_sum)" = "$tool_sum" ]; then echo yes; else echo no; fi \
		>"$tmp/$tool.intact"
}

measure f3probe f3probe --time-ops "$loop"
measure flashbench "$fb" --capacity-check --format=json -q \
	--undo-file="$tmp/undo" "$loop"

# f3probe: "Good news: ... the real thing" or "Bad news", the usable
# size in blocks of 512 bytes, and its write count in blocks.
f3_out=$tmp/f3probe.out
if grep -q "is the real thing" "$f3_out"; then f3_verdict=genuine
elif grep -q "is damaged" "$f3_out"; then f3_verdict=damaged
else f3_verdict=fake; fi
f3_usable=$(sed -n 's/.*\*Usable\* size:.*(\([0-9]*\) blocks).*/\1/p' "$f3_out")
f3_usable=$((f3_usable * 512))
f3_probe=$(awk '/^ *Write:/ { print $(NF - 2) * 512 }' "$f3_out")

# flashbench: the "capacity" record of its JSON output.
eval "$(python3 -c '
import json, sys
r = [r for r in json.load(open(sys.argv[1]))["results"]
     if r["kind"] == "capacity"][0]
print("fb_verdict=%s fb_usable=%d fb_probe=%d fb_time=%d" % (r["verdict"],
      r["usable_bytes"], r["bytes_written"], r["device_time_ns"]))
' "$tmp/flashbench.out")"

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
sec() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e9 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.4f" : "-"), a / b }'; }

f3_w=$(cat "$tmp/f3probe.written") fb_w=$(cat "$tmp/flashbench.written")
f3_busy=$(cat "$tmp/f3probe.busy") fb_busy=$(cat "$tmp/flashbench.busy")
f3_wall=$(cat "$tmp/f3probe.wall") fb_wall=$(cat "$tmp/flashbench.wall")

row() {	# tool verdict usable written probe busy_ms wall_ns intact
	printf '%-11s %-8s %12s %12s %12s %9s %8s %7s\n' "$1" "$2" "$3" \
		"$(mib "$4")" "$(mib "$5")" "$6" "$(sec "$7")" "$8"
}
echo "$what of $bytes bytes, random data"
printf '%-11s %-8s %12s %12s %12s %9s %8s %7s\n' tool verdict usable_bytes \
	written_MiB probe_MiB busy_ms wall_s intact
row f3probe "$f3_verdict" "$f3_usable" "$f3_w" "$f3_probe" "$f3_busy" \
	"$f3_wall" "$(cat "$tmp/f3probe.intact")"
row flashbench "$fb_verdict" "$fb_usable" "$fb_w" "$fb_probe" "$fb_busy" \
	"$fb_wall" "$(cat "$tmp/flashbench.intact")"
echo "flashbench / f3probe: written $(ratio "$fb_w" "$f3_w"), probe writes" \
	"$(ratio "$fb_probe" "$f3_probe"), busy $(ratio "$fb_busy" "$f3_busy")," \
	"wall $(ratio "$fb_wall" "$f3_wall")"
echo "flashbench's own device time: $(sec "$fb_time") s"
echo
echo "| tool | verdict | usable bytes | written (MiB, with restore) | probe writes (MiB) | device busy (ms) | wall (s) | bytes identical after |"
echo "|---|---|---|---|---|---|---|---|"
echo "| f3probe | $f3_verdict | $f3_usable | $(mib "$f3_w") | $(mib "$f3_probe") | $f3_busy | $(sec "$f3_wall") | $(cat "$tmp/f3probe.intact") |"
echo "| flashbench --capacity-check | $fb_verdict | $fb_usable | $(mib "$fb_w") | $(mib "$fb_probe") | $fb_busy | $(sec "$fb_wall") | $(cat "$tmp/flashbench.intact") |"
echo "| ratio | | | $(ratio "$fb_w" "$f3_w") | $(ratio "$fb_probe" "$f3_probe") | $(ratio "$fb_busy" "$f3_busy") | $(ratio "$fb_wall" "$f3_wall") | |"

awk -v a="$fb_w" -v b="$f3_w" 'BEGIN { exit !(a * 8 <= b) }'
