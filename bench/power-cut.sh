#!/bin/sh
# bench/power-cut.sh: what one cycle of --power-cut costs - bytes written
# (the workload until the cut, and the settling after it), bytes read
# (the verification) and time - on the simulated card itself and through
# flashemu on a loop device (root, /dev/fuse and loop devices; skipped
# without them).  Figures, not assertions: it judges nothing.
#
# CYCLES (10), SPAN (64M) and CARD (sim:size=1G,volatile=1M,flush=honest)
# choose the run; SCALE (100) flashemu's time scale.  Run from anywhere
# after make.

set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
FB=$TOP/flashbench
EMU=$TOP/flashemu
CYCLES=${CYCLES:-10}
SPAN=${SPAN:-64M}
CARD=${CARD:-sim:size=1G,volatile=1M,flush=honest}
SCALE=${SCALE:-100}
[ -x "$FB" ] && [ -x "$EMU" ] || { echo "run make first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }

WORK=$(mktemp -d /tmp/power-cut-bench.XXXXXX)
EMU_PID= DEV=

cleanup() {
	[ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null
	[ -n "$EMU_PID" ] && kill -TERM "$EMU_PID" 2>/dev/null && wait "$EMU_PID"
	umount -l "$WORK/emu" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# report WHERE JSON WALL_S: the run's cost, in all and per cycle
report() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
where, path, wall = sys.argv[1], sys.argv[2], float(sys.argv[3])
doc = json.load(open(path))
s = [r for r in doc["results"] if r["kind"] == "power-cut"][0]
n = max(s["cuts"], 1)
span = s["span_bytes"]
mib = 1 << 20
print("%s: %d cuts of a %d MiB range, %s" % (where, s["cuts"], span // mib,
                                             s["summary"]))
print("  written  %8.1f MiB  (%.1f MiB a cycle, the old data's %d MiB aside)"
      % (doc["bytes_written"] / mib, (doc["bytes_written"] - span) / mib / n,
         span // mib))
print("  read     %8.1f MiB  (%.1f MiB a cycle)"
      % (doc["bytes_read"] / mib, doc["bytes_read"] / mib / n))
print("  device   %8.2f s    (%.2f s a cycle)"
      % (doc["device_time_ns"] / 1e9, doc["device_time_ns"] / 1e9 / n))
print("  wall     %8.2f s    (%.2f s a cycle)" % (wall, wall / n))
PY
}

# timed OUT ARGS...: flashbench ARGS with its JSON in OUT; prints the
# wall time in seconds
timed() {
	t_out=$1
	shift
	t0=$(date +%s.%N)
	"$FB" "$@" --format=json >"$t_out" 2>"$WORK/err"
	t_code=$?
	[ $t_code = 0 ] || [ $t_code = 4 ] ||
		{ cat "$WORK/err" >&2; echo "the run failed ($t_code)" >&2; exit 1; }
	echo "$(date +%s.%N) - $t0" | bc -l 2>/dev/null ||
		python3 -c "import sys; print(float(sys.argv[1]) - float(sys.argv[2]))" \
			"$(date +%s.%N)" "$t0"
}

wall=$(timed "$WORK/sim.json" --power-cut --seed=1 --cycles="$CYCLES" \
	--span="$SPAN" "$CARD")
report "sim: ($CARD)" "$WORK/sim.json" "$wall"

if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ] || [ ! -e /dev/loop-control ]
then
	echo "flashemu: skipped (needs root, /dev/fuse and loop devices)"
	exit 0
fi
mkdir -p "$WORK/emu"
"$EMU" --time-scale="$SCALE" "$CARD" "$WORK/emu" >"$WORK/emu.out" \
	2>"$WORK/emu.err" &
EMU_PID=$!
n=0
until grep -q "^ready " "$WORK/emu.out" 2>/dev/null; do
	n=$((n + 1))
	[ $n -lt 3000 ] && kill -0 "$EMU_PID" 2>/dev/null ||
		{ cat "$WORK/emu.err" >&2; echo "flashemu did not start" >&2; exit 1; }
	sleep 0.01
done
DEV=$(losetup -f --show --direct-io=on "$WORK/emu/card") || exit 1
wall=$(timed "$WORK/emu.json" --power-cut --seed=1 --cycles="$CYCLES" \
	--span="$SPAN" --cut-command="echo off >$WORK/emu/power" \
	--power-command="echo on >$WORK/emu/power" "$DEV")
report "flashemu (time scale $SCALE, $DEV)" "$WORK/emu.json" "$wall"
