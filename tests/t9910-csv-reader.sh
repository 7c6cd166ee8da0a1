#!/bin/sh
# t9910: every CSV table flashbench prints reads as data with Python's
# csv module: a header "schema,kind,...,note", every row as wide as the
# header, no row that starts with "#", numbers without an exponent; an
# interrupted run's last row is of kind "incomplete", its cells empty and
# the reason in "note".  Checked on a set this script writes of every
# mode, and on every CSV the suite's other tests had flashbench write
# (tests/run.sh keeps them, lib.sh).  Runs last (t9xxx).
. "$(dirname "$0")/lib.sh"
require python3

# read.py FILE...: each FILE one table as above; a FILE.code beside it
# gives the run's exit code: a run that failed (1, 2) or was killed may
# have printed nothing.
cat >"$TRASH/read.py" <<'PY'
import csv, os, re, sys

exponent = re.compile(r'^-?\d+(\.\d+)?[eE][-+]?\d+$')
number = re.compile(r'^-?\d+(\.\d+)?$')
bad = checked = 0
def fail(path, what):
    global bad
    print("%s: %s" % (path, what))
    bad += 1
for path in sys.argv[1:]:
    code = None
    if os.path.exists(path[:path.rindex(".")] + ".code"):
        code = open(path[:path.rindex(".")] + ".code").read().strip()
    text = open(path, encoding="utf-8", newline="").read()
    if not text and code not in (None, "0"):
        continue
    rows = list(csv.reader(text.splitlines(True)))
    if not rows:
        fail(path, "no table")
        continue
    checked += 1
    header = rows[0]
    if header[:2] != ["schema", "kind"] or header[-1] != "note":
        fail(path, "header %r" % header)
    for n, row in enumerate(rows[1:], 2):
        if len(row) != len(header):
            fail(path, "row %d: %d cells, the header %d" %
                 (n, len(row), len(header)))
        if row and row[0].startswith("#"):
            fail(path, "row %d starts with #" % n)
        if row[:1] != ["3"]:
            fail(path, "row %d: schema %r" % (n, row[:1]))
        for cell in row[2:]:
            if exponent.match(cell):
                fail(path, "row %d: %s has an exponent" % (n, cell))
        if row[1:2] == ["incomplete"]:
            if n != len(rows) or any(row[2:-1]) or not row[-1]:
                fail(path, "incomplete row %d: %r" % (n, row))
    if any(r[1:2] == ["incomplete"] for r in rows[1:]) != (code == "130" or
                                                            code == "143"):
        if code in ("130", "143"):
            fail(path, "an interrupted run without an incomplete row")
print("%d tables read" % checked)
sys.exit(1 if bad or not checked else 0)
PY

test_expect_success 'every mode prints a table csv reads as data' '
	for args in "-a -c 1" "-A -c 1" "-O" "-O -r" "-f --fat-nr=2" \
		"-s -c 1" "-i -c 1" "-t --time=0.1" "--write-speed --time=0.1" \
		"--iops --time=0.1" "--class-check --time=0.1" "--detect" \
		"--info"; do
		n=$((${n:-0} + 1)) &&
		"$FLASHBENCH" $args --format=csv sim:size=256M,erase=4M \
			>mode$n.csv 2>/dev/null || { echo "failed: $args"; exit 1; }
	done &&
	"$FLASHBENCH" --capacity-check --undo-file=u1.undo --format=csv \
		sim:size=256M,fake=256M >genuine.csv 2>/dev/null &&
	"$FLASHBENCH" --analyze --format=csv "$TESTS_DIR/analyze/su08g.txt" \
		>analyze.csv &&
	"$FLASHBENCH" --list-programs --format=csv >list.csv &&
	"$FLASHBENCH" --decode-cid=035344535530384780716a01f200bb00 \
		--format=csv >cid.csv &&
	python3 "$TRASH/read.py" *.csv
'

test_expect_success 'DictReader reads every row with the header columns' '
	python3 - mode3.csv <<-PY
	import csv, sys
	rows = list(csv.DictReader(open(sys.argv[1], newline="")))
	assert rows and all(r["schema"] == "3" for r in rows), rows[:2]
	assert all(None not in r for r in rows)
	assert all(r["note"] == "" for r in rows)
	assert float(rows[0]["bytes_per_s"]) > 1e6
	PY
'

test_expect_success 'the checker fails a comment row, a short row, an exponent' '
	{ cat mode3.csv && echo "# incomplete: interrupted"; } >comment.csv &&
	! python3 "$TRASH/read.py" comment.csv &&
	{ cat mode3.csv && echo "3,measurement,1"; } >short.csv &&
	! python3 "$TRASH/read.py" short.csv &&
	sed "2s/,[0-9][0-9]*,/,1.07e+07,/" mode3.csv >exp.csv &&
	! python3 "$TRASH/read.py" exp.csv >out &&
	grep exponent out
'

test_expect_success 'an interrupted run ends with an incomplete row' '
	fb_start -O -0 8 --erasesize=64M --blocksize=512 --format=csv \
		sim:pace=1ms &&
	wait_announced &&
	kill -INT $fb_pid &&
	fb_wait &&
	test "$(cat code)" = 130 &&
	echo 130 >out.code && cp out out.csv &&
	python3 "$TRASH/read.py" out.csv &&
	tail -n 1 out.csv | grep -E "^3,incomplete,(,)*interrupted\$"
'

if [ -n "$FLASHBENCH_RESULTS" ] && [ -d "$FLASHBENCH_RESULTS/csv" ]; then
	test_expect_success 'every CSV table the suite printed reads as data' '
		python3 "$TRASH/read.py" "$FLASHBENCH_RESULTS"/csv/*.csv
	'
else
	test_skip "every CSV table the suite printed reads as data" \
		"run through tests/run.sh, which keeps them"
fi

test_done
