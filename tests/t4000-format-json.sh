#!/bin/sh
# t4000: --format=json on the simulated card: every test gives one valid
# document with the schema's members, and its numbers are the ones the
# text output of the same command shows (sim: is deterministic).
. "$(dirname "$0")/lib.sh"
require python3

# compare.py TEXT JSON: each number of the text, with its unit, equals
# the JSON value in the same place to the text's precision.
cat >"$TRASH/compare.py" <<'PY'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
doc = json.load(open(sys.argv[2], encoding="utf-8"))
for key in ("schema", "command", "test", "device", "parameters", "results",
            "incomplete", "device_time_ns", "bytes_read", "bytes_written"):
    assert key in doc, "missing " + key
assert doc["schema"] == 3 and doc["incomplete"] is False
assert all(isinstance(r.get("kind"), str) for r in doc["results"])
assert set(doc["device"]) == {"path", "size_bytes", "logical_block_bytes",
                          "identity", "name"}
assert doc["device"]["identity"] is None    # sim: is no device of its own
scale = {"ns": 1, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9, "B": 1,
         "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
         "B/s": 1, "K/s": 1e3, "M/s": 1e6, "G/s": 1e9, "T/s": 1e12}
token = re.compile(r"(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)(\u00b5s|ns|ms|s|KiB|MiB"
                   r"|GiB|TiB|B/s|K/s|M/s|G/s|T/s|B)?(?![\w/])( MB/s)?")
shown = []
for m in token.finditer(text):
    number = float(m.group(1))
    if m.group(3):
        shown.append([number * 1e6])
    elif m.group(2):
        shown.append([number * scale[m.group(2)]])
    else:    # bare: bytes, MiB (scatter offset) or ms (scatter time)
        shown.append([number, number * 2**20, number * 1e6])
values = []
for rec in doc["results"]:
    for v in rec.values():
        values.extend(v if isinstance(v, list) else [v])
values = [v for v in values if not isinstance(v, str)]
assert len(values) == len(shown), "%d values, %d in text" % (
    len(values), len(shown))
for i, (v, options) in enumerate(zip(values, shown)):
    if not any(abs(v - o) <= max(abs(o) * 0.0051, 0.51) for o in options):
        sys.exit("value %d: json %r, text %r" % (i, v, options))
PY

for t in "-a" "-A" "-O" "-O -r" "-f" "-s" "-i" "-a --threes -c 2"; do
	test_expect_success "json of $t is valid and matches the text" "
		\"\$FLASHBENCH\" $t sim: >text 2>/dev/null &&
		\"\$FLASHBENCH\" $t --format=json sim: >doc.json 2>/dev/null &&
		python3 -m json.tool doc.json >/dev/null &&
		python3 \"\$TRASH/compare.py\" text doc.json
	"
done

test_expect_success 'json names the test, device and parameters' '
	"$FLASHBENCH" -O -0 7 --erasesize=4M --blocksize=64K --format=json \
		sim:sandisk-su08g >au.json 2>/dev/null &&
	python3 - au.json <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["test"] == "open-au", d["test"]
	assert d["device"]["path"] == "sim:sandisk-su08g"
	assert d["parameters"]["open_au_nr"] == 7
	assert "nr" not in d["parameters"] and "lbs" not in d["parameters"]
	assert d["parameters"]["blocksize"] == 65536
	assert "-0 7" in d["command"], d["command"]
	assert d["results"][0] == {"kind": "measurement",
		"block_bytes": 4194304,
		"bytes_per_s": d["results"][0]["bytes_per_s"]}
	assert d["device"]["name"] == "sim:sandisk-su08g"
	assert d["parameters"]["random"] is False
	assert d["bytes_written"] > 0 and d["device_time_ns"] > 0
	PY
'

# speed_params TEST OPTIONS... -> the "parameters" of its JSON, one
# "name=value" a line in order
speed_params() {
	"$FLASHBENCH" "$@" --format=json sim: >speed.json 2>/dev/null &&
	python3 -c "
import json
for k, v in json.load(open(\"speed.json\"))[\"parameters\"].items():
    print(\"%s=%s\" % (k, v))
"
}

test_expect_success 'speed tests: parameters named after the long options' '
	speed_params -t -b 64K --offset=1M --time=0.25 >t.params &&
	printf "%s\n" blocksize=65536 offset=1048576 time=250000000 \
		iodepth=1 engine=sim >t.expect &&
	test_cmp t.expect t.params &&
	speed_params --write-speed --span=8M --time=0.25 >w.params &&
	printf "%s\n" erasesize=4194304 time=250000000 span=8388608 \
		iodepth=1 engine=sim >w.expect &&
	test_cmp w.expect w.params &&
	speed_params --iops -b 8K --read-only --time=0.25 >i.params &&
	printf "%s\n" blocksize=8192 erasesize=4194304 time=250000000 \
		span=268435456 iodepth=1 read_only=True engine=sim >i.expect &&
	test_cmp i.expect i.params &&
	speed_params --class-check --read-only --time=0.25 >c.params &&
	printf "%s\n" erasesize=4194304 time=250000000 span=268435456 \
		iodepth=1 read_only=True engine=sim >c.expect &&
	test_cmp c.expect c.params
'

test_expect_success 'find-fat: one array of rates per block size' '
	"$FLASHBENCH" -f --fat-nr=3 --format=json sim: >fat.json 2>/dev/null &&
	python3 - fat.json <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))
	for r in d["results"]:
	    assert isinstance(r["bytes_per_s"], list), r
	    assert len(r["bytes_per_s"]) == 3, r
	PY
'

test_expect_success 'yes/no options are true or false, --cache-limit is cache_limit' '
	"$FLASHBENCH" -a -c 1 --threes --format=json sim: >threes.json &&
	grep "\"parameters\": {\"blocksize\": 16384, \"count\": 1, \"threes\": true}" \
		threes.json &&
	"$FLASHBENCH" --capacity-check --undo-file=u.undo --cache-limit=8M \
		--format=json sim:size=256M,fake=256M >cap.json 2>/dev/null &&
	grep "\"parameters\": {\"cache_limit\": 8388608}" cap.json
'

test_expect_success 'rates are plain decimals, never with an exponent' '
	"$FLASHBENCH" -O --format=json sim: >au.json 2>/dev/null &&
	grep "\"bytes_per_s\": 10701400}" au.json &&
	! grep -E "[0-9]e[-+]?[0-9]" au.json
'

test_expect_success 'text output is unchanged by the new formats' '
	"$FLASHBENCH" -O --erasesize=4M --blocksize=1M sim: >au.txt \
		2>/dev/null &&
	test_lines_match au.txt "^[0-9.]+[KMG]iB +[0-9.]+[KMG]?/s\$"
'

test_done
