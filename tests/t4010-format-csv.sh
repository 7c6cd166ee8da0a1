#!/bin/sh
# t4010: --format=csv on the simulated card: one table, a header row that
# starts with the schema and kind columns, one row per record, the same
# number of cells in every row, plain numbers in bytes, ns and bytes/s
# (empty where a kind lacks a field), never with an exponent, and a
# last column "note".
. "$(dirname "$0")/lib.sh"
require python3

# check.py CSV: one table, as Python's csv reader sees it: a header
# "schema,kind,...,note" and rows of its width, each starting with 3.
cat >"$TRASH/check.py" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
assert rows, "empty output"
assert rows[0][:2] == ["schema", "kind"] and rows[0][-1] == "note", rows[0]
assert len(rows) > 1, "header without rows"
for row in rows[1:]:
    assert len(row) == len(rows[0]), (rows[0], row)
    assert row[0] == "3" and row[1], row
    for cell in row[2:-1]:
        if cell:
            float(cell)    # raw numbers, no unit suffixes
            assert "e" not in cell.lower(), cell
PY

for t in "-a" "-A" "-O" "-O -r" "-f" "-s" "-i"; do
	test_expect_success "csv of $t has a header and constant width" "
		\"\$FLASHBENCH\" $t --format=csv sim: >out.csv 2>/dev/null &&
		python3 \"\$TRASH/check.py\" out.csv
	"
done

test_expect_success 'find-fat numbers its repeated rate columns' '
	"$FLASHBENCH" -f --fat-nr=3 --format=csv sim: >fat.csv 2>/dev/null &&
	head -n 1 fat.csv >header &&
	echo "schema,kind,block_bytes,bytes_per_s_0,bytes_per_s_1,bytes_per_s_2,note" >expect &&
	test_cmp expect header
'

test_expect_success 'csv carries base units: bytes and bytes/s' '
	"$FLASHBENCH" -O --erasesize=4M --blocksize=1M --format=csv sim: \
		>au.csv 2>/dev/null &&
	sed -n 2p au.csv |
		grep -Eq "^3,measurement,4194304,[0-9]{7,8},\$"
'

test_expect_success 'interval: one table, the regression rows by kind' '
	"$FLASHBENCH" -i --format=csv sim: >i.csv 2>/dev/null &&
	python3 "$TRASH/check.py" i.csv &&
	grep -c "^schema," i.csv >tables &&
	echo 1 >expect && test_cmp expect tables &&
	head -n 1 i.csv >header &&
	echo "schema,kind,length_bytes,min_ns,avg_ns,max_ns,bytes_per_s,access_ns,overhead_ns,note" >expect &&
	test_cmp expect header &&
	grep -Eq "^3,regression,,,,,[0-9.]+,[0-9]+,,\$" i.csv &&
	test $(grep -c "^3,overhead,[0-9]*,,,,,,[0-9]*,\$" i.csv) -eq \
	     $(grep -c "^3,measurement," i.csv)
'

test_expect_success 'every key a program reports has its column and its unit' '
	python3 -c "
for r in range(25):
    for f in range(10):
        print(\"report count key_%03d %d\" % (r * 10 + f, r * 10 + f))
    print(\"newline\")
" >many.prog &&
	"$FLASHBENCH" --program=many.prog --format=csv sim: >many.csv &&
	python3 "$TRASH/check.py" many.csv &&
	head -n 1 many.csv | tr , "\n" | sed "1,2d;\$d" >columns &&
	seq -f "key_%03g" 0 249 >expect &&
	test_cmp expect columns &&
	tail -n 1 many.csv | tr , "\n" | tail -n 2 | head -n 1 >last &&
	echo 249 >expect && test_cmp expect last &&
	"$FLASHBENCH" --program=many.prog --format=json sim: >many.json &&
	python3 -c "
import json, sys
doc = json.load(open(\"many.json\"))
keys = sorted(doc[\"units\"])
assert keys == [\"key_%03d\" % i for i in range(250)], keys[-3:]
assert doc[\"results\"][24][\"key_249\"] == 249
"
'

test_done
