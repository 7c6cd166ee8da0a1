#!/bin/sh
# t4010: --format=csv on the simulated card: a header row that starts with
# the schema column, one row per record, the same number of cells in
# every row of a table, plain numbers in bytes, ns and bytes/s.
. "$(dirname "$0")/lib.sh"
require python3

# check.py CSV: every table (tables are separated by an empty line) has a
# header "schema,..." and rows of its width, each starting with 1.
cat >"$TRASH/check.py" <<'PY'
import csv, sys
tables = open(sys.argv[1], encoding="utf-8").read().split("\n\n")
assert tables[0], "empty output"
for table in tables:
    rows = list(csv.reader(table.strip("\n").split("\n")))
    assert rows[0][0] == "schema", rows[0]
    assert len(rows) > 1, "header without rows"
    for row in rows[1:]:
        assert len(row) == len(rows[0]), (rows[0], row)
        assert row[0] == "1", row
        for cell in row[1:]:
            float(cell)    # raw numbers, no unit suffixes
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
	echo "schema,block,rate_0,rate_1,rate_2" >expect &&
	test_cmp expect header
'

test_expect_success 'csv carries base units: bytes and bytes/s' '
	"$FLASHBENCH" -O --erasesize=4M --blocksize=1M --format=csv sim: \
		>au.csv 2>/dev/null &&
	sed -n 2p au.csv | grep -Eq "^1,4194304,[0-9]{7,8}(\.[0-9]+)?\$"
'

test_expect_success 'interval: regression rows form a table of their own' '
	"$FLASHBENCH" -i --format=csv sim: >i.csv 2>/dev/null &&
	grep -c "^schema," i.csv >tables &&
	echo 3 >expect && test_cmp expect tables &&
	grep -q "^schema,rate,access\$" i.csv
'

test_done
