#!/bin/sh
# t2900: every mode with each output option: --format=csv, --format=json,
# -o FILE and --plot=FILE.svg either give well-formed output or are
# refused (exit 2, one line saying why, then the hint); never exit 0 with
# the option ignored.  Then the original flashbench's options with each of
# its tests (t2900-original-options.tsv): still taken, changing the run or
# warning that they do not.
. "$(dirname "$0")/lib.sh"

SYSFS=$TESTS_DIR/sysfs
PROG=$TRASH/reads.prog
printf 'format tabs\nfor pos in linear 0 $blocksize 4 none {\n\tlet t = read pos $blocksize\n\treport bytes "pos" pos\n\treport time "time" t\n\tnewline\n}\n' >"$PROG"
truncate -s 64M "$TRASH/image"
# An undo file as a crash leaves it, for --restore: a run on a card paced
# at 10 ms an operation, killed once the file has a record (its header,
# a block and 128 bytes around it).  A whole restore removes the file:
# each run gets a copy.
KEPT=$TRASH/kept.undo
PACED=sim:size=64M,fake=64M,pace=10ms
has_record() {
	test "$(wc -c <"$KEPT")" -ge $((256 + 128 + 512))
}
(cd "$TRASH" && fb_start --capacity-check --undo-file="$KEPT" $PACED &&
	poll_until "an undo file header" test -s "$KEPT" &&
	poll_until "a whole record" has_record &&
	kill -9 $fb_pid && fb_wait && cp "$KEPT" "$KEPT.orig") >/dev/null 2>&1
# A saved run, for --compare
SAVED=$TRASH/saved-t.json
"$FLASHBENCH" -t --time=0.2 --format=json -o "$SAVED" sim: >/dev/null 2>&1

# check-csv.py FILE: one table, as a CSV reader sees it: a header that
# starts "schema,kind", rows as wide as the header, none without a kind.
cat >"$TRASH/check-csv.py" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
assert rows, "empty output"
assert rows[0][:2] == ["schema", "kind"], rows[0]
assert len(rows) > 1, "a header without rows: %r" % rows
for row in rows[1:]:
    assert len(row) == len(rows[0]), (rows[0], row)
    assert row[0] == "3" and row[1], row
PY

# MODE<TAB>ARGUMENTS<TAB>what csv, json, -o and --plot do: ok or refused
modes=$TRASH/modes.tsv
cat >"$modes" <<EOF
align	-a sim:	ok ok ok ok
write-align	-A sim:	ok ok ok ok
open-au	-O sim:	ok ok ok ok
open-au-random	-O --random sim:	ok ok ok ok
find-fat	-f sim:	ok ok ok ok
scatter	-s sim:	ok ok ok ok
interval	-i sim:	ok ok ok ok
program	--program=$PROG sim:	ok ok ok ok
program-on-a-file	--program=$PROG $TRASH/image	ok ok ok ok
read-speed	-t --time=0.5 sim:	ok ok ok ok
write-speed	--write-speed --time=0.5 sim:	ok ok ok ok
iops	--iops --time=0.5 sim:	ok ok ok refused
iops-read-only	--iops --read-only --time=0.5 sim:	ok ok ok refused
class-check	--class-check --time=0.5 sim:	ok ok ok refused
detect	--detect sim:	ok ok ok refused
detect-write	--detect --write sim:	ok ok ok refused
info	--info --sysfs-root=$SYSFS/sandisk-su08g /dev/mmcblk0	ok ok ok refused
info-sim	--info sim:	ok ok ok refused
analyze	--analyze $TESTS_DIR/analyze/su08g.txt	ok ok ok refused
decode-cid	--decode-cid=035344535530384780716a01f200bb00	ok ok ok refused
decode-csd	--decode-csd=400e00325b5900003b377f800a404000	ok ok ok refused
decode-scr	--decode-scr=0235800300000000	ok ok ok refused
decode-ssr	--decode-ssr=$(cat "$SYSFS/samsung-sdxc64/block/mmcblk0/device/ssr")	ok ok ok refused
list-programs	--list-programs	ok ok ok refused
capacity-check	--capacity-check --undo-file=$TRASH/cap.undo sim:size=64M,fake=64M	ok ok ok refused
report	--report --time=0.2 --budget=1 sim:plain	ok ok ok refused
restore	--restore=$KEPT $PACED	ok ok ok refused
compare	--compare $SAVED	ok ok ok ok
surface	--surface sim:size=64M	ok ok ok ok
surface-write	--surface --write sim:size=64M,fake=64M	ok ok ok ok
surface-keep-data	--surface --keep-data --undo-file=$TRASH/surface.undo sim:size=64M,fake=64M	ok ok ok ok
surface-passes	--surface --write --passes=2 --seed=1 sim:size=64M,fake=64M	ok ok ok ok
surface-until	--surface --write --until=1% --passes=2 --seed=1 sim:size=64M,fake=64M	ok ok ok ok
power-cut	--power-cut --seed=1 --cycles=2 --span=8M sim:size=64M,volatile=1M	ok ok ok refused
EOF

# refused ARGS...: exit 2, nothing on stdout, two lines on stderr (the
# reason, then the hint), and no file left by -o or --plot.
refused() {
	rm -f result.txt chart.svg &&
	test_expect_code 2 "$FLASHBENCH" "$@" >out 2>err </dev/null &&
	cat err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 2 &&
	head -n 1 err | grep -E "^flashbench: --(format|out|plot)[= ]" &&
	sed -n 2p err | grep "^Try 'flashbench --help'" &&
	test ! -e result.txt && test ! -e chart.svg
}

svg_check() {
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$1"
	else
		head -c 200 "$1" | grep -q "<svg" && tail -n 1 "$1" |
			grep -q "</svg>"
	fi
}

# check_output OPTION ARGS...: the output OPTION asked for is well formed.
check_output() {
	co_option=$1
	shift
	rm -f result.txt chart.svg
	cp "$KEPT.orig" "$KEPT"
	case $co_option in
	csv)
		"$FLASHBENCH" --format=csv "$@" >out.csv 2>err </dev/null &&
		python3 "$TRASH/check-csv.py" out.csv ;;
	json)
		"$FLASHBENCH" --format=json "$@" >out.json 2>err </dev/null &&
		python3 -m json.tool out.json >/dev/null ;;
	out)
		# what stdout would hold, and nothing on stdout: the same bytes
		# from the simulated card, the same lines from a real file
		"$FLASHBENCH" "$@" >plain.txt 2>/dev/null </dev/null &&
		cp "$KEPT.orig" "$KEPT" &&
		"$FLASHBENCH" -o result.txt "$@" >out 2>err </dev/null &&
		test ! -s out && test -s result.txt &&
		case " $* " in
		*" $TRASH/image "*)
			awk "{ print \$1, NF }" plain.txt >plain.shape &&
			awk "{ print \$1, NF }" result.txt >result.shape &&
			test_cmp plain.shape result.shape ;;
		*) test_cmp plain.txt result.txt ;;
		esac ;;
	plot)
		"$FLASHBENCH" --plot=chart.svg "$@" >out 2>err </dev/null &&
		test -s out && test -s chart.svg && svg_check chart.svg ;;
	esac
}

while IFS=$tab read -r mode args expect; do
	set -- $expect
	for option in csv json out plot; do
		want=$1
		shift
		case $option in
		csv) flag=--format=csv ;;
		json) flag=--format=json ;;
		out) flag="-o result.txt" ;;
		plot) flag=--plot=chart.svg ;;
		esac
		if [ "$want" = ok ]; then
			test_expect_success "$mode: $flag gives well-formed output" "
				check_output $option $args
			"
		else
			test_expect_success "$mode: $flag is refused" "
				refused $flag $args
			"
		fi
	done
done <"$modes"

test_expect_success 'the walk covers every test option of --help' '
	"$FLASHBENCH" --help | sed -n "/^Tests:/,/^\$/p" |
		sed -n "s/^ *\(-., \)\{0,1\}--\([a-z-]*\).*/\2/p" >tests &&
	test "$(wc -l <tests)" -ge 19 &&
	while read -r name; do
		case $name in
		align) opt=-a ;; write-align) opt=-A ;; open-au) opt=-O ;;
		find-fat) opt=-f ;; scatter) opt=-s ;; interval) opt=-i ;;
		read-speed) opt=-t ;; *) opt=--$name ;;
		esac
		grep -Eq -- "(^|[[:space:]])$opt([[:space:]=]|\$)" "$TRASH/modes.tsv" || {
			echo "no mode runs --$name" >&2
			return 1
		}
	done <tests
'

test_expect_success '--iops -b 64K reads and writes 64 KiB blocks' '
	"$FLASHBENCH" --iops -b 64K --time=0.5 sim: >out 2>err &&
	cat out &&
	grep "^random 65536-byte reads for" out &&
	grep "^random 65536-byte writes for" out &&
	"$FLASHBENCH" --iops -b 64K --time=0.5 --format=json sim: >out.json &&
	python3 -c "
import json, sys
j = json.load(open(\"out.json\"))
sizes = {r[\"block_bytes\"] for r in j[\"results\"]}
assert sizes == {65536}, sizes
assert j[\"parameters\"][\"blocksize\"] == 65536, j[\"parameters\"]
"
'

test_expect_success '--iops without -b still measures 4 KiB, not -b'"'"'s default' '
	"$FLASHBENCH" --iops --read-only --time=0.5 sim: >out &&
	grep "^random 4096-byte reads for" out
'

test_expect_success '--iops: 64 KiB random reads take longer than 4 KiB ones' '
	"$FLASHBENCH" --iops --read-only --time=1 --format=json sim: >a.json &&
	"$FLASHBENCH" --iops --read-only -b 64K --time=1 --format=json \
		sim: >b.json &&
	python3 -c "
import json
small = json.load(open(\"a.json\"))[\"results\"][0][\"latency_ns\"][\"p50\"]
large = json.load(open(\"b.json\"))[\"results\"][0][\"latency_ns\"][\"p50\"]
assert large > small, (small, large)
"
'

test_expect_success '--info -o writes the file the text would be' '
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/sandisk-su08g" /dev/mmcblk0 \
		>plain.txt &&
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/sandisk-su08g" -o info.txt \
		/dev/mmcblk0 >out &&
	test ! -s out && test_cmp plain.txt info.txt &&
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/sandisk-su08g" \
		--format=json -o info.json /dev/mmcblk0 &&
	python3 -m json.tool info.json >/dev/null
'

test_expect_success 'an ignored original option says so once, on stderr' '
	"$FLASHBENCH" -a -q sim: >plain.txt &&
	"$FLASHBENCH" -a --open-au-nr=6 -q sim: >out 2>err &&
	test_cmp plain.txt out &&
	test "$(cat err)" = \
		"flashbench: warning: --open-au-nr has no effect with -a"
'

# The original's options with its tests: one case per line of the .tsv.
baseline() {
	"$FLASHBENCH" $1 -q sim: >base.out 2>base.err </dev/null
}

while IFS=$tab read -r test options expect; do
	case $test in
	'#'* | '') continue ;;
	esac
	test_expect_success "original: $test $options: $expect" '
		baseline "$test" &&
		eval "set -- $options" &&
		"$FLASHBENCH" $test "$@" -q sim: >run.out 2>run.err </dev/null &&
		cat run.err &&
		case $expect in
		effect)
			! grep -q "warning" run.err &&
			! { cmp -s base.out run.out && cmp -s base.err run.err; } ;;
		quiet)
			! grep -q "warning" run.err ;;
		warn:*)
			grep -Fqx "flashbench: warning: ${expect#warn:} has no effect with $test" run.err &&
			test "$(grep -c warning run.err)" -eq 1 &&
			test_cmp base.out run.out ;;
		out)
			test ! -s run.out && test_cmp base.out "$TRASH/out.txt" &&
			rm "$TRASH/out.txt" ;;
		*)
			echo "unknown expectation $expect" >&2; false ;;
		esac
	'
done <"$TESTS_DIR/t2900-original-options.tsv"

test_expect_success 'the table has every original option with every original test' '
	for t in -a -s -i -f -O; do
		for o in -b --blocksize -e --erasesize -c -0 --open-au-nr \
			--offset -r --random -v --verbose --scatter-order \
			--scatter-span --interval-order --fat-nr -o --out; do
			grep -Eq "^$t$tab$o[ =$tab]" "$TESTS_DIR/t2900-original-options.tsv" || {
				echo "missing: $t $o" >&2
				return 1
			}
		done
	done
'

test_expect_success '--analyze takes -v and --verbose: the ignored lines on stderr' '
	printf "flashbench -O -0 1\n4MiB 9M/s\naling 4096\n" >typo.txt &&
	for v in -v --verbose; do
		"$FLASHBENCH" --analyze $v typo.txt >out 2>err &&
		grep "^typo.txt:3: ignored, misspelt keyword" err || return 1
	done
'

test_done
