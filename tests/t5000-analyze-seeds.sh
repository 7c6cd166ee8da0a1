#!/bin/sh
# --analyze on outputs people posted: the SanDisk SU08G align table and
# open-AU runs, and the Toshiba and SanDisk runs of one mail thread, give
# the erase block size and open erase blocks the thread reached.
. "$(dirname "$0")/lib.sh"

DATA=$TESTS_DIR/analyze

if ! "$FLASHBENCH" --help 2>/dev/null | grep -q -- '--analyze'; then
	test_skip 'analyze seeds' '--analyze is not wired in'
	test_done
	exit
fi

# In random order the SU08G writes at 0.41 of its linear rate already
# with N=2, and stays there up to N=6 (4.36 and 4.37 MB/s at 128KiB);
# N=7 falls to 1.73 MB/s: 6 open in random order too, at that cost.
test_expect_success 'su08g: 4MiB erase blocks, 6 open in either order' '
	"$FLASHBENCH" --analyze "$DATA/su08g.txt" >out &&
	grep "^Erase block size: *4MiB (confidence" out &&
	grep "^Open erase blocks: *6 (confidence" out &&
	grep "^  with --random: *6 (confidence" out &&
	grep "^  random/linear: *0\.4[0-9] of the linear rate at N=2 (confidence" out
'

test_expect_success 'su08g: the evidence, 7 falls off' '
	"$FLASHBENCH" --analyze "$DATA/su08g.txt" >out &&
	grep "^  4MiB .*erase-block boundary$" out &&
	grep "^ *7  linear .*falls off$" out &&
	grep "^ *6  linear .*holds$" out
'

test_expect_success 'toshiba: 7 open erase blocks, no align table' '
	"$FLASHBENCH" --analyze "$DATA/toshiba.txt" >out &&
	grep "^Open erase blocks: *7 (confidence" out &&
	grep "^Erase block size: *not determined: no align table found" out
'

test_expect_success 'sandisk: 20 open erase blocks' '
	"$FLASHBENCH" --analyze "$DATA/sandisk.txt" >out &&
	grep "^Open erase blocks: *20 (confidence" out
'

test_expect_success 'standard input reads like a file' '
	"$FLASHBENCH" --analyze "$DATA/su08g.txt" >file.out &&
	"$FLASHBENCH" --analyze - <"$DATA/su08g.txt" >stdin.out &&
	test_cmp file.out stdin.out
'

test_expect_success 'several files add up; runs do not carry over' '
	"$FLASHBENCH" --analyze "$DATA/su08g.txt" "$DATA/sandisk.txt" >out &&
	grep "^Read 21 align lines in 1 table and 11 open-AU runs" out
'

test_expect_success 'a missing file is a runtime error naming it' '
	test_expect_code 1 "$FLASHBENCH" --analyze "$TRASH/nonexistent" \
		>out 2>err &&
	grep "nonexistent: No such file or directory" err
'

test_expect_success 'prose alone: no input to analyze, exit 1' '
	printf "hello world\n" >prose.txt &&
	test_expect_code 1 "$FLASHBENCH" --analyze prose.txt >out 2>err &&
	test ! -s out &&
	grep "^flashbench: --analyze: no input to analyze: no align line or open-AU run in 1 line " err &&
	test_expect_code 1 "$FLASHBENCH" --analyze - <prose.txt >out 2>err &&
	grep "no input to analyze" err
'

# Lines that almost parse are named for what is wrong with them.

test_expect_success '-v lists every ignored line, its number and why' '
	cat >typos.txt <<-EOF &&
	flashbench -a /dev/mmcblk0 --blocksize=1024
	aling 524288 pre 1us on 1us post 1us diff 1us
	align 262144 pre 1us on 1.2mss post 1us diff 1us
	align 4194304 pre 1us on 2us post 1us diff 1us
	1MiB 8.8M/
	some prose
	EOF
	"$FLASHBENCH" --analyze -v typos.txt >out 2>err &&
	grep "^Read 1 align lines in 1 table and 0 open-AU runs; 4 lines ignored" out &&
	test "$(wc -l <err)" -eq 4 &&
	grep "^typos.txt:2: ignored, misspelt keyword \"aling\" (align?): aling 524288 pre" err &&
	grep "^typos.txt:3: ignored, a unit it does not know: \"1.2mss\": align 262144" err &&
	grep "^typos.txt:5: ignored, a unit it does not know: \"8.8M/\": 1MiB 8.8M/$" err &&
	grep "^typos.txt:6: ignored, no flashbench output: some prose$" err
'

test_expect_success 'without -v the ignored lines are only counted' '
	"$FLASHBENCH" --analyze typos.txt >out 2>err &&
	test ! -s err &&
	grep "; 4 lines ignored" out
'

test_expect_success '-v on a file with no table: the lines, then exit 1' '
	test_expect_code 1 "$FLASHBENCH" --analyze -v prose.txt >out 2>err &&
	grep "^prose.txt:1: ignored, no flashbench output: hello world$" err &&
	grep "no input to analyze" err
'

if "$FLASHBENCH" --analyze --format=json "$DATA/su08g.txt" >/dev/null 2>&1; then
	test_expect_success 'JSON: findings as numbers or null' '
		"$FLASHBENCH" --analyze "$DATA/su08g.txt" --format=json >out &&
		grep "^    \"erase_size\": {\"value\": 4194304, " out &&
		grep "^    \"page_size\": {\"value\": null, " out &&
		grep "^    \"open_au_linear\": {\"value\": 6, " out &&
		grep "^    \"open_au_random\": {\"value\": 6, " out &&
		grep "^    \"random_linear_ratio\": {\"value\": 0\.4[0-9]*, \"nr\": 2, " out &&
		grep "^    \"min_write_size\": {\"value\": null, " out &&
		grep "^    \"fat_area\": {\"value\": null, " out &&
		grep "^    {\"kind\": \"recommendation\", \"text\": " out
	'
	test_expect_success 'JSON: toshiba and sandisk counts' '
		"$FLASHBENCH" --analyze --format=json "$DATA/toshiba.txt" \
			>t.out &&
		grep "^    \"open_au_linear\": {\"value\": 7, " t.out &&
		"$FLASHBENCH" --analyze --format=json "$DATA/sandisk.txt" \
			>s.out &&
		grep "^    \"open_au_linear\": {\"value\": 20, " s.out
	'
else
	test_skip 'JSON output' '--format json is not available'
fi

test_done
