#!/bin/sh
# t3100: --surface on simulated cards.  Read-only, it maps exactly the
# bad= ranges (to the 512-byte block, also one that is a single block and
# one inside a transfer), writes nothing and says "damaged" with exit 4
# (a card without them is "readable", exit 0).  --write on a genuine card
# that keeps its data maps the same ranges, every other block intact.
# On fakes of every mode it finds the same usable size as
# --capacity-check, with the same verdict, kind and exit code (3).
# --keep-data, blind to a wraparound beyond its chunk, never says
# genuine there: "readable-and-writable", exit 0; aliases within a chunk
# it sees, and says fake.  A run stopped by a signal has no verdict.
# --offset and --span choose the range, cut into windows of
# max(span / 1024, 1 MiB) that the JSON names; bad input exits 2.

. "$(dirname "$0")/lib.sh"

require python3

# summary.py FILE KEY=VALUE...: the "surface" record of the JSON run in
# FILE has these values (numbers compared as numbers); prints it.
cat >"$TRASH/summary.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
[s] = [r for r in doc["results"] if r["kind"] == "surface"]
for pair in sys.argv[2:]:
    key, want = pair.split("=", 1)
    got = s[key]
    if isinstance(got, bool):
        want = want == "true"
    elif isinstance(got, (int, float)):
        want = float(want)
    elif got is None:
        want = None if want == "null" else want
    assert got == want, (key, got, want)
print(s["verdict"], s["fake_kind"], s["usable_bytes"], s["bad_blocks"])
PY

# ranges.py FILE OFFSET+LENGTH:RESULT...: the bad ranges of the run, in
# order, are exactly these.
cat >"$TRASH/ranges.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
got = ["%d+%d:%s" % (r["offset_bytes"], r["length_bytes"], r["result"])
       for r in doc["results"] if r["kind"] == "surface-bad"]
assert got == sys.argv[2:], (got, sys.argv[2:])
print(" ".join(got))
PY

# surface SPEC OPTIONS...: --surface --format=json on sim:SPEC into
# out.json, the exit code in code.
surface() {
	sf_spec=$1
	shift
	"$FLASHBENCH" --surface -q --format=json "$@" "sim:$sf_spec" \
		>out.json 2>err
	echo $? >code
	cat err
}

summary() {
	python3 "$TRASH/summary.py" out.json "$@"
}

ranges() {
	python3 "$TRASH/ranges.py" out.json "$@"
}

BAD=bad=10M+64K,bad=100M+512,bad=200M+4608

test_expect_success 'read-only: exactly the bad ranges, damaged, exit 4, nothing written' '
	surface size=256M,$BAD &&
	test "$(cat code)" = 4 &&
	test ! -s err &&
	summary verdict=damaged mode=read-only bad_blocks=$((128 + 1 + 9)) \
		bad_ranges=3 bytes_written=0 bytes_checked=$((256 * MIB)) \
		partial=false &&
	ranges $((10 * MIB))+65536:read-error \
		$((100 * MIB))+512:read-error $((200 * MIB))+4608:read-error
'

test_expect_success 'read-only: more failed transfers than a window holds, every one mapped' '
	surface size=256M,bad=10M+512,bad=20M+512,bad=30M+512,bad=40M+512,bad=50M+512 &&
	test "$(cat code)" = 4 &&
	summary verdict=damaged bad_blocks=5 bad_ranges=5 &&
	ranges $((10 * MIB))+512:read-error $((20 * MIB))+512:read-error \
		$((30 * MIB))+512:read-error $((40 * MIB))+512:read-error \
		$((50 * MIB))+512:read-error
'

test_expect_success 'read-only: a card without bad blocks is readable, exit 0' '
	surface size=256M &&
	test "$(cat code)" = 0 &&
	summary verdict=readable bad_blocks=0 bytes_written=0 &&
	ranges
'

test_expect_success '--write on a genuine card: the same ranges, every other block intact' '
	surface size=256M,fake=256M,$BAD --write &&
	test "$(cat code)" = 4 &&
	grep -q "writes 268435456 bytes" err &&
	summary verdict=damaged mode=write bad_blocks=138 usable_bytes=$((10 * MIB)) &&
	ranges $((10 * MIB))+65536:read-error \
		$((100 * MIB))+512:read-error $((200 * MIB))+4608:read-error &&
	python3 - out.json <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[b] = [r for r in doc["results"] if r["kind"] == "surface-blocks"]
	assert b["intact"] == 256 * 2048 - 138, b
	assert b["read_error"] == 138, b
	PY
'

test_expect_success '--write on a genuine card without bad blocks: genuine, exit 0' '
	surface size=128M,fake=128M --write &&
	test "$(cat code)" = 0 &&
	summary verdict=genuine bad_blocks=0 usable_bytes=$((128 * MIB)) \
		bytes_written=$((128 * MIB)) &&
	ranges
'

# capacity_usable SPEC: --capacity-check's verdict, kind and usable size
capacity_usable() {
	"$FLASHBENCH" --capacity-check -q --format=json \
		--undo-file="$TRASH/cc.undo" "sim:$1" 2>/dev/null |
	python3 -c "
import json, sys
doc = json.load(sys.stdin)
[r] = [r for r in doc['results'] if r['kind'] == 'capacity']
print(r['verdict'], r['fake_kind'], r['usable_bytes'])"
}

for mode in wrap drop zero error; do
	test_expect_success "--write on a $mode fake: the usable size --capacity-check finds, exit 3" "
		spec=size=256M,fake=$((200 * MIB + 7 * 512)),fake-mode=$mode &&
		surface \$spec --write &&
		test \"\$(cat code)\" = 3 &&
		capacity_usable \$spec >want &&
		summary verdict=fake >got &&
		cat want got &&
		test \"\$(cut -d\" \" -f1-3 got)\" = \"\$(cat want)\"
	"
done

test_expect_success 'slow= ranges are named, with their rates, read-only and --write' '
	surface size=256M,fake=256M,slow=100M+8M:2M,slow=200M+3M:5M &&
	test "$(cat code)" = 0 &&
	python3 - out.json <<-\PY &&
	import json, sys
	doc = json.load(open(sys.argv[1]))
	slow = [(r["offset_bytes"] >> 20, r["length_bytes"] >> 20, round(r["read_bytes_per_s"] / 1e6))
	        for r in doc["results"] if r["kind"] == "surface-slow"]
	assert slow == [(100, 8, 2), (200, 3, 5)], slow
	PY
	surface size=256M,fake=256M,slow=100M+8M:2M --write &&
	python3 - out.json <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[s] = [r for r in doc["results"] if r["kind"] == "surface-slow"]
	assert (s["offset_bytes"], s["length_bytes"]) == (100 << 20, 8 << 20), s
	assert round(s["write_bytes_per_s"] / 1e6) == 2, s
	PY
'

WRAP=size=1G,fake=256M,fake-mode=wrap

test_expect_success '--keep-data on a wraparound fake: readable-and-writable, exit 0, never genuine; fake where a chunk shows aliases' '
	surface $WRAP --keep-data --undo-file="$TRASH/wrap.undo" &&
	test "$(cat code)" = 0 &&
	! grep -q genuine out.json &&
	summary verdict=readable-and-writable mode=keep-data bad_blocks=0 \
		stopped=null partial=false &&
	python3 - out.json <<-\PY &&
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[s] = [r for r in doc["results"] if r["kind"] == "surface"]
	assert "--write or --capacity-check" in s["certainty"], s
	PY
	"$FLASHBENCH" --surface --keep-data -q --undo-file="$TRASH/wrap.undo" \
		"sim:$WRAP" >out 2>err &&
	cat out &&
	grep "^verdict: " out >verdict &&
	grep -q "^verdict: readable-and-writable (keep-data);" verdict &&
	! grep -q genuine out &&
	: aliases within a chunk it sees, and says so &&
	surface size=64M,fake=8M,fake-mode=wrap --keep-data \
		--undo-file="$TRASH/wrap8.undo" &&
	test "$(cat code)" = 3 &&
	summary verdict=fake fake_kind=wraparound usable_bytes=$((8 * MIB))
'

GIB=$((1024 * MIB))

# The card's own stamp and verify operations make this a test of device
# time: 64 GiB stamped and read back without making 128M stamps.
test_expect_success '64 GiB card, --write: the bad ranges exactly, the slow one named, the time its bytes take' '
	surface size=64G,fake=64G,bad=10G+64K,bad=40G+512,bad=63G+4608,slow=20G+1G:2M \
		--write &&
	test "$(cat code)" = 4 &&
	summary verdict=damaged mode=write bad_blocks=$((128 + 1 + 9)) \
		bad_ranges=3 bytes_checked=$((64 * GIB)) \
		window_bytes=$((64 * MIB)) partial=false &&
	ranges $((10 * GIB))+65536:read-error $((40 * GIB))+512:read-error \
		$((63 * GIB))+4608:read-error &&
	python3 - out.json <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	slow = [(r["offset_bytes"] >> 20, r["length_bytes"] >> 20)
	        for r in doc["results"] if r["kind"] == "surface-slow"]
	assert slow == [(20 << 10, 1 << 10)], slow
	[s] = [r for r in doc["results"] if r["kind"] == "surface"]
	# every byte written and read at the card rates: over 2.5 hours
	assert s["device_time_ns"] > 9000 * 10**9, s["device_time_ns"]
	assert s["bytes_written"] == (64 << 30) - 65536 - 512 - 4608, s
	PY
'

test_expect_success '--write on a card none of whose blocks answers: damaged, no usable size, not fake' '
	surface size=64M,fake=64M,bad=0+64M --write &&
	test "$(cat code)" = 4 &&
	summary verdict=damaged fake_kind=null usable_bytes=null \
		bad_blocks=131072 &&
	"$FLASHBENCH" --surface --write sim:size=64M,fake=64M,bad=0+64M \
		>out 2>err;
	test $? = 4 &&
	grep "^verdict: damaged (write); checked 67108864 bytes, 131072 bad blocks in 1 range;.* no block kept its data and none shows a capacity lie: damaged or dead, no usable size$" out &&
	! grep usable out | grep -v "no usable size"
'

test_expect_success '--plot: read and write rates against the offset, a band per bad range' '
	surface size=64M,fake=64M,bad=10M+1M,bad=30M+512 --write \
		--plot=chart.svg &&
	test "$(grep -c "<polyline" chart.svg)" = 2 &&
	test "$(grep -c "<title>bad: " chart.svg)" = 2 &&
	grep -q "<title>bad: 10485760 (+1048576)</title>" chart.svg &&
	grep -q ">read<" chart.svg &&
	grep -q ">write<" chart.svg &&
	"$FLASHBENCH" --plot=again.svg out.json &&
	test "$(grep -c "<title>bad: " again.svg)" = 2
'

test_expect_success '--offset and --span: only that range, in windows of 1 MiB' '
	surface size=64M,fake=64M,bad=2M+512,bad=20M+512 --write \
		--offset=1M --span=3M &&
	test "$(cat code)" = 4 &&
	grep -q "overwrites bytes 1048576 to 4194303" err &&
	summary start_bytes=$MIB end_bytes=$((4 * MIB)) window_bytes=$MIB bad_blocks=1 \
		bytes_written=$((3 * MIB - 512)) &&
	ranges $((2 * MIB))+512:read-error &&
	python3 - out.json <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	w = [(r["offset_bytes"], r["length_bytes"]) for r in doc["results"]
	     if r["kind"] == "surface-window"]
	M = 1 << 20
	assert w == [(M, M), (2 * M, M), (3 * M, M)], w
	PY
'

test_expect_success 'a 2 GiB range: 1024 windows of 2 MiB' '
	surface size=2G &&
	summary window_bytes=$((2 * MIB)) &&
	test "$(grep -o "\"surface-window\"" out.json | wc -l)" = 1024
'

# Each operation of this card also takes 5 ms of wall time, so its 64
# windows take more than the 0.2 s between redraws of the line.
if have_script; then
	test_expect_success 'a progress line on a terminal: MiB done, the rate, cleared' "
		on_terminal '\"\$FLASHBENCH\" --surface sim:size=64M,pace=5ms >out' &&
		progress_cleared surface &&
		grep -Eq 'surface: [0-9]+MiB/64MiB \\([0-9]+%\\) [0-9.]+MB/s ' tty &&
		grep -q '^verdict: readable' out
	"
else
	test_skip 'a progress line on a terminal: MiB done, the rate, cleared' 'no script(1)'
fi

# 1024 windows of 5 ms of wall time each: running when the signal comes
test_expect_success 'SIGINT: exit 130, a partial result marked incomplete, no verdict' '
	fb_start --surface --format=json sim:size=1G,pace=5ms &&
	wait_catching &&
	kill -INT $fb_pid &&
	fb_wait &&
	test "$(cat code)" = 130 &&
	grep -q "interrupted; the result is partial" err &&
	python3 - out <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[s] = [r for r in doc["results"] if r["kind"] == "surface"]
	assert doc["incomplete"] is True and s["partial"] is True, s
	assert s["verdict"] is None and s["stopped"] == "interrupted", s
	assert s["usable_bytes"] is None, s
	# the signal may come before the first window is done
	assert 0 <= s["checked_end_bytes"] < 1 << 30, s
	assert s["certainty"] == "no verdict: interrupted; blocks from %d " \
		"on were not checked" % s["checked_end_bytes"], s
	PY
'

test_expect_success 'SIGINT, text: "verdict: incomplete (interrupted)", nothing readable claimed' '
	fb_start --surface sim:size=1G,pace=5ms &&
	wait_catching &&
	kill -INT $fb_pid &&
	fb_wait &&
	test "$(cat code)" = 130 &&
	grep "^verdict: " out >verdict &&
	cat verdict &&
	grep -Eq "^verdict: incomplete \(interrupted\) \(read-only\); checked [0-9]+ bytes,.*; no verdict: interrupted; blocks from [0-9]+ on were not checked$" verdict &&
	! grep -q readable verdict
'

test_expect_success 'bad input: exit 2 before any I/O' '
	test_usage_error flashbench "--surface: --write or --keep-data, not both.*" \
		--surface --write --keep-data sim:size=64M,fake=64M &&
	test_usage_error flashbench "--resume goes with --surface --keep-data" \
		--surface --resume=x.undo sim:size=64M,fake=64M &&
	test_usage_error flashbench "--span: .* pass the end of .*" \
		--surface --offset=60M --span=8M sim:size=64M &&
	test_usage_error flashbench "--surface: the simulated card keeps no data.*" \
		--surface --write sim:size=64M &&
	test_usage_error flashbench "--keep-data goes with --surface" \
		--keep-data sim:size=64M
'

test_done
