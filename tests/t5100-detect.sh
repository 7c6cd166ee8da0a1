#!/bin/sh
# --detect: geometry found on simulated cards of known geometry (today's
# cards among them), no signal invented on a device without one nor behind
# a write cache, writes only inside the announced range.
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
	open_of sa04g sim:wirenboard-sa04g 3 3 &&
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

test_expect_success 'detect --write on sim:cached-reader claims no smallest efficient write: the cache took the writes' '
	"$FLASHBENCH" --detect --write --format=json sim:cached-reader \
		>cached.json 2>/dev/null &&
	"$FLASHBENCH" --detect --write sim:cached-reader >cached.txt \
		2>/dev/null &&
	python3 - cached.json <<-\EOF &&
	import json, sys
	f = json.load(open(sys.argv[1]))["findings"]
	bad = [k for k in ("min_write_size", "open_au_linear", "open_au_random",
	                   "random_linear_ratio", "fat_area")
	       if f[k]["value"] is not None or
	       "absorbed by a write cache" not in f[k]["reason"] or
	       f[k].get("at_least")]
	sys.exit(bad and str(bad) or 0)
	EOF
	grep -E "^smallest efficient write: +not determined: writes were absorbed by a write cache: a 2KiB write took [0-9]+us, less than a 1KiB read \([0-9]+us\)" cached.txt &&
	grep -E "^open erase blocks: +not determined: writes were absorbed" cached.txt &&
	! grep "active_logs" cached.txt
'

test_expect_success 'detect --write without a cache in front still finds the smallest efficient write' '
	"$FLASHBENCH" --detect --write --format=json sim:sandisk-su08g \
		>su08g.json 2>/dev/null &&
	test "$(json_get su08g.json min_write_size)" = 8192 &&
	"$FLASHBENCH" --detect --write --format=json sim:a2-64g \
		>a2.json 2>/dev/null &&
	test "$(json_get a2.json min_write_size)" = 16384
'

test_expect_success 'detect --write searches past 32 open on a 64 GB card, announcing the larger range first' '
	"$FLASHBENCH" --detect --write sim:a2-64g >a2.txt 2>a2.err &&
	test_cmp - a2.err <<-\EOF &&
	flashbench: detect --write overwrites bytes 0 to 6845104127 (0B to 6528MiB) of sim:a2-64g
	EOF
	grep -E "^open erase blocks: +64 \(confidence 0\.[0-9]+\)$" a2.txt &&
	grep -E "^open out of order: +64 \(confidence 0\.[0-9]+\)$" a2.txt &&
	"$FLASHBENCH" --detect --write sim:sandisk-su08g >su.txt 2>su.err &&
	test_cmp - su.err <<-\EOF
	flashbench: detect --write overwrites bytes 0 to 335544319 (0B to 320MiB) of sim:sandisk-su08g
	EOF
'

# Today's cards and variations of them (tests/detect/today.tsv): their
# geometry found; an open count above what --detect probes (">=N": 32
# below 32 GiB, 128 from there) is "at least N", never a number.
test_expect_success "detect --write on today's cards: erase, page, open counts and smallest write" '
	grep -v "^#" "$TESTS_DIR/detect/today.tsv" >rows &&
	if [ -n "$FLASHBENCH_UNDER_SANITIZER" ]; then
		awk "NR % 4 == 1" rows >some && mv some rows
	fi &&
	while IFS="	" read spec erase page open orand prog; do
		"$FLASHBENCH" --detect --write --format=json "sim:$spec" \
			>out.json 2>/dev/null || { echo "failed: $spec"; return 1; }
		python3 - out.json "$erase" "$page" "$open" "$orand" "$prog" <<-\EOF ||
		import json, sys
		f = json.load(open(sys.argv[1]))["findings"]
		keys = ("erase_size", "page_size", "open_au_linear",
		        "open_au_random", "min_write_size")
		bad = []
		for k, want in zip(keys, sys.argv[2:]):
		    got = f[k]["value"]
		    if want.startswith(">="):
		        if got is not None or f[k].get("at_least") != int(want[2:]):
		            bad.append(k)
		    elif got != int(want) or f[k]["confidence"] < 0.7:
		        bad.append(k)
		sys.exit(bad and str(bad) or 0)
		EOF
		{ echo "wrong: $spec"; cat out.json; return 1; }
	done <rows
'

test_expect_success 'detect says so when a card shows no boundary' '
	"$FLASHBENCH" --detect --budget=2 --format=json \
		"sim:au-cross=0,page-cross=0,noise=0.02" >out.json &&
	test "$(json_get out.json erase_size)" = null
'

test_expect_success 'detect --write with no erase size to use writes nothing and says why' '
	"$FLASHBENCH" --detect --write --budget=1 --format=json \
		"sim:au-cross=0,page-cross=0" >out.json 2>err.txt &&
	! grep -q "overwrites bytes" err.txt &&
	test "$(json_get out.json bytes_written)" = 0 &&
	test "$(json_get out.json open_au_linear)" = null &&
	python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))[\"findings\"]
sys.exit(\"--erasesize\" not in f[\"open_au_linear\"][\"reason\"])" out.json
'

# no_flash NAME DEV [OPTION]: --detect --write on a device with no flash
# behaviour invents none: no open counts, no FAT area, no advice on them,
# each with its reason, at most 16 MiB written, inside the announced range
no_flash() {
	"$FLASHBENCH" --detect --write --format=json $3 "$2" >"$1.json" \
		2>"$1.err" &&
	"$FLASHBENCH" --detect --write $3 "$2" >"$1.txt" 2>/dev/null &&
	python3 - "$1.json" "$1.err" "$1.txt" "$4" <<-\EOF
	import json, re, sys
	d = json.load(open(sys.argv[1]))
	f = d["findings"]
	err, text = open(sys.argv[2]).read(), open(sys.argv[3]).read()
	erase_none = sys.argv[4] == "no-erase"
	m = re.search(r"overwrites bytes (\d+) to (\d+)", err)
	bad = []
	if d["bytes_written"] and (not m or int(m.group(2)) + 1 > d["device"]["size_bytes"]):
	    bad.append("range")
	if d["bytes_written"] > 16 << 20:
	    bad.append("wrote %d" % d["bytes_written"])
	for k in ("open_au_linear", "open_au_random", "fat_area"):
	    if f[k]["value"] is not None or not f[k]["reason"]:
	        bad.append(k)
	if erase_none and (f["erase_size"]["value"] is not None or
	                   not f["erase_size"]["reason"]):
	    bad.append("erase_size")
	advice = [r["text"] for r in d["results"] if r["kind"] == "recommendation"]
	if erase_none and advice or any("active_logs" in a for a in advice):
	    bad.append("advice")
	if "not determined: " not in text or "open erase blocks:         not determined" not in text:
	    bad.append("text")
	if bad:
	    print(sys.argv[1], bad)
	    sys.exit(1)
	EOF
}

test_expect_success 'detect --write on sim:ramdisk invents no erase block, count, FAT area or advice' '
	no_flash ramdisk sim:ramdisk --erasesize=4M no-erase &&
	no_flash ramdisk-found sim:ramdisk "" no-erase
'

test_expect_success 'detect --write on sim:cached-reader reports no open count or FAT area the cache hides' '
	no_flash cached sim:cached-reader "" erase
'

test_loop 'detect --write on a sparse loop device invents no geometry and writes at most 16 MiB' '
	loop=$(make_loop 1G) &&
	no_flash loop $loop --erasesize=4M no-erase
'

test_expect_success 'detect --write on a sparse regular file invents no geometry' '
	truncate -s 1G sparse.img &&
	no_flash file sparse.img --erasesize=4M no-erase
'

test_expect_success 'detect refuses a device too small for its probes, before reading' '
	printf "hello world\n" >tiny &&
	test_expect_code 2 "$FLASHBENCH" --detect tiny >out.txt 2>err.txt &&
	test ! -s out.txt &&
	grep -q "too small to measure" err.txt &&
	test $(wc -l <err.txt) -le 2
'

# columns_of TEXT FILE: the column (counted in characters, µ one) at
# which TEXT starts on each line of FILE that has it, one a line
columns_of() {
	sed "s/µ/u/g" "$2" | awk -v t="$1" "index(\$0, t) { print index(\$0, t) }"
}

test_expect_success 'the evidence table keeps its +- column straight, µs or ns' '
	"$FLASHBENCH" --detect sim: >out.txt &&
	sed -n "/^Evidence/,/^\$/p" out.txt >evidence &&
	grep -q "diff [0-9.]*µs " evidence &&
	grep -q "diff -*[0-9.]*ns " evidence &&
	columns_of "+- " evidence | sort -u >columns &&
	test "$(wc -l <columns)" = 1 &&
	sed -n "/^Staircase/,/^\$/p" out.txt >staircase &&
	grep -q "µs" staircase &&
	{ columns_of " page " staircase &&
	  columns_of " erase block " staircase; } | sort -u >columns &&
	test "$(wc -l <columns)" = 1
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
