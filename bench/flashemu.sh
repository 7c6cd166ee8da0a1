#!/bin/sh
# bench/flashemu.sh: the simulated card through the kernel, side by side
# with the model itself, and the advice put to the test.  Not part of
# make check: it prints figures and judges nothing.  Root, /dev/fuse and
# loop devices; run from anywhere after make.
#
#   1. flashbench -a, -O and --detect --write on sim: directly and on a
#      loop device over flashemu (time scale 1): the same geometry?
#   2. dd and fio (when installed) rates against the model's own rate
#      (bytes over the model's device time, from flashemu's statistics).
#   3. the original flashbench (Debian package flashbench), when installed.
#   4. fake cards (--capacity-check and f3probe), when the tree has them.
#   5. the advice: a file system made twice - the defaults (partition at
#      1 MiB, plain mkfs) and what --detect --write recommends - and the
#      same small-file workload on each: device time and garbage
#      collections from the statistics.
#
# PRESET (sandisk-su08g) and SIZE (1G) choose the card; FILES (2000) the
# workload; SCALE (10) the time scale of part 5 (the statistics keep the
# model's times whatever it is).

set -u
cd "$(dirname "$0")/.." || exit 1
. bench/waitfor.sh
TOP=$(pwd)
FB=$TOP/flashbench
EMU=$TOP/flashemu
PRESET=${PRESET:-sandisk-su08g}
SIZE=${SIZE:-1G}
FILES=${FILES:-2000}
SCALE=${SCALE:-10}
SPEC=sim:$PRESET,size=$SIZE

if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ] || [ ! -e /dev/loop-control ]
then
	echo "bench/flashemu.sh: needs root, /dev/fuse and loop devices" >&2
	exit 1
fi
[ -x "$FB" ] && [ -x "$EMU" ] || { echo "run make first" >&2; exit 1; }

WORK=$(mktemp -d /tmp/flashemu-bench.XXXXXX)
EMU_NAMES=

cleanup() {
	for name in $EMU_NAMES; do
		losetup -j "$WORK/$name/card" 2>/dev/null | cut -d: -f1 |
			while read -r dev; do losetup -d "$dev"; done
		[ -s "$WORK/$name.pid" ] && kill -TERM "$(cat "$WORK/$name.pid")" \
			2>/dev/null
	done
	for name in $EMU_NAMES; do
		wait_for "$name stopped" test -s "$WORK/$name.rc"
		umount -l "$WORK/$name" 2>/dev/null
	done
	umount -l "$WORK/fs" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# emu_up NAME SCALE SPEC: start flashemu, wait for its ready line.
emu_up() {
	mkdir -p "$WORK/$1"
	EMU_NAMES="$EMU_NAMES $1"
	(
		sh -c 'echo $$ >"$0.pid"; exec "$@"' "$WORK/$1" "$EMU" \
			--time-scale="$2" --stats="$WORK/$1.json" "$3" \
			"$WORK/$1" >"$WORK/$1.out" 2>"$WORK/$1.err"
		echo $? >"$WORK/$1.rc"
	) &
	wait_for "flashemu ready" grep -qs "^ready" "$WORK/$1.out"
}

emu_down() {
	kill -TERM "$(cat "$WORK/$1.pid")"
	wait_for "$1 stopped" test -s "$WORK/$1.rc"
}

# snapshot NAME FILE: the statistics now, into FILE.
snapshot() {
	rm -f "$WORK/$1.json"
	kill -USR1 "$(cat "$WORK/$1.pid")"
	wait_for "statistics" test -s "$WORK/$1.json" &&
	cp "$WORK/$1.json" "$2"
}

# field FILE NAME: one number of a statistics file.
field() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1"
}

# delta A B NAME: how much NAME grew from snapshot A to B.
delta() {
	echo $(($(field "$2" "$3") - $(field "$1" "$3")))
}

# align_diff FILE ALIGN: the diff column of -a's line for ALIGN.
align_diff() {
	awk -v a="$2" '$2 == a { print $NF }' "$1"
}

# au_rate FILE SIZE: -O's rate for SIZE.
au_rate() {
	awk -v s="$2" '$1 == s { print $2 }' "$1"
}

# finding FILE LABEL: the value of a --detect line ("erase block size:").
finding() {
	sed -n "s/^$2: *//p" "$1" | head -n 1
}

row() {
	printf '    %-44s %-26s %s\n' "$@"
}

missing=
for peer in fio:fio f3probe:f3 /usr/bin/flashbench:flashbench \
	mkfs.vfat:dosfstools mkfs.f2fs:f2fs-tools; do
	command -v "${peer%%:*}" >/dev/null 2>&1 ||
		missing="$missing ${peer##*:}"
done
echo "card: $SPEC (flashemu, loop device with direct I/O)"
[ -n "$missing" ] &&
	echo "not installed (Debian packages):$missing - their parts are skipped"
echo

# ---- 1. geometry through the kernel ---------------------------------

emu_up geo 1 "$SPEC"
LOOP=$(losetup -f --show --direct-io=on "$WORK/geo/card")
"$FB" -a -b 1024 "$SPEC" >"$WORK/a.sim"
"$FB" -a -b 1024 "$LOOP" >"$WORK/a.loop"
for n in 2 8; do
	"$FB" -O -e 4M -b 512K -0 $n "$SPEC" >"$WORK/o$n.sim" 2>/dev/null
	"$FB" -O -e 4M -b 512K -0 $n "$LOOP" >"$WORK/o$n.loop" 2>/dev/null
done
"$FB" --detect --write "$SPEC" >"$WORK/d.sim" 2>/dev/null
snapshot geo "$WORK/geo.before"
start=$(date +%s.%N)
"$FB" --detect --write "$LOOP" >"$WORK/d.loop" 2>/dev/null
end=$(date +%s.%N)
snapshot geo "$WORK/geo.after"

echo "1. geometry: sim: directly vs the same card through the kernel"
row "measurement" "sim: (model)" "loop over flashemu"
row "-a diff at 4MiB" "$(align_diff "$WORK/a.sim" 4194304)" \
	"$(align_diff "$WORK/a.loop" 4194304)"
row "-a diff at 2MiB" "$(align_diff "$WORK/a.sim" 2097152)" \
	"$(align_diff "$WORK/a.loop" 2097152)"
for n in 2 8; do
	for s in 4MiB 512KiB; do
		row "-O -0 $n, $s writes" "$(au_rate "$WORK/o$n.sim" $s)" \
			"$(au_rate "$WORK/o$n.loop" $s)"
	done
done
for label in "erase block size" "page size" "open erase blocks" \
	"open out of order" "smallest efficient write"; do
	row "--detect --write: $label" "$(finding "$WORK/d.sim" "$label")" \
		"$(finding "$WORK/d.loop" "$label")"
done
row "--detect --write cost" "$(finding "$WORK/d.sim" cost | cut -d, -f1)" \
	"$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f s wall", b - a }')"
echo "    (largest request the kernel sent: write" \
	"$(field "$WORK/geo.after" fuse_max_write_bytes) bytes, read" \
	"$(field "$WORK/geo.after" fuse_max_read_bytes) bytes)"
ADVICE=$WORK/d.loop
grep -q "^  partition start:" "$ADVICE" || ADVICE=$WORK/d.sim
echo

# ---- 2. dd and fio against the model --------------------------------

# rate_row LABEL BYTES BEFORE AFTER MEASURED: the tool's rate and the
# model's (bytes over model time for the same requests)
rate_row() {
	rr_ns=$(delta "$3" "$4" busy_ns)
	row "$1" "$5" "$(awk -v b="$2" -v t="$rr_ns" \
		'BEGIN { printf "%.2f MB/s", t ? b * 1000 / t : 0 }')"
}

dd_rate() {
	sed -n 's/.*copied, [0-9.]* s, \(.*\)$/\1/p' "$1"
}

echo "2. rates through the kernel vs the model's own"
row "workload" "measured" "model (bytes / model time)"
snapshot geo "$WORK/s0"
dd if=/dev/zero of="$LOOP" bs=1M count=64 seek=256 oflag=direct \
	2>"$WORK/dd.w"
snapshot geo "$WORK/s1"
dd if="$LOOP" of=/dev/null bs=1M count=64 skip=256 iflag=direct \
	2>"$WORK/dd.r"
snapshot geo "$WORK/s2"
rate_row "dd write 64MiB, bs=1M, direct" 67108864 "$WORK/s0" "$WORK/s1" \
	"$(dd_rate "$WORK/dd.w")"
rate_row "dd read 64MiB, bs=1M, direct" 67108864 "$WORK/s1" "$WORK/s2" \
	"$(dd_rate "$WORK/dd.r")"
if command -v fio >/dev/null 2>&1; then
	for rw in write randwrite randread; do
		snapshot geo "$WORK/f0"
		fio --name=f --filename="$LOOP" --direct=1 --rw=$rw --bs=4k \
			--iodepth=1 --size=32M --offset=320M --runtime=10 \
			--time_based=0 --output-format=terse >"$WORK/fio" \
			2>/dev/null
		snapshot geo "$WORK/f1"
		case $rw in
		# terse v3: read KiB and KiB/s in fields 6-7, write in 47-48
		*read) kb=$(cut -d';' -f6 "$WORK/fio") bw=$(cut -d';' -f7 "$WORK/fio") ;;
		*) kb=$(cut -d';' -f47 "$WORK/fio") bw=$(cut -d';' -f48 "$WORK/fio") ;;
		esac
		rate_row "fio $rw 4k QD1" $((kb * 1024)) "$WORK/f0" "$WORK/f1" \
			"$(awk -v k="$bw" 'BEGIN { printf "%.2f MB/s", k * 1.024 / 1000 }')"
	done
else
	row "fio" "not installed (fio)" "-"
fi
echo

# ---- 3. the original flashbench -------------------------------------

echo "3. the original flashbench on the same loop device"
if [ -x /usr/bin/flashbench ] && ! /usr/bin/flashbench --version 2>/dev/null |
	grep -q "^flashbench [0-9]"; then
	/usr/bin/flashbench -a "$LOOP" --blocksize=1024 0<>/dev/null \
		>"$WORK/a.orig" 2>&1
	row "-a diff at 4MiB" "$(align_diff "$WORK/a.orig" 4194304)" "(original)"
	row "-a diff at 2MiB" "$(align_diff "$WORK/a.orig" 2097152)" "(original)"
else
	echo "    not installed (Debian package flashbench): skipped"
fi
echo

# ---- 4. fake cards -------------------------------------------------

losetup -d "$LOOP"
emu_down geo

# A 1 GiB card holding 300 MiB that wraps, at ten times the model's speed
# (f3probe writes much more than --capacity-check: this keeps its part
# short); bench/capacity.sh measures both on the same loop device.
FAKE_SPEC=sim:sandisk-su08g,size=1G,fake=300M,fake-mode=wrap
echo "4. fake cards: --capacity-check and f3probe on $FAKE_SPEC"
if command -v f3probe >/dev/null 2>&1; then
	emu_up fake 10 "$FAKE_SPEC"
	FAKE_LOOP=$(losetup -f --show --direct-io=on "$WORK/fake/card")
	DEVICE=$FAKE_LOOP sh "$TOP/bench/capacity.sh" "$FB" 2>&1 |
		sed 's/^/    /'
	losetup -d "$FAKE_LOOP"
	emu_down fake
else
	echo "    not installed (Debian package f3): skipped"
fi
echo

# ---- 5. the advice ------------------------------------------------

# The recommended partition start (bytes) and mkfs options for FS.
advice_start() {
	sed -n 's/^  partition start: sector \([0-9]*\).*/\1/p' "$ADVICE" |
		awk '{ print $1 * 512 }'
}

advice_mkfs() {
	sed -n "s/^  $1: mkfs\.$1 \(.*\) - .*/\1/p" "$ADVICE"
}

# make_workload DIR: FILES files of 4-64 KiB of random bytes, the same
# sizes every run.
make_workload() {
	mkdir -p "$1"
	awk -v n="$FILES" 'BEGIN { srand(1); for (i = 0; i < n; i++)
		printf "%d %d\n", i, 4 + int(rand() * 61) }' |
	while read -r i kib; do
		head -c $((kib * 1024)) /dev/urandom >"$1/f$i"
	done
}

# trial FS OFFSET MKFS-OPTIONS: a fresh card; a "partition" at OFFSET
# (a loop device with that offset); mkfs; mount; copy the workload in;
# sync and unmount.  Prints one table row of the workload's figures.
trial() {
	emu_up "fs$trials" "$SCALE" "$SPEC" || return 1
	tl_name=fs$trials
	tl_dev=$(losetup -f --show --direct-io=on -o "$2" "$WORK/$tl_name/card")
	# shellcheck disable=SC2086
	"mkfs.$1" $3 "$tl_dev" >/dev/null 2>&1 </dev/null ||
		{ echo "    mkfs.$1 $3 failed"; return 1; }
	mkdir -p "$WORK/fs"
	mount "$tl_dev" "$WORK/fs"
	snapshot "$tl_name" "$WORK/t0"
	cp -r "$WORK/src" "$WORK/fs/src" && sync
	umount "$WORK/fs"
	snapshot "$tl_name" "$WORK/t1"
	losetup -d "$tl_dev"
	emu_down "$tl_name"
	trials=$((trials + 1))
	printf '    %-6s %-9s %9s %8s %6s %8s %11s\n' "$1" "$4" \
		"$(awk -v t="$(delta "$WORK/t0" "$WORK/t1" busy_ns)" \
			'BEGIN { printf "%.2f", t / 1e9 }')" \
		"$(delta "$WORK/t0" "$WORK/t1" writes)" \
		"$(delta "$WORK/t0" "$WORK/t1" gcs)" \
		"$(awk -v t="$(delta "$WORK/t0" "$WORK/t1" gc_ns)" \
			'BEGIN { printf "%.2f", t / 1e9 }')" \
		"$(awk -v b="$(delta "$WORK/t0" "$WORK/t1" copied_bytes)" \
			'BEGIN { printf "%.1f", b / 1048576 }')"
}

echo "5. the advice: $FILES files of 4-64 KiB copied in, sync, umount"
make_workload "$WORK/src"
echo "    advice from --detect --write: partition start $(advice_start)" \
	"bytes; ext4: $(advice_mkfs ext4)"
echo "    defaults: partition at 1MiB, mkfs with no options;" \
	"advice: at $(($(advice_start) / 1048576))MiB, mkfs with the options above"
printf '    %-6s %-9s %9s %8s %6s %8s %11s\n' fs "layout" "device s" \
	writes gcs "gc s" "copied MiB"
trials=0
for fs in ext4 vfat f2fs; do
	if ! grep -qw "$fs" /proc/filesystems &&
	   ! modprobe -n "$fs" 2>/dev/null; then
		echo "    $fs: this kernel does not mount it - skipped"
		continue
	fi
	if ! command -v "mkfs.$fs" >/dev/null 2>&1; then
		echo "    $fs: mkfs.$fs not installed - skipped"
		continue
	fi
	opts=$(advice_mkfs "$fs")
	case $fs in
	ext4) plain="-q -F" ;;
	*) plain="" ;;
	esac
	trial "$fs" 1048576 "$plain" defaults
	trial "$fs" "$(advice_start)" "$plain $opts" advice
done
