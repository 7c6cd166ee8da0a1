#!/bin/sh
# --analyze on every align table of the public corpus (tests/real-outputs):
# the readings experts stated where they stated one, the staircase's shape
# where it is plain, and nowhere an erase block no card can have, or a
# confident answer an expert contradicts.
. "$(dirname "$0")/lib.sh"

REAL=$TESTS_DIR/real-outputs
DATA=$TESTS_DIR/analyze

# check_reading FILE JSON: the reading in JSON against FILE's header lines.
# An expert reading counts unless the header calls it tentative (a
# poster's guess put as a question is not an expert reading).
check_reading() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
path, out = sys.argv[1], sys.argv[2]
head = {}
for line in open(path, encoding="utf-8", errors="replace"):
    if line.startswith("---"):
        break
    if line.startswith("# ") and ":" in line:
        key, _, value = line[2:].partition(":")
        head[key.strip()] = value.strip()
r = json.load(open(out))
found = r["findings"]
erase, page = found["erase_size"]["value"], found["page_size"]["value"]
conf = {k: found[k]["confidence"] or 0 for k in ("erase_size", "page_size")}
tentative = "tentative" in head.get("concluded-by", "")
fail = []
if erase is not None and not (128 << 10 <= erase <= 64 << 20):
    fail.append("implausible erase block %d" % erase)
if erase is not None and page is not None and page >= erase:
    fail.append("page %d not below erase block %d" % (page, erase))
for key, value, c in (("expert-erase", erase, conf["erase_size"]),
                      ("expert-page", page, conf["page_size"])):
    stated = head.get(key, "unknown")
    if stated.isdigit() and not tentative and c >= 0.9 and \
            value != int(stated):
        fail.append("%s %s, analysis %s at confidence %.2f" %
                    (key, stated, value, c))
for level in [l for l in r["results"] if l["kind"] == "level"]:
    if level["cost_ns"] <= 0 or not level["name"]:
        fail.append("bad level %r" % level)
if fail:
    print(path + ": " + "; ".join(fail))
    sys.exit(1)
EOF
}

test_expect_success 'every align table: plausible, and right where confident' '
	n=0
	for f in "$REAL"/*align*.txt "$DATA/su08g.txt"; do
		"$FLASHBENCH" --analyze --format=json "$f" >out.json &&
		check_reading "$f" out.json || return 1
		n=$((n + 1))
	done
	echo "$n tables" && test $n -ge 15
'

test_expect_success 'README example (001): 4MiB erase blocks, 8KiB pages, 16KiB effective' '
	"$FLASHBENCH" --analyze "$REAL/001-readme-example-align.txt" >out &&
	grep "^Erase block size: *4MiB (confidence" out &&
	grep "^Page size: *8KiB (confidence" out &&
	grep "^Effective page size: *16KiB (confidence" out &&
	grep "^  from 4MiB .* erase block " out
'

test_expect_success 'SU08G seed: 4MiB, and the pasted sysfs agrees' '
	"$FLASHBENCH" --analyze "$DATA/su08g.txt" >out &&
	grep "^Erase block size: *4MiB (confidence" out &&
	grep "^Preferred erase size: *4MiB (agrees)" out &&
	"$FLASHBENCH" --analyze --format=json "$DATA/su08g.txt" >out.json &&
	grep "^    \"preferred_erase_size\": {\"value\": 4194304, " out.json
'

test_expect_success '021: the whole staircase - page, effective page, erase block, allocation group' '
	"$FLASHBENCH" --analyze --format=json \
		"$REAL/021-wirenboard-r14-mid82-NCard-hw1-align.txt" >out.json &&
	python3 -c "
import json, sys
r = json.load(open(\"out.json\"))
f = {k: v[\"value\"] for k, v in r[\"findings\"].items()}
got = [(l[\"size_bytes\"], l[\"name\"]) for l in r[\"results\"]
       if l[\"kind\"] == \"level\"]
want = [(8192, \"page\"), (16384, \"effective page\"),
        (4194304, \"erase block\"), (1073741824, \"allocation group\")]
print(got)
sys.exit(got != want or f[\"erase_size\"] != 4194304 or
         f[\"page_size\"] != 8192 or f[\"effective_page_size\"] != 16384)
"
'

test_expect_success 'the step at the erase block may be smaller than the page step (021, 025)' '
	for f in 021-wirenboard-r14-mid82-NCard-hw1 025-wirenboard-r16-mid41-SD8GB; do
		"$FLASHBENCH" --analyze "$REAL/$f-align.txt" >out &&
		grep "^Erase block size: *4MiB (confidence" out &&
		grep "^  from 1GiB .* allocation group " out || return 1
	done
'

test_expect_success '004: a table cut off at 2MiB does not show the erase block' '
	"$FLASHBENCH" --analyze "$REAL/004-bradfa-issue13-h3po-sdb-align.txt" \
		>out &&
	grep "^Erase block size: *not determined: not visible: the diff is flat from 2MiB" out &&
	grep "^  from 32GiB .* allocation group " out
'

test_expect_success '005 (NVMe, no staircase) and 006 (noise, unit-less diffs): cannot tell' '
	"$FLASHBENCH" --analyze "$REAL/005-bradfa-issue9-intel600p-nvme-align.txt" \
		>out &&
	grep "^Erase block size: *not determined" out &&
	"$FLASHBENCH" --analyze "$REAL/006-bradfa-issue16-mpeter50-sda-align-noisy.txt" \
		>out &&
	grep "^Read 15 align lines" out &&
	grep "^Erase block size: *not determined" out
'

test_expect_success 'two readings that fit are both reported, with their weights' '
	"$FLASHBENCH" --analyze "$REAL/013-wirenboard-r12-mid03-SU04G-align.txt" \
		>out &&
	grep "^Erase block size: *8MiB (confidence 0\.[0-8]" out &&
	grep "^  or: *4MiB (weight 0\.[0-9]* against 0\.[0-9]*" out &&
	"$FLASHBENCH" --analyze --format=json \
		"$REAL/013-wirenboard-r12-mid03-SU04G-align.txt" >out.json &&
	grep "^    \"erase_alternative\": {\"value\": 4194304, \"confidence\": 0\.[0-9]*}" out.json
'

test_expect_success 'repeated tables of one card are read together' '
	f=$REAL/021-wirenboard-r14-mid82-NCard-hw1-align.txt &&
	{ cat "$f"; echo "\$ flashbench -a /dev/mmcblk0"; sed "1,/^---/d" "$f"; } \
		>twice.txt &&
	"$FLASHBENCH" --analyze twice.txt >out &&
	grep "^Read 42 align lines in 2 tables" out &&
	grep "pools all 2" out &&
	grep "^Erase block size: *4MiB (confidence" out
'

test_expect_success 'a diff that lost its unit is recomputed from its reads (008)' '
	"$FLASHBENCH" --analyze --format=json \
		"$REAL/008-sandisk-ultra-16gb-SL16G-nuttx-blog-align.txt" >out.json &&
	python3 -c "
import json, sys
r = json.load(open(\"out.json\"))
stairs = [s for s in r[\"results\"] if s[\"kind\"] == \"staircase\"][0]
sys.exit(stairs[\"diff_noise_ns\"] > 1e6)
"
'

# findings JSON: each finding under its name as its record says, and
# schema 1's copies for its readers - each value at the top level,
# "confidence" (0 where not determined), "not_determined" (the reason) -
# agree with them.
findings() {
	python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
records = {x["name"]: x for x in r["results"] if x["kind"] == "finding"}
fail = []
for name, f in r["findings"].items():
    rec = dict(records[name])
    del rec["kind"], rec["name"]
    if rec != f:
        fail.append("%s: finding %r, record %r" % (name, f, rec))
    if r.get(name, "missing") != f["value"]:
        fail.append("%s: top %r, finding %r" % (name, r.get(name), f["value"]))
    if f["confidence"] is not None or f["value"] is None:
        if r["confidence"].get(name) != (f["confidence"] or 0):
            fail.append("%s: confidence %r" % (name, r["confidence"].get(name)))
    reason = f.get("reason") or f.get("why")
    if reason and r["not_determined"].get(name) != reason:
        fail.append("%s: not_determined %r" % (name, r["not_determined"].get(name)))
    if "lower_bound" in f and r[name + "_is_lower_bound"] != f["lower_bound"]:
        fail.append(name + "_is_lower_bound")
print(sys.argv[1], r["findings"]["erase_size"]["value"])
if fail:
    print("; ".join(fail))
    sys.exit(1)
EOF
}

test_expect_success 'findings under their names as their records say, schema 1 copies agree' '
	known=0
	for f in "$REAL"/*align*.txt; do
		"$FLASHBENCH" --analyze --format=json "$f" >out.json &&
		findings out.json >line || { cat line; return 1; }
		cat line
		grep -q " None$" line || known=$((known + 1))
	done
	echo "$known with an erase block" && test $known -ge 10 &&
	"$FLASHBENCH" --analyze --format=json "$REAL"/001-*align*.txt >out.json &&
	python3 -c "
import json
f = json.load(open(\"out.json\"))[\"findings\"]
assert f[\"erase_size\"][\"value\"] == 4194304
assert f[\"erase_size\"][\"confidence\"] > 0.5
assert f[\"open_au_linear\"][\"confidence\"] is None
assert f[\"open_au_linear\"][\"why\"]
r = json.load(open(\"out.json\"))
assert r[\"erase_size\"] == 4194304 and r[\"confidence\"][\"erase_size\"] > 0.5
assert r[\"confidence\"][\"open_au_linear\"] == 0
assert r[\"not_determined\"][\"open_au_linear\"]
"
'

test_expect_success 'and so are those of --detect' '
	"$FLASHBENCH" --detect --format=json sim:sandisk-su08g >out.json \
		2>/dev/null &&
	findings out.json &&
	python3 -c "
import json
f = json.load(open(\"out.json\"))[\"findings\"]
assert f[\"erase_size\"][\"value\"] == 4194304
assert f[\"page_size\"][\"value\"] == 8192
"
'

test_done
