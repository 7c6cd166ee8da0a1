#!/bin/sh
# t2950: -o and --plot write to files: regular files (new or not), FIFOs
# and pipes, character devices such as /dev/null.  A block device - the
# device under test or another, named directly or through a symlink - a
# directory, or a file the run reads is refused before any I/O: exit 2,
# the one-line message and the --help hint, nothing written anywhere.

. "$(dirname "$0")/lib.sh"

if have_loop; then
	loop_setup LOOP 64M
	loop_setup OTHER 64M
fi

# sums: one line per device, its checksum, into the file $1
sums() {
	{ dev_sum "$LOOP" && dev_sum "$OTHER"; } >"$1"
}

test_loop 'loop: setup: both devices hold random data' '
	fill_random "$LOOP" &&
	fill_random "$OTHER" &&
	sums "$TRASH/sums.start" &&
	test "$(sort -u "$TRASH/sums.start" | wc -l)" = 2
'

test_loop '-o on the device under test is refused, nothing written' '
	test_usage_error flashbench \
		"^-o: $LOOP: is a block device; give a file\$" \
		-a -o "$LOOP" "$LOOP" &&
	sums after &&
	test_cmp "$TRASH/sums.start" after
'

test_loop '-o on another block device is refused, by a write test too, before it announces' '
	test_usage_error flashbench \
		"^-o: $OTHER: is a block device; give a file\$" \
		-a -c 1 -o "$OTHER" "$LOOP" &&
	test_usage_error flashbench \
		"^-o: $OTHER: is a block device; give a file\$" \
		-O -e 1M -b 512K -o "$OTHER" "$LOOP" &&
	sums after &&
	test_cmp "$TRASH/sums.start" after
'

test_loop '--plot on a block device is refused, directly or through a symlink' '
	test_usage_error flashbench \
		"^--plot: $LOOP: is a block device; give a file\$" \
		-a -c 1 --plot="$LOOP" "$LOOP" &&
	ln -s "$OTHER" chart.svg &&
	test_usage_error flashbench \
		"^--plot: chart.svg: is a block device; give a file\$" \
		-a -c 1 --plot=chart.svg "$LOOP" &&
	ln -s "$OTHER" results.txt &&
	test_usage_error flashbench \
		"^-o: results.txt: is a block device; give a file\$" \
		-a -c 1 -o results.txt "$LOOP" &&
	sums after &&
	test_cmp "$TRASH/sums.start" after
'

test_loop 'results on a standard output that is a block device are refused' '
	test_expect_code 2 "$FLASHBENCH" -a -c 1 "$LOOP" >"$OTHER" 2>err &&
	cat >expect <<-EOF &&
	flashbench: standard output is a block device; give a file with -o
	Try '\''flashbench --help'\'' for more information.
	EOF
	test_cmp expect err &&
	sums after &&
	test_cmp "$TRASH/sums.start" after
'

test_expect_success '-o and --plot on a directory are refused' '
	mkdir dir &&
	test_usage_error flashbench "^-o: dir: is a directory; give a file\$" \
		-a sim: -o dir &&
	test_usage_error flashbench \
		"^--plot: dir: is a directory; give a file\$" -a --plot=dir sim:
'

test_expect_success '-o on the image file under test is refused, the image kept' '
	head -c 4M /dev/urandom >image &&
	cp image image.orig &&
	test_usage_error flashbench \
		"^-o: image: is the device under test; give another file\$" \
		-a -c 1 -o image image &&
	ln -s image link &&
	test_usage_error flashbench \
		"^--plot: link: is the device under test; give another file\$" \
		-a -c 1 --plot=link image &&
	cmp image image.orig
'

test_expect_success '--plot over one of the runs it draws, or over -o, is refused' '
	"$FLASHBENCH" -a -c 1 --format=json sim: >run.json &&
	cp run.json run.orig &&
	test_usage_error flashbench \
		"^--plot: run.json: is one of the runs to draw; give another file\$" \
		--plot=run.json run.json &&
	cmp run.json run.orig &&
	test_usage_error flashbench \
		"^--plot: same: is the -o file too; give another file\$" \
		-a -c 1 -o same --plot=same sim: &&
	test ! -s same
'

test_expect_success '-o with an empty name is refused' '
	test_usage_error flashbench "^-o: the file name is empty\$" -a -o "" sim:
'

test_expect_success '-o on an existing, longer file leaves only the results' '
	"$FLASHBENCH" -a -c 1 sim: >expect &&
	head -c 100000 /dev/urandom >results &&
	"$FLASHBENCH" -a -c 1 -o results sim: >out &&
	test ! -s out &&
	test_cmp expect results
'

test_expect_success '-o /dev/null takes the results, and /dev/null stays' '
	"$FLASHBENCH" -a -c 1 -o /dev/null sim: >out 2>err &&
	test ! -s out &&
	test ! -s err &&
	test -c /dev/null
'

test_expect_success bash '-o >(cat): a pipe that /dev/fd names gets the results' '
	"$FLASHBENCH" -a -c 1 sim: >expect &&
	bash -c "\"\$0\" -a -c 1 -o >(cat >piped) sim: && wait \$!" \
		"$FLASHBENCH" &&
	test_cmp expect piped
'

# to_fifo FIFO OUT ARGS...: flashbench ARGS writing into FIFO, which a
# reader started first copies to OUT; a run that fails opens FIFO itself,
# so the reader never waits for a writer that is not coming.
to_fifo() {
	tf_fifo=$1
	tf_out=$2
	shift 2
	cat "$tf_fifo" >"$tf_out" &
	tf_reader=$!
	if ! "$FLASHBENCH" "$@"; then
		: >"$tf_fifo"
		wait $tf_reader
		return 1
	fi
	wait $tf_reader
}

test_expect_success mkfifo '-o and --plot to a FIFO with a reader' '
	"$FLASHBENCH" -a -c 1 --plot=expect.svg sim: >expect &&
	mkfifo results.fifo chart.fifo &&
	to_fifo results.fifo got -a -c 1 -o results.fifo sim: &&
	test_cmp expect got &&
	to_fifo chart.fifo got.svg -a -c 1 --plot=chart.fifo sim: \
		>/dev/null &&
	test_cmp expect.svg got.svg
'

test_expect_success 'a refused --decode-cid leaves the -o file as it was' '
	echo keep >kept &&
	test_usage_error flashbench "^cid: " --decode-cid=zz -o kept &&
	echo keep >expect &&
	test_cmp expect kept
'

test_expect_success '-o - and --plot=- name standard output' '
	"$FLASHBENCH" -a -c 1 sim: >expect &&
	"$FLASHBENCH" -a -c 1 -o - sim: >got &&
	test_cmp expect got &&
	test ! -e ./- &&
	"$FLASHBENCH" -a -c 1 --format=json sim: >run.json &&
	"$FLASHBENCH" --plot=saved.svg run.json &&
	"$FLASHBENCH" --plot=- run.json >got.svg &&
	test_cmp saved.svg got.svg &&
	"$FLASHBENCH" -a -c 1 --plot=- -o results sim: >got.svg &&
	grep -q "<svg" got.svg &&
	test_cmp expect results &&
	test ! -e ./-
'

test_expect_success '--plot=- beside results on standard output is refused' '
	test_usage_error flashbench \
		"^--plot: - is standard output, where the results go too; give the results a file with -o\$" \
		-a -c 1 --plot=- sim: &&
	test_usage_error flashbench \
		"^--plot: - is standard output, where the results go too; give the results a file with -o\$" \
		-a -c 1 --plot=- -o - sim:
'

test_done
