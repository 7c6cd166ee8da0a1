#!/bin/sh
# t3130: the endurance passes (--surface --write --passes=N,
# --until=first-error|PERCENT|read-only) on the simulated card that
# wears (wear=CYCLES[:SPREAD]: each erase block fails at the pass after
# its endurance, drawn within the spread).  The run stops at the pass
# the model says, its milestones come at the passes where the bad
# blocks first reach their share, its map names whole worn erase
# blocks, a card at the end of its life ends "read-only" or "stopped
# answering", and a healthy card runs its passes clean, exit 0.
. "$(dirname "$0")/lib.sh"

require python3

# 256 erase blocks of 4 MiB, endurance 16 to 24 cycles, 2 spares (1%)
WORN=sim:size=1G,fake=1G,wear=20:0.2,seed=1
ERASE=4194304

# passes.py FILE: the JSON document's pass records, checked whole: one
# per pass from 1, every figure there, the totals growing by the new.
cat >"$TRASH/passes.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["test"] == "surface-passes", doc["test"]
passes = [r for r in doc["results"] if r["kind"] == "surface-pass"]
summary = [r for r in doc["results"] if r["kind"] == "surface-passes"]
assert len(summary) == 1, summary
keys = ("write_min_bytes_per_s write_median_bytes_per_s "
        "write_max_bytes_per_s read_min_bytes_per_s "
        "read_median_bytes_per_s read_max_bytes_per_s bad_blocks "
        "new_bad_blocks total_bad_blocks total_bad_percent bytes_written "
        "bytes_read device_time_ns").split()
total = 0
for n, p in enumerate(passes, 1):
    assert p["pass"] == n, (n, p)
    if p["result"] not in ("clean", "errors"):
        continue
    for k in keys:
        assert isinstance(p[k], (int, float)), (n, k, p[k])
    total += p["new_bad_blocks"]
    assert p["total_bad_blocks"] == total, (n, p)
    assert p["result"] == ("errors" if p["bad_blocks"] else "clean"), p
print(summary[0]["passes"], summary[0]["end"], summary[0]["first_error_pass"])
PY

test_expect_success '--until=first-error stops at the pass the model predicts, within the spread' '
	test_expect_code 4 "$FLASHBENCH" --surface --write --until=first-error \
		--seed=3 --format=json "$WORN" >run.json 2>err &&
	python3 "$TRASH/passes.py" run.json >got &&
	cat got &&
	read -r passes end first <got &&
	test "$end" = until-reached &&
	test "$passes" = "$first" &&
	test "$first" -ge 17 && test "$first" -le 25 &&
	python3 -c "
import json
p = [r for r in json.load(open(\"run.json\"))[\"results\"]
     if r[\"kind\"] == \"surface-pass\"]
assert p[-1][\"total_bad_blocks\"] > 0 and p[-2][\"total_bad_blocks\"] == 0
"
'

test_expect_success 'the milestones come at the passes where the bad blocks first reach 0.1, 1 and 10%' '
	test_expect_code 4 "$FLASHBENCH" --surface --write --until=10% \
		--seed=3 --format=json "$WORN" >run.json 2>err &&
	python3 "$TRASH/passes.py" run.json &&
	python3 -c "
import json
doc = json.load(open(\"run.json\"))
p = [r for r in doc[\"results\"] if r[\"kind\"] == \"surface-pass\"]
s = [r for r in doc[\"results\"] if r[\"kind\"] == \"surface-passes\"][0]
blocks = s[\"blocks\"]
def first(share):
    return next(r[\"pass\"] for r in p
                if r[\"total_bad_blocks\"] and
                r[\"total_bad_blocks\"] >= share * blocks)
want = [first(0), first(0.001), first(0.01), first(0.1)]
got = [s[k] for k in (\"first_error_pass\", \"tenth_percent_pass\",
                      \"one_percent_pass\", \"ten_percent_pass\")]
print(want, got)
assert want == got
assert all(17 <= g <= 25 for g in got), got
assert s[\"end\"] == \"until-reached\" and s[\"end_pass\"] == got[3]
assert s[\"bad_blocks\"] >= 0.1 * blocks
"
'

test_expect_success 'the map names whole worn erase blocks, pass by pass, on the chart too' '
	test_expect_code 4 "$FLASHBENCH" --surface --write --until=10% \
		--seed=3 --format=json --plot=map.svg "$WORN" >run.json 2>err &&
	python3 -c "
import json, re
doc = json.load(open(\"run.json\"))
new = {r[\"pass\"]: r[\"new_bad_blocks\"] for r in doc[\"results\"]
       if r[\"kind\"] == \"surface-pass\"}
ranges = [r for r in doc[\"results\"] if r[\"kind\"] == \"surface-pass-bad\"]
assert ranges
listed = {}
for g in ranges:
    assert g[\"offset_bytes\"] % $ERASE == 0, g
    assert g[\"length_bytes\"] % $ERASE == 0, g
    assert g[\"result\"] in (\"old-data\", \"garbage\"), g
    listed[g[\"pass\"]] = listed.get(g[\"pass\"], 0) + g[\"blocks\"]
assert listed == {k: v for k, v in new.items() if v}, (listed, new)
svg = open(\"map.svg\").read()
for g in ranges:
    t = \"<title>pass %d: bad bytes at %d (+%d)</title>\" % (
        g[\"pass\"], g[\"offset_bytes\"], g[\"length_bytes\"])
    assert t in svg, t
print(len(ranges), \"ranges\")
"
'

test_expect_success 'a block that kept the pass before'"'"'s stamp reads as old data' '
	test_expect_code 4 "$FLASHBENCH" --surface --write --until=first-error \
		--seed=3 "$WORN" >out 2>err &&
	grep "^pass [0-9]*: new bad: bytes at [0-9]* (+4194304): 8192 blocks old-data$" out
'

test_expect_success 'wear-eol=read-only ends the run "read-only", exit 4' '
	test_expect_code 4 "$FLASHBENCH" --surface --write --until=read-only \
		--seed=3 sim:size=64M,fake=64M,wear=5,wear-eol=read-only,seed=1 \
		>out 2>err &&
	cat out &&
	tail -n 1 out | grep "^endurance: [0-9]* passes; ended: read-only at pass [0-9]* (the card refuses writes, its reads answer);" &&
	grep "^pass [0-9]*: read-only;" out &&
	test "$(grep -c "^pass [0-9]*: clean;" out)" -ge 4
'

test_expect_success 'wear-eol=dead ends the run "stopped answering", exit 4' '
	test_expect_code 4 "$FLASHBENCH" --surface --write --until=read-only \
		--seed=3 --format=json sim:size=64M,fake=64M,wear=5,wear-eol=dead,seed=1 \
		>run.json 2>err &&
	cat err &&
	grep "stopped answering" err &&
	python3 -c "
import json
r = json.load(open(\"run.json\"))[\"results\"]
s = [x for x in r if x[\"kind\"] == \"surface-passes\"][0]
p = [x for x in r if x[\"kind\"] == \"surface-pass\"]
assert s[\"end\"] == \"stopped-answering\", s
assert p[-1][\"result\"] == \"stopped-answering\", p[-1]
assert s[\"end_pass\"] == p[-1][\"pass\"] == s[\"passes\"] + 1, s
"
'

test_expect_success '--passes=3 on a healthy card: three clean passes, exit 0' '
	"$FLASHBENCH" --surface --write --passes=3 --seed=3 \
		sim:size=64M,fake=64M >out 2>err &&
	cat out &&
	test "$(grep -c "^pass [1-3]: clean; write min .*; read min .*; 0 bad blocks, 0 new, 0 in all (0.00%); device time " out)" = 3 &&
	test "$(wc -l <out)" = 4 &&
	tail -n 1 out | grep "^endurance: 3 passes; ended: the 3 passes asked for; first error: not reached, 0.1% bad: not reached, 1% bad: not reached, 10% bad: not reached; 0 bad blocks of 131072 (0.00%); written 201326592, device time .*; seed 3$" &&
	grep "writes 67108864 bytes (64MiB) a pass, .* 3 passes: 201326592 bytes (192MiB) in all" err
'

test_expect_success 'the figures of each pass are in the JSON, and a seeded run repeats them' '
	"$FLASHBENCH" --surface --write --passes=3 --seed=3 --format=json \
		sim:size=64M,fake=64M >a.json &&
	"$FLASHBENCH" --surface --write --passes=3 --seed=3 --format=json \
		sim:size=64M,fake=64M >b.json &&
	python3 "$TRASH/passes.py" a.json &&
	python3 -c "
import json
a, b = (json.load(open(f))[\"results\"] for f in (\"a.json\", \"b.json\"))
for r in a + b:
    r.pop(\"wall_ns\", None)
assert a == b
p = [r for r in a if r[\"kind\"] == \"surface-pass\"]
assert [r[\"bytes_written\"] for r in p] == [67108864] * 3, p
assert all(r[\"write_median_bytes_per_s\"] > 0 and
           r[\"read_median_bytes_per_s\"] > 0 for r in p), p
"
'

test_done
