#!/bin/sh
# t2960: --report on simulated cards: the summary's figures are those of
# each mode run alone on the same spec, the JSON parses and holds every
# part's document, CSV is one table, and a fake card exits 3.

. "$(dirname "$0")/lib.sh"

require python3

# same_as_alone SPEC [--write]: each summary figure equals the mode's own
report_matches() {
	"$FLASHBENCH" --report $2 --time=0.5 --budget=2 --format=json "$1" \
		>report.json 2>err
	echo $? >code
	"$FLASHBENCH" -t --time=0.5 --format=json "$1" >t.json 2>/dev/null &&
	"$FLASHBENCH" --iops --read-only --time=0.5 --format=json "$1" \
		>iops.json 2>/dev/null &&
	"$FLASHBENCH" --detect --budget=2 --format=json "$1" >detect.json \
		2>/dev/null &&
	python3 - report.json t.json iops.json detect.json <<'PY'
import json, sys
rep, t, iops, det = (json.load(open(f)) for f in sys.argv[1:])
s = rep["summary"]
assert rep["test"] == "report" and not rep["incomplete"], rep["incomplete"]
rate = [r for r in t["results"] if r["kind"] == "summary"][0]["bytes_per_s"]
assert s["speed"]["read"]["value"] == rate, (s["speed"]["read"], rate)
io = [r for r in iops["results"] if r["kind"] == "iops"][0]["iops"]
assert s["speed"]["read_iops_qd1"]["value"] == io, (s["speed"], io)
erase = [r for r in det["results"] if r.get("name") == "erase_size"][0]
if "detect" in [p["test"] for p in rep["parts"]] and erase["value"]:
    part = [p for p in rep["parts"] if p["test"] == "detect"][0]
    if part["parameters"]["write"] == 0:
        assert s["hides"]["erase_block"]["value"] == erase["value"]
for p in rep["parts"]:
    assert "test" in p and ("results" in p or "skipped" in p), p
PY
}

for preset in sandisk-su08g toshiba-7au plain; do
	test_expect_success "--report sim:$preset: summary as the modes alone" "
		report_matches sim:$preset &&
		test \$(cat code) = 0
	"
done

test_expect_success '--report --write on a fake card exits 3, says fake' '
	"$FLASHBENCH" --report --write --time=0.3 --budget=1 --format=json \
		sim:sandisk-su08g,fake=1G >fake.json 2>err
	test $? = 3 &&
	python3 -c "
import json; d = json.load(open(\"fake.json\"))
assert d[\"summary\"][\"verdicts\"][\"capacity\"][\"text\"].startswith(\"fake\")
"
'

test_expect_success '--report --format=csv is one table' '
	"$FLASHBENCH" --report --time=0.3 --budget=1 --format=csv \
		sim:plain >r.csv 2>err &&
	python3 -c "
import csv; rows = list(csv.reader(open(\"r.csv\")))
assert rows[0] == [\"schema\", \"kind\", \"part\", \"name\", \"value\", \"unit\", \"text\"]
assert all(len(r) == 7 for r in rows), [r for r in rows if len(r) != 7]
assert len(rows) > 20
"
'

test_expect_success '--report text: summary first, then each part' '
	"$FLASHBENCH" --report --time=0.3 --budget=1 sim:plain >r.txt 2>err &&
	head -1 r.txt | grep -q "^report: sim:plain" &&
	grep -q "^== read-speed: flashbench -t --time=0.3 sim:plain ==" r.txt &&
	grep -q "^  read  " r.txt
'

test_done
