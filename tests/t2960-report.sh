#!/bin/sh
# t2960: --report on simulated cards, every preset, read-only and with
# --write: the exit code by lib/exitcode.h, the summary's figures those
# of each mode run alone on the same spec, the JSON parses and holds
# every part's document, CSV is one table, and a fake card exits 3.

. "$(dirname "$0")/lib.sh"

require python3

T="--time=0.3"
B="--budget=1"

# alone OUT ARGS...: the mode run alone on $spec, its JSON in OUT
alone() {
	al_out=$1
	shift
	"$FLASHBENCH" "$@" --format=json "$spec" >"$al_out" 2>/dev/null
}

# report_matches SPEC [--write]: each summary figure equals the mode's own
report_matches() {
	spec=$1
	"$FLASHBENCH" --report $2 $T $B --format=json "$spec" >report.json \
		2>err
	echo $? >code
	alone t.json -t $T &&
	if [ -z "$2" ]; then
		alone detect.json --detect $B &&
		alone iops.json --iops --read-only $T &&
		alone iops32.json --iops --read-only --iodepth=32 $T
	else
		alone detect.json --detect --write $B &&
		alone ws.json --write-speed $T &&
		alone iops.json --iops $T &&
		alone iops32.json --iops --iodepth=32 $T &&
		alone class.json --class-check $T
	fi &&
	python3 "$TESTS_DIR/report_matches.py" "$2" report.json
}

# the presets, as an unknown one's error lists them
"$FLASHBENCH" --info sim:no-such-preset 2>&1 |
	sed -n 's/.*(presets: \(.*\))$/\1/p' | tr -d , >"$TRASH/presets"
test_expect_success 'the presets are listed' '
	test "$(wc -w <presets)" -ge 8
'

for preset in $(cat "$TRASH/presets"); do
	test_expect_success "--report sim:$preset: exit 0, figures as alone" "
		report_matches sim:$preset &&
		test \$(cat code) = 0
	"
	test_expect_success "--report --write sim:$preset: exit 0, as alone" "
		report_matches sim:$preset --write &&
		test \$(cat code) = 0
	"
done

test_expect_success '--report --write on a fake card exits 3, says fake' '
	"$FLASHBENCH" --report --write $T $B --format=json \
		sim:sandisk-su08g,fake=1G >fake.json 2>err
	test $? = 3 &&
	python3 -c "
import json; d = json.load(open(\"fake.json\"))
assert d[\"summary\"][\"verdicts\"][\"capacity\"][\"text\"].startswith(\"fake\")
fixes = [a[\"text\"] for a in d[\"summary\"][\"advice\"].values()]
assert any(\"sfdisk\" in f for f in fixes), fixes
"
'

test_expect_success '--report --format=csv is one table' '
	"$FLASHBENCH" --report --write $T $B --format=csv \
		sim:sandisk-su08g,fake=1G >r.csv 2>err
	test $? = 3 &&
	python3 -c "
import csv; rows = list(csv.reader(open(\"r.csv\")))
assert rows[0] == [\"schema\", \"kind\", \"part\", \"name\", \"value\", \"unit\", \"text\", \"note\"]
assert all(len(r) == 8 for r in rows), [r for r in rows if len(r) != 8]
parts = set(r[2] for r in rows[1:])
assert {\"summary\", \"info\", \"detect-write\", \"class-check\", \"capacity-check\"} <= parts, parts
assert not any(\"e+\" in r[4] for r in rows), [r for r in rows if \"e+\" in r[4]]
"
'

test_expect_success '--report text: summary first, then each part' '
	"$FLASHBENCH" --report $T $B sim:plain >r.txt 2>err &&
	head -1 r.txt | grep -q "^report: sim:plain" &&
	grep -q "^== read-speed: flashbench -t --time=0.3 sim:plain ==" r.txt &&
	grep -q "^  read  *[0-9.]* MB/s$" r.txt &&
	! grep -q "e+[0-9]" r.txt
'

test_expect_success '--report --write on a write-protected card: refused as --write-speed refuses it, before any part' '
	test_expect_code 1 "$FLASHBENCH" --write-speed sim:plain,ro \
		>ws.out 2>ws.err &&
	test_expect_code 1 "$FLASHBENCH" --report --write $T $B \
		sim:plain,ro >out 2>err &&
	cat err &&
	test_cmp ws.err err &&
	test ! -s out
'

# A write error at 16 MiB, where every writing part starts (or, for
# --detect --write, crosses): those parts fail, the reading ones do not.
test_expect_success '--report --write: the summary names each part that failed as why its figure is missing' '
	test_expect_code 1 "$FLASHBENCH" --report --write $T $B \
		sim:plain,bad=16M+1M >out 2>err &&
	failed="failed (exit 1), as its message on standard error says" &&
	grep -x "  write  *not measured: the write-speed part $failed" out &&
	grep -x "  write iops qd32  *not measured: the iops-qd32 part $failed" out &&
	grep -x "  classes  *not checked: the class-check part $failed" out &&
	grep -x "  open erase blocks  *not determined: the detect-write part $failed" out &&
	grep -x "  read  *[0-9.]* MB/s" out &&
	! grep "needs --write" out
'

test_expect_success '--report read-only: the writing figures need --write' '
	"$FLASHBENCH" --report $T $B sim:plain >out 2>err &&
	grep -x "  write  *not measured: needs --write" out &&
	grep -x "  classes  *not checked: needs --write" out &&
	grep -x "  capacity  *not checked: needs --write" out
'

# On a terminal: -q quiets the report's progress ("part N of M") and its
# parts' progress lines (the align part draws one: 2904 reads of at
# least 250 us each pass the line's 0.2 s interval), not the plan.
PACED="--report --time=0.1 --budget=0.2 sim:plain,pace=250us"
if have_script; then
	test_expect_success '--report -q: no progress of the report or its parts, the same results' '
		on_terminal "\"\$FLASHBENCH\" $PACED >plain" &&
		grep -q "part 3 of 6, align:" tty &&
		grep -q "align: [0-9]*/2904 " tty &&
		on_terminal "\"\$FLASHBENCH\" -q $PACED >quiet" &&
		cat tty &&
		grep -q "^flashbench: --report runs 6 parts" tty &&
		! grep -q "part [0-9] of 6" tty &&
		! grep -q "[a-z]: [0-9]*/[0-9]* " tty &&
		test_cmp plain quiet
	'
else
	test_skip '--report -q: no progress of the report or its parts, the same results' 'no script(1)'
fi

test_expect_success '--analyze reads the text of a report: its tables' '
	"$FLASHBENCH" --analyze r.txt >analyzed 2>err.analyze &&
	cat analyzed &&
	grep -q "^Read [1-9][0-9]* align lines in 1 table" analyzed &&
	grep -q "^Erase block size: *4MiB" analyzed
'

test_done
