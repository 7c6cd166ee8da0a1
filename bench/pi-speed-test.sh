#!/bin/sh
# bench/pi-speed-test.sh: the Raspberry Pi's SD Card Speed Test two ways
# on one emulated card - fio running agnostics' job (its sd_bench.fio:
# libaio at depth 32 over 256 MiB: a 512 KiB prepare pass, 4 MiB
# sequential writes and reads, random 4 KiB writes and reads for 10 s)
# and flashbench --class-check's Pi line - and the ratio of each figure
# (the goal: within 10%).  Figures, not assertions: not part of make
# check.  Root, /dev/fuse and loop devices; run from anywhere after make.
# Without fio (Debian package fio) it says so and prints only ours.
#
# The card is served by flashemu (SCALE, default 1, times faster than its
# model) through a loop device with direct I/O; fio writes the 256 MiB at
# 16 MiB, where flashbench's write floor puts its Pi test.  Each card is
# served afresh for each run of each tool, so neither sees the other's
# writes.  The job runs on the raw device, not on a file in a file
# system, and its random tests for 10 / SCALE s of wall time (10 s of the
# model's).  Rates are of the model's time: the tools' wall-clock figures
# over SCALE.  Every request also costs the host's own time (FUSE, the
# loop device: some 300 us here), which a SCALE above 1 counts that many
# times over in the model's time, and which a busy machine stretches: a
# random read (some 600 us in the model) varies by 10% and more from one
# run to the next, for fio as for flashbench.  REPEAT (default 1) runs
# each tool that many times, in turn, and gives each figure's median.
#
# PRESETS (sandisk-su08g a1-32g v30-256g) choose the cards.

set -u
cd "$(dirname "$0")/.." || exit 1
. bench/waitfor.sh
TOP=$(pwd)
FB=$TOP/flashbench
EMU=$TOP/flashemu
SCALE=${SCALE:-1}
REPEAT=${REPEAT:-1}
PRESETS=${PRESETS:-sandisk-su08g a1-32g v30-256g}

if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ] || [ ! -e /dev/loop-control ]
then
	echo "bench/pi-speed-test.sh: needs root, /dev/fuse and loop devices" >&2
	exit 1
fi
[ -x "$FB" ] && [ -x "$EMU" ] || { echo "run make first" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "needs python3" >&2; exit 1; }
HAVE_FIO=1
command -v fio >/dev/null 2>&1 || HAVE_FIO=0

WORK=$(mktemp -d /tmp/pi-bench.XXXXXX)
EMU_PID=

# emu_down: the card no longer served, its loop devices detached
emu_down() {
	[ -n "$EMU_PID" ] || return 0
	losetup -j "$WORK/mnt/card" 2>/dev/null | cut -d: -f1 |
		while read -r dev; do losetup -d "$dev"; done
	kill -TERM "$EMU_PID" 2>/dev/null
	wait_for "flashemu exit" test -s "$WORK/emu.rc"
	umount -l "$WORK/mnt" 2>/dev/null
	EMU_PID=
}

cleanup() {
	emu_down
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# emu_up SPEC: serve SPEC afresh; its loop device in $DEV
emu_up() {
	rm -f "$WORK/emu.out" "$WORK/emu.rc" "$WORK/emu.pid"
	mkdir -p "$WORK/mnt"
	(
		sh -c 'echo $$ >"$0"; exec "$@"' "$WORK/emu.pid" "$EMU" \
			--time-scale="$SCALE" "$1" "$WORK/mnt" \
			>"$WORK/emu.out" 2>"$WORK/emu.err"
		echo $? >"$WORK/emu.rc"
	) &
	wait_for "flashemu pid" test -s "$WORK/emu.pid" &&
	EMU_PID=$(cat "$WORK/emu.pid") &&
	wait_for "flashemu ready" grep -qs "^ready" "$WORK/emu.out" &&
	DEV=$(losetup -f --show --direct-io=on "$WORK/mnt/card")
}

# The job, as agnostics runs it, on the device's 256 MiB at 16 MiB.
write_job() {
	random_ms=$((10000 / SCALE))
	cat >"$WORK/sd_bench.fio" <<EOF
[global]
ioengine=libaio
iodepth=32
size=256m
direct=1
end_fsync=1
filename=$1
offset=16m

[prepare-file]
rw=write
bs=512k
stonewall

[seq-write]
rw=write
bs=4m
stonewall

[seq-read]
rw=read
bs=4m
stonewall

[rand-4k-write]
rw=randwrite
bs=4k
runtime=${random_ms}ms
stonewall

[rand-4k-read]
rw=randread
bs=4k
runtime=${random_ms}ms
stonewall
EOF
}

# fio_figures JSON: "SEQ_BYTES_PER_S WRITE_IOPS READ_IOPS" of the model
fio_figures() {
	python3 - "$1" "$SCALE" <<'PY'
import json, sys
jobs = {j["jobname"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
scale = float(sys.argv[2])
print(jobs["seq-write"]["write"]["bw"] * 1024 / scale,
      jobs["rand-4k-write"]["write"]["iops"] / scale,
      jobs["rand-4k-read"]["read"]["iops"] / scale)
PY
}

# ours_figures JSON: the same from --class-check's pi_test record
ours_figures() {
	python3 - "$1" "$SCALE" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
p = [r for r in doc["results"] if r["kind"] == "pi_test"][0]
scale = float(sys.argv[2])
print(*(v / scale if v is not None else "nan"
        for v in (p["write_bytes_per_s"], p["write_iops"], p["read_iops"])))
PY
}

# verdict SEQ WIOPS RIOPS: the Pi's, by its thresholds
verdict() {
	awk -v s="$1" -v w="$2" -v r="$3" 'BEGIN {
		print (s >= 10000 * 1024 && w >= 500 && r >= 1500) ? "pass" : "FAIL" }'
}

row() {
	printf '    %-22s %14s %14s %8s\n' "$@"
}

# compare NAME OURS FIO [kib]: a row, the ratio ours / fio
compare() {
	awk -v n="$1" -v a="$2" -v b="$3" -v k="${4:-}" 'BEGIN {
		if (k != "") { a /= 1024; b /= 1024 }
		fmt = "    %-22s %14.0f %14s %8s\n"
		if (b == "") { printf fmt, n, a, "-", "-"; exit }
		printf "    %-22s %14.0f %14.0f %8.3f\n", n, a, b, (b > 0 ? a / b : 0)
	}'
}

# median COLUMN FILE: the median of a column of figures
median() {
	awk -v c="$1" '{ print $c }' "$2" | sort -g | awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      print m }'
}

# run_ours SPEC, run_fio SPEC: one run on a fresh card, its three
# figures appended to $WORK/ours.txt or $WORK/fio.txt
run_ours() {
	emu_up "$1" || exit 1
	"$FB" --class-check -q --format=json "$DEV" >"$WORK/ours.json" \
		2>"$WORK/ours.err" || { cat "$WORK/ours.err" >&2; exit 1; }
	emu_down
	ours_figures "$WORK/ours.json" >>"$WORK/ours.txt"
}

run_fio() {
	emu_up "$1" || exit 1
	write_job "$DEV"
	fio --output-format=json "$WORK/sd_bench.fio" \
		>"$WORK/fio.json" 2>"$WORK/fio.err" ||
		{ cat "$WORK/fio.err" >&2; exit 1; }
	emu_down
	fio_figures "$WORK/fio.json" >>"$WORK/fio.txt"
}

echo "the Raspberry Pi's card test: flashbench --class-check and fio's job"
echo "(flashemu at --time-scale=$SCALE; rates of the model's time;" \
	"the median of $REPEAT run(s) of each)"
[ "$HAVE_FIO" = 1 ] ||
	echo "fio is not installed (Debian package fio): flashbench's figures only"
echo
for preset in $PRESETS; do
	spec=sim:$preset
	: >"$WORK/ours.txt"
	: >"$WORK/fio.txt"
	i=0
	while [ "$i" -lt "$REPEAT" ]; do
		run_ours "$spec"
		[ "$HAVE_FIO" = 1 ] && run_fio "$spec"
		i=$((i + 1))
	done
	o_seq=$(median 1 "$WORK/ours.txt") o_w=$(median 2 "$WORK/ours.txt")
	o_r=$(median 3 "$WORK/ours.txt")
	f_seq= f_w= f_r=
	if [ "$HAVE_FIO" = 1 ]; then
		f_seq=$(median 1 "$WORK/fio.txt")
		f_w=$(median 2 "$WORK/fio.txt")
		f_r=$(median 3 "$WORK/fio.txt")
	fi
	echo "$spec"
	row "" "flashbench" "fio" "ratio"
	compare "sequential write KB/s" "$o_seq" "$f_seq" kib
	compare "random write IOPS" "$o_w" "$f_w"
	compare "random read IOPS" "$o_r" "$f_r"
	row "verdict" "$(verdict "$o_seq" "$o_w" "$o_r")" \
		"$([ -n "$f_seq" ] && verdict "$f_seq" "$f_w" "$f_r" || echo -)" ""
	echo
done
