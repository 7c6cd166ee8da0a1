#!/bin/sh
# t2400: a mounted device is never written.  Every write test and erase
# refuse it (exit 1, one line saying it is busy or in use), the file
# system stays clean, and the read-only tests still run on it.

. "$(dirname "$0")/lib.sh"

MNT=$TRASH/mnt
ALIGN_T='-?[0-9]+(\.[0-9]+)?(ns|µs|ms|s)'

if have_loop; then
	loop_setup LOOP 64M
	mkdir -p "$MNT"
	# registered after the loop device, so it runs before the detach
	test_at_exit "umount '$MNT'"
fi


test_loop_ext4 'loop: setup: make an ext4 file system and mount it' '
	test -b "$LOOP" &&
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" &&
	mount "$LOOP" "$MNT" &&
	head -c 1M /dev/urandom >"$TRASH/payload" &&
	cp "$TRASH/payload" "$MNT/payload" &&
	sync
'

test_loop_ext4 'mounted: -O is refused' '
	refused_busy "$FLASHBENCH" -O -e 1M -b 512K "$LOOP"
'

test_loop_ext4 'mounted: -O --random is refused' '
	refused_busy "$FLASHBENCH" -O -r -e 1M -b 512K "$LOOP"
'

test_loop_ext4 'mounted: -A is refused' '
	refused_busy "$FLASHBENCH" -A -e 1M -b 64K -c 1 "$LOOP"
'

test_loop_ext4 'mounted: -f is refused' '
	refused_busy "$FLASHBENCH" -f -e 1M -b 512K --fat-nr=2 "$LOOP"
'

test_loop_ext4 'mounted: erase is refused' '
	refused_busy "$ERASE" "$LOOP" 16M 8M
'

test_loop_ext4 'mounted: erase --zero is refused' '
	refused_busy "$ERASE" --zero "$LOOP" 16M 8M
'

test_loop_ext4 'mounted: -a still runs' '
	"$FLASHBENCH" -a -b 1024 -c 2 "$LOOP" >out 2>err &&
	test ! -s err &&
	test "$(wc -l <out)" = 15 &&
	test_lines_match out "^align [0-9]+	pre $ALIGN_T	on $ALIGN_T	post $ALIGN_T	diff $ALIGN_T\$"
'

test_loop_ext4 'mounted: -s and -i still run' '
	"$FLASHBENCH" -s --scatter-order=3 -c 1 "$LOOP" >out &&
	test "$(wc -l <out)" = 8 &&
	"$FLASHBENCH" -i --interval-order=3 -c 2 "$LOOP" >out &&
	grep "^16384 bytes: min " out
'

test_loop_ext4 'unmounted: fsck -n finds the file system clean, data intact' '
	umount "$MNT" &&
	fsck.ext4 -n -f "$LOOP" &&
	mount -o ro "$LOOP" "$MNT" &&
	cmp "$TRASH/payload" "$MNT/payload" &&
	umount "$MNT"
'

test_done
