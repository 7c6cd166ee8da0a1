#!/bin/sh
# t8020: data safety.  On a 256 MiB loop device full of random data, each
# destructive test changes only erase-block-sized (1 MiB) pieces inside the
# byte range it announces, and changes some of them; each read-only test
# changes nothing at all; and a write test against a mounted device is
# refused in one line, leaving a clean file system.

. "$(dirname "$0")/lib.sh"

MNT=$TRASH/mnt
IMAGE=$TRASH/image

if have_loop; then
	loop_setup LOOP 256M
	loop_setup MLOOP 64M
	mkdir -p "$MNT"
	# registered after the loop devices, so it runs before the detach
	test_at_exit "umount '$MNT'"
fi


# run_on_loop PROG ARGS...: restore the device, run PROG ARGS... DEVICE
# (at most 30 s; it must succeed), then leave out, err and changed (the
# indexes of the MiB pieces that differ from the image).
run_on_loop() {
	rol_prog=$1
	shift
	restore &&
	rm -f "$TRASH/dirty" &&
	timeout 30 "$rol_prog" "$@" "$LOOP" >out 2>err </dev/null
	rol_code=$?
	cat err
	chunk_sums_quick "$LOOP" $MIB >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	cp changed "$TRASH/dirty" &&
	echo "changed MiB: $(tr "\n" " " <changed)" &&
	test "$rol_code" = 0 ||
		{ echo "exit code $rol_code" >&2; return 1; }
}

# only_inside A B+1: the changed pieces are all inside the byte range
# [A, B+1), and there is at least one.
only_inside() {
	test -s changed ||
		{ echo "nothing changed inside the announced range" >&2; return 1; }
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
}

# destructive ARGS...: flashbench ARGS on the device announces one range
# and changes only pieces inside it, some of them.
destructive() {
	run_on_loop "$FLASHBENCH" "$@" &&
	range=$(announced_range err) ||
		{ echo "no single announced range on stderr" >&2; return 1; }
	echo "announced [$range)" &&
	only_inside $range
}

# read_only ARGS...: flashbench ARGS on the device (it must succeed)
# changes nothing: the checksum of the whole device is the image's.
read_only() {
	restore &&
	rm -f "$TRASH/dirty" &&
	timeout 30 "$FLASHBENCH" "$@" "$LOOP" >out 2>err </dev/null
	ro_code=$?
	cat err
	ro_sum=$(dev_sum "$LOOP") &&
	if [ "$ro_sum" != "$(cat "$TRASH/image.sum")" ]; then
		echo "a read-only test changed the device" >&2
		return 1
	fi
	: >"$TRASH/dirty"
	! grep "overwrites" err &&
	test "$ro_code" = 0 ||
		{ echo "exit code $ro_code" >&2; return 1; }
}

test_loop 'setup: fill the 256 MiB device with random data' '
	test "$(blockdev --getsize64 "$LOOP")" = $((256 * MIB)) &&
	head -c $((64 * MIB)) /dev/urandom >random64 &&
	cat random64 random64 random64 random64 >"$IMAGE" &&
	copy_to_dev "$IMAGE" "$LOOP" &&
	chunk_sums_quick "$LOOP" $MIB >"$TRASH/image.sums" &&
	test "$(wc -l <"$TRASH/image.sums")" = 256 &&
	dev_sum "$IMAGE" >"$TRASH/image.sum" &&
	test "$(dev_sum "$LOOP")" = "$(cat "$TRASH/image.sum")"
'

# ---- destructive tests: only inside the announced range ----

test_loop '-O writes only inside its announced range' '
	destructive -O -c 1 -b 256K -e 1M
'

test_loop '-O -r writes only inside its announced range' '
	destructive -O -r -c 1 -b 256K -e 1M
'

test_loop '-O -0 20 placed closer writes only inside its announced range' '
	destructive -O -0 20 -c 1 -b 256K -e 4M
'

test_loop '-f writes only inside its announced range' '
	destructive -f -c 1 -b 256K -e 1M --fat-nr=4
'

test_loop '-A writes only inside its announced range' '
	destructive -A -c 1 -b 256K -e 1M
'

test_loop '--write-speed writes only inside its announced range' '
	destructive --write-speed --time=1 -e 1M
'

test_loop '--class-check writes only inside its announced range' '
	destructive --class-check --time=1
'

test_loop '--iops writes only inside its announced range' '
	destructive --iops --time=1
'

test_loop '--detect --write --erasesize=1M writes only inside its announced range' '
	destructive --detect --write --erasesize=1M
'

test_loop '--program with writes writes only inside its announced range' '
	printf "%s\n" "format columns" \
		"let t = write \$offset \$erasesize random" \
		"report rate rate \$erasesize t" "newline" >writes.fb &&
	destructive --program=writes.fb --offset=40M -e 1M &&
	printf "40\n" >expect &&
	test_cmp expect changed
'

# erase takes START and LENGTH after the device, so it is run by hand.
test_loop 'erase and erase --zero change only the range they announce' '
	for opt in "" --zero; do
		restore && rm -f "$TRASH/dirty" &&
		timeout 30 "$ERASE" $opt "$LOOP" 20M 3M >out 2>err &&
		chunk_sums_quick "$LOOP" $MIB >after &&
		changed_chunks "$TRASH/image.sums" after >changed &&
		cp changed "$TRASH/dirty" &&
		cat out err &&
		range=$(sed -n "s/^erasing bytes \([0-9]*\) to \([0-9]*\) .*/\1 \2/p" out) &&
		test -n "$range" &&
		set -- $range &&
		only_inside $1 $(($2 + 1)) &&
		printf "%s\n" 20 21 22 >expect &&
		test_cmp expect changed || return 1
	done
'

# ---- read-only tests: nothing changes ----

for t in "-a -c 1 -b 256K" "-s -c 1" "-i -c 1" "-t --time=1" \
	"--iops --read-only --time=1" "--class-check --read-only --time=1" \
	"--detect" "--info" "--detect --format=json" "-a -c 1 --threes"
do
	test_loop "$t changes nothing on the device" "
		read_only $t
	"
done

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

test_loop 'mounted: setup: an ext4 file system with a file, mounted' '
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$MLOOP" &&
	mount "$MLOOP" "$MNT" &&
	head -c 1M /dev/urandom >"$TRASH/payload" &&
	cp "$TRASH/payload" "$MNT/payload" &&
	sync
'

for t in "-O -c 1 -b 256K -e 1M" "-O -r -b 256K -e 1M" \
	"-f -b 256K -e 1M --fat-nr=2" "-A -c 1 -b 256K -e 1M" \
	"--write-speed --time=1 -e 1M" "--class-check --time=1" \
	"--iops --time=1" "--detect --write --erasesize=1M" \
	"--program=$TRASH/writes.fb --offset=40M -e 1M"
do
	test_loop "mounted: $t is refused in one line" "
		printf '%s\n' 'format columns' \
			'let t = write \$offset \$erasesize random' \
			'report rate rate \$erasesize t' newline >'$TRASH/writes.fb' &&
		refused_mounted \"\$FLASHBENCH\" $t \"\$MLOOP\"
	"
done

test_loop 'mounted: erase is refused in one line' '
	refused_mounted "$ERASE" "$MLOOP" 16M 8M &&
	refused_mounted "$ERASE" --zero "$MLOOP" 16M 8M
'

test_loop 'mounted: after the refusals the file is intact and fsck -n is clean' '
	cmp "$TRASH/payload" "$MNT/payload" &&
	umount "$MNT" &&
	fsck.ext4 -n -f "$MLOOP"
'

test_done
