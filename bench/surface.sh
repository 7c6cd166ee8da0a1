#!/bin/sh
# surface.sh - --surface against dd, badblocks and f3write/f3read on the
# same device.
#
# Makes a loop device of SIZE (default 512M, direct I/O) over a file under
# /var/tmp, and, where /dev/fuse and ./flashemu are there, a loop device
# over an emulated fake (sim:size=SIZE with fake= three quarters of it,
# wrapping) served by flashemu.  On each, filled with random data before
# every tool, it runs one after the other:
#
#   dd if=/dev/zero of=DEV bs=4M oflag=direct conv=fsync, then
#   dd if=DEV of=/dev/null bs=4M iflag=direct       (the sequential rate)
#   the same two with random data from a file       (incompressible)
#   flashbench --surface                            (read-only)
#   flashbench --surface --write
#   flashbench --surface --keep-data                (undo file in /var/tmp)
#   badblocks -n -b 4096 -c 1024                    (e2fsprogs; in /var/tmp)
#   badblocks -w -b 4096 -c 1024
#   f3write, f3read on ext4 on the device           (Debian package f3)
#
# each skipped, saying so, where not installed.  For each: the wall time,
# the bytes written to the device (sectors written in
# /sys/block/LOOP/stat), what it found, and whether the device's bytes
# are as before.  Then the ratios: --surface --write over the two dd runs
# of zeros (target: at most 1.10; and over those of random data),
# --keep-data over badblocks -n (target: at most 1.00).
#
# Usage: bench/surface.sh [FLASHBENCH]   (root; default ./flashbench, built
# with make if missing).  SIZE=2G bench/surface.sh for another size;
# each time is the fastest of ROUNDS (default 3) runs.
# Prints a text table per device, then the same as markdown.  Exit status
# 0 when both targets hold on the loop device, 1 when one does not, 2 when
# something could not run.

set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
fb=${1:-./flashbench}
emu=./flashemu
size=${SIZE:-512M}
rounds=${ROUNDS:-3}
[ -x "$fb" ] || make -s >&2
[ -x "$fb" ] || { echo "surface: no $fb" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "surface: needs root for a loop device" >&2; exit 2; }

tmp=$(mktemp -d /var/tmp/flashbench-surface.XXXXXX)
loops=
emu_pid=
cleanup() {
	for l in $loops; do losetup -d "$l" 2>/dev/null || :; done
	[ -z "$emu_pid" ] || kill "$emu_pid" 2>/dev/null || :
	[ -z "$emu_pid" ] || wait "$emu_pid" 2>/dev/null || :
	umount "$tmp/mnt" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

have() { command -v "$1" >/dev/null 2>&1; }
now_ns() { date +%s%N; }
sec() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e9 }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }

# bench DEV LABEL: every tool on DEV; rows in $tmp/rows.LABEL
bench() {
	dev=$1 label=$2 name=${1#/dev/}
	rows=$tmp/rows.$label
	: >"$rows"
	bytes=$(blockdev --getsize64 "$dev")
	written() { echo $(( $(awk '{ print $7 }' "/sys/block/$name/stat") * 512 )); }
	fill() {
		head -c "$bytes" /dev/urandom |
			dd of="$dev" bs=4M iflag=fullblock oflag=direct status=none
		dd if="$dev" bs=4M iflag=direct status=none | cksum >"$tmp/sum"
	}
	intact() {
		dd if="$dev" bs=4M iflag=direct status=none | cksum >"$tmp/now"
		if cmp -s "$tmp/sum" "$tmp/now"; then echo yes; else echo no; fi
	}
	# run TOOL FOUND-COMMAND CMD...: time CMD on freshly random data;
	# FOUND-COMMAND prints what it found from $tmp/out
	# Each of ROUNDS times (the fastest counts: other work on the
	# machine only ever adds time); what it found, wrote and left is the
	# last round's.
	run() {
		tool=$1 found=$2
		shift 2
		best=
		for round in $(seq "$rounds"); do
			fill
			w0=$(written)
			t0=$(now_ns)
			"$@" >"$tmp/out" 2>"$tmp/err" || :
			t1=$(now_ns)
			[ -n "$best" ] && [ "$best" -le $((t1 - t0)) ] ||
				best=$((t1 - t0))
		done
		echo "$tool|$best|$(( $(written) - w0 ))|$($found)|$(intact)" >>"$rows"
	}
	skip() { echo "$1|-|-|skipped: $2|-" >>"$rows"; }
	verdict() {
		python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
s = [r for r in doc["results"] if r["kind"] == "surface"][0]
print("%s, %d bad blocks%s" % (s["verdict"], s["bad_blocks"],
      ", usable %d" % s["usable_bytes"] if s["verdict"] == "fake" else ""))
' "$tmp/out" 2>/dev/null || echo "no result: $(head -c 80 "$tmp/err")"
	}
	bad_blocks() { echo "$(wc -l <"$tmp/out") bad blocks"; }
	nothing() { echo "-"; }
	dd_both() {
		dd if=/dev/zero of="$dev" bs=4M oflag=direct conv=fsync status=none &&
		dd if="$dev" of=/dev/null bs=4M iflag=direct status=none
	}
	dd_random() {
		dd if="$tmp/random" of="$dev" bs=4M oflag=direct conv=fsync status=none &&
		dd if="$dev" of=/dev/null bs=4M iflag=direct status=none
	}
	f3() {
		mkfs.ext4 -q -F "$dev" && mkdir -p "$tmp/mnt" &&
		mount "$dev" "$tmp/mnt" && f3write "$tmp/mnt" >/dev/null &&
		f3read "$tmp/mnt" && umount "$tmp/mnt"
	}
	f3_found() { grep -E "Data (OK|LOST)" "$tmp/out" | tr -s ' ' | tr '\n' ';'; }

	run "dd write + read" nothing dd_both
	# the same with incompressible data, as the stamps are (storage
	# under a loop file may write zeros for less)
	head -c "$bytes" /dev/urandom >"$tmp/random"
	run "dd write + read, random data" nothing dd_random
	rm -f "$tmp/random"
	run "flashbench --surface" verdict "$fb" --surface -q --format=json "$dev"
	run "flashbench --surface --write" verdict "$fb" --surface --write -q \
		--format=json "$dev"
	rm -f "$tmp/keep.undo"
	run "flashbench --surface --keep-data" verdict "$fb" --surface \
		--keep-data -q --format=json --undo-file="$tmp/keep.undo" "$dev"
	if have badblocks; then
		(cd "$tmp" && run "badblocks -n" bad_blocks badblocks -n -b 4096 \
			-c 1024 "$dev")
		run "badblocks -w" bad_blocks badblocks -w -b 4096 -c 1024 "$dev"
	else
		skip "badblocks -n" "badblocks not installed"
		skip "badblocks -w" "badblocks not installed"
	fi
	if have f3write && have f3read && have mkfs.ext4; then
		run "f3write + f3read (ext4)" f3_found f3
	else
		skip "f3write + f3read (ext4)" "f3write/f3read not installed"
	fi
}

# table LABEL: the rows as text and markdown, and the ratios
table() {
	rows=$tmp/rows.$1
	t_of() { awk -F'|' -v t="$1" '$1 == t { print $2 }' "$rows"; }
	echo "$2"
	awk -F'|' '{ printf "%-34s %8s %10s  %-5s %s\n", $1,
		$2 == "-" ? "-" : sprintf("%.2f", $2 / 1e9),
		$3 == "-" ? "-" : sprintf("%.0f", $3 / 1048576), $5, $4 }' "$rows"
	write=$(t_of "flashbench --surface --write") base=$(t_of "dd write + read")
	keep=$(t_of "flashbench --surface --keep-data") bb=$(t_of "badblocks -n")
	echo "--surface --write / dd write + read: $(ratio "$write" "$base")" \
		"(target 1.10; $(ratio "$write" "$(t_of "dd write + read, random data")")" \
		"against dd of random data); --keep-data / badblocks -n: $(ratio "$keep" "${bb:-0}")" \
		"(target 1.00)"
	echo
	echo "| tool | time (s) | written (MiB) | bytes as before | found |"
	echo "|---|---|---|---|---|"
	awk -F'|' '{ printf "| %s | %s | %s | %s | %s |\n", $1,
		$2 == "-" ? "-" : sprintf("%.2f", $2 / 1e9),
		$3 == "-" ? "-" : sprintf("%.0f", $3 / 1048576), $5, $4 }' "$rows"
	echo
}

img=$tmp/genuine.img
truncate -s "$size" "$img"
loop=$(losetup -f --show --direct-io=on "$img")
loops="$loops $loop"
bench "$loop" genuine
table genuine "genuine loop device of $size, random data"
write=$(awk -F'|' '$1 == "flashbench --surface --write" { print $2 }' "$tmp/rows.genuine")
base=$(awk -F'|' '$1 == "dd write + read" { print $2 }' "$tmp/rows.genuine")
keep=$(awk -F'|' '$1 == "flashbench --surface --keep-data" { print $2 }' "$tmp/rows.genuine")
bb=$(awk -F'|' '$1 == "badblocks -n" { print $2 }' "$tmp/rows.genuine")

if [ -c /dev/fuse ] && [ -x "$emu" ]; then
	bytes=$(blockdev --getsize64 "$loop")
	spec=sim:size=$bytes,fake=$((bytes / 4 * 3)),fake-mode=wrap
	mkdir -p "$tmp/emu"
	"$emu" --time-scale=1000 "$spec" "$tmp/emu" >"$tmp/emu.out" 2>&1 &
	emu_pid=$!
	n=0
	until grep -q "^ready " "$tmp/emu.out" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 500 ] || { echo "surface: flashemu did not start" >&2; exit 2; }
		sleep 0.02
	done
	fake=$(losetup -f --show --direct-io=on "$tmp/emu/card")
	loops="$fake $loops"
	bench "$fake" fake
	table fake "emulated fake through flashemu: $spec"
else
	echo "emulated fake: skipped (needs /dev/fuse and $emu)"
fi

awk -v w="$write" -v b="$base" -v k="$keep" -v n="${bb:-0}" \
	'BEGIN { exit !(w <= 1.10 * b && (n == 0 || k <= n)) }'
