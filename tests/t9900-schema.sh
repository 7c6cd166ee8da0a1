#!/bin/sh
# t9900: every JSON document holds to doc/schema/flashbench-3.json (JSON
# Schema draft 2020-12): the golden files, a set this script writes of
# every mode on the simulated card, and every document the suite's other
# tests had flashbench write (tests/run.sh keeps them, lib.sh); numbers
# carry no exponent; and a record given a field the schema does not
# declare fails.  Runs last (t9xxx), after the documents are written.
. "$(dirname "$0")/lib.sh"
require python3

SCHEMA=$TOP/doc/schema/flashbench-3.json
if ! python3 -c 'import jsonschema; jsonschema.Draft202012Validator' \
	2>/dev/null; then
	test_skip "documents hold to the schema" \
		"needs python3-jsonschema (4.0 or newer, for draft 2020-12)"
	test_done
	exit
fi

# validate.py SCHEMA FILE...: each file a valid document, numbers without
# an exponent; a FILE.code beside it gives the run's exit code, and a run
# that failed (1, 2) or was killed (137) may have left no document.
cat >"$TRASH/validate.py" <<'PY'
import json, os, re, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
exponent = re.compile(r'(?<![\w".])-?\d+(\.\d+)?[eE][-+]?\d+')
bad = checked = 0
for path in sys.argv[2:]:
    text = open(path, encoding="utf-8").read()
    code = None
    if os.path.exists(path[:path.rindex(".")] + ".code"):
        code = open(path[:path.rindex(".")] + ".code").read().strip()
    if not text.strip() and code not in (None, "0"):
        continue            # a run refused or failed before any output
    try:
        doc = json.loads(text)
    except ValueError as e:
        if code in ("1", "2", "137"):
            continue        # cut off by its own failure, said on stderr
        print("%s: not JSON: %s" % (path, e))
        bad += 1
        continue
    checked += 1
    for error in validator.iter_errors(doc):
        print("%s: %s: %s" % (path, "/".join(map(str, error.path)),
                              error.message[:300]))
        bad += 1
        break
    # numbers outside strings: the document with its strings blanked
    bare = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    if exponent.search(bare):
        print("%s: a number with an exponent: %s" %
              (path, exponent.search(bare).group(0)))
        bad += 1
print("%d documents checked" % checked)
sys.exit(1 if bad or not checked else 0)
PY

test_expect_success 'the schema is itself valid draft 2020-12, objects closed' '
	python3 - "$SCHEMA" <<-PY
	import json, sys, jsonschema
	s = json.load(open(sys.argv[1]))
	jsonschema.Draft202012Validator.check_schema(s)
	assert s["\$schema"].endswith("2020-12/schema")
	def walk(node, where):
	    if isinstance(node, dict):
	        kinds = node.get("type") or []
	        if "object" in ([kinds] if isinstance(kinds, str) else kinds):
	            # closed, or dispatching to closed records by kind
	            assert node.get("additionalProperties") is False or \
	                "allOf" in node, where
	        for k, v in node.items():
	            walk(v, where + "/" + k)
	    elif isinstance(node, list):
	        for i, v in enumerate(node):
	            walk(v, where + "/" + str(i))
	walk(s, "")
	PY
'

test_expect_success 'the golden JSON files hold to the schema' '
	python3 "$TRASH/validate.py" "$SCHEMA" "$TESTS_DIR"/golden/*.json
'

# one document of every mode that writes JSON, on the simulated card
test_expect_success 'every mode writes a document the schema takes' '
	for args in "-a -c 1" "-A -c 1" "-O" "-O -r" "-f --fat-nr=2" \
		"-s -c 1" "-i -c 1" "-t --time=0.1" "--write-speed --time=0.1" \
		"--iops --time=0.1" "--class-check --time=0.1" "--detect" \
		"--info" "--surface" \
		"--program=$TESTS_DIR/programs/sequential-read.prog"; do
		n=$((${n:-0} + 1)) &&
		"$FLASHBENCH" $args --format=json sim:size=256M,erase=4M \
			>mode$n.json 2>/dev/null ||
		case $? in 3|4) ;; *) echo "failed: $args"; exit 1 ;; esac
	done &&
	"$FLASHBENCH" --capacity-check --undo-file=u1.undo --format=json \
		sim:size=256M,fake=256M >genuine.json 2>/dev/null &&
	test_expect_code 3 "$FLASHBENCH" --capacity-check --undo-file=u2.undo \
		--format=json sim:size=1G,fake=512M >fake.json 2>/dev/null &&
	test_expect_code 4 "$FLASHBENCH" --power-cut --cycles=3 --span=8M \
		--seed=1 --format=json \
		sim:size=256M,volatile=1M,flush=ignore,cut-map=4,cut-damage=0.3 \
		>power-cut.json 2>/dev/null &&
	"$FLASHBENCH" --analyze --format=json "$TESTS_DIR/analyze/su08g.txt" \
		>analyze.json &&
	"$FLASHBENCH" --list-programs --format=json >list.json &&
	"$FLASHBENCH" --decode-cid=035344535530384780716a01f200bb00 \
		--format=json >cid.json &&
	"$FLASHBENCH" --decode-csd=400e00325b5900003b377f800a404000 \
		--format=json >csd.json &&
	"$FLASHBENCH" --decode-scr=0235800300000000 --format=json >scr.json &&
	truncate -s 8M image &&
	"$ERASE" --format=json image 0 1M >erase.json 2>/dev/null &&
	"$ERASE" --format=json --zero sim: 1M 1M >erase-sim.json 2>/dev/null &&
	for tree in "$TESTS_DIR"/sysfs/*/; do
		for disk in $(ls "$tree/block"); do
			"$FLASHBENCH" --info --sysfs-root="$tree" --format=json \
				"/dev/$disk" >"info-$disk-$(basename "$tree").json" ||
			exit 1
		done
	done &&
	python3 "$TRASH/validate.py" "$SCHEMA" *.json
'

test_expect_success 'decode and analyze documents name no device: null' '
	python3 - cid.json analyze.json list.json <<-PY
	import json, sys
	for p in sys.argv[1:]:
	    assert json.load(open(p))["device"] is None, p
	PY
'

test_expect_success 'a record gaining a field the schema does not declare fails' '
	python3 - mode1.json <<-PY &&
	import json, sys
	doc = json.load(open(sys.argv[1]))
	doc["results"][0]["latency"] = 5
	json.dump(doc, open("extra.json", "w"))
	doc = json.load(open(sys.argv[1]))
	doc["device"]["serial"] = "x"
	json.dump(doc, open("extra-device.json", "w"))
	doc = json.load(open(sys.argv[1]))
	doc["results"][0]["pre_ns"] = "fast"
	json.dump(doc, open("retyped.json", "w"))
	PY
	! python3 "$TRASH/validate.py" "$SCHEMA" extra.json >out &&
	grep "Additional properties are not allowed (.latency. was unexpected)" out &&
	! python3 "$TRASH/validate.py" "$SCHEMA" extra-device.json &&
	! python3 "$TRASH/validate.py" "$SCHEMA" retyped.json
'

test_expect_success 'a number with an exponent fails' '
	sed "s/\"bytes_written\": [0-9]*/\"bytes_written\": 1e+06/" mode1.json \
		>exp.json &&
	! python3 "$TRASH/validate.py" "$SCHEMA" exp.json >out &&
	grep "exponent" out
'

if [ -n "$FLASHBENCH_RESULTS" ] && [ -d "$FLASHBENCH_RESULTS/json" ]; then
	test_expect_success 'every JSON document the suite wrote holds to the schema' '
		python3 "$TRASH/validate.py" "$SCHEMA" \
			"$FLASHBENCH_RESULTS"/json/*.json
	'
else
	test_skip "every JSON document the suite wrote holds to the schema" \
		"run through tests/run.sh, which keeps them"
fi

test_done
