#!/bin/sh
# bench/run.sh [RESULTS.json]: flashbench against a bare pread loop, fio and
# dd on a RAM-backed loop device (random reads at queue depth 1, and at 32
# on io_uring and AIO against fio's io_uring and libaio), then peak RSS
# and wall time of every test, and the simulator's cost per operation.
# Needs root (losetup) and a C compiler; installs nothing.  Peers that are
# missing are "not measured".
#
# Environment: FLASHBENCH (binary, default ./flashbench, built if missing),
# BENCH_ROUNDS (5), BENCH_TIME (device seconds per measurement, 2),
# BENCH_SIZE_MIB (loop device size, 512), BENCH_FLOOR_READS (20000),
# BENCH_CPU (CPU every command is pinned to; default the last one allowed,
# "none" to leave scheduling alone), BENCH_RT (1: every command at
# SCHED_FIFO priority 1 when permitted, 0: not), CC (cc).

set -u
cd "$(dirname "$0")/.." || exit 1

OUT=${1:-bench/results.json}
ROUNDS=${BENCH_ROUNDS:-5}
SECS=${BENCH_TIME:-2}
SIZE_MIB=${BENCH_SIZE_MIB:-512}
FLOOR_READS=${BENCH_FLOOR_READS:-20000}
SPAN_MIB=256		# --iops default span, from 16 MiB
IOPS_OFFSET=16777216
FB=${FLASHBENCH:-./flashbench}

die() {
	echo "bench: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root for a loop device"
command -v losetup >/dev/null 2>&1 || die "losetup not found"
[ "$SIZE_MIB" -ge $((SPAN_MIB + 32)) ] ||
	die "BENCH_SIZE_MIB must be at least $((SPAN_MIB + 32))"
if [ -z "${FLASHBENCH:-}" ]; then
	${MAKE:-make} -s flashbench || die "cannot build flashbench"
fi
[ -x "$FB" ] || die "$FB: not executable"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/flashbench-bench.XXXXXX") ||
	die "cannot make a temporary directory"
IMG=
LOOP=

cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$IMG" ] && rm -f "$IMG"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# the yardstick and the runner, with the release flags
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -I. -o "$TMP/bare" bench/bare.c lib/lfsr.c ||
	die "cannot compile bench/bare.c"
BARE=$TMP/bare

# the fastest device here: a loop device on a RAM-backed file
IMG=$(mktemp /dev/shm/flashbench-bench.XXXXXX) ||
	die "cannot make a file on /dev/shm"
head -c $((SIZE_MIB * 1048576)) /dev/urandom >"$IMG" ||
	die "cannot fill $IMG"
LOOP=$(losetup -f --show "$IMG") || die "cannot attach $IMG"

if [ "${BENCH_CPU:-}" = none ]; then
	PIN=
	CPU_TEXT="not pinned"
else
	CPU=${BENCH_CPU:-$(awk -F'[-,[:space:]]+' \
		'/^Cpus_allowed_list/ { print $NF }' /proc/self/status)}
	PIN="-c $CPU"
	CPU_TEXT="every command pinned to CPU $CPU"
fi
if [ "${BENCH_RT:-1}" = 1 ]; then
	PIN="$PIN -r"
	CPU_TEXT="$CPU_TEXT, SCHED_FIFO"
fi

HAVE_FIO=0
command -v fio >/dev/null 2>&1 && HAVE_FIO=1
HAVE_DD=0
command -v dd >/dev/null 2>&1 && HAVE_DD=1

# --- helpers -----------------------------------------------------------

# measure NAME CMD...: runs CMD pinned; output in $TMP/NAME.out, its peak
# RSS and wall time in $TMP/NAME.err (last line, from bare run)
measure() {
	name=$1
	shift
	# shellcheck disable=SC2086
	if ! "$BARE" run $PIN -- "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	then
		cat "$TMP/$name.err" >&2
		die "$name failed: $*"
	fi
}

# jnum KEY FILE: the first number after "KEY": in FILE
jnum() {
	grep -o "\"$1\": *[-0-9.e+]*" "$2" | head -n 1 | sed 's/.*: *//'
}

# jlast KEY FILE: the last number after "KEY": in FILE (-t: the summary
# record's, after the per-second ones)
jlast() {
	grep -o "\"$1\": *[-0-9][-0-9.e+]*" "$2" | tail -n 1 | sed 's/.*: *//'
}

# kv KEY FILE: the value of KEY=VALUE in FILE
kv() {
	tr ' ' '\n' <"$2" | sed -n "s/^$1=//p" | tail -n 1
}

# record KEY VALUE: one round's value
record() {
	echo "$2" >>"$TMP/val.$1"
}

# median KEY: the median of the rounds recorded for KEY, or nothing
median() {
	[ -s "$TMP/val.$1" ] || return 0
	sort -g "$TMP/val.$1" | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# rounds KEY: the values as a JSON list
rounds() {
	if [ -s "$TMP/val.$1" ]; then
		printf '[%s]' "$(paste -s -d, "$TMP/val.$1")"
	else
		printf '[]'
	fi
}

# median of the numbers on standard input
median_stdin() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

rss_of() {
	sed -n 's/.*rss_kib=\([0-9]*\).*/\1/p' "$TMP/$1.err" | tail -n 1
}

wall_of() {
	sed -n 's/.*wall_ns=\([0-9]*\).*/\1/p' "$TMP/$1.err" | tail -n 1
}

# --- the measurements, one round's worth each ----------------------------

SPAN=$((SPAN_MIB * 1048576))
FIO_RUNTIME=$(awk -v s="$SECS" 'BEGIN { printf "%dms", s * 1000 }')

# flashbench's own random reads: speed_measure_iops (LFSR order over the
# 4 KiB slots of --span from 16 MiB); IOPS is operations / device time
job_fb_iops() {
	measure fb_iops "$FB" --iops --read-only --span=${SPAN_MIB}M \
		--time="$SECS" --format=json -q "$LOOP"
	record fb_iops "$(jnum iops "$TMP/fb_iops.out")"
	record fb_iops_p50 "$(jnum p50 "$TMP/fb_iops.out")"
	record fb_iops_wall "$(awk -v n="$(jnum operations \
		"$TMP/fb_iops.out")" -v w="$(wall_of fb_iops)" \
		'BEGIN { print n * 1e9 / w }')"
}

# the same slots in the same order (lfsr.c)
job_bare_iops() {
	measure bare_iops "$BARE" rand "$LOOP" $IOPS_OFFSET $SPAN "$SECS"
	record bare_iops "$(kv iops "$TMP/bare_iops.out")"
	record bare_iops_wall "$(kv wall_iops "$TMP/bare_iops.out")"
	record bare_iops_p50 "$(kv p50_ns "$TMP/bare_iops.out")"
}

# the order's own effect: slots drawn with replacement
job_bare_iops_xs() {
	measure bare_iops_xs "$BARE" rand "$LOOP" $IOPS_OFFSET $SPAN "$SECS" \
		xorshift
	record bare_iops_xs "$(kv iops "$TMP/bare_iops_xs.out")"
}

# fio_terse NAME RW BS OFFSET SIZE [ENGINE DEPTH]: psync at depth 1 unless
# told
fio_terse() {
	measure "$1" fio --name=bench --filename="$LOOP" \
		--ioengine="${6:-psync}" --direct=1 --iodepth="${7:-1}" \
		--rw="$2" --bs="$3" --offset="$4" --size="$5" \
		--runtime="$FIO_RUNTIME" --time_based \
		--output-format=terse --terse-version=3
}

job_fio_iops() {
	[ $HAVE_FIO = 1 ] || return 0
	fio_terse fio_iops randread 4k $IOPS_OFFSET $SPAN
	# terse v3: field 8 read IOPS; clat percentiles in microseconds
	record fio_iops "$(cut -d';' -f8 "$TMP/fio_iops.out")"
	record fio_iops_p50 "$(tr ';' '\n' <"$TMP/fio_iops.out" |
		sed -n 's/^50\.000000%=//p' | head -n 1 |
		awk '{ print $1 * 1000 }')"
}

# --- queue depth 32: flashbench's engines against fio's ---

QD=32

# fb_queued NAME ENGINE: --iops at depth $QD, FLASHBENCH_ENGINE=ENGINE
fb_queued() {
	measure "$1" env FLASHBENCH_ENGINE="$2" "$FB" --iops --read-only \
		--iodepth=$QD --span=${SPAN_MIB}M --time="$SECS" \
		--format=json -q "$LOOP"
	record "$1" "$(jnum iops "$TMP/$1.out")"
	record "$1_p50" "$(jnum p50 "$TMP/$1.out")"
	record "$1_wall" "$(awk -v n="$(jnum operations "$TMP/$1.out")" \
		-v w="$(wall_of "$1")" 'BEGIN { print n * 1e9 / w }')"
}

job_fb_qd_uring() {
	fb_queued fb_qd_uring io_uring
}

job_fb_qd_aio() {
	fb_queued fb_qd_aio aio
}

# fio_queued NAME ENGINE: fio's random reads at depth $QD on ENGINE
fio_queued() {
	[ $HAVE_FIO = 1 ] || return 0
	fio_terse "$1" randread 4k $IOPS_OFFSET $SPAN "$2" $QD
	record "$1" "$(cut -d';' -f8 "$TMP/$1.out")"
}

job_fio_qd_uring() {
	fio_queued fio_qd_uring io_uring
}

job_fio_qd_aio() {
	fio_queued fio_qd_aio libaio
}

# dd has no random mode: 4 KiB reads in order, for scale only
job_dd_iops() {
	[ $HAVE_DD = 1 ] || return 0
	n=$((SPAN / 4096))
	measure dd_iops env LC_ALL=C dd if="$LOOP" of=/dev/null bs=4096 \
		iflag=direct skip=$((IOPS_OFFSET / 4096)) count=$n
	record dd_iops "$(dd_seconds dd_iops | awk -v n=$n '{ print n / $1 }')"
}

# seconds dd reports for its copy (LC_ALL=C: "..., 0.12 s, 4.4 GB/s")
dd_seconds() {
	sed -n 's/.* copied, \([0-9.e+-]*\) s,.*/\1/p' "$TMP/$1.err"
}

job_fb_seq() {
	measure fb_seq "$FB" -t -b 1M --time="$SECS" --format=json -q "$LOOP"
	record fb_seq "$(jlast bytes_per_s "$TMP/fb_seq.out" |
		awk '{ print $1 / 1e6 }')"
	record fb_seq_wall "$(awk -v b="$(jnum bytes_read \
		"$TMP/fb_seq.out")" -v w="$(wall_of fb_seq)" \
		'BEGIN { print b * 1e3 / w }')"
}

job_bare_seq() {
	measure bare_seq "$BARE" seq "$LOOP" 1048576 "$SECS"
	record bare_seq "$(kv mb_s "$TMP/bare_seq.out")"
	record bare_seq_wall "$(kv wall_mb_s "$TMP/bare_seq.out")"
}

job_fio_seq() {
	[ $HAVE_FIO = 1 ] || return 0
	fio_terse fio_seq read 1m 0 $((SIZE_MIB * 1048576))
	# field 7: read bandwidth in KiB/s
	record fio_seq "$(cut -d';' -f7 "$TMP/fio_seq.out" |
		awk '{ print $1 * 1024 / 1e6 }')"
}

job_dd_seq() {
	[ $HAVE_DD = 1 ] || return 0
	measure dd_seq env LC_ALL=C dd if="$LOOP" of=/dev/null bs=1M \
		iflag=direct count="$SIZE_MIB"
	record dd_seq "$(dd_seconds dd_seq |
		awk -v b=$((SIZE_MIB * 1048576)) '{ print b / $1 / 1e6 }')"
}

# the timing floor: each 512-byte read reported on its own (floor.prog)
job_fb_floor() {
	measure fb_floor "$FB" --program=bench/floor.prog -c "$FLOOR_READS" \
		--format=csv -q "$LOOP"
	record fb_floor "$(sed 1d "$TMP/fb_floor.out" | cut -d, -f3 |
		median_stdin)"
}

job_bare_floor() {
	measure bare_floor "$BARE" list "$LOOP" 512 4096 "$FLOOR_READS"
	record bare_floor "$(kv p50_ns "$TMP/bare_floor.out")"
}

# ratio KEY A B: this round's A / B, when both were measured
pair() {
	a=$(tail -n 1 "$TMP/val.$2" 2>/dev/null)
	b=$(tail -n 1 "$TMP/val.$3" 2>/dev/null)
	[ -n "$a" ] && [ -n "$b" ] || return 0
	record "$1" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f\n", a / b }')"
}

# run_group JOBS...: each job once, starting $r further along, so that no
# peer always runs first; the jobs of a group run back to back
run_group() {
	i=0
	while [ $i -lt $((r % $#)) ]; do
		first=$1
		shift
		set -- "$@" "$first"
		i=$((i + 1))
	done
	for job in "$@"; do
		"job_$job"
	done
}

# interleaved rounds; targets are judged on the median of each round's
# ratio, so load that drifts between rounds cancels out
r=0
while [ $r -lt "$ROUNDS" ]; do
	echo "bench: round $((r + 1)) of $ROUNDS" >&2
	run_group fb_iops bare_iops bare_iops_xs fio_iops dd_iops
	pair ratio_iops_bare fb_iops bare_iops
	pair ratio_iops_fio fb_iops fio_iops
	pair ratio_iops_fio_wall fb_iops_wall fio_iops
	run_group fb_qd_uring fio_qd_uring fb_qd_aio fio_qd_aio
	pair ratio_qd_uring fb_qd_uring fio_qd_uring
	pair ratio_qd_uring_wall fb_qd_uring_wall fio_qd_uring
	pair ratio_qd_aio fb_qd_aio fio_qd_aio
	run_group fb_seq bare_seq fio_seq dd_seq
	pair ratio_seq_bare fb_seq bare_seq
	run_group fb_floor bare_floor
	pair ratio_floor fb_floor bare_floor
	r=$((r + 1))
done

# --- every test once: peak RSS and wall time -----------------------------

echo "bench: every test once" >&2
TESTS=$TMP/tests
: >"$TESTS"
# tname LABEL ARGS...: one test on the loop device
tname() {
	label=$1
	shift
	n=$(($(wc -l <"$TESTS") + 1))
	measure "test$n" "$FB" -q "$@" "$LOOP"
	printf '%s\t%s\t%s\n' "$label" "$(wall_of "test$n")" \
		"$(rss_of "test$n")" >>"$TESTS"
}
tname "-a" -a
tname "-A" -A
tname "-O -0 2 -b 64K" -O -0 2 --blocksize=64K
tname "-f -b 64K" -f --blocksize=64K
tname "-s" -s
tname "-i" -i
tname "-t --time=1" -t --time=1
tname "--iops --time=1" --iops --time=1
tname "--iops --time=1 --iodepth=32" --iops --time=1 --iodepth=32
tname "--detect --budget=2" --detect --budget=2
tname "--detect --write -e 4M" --detect --write --erasesize=4M
tname "--class-check --time=0.5" --class-check --time=0.5

# --- the simulator: wall time per million operations -----------------------

echo "bench: simulator" >&2
SIMS=$TMP/sims
: >"$SIMS"
# simrun LABEL OPS ARGS...
simrun() {
	label=$1
	ops=$2
	shift 2
	n=$(($(wc -l <"$SIMS") + 1))
	measure "sim$n" "$FB" -q "$@"
	printf '%s\t%s\t%s\t%s\n' "$label" "$ops" "$(wall_of "sim$n")" \
		"$(rss_of "sim$n")" >>"$SIMS"
}
SIM_READS=1000000
simrun "--program=simreads.prog -c $SIM_READS sim:" $SIM_READS \
	--program=bench/simreads.prog -c $SIM_READS sim:
# -O writes nr x erase/b blocks for each b from erase down to blocksize
OAU_OPS=$(awk 'BEGIN { n = 0; for (b = 16777216; b >= 512; b /= 2)
	n += 20 * 16777216 / b; print n }')
simrun "-O -e 16M -b 512 -0 20 sim:sandisk-20au" "$OAU_OPS" \
	-O --erasesize=16M --blocksize=512 -0 20 sim:sandisk-20au

# --- the table ------------------------------------------------------------

NPROC=$(nproc 2>/dev/null || echo "?")
CPU_MODEL=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo |
	head -n 1)
[ -n "$CPU_MODEL" ] || CPU_MODEL=$(uname -m)
KERNEL=$(uname -r)
FIO_VERSION=$([ $HAVE_FIO = 1 ] && fio --version 2>/dev/null)

M_FB_IOPS=$(median fb_iops)
M_FB_IOPS_WALL=$(median fb_iops_wall)
M_FB_SEQ_WALL=$(median fb_seq_wall)
M_BARE_IOPS=$(median bare_iops)
M_BARE_IOPS_WALL=$(median bare_iops_wall)
M_BARE_IOPS_XS=$(median bare_iops_xs)
M_FIO_IOPS=$(median fio_iops)
M_DD_IOPS=$(median dd_iops)
M_FB_SEQ=$(median fb_seq)
M_BARE_SEQ=$(median bare_seq)
M_BARE_SEQ_WALL=$(median bare_seq_wall)
M_FIO_SEQ=$(median fio_seq)
M_DD_SEQ=$(median dd_seq)
M_FB_FLOOR=$(median fb_floor)
M_BARE_FLOOR=$(median bare_floor)
M_FB_QD_URING=$(median fb_qd_uring)
M_FB_QD_URING_WALL=$(median fb_qd_uring_wall)
M_FB_QD_AIO=$(median fb_qd_aio)
M_FIO_QD_URING=$(median fio_qd_uring)
M_FIO_QD_AIO=$(median fio_qd_aio)
M_FB_QD_P50=$(median fb_qd_uring_p50)
M_FB_P50=$(median fb_iops_p50)
M_BARE_P50=$(median bare_iops_p50)
M_FIO_P50=$(median fio_iops_p50)
A_RSS=$(awk -F'\t' '$1 == "-a" { print $3 }' "$TESTS")

# verdicts: name, value, goal text, met/missed/not measured, margin
TARGETS=$TMP/targets
: >"$TARGETS"
# target NAME VALUE GOAL_TEXT AWK_CONDITION MARGIN_EXPR
target() {
	if [ -z "$2" ]; then
		printf '%s\t\t%s\tnot measured\t\n' "$1" "$3" >>"$TARGETS"
		return
	fi
	awk -v name="$1" -v v="$2" -v goal="$3" "BEGIN {
		met = ($4); margin = $5
		printf \"%s\t%s\t%s\t%s\t%+.1f%%\n\", name, v, goal,
			met ? \"met\" : \"missed\", margin }" >>"$TARGETS"
}
R_IOPS_BARE=$(median ratio_iops_bare)
R_IOPS_FIO=$(median ratio_iops_fio)
R_IOPS_FIO_WALL=$(median ratio_iops_fio_wall)
R_SEQ_BARE=$(median ratio_seq_bare)
R_FLOOR=$(median ratio_floor)
target "4K QD1 IOPS / bare loop" "$R_IOPS_BARE" ">= 0.97x" \
	"v >= 0.97" "(v / 0.97 - 1) * 100"
target "4K QD1 IOPS / fio" "$R_IOPS_FIO" ">= 1.00x" \
	"v >= 1" "(v - 1) * 100"
target "4K QD1 IOPS / fio, wall clock" "$R_IOPS_FIO_WALL" ">= 1.00x" \
	"v >= 1" "(v - 1) * 100"
target "4K QD32 IOPS / fio io_uring" "$(median ratio_qd_uring)" \
	">= 1.00x" "v >= 1" "(v - 1) * 100"
target "4K QD32, wall / fio io_uring" "$(median ratio_qd_uring_wall)" \
	">= 1.00x" "v >= 1" "(v - 1) * 100"
target "4K QD32 aio / fio libaio" "$(median ratio_qd_aio)" ">= 1.00x" \
	"v >= 1" "(v - 1) * 100"
target "1M read MB/s / bare loop" "$R_SEQ_BARE" ">= 0.98x" \
	"v >= 0.98" "(v / 0.98 - 1) * 100"
target "512 B reported / bare median" "$R_FLOOR" "within 2%" \
	"v >= 0.98 && v <= 1.02" "(v - 1) * 100"
target "-a peak RSS (KiB)" "$A_RSS" "< 8192" \
	"v < 8192" "(v / 8192 - 1) * 100"

num() {
	if [ -n "$1" ]; then printf "%.${2:-0}f" "$1"; else printf '%s' "$3"; fi
}

{
	echo "flashbench benchmark: $NPROC CPUs, $CPU_MODEL, Linux $KERNEL"
	echo "device: $SIZE_MIB MiB loop device on /dev/shm; $ROUNDS" \
		"interleaved rounds of $SECS s device time; medians;" \
		"$CPU_TEXT"
	echo
	printf '%-26s %12s %12s %12s %12s\n' "measurement" "flashbench" \
		"bare loop" "fio" "dd"
	nm="not measured"
	printf '%-26s %12s %12s %12s %12s\n' "4K QD1 random read IOPS" \
		"$(num "$M_FB_IOPS")" "$(num "$M_BARE_IOPS")" \
		"$(num "$M_FIO_IOPS" 0 "$nm")" \
		"$(num "$M_DD_IOPS" 0 "$nm")"
	printf '%-26s %12s %12s %12s %12s\n' "  bare, xorshift order" \
		"-" "$(num "$M_BARE_IOPS_XS")" "-" "-"
	printf '%-26s %12s %12s %12s %12s\n' "  p50 latency ns" \
		"$(num "$M_FB_P50")" "$(num "$M_BARE_P50")" \
		"$(num "$M_FIO_P50" 0 "$nm")" "-"
	printf '%-26s %12s %12s %12s %12s\n' "4K QD32 IOPS, io_uring" \
		"$(num "$M_FB_QD_URING")" "-" \
		"$(num "$M_FIO_QD_URING" 0 "$nm")" "-"
	printf '%-26s %12s %12s %12s %12s\n' "  p50 latency ns" \
		"$(num "$M_FB_QD_P50")" "-" "-" "-"
	printf '%-26s %12s %12s %12s %12s\n' "4K QD32 IOPS, aio" \
		"$(num "$M_FB_QD_AIO")" "-" \
		"$(num "$M_FIO_QD_AIO" 0 "$nm")" "-"
	printf '%-26s %12s %12s %12s %12s\n' "1M sequential read MB/s" \
		"$(num "$M_FB_SEQ" 1)" "$(num "$M_BARE_SEQ" 1)" \
		"$(num "$M_FIO_SEQ" 1 "$nm")" "$(num "$M_DD_SEQ" 1 "$nm")"
	printf '%-26s %12s %12s %12s %12s\n' "512 B read, median ns" \
		"$(num "$M_FB_FLOOR")" "$(num "$M_BARE_FLOOR")" "-" "-"
	printf '%-26s %12s %12s %12s %12s\n' "4K IOPS, wall clock" \
		"$(num "$M_FB_IOPS_WALL")" "$(num "$M_BARE_IOPS_WALL")" \
		"$(num "$M_FIO_IOPS" 0 "$nm")" \
		"$(num "$M_DD_IOPS" 0 "$nm")"
	printf '%-26s %12s %12s %12s %12s\n' "4K QD32 io_uring, wall" \
		"$(num "$M_FB_QD_URING_WALL")" "-" \
		"$(num "$M_FIO_QD_URING" 0 "$nm")" "-"
	printf '%-26s %12s %12s %12s %12s\n' "1M MB/s, wall clock" \
		"$(num "$M_FB_SEQ_WALL" 1)" "$(num "$M_BARE_SEQ_WALL" 1)" \
		"$(num "$M_FIO_SEQ" 1 "$nm")" "$(num "$M_DD_SEQ" 1 "$nm")"
	echo "flashbench and bare count device time (the sum of the timed" \
		"calls), fio and dd wall clock; wall-clock rows divide by the" \
		"whole run (flashbench: the process); dd 4K reads are" \
		"sequential; QD32: flashbench's io_uring and aio engines" \
		"against fio's io_uring and libaio, at depth 32 both"
	echo
	echo "targets: the median over rounds of each round's ratio"
	printf '%-30s %10s %10s  %s\n' "target" "value" "goal" "result"
	while IFS="$(printf '\t')" read -r name v goal res margin; do
		if [ -z "$v" ]; then
			printf '%-30s %10s %10s  %s\n' "$name" "-" "$goal" "$res"
			continue
		fi
		case $name in
		*KiB*) vt=$(num "$v") ;;
		*) vt=$(printf '%.3fx' "$v") ;;
		esac
		printf '%-30s %10s %10s  %s (%s)\n' "$name" "$vt" "$goal" \
			"$res" "$margin"
	done <"$TARGETS"
	echo
	printf '%-32s %10s %14s\n' "test on the loop device" "wall s" \
		"peak RSS KiB"
	awk -F'\t' '{ printf "%-32s %10.2f %14d\n", $1, $2 / 1e9, $3 }' \
		"$TESTS"
	echo
	printf '%-44s %10s %10s %12s\n' "simulated" "operations" "wall s" \
		"s per 1M ops"
	awk -F'\t' '{ printf "%-44s %10d %10.2f %12.3f\n", $1, $2, $3 / 1e9,
		$3 / 1e9 / ($2 / 1e6) }' "$SIMS"
} | tee "$TMP/table"

# --- the same as JSON ------------------------------------------------------

jv() {
	if [ -n "$1" ]; then printf '%s' "$1"; else printf 'null'; fi
}
jstr() {
	printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"
}
peer() {
	printf '{"median": %s, "rounds": %s}' "$(jv "$(median "$1")")" \
		"$(rounds "$1")"
}
{
	printf '{\n  "machine": {"nproc": %s, "cpu": %s, "kernel": %s},\n' \
		"$(jv "$NPROC")" "$(jstr "$CPU_MODEL")" "$(jstr "$KERNEL")"
	printf '  "settings": {"device_mib": %s, "rounds": %s,' \
		"$SIZE_MIB" "$ROUNDS"
	printf ' "device_seconds": %s, "floor_reads": %s, "cpu": %s,' \
		"$SECS" "$FLOOR_READS" "$(jstr "$CPU_TEXT")"
	printf ' "flashbench": %s, "fio": %s},\n' \
		"$(jstr "$("$FB" --version 2>/dev/null)")" \
		"$(if [ $HAVE_FIO = 1 ]; then jstr "$FIO_VERSION"; else
			printf null; fi)"
	printf '  "iops_4k": {"flashbench": %s, "bare": %s,' \
		"$(peer fb_iops)" "$(peer bare_iops)"
	printf ' "flashbench_wall": %s,' "$(peer fb_iops_wall)"
	printf ' "bare_xorshift": %s,' "$(peer bare_iops_xs)"
	printf ' "bare_wall": %s, "fio": %s, "dd_sequential": %s},\n' \
		"$(peer bare_iops_wall)" "$(peer fio_iops)" "$(peer dd_iops)"
	printf '  "iops_4k_qd32": {"flashbench_io_uring": %s,' \
		"$(peer fb_qd_uring)"
	printf ' "flashbench_io_uring_wall": %s,' "$(peer fb_qd_uring_wall)"
	printf ' "fio_io_uring": %s, "flashbench_aio": %s,' \
		"$(peer fio_qd_uring)" "$(peer fb_qd_aio)"
	printf ' "fio_libaio": %s},\n' "$(peer fio_qd_aio)"
	printf '  "p50_ns_4k": {"flashbench": %s, "bare": %s, "fio": %s},\n' \
		"$(peer fb_iops_p50)" "$(peer bare_iops_p50)" \
		"$(peer fio_iops_p50)"
	printf '  "seq_1m_mb_s": {"flashbench": %s, "bare": %s,' \
		"$(peer fb_seq)" "$(peer bare_seq)"
	printf ' "flashbench_wall": %s,' "$(peer fb_seq_wall)"
	printf ' "bare_wall": %s, "fio": %s, "dd": %s},\n' \
		"$(peer bare_seq_wall)" "$(peer fio_seq)" "$(peer dd_seq)"
	printf '  "read_512_median_ns": {"flashbench": %s, "bare": %s},\n' \
		"$(peer fb_floor)" "$(peer bare_floor)"
	printf '  "round_ratios": {"iops_bare": %s, "iops_fio": %s,' \
		"$(peer ratio_iops_bare)" "$(peer ratio_iops_fio)"
	printf ' "iops_fio_wall": %s, "seq_bare": %s, "read_512": %s,' \
		"$(peer ratio_iops_fio_wall)" "$(peer ratio_seq_bare)" \
		"$(peer ratio_floor)"
	printf ' "qd32_io_uring": %s, "qd32_io_uring_wall": %s,' \
		"$(peer ratio_qd_uring)" "$(peer ratio_qd_uring_wall)"
	printf ' "qd32_aio": %s},\n' "$(peer ratio_qd_aio)"
	printf '  "targets": ['
	sep=
	while IFS="$(printf '\t')" read -r name v goal res margin; do
		printf '%s\n    {"target": %s, "value": %s, "goal": %s, ' \
			"$sep" "$(jstr "$name")" "$(jv "$v")" "$(jstr "$goal")"
		printf '"result": %s, "margin": %s}' "$(jstr "$res")" \
			"$(if [ -n "$margin" ]; then jstr "$margin"; else
				printf null; fi)"
		sep=,
	done <"$TARGETS"
	printf '\n  ],\n  "tests": ['
	sep=
	while IFS="$(printf '\t')" read -r name wall rss; do
		printf '%s\n    {"test": %s, "wall_ns": %s, "peak_rss_kib": %s}' \
			"$sep" "$(jstr "$name")" "$wall" "$rss"
		sep=,
	done <"$TESTS"
	printf '\n  ],\n  "simulator": ['
	sep=
	while IFS="$(printf '\t')" read -r name ops wall rss; do
		printf '%s\n    {"run": %s, "operations": %s, "wall_ns": %s, ' \
			"$sep" "$(jstr "$name")" "$ops" "$wall"
		printf '"peak_rss_kib": %s}' "$rss"
		sep=,
	done <"$SIMS"
	printf '\n  ]\n}\n'
} >"$TMP/results.json" && cp "$TMP/results.json" "$OUT" ||
	die "cannot write $OUT"
echo "bench: results in $OUT" >&2
