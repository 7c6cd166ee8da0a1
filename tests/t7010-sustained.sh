#!/bin/sh
# t7010: sustained writes.  On simulated cards with an SLC write cache
# (slc=SIZE:RATE), --write-speed finds where the rate falls - the cache
# size, in bytes written - with the burst rate before it and the
# sustained rate after it, and stops once that rate has settled; a card
# without a cache says none was seen and costs what it did.
# --class-check judges the classes on the sustained rate and says why a
# fast cache does not pass V30, and adds the Raspberry Pi's card test by
# its method; --compare and --plot show the new figures.
. "$(dirname "$0")/lib.sh"

require python3

# a burst of 60 MB/s for 512 MiB, then sandisk-su08g's 10.75 MB/s
CACHE=sim:sandisk-su08g,slc=512M:60M
# a larger card: 90 MB/s for 1 GiB, then 20 MB/s
BIG=sim:size=32G,write-rate=20M,slc=1G:90M

# sustained.py DOC CACHE BURST SUSTAINED: the document's sustained record
# found CACHE bytes and the two rates (bytes/s), each within 10%
cat >"$TRASH/sustained.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want = [float(v) for v in sys.argv[2:5]]
s = [r for r in doc["results"] if r["kind"] == "sustained"][0]
print(s)
assert s["status"] == "found" and s["reason"] is None, s
got = [s["cache_bytes"], s["burst_bytes_per_s"], s["sustained_bytes_per_s"]]
for g, w in zip(got, want):
    assert abs(g - w) <= 0.1 * w, (g, w)
PY

test_expect_success 'write-speed finds the cache size, burst and sustained rate within 10% of the spec' '
	"$FLASHBENCH" --write-speed --time=60 --span=4G --format=json \
		"$CACHE" >cache.json 2>err &&
	python3 "$TRASH/sustained.py" cache.json 536870912 60e6 10.75e6 &&
	"$FLASHBENCH" --write-speed --time=120 --span=4G --format=json \
		"$BIG" >big.json 2>err &&
	python3 "$TRASH/sustained.py" big.json 1073741824 90e6 20e6 &&
	"$FLASHBENCH" --write-speed --time=120 --span=8G --format=json \
		sim:v30-256g >v30.json 2>err &&
	python3 "$TRASH/sustained.py" v30.json 4294967296 85e6 22e6
'

test_expect_success 'write-speed in text: the burst, how long it lasted, the rate after it' '
	"$FLASHBENCH" --write-speed --time=60 --span=4G "$CACHE" >out 2>err &&
	cat out &&
	test "$(wc -l <out)" = 2 &&
	grep "^write 4194304-byte blocks for " out &&
	grep -E "^burst 5[0-9.]+ MB/s for the first 512MiB, then 1[01][0-9.]* MB/s sustained\$" out
'

test_expect_success 'it says the most it may write, and stops once the rate has settled' '
	"$FLASHBENCH" --write-speed --time=60 --span=4G --stats "$CACHE" \
		>out 2>err &&
	cat err &&
	grep "^flashbench: --write-speed overwrites bytes 16777216 to 4311744511 (16MiB to 4112MiB) of $CACHE, at most 4294967296 bytes (4GiB) of them, each once, in at most 60s of device time\$" err &&
	"$FLASHBENCH" --write-speed --time=60 --span=4G --format=json "$CACHE" \
		>doc.json 2>/dev/null &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	# the cache, then two windows of 8 chunks and the one the fall
	# straddles: far from the 4 GiB it was allowed
	assert 512 << 20 < d["bytes_written"] <= (512 + 4 * 20) << 20, \
	    d["bytes_written"]
	assert d["device_time_ns"] < 20e9, d["device_time_ns"]
	PY
'

test_expect_success 'a card without slc=: no cache seen, and no more written or timed than before' '
	"$FLASHBENCH" --write-speed sim:sandisk-su08g >out 2>err &&
	cat out &&
	grep -x "no cache seen in the first 32MiB: the rate did not fall before --time ended (a longer --time and --span write further)" out &&
	"$FLASHBENCH" --write-speed --format=json sim:sandisk-su08g \
		>doc.json 2>/dev/null &&
	python3 - <<-\PY
	import json, math
	d = json.load(open("doc.json"))
	s = [r for r in d["results"] if r["kind"] == "sustained"][0]
	assert s["status"] == "no cache seen", s
	assert s["burst_bytes_per_s"] is None and s["cache_bytes"] is None \
	    and s["sustained_bytes_per_s"] is None, s
	# before: 4 MiB writes at the preset write-rate of 10.75 MB/s for
	# --time (3 s), the last one past it: 8 writes
	write_ns = 4194304 / 10.75e6 * 1e9
	writes = math.ceil(3e9 / write_ns)
	assert writes == 8
	assert d["bytes_written"] <= writes * 4194304, d["bytes_written"]
	assert d["device_time_ns"] <= 3e9 + write_ns * 1.02, d["device_time_ns"]
	PY
'

test_expect_success 'the span spent before the fall: no cache seen in the first 256MiB' '
	"$FLASHBENCH" --write-speed --time=60 --span=256M "$CACHE" >out \
		2>/dev/null &&
	grep -x "no cache seen in the first 256MiB: the rate did not fall before the range (--span) was written" out
'

test_expect_success 'a fall the run ended too soon after: cache and burst, the sustained rate not determined' '
	"$FLASHBENCH" --write-speed --time=11 --span=2G --format=json "$CACHE" \
		>doc.json 2>/dev/null &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	s = [r for r in d["results"] if r["kind"] == "sustained"][0]
	assert s["status"] == "not settled", s
	assert abs(s["cache_bytes"] - (512 << 20)) <= 0.1 * (512 << 20), s
	assert s["sustained_bytes_per_s"] is None, s
	assert s["reason"].startswith("sustained rate not determined: the "
	                              "run ended "), s
	PY
'

test_expect_success 'at a depth, a chunk is a batch: the cache still found' '
	"$FLASHBENCH" --write-speed --time=60 --span=4G --iodepth=4 \
		--format=json "$CACHE,queue=4" >doc.json 2>/dev/null &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	s = [r for r in d["results"] if r["kind"] == "sustained"][0]
	assert s["status"] == "found", s
	assert abs(s["cache_bytes"] - (512 << 20)) <= 0.1 * (512 << 20), s
	PY
'

test_expect_success 'class-check fails V30 on a fast cache and a slow native rate, and says why' '
	"$FLASHBENCH" --class-check --time=20 --span=2G "$CACHE" >out \
		2>/dev/null &&
	grep -E "^V30 +required 30 MB/s; measured burst 5[0-9.]+ MB/s for the first 512MiB, then 1[01][0-9.]* MB/s: FAIL\$" out &&
	grep -E "^V10 +required 10 MB/s; measured burst 5[0-9.]+ MB/s for the first 512MiB, then 1[01][0-9.]* MB/s: pass\$" out &&
	grep -E "^burst 5[0-9.]+ MB/s for the first 512MiB, then 1[01][0-9.]* MB/s sustained\$" out &&
	"$FLASHBENCH" --class-check --time=20 --span=2G --format=json \
		"$CACHE" >doc.json 2>/dev/null &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	v30 = d["classes"]["V30"]
	assert v30["pass"] is False, v30
	m = v30["measured"]
	assert abs(m["burst_bytes_per_s"] - 60e6) <= 6e6, m
	assert abs(m["cache_bytes"] - (512 << 20)) <= 0.1 * (512 << 20), m
	assert abs(m["write_bytes_per_s"] - 10.75e6) <= 1.075e6, m
	assert v30["sustained_known"] is True, v30
	v10 = d["classes"]["V10"]
	assert v10["result"] == "pass" and v10["pass"] is True, v10
	PY
'

test_expect_success 'class-check by default on a card whose cache outlasts the run: no plain pass, how far it measured, how to look further' '
	"$FLASHBENCH" --class-check sim:v30-256g >out 2>/dev/null &&
	cat out &&
	! grep -E "^[CUVA][0-9QD-]+ .*: pass\$" out &&
	grep -E "^V30 +required 30 MB/s; measured 84.5 MB/s over the first 244MiB, no fall seen: pass as far as measured\$" out &&
	grep -E "^A2 +required 10 MB/s, r 4000 IOPS, w 2000 IOPS; measured 84.5 MB/s over the first 244MiB, no fall seen, r [0-9]+ IOPS, w [0-9]+ IOPS at QD32: pass as far as measured\$" out &&
	grep -E "^V90 +required 90 MB/s; measured 84.5 MB/s: FAIL\$" out &&
	grep -x "as far as measured: no fall in the first 244MiB written, so a write cache larger than that would hide a slower sustained rate; --span=8G --time=120 looks for one of up to 8GiB" out &&
	grep -E "; why: sustained write not determined \(84.5 MB/s over the first 244MiB, no fall seen\), host link" out &&
	"$FLASHBENCH" --class-check --format=json sim:v30-256g >doc.json \
		2>/dev/null &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	v30 = d["classes"]["V30"]
	# a script cannot take it for a sustained pass
	assert v30["result"] == "pass as far as measured", v30
	assert v30["pass"] is None and v30["sustained_known"] is False, v30
	assert v30["measured"]["written_bytes"] == 255852544, v30
	assert d["classes"]["V90"]["pass"] is False, d["classes"]["V90"]
	c = [r for r in d["results"] if r["kind"] == "caveat"]
	assert len(c) == 1 and c[0]["written_bytes"] == 255852544, c
	assert "--span=8G --time=120" in c[0]["caveat"], c
	p = [r for r in d["results"] if r["kind"] == "pi_test"][0]
	assert p["sustained_bytes_per_s"] is None, p
	PY
'

test_expect_success 'class-check past the cache: plain passes and fails on the sustained rate, no caveat' '
	"$FLASHBENCH" --class-check --time=120 --span=8G --format=json \
		sim:v30-256g >doc.json 2>/dev/null &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	c = d["classes"]
	assert c["V10"]["result"] == "pass" and c["V10"]["pass"] is True, c
	assert c["V30"]["result"] == "FAIL" and c["V30"]["pass"] is False, c
	assert all(v["sustained_known"] is True for v in c.values()), c
	assert not [r for r in d["results"] if r["kind"] == "caveat"]
	p = [r for r in d["results"] if r["kind"] == "pi_test"][0]
	assert abs(p["sustained_bytes_per_s"] - 22e6) <= 2.2e6, p
	PY
'

test_expect_success 'report: the summary says the write rate and the classes hold only as far as measured' '
	"$FLASHBENCH" --report --write --time=3 --budget=1 sim:v30-256g \
		>out 2>/dev/null &&
	sed -n "/^How fast:/,/^\$/p" out &&
	grep -x "  write  *84.5 MB/s over the first 244MiB, no fall seen: a larger write cache would hide a slower sustained rate" out &&
	grep -x "  classes  *passes as far as measured C2 C4 C6 C10 U1 U3 V6 V10 V30 V60 A1 A1-QD32 A2 (no fall in the first 244MiB written: a larger write cache would hide a slower sustained rate); fails V90" out
'

test_expect_success 'a fall not settled: the classes its burst meets are not measured, those above it fail' '
	"$FLASHBENCH" --class-check --time=11 --span=2G "$CACHE" >out \
		2>/dev/null &&
	grep -E "^V30 .* measured burst 5[0-9.]+ MB/s for the first 512MiB, then not settled: not measured\$" out &&
	grep -E "^V60 .* then not settled: FAIL\$" out
'

# pi.py DOC: the pi_test record's three figures, and its verdict by the
# Raspberry Pi's thresholds (fio's KB: 1024 bytes)
cat >"$TRASH/pi.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
p = [r for r in doc["results"] if r["kind"] == "pi_test"][0]
print(p)
figures = (p["write_bytes_per_s"], p["write_iops"], p["read_iops"])
assert None not in figures, p
ok = p["write_bytes_per_s"] >= 10000 * 1024 and p["write_iops"] >= 500 \
    and p["read_iops"] >= 1500
assert p["result"] == ("pass" if ok else "FAIL") and p["pass"] is ok, p
assert p["required"] == {"write_bytes_per_s": 10240000, "write_iops": 500,
                         "read_iops": 1500}, p["required"]
assert p["file_bytes"] == 256 << 20 and p["queues"] == "simulated", p
print(sys.argv[2] if len(sys.argv) > 2 else "", p["result"])
assert len(sys.argv) < 3 or p["result"] == sys.argv[2]
PY

test_expect_success 'class-check: the Pi test line, its three figures, its verdict and why' '
	"$FLASHBENCH" --class-check --time=20 --span=2G "$CACHE" >out \
		2>/dev/null &&
	grep -E "^Raspberry Pi SD Card Speed Test \(256MiB file, random I/O 10s each, QD32\): sequential write [0-9]+ KiB/s, random write [0-9]+ IOPS, random read [0-9]+ IOPS: FAIL \(needs 10000 KiB/s, 500 and 1500 IOPS\); why: sustained write 1[01][0-9.]* MB/s, host link ceiling not known, host queue: simulated\$" out &&
	"$FLASHBENCH" --class-check --time=20 --span=2G --format=json \
		"$CACHE" >doc.json 2>/dev/null &&
	python3 "$TRASH/pi.py" doc.json FAIL
'

test_expect_success 'class-check: the Pi test passes a card that meets its three thresholds' '
	"$FLASHBENCH" --class-check --time=1 --format=json \
		sim:wirenboard-ncard,queue=32 >doc.json 2>/dev/null &&
	python3 "$TRASH/pi.py" doc.json pass
'

# job.py SPEC: agnostics' job run alone on a fresh card by a program of
# its own - the 256 MiB laid out with 512 KiB writes, 4 MiB writes over
# it (measured), 4 MiB reads, then 300 random 4 KiB writes at offsets
# drawn by Python's generator, as unrelated as fio's - and the Pi test
# of a whole --class-check on the same card, its figures within 2% (the
# sequential write) and 8% (the random writes: 300 of them) of the job's
cat >"$TRASH/job.py" <<'PY'
import json, random, subprocess, sys
fb, spec = sys.argv[1], sys.argv[2]
at, size = 16 << 20, 256 << 20
def loop(block, io):
    return ("for pos in linear %d %d %d within 1000000000000 once depth 32 "
            "(total, runs) {\n\t%s pos %d%s\n}\n"
            % (at, block, size // block, io, block,
               " random" if io == "write" else ""))
prog = ["format spaces\n", loop(512 << 10, "write"),
        "let t, n = " + loop(4 << 20, "write"),
        "report time seq_ns t\nreport bytes seq_bytes n * 4194304\nnewline\n",
        loop(4 << 20, "read")]
for o in random.Random(1).sample(range(size // 4096), 300):
    prog.append("let w = repeat 1 total { write %d 4096 random }\n"
                "report time w w\nnewline\n" % (at + o * 4096))
open("job.prog", "w").write("".join(prog))
run = lambda *a: json.loads(subprocess.run([fb, *a, "--format=json", spec],
    capture_output=True, check=True).stdout)
rows = run("--program=job.prog")["results"]
seq = [r for r in rows if "seq_ns" in r][0]
seq = seq["seq_bytes"] * 1e9 / seq["seq_ns"]
iops = 300 * 1e9 / sum(r["w"] for r in rows if "w" in r)
pi = [r for r in run("--class-check")["results"] if r["kind"] == "pi_test"][0]
print(spec, "job:", seq, iops, "ours:", pi["write_bytes_per_s"],
      pi["write_iops"])
assert abs(pi["write_bytes_per_s"] / seq - 1) <= 0.02, (pi, seq)
assert abs(pi["write_iops"] / iops - 1) <= 0.08, (pi, iops)
PY

test_expect_success 'class-check: the Pi test gives what agnostics'"'"' job gives on a fresh card, its phases in its order, its offsets as unrelated as fio'"'"'s' '
	python3 "$TRASH/job.py" "$FLASHBENCH" sim:sandisk-su08g &&
	python3 "$TRASH/job.py" "$FLASHBENCH" sim:a1-32g
'

test_expect_success 'class-check --read-only: the Pi test reads, and gives no verdict' '
	"$FLASHBENCH" --class-check --read-only --time=1 sim:sandisk-su08g \
		>out 2>/dev/null &&
	grep -E "^Raspberry Pi SD Card Speed Test \(256MiB file, random I/O 1s each, QD32\): random read [0-9]+ IOPS: not measured " out
'

test_expect_success 'compare: burst, cache and sustained rate as columns' '
	"$FLASHBENCH" --write-speed --time=60 --span=4G --format=json \
		"$CACHE" >cache.json 2>/dev/null &&
	"$FLASHBENCH" --write-speed --format=json sim:sandisk-su08g \
		>plain.json 2>/dev/null &&
	"$FLASHBENCH" --compare cache.json plain.json >out &&
	cat out &&
	grep -q "^card  *seq read  *seq write  *burst  *cache  *sustained " out &&
	grep -E "^sim:sandisk-su08g,slc=512M:60M .* 5[0-9.]+M/s *\*? +512MiB +1[01][0-9.]*M/s" out &&
	"$FLASHBENCH" --compare --format=json cache.json plain.json >c.json &&
	python3 - <<-\PY
	import json
	d = json.load(open("c.json"))
	rows = {r["name"]: r for r in d["results"] if r["kind"] == "compared_card"}
	c = rows["sim:sandisk-su08g,slc=512M:60M"]
	assert c["cache_bytes"] == 512 << 20, c
	assert abs(c["burst_bytes_per_s"] - 60e6) <= 6e6, c
	assert abs(c["sustained_bytes_per_s"] - 10.75e6) <= 1.075e6, c
	p = rows["sim:sandisk-su08g"]
	assert p["cache_bytes"] is None and p["sustained_bytes_per_s"] is None
	PY
'

test_expect_success 'compare: classes passed only as far as measured say so' '
	"$FLASHBENCH" --class-check --format=json sim:v30-256g \
		>short.json 2>/dev/null &&
	"$FLASHBENCH" --compare --format=json short.json >c.json &&
	python3 -c "import json; d = json.load(open(\"c.json\"))
r = [r for r in d[\"results\"] if r[\"kind\"] == \"compared_card\"][0]
assert r[\"classes\"] == \"C10 U3 V60 A2 as far as measured\", r"
'

test_expect_success 'plot: --write-speed draws its rate against bytes written' '
	"$FLASHBENCH" --write-speed --time=60 --span=1G --plot=w.svg "$CACHE" \
		>out 2>/dev/null &&
	grep -q "<polyline" w.svg &&
	grep -q ">bytes written (MiB)<" w.svg &&
	grep -q ">write rate (MB/s)<" w.svg
'

test_done
