#!/bin/sh
# surface.sh - the pace of --surface --write and --keep-data against dd
# and badblocks, on a fast device and at a card's own pace.
#
# Two devices, each measured over the same SPAN bytes from its start:
#
#   fast  a loop device over a file in /dev/shm (cached, as a USB 3 SSD
#         would be), SIZE bytes (default 512M), all of them;
#   card  the simulated SanDisk SU08G (sim:sandisk-su08g) served by
#         ./flashemu at the card's own pace (--time-scale=SCALE, default
#         1) through a loop device, its first CARD_SPAN bytes (default
#         32M); skipped without /dev/fuse or ./flashemu.
#
# ROUNDS rounds (default 3); in each, over random data written first (not
# timed), one after the other:
#
#   badblocks -n -b 4096 -c 1024 DEV LAST 0     (e2fsprogs; skipped if
#                                                not installed)
#   flashbench --surface --keep-data            (its undo file in UNDO_DIR,
#                                                default /var/tmp)
#   dd if=RANDOM of=DEV bs=4M oflag=direct conv=fsync, then
#   dd if=DEV of=/dev/null bs=4M iflag=direct   (random data)
#   the same two with zeros                     (the sequential rate)
#   flashbench --surface --write
#
# VS=OTHER-FLASHBENCH adds the two flashbench runs of another build to
# each round (a build before a change, say), with their own rows.  Each
# row gives the median wall time of the rounds, the fastest and the
# slowest; then the ratios of the medians: --surface --write over dd of
# zeros (the target: at most 1.10 fast, 1.05 at the card's pace) and
# over dd of random data, --keep-data over badblocks -n (at most 2.00
# fast, 1.25 at the card's pace), and whether --keep-data left every
# byte of the span as it was (the last round's).
#
# Usage: bench/surface.sh [FLASHBENCH]   (root; default ./flashbench,
# built with make if missing).  ONLY=fast or ONLY=card runs one device.
# Exit status 0 when every target holds, 1 when one does not, 2 when
# something could not run.

set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
fb=${1:-./flashbench}
vs=${VS:-}
emu=./flashemu
size=${SIZE:-512M}
card_span=${CARD_SPAN:-32M}
scale=${SCALE:-1}
rounds=${ROUNDS:-3}
undo_dir=${UNDO_DIR:-/var/tmp}
only=${ONLY:-}
[ -x "$fb" ] || make -s >&2
[ -x "$fb" ] || { echo "surface: no $fb" >&2; exit 2; }
[ -z "$vs" ] || [ -x "$vs" ] || { echo "surface: no $vs" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "surface: needs root for a loop device" >&2; exit 2; }

tmp=$(mktemp -d /dev/shm/flashbench-surface.XXXXXX)
undo=$(mktemp -u "$undo_dir/flashbench-surface.XXXXXX").undo
loops=
emu_pid=
cleanup() {
	for l in $loops; do losetup -d "$l" 2>/dev/null || :; done
	[ -z "$emu_pid" ] || kill "$emu_pid" 2>/dev/null || :
	[ -z "$emu_pid" ] || wait "$emu_pid" 2>/dev/null || :
	rm -rf "$tmp"
	rm -f "$undo" "$undo.new"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

have() { command -v "$1" >/dev/null 2>&1; }
now_ns() { date +%s%N; }
bytes_of() { numfmt --from=iec "$1"; }
fail=0

# timed ROWS LABEL CMD...: CMD's wall time, in ns, appended to ROWS as
# "LABEL|ns"; its output in $tmp/out and $tmp/err
timed() {
	t_rows=$1 t_label=$2
	shift 2
	t0=$(now_ns)
	"$@" >"$tmp/out" 2>"$tmp/err" || {
		echo "surface: $t_label failed: $(head -c 300 "$tmp/err")" >&2
		exit 2
	}
	echo "$t_label|$(($(now_ns) - t0))" >>"$t_rows"
}

# bench DEV SPAN LABEL: every tool on [0, SPAN) of DEV, ROUNDS times;
# the rows in $tmp/rows.LABEL, whether the data stayed in $tmp/kept.LABEL
bench() {
	dev=$1 span=$2 label=$3
	rows=$tmp/rows.$label
	: >"$rows"
	blocks=$((span / 4194304))
	head -c "$span" /dev/urandom >"$tmp/random"
	sum() {
		dd if="$dev" bs=4M count="$blocks" iflag=direct status=none |
			cksum
	}
	fill() {
		dd if="$tmp/random" of="$dev" bs=4M oflag=direct conv=fsync \
			status=none
	}
	dd_both() {
		dd if="$1" of="$dev" bs=4M count="$blocks" oflag=direct \
			conv=fsync,notrunc status=none &&
		dd if="$dev" of=/dev/null bs=4M count="$blocks" iflag=direct \
			status=none
	}
	keep() {
		rm -f "$undo"
		"$1" --surface --keep-data -q --span="$span" \
			--undo-file="$undo" "$dev"
	}
	write() { "$1" --surface --write -q --span="$span" "$dev"; }
	for round in $(seq "$rounds"); do
		echo "$label: round $round of $rounds" >&2
		fill
		sum >"$tmp/before"
		if have badblocks; then
			timed "$rows" "badblocks -n" badblocks -n -b 4096 \
				-c 1024 "$dev" $((span / 4096 - 1)) 0
		fi
		timed "$rows" "flashbench --surface --keep-data" keep "$fb"
		sum >"$tmp/after"
		if cmp -s "$tmp/before" "$tmp/after"; then
			echo yes >"$tmp/kept.$label"
		else
			echo no >"$tmp/kept.$label"
		fi
		[ -z "$vs" ] || timed "$rows" "VS --surface --keep-data" \
			keep "$vs"
		timed "$rows" "dd write + read, random data" dd_both \
			"$tmp/random"
		timed "$rows" "dd write + read, zeros" dd_both /dev/zero
		timed "$rows" "flashbench --surface --write" write "$fb"
		[ -z "$vs" ] || timed "$rows" "VS --surface --write" write "$vs"
	done
	rm -f "$tmp/random"
}

# median LABEL ROWS: the median of LABEL's times in ns, "-" if none
median() {
	awk -F'|' -v t="$1" '$1 == t { print $2 }' "$2" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}

# ratio WHAT A B [TARGET]: "WHAT: A / B", and whether it holds the
# target (fail is set when not)
ratio() {
	if [ "$2" = - ] || [ "$3" = - ]; then
		echo "  $1: - (not measured)"
		return
	fi
	r=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", a / b }')
	if [ -z "${4:-}" ]; then
		echo "  $1: $r"
	elif awk -v r="$r" -v t="$4" 'BEGIN { exit !(r <= t) }'; then
		echo "  $1: $r (target $4: holds)"
	else
		echo "  $1: $r (target $4: NOT MET)"
		fail=1
	fi
}

# table LABEL TITLE WRITE-TARGET KEEP-TARGET
table() {
	rows=$tmp/rows.$1
	echo "$2"
	awk -F'|' '{ n[$1]++; t[$1, n[$1]] = $2; if (!seen[$1]++) order[++k] = $1 }
	END {
		printf "  %-36s %9s %9s %9s\n", "", "median s", "fastest", "slowest"
		for (i = 1; i <= k; i++) {
			l = order[i]; c = n[l]
			for (a = 1; a <= c; a++) v[a] = t[l, a]
			for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++)
				if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
			printf "  %-36s %9.2f %9.2f %9.2f\n", l,
				v[int((c + 1) / 2)] / 1e9, v[1] / 1e9, v[c] / 1e9
		}
	}' "$rows"
	write=$(median "flashbench --surface --write" "$rows")
	keep=$(median "flashbench --surface --keep-data" "$rows")
	zeros=$(median "dd write + read, zeros" "$rows")
	random=$(median "dd write + read, random data" "$rows")
	bb=$(median "badblocks -n" "$rows")
	ratio "--surface --write / dd of zeros" "$write" "$zeros" "$3"
	ratio "--surface --write / dd of random data" "$write" "$random"
	ratio "--keep-data / badblocks -n" "$keep" "$bb" "$4"
	if [ -n "$vs" ]; then
		ratio "VS --surface --write / dd of zeros" \
			"$(median "VS --surface --write" "$rows")" "$zeros"
		ratio "VS --keep-data / badblocks -n" \
			"$(median "VS --surface --keep-data" "$rows")" "$bb"
	fi
	echo "  --keep-data left every byte as it was: $(cat "$tmp/kept.$1")"
	echo
}

have badblocks || echo "badblocks -n: skipped (badblocks not installed:" \
	"e2fsprogs)" >&2

if [ "$only" != card ]; then
	img=$tmp/fast.img
	truncate -s "$size" "$img"
	fast=$(losetup -f --show "$img")
	loops="$loops $fast"
	bench "$fast" "$(bytes_of "$size")" fast
	losetup -d "$fast"
	loops=
	rm -f "$img"
fi

card=
if [ "$only" != fast ] && [ -c /dev/fuse ] && [ -x "$emu" ]; then
	mkdir -p "$tmp/emu"
	"$emu" --time-scale="$scale" sim:sandisk-su08g "$tmp/emu" \
		>"$tmp/emu.out" 2>&1 &
	emu_pid=$!
	n=0
	until grep -q "^ready " "$tmp/emu.out" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 500 ] || { echo "surface: flashemu did not start" >&2; exit 2; }
		sleep 0.02
	done
	card=$(losetup -f --show --direct-io=on "$tmp/emu/card")
	loops="$card $loops"
	bench "$card" "$(bytes_of "$card_span")" card
fi

echo
[ "$only" = card ] ||
	table fast "fast: a loop device over $size in /dev/shm, all of it" \
		1.10 2.00
if [ -n "$card" ]; then
	table card "card: sim:sandisk-su08g through flashemu\
 (--time-scale=$scale), its first $card_span" 1.05 1.25
elif [ "$only" != fast ]; then
	echo "card: skipped (needs /dev/fuse and $emu)"
fi
exit $fail
