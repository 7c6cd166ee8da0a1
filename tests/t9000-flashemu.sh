#!/bin/sh
# t9000: flashemu, the simulated card as a file and, through a loop device,
# a block device.  Its bad input exits 2 like the other programs'.  As
# root with /dev/fuse it serves sim:sandisk-su08g (256 MiB of it) at time
# scale 1: flashbench -a through the loop device shows the jump at the
# 4 MiB erase block, -O slows down past the open erase blocks, a pattern
# reads back, a discard reads back as zeros, and a SIGTERM, a busy loop
# device or someone else's umount all end with nothing mounted or
# attached - also after flashbench is killed with SIGKILL mid-run.  One
# SIGTERM drains: a dd of 100 MiB through the loop device, written or
# read, signalled half-way, ends well and its bytes are right; flashemu
# exits once the loop device is detached; a second signal stops at once.
# --store=FILE keeps the data across runs, in a file or on a block
# device; one inside the mountpoint, on /proc, a FIFO, a directory or a
# character device is refused, and nothing is left of a store made for a
# run that fails.  A write-protected card (ro)
# refuses writes.  A counterfeit card (fake=), its real blocks in the
# store like any card's data (t9030 holds them to --mem-cap and --store):
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

test_expect_success '--version prints the version line' '
	"$FLASHEMU" --version >out 2>err && test ! -s err &&
	test "$(cat out)" = "flashemu 1.0" &&
	"$FLASHEMU" -V | cmp out -
'

test_expect_success 'store: in the mountpoint, /proc, a FIFO, a directory, /dev/null: exit 2' '
	mkdir -p smnt sdir/dir && mkfifo sdir/fifo &&
	ls -A smnt sdir >before &&
	inside="inside the mountpoint $(pwd -P)/smnt" &&
	emu_usage_error "--store: smnt/card: $inside \(choose a file outside it\)\$" \
		--store=smnt/card sim:size=64M smnt &&
	emu_usage_error "--store: /proc/self/mem: on proc, a kernel file system, not storage\$" \
		--store=/proc/self/mem sim:size=64M smnt &&
	not_store="not a regular file or a block device" &&
	emu_usage_error "--store: sdir/fifo: a FIFO, $not_store\$" \
		--store=sdir/fifo sim:size=64M smnt &&
	emu_usage_error "--store: sdir/dir: a directory, $not_store\$" \
		--store=sdir/dir sim:size=64M smnt &&
	emu_usage_error "--store: /dev/null: a character device, $not_store\$" \
		--store=/dev/null sim:size=64M smnt &&
	ls -A smnt sdir >after && test_cmp before after
'

# A file size limit stands for a file system too small for the card: the
# store cannot grow.  One made for the run is gone; one found is kept.
# small_fs ARGS...: flashemu ARGS where no file may grow past 512 KiB.
small_fs() {
	sh -c 'ulimit -f 1024; trap "" XFSZ; exec "$@"' sh "$FLASHEMU" "$@"
}

test_expect_success 'store: one made for a run that cannot grow it is removed, one found kept' '
	mkdir -p gmnt gdir && printf data >gdir/old.img &&
	test_expect_code 1 small_fs --store=gdir/new.img sim:size=64M gmnt \
		2>err &&
	cat err && new=$(pwd -P)/gdir/new.img &&
	test "$(cat err)" = "flashemu: store $new: cannot grow it to 67108864 bytes: File too large" &&
	test_expect_code 1 small_fs --store=gdir/old.img sim:size=64M gmnt \
		2>err &&
	test "$(ls -A gdir gmnt)" = "$(printf "gdir:\nold.img\n\ngmnt:")" &&
	test "$(cat gdir/old.img)" = data
'

# Root without its capabilities cannot mount: the run fails after the
# store is made, as anyone's does without root.
test_expect_success setpriv 'store: one made for a run whose mount fails is removed' '
	mkdir -p fmnt fdir &&
	run= && [ "$(id -u)" != 0 ] || run="setpriv --bounding-set=-all" &&
	test_expect_code 1 $run "$FLASHEMU" --store=fdir/new.img sim:size=64M \
		fmnt 2>err &&
	cat err &&
	grep -Eq "^flashemu: (open /dev/fuse|mount fuse on .*): " err &&
	grep -Eq ": (Operation not permitted|Permission denied)\$" err &&
	test -z "$(ls -A fdir fmnt | tr -d "\n:" | sed "s/fdirfmnt//")"
'

test_expect_success 'make install puts flashemu and flashemu.1 under DESTDIR' '
	make -C "$TOP" -s install DESTDIR="$TRASH/root" PREFIX=/opt/fb \
		>/dev/null &&
	test -x root/opt/fb/bin/flashemu &&
	test -f root/opt/fb/share/man/man1/flashemu.1 &&
	root/opt/fb/bin/flashemu --help | grep -q "^ flashemu \[options\]"
'

test_expect_success groff 'the man page renders without warnings' '
	groff -man -Tutf8 -ww "$TOP/doc/flashemu.1" >/dev/null 2>warn &&
	test ! -s warn || { cat warn; return 1; }
'

test_expect_success 'every long option of --help is in the man page' '
	"$FLASHEMU" --help | grep -oE -- "--[a-z][a-z0-9-]+" | sort -u >opts &&
	test -s opts && missing=0 &&
	while read -r opt; do
		grep -q -- "$(echo "${opt#--}" | sed "s/-/\\\\\\\\-/g")" \
			"$TOP/doc/flashemu.1" || { echo "man: $opt"; missing=1; }
	done <opts &&
	test $missing = 0
'

# ---- the emulator, as root with /dev/fuse and loop devices ----

# At the end, whatever a failed test left: detach, stop, unmount.
emu_cleanup() {
	for ec_name in main busy drain rdrain stop2 held idle gone store blk \
		ro cap fake; do
		emu_stop "$ec_name"
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

# stats_field FILE NAME: a number from flashemu's --stats JSON, from its
# emulator record.
stats_field() {
	grep "{\"kind\": \"emulator\", " "$1" |
		sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"
}

test_emu 'start: the ready line, and a card of the spec'\''s size' '
	emu_start main --stats="$TRASH/main.json" "$SPEC" &&
	cat "$TRASH/main.out" &&
	test "$(cat "$TRASH/main.out")" = \
		"ready $TRASH/main/card $CARD_BYTES bytes" &&
	test "$(stat -c %s "$TRASH/main/card")" = $CARD_BYTES &&
	test "$(ls "$TRASH/main")" = "$(printf "card\npower")"
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
	grep -q "^flashemu: stats: reads " "$TRASH/main.err" &&
	keep_document "$TRASH/main.json" json
'

test_emu 'stats: one unit a figure, the numbers plain, on stderr as in the JSON' '
	grep "^flashemu: stats: " "$TRASH/main.err" | tail -n 4 >lines &&
	cat lines &&
	! grep -E "[0-9](B|KiB|MiB|GiB|s|ms|ns|µs)( |\$)" lines &&
	grep -Eq " busy_ns [0-9]+( |\$)" lines &&
	grep -Eq " fuse_errors [0-9]+( |\$)" lines &&
	grep -q "\"schema\": 3," "$TRASH/main.json" &&
	grep -q "\"device\": {\"path\": \"$SPEC\", " "$TRASH/main.json"
'

test_emu 'SIGKILL of flashbench mid-run leaves the loop device detachable' '
	loop=$(cat "$TRASH/main.loop") &&
	fb_start -O -e 1M -b 512K -0 8 "$loop" &&
	poll_until "the announcement" grep -q "overwrites bytes" err &&
	kill -KILL "$fb_pid" &&
	fb_wait && test "$(cat code)" = 137 &&
	emu_detach "$loop" &&
	poll_until "the loop device detached" eval "! emu_attached main"
'

test_emu 'SIGTERM unmounts: exit 0, nothing mounted or attached, stats' '
	kill -TERM "$(cat "$TRASH/main.pid")" &&
	emu_gone main &&
	grep "^flashemu: stats: " "$TRASH/main.err" &&
	test "$(stats_field "$TRASH/main.json" writes)" -ge 1
'

DRAINING="serving until the card is released; a second signal stops at once"

test_emu 'busy: SIGTERM with a loop device attached names it, then waits' '
	emu_start busy --time-scale=100 sim:size=64M &&
	loop=$(emu_attach busy) &&
	kill -TERM "$(cat "$TRASH/busy.pid")" &&
	poll_until "the notice" grep -q "$DRAINING" "$TRASH/busy.err" &&
	cat "$TRASH/busy.err" &&
	grep -q "^flashemu: $loop still holds .*: detach it with losetup -d $loop\$" \
		"$TRASH/busy.err" &&
	! emu_ended busy &&
	dd if="$loop" bs=4K count=1 iflag=direct status=none | wc -c >n &&
	test "$(cat n)" = 4096 &&
	emu_detach "$loop" &&
	emu_gone busy
'

# halves MIB: stdin to stdout, pausing after the first MIB MiB (the file
# half says so) until a line comes through the FIFO go (a blocking read:
# no polling); the file done says all is through.  At most 60 s.
halves() {
	timeout 60 sh -c 'dd bs=1M count="$1" iflag=fullblock status=none &&
		: >half && read -r _ <go &&
		cat && : >done' sh "$1"
}

# write_halves DEV / read_halves DEV: in the background, a dd of the file
# data to DEV, or of DEV's first 100 MiB to the file back, through halves.
write_halves() {
	rm -f half go done dd.rc && mkfifo go
	{ halves 50 <data | dd of="$1" bs=1M iflag=fullblock oflag=direct \
		status=none; echo $? >dd.rc; } &
}

read_halves() {
	rm -f half go done dd.rc && mkfifo go
	{ { dd if="$1" bs=1M count=100 iflag=direct status=none;
	    echo $? >dd.rc; } | halves 50 >back; } &
}

# signal_halfway NAME SIG: once the first half is through, SIG to NAME's
# flashemu; once it says it drains, the second half goes; waits for the
# end of dd, whose exit code is in dd.rc.
signal_halfway() {
	poll_until "the first half" test -e half &&
	kill -"$2" "$(cat "$TRASH/$1.pid")" &&
	poll_until "the draining notice" grep -q "$DRAINING" "$TRASH/$1.err" &&
	timeout 60 sh -c "echo go >go" &&
	poll_until "the end of dd" eval "test -e done && test -s dd.rc" &&
	echo "dd exit $(cat dd.rc)" && test "$(cat dd.rc)" = 0
}

test_emu 'drain: a dd writing 100 MiB to the loop device outlives a SIGTERM' '
	emu_start drain --time-scale=100 sim:size=128M &&
	emu_attach drain >"$TRASH/drain.loop" &&
	loop=$(cat "$TRASH/drain.loop") &&
	head -c 104857600 /dev/urandom >data && cksum <data >want &&
	write_halves "$loop" &&
	signal_halfway drain TERM &&
	test "$(grep -c "" "$TRASH/drain.err")" = 2 &&
	grep -Fx "flashemu: SIGTERM: $DRAINING" "$TRASH/drain.err" &&
	card=$TRASH/drain/card &&
	grep -Fx "flashemu: $loop still holds $card: detach it with losetup -d $loop" \
		"$TRASH/drain.err" &&
	dd if="$loop" bs=1M count=100 iflag=direct status=none | cksum >back &&
	test_cmp want back
'

test_emu 'drain: served until the loop device is detached, then exit 0, unmounted' '
	loop=$(cat "$TRASH/drain.loop") &&
	! emu_ended drain && emu_mounted drain &&
	emu_detach "$loop" &&
	emu_gone drain &&
	test "$(grep -c "$DRAINING" "$TRASH/drain.err")" = 1
'

test_emu 'drain: a dd reading 100 MiB with iflag=direct outlives a SIGTERM' '
	emu_start rdrain --time-scale=100 sim:size=128M &&
	loop=$(emu_attach rdrain) &&
	dd if=data of="$loop" bs=1M oflag=direct status=none &&
	read_halves "$loop" &&
	signal_halfway rdrain TERM &&
	cksum <back >got && test_cmp want got &&
	! emu_ended rdrain &&
	emu_detach "$loop" &&
	emu_gone rdrain
'

test_emu 'drain: a second SIGTERM stops at once, the loop device attached' '
	emu_start stop2 --time-scale=100 sim:size=64M &&
	loop=$(emu_attach stop2) &&
	kill -TERM "$(cat "$TRASH/stop2.pid")" &&
	poll_until "the notice" grep -q "$DRAINING" "$TRASH/stop2.err" &&
	kill -TERM "$(cat "$TRASH/stop2.pid")" &&
	poll_until "flashemu exit" emu_ended stop2 &&
	cat "$TRASH/stop2.err" &&
	test "$(cat "$TRASH/stop2.rc")" = 143 &&
	grep -Fx "flashemu: SIGTERM again: stopped at once; I/O on the card \
fails from now on" "$TRASH/stop2.err" &&
	! emu_mounted stop2 &&
	test -e "/sys/block/${loop#/dev/}/loop/backing_file" &&
	test_expect_code 1 dd if="$loop" of=/dev/null bs=4K count=1 \
		iflag=direct status=none &&
	emu_detach "$loop"
'

test_emu 'drain: SIGINT while a process has the card open: served until closed' '
	emu_start held --time-scale=100 sim:size=64M &&
	exec 5<>"$TRASH/held/card" &&
	kill -INT "$(cat "$TRASH/held.pid")" &&
	poll_until "the notice" grep -q "$DRAINING" "$TRASH/held.err" &&
	test "$(cat "$TRASH/held.err")" = "flashemu: SIGINT: $DRAINING" &&
	dd bs=4K count=2 status=none <&5 | wc -c >n &&
	test "$(cat n)" = 8192 &&
	! emu_ended held &&
	exec 5>&- &&
	emu_gone held
'

test_emu 'drain: SIGINT with nothing holding the card exits at once, 0' '
	emu_start idle --time-scale=100 sim:size=64M &&
	kill -INT "$(cat "$TRASH/idle.pid")" &&
	emu_gone idle &&
	! grep "$DRAINING" "$TRASH/idle.err"
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

test_emu 'store: a block device holds the card; a smaller one is refused' '
	dev=$(make_loop 64M) && small=$(make_loop 32M) &&
	mkdir -p "$TRASH/blk" &&
	emu_usage_error "--store: $small: a block device of 33554432 bytes, \
smaller than the card \(67108864 bytes\)\$" --store="$small" sim:size=64M \
		"$TRASH/blk" &&
	head -c 65536 /dev/urandom >pattern &&
	emu_start blk --time-scale=100 --store="$dev" sim:size=64M &&
	dd if=pattern of="$TRASH/blk/card" bs=64K seek=100 oflag=direct \
		conv=notrunc status=none &&
	kill -TERM "$(cat "$TRASH/blk.pid")" && emu_gone blk &&
	dd if="$dev" bs=64K skip=100 count=1 iflag=direct status=none |
		cmp pattern -
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
