#!/bin/sh
# t3020: the undo file of --capacity-check, and --restore.  Wraparound
# fakes whose real capacity is a power of two (the blocks past it alias
# blocks below it that the check also saved) end with the fake verdict,
# exit 3, no warning and no undo file left; a FIFO given as the undo file
# is refused, not waited on.  As root, on a loop device
# full of random data, from the undo file of a run killed with SIGKILL
# after its first round: a record head or a record's data damaged in
# the middle or in the first record costs exactly that record's range
# (listed, exit 1, the file kept) and every other byte comes back; a
# file cut in its last record whose blocks the device shows unwritten
# restores with exit 0; the same device with
# other content is refused with nothing written, another device with
# the same content restored (said on stderr); a header-only file over a
# device that holds its run's stamps is refused, the range listed, and
# over one that does not has nothing to put back (exit 0, removed); an
# FBUNDO01 file restores, with a warning.  An undo file out of
# space names itself, the operation and the error.  Under strace the
# device is flushed after the restore's last write and before the undo
# file is removed, at the end of a check and of --restore.

. "$(dirname "$0")/lib.sh"

UNDO=$TRASH/dev.undo
FIFO=$TRASH/results.fifo
MNT=$TRASH/small

# undofile.py (in tests/) reads and damages undo files: see its head.
undo_py() {
	python3 "$TESTS_DIR/undofile.py" "$@"
}

# expect_exit CODE ARGS...: flashbench ARGS exits with CODE; its output
# in out, its stderr in err (and shown).
expect_exit() {
	ee_want=$1
	shift
	"$FLASHBENCH" "$@" >out 2>err </dev/null
	ee_code=$?
	cat err
	test "$ee_code" = "$ee_want" ||
		{ echo "exit code $ee_code, want $ee_want" >&2; return 1; }
}

# ---- power-of-two wraparound fakes, on the simulated card ----

# wrap_check SPEC USABLE: --capacity-check on sim:SPEC,fake-mode=wrap
# exits 3 with the fake verdict at USABLE, says nothing on stderr but
# its two announcement lines (no block read back other than saved), and
# removes its undo file.
wrap_check() {
	expect_exit 3 --capacity-check --format=json --undo-file="$UNDO" \
		"sim:$1,fake-mode=wrap" &&
	test "$(wc -l <err)" = 2 &&
	test ! -e "$UNDO" &&
	python3 - "$2" <<-\PY
	import json, sys
	doc = json.load(open("out"))
	[r] = [r for r in doc["results"] if r["kind"] == "capacity"]
	assert r["verdict"] == "fake" and r["fake_kind"] == "wraparound", r
	assert r["usable_bytes"] == int(sys.argv[1]), r
	PY
}

test_expect_success python3 'wraparound at a power of two: 256 MiB of 1 GiB, exit 3, no warning' '
	wrap_check size=1G,fake=256M $((256 * MIB))
'

test_expect_success python3 'wraparound at a power of two: 1 of 4 GiB, 8 of 32 GiB, 8 of 64 GiB with a cache' '
	wrap_check size=4G,fake=1G $((1024 * MIB)) &&
	wrap_check size=32G,fake=8G $((8192 * MIB)) &&
	wrap_check size=64G,fake=8G,fake-cache=4M $((8192 * MIB))
'

# (held open here with a header's worth of bytes in it, so that a run
# that did read it would not wait forever)
test_expect_success '--restore of a FIFO: refused at once, not waited on' '
	mkfifo pipe.undo &&
	exec 3<>pipe.undo &&
	printf "%64s" "not an undo file" >&3 &&
	test_usage_error flashbench "--restore: pipe.undo: is a FIFO, not an undo file" \
		--restore=pipe.undo sim:size=64M,fake=64M
'

# ---- damaged undo files, on a loop device ----

if have_loop; then
	loop_setup LOOP 64M
	loop_setup TWIN 64M
	mkdir -p "$MNT"
	test_at_exit "umount '$MNT'"
fi

# A round on a genuine 64 MiB device: 256 probe blocks and a 20 MiB
# flush area (20 records of 1 MiB), saved (a head and a trailer of 64
# bytes each, after the 256-byte header) and written.  Past this many
# bytes written the round's last write is done.
ROUND_BYTES=$((256 + 276 * 128 + 2 * (256 * 512 + 20 * MIB)))

# image DEV FILE: a copy of the device.
image() {
	dd if="$1" of="$2" bs=1M iflag=direct status=none
}

# put_back FILE: the loop device as FILE holds it.
put_back() {
	dd if="$1" of="$LOOP" bs=1M oflag=direct conv=notrunc status=none
}

same_as() {
	image "$LOOP" now.img &&
	undo_py differ "$1" now.img >differ &&
	test_cmp /dev/null differ
}

# restore_damaged FILE: --restore of FILE on the killed run's device
# exits 1, lists exactly the ranges in want (JSON and stderr), keeps
# FILE, and every other byte is back.
restore_damaged() {
	put_back "$TRASH/killed.img" &&
	expect_exit 1 --restore="$1" --format=json "$LOOP" &&
	undo_py listed out >listed &&
	test_cmp want listed &&
	while read -r offset length; do
		grep "^flashbench: $LOOP: bytes $offset to $((offset + length - 1)) not put back: their record in the undo file is damaged\$" err ||
			return 1
	done <want &&
	n=$(wc -l <want) &&
	tail -n 1 err | grep "^flashbench: --restore: .*: $n ranges\{0,1\} not put back; the file is kept\$" &&
	test -e "$1" &&
	image "$LOOP" now.img &&
	undo_py differ "$TRASH/orig.img" now.img >differ &&
	test_cmp want differ
}

test_loop python3 'setup: random data, and the undo file of a run killed after its first round' '
	fill_random "$LOOP" &&
	image "$LOOP" "$TRASH/orig.img" &&
	killed_capacity_check $ROUND_BYTES "$UNDO" "$LOOP" &&
	test "$(wc -c <"$UNDO")" = $((256 + 276 * 128 + 256 * 512 + 20 * MIB)) &&
	mv "$UNDO" "$TRASH/killed.undo" &&
	image "$LOOP" "$TRASH/killed.img" &&
	! cmp -s "$TRASH/orig.img" "$TRASH/killed.img"
'

test_loop python3 'a record head damaged in the middle: every other record restored, its range listed, exit 1' '
	cp "$TRASH/killed.undo" bad.undo &&
	undo_py head bad.undo 128 >want &&
	restore_damaged bad.undo
'

test_loop python3 'a bad checksum in the middle: every other record restored, its range listed, exit 1' '
	cp "$TRASH/killed.undo" bad.undo &&
	undo_py data bad.undo 128 >want &&
	restore_damaged bad.undo
'

test_loop python3 'a bad checksum in the first record, and a damaged head later: both listed, the rest restored' '
	cp "$TRASH/killed.undo" bad.undo &&
	undo_py data bad.undo 0 >want &&
	undo_py head bad.undo 200 >>want &&
	restore_damaged bad.undo
'

test_loop python3 'a record with its head and trailer damaged: its bytes in the file listed, the rest restored' '
	cp "$TRASH/killed.undo" bad.undo &&
	undo_py both bad.undo 64 >both &&
	sed -n 2p both >want &&
	put_back "$TRASH/killed.img" &&
	expect_exit 1 --restore=bad.undo --format=json "$LOOP" &&
	undo_py listed out >listed &&
	test_cmp want listed &&
	read -r unknown at bytes <want &&
	grep "^flashbench: $LOOP: the undo file.s bytes $at to $((at + bytes - 1)) are damaged; the blocks they held are not known\$" err &&
	image "$LOOP" now.img &&
	undo_py differ "$TRASH/orig.img" now.img >differ &&
	head -n 1 both | test_cmp - differ
'

test_loop python3 'a file cut in the middle of its last record: restored, exit 0, every byte back, the file removed' '
	put_back "$TRASH/killed.img" &&
	cp "$TRASH/killed.undo" cut.undo &&
	undo_py cut cut.undo "$LOOP" &&
	expect_exit 0 --restore=cut.undo "$LOOP" &&
	cat out &&
	grep -E "^restored [0-9]+ bytes from 275 records; [0-9]+ blocks read back, 0 not as saved\$" out &&
	test "$(wc -l <err)" = 1 &&
	same_as "$TRASH/orig.img" &&
	test ! -e cut.undo
'

test_loop python3 'the same device holding other data: refused, exit 1, nothing written' '
	fill_random "$LOOP" &&
	image "$LOOP" other.img &&
	cp "$TRASH/killed.undo" kept.undo &&
	expect_exit 1 --restore=kept.undo "$LOOP" &&
	test ! -s out &&
	test "$(cat err)" = "flashbench: --restore: kept.undo: the block at $((20 * MIB)) holds data the file neither saved nor wrote (written since the check?); nothing was put back" &&
	same_as other.img &&
	test -e kept.undo
'

test_loop python3 'another device with the same content: restored, the identity said to differ' '
	dd if="$TRASH/killed.img" of="$TWIN" bs=1M oflag=direct status=none &&
	cp "$TRASH/killed.undo" twin.undo &&
	expect_exit 0 --restore=twin.undo "$TWIN" &&
	grep "^flashbench: --restore: twin.undo: $TWIN is not the device the file names (its identity differs), but each of the 41216 blocks it recorded below 67108864 holds what the file saved or wrote: restoring\$" err &&
	image "$TWIN" now.img &&
	cmp "$TRASH/orig.img" now.img
'

test_loop python3 'a header and no record, stamps of its run on the device: refused, their range listed, nothing written, the file kept' '
	put_back "$TRASH/killed.img" &&
	head -c 256 "$TRASH/killed.undo" >empty.undo &&
	expect_exit 1 --restore=empty.undo "$LOOP" &&
	grep "^flashbench: $LOOP: bytes 0 to [0-9]* not put back: the run.s stamps lie there, and the undo file holds no record of what those blocks held\$" err &&
	tail -n 1 err | grep "^flashbench: --restore: empty.undo: 1 range not put back; the file is kept\$" &&
	same_as "$TRASH/killed.img" &&
	test -e empty.undo
'

test_loop python3 'a header and no record, no stamp of its run on the device: nothing to put back, exit 0, the file removed' '
	put_back "$TRASH/orig.img" &&
	head -c 256 "$TRASH/killed.undo" >empty.undo &&
	expect_exit 0 --restore=empty.undo "$LOOP" &&
	grep "^flashbench: --restore: empty.undo: it holds no saved block: nothing to put back\$" err &&
	grep "^restored 0 bytes from 0 records; 0 blocks read back, 0 not as saved\$" out &&
	same_as "$TRASH/orig.img" &&
	test ! -e empty.undo
'

test_loop python3 'an FBUNDO01 file: restored as before, with a warning' '
	put_back "$TRASH/killed.img" &&
	undo_py v1 "$TRASH/killed.undo" old.undo &&
	expect_exit 0 --restore=old.undo "$LOOP" &&
	cat out &&
	grep "^flashbench: --restore: old.undo: an FBUNDO01 file (from an older flashbench): its records are read up to the first damaged one, none after it\$" err &&
	grep -E "^restored [0-9]+ bytes from 276 records; 41216 blocks read back, 0 not as saved\$" out &&
	same_as "$TRASH/orig.img"
'

# trace ARGS...: flashbench ARGS under strace (LeakSanitizer cannot run
# there), its device and undo file syscalls in trace; it must succeed.
trace() {
	ASAN_OPTIONS=detect_leaks=0 strace -f -y -o trace \
		-e trace=fsync,fdatasync,unlink,unlinkat,ioctl,pwrite64 \
		"$FLASHBENCH" "$@" >out 2>err
	tr_code=$?
	cat err
	test "$tr_code" = 0
}

# flushed_before_unlink UNDO: in trace, the device gets its last write,
# then an fsync, and only then is UNDO removed.
flushed_before_unlink() {
	awk -v dev="$LOOP" -v undo="$1" '
		index($0, "pwrite64(") && index($0, "<" dev ">") { last = NR }
		index($0, "fsync(") && index($0, "<" dev ">") && last &&
			NR > last && !flushed { flushed = NR }
		index($0, "unlink") && index($0, "\"" undo "\"") { gone = NR }
		END {
			printf "last write %d, flush %d, unlink %d\n", last,
				flushed, gone
			exit !(last && flushed > last && gone > flushed)
		}' trace
}

test_loop strace 'strace: a check flushes the device before it removes the undo file' '
	put_back "$TRASH/orig.img" &&
	trace --capacity-check --undo-file="$UNDO" "$LOOP" &&
	test ! -e "$UNDO" &&
	flushed_before_unlink "$UNDO"
'

test_loop strace 'strace: --restore flushes the device before it removes the undo file' '
	put_back "$TRASH/killed.img" &&
	cp "$TRASH/killed.undo" "$UNDO" &&
	trace --restore="$UNDO" "$LOOP" &&
	test ! -e "$UNDO" &&
	flushed_before_unlink "$UNDO" &&
	same_as "$TRASH/orig.img"
'

# ---- the undo file out of space ----

test_loop 'an undo file out of space: its name, the operation and the error' '
	mount -t tmpfs -o size=1m tmpfs "$MNT" &&
	expect_exit 1 --capacity-check --undo-file="$MNT/x.undo" \
		sim:size=64M,fake=64M &&
	test "$(tail -n 1 err)" = "flashbench: the undo file $MNT/x.undo: write: No space left on device" &&
	! grep "(null)\|Success" err &&
	umount "$MNT"
'

test_done
