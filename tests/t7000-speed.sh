#!/bin/sh
# t7000: real-world speed.  On simulated cards whose write rate and
# latencies are chosen, --class-check gives the verdicts that follow from
# the model, in text and JSON; -t reports the model's read rate; --iops
# reports IOPS and ordered latency percentiles; --read-only writes
# nothing and opens read-only.  On a loop device -t reads and writes
# nothing, the writing tests change nothing outside the range they
# announce, and a mounted device is refused.

. "$(dirname "$0")/lib.sh"
require python3


# A fast card: 4 MiB in 50us + 4MiB / 40MB/s; 4 KiB random reads in
# 100us + 4KiB / 20MB/s, writes in 50us + 4KiB / 40MB/s; no gc, no noise.
FAST=write-rate=40M,write-lat=50us,gc=0,read-lat=100us,read-rate=20M
FAST=sim:$FAST,page-cross=0,au-cross=0,noise=0,page=4K,prog=4K
# A slow one: 5 MB/s writes.
SLOW=write-rate=5M,write-lat=500us,gc=0,read-lat=400us,read-rate=20M
SLOW=sim:$SLOW,page-cross=0,au-cross=0,noise=0,page=4K,prog=4K

# model WRITE_RATE WRITE_LAT_S READ_RATE READ_LAT_S: "write_bytes_per_s
# read_iops write_iops" the model gives for 4 MiB sequential writes and
# 4 KiB random I/O (one 4 KiB program unit, no page or AU crossing).
model() {
	awk -v wr="$1" -v wl="$2" -v rr="$3" -v rl="$4" 'BEGIN {
		e = 4194304; b = 4096
		printf "%.1f %.1f %.1f\n", e / (wl + e / wr),
			1 / (rl + b / rr), 1 / (wl + b / wr) }'
}

# verdicts W RI WI: "CLASS pass as far as measured|FAIL" for every
# class, from the SD requirements (MB/s sequential write; A1, A2 also
# read and write IOPS): a card without a write cache shows no fall in
# the bytes a short run writes, so it passes only as far as measured.
verdicts() {
	awk -v w="$1" -v ri="$2" -v wi="$3" 'BEGIN {
		n = split("C2 2 0 0 C4 4 0 0 C6 6 0 0 C10 10 0 0 U1 10 0 0 " \
			"U3 30 0 0 V6 6 0 0 V10 10 0 0 V30 30 0 0 V60 60 0 0 " \
			"V90 90 0 0 A1 10 1500 500 A1-QD32 10 1500 500 " \
			"A2 10 4000 2000", t, " ")
		for (i = 1; i <= n; i += 4)
			print t[i], (w >= t[i + 1] * 1e6 && ri >= t[i + 2] &&
				     wi >= t[i + 3]) ? \
				"pass as far as measured" : "FAIL" }'
}

# text_verdicts FILE: "CLASS RESULT" from --class-check text output (the
# result after the figures: pass, "pass as far as measured", FAIL or
# "not measured").
text_verdicts() {
	awk '$1 ~ /^[CUVA][0-9]+(-QD32)?$/ {
		r = $0; sub(/ +\(claimed: [a-z-]+\)$/, "", r)
		if (r ~ /; not measured$/) r = "not measured"
		else sub(/.*: /, "", r)
		print $1, r }' "$1"
}

# mbs BYTES_PER_S: the figure as text prints MB/s (three digits)
mbs() {
	awk -v x="$1" 'BEGIN { v = x / 1e6
		printf (v >= 999.5 ? "%.0f\n" : "%.3g\n"), v }'
}

# check_class_json FILE W RI WI: the JSON document has a "classes" object
# keyed by every class name, each with "required", "measured", "pass";
# the measured figures are the model's (0.5%), and pass follows from them.
check_class_json() {
	verdicts "$2" "$3" "$4" >verdicts.expect
	python3 - "$@" <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	w, ri, wi = (float(x) for x in sys.argv[2:5])
	want = dict(l.rstrip("\n").split(" ", 1) for l in open("verdicts.expect"))
	names = "C2 C4 C6 C10 U1 U3 V6 V10 V30 V60 V90 A1 A1-QD32 A2".split()
	assert doc["test"] == "class-check", doc["test"]
	assert doc["parameters"]["read_only"] == 0
	assert list(doc["classes"]) == names, list(doc["classes"])
	def near(got, exp):
	    assert abs(got - exp) <= 0.005 * exp, (got, exp)
	figures = doc["results"][0]
	near(figures["write_bytes_per_s"], w)
	near(figures["read_iops"], ri)
	near(figures["write_iops"], wi)
	rows = [r for r in doc["results"] if "class" in r]
	assert [r["class"] for r in rows] == names
	for r in rows:
	    c = dict(r)
	    assert c.pop("kind") == "class", r
	    del c["class"]
	    assert doc["classes"][r["class"]] == c, (r, doc["classes"])
	assert doc["bytes_written"] > 0 and doc["bytes_read"] > 0
	mb = {"C2": 2, "C4": 4, "C6": 6, "C10": 10, "U1": 10, "U3": 30,
	      "V6": 6, "V10": 10, "V30": 30, "V60": 60, "V90": 90, "A1": 10,
	      "A1-QD32": 10, "A2": 10}
	for name, c in doc["classes"].items():
	    assert set(c) >= {"required", "measured", "pass"}, (name, c)
	    assert c["required"]["write_bytes_per_s"] == mb[name] * 1e6, c
	    near(c["measured"]["write_bytes_per_s"], w)
	    if name.startswith("A"):
	        near(c["measured"]["read_iops"], ri)
	        near(c["measured"]["write_iops"], wi)
	        r = {"A1": (1500, 500), "A1-QD32": (1500, 500),
	             "A2": (4000, 2000)}[name]
	        assert (c["required"]["read_iops"],
	                c["required"]["write_iops"]) == r, c
	    assert c["result"] == want[name], (name, c, want[name])
	    # a pass that never saw a fall is no plain pass: null
	    assert c["pass"] is {"FAIL": False}.get(want[name]), (name, c)
	    assert c["sustained_known"] is False, (name, c)
	    assert c["measured"]["written_bytes"] == doc["results"][1][
	        "written_bytes"], (name, c)
	PY
}

# ---- class check on simulated cards ----

test_expect_success 'sim: the fast card passes U3, V30 and A1, fails V60, A2' '
	set -- $(model 40e6 50e-6 20e6 100e-6) &&
	echo "model: $*" &&
	"$FLASHBENCH" --class-check --time=1 "$FAST" >out 2>err &&
	cat out err &&
	text_verdicts out >got &&
	verdicts "$@" >expect &&
	test_cmp expect got &&
	grep "^U3 .*: pass as far as measured\$" out &&
	grep "^V30 .*: pass as far as measured\$" out &&
	grep "^A1 .*: pass as far as measured\$" out && grep "^A2 .* FAIL" out &&
	grep "^V60 .* FAIL" out
'

test_expect_success 'sim: the fast card: text shows the model figures' '
	set -- $(model 40e6 50e-6 20e6 100e-6) &&
	"$FLASHBENCH" --class-check --time=1 "$FAST" >out 2>/dev/null &&
	w=$(mbs "$1") &&
	ri=$(awk -v x="$2" "BEGIN { printf \"%.0f\", x }") &&
	wi=$(awk -v x="$3" "BEGIN { printf \"%.0f\", x }") &&
	echo "want $w MB/s, r $ri w $wi IOPS" &&
	grep "^measured: sequential write $w MB/s, random read $ri IOPS, random write $wi IOPS, QD32 random read $ri IOPS, QD32 random write $wi IOPS\$" out &&
	far="over the first [0-9.]*MiB, no fall seen" &&
	grep "^U3 *required 30 MB/s; measured $w MB/s $far: pass as far as measured\$" out &&
	grep "^A1 *required 10 MB/s, r 1500 IOPS, w 500 IOPS; measured $w MB/s $far, r $ri IOPS, w $wi IOPS at QD1: pass as far as measured\$" out &&
	grep "^A1-QD32 *required 10 MB/s, r 1500 IOPS, w 500 IOPS; measured $w MB/s $far, r $ri IOPS, w $wi IOPS at QD32: pass as far as measured\$" out &&
	grep "^as far as measured: no fall in the first [0-9.]*MiB written, so a write cache larger than that would hide a slower sustained rate; --span=[0-9]*[MG] --time=[0-9]*0 looks for one of up to [0-9.]*GiB\$" out
'

test_expect_success 'sim: the fast card: json classes with required, measured, pass' '
	set -- $(model 40e6 50e-6 20e6 100e-6) &&
	"$FLASHBENCH" --class-check --time=1 --format=json "$FAST" \
		>doc.json 2>err &&
	check_class_json doc.json "$@"
'

test_expect_success 'sim: the 5 MB/s card fails C10 and passes only C2, C4' '
	set -- $(model 5e6 500e-6 20e6 400e-6) &&
	echo "model: $*" &&
	"$FLASHBENCH" --class-check --time=1 "$SLOW" >out 2>err &&
	cat out &&
	text_verdicts out >got &&
	verdicts "$@" >expect &&
	test_cmp expect got &&
	grep "^C10 .* FAIL" out &&
	awk "\$2 == \"pass\" { print \$1 }" got >passed &&
	printf "C2\nC4\n" >expect.passed &&
	test_cmp expect.passed passed
'

test_expect_success 'sim: the 5 MB/s card in json' '
	set -- $(model 5e6 500e-6 20e6 400e-6) &&
	"$FLASHBENCH" --class-check --time=1 --format=json "$SLOW" \
		>doc.json 2>/dev/null &&
	check_class_json doc.json "$@" &&
	python3 -c "import json; d = json.load(open(\"doc.json\"));
assert d[\"classes\"][\"C10\"][\"pass\"] is False"
'

# ---- read rate ----

# read_rate_ok BLOCK: -t -b BLOCK (JSON bytes_per_s, and the text's MB/s)
# within 2% of BLOCK / (read-lat + BLOCK / read-rate).
read_rate_ok() {
	card=sim:read-lat=300us,read-rate=15M,page-cross=0,au-cross=0
	want=$(awk -v b="$1" "BEGIN { printf \"%.0f\", b / (300e-6 + b / 15e6) }")
	"$FLASHBENCH" -t -b "$1" --time=1 --format=json "$card" >doc.json &&
	"$FLASHBENCH" -t -b "$1" --time=1 "$card" >out &&
	cat doc.json out &&
	python3 - "$want" "$1" <<-\PY &&
	import json, sys
	d = json.load(open("doc.json"))
	want, block = float(sys.argv[1]), int(sys.argv[2])
	s = d["results"][-1]
	assert d["test"] == "read-speed" and s["block_bytes"] == block, d
	assert s["device_time_ns"] == d["device_time_ns"], d
	windows = [r for r in d["results"] if "second" in r]
	assert [r["second"] for r in windows] == \
	    list(range(1, len(windows) + 1)), windows
	assert s["window_min_bytes_per_s"] <= \
	    s["window_median_bytes_per_s"] <= s["window_max_bytes_per_s"]
	got = s["bytes_per_s"]
	assert abs(got - want) <= 0.02 * want, (got, want)
	assert d["bytes_written"] == 0 and d["bytes_read"] > 0
	assert abs(got - d["bytes_read"] * 1e9 / d["device_time_ns"]) <= \
	    0.001 * got
	PY
	mbs=$(sed -n "s/^read $1-byte blocks for [0-9.]*m\{0,1\}s: \([0-9.]*\) MB\/s; .*/\1/p" out) &&
	echo "text: $mbs MB/s, model $want B/s" &&
	awk -v g="$mbs" -v w="$want" "BEGIN { exit !(g * 1e6 >= 0.98 * w &&
		g * 1e6 <= 1.02 * w) }"
}

test_expect_success 'sim: -t -b 64K reads at the model rate' '
	read_rate_ok 65536
'

test_expect_success 'sim: -t (1 MiB blocks) reads at the model rate' '
	read_rate_ok 1048576
'

# ---- IOPS ----

test_expect_success 'sim: --iops json has iops and p50 <= p99 <= max' '
	"$FLASHBENCH" --iops --time=1 --format=json \
		sim:spikes=0.02,seed=5 >doc.json 2>err &&
	grep "^flashbench: --iops overwrites bytes " err &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	assert d["test"] == "iops"
	assert d["parameters"]["iodepth"] == 1
	assert d["parameters"]["engine"] == "sim"
	rd, wr = d["results"]
	def check(r, want):
	    lat = r["latency_ns"]
	    assert 0 < lat["p50"] <= lat["p99"] <= lat["max"], lat
	    assert r["operations"] > 0 and r["block_bytes"] == 4096
	    iops = r["operations"] * 1e9 / r["device_time_ns"]
	    assert abs(r["iops"] - iops) <= 0.001 * iops + 0.1, (r, iops)
	    if want:
	        assert abs(r["iops"] - want) <= 0.05 * want, (r["iops"], want)
	# reads: read-lat 420us + 4KiB / 20MB/s, a few spikes
	assert rd["direction"] == "read" and wr["direction"] == "write"
	check(rd, None)
	assert 1000 < rd["iops"] <= 1 / (420e-6 + 4096 / 20e6) * 1.01, rd
	assert rd["latency_ns"]["p50"] < rd["latency_ns"]["max"]
	check(wr, None)
	assert d["bytes_read"] == rd["operations"] * 4096
	assert d["bytes_written"] == wr["operations"] * 4096
	assert d["device_time_ns"] == \
	    rd["device_time_ns"] + wr["device_time_ns"]
	PY
'

test_expect_success 'sim: --iops --read-only measures no writes' '
	"$FLASHBENCH" --iops --read-only --time=1 --format=json \
		sim:ro >doc.json 2>err &&
	test ! -s err &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	assert d["parameters"]["read_only"] == 1
	assert len(d["results"]) == 1 and d["bytes_written"] == 0, d
	lat = d["results"][0]["latency_ns"]
	assert lat["p50"] <= lat["p99"] <= lat["max"], lat
	PY
'

# ---- read-only class check ----

test_expect_success 'sim:ro: --class-check --read-only runs and writes nothing' '
	"$FLASHBENCH" --class-check --read-only --time=1 --format=json \
		sim:ro >doc.json 2>err &&
	cat err &&
	test ! -s err &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	assert d["parameters"]["read_only"] == 1
	assert d["bytes_written"] == 0 and d["bytes_read"] > 0, d
	m = d["results"][0]
	assert m["write_bytes_per_s"] is None and m["write_iops"] is None
	want = 1 / (420e-6 + 4096 / 20e6)
	assert abs(m["read_iops"] - want) <= 0.02 * want, m["read_iops"]
	for name, c in d["classes"].items():
	    assert c["measured"]["write_bytes_per_s"] is None, c
	    # a write requirement is not measured; A2 fails on reads alone
	    assert c["pass"] is (False if name == "A2" else None), (name, c)
	PY
'

test_expect_success 'sim:ro: --class-check --read-only --stats: written 0B' '
	"$FLASHBENCH" --class-check --read-only --time=1 --stats \
		sim:ro >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep "^device time .*, written 0B$" err &&
	grep "^C10 .* not measured" out
'

test_expect_success 'sim:ro: --class-check without --read-only is refused' '
	test_expect_code 1 "$FLASHBENCH" --class-check --time=1 sim:ro \
		>out 2>err &&
	cat err &&
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	grep "write-protected" err
'

# ---- formats, plots, progress ----

# The four tests on sim: (short runs), each with its arguments.
SPEED_TESTS="-t --write-speed --iops --class-check"

# csv_tables_ok FILE: one table: a header starting "schema,kind," and
# rows of the header's column count.
csv_tables_ok() {
	python3 - "$1" <<-\PY
	import csv, sys
	rows = list(csv.reader(open(sys.argv[1], newline="")))
	assert rows and rows[0][:2] == ["schema", "kind"], rows[:1]
	assert len(rows) > 1, rows
	for r in rows[1:]:
	    assert len(r) == len(rows[0]), (rows[0], r)
	    assert r[0] == "3" and r[1], r
	PY
}

for t in $SPEED_TESTS; do
	test_expect_success "sim: $t --format=csv: one table, one column count" "
		\"\$FLASHBENCH\" $t --time=1 --format=csv sim: >out.csv \
			2>/dev/null &&
		cat out.csv &&
		csv_tables_ok out.csv
	"
	test_expect_success "sim: $t --format=json: one valid document" "
		\"\$FLASHBENCH\" $t --time=1 --format=json sim: >doc.json \
			2>/dev/null &&
		python3 -m json.tool doc.json >/dev/null &&
		python3 -c 'import json, sys
d = json.load(open(\"doc.json\"))
for k in (\"schema\", \"command\", \"test\", \"device\", \"parameters\",
          \"results\", \"incomplete\", \"device_time_ns\", \"bytes_read\",
          \"bytes_written\", \"units\"):
    assert k in d, k
assert d[\"incomplete\"] is False and d[\"results\"], d'
	"
done

test_expect_success 'sim: -t: json numbers are the text numbers' '
	"$FLASHBENCH" -t --time=2 sim: >out &&
	"$FLASHBENCH" -t --time=2 --format=json sim: >doc.json &&
	cat out &&
	python3 - <<-\PY
	import json, re
	d = json.load(open("doc.json"))
	s = d["results"][-1]
	def mb(x):
	    v = x / 1e6
	    return "%.0f" % v if v >= 999.5 else "%.3g" % v
	want = ("read %d-byte blocks for %s: %s MB/s; per second: min %s, "
	        "median %s, max %s MB/s\n") % (s["block_bytes"], "%s",
	        mb(s["bytes_per_s"]), mb(s["window_min_bytes_per_s"]),
	        mb(s["window_median_bytes_per_s"]),
	        mb(s["window_max_bytes_per_s"]))
	text = open("out").read()
	secs = re.match(r"read \d+-byte blocks for ([0-9.]+s):", text).group(1)
	assert abs(float(secs[:-1]) * 1e9 - s["device_time_ns"]) <= \
	    0.001 * s["device_time_ns"], (secs, s)
	assert text == want % secs, (text, want % secs)
	assert s["failed_reads"] == 0
	PY
'

test_expect_success 'sim: --iops: json numbers are the text numbers' '
	"$FLASHBENCH" --iops --time=1 sim: >out 2>/dev/null &&
	"$FLASHBENCH" --iops --time=1 --format=json sim: >doc.json \
		2>/dev/null &&
	cat out &&
	python3 - <<-\PY
	import json, re
	d = json.load(open("doc.json"))
	lines = open("out").read().splitlines()
	assert len(lines) == len(d["results"]) == 2, lines
	for line, r in zip(lines, d["results"]):
	    m = re.match(r"random 4096-byte (reads|writes) for \S+: (\d+) "
	                 r"IOPS; latency p50 (\S+), p99 (\S+), max (\S+)$",
	                 line)
	    assert m, line
	    assert m.group(1) == r["direction"] + "s", (line, r)
	    assert m.group(2) == "%.0f" % r["iops"], (line, r)
	    def ns(t):
	        for unit, scale in (("ns", 1), ("\u00b5s", 1e3),
	                            ("ms", 1e6), ("s", 1e9)):
	            if t.endswith(unit) and t[:-len(unit)][-1:].isdigit():
	                return float(t[:-len(unit)]) * scale
	    for text, key in zip(m.groups()[2:], ("p50", "p99", "max")):
	        v = r["latency_ns"][key]
	        assert abs(ns(text) - v) <= 0.005 * v, (text, key, v)
	PY
'

test_expect_success 'sim: --class-check: json numbers are the text numbers' '
	"$FLASHBENCH" --class-check --time=1 "$FAST" >out 2>/dev/null &&
	"$FLASHBENCH" --class-check --time=1 --format=json "$FAST" \
		>doc.json 2>/dev/null &&
	text_verdicts out >got &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	def mb(x):
	    return "%.3g" % (x / 1e6)
	m = d["results"][0]
	text = open("out").read().splitlines()
	assert text[0] == ("measured: sequential write %s MB/s, random read "
	                   "%.0f IOPS, random write %.0f IOPS, QD32 random read "
	                   "%.0f IOPS, QD32 random write %.0f IOPS") % (
	    mb(m["write_bytes_per_s"]), m["read_iops"], m["write_iops"],
	    m["qd32"]["read_iops"], m["qd32"]["write_iops"]), text[0]
	got = dict(l.split(" ", 1) for l in open("got").read().splitlines())
	for name, c in d["classes"].items():
	    assert got[name] == c["result"], (name, got[name], c)
	    assert c["pass"] is {"pass": True, "FAIL": False}.get(c["result"])
	    line = [l for l in text if l.split()[0] == name][0]
	    assert " required %s MB/s" % mb(c["required"]["write_bytes_per_s"]) \
	        in line, (line, c)
	    assert "measured %s MB/s" % mb(c["measured"]["write_bytes_per_s"]) \
	        in line, (line, c)
	assert text[-3].startswith("note: claimed classes unknown"), text[-3]
	assert text[-2].startswith("host queue: a simulated card"), text[-2]
	assert text[-1].startswith("Raspberry Pi SD Card Speed Test"), text[-1]
	PY
'

test_expect_success 'sim: --plot on -t and --write-speed: throughput over time' '
	"$FLASHBENCH" -t --time=4 --plot=t.svg sim: >out &&
	"$FLASHBENCH" -t --time=4 sim: >plain &&
	test_cmp plain out &&
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout t.svg
	else
		grep -q "</svg>" t.svg
	fi &&
	grep -q "<polyline" t.svg &&
	grep -q ">time (seconds)<" t.svg &&
	grep -q ">throughput (MB/s)<" t.svg &&
	"$FLASHBENCH" --write-speed --time=3 --plot=w.svg sim: >out \
		2>/dev/null &&
	grep -q "<polyline" w.svg &&
	grep -q ">flashbench write-speed on sim:<" w.svg
'

test_expect_success 'sim: --plot on --iops and --class-check is a usage error' '
	for t in --iops --class-check; do
		test_expect_code 2 "$FLASHBENCH" $t --plot=x.svg sim: \
			>out 2>err || return 1
		cat err &&
		test ! -s out && test ! -e x.svg &&
		grep "^flashbench: --plot is not available for $t\$" err ||
			return 1
	done
'

test_expect_success 'sim: saved -t runs overlay on one chart' '
	"$FLASHBENCH" -t --time=3 -b 64K --format=json sim: >a.json &&
	"$FLASHBENCH" -t --time=3 -b 1M --format=json sim: >b.json &&
	"$FLASHBENCH" --plot=ab.svg a.json b.json &&
	test "$(grep -c "<polyline" ab.svg)" = 2 &&
	grep -q ">blocksize=65536<" ab.svg
'

# Each 512-byte read on this card takes 10 ms of device time, so -t
# reports progress after every read, and 5 ms of wall time (pace=): by
# the 41st of about 100 reads 0.2 s have passed, and the progress line
# (drawn at most every 0.2 s) must have been drawn.
PACED_READS='-t -b 512 --time=1 sim:read-lat=10ms,pace=5ms'
if have_script; then
	test_expect_success 'sim: -t draws progress on a terminal, not with -q' "
		on_terminal '\"\$FLASHBENCH\" $PACED_READS >out' &&
		progress_cleared read-speed &&
		grep -q 'read-speed: [0-9]*/1000 ' tty &&
		! grep -q 'read-speed: ' out &&
		grep -q '^read 512-byte blocks for ' out &&
		on_terminal '\"\$FLASHBENCH\" -q $PACED_READS >out' &&
		! grep -q 'read-speed: ' tty &&
		grep -q '^read 512-byte blocks for ' out
	"
else
	test_skip 'sim: -t draws progress on a terminal, not with -q' \
		'no script(1)'
fi

# ---- loop devices ----

if have_loop; then
	loop_setup LOOP 256M
	loop_setup ROLOOP 64M -r
	MNT=$TRASH/mnt
	mkdir -p "$MNT"
	# registered after the loop device, so it runs before the detach
	test_at_exit "umount '$MNT'"
fi
IMAGE=$TRASH/image



# How -t's rate compares with dd's on the same device is a timing, which
# load on the machine moves: bench/timings.sh prints it; the suite
# asserts no timing.

test_loop 'loop: setup: a 256 MiB device of random data' '
	test -b "$LOOP" &&
	test "$(blockdev --getsize64 "$LOOP")" = $((256 * MIB)) &&
	head -c $((64 * MIB)) /dev/urandom >random64 &&
	cat random64 random64 random64 random64 >"$IMAGE" &&
	copy_to_dev "$IMAGE" "$LOOP" &&
	chunk_sums_quick "$LOOP" $MIB >"$TRASH/image.sums" &&
	test "$(wc -l <"$TRASH/image.sums")" = 256 &&
	dev_sum "$IMAGE" >"$TRASH/image.sum"
'

test_loop 'loop: -t writes nothing' '
	"$FLASHBENCH" -t --time=0.1 "$LOOP" >out 2>err &&
	test ! -s err &&
	grep "^read 1048576-byte blocks for " out &&
	dev_sum "$LOOP" >after &&
	test_cmp "$TRASH/image.sum" after
'

test_loop 'loop: --write-speed --span=32M writes only [16 MiB, 48 MiB)' '
	run_checked --write-speed --span=32M --time=0.2 --format=json &&
	test "$(wc -l <err)" = 1 &&
	grep "^flashbench: --write-speed overwrites bytes 16777216 to 50331647 " err &&
	python3 -c "import json
d = json.load(open(\"out\"))
assert d[\"test\"] == \"write-speed\" and d[\"bytes_written\"] > 0, d" &&
	test -s changed &&
	chunks_within changed 16 48 &&
	set -- $(announced_range err) &&
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
'

test_loop 'loop: --class-check --span=32M writes only [16 MiB, 48 MiB)' '
	run_checked --class-check --span=32M --time=0.2 &&
	test "$(wc -l <err)" = 1 &&
	grep "^flashbench: --class-check overwrites bytes 16777216 to 50331647 " err &&
	grep "^C10 " out &&
	test -s changed &&
	chunks_within changed 16 48
'

test_loop 'loop: --class-check --read-only writes nothing' '
	restore &&
	"$FLASHBENCH" --class-check --read-only --time=0.2 --format=json \
		"$LOOP" >doc.json 2>err &&
	test ! -s err &&
	python3 -c "import json
d = json.load(open(\"doc.json\"))
assert d[\"bytes_written\"] == 0 and d[\"results\"][0][\"read_iops\"] > 0, d" &&
	dev_sum "$LOOP" >after &&
	test_cmp "$TRASH/image.sum" after
'

test_loop 'loop: read-only device: --class-check --read-only and -t work' '
	test "$(blockdev --getro "$ROLOOP")" = 1 &&
	"$FLASHBENCH" --class-check --read-only --time=0.1 "$ROLOOP" \
		>out 2>err &&
	test ! -s err &&
	grep "^A1 " out &&
	"$FLASHBENCH" -t --time=0.1 "$ROLOOP" >out &&
	grep "^read " out
'

test_loop 'loop: read-only device: --write-speed, --class-check refused' '
	for t in --write-speed --class-check --iops; do
		test_expect_code 1 "$FLASHBENCH" $t --time=0.1 "$ROLOOP" \
			>out 2>err || return 1
		cat err
		test ! -s out && test "$(wc -l <err)" = 1 &&
		grep -i "read-only" err || return 1
	done
'

# ---- mounted ----


test_loop 'loop: --iops with the default span ends at the end of the device' '
	"$FLASHBENCH" --iops --time=0.05 "$LOOP" >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	test "$(announced_range err)" = "$((16 * MIB)) $((256 * MIB))" &&
	grep "^random 4096-byte reads for " out &&
	grep "^random 4096-byte writes for " out
'

test_loop_ext4 'loop: setup: an ext4 file system, mounted' '
	rm -f "$TRASH/dirty" &&
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" &&
	mount "$LOOP" "$MNT" &&
	head -c $MIB /dev/urandom >"$TRASH/payload" &&
	cp "$TRASH/payload" "$MNT/payload" &&
	sync
'

test_loop_ext4 'mounted: --write-speed is refused as busy' '
	refused_busy "$FLASHBENCH" --write-speed --time=0.1 "$LOOP"
'

test_loop_ext4 'mounted: --class-check is refused as busy' '
	refused_busy "$FLASHBENCH" --class-check --time=0.1 "$LOOP"
'

test_loop_ext4 'mounted: --iops is refused as busy' '
	refused_busy "$FLASHBENCH" --iops --time=0.1 "$LOOP"
'

test_loop_ext4 'mounted: -t and --class-check --read-only still run' '
	"$FLASHBENCH" -t --time=0.1 "$LOOP" >out &&
	grep "^read 1048576-byte blocks " out &&
	"$FLASHBENCH" --class-check --read-only --time=0.1 "$LOOP" >out &&
	grep "^A1 " out
'

test_loop_ext4 'unmounted: fsck -n finds the file system clean, data intact' '
	umount "$MNT" &&
	fsck.ext4 -n -f "$LOOP" &&
	mount -o ro "$LOOP" "$MNT" &&
	cmp "$TRASH/payload" "$MNT/payload" &&
	umount "$MNT"
'

test_done
