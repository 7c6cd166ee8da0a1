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
assert rows[0] == [\"schema\", \"kind\", \"part\", \"name\", \"value\", \"unit\", \"text\"]
assert all(len(r) == 7 for r in rows), [r for r in rows if len(r) != 7]
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

test_expect_success '--analyze reads the text of a report: its tables' '
	"$FLASHBENCH" --analyze r.txt >analyzed 2>err.analyze &&
	cat analyzed &&
	grep -q "^Read [1-9][0-9]* align lines in 1 table" analyzed &&
	grep -q "^Erase block size: *4MiB" analyzed
'

test_done
