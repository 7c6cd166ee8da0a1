#!/bin/sh
# t2970: --report --write on a loop device full of random data leaves
# every byte as it was: run through, interrupted (SIGINT: a partial
# summary marked incomplete, exit 130), or killed (kill -9, the part and
# the report) inside each writing part, after which the undo file it
# names puts every byte back with --restore.  (A kill -9 of the report
# alone leaves the part to put its range back: t8030.)  An undo file
# --report --write cannot use is refused in --capacity-check's words:
# on the device under test, on a read-only file system.

. "$(dirname "$0")/lib.sh"

UNDO=$TRASH/report.undo
ARGS="--write -e 1M --budget=1 --time=1 --span=32M --undo-file=$UNDO"

MNT=$TRASH/mnt
RO=$TRASH/ro

if have_loop; then
	loop_setup LOOP 320M
	loop_setup MLOOP 64M
	mkdir -p "$MNT" "$RO"
	test_at_exit "umount '$MNT'; umount '$RO'"
fi

# refused_alike LINE DEVICE UNDO: --capacity-check and --report --write
# refuse the undo file UNDO for DEVICE in the same words (LINE, then the
# hint), exit 2, the file not made
refused_alike() {
	test_expect_code 2 "$FLASHBENCH" --capacity-check --undo-file="$3" \
		"$2" >cap.out 2>cap.err &&
	test_expect_code 2 "$FLASHBENCH" --report --write --time=0.2 \
		--undo-file="$3" "$2" >out 2>err &&
	cat cap.err err &&
	test_cmp cap.err err &&
	test "$(head -n 1 err)" = "$1" &&
	test "$(wc -l <err)" = 2 &&
	test ! -s out && test ! -e "$3"
}

test_loop '--report --write leaves every byte as before' '
	fill_random "$LOOP" &&
	before=$(dev_sum "$LOOP") &&
	"$FLASHBENCH" --report --write -e 1M --budget=1 --time=0.2 \
		--span=32M --undo-file="$UNDO" "$LOOP" >out 2>err &&
	grep -q "saves what it overwrites to $UNDO" err &&
	grep -q "^  open erase blocks " out &&
	test ! -e "$UNDO" &&
	test "$(dev_sum "$LOOP")" = "$before"
'

test_expect_success '--report --write on a regular file: a part that does not apply says so, every byte back' '
	head -c $((64 * MIB)) /dev/urandom >file.img &&
	before=$(cksum <file.img) &&
	"$FLASHBENCH" --report --write --budget=1 --time=0.2 \
		--undo-file="$UNDO" file.img >out 2>err &&
	test "$(grep -c "not run: the device is too small for the write probes" err)" = 2 &&
	grep -q "^== detect: flashbench --detect --budget=1 file.img ==" out &&
	grep -q "^  write  *[0-9.]* MB/s over the first [0-9.]*[KMG]iB, no fall seen: a larger write cache would hide a slower sustained rate$" out &&
	grep -x "  open erase blocks  *not determined: the detect-write part did not run: the device is too small for the write probes" out &&
	! grep "needs --write" out &&
	test ! -e "$UNDO" &&
	test "$(cksum <file.img)" = "$before"
'

# keep_rates: for each writing part of the plan in err, its put-back
# estimate in seconds per byte it may write
keep_rates() {
	sed -n "s/^  [a-z0-9-]* .*, writes up to \([0-9]*\) bytes, saved and put back in about \([0-9.]*\)\([^0-9.]*\)s\$/\1 \2 \3/p" err |
		awk "{ print \$2 * (\$3 == \"m\" ? 1e-3 : \$3 == \"\" ? 1 : 1e-6) / \$1 }"
}

# The rates are measured once, before the plan: within one plan the
# estimate follows the bytes each part may write, whatever the machine's
# load made of those rates.
test_expect_success '--report --write: the plan counts saving and putting back each writing part, in proportion to the bytes it may write' '
	head -c $((96 * MIB)) /dev/urandom >file.img &&
	# its exit status is not the point (--detect --write may find an
	# erase size too large for this file and fail)
	"$FLASHBENCH" --report --write --budget=1 --time=0.1 --span=8M \
		--undo-file="$UNDO" file.img >/dev/null 2>err
	test ! -e "$UNDO" &&
	keep_rates >rates &&
	cat rates &&
	test "$(wc -l <rates)" -ge 5 &&
	awk "NR == 1 { first = \$1 } { if (\$1 <= 0 || \$1 < first * 0.95 || \$1 > first * 1.05) bad = 1 } END { exit bad }" rates &&
	grep "^flashbench: --report runs [0-9]* parts, about [0-9]* s: [0-9]* s of the parts. device time and [0-9]* s to save and put back what they overwrite:\$" err &&
	grep "^flashbench: --report: saving and putting back are timed by the device.s reads at " err
'

test_loop '--report --write on a read-only loop device: refused as --write-speed refuses it, before any part' '
	ro=$(make_loop 64M -r) &&
	test_expect_code 1 "$FLASHBENCH" --write-speed "$ro" >ws.out 2>ws.err &&
	grep -x "flashbench: $ro: device is read-only; this test writes" ws.err &&
	test_expect_code 1 "$FLASHBENCH" --report --write --time=0.2 \
		--undo-file="$UNDO" "$ro" >out 2>err &&
	test_cmp ws.err err &&
	test ! -s out &&
	test ! -e "$UNDO"
'

test_loop_ext4 '--report --write and --capacity-check refuse an undo file on the device under test in the same line' '
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$MLOOP" &&
	mount "$MLOOP" "$MNT" &&
	refused_alike "flashbench: --undo-file: the undo file $MNT/x.undo would be on $MLOOP itself; put it on another device" \
		"$MLOOP" "$MNT/x.undo" &&
	umount "$MNT"
'

test_loop '--report --write and --capacity-check refuse an undo file on a read-only file system in the same line' '
	mount -t tmpfs -o ro,mode=0755 tmpfs "$RO" &&
	refused_alike "flashbench: --undo-file: $RO/x.undo: Read-only file system" \
		"$LOOP" "$RO/x.undo" &&
	umount "$RO"
'

# killed_in PART: kill -9 inside PART, of the part and then of the
# report (held stopped meanwhile: it would put the range back itself),
# then --restore: every byte back
killed_in() {
	rm -f "$UNDO" &&
	fill_random "$LOOP" &&
	before=$(dev_sum "$LOOP") &&
	fb_start --report $ARGS "$LOOP" &&
	report_in_part "$1" &&
	kill_report_and_part && fb_wait >/dev/null &&
	test "$(cat code)" = 137 &&
	echo "killed; the undo file:" && ls -l "$UNDO" &&
	test "$(dev_sum "$LOOP")" != "$before" &&
	"$FLASHBENCH" --restore="$UNDO" "$LOOP" &&
	test "$(dev_sum "$LOOP")" = "$before"
}

for part in detect-write iops iops-qd32 class-check capacity-check; do
	test_loop_io "kill -9 in $part, then --restore: every byte back" "
		killed_in $part
	"
done

# write-speed writes its range once: on the loop device, milliseconds,
# too soon over to be killed in; on an emulated card whose range is slow
# (run 4 times faster than its model) writing and putting it back take
# seconds, so it is killed inside, whatever the machine's load
test_emu 'kill -9 in write-speed (a slow emulated card), then --restore: every byte back' '
	emu_start emu --time-scale=4 sim:size=64M,fake=64M,slow=16M+32M:2M &&
	dev=$(emu_attach emu) &&
	LOOP=$dev killed_in write-speed &&
	emu_detach "$dev" &&
	emu_stop emu
'

test_loop_io 'SIGINT in a writing part: partial summary, every byte back' '
	rm -f "$UNDO" &&
	fill_random "$LOOP" &&
	before=$(dev_sum "$LOOP") &&
	fb_start --report $ARGS "$LOOP" &&
	report_in_part write-speed &&
	kill -INT "$fb_pid" && fb_wait &&
	test "$(cat code)" = 130 &&
	head -1 out | grep -q "INCOMPLETE: interrupted" &&
	grep -q "^== class-check: .* ==" out &&
	grep -q "^not run: the report stopped before it" out &&
	grep -q "^  read  *[0-9]" out &&
	grep -q "interrupted; the summary is marked incomplete" err &&
	test ! -e "$UNDO" &&
	test "$(dev_sum "$LOOP")" = "$before"
'

test_done
