#!/bin/sh
# t3220: --power-cut's refusals and failures, each one clear line: the
# log on the device under test or on the device itself (exit 2); for
# --verify, a log of another device, one damaged in the middle, one
# anyone could have written (exit 2); a device that comes back from the
# cut as another device, a cut command that fails, one that never cuts
# (exit 1).  Nothing is written outside the announced range.  As root
# with loop devices (and /dev/fuse for the cuts flashemu makes).

. "$(dirname "$0")/lib.sh"

test_at_exit 'emu_stop card; umount "$TRASH/mnt" 2>/dev/null'

CARD=sim:size=64M,volatile=1M,flush=honest
ARGS="--power-cut --seed=5 --span=8M"

if have_loop; then
	loop_setup LOOP 64M
	loop_setup OTHER 64M
fi

# outside DEV: the checksums of the device before and after the range
# (8 MiB from 16 MiB)
outside() {
	dd if="$1" bs=1M count=16 iflag=direct status=none | cksum &&
	dd if="$1" bs=1M skip=24 iflag=direct status=none | cksum
}

# last_line_is REGEX: the last line of err, the one that says why
last_line_is() {
	tail -n 1 err | grep -Eq -- "$1" || {
		echo "last line of stderr:" && tail -n 1 err
		return 1
	}
}

test_loop 'the log on the device under test itself is refused' '
	test_usage_error flashbench "^--log: $LOOP: is a block device; the log must be a new regular file$" \
		$ARGS --log="$LOOP" "$OTHER"
'

test_loop_ext4 'a log on a file system of the device under test is refused' '
	mkfs.ext4 -q -F "$LOOP" &&
	mkdir -p "$TRASH/mnt" && mount "$LOOP" "$TRASH/mnt" &&
	test_usage_error flashbench "^--log: the log $TRASH/mnt/cut.log would be on $LOOP itself; put it on another device$" \
		$ARGS --log="$TRASH/mnt/cut.log" "$LOOP" &&
	umount "$TRASH/mnt" &&
	test ! -e "$TRASH/mnt/cut.log"
'

# cut_fails CMD REGEX: a run on $LOOP whose --cut-command is CMD exits
# 1, the last line of stderr matching REGEX, and writes nothing outside
# its range
cut_fails() {
	outside "$LOOP" >before &&
	test_expect_code 1 "$FLASHBENCH" $ARGS --cut-command="$1" \
		--log="$TRASH/$1.log" "$LOOP" >out 2>err &&
	cat err &&
	last_line_is "$2" &&
	outside "$LOOP" | test_cmp before -
}

test_loop 'a cut command that fails ends the run (exit 1), nothing written outside the range' '
	fill_random "$LOOP" &&
	cut_fails false "^flashbench: --cut-command: .false. failed \(exit 1\); bytes 16777216 to 25165823 of $LOOP hold the run.s stamps$"
'

test_loop 'a cut command after which the device keeps writing ends the run (exit 1)' '
	cut_fails true "^flashbench: --cut-command: .true. ran, but $LOOP kept writing \([0-9]+ writes\); bytes 16777216 to 25165823 hold the run.s stamps$"
'

# A log of a cut on flashemu's card, for --verify to be given wrongly.
test_emu 'a log of one cut on flashemu, for the refusals below' '
	emu_start card --time-scale=1000 "$CARD" &&
	dev=$(emu_attach card) && echo "$dev" >"$TRASH/card.dev" &&
	"$FLASHBENCH" $ARGS --cycles=1 \
		--cut-command="echo off >$TRASH/card/power" \
		--power-command="echo on >$TRASH/card/power" \
		--log="$TRASH/card.log" "$dev" >out 2>err &&
	test -s "$TRASH/card.log"
'

test_emu '--verify with a log of another device is refused (exit 2)' '
	test_usage_error flashbench "^--verify: $TRASH/card.log: the log is of another device: it names .file:$TRASH/card/card., this one is .file:" \
		--power-cut --verify="$TRASH/card.log" "$OTHER"
'

test_emu '--verify with a log damaged in the middle is refused (exit 2)' '
	awk "NR == 4 { sub(/seq=/, \"seq=9\") } { print }" "$TRASH/card.log" \
		>damaged.log && chmod 600 damaged.log &&
	! cmp -s damaged.log "$TRASH/card.log" &&
	test_usage_error flashbench "^--verify: damaged.log: line 4" \
		--power-cut --verify=damaged.log "$(cat "$TRASH/card.dev")"
'

test_emu '--verify with a log anyone could have written is refused (exit 2)' '
	cp "$TRASH/card.log" open.log && chmod 666 open.log &&
	test_usage_error flashbench "^--verify: open.log: is writable by its group or others" \
		--power-cut --verify=open.log "$(cat "$TRASH/card.dev")"
'

test_emu 'a device back from the cut as another device is refused (exit 1)' '
	dev=$(cat "$TRASH/card.dev") &&
	outside "$OTHER" >other.before &&
	test_expect_code 1 "$FLASHBENCH" $ARGS --cycles=1 \
		--cut-command="echo off >$TRASH/card/power" \
		--power-command="losetup -d $dev && losetup $dev $(losetup -n -O BACK-FILE "$OTHER")" \
		--log="$TRASH/swap.log" "$dev" >out 2>err &&
	cat err &&
	last_line_is "^flashbench: --power-cut: $dev came back as another device \(file:.*, not file:$TRASH/card/card\); it is not verified$" &&
	dd if="$dev" bs=1M iflag=direct status=none | cksum >now &&
	dd if="$OTHER" bs=1M iflag=direct status=none | cksum | test_cmp - now &&
	losetup -d "$dev"
'

test_done
