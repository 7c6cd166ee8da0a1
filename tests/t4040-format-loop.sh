#!/bin/sh
# t4040: on a real (loop) device the machine formats hold the same records
# as the text: valid JSON and CSV, one record per text line, the same
# alignments and block sizes.  Times differ between runs, so only their
# presence and sign are compared.
. "$(dirname "$0")/lib.sh"
require python3

if have_loop; then
	loop_setup LOOP 64M
fi

test_loop '-a: JSON parses, one result per text line, same alignments' '
	"$FLASHBENCH" -a -c 2 "$LOOP" >text &&
	"$FLASHBENCH" -a -c 2 --format=json "$LOOP" >doc.json &&
	python3 -m json.tool doc.json >/dev/null &&
	awk "{ print \$2 }" text >text.aligns &&
	python3 -c "
import json, sys
d = json.load(open(\"doc.json\"))
assert d[\"device\"][\"size_bytes\"] == 64 * 1048576
for r in d[\"results\"]:
	assert r[\"pre_ns\"] > 0 and r[\"on_ns\"] > 0 and r[\"post_ns\"] > 0
	print(r[\"align_bytes\"])
" >json.aligns &&
	test_cmp text.aligns json.aligns
'

test_loop 'json: the device is known by its backing file, named by its path' '
	"$FLASHBENCH" -a -c 1 --format=json "$LOOP" >doc.json &&
	back=$(losetup -n -O BACK-FILE "$LOOP") &&
	python3 - doc.json "$LOOP" "$(realpath "$back")" <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))["device"]
	assert d["identity"] == "file:" + sys.argv[3], d
	assert d["name"] == sys.argv[2] and d["path"] == sys.argv[2], d
	PY
'

test_loop '-O: CSV has a header and a constant column count, same sizes as text' '
	"$FLASHBENCH" -O -e 1M -b 128K -0 2 "$LOOP" >text 2>/dev/null &&
	"$FLASHBENCH" -O -e 1M -b 128K -0 2 --format=csv "$LOOP" \
		>out.csv 2>/dev/null &&
	head -n 1 out.csv | grep -q "^schema,kind,block_bytes,bytes_per_s,note$" &&
	test "$(awk -F, "{ print NF }" out.csv | sort -u)" = 5 &&
	test "$(($(wc -l <out.csv) - 1))" = "$(wc -l <text)" &&
	tail -n +2 out.csv | cut -d, -f3 >csv.sizes &&
	printf "1048576\n524288\n262144\n131072\n" >want.sizes &&
	test_cmp want.sizes csv.sizes
'

test_loop '-t: JSON parses and has the whole-run rate' '
	"$FLASHBENCH" -t --time=0.5 --format=json "$LOOP" >doc.json &&
	python3 -m json.tool doc.json >/dev/null &&
	python3 -c "
import json
d = json.load(open(\"doc.json\"))
s = [r for r in d[\"results\"] if \"block_bytes\" in r][-1]
assert s[\"bytes_per_s\"] > 0 and d[\"bytes_read\"] > 0
"
'

test_done
