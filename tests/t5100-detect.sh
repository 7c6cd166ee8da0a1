#!/bin/sh
# --detect: geometry found on simulated cards of known geometry, no signal
# invented on a device without one, writes only inside the announced range.
. "$(dirname "$0")/lib.sh"
require python3

# json_get FILE KEY: the value of a finding of a detect document, or else
# a top-level value
json_get() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
k = sys.argv[2]
v = d["findings"][k]["value"] if k in d["findings"] else d[k]
print("null" if v is None else v)' "$1" "$2"
}

test_expect_success 'detect on the SU08G preset finds 4MiB erase blocks and 8KiB pages' '
	"$FLASHBENCH" --detect --format=json sim: >out.json &&
	test "$(json_get out.json erase_size)" = 4194304 &&
	test "$(json_get out.json page_size)" = 8192 &&
	test "$(json_get out.json bytes_written)" = 0
'

# confidence_of FILE KEY: the confidence of one finding
confidence_of() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][sys.argv[2]]["confidence"])' "$1" "$2"
}

# open_of NAME SPEC LINEAR RANDOM [OPTION]: --detect --write on SPEC finds
# those open counts, after announcing its range
open_of() {
	"$FLASHBENCH" --detect --write --format=json $5 "$2" >"$1.json" \
		2>"$1.err" &&
	grep -q "overwrites bytes" "$1.err" &&
	test "$(json_get "$1.json" open_au_linear)" = "$3" &&
	test "$(json_get "$1.json" open_au_random)" = "$4" ||
	{ echo "wrong on $2:"; cat "$1.json"; return 1; }
}

test_expect_success 'detect --write on each preset finds the open erase blocks' '
	open_of su08g sim:sandisk-su08g 6 1 &&
	open_of plain sim:plain 6 1 &&
	open_of toshiba sim:toshiba-7au 7 4 &&
	open_of 20au sim:sandisk-20au 20 20 &&
	open_of readme sim:readme-example 2 1 &&
	open_of sa04g sim:wirenboard-sa04g 3 0 &&
	open_of ncard sim:wirenboard-ncard 2 2
'

# Its reads show a bigger step at 8 MiB than at 4 MiB, as the real table
# does, so detection reads 8 MiB (4 MiB the alternative): the write
# probes are checked at the erase size the card is built with.
test_expect_success 'detect --write --erasesize=4M on the SU04G preset: 4 open, none out of order' '
	open_of su04g sim:wirenboard-su04g 4 0 --erasesize=4M
'

# The SU08G degrades to about half its rate with 7 and 8 erase blocks in
# turn, at every write size, instead of collapsing ("6 connections work
# well, 7 and 8 fall off"): the probes must see that, and a count read
# from a fall that shallow is less sure than one from a cliff.
test_expect_success 'detect --write reads the SU08G graceful fall-off at 7, less sure than a cliff' '
	"$FLASHBENCH" --detect --write -v --format=json sim:sandisk-su08g \
		>su08g.json 2>log.txt &&
	grep "linear N=6 " log.txt | grep -q "holds$" &&
	grep "linear N=7 " log.txt | grep -q "falls off$" &&
	ratio=$(sed -n "s/.*linear N=7 .*median \([0-9.]*\) .*/\1/p" log.txt) &&
	awk -v r="$ratio" "BEGIN { exit !(r > 0.4 && r < 0.7) }" &&
	"$FLASHBENCH" --detect --write --format=json sim:plain >plain.json \
		2>/dev/null &&
	su08g=$(confidence_of su08g.json open_au_linear) &&
	plain=$(confidence_of plain.json open_au_linear) &&
	awk -v s="$su08g" -v p="$plain" "BEGIN { exit !(s < 0.8 && p >= 0.85) }"
'

test_expect_success 'detect --write finds the 32KiB program unit of the Toshiba card' '
	"$FLASHBENCH" --detect --write --format=json sim:toshiba-7au \
		>out.json 2>/dev/null &&
	test "$(json_get out.json min_write_size)" = 32768
'

test_expect_success 'detect --write on a matrix of 22 cards: erase and open exact, page on 90%' '
	total=0 page_ok=0
	grep -v "^#" "$TESTS_DIR/detect/matrix.tsv" >rows
	# under the sanitizers every fourth card: the code paths, not the
	# statistics, are what that pass is for
	if [ -n "$FLASHBENCH_UNDER_SANITIZER" ]; then
		awk "NR % 4 == 1" rows >some && mv some rows
	fi
	while IFS="	" read spec erase page open orand; do
		total=$((total + 1))
		"$FLASHBENCH" --detect --write --format=json "sim:$spec,size=8G" \
			>out.json 2>/dev/null || { echo "failed: $spec"; return 1; }
		test "$(json_get out.json erase_size)" = "$erase" &&
		test "$(json_get out.json open_au_linear)" = "$open" ||
			{ echo "wrong: $spec"; cat out.json; return 1; }
		test "$(json_get out.json page_size)" = "$page" &&
			page_ok=$((page_ok + 1))
	done <rows
	echo "page exact on $page_ok of $total"
	test -n "$FLASHBENCH_UNDER_SANITIZER" || {
		test $total -ge 20 && test $((page_ok * 10)) -ge $((total * 9))
	}
'

test_expect_success 'detect says so when a card shows no boundary' '
	"$FLASHBENCH" --detect --budget=2 --format=json \
		"sim:au-cross=0,page-cross=0,noise=0.02" >out.json &&
	test "$(json_get out.json erase_size)" = null
'

test_expect_success 'detect --write without an erase size to use is a usage error' '
	test_expect_code 2 "$FLASHBENCH" --detect --write --budget=1 \
		"sim:au-cross=0,page-cross=0" 2>err.txt &&
	grep -q "erasesize" err.txt
'

test_expect_success '--write alone is a usage error' '
	test_expect_code 2 "$FLASHBENCH" --write sim: 2>err.txt &&
	grep -q "goes with --detect" err.txt
'

test_loop 'detect on a loop device reports no erase-block signal' '
	loop=$(make_loop 256M) &&
	"$FLASHBENCH" --detect --budget=3 --format=json $loop >out.json &&
	test "$(json_get out.json erase_size)" = null
'

test_loop 'detect --write on a loop device writes only inside its announced range' '
	loop=$(make_loop 256M) &&
	fill_random $loop &&
	chunk_sums $loop 1048576 >before &&
	"$FLASHBENCH" --detect --write --erasesize=1M --budget=1 $loop \
		>out.txt 2>err.txt &&
	range=$(sed -n "s/.*overwrites bytes \([0-9]*\) to \([0-9]*\).*/\1 \2/p" err.txt) &&
	test -n "$range" &&
	chunk_sums $loop 1048576 >after &&
	changed_chunks before after >changed &&
	test -s changed &&
	set -- $range &&
	while read chunk; do
		test $((chunk * 1048576)) -ge $1 &&
		test $((chunk * 1048576)) -le $2 || return 1
	done <changed
'

test_done
