#!/bin/sh
# t6110: what sits at an attribute's path in a --sysfs-root or
# --debugfs-root tree cannot hang or flood a run.  A FIFO, a directory or
# a file larger than any attribute (4096 bytes) is not read: the value is
# unknown and the path is reported with why, as an "unreadable" record
# (debugfs's ios in the link's reason).  Each run is under timeout (KILL
# 5 s after its TERM, which a run catching signals may outlast) and must
# end by itself: exit code 124 or 137 is the timeout's, a hang.

. "$(dirname "$0")/lib.sh"

SYSFS=$TESTS_DIR/sysfs
DEBUGFS=$TESTS_DIR/debugfs

require python3 mkfifo

# trees: copies of the gemini-resume sysfs and debugfs trees in TRASH,
# DISK the disk's directory in the copy (where block/mmcblk1 leads)
trees() {
	rm -rf tree debug &&
	cp -r "$SYSFS/gemini-resume" tree &&
	cp -r "$DEBUGFS/gemini-resume" debug &&
	DISK=$(cd tree/block/mmcblk1 && pwd -P)
}

# info [ARGS...]: --info on the copies, under timeout 10; stdout in out,
# stderr in err, the exit code in code (never 124: it ended by itself)
info() {
	timeout -k 5 10 "$FLASHBENCH" --info --sysfs-root=tree \
		--debugfs-root=debug "$@" /dev/mmcblk1 >out 2>err
	echo $? >code
	cat err
	if [ "$(cat code)" = 124 ] || [ "$(cat code)" = 137 ]; then
		echo "--info did not end by itself" >&2
		return 1
	fi
	test "$(cat code)" = 0
}

# unreadable_lines PATH WHY: the text lines of one unreadable attribute
unreadable_lines() {
	printf 'unreadable:\n  %-25s %s\n  %-25s %s\n' path: "$1" why: "$2"
}

test_expect_success 'a FIFO at a sysfs attribute (the disk size): said, with its path' '
	trees &&
	rm tree/block/mmcblk1/size &&
	mkfifo tree/block/mmcblk1/size &&
	info &&
	grep -x "  size: *unknown" out &&
	unreadable_lines "$DISK/size" "not a regular file (a FIFO)" >expect &&
	sed -n "/^unreadable:/,\$p" out >got &&
	test_cmp expect got &&
	grep -x "  logical block size: *512" out
'

test_expect_success 'a FIFO at debugfs mmc1/ios: the link says so, no ceiling' '
	trees &&
	rm debug/mmc1/ios &&
	mkfifo debug/mmc1/ios &&
	info &&
	grep -x "  why: *the host.s bus mode is not known: debug/mmc1/ios cannot be read: not a regular file (a FIFO)" out &&
	grep -x "  ceiling: *unknown" out &&
	! grep "^unreadable:" out
'

test_expect_success 'JSON: an unreadable record per attribute, the link reason' '
	trees &&
	rm tree/block/mmcblk1/size debug/mmc1/ios &&
	mkfifo tree/block/mmcblk1/size debug/mmc1/ios &&
	info --format=json &&
	python3 - out "$DISK" <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	kinds = [r["kind"] for r in doc["results"]]
	assert kinds[-1] == "unreadable" and kinds.count("unreadable") == 1, kinds
	u = doc["results"][-1]["unreadable"]
	assert u == {"path": sys.argv[2] + "/size",
		     "reason": "not a regular file (a FIFO)"}, u
	device = [r for r in doc["results"] if r["kind"] == "device"][0]
	assert device["size_bytes"] is None, device
	link = [r for r in doc["results"] if r["kind"] == "link"][0]["link"]
	assert link["reason"].endswith(
	    "debug/mmc1/ios cannot be read: not a regular file (a FIFO)"), link
	PY
'

test_expect_success 'a 1 TiB attribute is reported, not read; 4096 bytes still are' '
	trees &&
	rm tree/block/mmcblk1/size &&
	truncate -s 1T tree/block/mmcblk1/size &&
	info &&
	unreadable_lines "$DISK/size" \
		"larger than 4096 bytes, more than any attribute holds" \
		>expect &&
	sed -n "/^unreadable:/,\$p" out >got &&
	test_cmp expect got &&
	printf "%-4095s\n" 125042688 >tree/block/mmcblk1/size &&
	test "$(wc -c <tree/block/mmcblk1/size)" = 4096 &&
	info &&
	grep -x "  size: *64021856256 (59.62 GiB)" out &&
	! grep "^unreadable:" out &&
	printf "%-4096s\n" 125042688 >tree/block/mmcblk1/size &&
	info &&
	grep -x "  size: *unknown" out &&
	grep -x "  why: *larger than 4096 bytes, more than any attribute holds" out
'

test_expect_success 'a directory at an attribute path, and at ios, is no attribute' '
	trees &&
	rm tree/block/mmcblk1/removable debug/mmc1/ios &&
	mkdir tree/block/mmcblk1/removable debug/mmc1/ios &&
	info &&
	unreadable_lines "$DISK/removable" \
		"not a regular file (a directory)" >expect &&
	sed -n "/^unreadable:/,\$p" out >got &&
	test_cmp expect got &&
	grep "debug/mmc1/ios cannot be read: not a regular file (a directory)$" out
'

test_expect_success 'the card registers as FIFOs: each one said, the rest still read' '
	trees &&
	card=$DISK/device &&
	for r in cid csd scr ssr; do
		rm "$card/$r" && mkfifo "$card/$r" || return 1
	done &&
	info &&
	test "$(grep -c "^unreadable:" out)" = 4 &&
	for r in cid csd scr ssr; do
		grep -x "  path: *$card/$r" out || return 1
	done &&
	grep -x "  size: *64021856256 (59.62 GiB)" out
'

test_expect_success 'past 8 unreadable attributes, the eighth says how many more' '
	trees &&
	for a in size removable ro queue/discard_granularity \
		queue/discard_max_bytes queue/logical_block_size \
		queue/minimum_io_size queue/optimal_io_size \
		queue/physical_block_size queue/rotational; do
		rm "$DISK/$a" && mkfifo "$DISK/$a" || return 1
	done &&
	info &&
	test "$(grep -c "^unreadable:" out)" = 8 &&
	test "$(grep -c -x "  why: *not a regular file (a FIFO)" out)" = 7 &&
	tail -n 1 out >got &&
	printf "  %-25s %s\n" why: "not a regular file (a FIFO); 2 more attributes could not be read" >expect &&
	test_cmp expect got
'

# tree_for_loop DEV: a copy of gemini-resume in which the loop device
# DEV's number leads to the card, as t6100 makes it
tree_for_loop() {
	trees &&
	mkdir -p tree/dev/block &&
	ln -s "../../$(cd tree && readlink block/* | sed 's|^\.\./||')" \
		"tree/dev/block/$(lsblk -dno MAJ:MIN "$1" | tr -d " ")"
}

test_loop lsblk '-t on a device whose tree has FIFOs: it ends, and reads' '
	dev=$(make_loop 64M) &&
	tree_for_loop "$dev" &&
	rm tree/block/mmcblk1/size debug/mmc1/ios &&
	mkfifo tree/block/mmcblk1/size debug/mmc1/ios &&
	timeout -k 5 10 "$FLASHBENCH" -t --time=0.2 --sysfs-root=tree \
		--debugfs-root=debug "$dev" >out 2>err
	code=$? &&
	cat out err &&
	test "$code" = 0 &&
	# --time is a floor: the run ends after the block that passes it
	grep -E "^read 1048576-byte blocks for (2[0-9][0-9]ms|[0-9.]+s): [0-9]* MB/s" out &&
	grep "^link: the host.s bus mode is not known: debug/mmc1/ios cannot be read: not a regular file (a FIFO)" out
'

test_loop '--class-check with a FIFO at queue/nr_requests: it ends' '
	dev=$(make_loop 64M) &&
	name=${dev##*/} &&
	mkdir -p "hq/block/$name/queue" &&
	mkfifo "hq/block/$name/queue/nr_requests" &&
	timeout -k 5 20 "$FLASHBENCH" --class-check --time=0.1 --sysfs-root=hq \
		"$dev" >out 2>err
	code=$? &&
	cat err &&
	test "$code" = 0 &&
	grep -x "host queue: cannot tell: the device is not in sysfs" out
'

test_done
