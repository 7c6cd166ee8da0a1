#!/bin/sh
# --analyze on every real open-AU output of tests/real-outputs/ and the
# seeds in tests/analyze/: each run read with the N and order its paste
# gives it, the counts a named expert stated, and plausible answers (a
# lower bound where no run fell) everywhere else.
. "$(dirname "$0")/lib.sh"

REAL=$TESTS_DIR/real-outputs
SEEDS=$TESTS_DIR/analyze
WIREN="014 016 018 020 022 024 026 028"

# real FILE-NUMBER: the path of that real output
real() {
	echo "$REAL"/"$1"-*open-au*.txt
}

# runs FILE.json: "N order" per parsed run ("null" for an unknown N)
runs() {
	python3 -c '
import json, sys
for run in [r for r in json.load(open(sys.argv[1]))["results"]
            if r["kind"] == "open_au_run"]:
    print(run["nr"] if run["nr"] is not None else "null",
          "random" if run["random"] else "linear")' "$1"
}

# json_get FILE NAME FIELD: a field of a finding ("null", "True", a number)
json_get() {
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["findings"][sys.argv[2]][sys.argv[3]]; print("null" if v is None else v)' "$1" "$2" "$3"
}

# separators FILE: "N order" per sweep-script separator line of the file
separators() {
	sed -n 's/^=* AU=\([0-9]*\), \([a-z]*\) access =*$/\1 \2/p' "$1"
}

have_python=false
python3 -c 'import json' 2>/dev/null && have_python=true

test_expect_success 'every open-AU output reads, as text and as JSON' '
	for f in "$REAL"/*open-au*.txt "$SEEDS"/*.txt; do
		"$FLASHBENCH" --analyze "$f" >out &&
		grep "^Open erase blocks: " out &&
		"$FLASHBENCH" --analyze --format=json "$f" >out.json &&
		grep "^    \"open_au_linear\": {\"value\": .*, \"lower_bound\": \(true\|false\)}" \
			out.json || { echo "failed on $f"; return 1; }
		if $have_python; then
			python3 -m json.tool out.json >/dev/null ||
				{ echo "bad JSON for $f"; return 1; }
		fi
	done
'

test_expect_success 'every stated # expert-open-au: reading is found' '
	n=0 &&
	for f in "$REAL"/*.txt; do
		want=$(sed -n "s/^# expert-open-au: \([0-9][0-9]*\)$/\1/p" "$f")
		test -n "$want" || continue
		n=$((n + 1))
		"$FLASHBENCH" --analyze "$f" >out &&
		grep "^Open erase blocks: *$want (confidence" out ||
			{ echo "$f: want $want"; cat out; return 1; }
	done &&
	test "$n" -ge 1
'

test_expect_success '002 (README example): the continued command lines give N=2 and N=3, 2 open' '
	"$FLASHBENCH" --analyze "$(real 002)" >out &&
	grep "^Open erase blocks: *2 (confidence" out &&
	grep "^ *2  linear .*reference" out &&
	grep "^ *3  linear .*falls off$" out
'

test_expect_success 'seeds: SU08G 6 open, Toshiba 7, SanDisk 20, as the thread read them' '
	"$FLASHBENCH" --analyze "$SEEDS/su08g.txt" >s.out &&
	grep "^Open erase blocks: *6 (confidence" s.out &&
	"$FLASHBENCH" --analyze "$SEEDS/toshiba.txt" >t.out &&
	grep "^Open erase blocks: *7 (confidence" t.out &&
	"$FLASHBENCH" --analyze "$SEEDS/sandisk.txt" >d.out &&
	grep "^Open erase blocks: *20 (confidence" d.out
'

test_expect_success 'toshiba: the two -0 1 runs are combined, the ^C-cut ones kept' '
	"$FLASHBENCH" --analyze "$SEEDS/toshiba.txt" >out &&
	grep "^ *1  linear *2 *12 .*reference" out &&
	grep "^ *7  linear *1 *6 .*holds$" out &&
	grep "^ *8  linear *1 *5 .*falls off$" out
'

if $have_python; then
	test_expect_success 'Wiren Board sweeps: 7 linear runs N=1..7, then 7 random N=1..7' '
		for i in 1 2 3 4 5 6 7; do echo "$i linear"; done >want &&
		for i in 1 2 3 4 5 6 7; do echo "$i random"; done >>want &&
		for n in $WIREN; do
			f=$(real $n) &&
			separators "$f" >seps &&
			test_cmp want seps &&
			"$FLASHBENCH" --analyze --format=json "$f" >out.json &&
			runs out.json >got &&
			test_cmp want got || { echo "in $f"; return 1; }
		done
	'
	test_expect_success '003 (one column per count): runs N=1,2,3,4,5,8' '
		"$FLASHBENCH" --analyze --format=json "$(real 003)" >out.json &&
		runs out.json >got &&
		printf "%s linear\n" 1 2 3 4 5 8 >want &&
		test_cmp want got
	'
	test_expect_success 'JSON and text give the same counts' '
		for f in "$REAL"/*open-au*.txt "$SEEDS"/*.txt; do
			"$FLASHBENCH" --analyze "$f" >out &&
			"$FLASHBENCH" --analyze --format=json "$f" >out.json &&
			linear=$(json_get out.json open_au_linear value) &&
			bound=$(json_get out.json open_au_linear lower_bound) &&
			case $linear/$bound in
			null/False) grep "^Open erase blocks: *not determined" out ;;
			*/False) grep "^Open erase blocks: *$linear (confidence" out ;;
			*/True) grep "^Open erase blocks: *at least $linear (" out ;;
			*) false ;;
			esac || { echo "in $f: $linear/$bound"; return 1; }
		done
	'
else
	test_skip 'Wiren Board sweeps, run by run' 'python3 is not available'
fi

# Every open-AU output but 009 and 010 (an OLPC wrapper's --random sweep)
# holds linear runs.
test_expect_success 'no file with linear runs says "no linear open-AU runs found"' '
	for n in 002 003 011 012 $WIREN; do
		"$FLASHBENCH" --analyze "$(real $n)" >out &&
		grep "^ *[0-9?]*  linear " out &&
		! grep "no linear open-AU runs found" out ||
			{ echo "in $n"; return 1; }
	done
'

test_expect_success 'Wiren Board sweeps: a linear count between 0 and 7 for every card' '
	for n in $WIREN; do
		"$FLASHBENCH" --analyze "$(real $n)" >out &&
		grep "^Open erase blocks: *[0-7] (confidence" out &&
		grep "^  with --random: *[0-7] (confidence" out ||
			{ echo "in $n"; cat out; return 1; }
	done
'

# The clear cliffs: 014 and 016 keep ~17 and ~10 MB/s at 256KiB up to
# N=4 and drop to 3.7 and 3.4 MB/s at N=5; 018 keeps 6.9 MB/s up to N=3
# and drops to 522 KB/s at N=4.  Random order is read the same way,
# against the random runs with fewer erase blocks: slow already at N=1
# (2.9, 1.8 and 1.7 MB/s at 128KiB against 17.7, 10.3, 6.8 MB/s linear),
# but flat up to the same N and collapsing after it (837, 838 and 274
# KB/s): the random N=1 run is no thrashing, so 4, 4 and 3 stay open out
# of order too, and random order itself costs three quarters of the rate.
test_expect_success 'clear cliffs: 014 and 016 keep 4 open, 018 3; random order the same' '
	for nf in 014:4 016:4 018:3; do
		"$FLASHBENCH" --analyze "$(real ${nf%:*})" >out &&
		grep "^Open erase blocks: *${nf#*:} (confidence" out &&
		grep "^  with --random: *${nf#*:} (confidence" out &&
		grep "^ *$((${nf#*:} + 1))  linear .*falls off$" out &&
		grep "^ *$((${nf#*:} + 1))  random .*falls off$" out &&
		grep "^ *1  random .*reference" out &&
		grep "^  random/linear: *0\.[0-3][0-9] of the linear rate at N=1 (confidence" out ||
			{ echo "in $nf"; cat out; return 1; }
	done
'

# 020 and 024 collapse at the same N in both orders (020: 679 -> 267 KB/s
# at 128KiB from random N=3 to N=4; 024: 1.74 MB/s -> 776 KB/s from N=4
# to N=5); 020's rows of 16KiB and less write at the thrashing rate in
# every run and say nothing.  028's random N=1 run is already slower than
# its linear runs past the cliff (N=2 on): no erase block open.
test_expect_success 'random counts as the table reads: 020 3, 024 4; 028 0' '
	for nf in 020:3 024:4 028:0; do
		"$FLASHBENCH" --analyze "$(real ${nf%:*})" >out &&
		grep "^  with --random: *${nf#*:} (confidence" out ||
			{ echo "in $nf"; cat out; return 1; }
	done &&
	"$FLASHBENCH" --analyze "$(real 020)" >out &&
	grep "^ *4  random .*falls off$" out
'

if $have_python; then
	test_expect_success 'JSON: random_linear_ratio, a finding of its own' '
		"$FLASHBENCH" --analyze --format=json "$(real 018)" >out.json &&
		ratio=$(json_get out.json random_linear_ratio value) &&
		nr=$(json_get out.json random_linear_ratio nr) &&
		python3 -c "import sys; r = float(sys.argv[1]); sys.exit(not 0.2 < r < 0.3)" "$ratio" &&
		test "$nr" = 1 &&
		"$FLASHBENCH" --analyze --format=json "$(real 002)" >out.json &&
		test "$(json_get out.json random_linear_ratio value)" = null
	'
fi

test_expect_success 'a sweep cut before its cliff: "at least N", a lower bound in JSON' '
	sed "/^======= AU=5, linear/,\$d" "$(real 014)" >upto4.txt &&
	"$FLASHBENCH" --analyze upto4.txt >out &&
	grep "^Open erase blocks: *at least 4 (confidence" out &&
	"$FLASHBENCH" --analyze --format=json upto4.txt >out.json &&
	grep "^    \"open_au_linear\": {\"value\": 4, .*\"lower_bound\": true}" \
		out.json &&
	sed "/-0 8/,\$d" "$SEEDS/toshiba.txt" >toshiba7.txt &&
	"$FLASHBENCH" --analyze toshiba7.txt >out &&
	grep "^Open erase blocks: *at least 7 (confidence" out
'

test_expect_success 'N unknown or a single N: not determined, saying why' '
	"$FLASHBENCH" --analyze "$(real 012)" >out &&
	grep "^Open erase blocks: *not determined: no linear run.s --open-au-nr is known" out &&
	"$FLASHBENCH" --analyze "$(real 011)" >out &&
	grep "^Open erase blocks: *not determined: only N=2 was run" out
'

test_done
