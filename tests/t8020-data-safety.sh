#!/bin/sh
# t8020: data safety.  On a 256 MiB image file full of random data, and
# (as root) on a loop device backed by one, each destructive test changes
# only erase-block-sized (1 MiB) pieces inside the byte range it
# announces, and changes some of them; each read-only test changes
# nothing at all; and a write test against a mounted device is refused in
# one line, leaving a clean file system.  The image file needs no root,
# so every user's make check proves that no byte outside an announced
# range changes.

. "$(dirname "$0")/lib.sh"

MNT=$TRASH/mnt
IMAGE=$TRASH/image
CARD=$TRASH/card.img

if have_loop; then
	loop_setup LOOP 256M
	loop_setup MLOOP 64M
	mkdir -p "$MNT"
	# registered after the loop devices, so it runs before the detach
	test_at_exit "umount '$MNT'"
fi

# TARGET: the image file or the loop device the checks below run on.

# run_on_target PROG ARGS...: restore the target, run PROG ARGS...
# TARGET (at most 30 s), then leave out, err, code and changed (the
# indexes of the MiB pieces that differ from the image).
run_on_target() {
	rot_prog=$1
	shift
	restore &&
	rm -f "$TRASH/dirty" &&
	timeout 30 "$rot_prog" "$@" "$TARGET" >out 2>err </dev/null
	echo $? >code
	target_changes
}

# erase_on_target [--zero]: the same for erase, which takes START and
# LENGTH after the device: 3 MiB from 20 MiB.
erase_on_target() {
	restore &&
	rm -f "$TRASH/dirty" &&
	timeout 30 "$ERASE" "$@" "$TARGET" 20M 3M >out 2>err </dev/null
	echo $? >code
	target_changes
}

target_changes() {
	cat err
	chunk_sums_quick "$TARGET" $MIB >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	cp changed "$TRASH/dirty" &&
	echo "changed MiB: $(tr "\n" " " <changed)"
}

# succeeded: the last run_on_target exited 0.
succeeded() {
	test "$(cat code)" = 0 || { echo "exit code $(cat code)" >&2; return 1; }
}

# only_inside A B+1: the changed pieces are all inside the byte range
# [A, B+1), and there is at least one.
only_inside() {
	test -s changed ||
		{ echo "nothing changed inside the announced range" >&2; return 1; }
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
}

# destructive ARGS...: flashbench ARGS on the target announces one range
# and changes only pieces inside it, some of them.
destructive() {
	run_on_target "$FLASHBENCH" "$@" &&
	succeeded &&
	range=$(announced_range err) ||
		{ echo "no single announced range on stderr" >&2; return 1; }
	echo "announced [$range)" &&
	only_inside $range
}

# read_only ARGS...: flashbench ARGS on the target (it must succeed)
# changes nothing: the checksum of the whole target is the image's.
read_only() {
	restore &&
	rm -f "$TRASH/dirty" &&
	timeout 30 "$FLASHBENCH" "$@" "$TARGET" >out 2>err </dev/null
	ro_code=$?
	cat err
	ro_sum=$(dev_sum "$TARGET") &&
	if [ "$ro_sum" != "$(cat "$TRASH/image.sum")" ]; then
		echo "a read-only test changed the device" >&2
		return 1
	fi
	: >"$TRASH/dirty"
	! grep "overwrites" err &&
	test "$ro_code" = 0 ||
		{ echo "exit code $ro_code" >&2; return 1; }
}

# on_target NAME BODY: a test of the checks below, on the current target.
on_target() {
	if [ "$TARGET" = "$CARD" ]; then
		test_expect_success "file: $1" "$2"
	else
		test_loop "loop: $1" "$2"
	fi
}

test_expect_success 'setup: 256 MiB of random data, and its checksums' '
	head -c $((64 * MIB)) /dev/urandom >random64 &&
	cat random64 random64 random64 random64 >"$IMAGE" &&
	chunk_sums_quick "$IMAGE" $MIB >"$TRASH/image.sums" &&
	test "$(wc -l <"$TRASH/image.sums")" = 256 &&
	dev_sum "$IMAGE" >"$TRASH/image.sum" &&
	cp "$IMAGE" "$CARD"
'

# The checks, on TARGET.  The --program test writes one erase block.
printf '%s\n' "format columns" "let t = write \$offset \$erasesize random" \
	"report rate rate \$erasesize t" "newline" >"$TRASH/writes.fb"

safety_checks() {
	on_target 'the target holds the image' '
		test "$(dev_sum "$TARGET")" = "$(cat "$TRASH/image.sum")"
	'

	# ---- destructive tests: only inside the announced range ----
	for t in "-O -c 1 -b 256K -e 1M" "-O -r -c 1 -b 256K -e 1M" \
		"-O -0 20 -c 1 -b 256K -e 4M" "-f -c 1 -b 256K -e 1M --fat-nr=4" \
		"-A -c 1 -b 256K -e 1M" "--write-speed --time=1 -e 1M" \
		"--class-check --time=1" "--iops --time=1" \
		"--detect --write --erasesize=1M"
	do
		on_target "$t writes only inside its announced range" "
			destructive $t
		"
	done

	on_target '--program with writes writes only inside its announced range' '
		destructive --program="$TRASH/writes.fb" --offset=40M -e 1M &&
		printf "40\n" >expect &&
		test_cmp expect changed
	'

	# ---- read-only tests: nothing changes ----
	for t in "-a -c 1 -b 256K" "-s -c 1" "-i -c 1" "-t --time=1" \
		"--iops --read-only --time=1" \
		"--class-check --read-only --time=1" \
		"--detect" "--info" "--detect --format=json" "-a -c 1 --threes"
	do
		on_target "$t changes nothing" "
			read_only $t
		"
	done
}

TARGET=$CARD
safety_checks

# erase_changes_its_range: erase and erase --zero on the target change
# only MiB 20 to 22, the range they announce (on an image file, a hole
# punched in it)
erase_changes_its_range() {
	for opt in "" --zero; do
		erase_on_target $opt &&
		succeeded &&
		cat out &&
		range=$(sed -n "s/^erasing bytes \([0-9]*\) to \([0-9]*\) .*/\1 \2/p" out) &&
		test -n "$range" &&
		set -- $range &&
		only_inside $1 $(($2 + 1)) &&
		printf "%s\n" 20 21 22 >expect &&
		test_cmp expect changed || return 1
	done
}

test_expect_success 'file: erase and erase --zero change only the range they announce' '
	erase_changes_its_range
'

TARGET=$LOOP
test_loop 'loop: setup: the 256 MiB device holds the image' '
	test "$(blockdev --getsize64 "$LOOP")" = $((256 * MIB)) &&
	copy_to_dev "$IMAGE" "$LOOP" &&
	: >"$TRASH/dirty"
'
safety_checks

test_loop 'loop: erase and erase --zero change only the range they announce' '
	erase_changes_its_range
'

# ---- a mounted device is refused ----

# refused_mounted PROG ARGS...: PROG ARGS exits 1 with nothing on stdout
# and one line on stderr.
refused_mounted() {
	rm_prog=$1
	shift
	timeout 30 "$rm_prog" "$@" >out 2>err </dev/null
	rm_code=$?
	cat err
	test "$rm_code" = 1 ||
		{ echo "exit code $rm_code, want 1" >&2; return 1; }
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	grep -Ei "busy|in use|mounted" err
}

test_loop_ext4 'mounted: setup: an ext4 file system with a file, mounted' '
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$MLOOP" &&
	mount "$MLOOP" "$MNT" &&
	head -c 1M /dev/urandom >"$TRASH/payload" &&
	cp "$TRASH/payload" "$MNT/payload" &&
	sync
'

for t in "-O -b 256K -e 1M" "-O -r -b 256K -e 1M" \
	"-f -b 256K -e 1M --fat-nr=2" "-A -c 1 -b 256K -e 1M" \
	"--write-speed --time=1 -e 1M" "--class-check --time=1" \
	"--iops --time=1" "--detect --write --erasesize=1M" \
	"--program=$TRASH/writes.fb --offset=40M -e 1M"
do
	test_loop_ext4 "mounted: $t is refused in one line" "
		refused_mounted \"\$FLASHBENCH\" $t \"\$MLOOP\"
	"
done

test_loop_ext4 'mounted: erase is refused in one line' '
	refused_mounted "$ERASE" "$MLOOP" 16M 8M &&
	refused_mounted "$ERASE" --zero "$MLOOP" 16M 8M
'

test_loop_ext4 'mounted: after the refusals the file is intact and fsck -n is clean' '
	cmp "$TRASH/payload" "$MNT/payload" &&
	umount "$MNT" &&
	fsck.ext4 -n -f "$MLOOP"
'

test_done
