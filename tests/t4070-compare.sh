#!/bin/sh
# t4070: --compare RUN.json...: saved runs of several cards in one table,
# a row per card, the best of each column marked, in text, CSV and JSON;
# runs of one card combine into its row; --plot draws grouped bars; a
# file that is no saved run is refused with one line.
. "$(dirname "$0")/lib.sh"

require python3

# five presets, a run of a different test each
save_runs() {
	"$FLASHBENCH" -t --time=1 --format=json sim:sandisk-su08g >t.json &&
	"$FLASHBENCH" --iops --time=1 --format=json sim:toshiba-7au \
		>iops.json 2>/dev/null &&
	"$FLASHBENCH" --class-check --time=1 --format=json sim:sandisk-20au \
		>class.json 2>/dev/null &&
	"$FLASHBENCH" --detect --format=json sim:readme-example >detect.json &&
	"$FLASHBENCH" --iops --iodepth=32 --time=1 --format=json \
		sim:wirenboard-ncard,queue=32 >qd32.json 2>/dev/null
}

# check.py DOC.json: the compare document's cards, each ranked column's
# best the largest value (or within 2% of it), nulls where unmeasured
cat >"$TRASH/check.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
cards = [r for r in doc["results"] if r["kind"] == "compared_card"]
assert doc["test"] == "compare", doc["test"]
assert len(cards) == want, "%d cards, want %d" % (len(cards), want)
ranked = ["read_bytes_per_s", "write_bytes_per_s", "burst_bytes_per_s",
          "sustained_bytes_per_s", "read_iops_qd1", "write_iops_qd1",
          "read_iops_qd32", "write_iops_qd32", "open_erase_blocks"]
marked = 0
for key in ranked:
    known = [c[key] for c in cards if c[key] is not None]
    for c in cards:
        assert isinstance(c["best"][key], bool)
        best = len(known) >= 2 and c[key] is not None and \
            c[key] >= max(known) * 0.98
        assert c["best"][key] == best, (c["name"], key, c[key], known)
        marked += best
assert marked > 0, "nothing marked best"
for c in cards:
    assert c["matched_by"] == "path and size", c["matched_by"]
print(marked)
PY

test_expect_success 'five runs of five presets: one table, a row each' '
	save_runs &&
	"$FLASHBENCH" --compare t.json iops.json class.json detect.json \
		qd32.json >out &&
	cat out &&
	head -n 1 out | grep -q "^Compared 5 runs of 5 cards:$" &&
	for card in sandisk-su08g toshiba-7au sandisk-20au readme-example \
		    wirenboard-ncard; do
		test "$(grep -c "^sim:$card" out)" = 1 || return 1
	done &&
	grep -q "^card  *seq read  *seq write  *burst  *cache  *sustained  *QD1 read" out &&
	grep "^sim:" out | grep -q "\*" &&
	! grep -q " $" out
'

test_expect_success 'the best of each column is marked, in JSON as in text' '
	"$FLASHBENCH" --compare --format=json t.json iops.json class.json \
		detect.json qd32.json >c.json &&
	python3 check.py c.json 5 >marked &&
	test "$(grep "^sim:" out | tr -cd "*" | wc -c)" = "$(cat marked)"
'

test_expect_success 'a figure no run measured is empty: null in JSON' '
	python3 -c "
import json
cards = {c[\"name\"]: c for c in json.load(open(\"c.json\"))[\"results\"]
         if c[\"kind\"] == \"compared_card\"}
su = cards[\"sim:sandisk-su08g\"]
assert su[\"read_bytes_per_s\"] > 0 and su[\"read_iops_qd1\"] is None
assert cards[\"sim:readme-example\"][\"erase_block_bytes\"] == 4194304
assert cards[\"sim:sandisk-20au\"][\"classes\"].startswith(\"C10\")
assert cards[\"sim:toshiba-7au\"][\"classes\"] is None
"
'

test_expect_success 'CSV: one table, a card row each, every row as wide' '
	"$FLASHBENCH" --compare --format=csv t.json iops.json class.json \
		detect.json qd32.json >c.csv &&
	python3 -c "
import csv
rows = list(csv.reader(open(\"c.csv\")))
head, body = rows[0], rows[1:]
assert all(len(r) == len(head) for r in body)
cards = [r for r in body if r[1] == \"compared_card\"]
assert len(cards) == 5
col = head.index(\"read_iops_qd1\")
best = head.index(\"best.read_iops_qd1\")
known = [float(r[col]) for r in cards if r[col]]
for r in cards:
    assert (r[best] == \"true\") == (bool(r[col]) and
                                      float(r[col]) >= max(known) * 0.98)
"
'

test_expect_success 'two runs of different tests of one card make one row' '
	"$FLASHBENCH" --iops --time=1 --format=json sim:sandisk-su08g \
		>su-iops.json 2>/dev/null &&
	"$FLASHBENCH" --compare --format=json t.json su-iops.json iops.json \
		>two.json &&
	python3 -c "
import json
cards = [c for c in json.load(open(\"two.json\"))[\"results\"]
         if c[\"kind\"] == \"compared_card\"]
assert len(cards) == 2, len(cards)
su = [c for c in cards if c[\"name\"] == \"sim:sandisk-su08g\"][0]
assert su[\"runs\"] == 2 and su[\"files\"] == \"t.json su-iops.json\"
assert su[\"read_bytes_per_s\"] > 0 and su[\"read_iops_qd1\"] > 0
"
'

test_expect_success 'the same spec with another size is another card' '
	"$FLASHBENCH" -t --time=1 --format=json sim:sandisk-su08g,size=4G \
		>small.json &&
	"$FLASHBENCH" --compare t.json small.json >out &&
	test "$(grep -c "^sim:sandisk-su08g" out)" = 2 &&
	grep -q "^2 of 2 cards matched by path and size" out
'

test_expect_success 'runs that save an identity group by it, not by path' '
	for f in t iops; do
		sed -e "s/\"schema\": 2/\"schema\": 3/" \
		    -e "s/\"device\": {/\"device\": {\"identity\": \"cid:1b534d\", \"name\": \"Samsung EVO\", /" \
			$f.json >id-$f.json || return 1
	done &&
	"$FLASHBENCH" --compare --format=json id-t.json id-iops.json >id.json &&
	python3 -c "
import json
cards = [c for c in json.load(open(\"id.json\"))[\"results\"]
         if c[\"kind\"] == \"compared_card\"]
assert len(cards) == 1, cards
c = cards[0]
assert c[\"matched_by\"] == \"identity\" and c[\"name\"] == \"Samsung EVO\"
assert c[\"read_bytes_per_s\"] > 0 and c[\"read_iops_qd1\"] > 0
"
'

test_expect_success '-a and -O runs give the erase block and open count' '
	"$FLASHBENCH" -a --format=json sim:sandisk-su08g >a.json &&
	for n in 1 2 4 6 8; do
		"$FLASHBENCH" -O -0 $n --format=json sim:sandisk-su08g \
			>o$n.json 2>/dev/null || return 1
	done &&
	"$FLASHBENCH" --compare --format=json a.json o1.json o2.json \
		o4.json o6.json o8.json >ao.json &&
	python3 -c "
import json
c = [c for c in json.load(open(\"ao.json\"))[\"results\"]
     if c[\"kind\"] == \"compared_card\"][0]
assert c[\"runs\"] == 6
assert c[\"erase_block_bytes\"] == 4194304, c[\"erase_block_bytes\"]
assert c[\"open_erase_blocks\"] >= 2, c[\"open_erase_blocks\"]
"
'

test_expect_success 'schema 3 names (align_bytes, pre_ns, size_bytes) read alike' '
	sed -e "s/\"schema\": 2/\"schema\": 3/" \
	    -e "s/\"align\":/\"align_bytes\":/" -e "s/\"pre\":/\"pre_ns\":/" \
	    -e "s/\"on\":/\"on_ns\":/" -e "s/\"post\":/\"post_ns\":/" \
	    -e "s/\"diff\":/\"diff_ns\":/" -e "s/\"size\":/\"size_bytes\":/" \
		a.json >a3.json &&
	! grep -q "\"pre\":" a3.json &&
	"$FLASHBENCH" --compare --format=json a3.json >a3-out.json &&
	python3 -c "
import json
c = [c for c in json.load(open(\"a3-out.json\"))[\"results\"]
     if c[\"kind\"] == \"compared_card\"][0]
assert c[\"erase_block_bytes\"] == 4194304, c
assert c[\"size_bytes\"] == 7948206080, c
"
'

# schema2 NEW OLD: the schema-3 document NEW as schema 2 wrote it: keys
# without units, by record kind (NEWS lists them), the device as {path,
# size, logical_block_size}, "units" under the old keys.
schema2() {
	python3 - "$1" "$2" <<-\PY
	import json, sys
	times = {"align_bytes": "align", "pre_ns": "pre", "on_ns": "on",
	         "post_ns": "post", "diff_ns": "diff"}
	old = {"align": times, "measurement": times,
	       "device": {"size_bytes": "size",
	                  "logical_block_bytes": "logical_block_size"},
	       "level": {"size_bytes": "size"}}
	d = json.load(open(sys.argv[1]))
	d["schema"] = 2
	dev = d["device"]
	d["device"] = {"path": dev["path"], "size": dev["size_bytes"],
	               "logical_block_size": dev["logical_block_bytes"]}
	d["results"] = [{old.get(r.get("kind"), {}).get(k, k): v
	                 for k, v in r.items()} for r in d["results"]]
	every = {k: v for o in old.values() for k, v in o.items()}
	d["units"] = {every.get(k, k): v for k, v in d["units"].items()}
	open(sys.argv[2], "w").write(json.dumps(d))
	PY
}

test_expect_success '--compare and --plot read a schema-2 run as its schema-3 original' '
	mkdir -p new old &&
	"$FLASHBENCH" --detect --format=json sim:sandisk-su08g >new/d.json &&
	"$FLASHBENCH" -a --format=json sim:sandisk-su08g >new/a.json &&
	schema2 new/d.json old/d.json && schema2 new/a.json old/a.json &&
	grep -q "\"size\": 7948206080" old/d.json &&
	! grep -q "size_bytes" old/d.json &&
	for v in new old; do
		"$FLASHBENCH" --compare --format=json $v/d.json $v/a.json \
			>$v/c.json &&
		"$FLASHBENCH" --plot=$v/d.svg $v/d.json || return 1
	done &&
	python3 -c "
import json
def cards(path):
    return [{k: v for k, v in r.items() if k != \"files\"}
            for r in json.load(open(path))[\"results\"]
            if r[\"kind\"] == \"compared_card\"]
new, old = cards(\"new/c.json\"), cards(\"old/c.json\")
assert new == old, (new, old)
assert new[0][\"size_bytes\"] == 7948206080, new
assert new[0][\"erase_block_bytes\"] == 4194304, new
" &&
	test_cmp new/d.svg old/d.svg
'

test_expect_success '--plot draws the table as well-formed grouped bars' '
	"$FLASHBENCH" --compare --plot=bars.svg t.json iops.json class.json \
		detect.json qd32.json >out &&
	python3 -c "
import xml.etree.ElementTree as ET, json
ns = \"{http://www.w3.org/2000/svg}\"
svg = ET.parse(\"bars.svg\").getroot()
cards = [c for c in json.load(open(\"c.json\"))[\"results\"]
         if c[\"kind\"] == \"compared_card\"]
keys = [\"read_bytes_per_s\", \"write_bytes_per_s\", \"read_iops_qd1\",
        \"write_iops_qd1\", \"read_iops_qd32\", \"write_iops_qd32\",
        \"open_erase_blocks\"]
values = sum(1 for c in cards for k in keys if c[k] is not None)
bars = [r for r in svg.iter(ns + \"rect\") if r.get(\"height\") not in
        (\"500\", \"10\", \"370\")]
assert len(bars) == values, (len(bars), values)
texts = [t.text for t in svg.iter(ns + \"text\")]
assert \"sim:sandisk-su08g\" in texts and \"seq read\" in texts
" &&
	grep -q "^Compared 5 runs" out
'

test_expect_success 'a file that is not JSON is bad input, one line' '
	echo "not json" >bad.json &&
	test_usage_error flashbench "^--compare: bad.json: line 1" \
		--compare t.json bad.json
'

test_expect_success 'a JSON file that is no flashbench run is bad input' '
	echo "{\"schema\": 2, \"rows\": []}" >other.json &&
	test_usage_error flashbench "other.json: not a flashbench JSON" \
		--compare other.json &&
	echo "[1, 2]" >array.json &&
	test_usage_error flashbench "array.json: not a flashbench JSON" \
		--compare array.json
'

test_expect_success 'a missing file or a directory is bad input' '
	test_usage_error flashbench "missing.json: No such file" \
		--compare t.json missing.json &&
	mkdir dir &&
	test_usage_error flashbench "dir: is a directory" --compare dir
'

test_expect_success '--compare needs a file, and takes no device options' '
	test_usage_error flashbench "--compare: no saved json run" --compare &&
	test_usage_error flashbench "--blocksize does not apply to --compare" \
		--compare -b 4K t.json
'

test_expect_success 'two saved reports: a row each; a report and a run of its card: one row' '
	"$FLASHBENCH" --report --time=0.3 --format=json -o r1.json \
		sim:sandisk-su08g 2>/dev/null &&
	"$FLASHBENCH" --report --time=0.3 --format=json -o r2.json \
		sim:toshiba-7au 2>/dev/null &&
	"$FLASHBENCH" --compare --format=json r1.json r2.json >rc.json &&
	python3 -c "
import json
cards = [c for c in json.load(open(\"rc.json\"))[\"results\"]
         if c[\"kind\"] == \"compared_card\"]
assert [c[\"name\"] for c in cards] == [\"sim:sandisk-su08g\",
                                       \"sim:toshiba-7au\"], cards
for c in cards:
    assert c[\"read_bytes_per_s\"] and c[\"read_iops_qd1\"], c
    assert c[\"read_iops_qd32\"] and c[\"erase_block_bytes\"], c
assert sum(c[\"best\"][\"read_iops_qd1\"] for c in cards) == 1, cards
" &&
	"$FLASHBENCH" --compare r1.json t.json >rc.txt &&
	grep -q "^Compared 7 runs of 1 card:" rc.txt
'

test_expect_success 'the same file given twice is one run, and a note says so' '
	"$FLASHBENCH" --compare t.json ./t.json iops.json >out &&
	cat out &&
	head -n 1 out | grep -q "^Compared 2 runs of 2 cards:$" &&
	grep -q "^\./t\.json: the same file as t\.json: read once$" out &&
	"$FLASHBENCH" --compare --format=json t.json t.json >once.json &&
	python3 -c "
import json
cards = [c for c in json.load(open(\"once.json\"))[\"results\"]
         if c[\"kind\"] == \"compared_card\"]
assert len(cards) == 1 and cards[0][\"runs\"] == 1, cards
assert cards[0][\"files\"] == \"t.json\", cards
"
'

test_expect_success 'documents that measured no card are refused, by name' '
	"$FLASHBENCH" --decode-cid=035344535530384780716a01f200bb00 \
		--format=json >cid.json &&
	test_usage_error flashbench \
		"^--compare: cid.json: holds no card measurement: its test, \"decode-cid\"" \
		--compare t.json cid.json &&
	"$FLASHBENCH" --list-programs --format=json >programs.json &&
	test_usage_error flashbench \
		"^--compare: programs.json: holds no card measurement" \
		--compare programs.json t.json &&
	printf "align 8192\tpre 1ms\ton 1ms\tpost 1ms\tdiff 1us\n" >few.txt &&
	"$FLASHBENCH" --analyze --format=json few.txt >few.json &&
	test_usage_error flashbench \
		"^--compare: few.json: holds no card measurement" \
		--compare t.json few.json &&
	"$FLASHBENCH" --analyze --format=json \
		"$TESTS_DIR/analyze/su08g.txt" >su08g-analyze.json &&
	"$FLASHBENCH" --compare t.json su08g-analyze.json >out &&
	grep -q "^su08g-analyze.json  *4MiB  *6$" out
'

test_expect_success 'past 64 runs it refuses, naming the limit' '
	i=0 &&
	while [ $i -lt 65 ]; do
		cp t.json run$i.json && i=$((i + 1)) || return 1
	done &&
	"$FLASHBENCH" --compare $(ls run*.json | sed 64q) >out &&
	head -n 1 out | grep -q "^Compared 64 runs of 1 card:$" &&
	test_usage_error flashbench \
		"^--compare: run[0-9]+.json: past the limit of 64 runs --compare reads" \
		--compare run*.json
'

test_expect_success 'the legend is a paragraph of its own: a blank line after it' '
	"$FLASHBENCH" --compare t.json iops.json >out &&
	awk "/^\* best of its column/ { legend = NR }
	     legend && NR == legend + 1 { exit \$0 != \"\" }
	     END { exit !legend }" out &&
	grep -q "^2 of 2 cards matched by path and size" out &&
	"$FLASHBENCH" --compare t.json >out &&
	grep -q "^1 of 1 card matched by path and size" out
'

test_expect_success 'a file that fails as it is read is a runtime error' '
	test_expect_code 1 "$FLASHBENCH" --compare /proc/self/mem >out 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^flashbench: /proc/self/mem: read error" err &&
	test ! -s out
'

test_done
