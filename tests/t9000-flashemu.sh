#!/bin/sh
# t9000: flashemu, the simulated card as a file and, through a loop device,
# a block device.  Its bad input exits 2 like the other programs'.  As
# root with /dev/fuse it serves sim:sandisk-su08g (256 MiB of it) at time
# scale 1: flashbench -a through the loop device shows the jump at the
# 4 MiB erase block, -O slows down past the open erase blocks, a pattern
# reads back, a discard reads back as zeros, and a SIGTERM, a busy loop
# device or someone else's umount all end with nothing mounted or
# attached - also after flashbench is killed with SIGKILL mid-run.
# --store=FILE keeps the data across runs; a write-protected card (ro)
# refuses writes.  A counterfeit card (fake=) keeps its data in the model:
# through the loop device, --capacity-check finds its real end, and every
# byte it overwrote reads back as before.

. "$(dirname "$0")/lib.sh"

# beside the flashbench under test (the sanitized build's, say), else the
# tree's
FLASHEMU=${FLASHEMU:-$(dirname "$FLASHBENCH")/flashemu}
[ -x "$FLASHEMU" ] || FLASHEMU=$TOP/flashemu
SPEC=sim:sandisk-su08g,size=256M
CARD_BYTES=268435456

# emu_usage_error REGEX ARGS...: flashemu ARGS exits 2 with nothing on
# stdout and two lines on stderr: "flashemu: MESSAGE" (MESSAGE matching
# REGEX) and the --help hint.
emu_usage_error() {
	eue_re=$1
	shift
	"$FLASHEMU" "$@" >usage.out 2>usage.err </dev/null
	eue_code=$?
	cat usage.err
	test "$eue_code" = 2 && test ! -s usage.out &&
	test "$(wc -l <usage.err)" = 2 &&
	head -n 1 usage.err | grep -Eq -- "^flashemu: $eue_re" &&
	test "$(sed -n 2p usage.err)" = \
		"Try 'flashemu --help' for more information."
}

test_expect_success 'bad input: a spec that is not sim: exits 2' '
	mkdir -p mnt &&
	emu_usage_error "spec .* is not a simulated card" /dev/sda mnt
'

test_expect_success 'bad input: an unknown sim: key exits 2' '
	mkdir -p mnt &&
	emu_usage_error "sim: unknown key .bogus." sim:bogus=1 mnt
'

test_expect_success 'bad input: --time-scale=0 and a missing argument exit 2' '
	mkdir -p mnt &&
	emu_usage_error "--time-scale .0. is not a positive number" \
		--time-scale=0 sim: mnt &&
	emu_usage_error "expected <spec> <mountpoint>, got 1 argument" sim:
'

test_expect_success 'bad input: a missing or non-empty mountpoint exits 2' '
	emu_usage_error "mountpoint nowhere: No such file" sim: nowhere &&
	mkdir -p full && : >full/file &&
	emu_usage_error "mountpoint full: not empty" sim: full
'

test_expect_success 'make install puts flashemu and flashemu.1 under DESTDIR' '
	make -C "$TOP" -s install DESTDIR="$TRASH/root" PREFIX=/opt/fb \
		>/dev/null &&
	test -x root/opt/fb/bin/flashemu &&
	test -f root/opt/fb/share/man/man1/flashemu.1 &&
	root/opt/fb/bin/flashemu --help | grep -q "^ flashemu \[options\]"
'

test_expect_success groff 'the man page renders without warnings' '
	groff -man -Tutf8 -ww "$TOP/flashemu.1" >/dev/null 2>warn &&
	test ! -s warn || { cat warn; return 1; }
'

test_expect_success 'every long option of --help is in the man page and README' '
	"$FLASHEMU" --help | grep -oE -- "--[a-z][a-z0-9-]+" | sort -u >opts &&
	test -s opts && missing=0 &&
	while read -r opt; do
		grep -q -- "$(echo "${opt#--}" | sed "s/-/\\\\\\\\-/g")" \
			"$TOP/flashemu.1" || { echo "man: $opt"; missing=1; }
		grep -q -- "$opt" "$TOP/README.md" ||
			{ echo "README: $opt"; missing=1; }
	done <opts &&
	test $missing = 0
'

# ---- the emulator, as root with /dev/fuse and loop devices ----

have_emu() {
	[ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && have_loop
}

# test_emu NAME BODY: like test_loop, also needing /dev/fuse.
test_emu() {
	if have_emu; then
		test_expect_success "$@"
	elif [ "${FLASHBENCH_REQUIRE_LOOP:-0}" = 1 ] && [ "$(id -u)" = 0 ]
	then
		test_count=$((test_count + 1))
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1 (/dev/fuse or loop devices" \
			"required but unavailable)"
	else
		test_skip "$1" "needs root, /dev/fuse and loop devices"
	fi
}

# emu_start NAME ARGS...: flashemu ARGS NAME-mountpoint in the
# background, bounded by a timeout; its pid in $TRASH/NAME.pid, output in
# NAME.out and NAME.err, exit code in NAME.rc once it ends.  Returns when
# it printed its ready line.
emu_start() {
	es_name=$TRASH/$1
	shift
	rm -f "$es_name.pid" "$es_name.rc"
	mkdir -p "$es_name"
	(
		timeout -k 5 120 sh -c 'echo $$ >"$0.pid.new" &&
			mv "$0.pid.new" "$0.pid" && exec "$@"' "$es_name" \
			"$FLASHEMU" "$@" "$es_name" >"$es_name.out" \
			2>"$es_name.err" </dev/null
		echo $? >"$es_name.rc"
	) &
	poll_until "flashemu pid" test -s "$es_name.pid" &&
	fb_pid=$(cat "$es_name.pid") &&
	poll_until "ready line" grep -q "^ready " "$es_name.out"
}

# emu_attach NAME: a loop device on NAME's card, direct I/O; printed, and
# detached when the script ends.
emu_attach() {
	ea_dev=$(losetup -f --show --direct-io=on "$TRASH/$1/card") &&
	echo "$ea_dev" >>"$TRASH/.loops" &&
	echo "$ea_dev"
}

emu_mounted() {
	awk -v m="$TRASH/$1" '$5 == m { found = 1 } END { exit !found }' \
		/proc/self/mountinfo
}

emu_attached() {
	test -n "$(losetup -j "$TRASH/$1/card" 2>/dev/null)"
}

emu_ended() {
	test -s "$TRASH/$1.rc"
}

# emu_gone NAME: it exited 0, nothing is mounted on its directory and no
# loop device holds its card.
emu_gone() {
	fb_pid=
	poll_until "flashemu exit" emu_ended "$1" &&
	echo "flashemu exit $(cat "$TRASH/$1.rc")" &&
	test "$(cat "$TRASH/$1.rc")" = 0 &&
	! emu_mounted "$1" && ! emu_attached "$1"
}

# At the end, whatever a failed test left: detach, stop, unmount.
emu_cleanup() {
	for ec_name in main busy gone store ro cap fake; do
		[ -d "$TRASH/$ec_name" ] || continue
		losetup -j "$TRASH/$ec_name/card" 2>/dev/null | cut -d: -f1 |
		while read -r ec_dev; do losetup -d "$ec_dev"; done
		if [ -s "$TRASH/$ec_name.pid" ] && ! emu_ended "$ec_name"; then
			kill -TERM "$(cat "$TRASH/$ec_name.pid")"
			fb_pid=
			poll_until "flashemu exit" emu_ended "$ec_name" ||
				kill -KILL "$(cat "$TRASH/$ec_name.pid")"
		fi
		emu_mounted "$ec_name" && umount -l "$TRASH/$ec_name"
	done
}
test_at_exit emu_cleanup

# diff_ns FILE ALIGN: the diff column of -a's line for ALIGN, in ns.
diff_ns() {
	time_ns "$(awk -v a="$2" '$2 == a { print $NF }' "$1")"
}

# rate_of FILE SIZE: -O's rate on the line for SIZE, in bytes per second.
rate_of() {
	rate_bps "$(awk -v s="$2" '$1 == s { print $2 }' "$1")"
}

# stats_field FILE NAME: a number from flashemu's --stats JSON.
stats_field() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1"
}

test_emu 'start: the ready line, and a card of the spec'\''s size' '
	emu_start main --stats="$TRASH/main.json" "$SPEC" &&
	cat "$TRASH/main.out" &&
	test "$(cat "$TRASH/main.out")" = \
		"ready $TRASH/main/card $CARD_BYTES bytes" &&
	test "$(stat -c %s "$TRASH/main/card")" = $CARD_BYTES &&
	test "$(ls "$TRASH/main")" = card
'

test_emu 'start: a mountpoint already mounted is refused with exit 2' '
	emu_usage_error "mountpoint .*: already mounted" "$SPEC" \
		"$TRASH/main"
'

test_emu 'loop: losetup attaches the card with direct I/O' '
	emu_attach main >"$TRASH/main.loop" &&
	loop=$(cat "$TRASH/main.loop") && echo "$loop" &&
	test "$(blockdev --getsize64 "$loop")" = $CARD_BYTES
'

# median_diff FILE LO HI: the median diff, in ns, of -a's lines for
# alignments in [LO, HI].
median_diff() {
	awk -v lo="$2" -v hi="$3" '$2 >= lo && $2 <= hi { print $NF }' "$1" |
	while read -r md_t; do
		time_ns "$md_t"
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# The jump is the model's au-cross cost (100 us), well above a FUSE round
# trip, which pre, on and post all pay alike.  Each figure is the fastest
# of 24 reads (-c), and the host's noise is judged by medians: of the
# lines below the erase block (reads that cross no erase block boundary),
# and of those from it up.
test_emu 'loop: -a at time scale 1 jumps at the 4 MiB erase block' '
	loop=$(cat "$TRASH/main.loop") &&
	"$FLASHBENCH" -a -b 1024 -c 24 "$loop" >out &&
	"$FLASHBENCH" -a -b 1024 -c 24 "$SPEC" >model &&
	test_lines_match out "$ALIGN_RE" &&
	want=$(diff_ns model 4194304) &&
	small=$(median_diff out 0 2097152) &&
	big=$(median_diff out 4194304 134217728) &&
	at=$(diff_ns out 4194304) &&
	echo "model: $want ns at 4MiB; loop: $at ns at 4MiB," \
		"median $big ns from 4MiB up, $small ns below" &&
	awk -v a="$at" -v b="$big" -v s="$small" -v w="$want" "BEGIN {
		exit !(a - s > 0.5 * w && b - s > 0.5 * w && b - s < 1.5 * w) }"
'

test_emu 'loop: -O with more erase blocks than the card keeps open is slower' '
	loop=$(cat "$TRASH/main.loop") &&
	"$FLASHBENCH" -O -e 1M -b 512K -0 2 "$loop" >two 2>err &&
	"$FLASHBENCH" -O -e 1M -b 512K -0 8 "$loop" >eight 2>err &&
	fast=$(rate_of two 512KiB) && slow=$(rate_of eight 512KiB) &&
	echo "2 blocks $fast B/s, 8 blocks $slow B/s" &&
	awk -v f="$fast" -v s="$slow" "BEGIN { exit !(s * 1.6 < f) }"
'

test_emu 'loop: a pattern written with dd oflag=direct reads back' '
	loop=$(cat "$TRASH/main.loop") &&
	head -c 1048576 /dev/urandom >pattern &&
	dd if=pattern of="$loop" bs=64K seek=1024 oflag=direct \
		status=none &&
	dd if="$loop" bs=64K skip=1024 count=16 iflag=direct status=none \
		>back &&
	cmp pattern back &&
	dd if="$TRASH/main/card" bs=64K skip=1024 count=16 iflag=direct \
		status=none | cmp pattern -
'

test_emu 'loop: blkdiscard punches the range: it reads back as zeros' '
	loop=$(cat "$TRASH/main.loop") &&
	blkdiscard -o 64M -l 1M "$loop" &&
	dd if="$loop" bs=64K skip=1024 count=16 iflag=direct status=none \
		>back &&
	head -c 1048576 /dev/zero | cmp - back
'

test_emu 'stats: SIGUSR1 writes the JSON: the discard and the writes count' '
	rm -f "$TRASH/main.json" &&
	kill -USR1 "$(cat "$TRASH/main.pid")" &&
	poll_until "stats file" test -s "$TRASH/main.json" &&
	cat "$TRASH/main.json" &&
	test "$(stats_field "$TRASH/main.json" discards)" -ge 1 &&
	test "$(stats_field "$TRASH/main.json" bytes_written)" -ge 1048576 &&
	test "$(stats_field "$TRASH/main.json" fuse_max_write_bytes)" \
		-ge 131072 &&
	grep -q "^flashemu: stats: reads " "$TRASH/main.err"
'

test_emu 'SIGKILL of flashbench mid-run leaves the loop device detachable' '
	loop=$(cat "$TRASH/main.loop") &&
	fb_start -O -e 1M -b 512K -0 8 "$loop" &&
	poll_until "the announcement" grep -q "overwrites bytes" err &&
	kill -KILL "$fb_pid" &&
	fb_wait && test "$(cat code)" = 137 &&
	losetup -d "$loop" &&
	poll_until "the loop device detached" eval "! emu_attached main"
'

test_emu 'SIGTERM unmounts: exit 0, nothing mounted or attached, stats' '
	kill -TERM "$(cat "$TRASH/main.pid")" &&
	emu_gone main &&
	grep "^flashemu: stats: " "$TRASH/main.err" &&
	test "$(stats_field "$TRASH/main.json" writes)" -ge 1
'

test_emu 'busy: SIGTERM with a loop device attached names it, then waits' '
	emu_start busy --time-scale=100 sim:size=64M &&
	loop=$(emu_attach busy) &&
	kill -TERM "$(cat "$TRASH/busy.pid")" &&
	poll_until "the lazy unmount" grep -q "lazily" "$TRASH/busy.err" &&
	cat "$TRASH/busy.err" &&
	grep -q "^flashemu: $loop still holds .*: detach it with losetup -d $loop\$" \
		"$TRASH/busy.err" &&
	! emu_ended busy &&
	dd if="$loop" bs=4K count=1 iflag=direct status=none | wc -c >n &&
	test "$(cat n)" = 4096 &&
	losetup -d "$loop" &&
	emu_gone busy
'

test_emu 'gone: an umount by someone else ends flashemu cleanly' '
	emu_start gone --time-scale=100 sim:size=64M &&
	umount "$TRASH/gone" &&
	emu_gone gone
'

test_emu 'store: --store=FILE keeps the data across runs' '
	head -c 65536 /dev/urandom >pattern &&
	emu_start store --time-scale=100 --store="$TRASH/card.img" \
		sim:size=64M &&
	dd if=pattern of="$TRASH/store/card" bs=64K seek=100 oflag=direct \
		conv=notrunc status=none &&
	kill -TERM "$(cat "$TRASH/store.pid")" && emu_gone store &&
	test "$(stat -c %s "$TRASH/card.img")" = 67108864 &&
	emu_start store --time-scale=100 --store="$TRASH/card.img" \
		sim:size=64M &&
	dd if="$TRASH/store/card" bs=64K skip=100 count=1 iflag=direct \
		status=none | cmp pattern - &&
	kill -TERM "$(cat "$TRASH/store.pid")" && emu_gone store
'

test_emu 'ro: a write-protected card serves reads and refuses writes' '
	emu_start ro --time-scale=100 sim:size=64M,ro &&
	dd if="$TRASH/ro/card" bs=4K count=1 iflag=direct status=none |
		wc -c >n &&
	test "$(cat n)" = 4096 &&
	test_expect_code 1 dd if=/dev/zero of="$TRASH/ro/card" bs=4K \
		count=1 oflag=direct conv=notrunc status=none 2>err &&
	cat err && grep -q "Read-only file system" err &&
	kill -TERM "$(cat "$TRASH/ro.pid")" && emu_gone ro
'

test_emu 'cap: past --mem-cap writes fail with ENOSPC, said once' '
	emu_start cap --time-scale=100 --mem-cap=1M sim:size=64M &&
	test_expect_code 1 dd if=/dev/zero of="$TRASH/cap/card" bs=64K \
		count=32 oflag=direct conv=notrunc status=none 2>err &&
	grep -q "No space left on device" err &&
	dd if=/dev/zero of="$TRASH/cap/card" bs=64K count=16 oflag=direct \
		conv=notrunc status=none &&
	kill -TERM "$(cat "$TRASH/cap.pid")" && emu_gone cap &&
	cat "$TRASH/cap.err" &&
	test "$(grep -c "memory store is full" "$TRASH/cap.err")" = 1
'

# A wraparound fake of 256 MiB holding 150 MiB: past 150 MiB a write lands
# at offset - 150 MiB.  The check through the kernel finds the end to the
# byte, and puts back what it overwrote (the sums before and after match).
test_emu 'fake: --capacity-check through the loop device finds the real end' '
	emu_start fake --time-scale=1000 \
		sim:sandisk-su08g,size=256M,fake=150M,fake-mode=wrap &&
	dev=$(emu_attach fake) &&
	dd if=/dev/urandom of="$dev" bs=1M count=4 oflag=direct \
		status=none &&
	dd if="$dev" bs=1M count=150 iflag=direct status=none |
		cksum >before &&
	test_expect_code 3 "$FLASHBENCH" --capacity-check --cache-limit=4M \
		--undo-file="$TRASH/fake.undo" --format=json "$dev" \
		>fake.json 2>fake.err &&
	python3 - fake.json <<-\PY &&
	import json, sys
	doc = json.load(open(sys.argv[1]))
	[r] = [r for r in doc["results"] if r["kind"] == "capacity"]
	assert r["verdict"] == "fake", r
	assert r["fake_kind"] == "wraparound", r
	assert r["usable_bytes"] == 150 * 1024 * 1024, r
	assert r["announced_bytes"] == 256 * 1024 * 1024, r
	PY
	dd if="$dev" bs=1M count=150 iflag=direct status=none |
		cksum >after &&
	test_cmp before after &&
	losetup -d "$dev" &&
	kill -TERM "$(cat "$TRASH/fake.pid")" && emu_gone fake
'

test_done
