#!/bin/sh
# t2300: erase discards (or zeroes) exactly the byte range it is given,
# says which range and how long it took, and nothing else changes.  On a
# loop device a discard punches a hole, so the range reads back as zeros.

. "$(dirname "$0")/lib.sh"

head -c $MIB /dev/zero >"$TRASH/one-mib-of-zeros"


test_expect_success 'sim: erase prints the range and a time' '
	"$ERASE" sim:size=64M 16M 8M >out 2>err &&
	test ! -s err &&
	cat >expect <<-\EOT &&
	erasing bytes 16777216 to 25165823 (16MiB to 24MiB) of sim:size=64M
	EOT
	head -n 1 out >first &&
	test_cmp expect first &&
	test "$(wc -l <out)" = 2 &&
	sed -n 2p out | grep -Ex "done in $T"
'

test_expect_success 'sim: erase --zero and -z are accepted' '
	"$ERASE" --zero sim:size=64M 0 4M >out &&
	grep "^erasing bytes 0 to 4194303 " out &&
	"$ERASE" -z sim:size=64M 4M 4M >out &&
	grep "^erasing bytes 4194304 to 8388607 " out
'

test_expect_success 'erase --help prints usage on stdout, exit 0' '
	"$ERASE" --help >out 2>err &&
	test ! -s err &&
	head -n 1 out | grep "^Usage:" &&
	grep -- "--zero" out &&
	awk "length > 80 { print; bad = 1 } END { exit bad }" out
'

test_expect_success 'erase --version and -V print "erase VERSION", exit 0' '
	"$ERASE" --version >out 2>err &&
	test ! -s err &&
	"$FLASHBENCH" --version | sed "s/^flashbench /erase /" >expect &&
	test_cmp expect out &&
	"$ERASE" -V >out &&
	test_cmp expect out
'

# An image file: discard and zero-out punch a hole, which reads as zeros.
test_expect_success 'image file: erase and --zero clear exactly their MiB' '
	head -c $((8 * MIB)) /dev/urandom >image &&
	chunk_sums_quick image $MIB >before &&
	"$ERASE" image 2M 2M >out &&
	grep "^erasing bytes 2097152 to 4194303 " out &&
	"$ERASE" --zero image 6M 1M >out &&
	chunk_sums_quick image $MIB >after &&
	changed_chunks before after >changed &&
	printf "%s\n" 2 3 6 >expect &&
	test_cmp expect changed &&
	test $(wc -c <image) = $((8 * MIB)) &&
	for mib in 2 3 6; do
		dd if=image bs=$MIB skip=$mib count=1 status=none |
			cmp -s - "$TRASH/one-mib-of-zeros" || return 1
	done
'

test_expect_success 'text: the announcement, then the time the erase took' '
	"$ERASE" sim:size=64M 4M 4M >out &&
	sed -n 1p out | grep "^erasing bytes 4194304 to 8388607 (4MiB to 8MiB) of sim:size=64M\$" &&
	sed -n 2p out | grep -E "^done in [0-9.]+(ns|µs|ms|s)\$" &&
	test $(wc -l <out) = 2
'

test_expect_success python3 'erase --format=json: what, how, the bytes; the announcement on stderr' '
	"$ERASE" --format=json --zero image 1M 2M >out.json 2>err &&
	grep "^erase: erasing bytes 1048576 to 3145727 " err &&
	python3 - out.json "$(realpath image)" <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["schema"] == 3 and d["test"] == "erase", d
	assert d["device"] == {"path": "image", "size_bytes": 8 * 2**20,
	    "logical_block_bytes": 512, "identity": "file:" + sys.argv[2],
	    "name": "image"}, d["device"]
	assert d["results"] == [{"kind": "erase", "method": "zero",
	    "offset_bytes": 2**20, "length_bytes": 2 * 2**20,
	    "device_time_ns": d["results"][0]["device_time_ns"]}], d
	assert d["results"][0]["device_time_ns"] >= 0
	assert d["command"].endswith("--format=json --zero image 1M 2M")
	PY
'

test_expect_success 'erase --format=csv: one row; a bad format is refused' '
	"$ERASE" --format=csv sim:size=64M 0 4M >out.csv 2>/dev/null &&
	head -n 1 out.csv >header &&
	echo "schema,kind,method,offset_bytes,length_bytes,device_time_ns,note" \
		>expect && test_cmp expect header &&
	grep -E "^3,erase,discard,0,4194304,[0-9]+,\$" out.csv &&
	test_usage_error erase "--format: .xml. is not text, csv or json" \
		--format=xml sim: 0 4M
'

test_expect_success 'image file: --secure is refused before anything is announced' '
	chunk_sums_quick image $MIB >before &&
	test_expect_code 2 "$ERASE" --secure image 0 1M >out 2>err &&
	test ! -s out &&
	grep "^erase: --secure: image is a regular file; only a device erases securely\$" err &&
	chunk_sums_quick image $MIB >after &&
	test_cmp before after
'

# ---- loop devices ----

if have_loop; then
	loop_setup LOOP 64M
fi

# erase_checked ARGS...: fill the loop device with random data, run
# erase ARGS... (the device is added after the options), then leave out,
# err and changed (indexes of the MiB chunks that changed).
erase_checked() {
	fill_random "$LOOP" &&
	chunk_sums_quick "$LOOP" $MIB >before &&
	"$ERASE" "$@" >out 2>err &&
	cat out err &&
	chunk_sums_quick "$LOOP" $MIB >after &&
	changed_chunks before after >changed &&
	echo "changed MiB: $(tr "\n" " " <changed)"
}

# zeros DEV START_MIB COUNT_MIB: that range of DEV reads as zeros.
zeros() {
	dd if="$1" bs=$MIB skip="$2" count="$3" iflag=direct status=none |
		cmp - /dev/zero 2>&1 | grep -q "EOF on -"
}

test_loop 'loop: erase DEV 16M 8M discards exactly MiB 16 to 23' '
	test -b "$LOOP" &&
	erase_checked "$LOOP" 16M 8M &&
	seq 16 23 >expect &&
	test_cmp expect changed &&
	zeros "$LOOP" 16 8
'

test_loop 'loop: erase prints the range and a time' '
	erase_checked "$LOOP" 16M 8M &&
	test ! -s err &&
	echo "erasing bytes 16777216 to 25165823 (16MiB to 24MiB) of $LOOP" \
		>expect &&
	head -n 1 out >first &&
	test_cmp expect first &&
	test "$(wc -l <out)" = 2 &&
	sed -n 2p out | grep -Ex "done in $T"
'

test_loop 'loop: erase --zero DEV 32M 4M zeroes exactly MiB 32 to 35' '
	erase_checked --zero "$LOOP" 32M 4M &&
	seq 32 35 >expect &&
	test_cmp expect changed &&
	zeros "$LOOP" 32 4 &&
	grep "^erasing bytes 33554432 to 37748735 (32MiB to 36MiB) of $LOOP$" out &&
	sed -n 2p out | grep -Ex "done in $T"
'

test_loop 'loop: erase of the last 512 bytes changes only the last MiB' '
	erase_checked -z "$LOOP" $((64 * MIB - 512)) 512 &&
	echo 63 >expect &&
	test_cmp expect changed
'

test_loop strace 'loop: erase --zero flushes the device before it says done' '
	ASAN_OPTIONS=detect_leaks=0 strace -f -y -o trace \
		-e trace=fsync,ioctl,write "$ERASE" --zero "$LOOP" 8M 1M >out &&
	awk -v dev="$LOOP" "
		index(\$0, \"ioctl(\") && index(\$0, \"<\" dev \">\") &&
			index(\$0, \"BLKZEROOUT\") { zeroed = NR }
		index(\$0, \"fsync(\") && index(\$0, \"<\" dev \">\") &&
			zeroed && !flushed { flushed = NR }
		index(\$0, \"done in\") { done = NR }
		END {
			printf \"zero-out %d, flush %d, done %d\\n\", zeroed,
				flushed, done
			exit !(zeroed && flushed > zeroed && done > flushed)
		}" trace
'

test_loop 'loop: erase with a range past the end is refused, nothing changed' '
	fill_random "$LOOP" &&
	sum=$(dev_sum "$LOOP") &&
	test_usage_error erase "past the end" "$LOOP" 60M 8M &&
	test_usage_error erase "multiple" "$LOOP" 1000 4M &&
	test "$(dev_sum "$LOOP")" = "$sum"
'

test_done
