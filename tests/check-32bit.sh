#!/bin/sh
# check-32bit: offsets past 2 and 4 GiB on an 8 GiB sparse loop device,
# for the binaries of a 32-bit build (make check-32 runs it with them),
# where an offset cut to 32 bits would land 4 GiB too low.  Random data
# covers every target and the places its offset modulo 4 GiB falls on, so
# a write or discard anywhere shows in the MiB-piece checksums of the
# whole device; each test changes only pieces inside the range it
# announces.  A read at a wrong offset changes no byte, so strace records
# the offset and length of every transfer that reaches the kernel, and
# those of the 32-bit -a must be the native build's (FLASHBENCH_NATIVE).

. "$(dirname "$0")/lib.sh"

GIB=1073741824
SIZE=$((8 * GIB))
IMAGE=$TRASH/image
NATIVE=${FLASHBENCH_NATIVE:-$TOP/flashbench}

if have_loop; then
	loop_setup LOOP 8G
fi

# Random 32 MiB regions (start in MiB): 0, 1, 2 and 4 GiB are where 4, 5,
# 6 and 8 GiB fall when cut to 32 bits; 5 and 6 GiB hold the targets.
REGIONS="0 1024 2032 4080 5120 6144 8160"
REGION_MIB=32

have_strace() {
	command -v strace >/dev/null 2>&1
}

# sums DEV: "index crc" per MiB piece, read past the page cache in one
# pass (8 GiB in seconds, where a read per piece would take minutes).
sums() {
	dd if="$1" bs=$MIB iflag=direct status=none | python3 -c '
import sys, zlib
read, i = sys.stdin.buffer.read, 0
while True:
	piece = read(1048576)
	if not piece:
		break
	print(i, "%08x" % zlib.crc32(piece))
	i += 1
'
}

# on_big PROG ARGS...: put the device back to the image, run PROG ARGS
# (at most 120 s; it must succeed), under strace when it is there,
# with the device's transfers in trace ("pread64 OFFSET LENGTH" lines);
# leave out, err and changed (the indexes of the MiB pieces that differ).
on_big() {
	restore &&
	rm -f "$TRASH/dirty" trace.raw &&
	if have_strace; then
		timeout 120 strace -qq -s 0 -P "$LOOP" -o trace.raw \
			-e trace=pread64,pwrite64,ioctl "$@" >out 2>err </dev/null
	else
		timeout 120 "$@" >out 2>err </dev/null
	fi
	ob_code=$?
	cat err
	transfers trace.raw >trace
	sums "$LOOP" >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	cp changed "$TRASH/dirty" &&
	echo "changed MiB: $(tr '\n' ' ' <changed)" &&
	test "$ob_code" = 0 || { echo "exit code $ob_code" >&2; return 1; }
}

# transfers RAW: strace's pread64/pwrite64 lines as "CALL OFFSET LENGTH",
# its BLKDISCARD/BLKZEROOUT ioctls as "NAME OFFSET LENGTH".
transfers() {
	[ -f "$1" ] || return 0
	sed -En \
	    -e 's/^(pread64|pwrite64)\([0-9]+, "[^"]*"(\.\.\.)?, ([0-9]+), ([0-9]+)\) += [0-9]+$/\1 \4 \3/p' \
	    -e 's/^ioctl\([0-9]+, (BLK[A-Z]+), \[([0-9]+), ([0-9]+)\]\) += 0$/\1 \2 \3/p' \
	    "$1"
}

# transfers_within LO HI [CALL]: the trace is not empty, and every
# transfer (of CALL only, if given) lies inside [LO, HI).
transfers_within() {
	test -s trace || { echo "no transfer traced" >&2; return 1; }
	awk -v lo="$1" -v hi="$2" -v call="$3" '
		(call == "" || $1 == call) && ($2 < lo || $2 + $3 > hi) {
			print "outside [" lo ", " hi "): " $0; bad = 1 }
		END { exit bad }' trace >&2
}

# furthest_byte TRACE: where the furthest transfer ends
furthest_byte() {
	awk '{ e = $2 + $3 } e > m { m = e } END { printf "%.0f\n", m }' "$1"
}

# halving FILE: each number in FILE is half the one before
halving() {
	awk 'NR > 1 && $1 * 2 != prev { bad = 1 } { prev = $1 }
		END { exit bad }' "$1"
}

# changed_only_inside A B+1: some pieces changed, all inside [A, B+1).
changed_only_inside() {
	test -s changed ||
		{ echo "nothing changed inside the announced range" >&2; return 1; }
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
}

# destructive_past_4g ARGS...: flashbench ARGS announces one range past
# 4 GiB, changes only pieces inside it, and the kernel sees writes there
# only.
destructive_past_4g() {
	on_big "$FLASHBENCH" "$@" "$LOOP" &&
	range=$(announced_range err) ||
		{ echo "no single announced range on stderr" >&2; return 1; }
	echo "announced [$range)" &&
	set -- $range &&
	test "$1" -ge $((4 * GIB)) &&
	changed_only_inside "$1" "$2" &&
	if have_strace; then
		transfers_within "$1" "$2" pwrite64 &&
		grep -q '^pwrite64 ' trace
	fi
}

# unchanged: the device's pieces are all the image's.
unchanged() {
	test ! -s changed || { echo "a read-only test changed the device" >&2
		return 1; }
	! grep overwrites err
}

# python3 sums the pieces; strace, when there, shows the kernel's view
if ! command -v python3 >/dev/null 2>&1; then
	test_skip "the loop set past 4 GiB" "needs python3"
	test_done
	exit
fi
have_strace || test_skip "offsets as the kernel sees them" "needs strace"

test_loop 'setup: 8 GiB sparse device, random data at the targets and their 32-bit images' '
	test "$(blockdev --getsize64 "$LOOP")" = $SIZE &&
	for start in $REGIONS; do
		head -c $((REGION_MIB * MIB)) /dev/urandom |
		dd of="$LOOP" bs=$MIB seek="$start" oflag=direct \
			iflag=fullblock status=none || return 1
	done &&
	dd if="$LOOP" of="$IMAGE" bs=$MIB iflag=direct conv=sparse \
		status=none &&
	truncate -s $SIZE "$IMAGE" &&
	sums "$LOOP" >"$TRASH/image.sums" &&
	test "$(wc -l <"$TRASH/image.sums")" = 8192 &&
	: >"$TRASH/dirty"
'

# ---- reads ----

test_loop '-a reads every alignment, the device unchanged' '
	on_big "$FLASHBENCH" -a -c 1 -b 64K "$LOOP" &&
	cp out a.out && cp trace a.trace &&
	unchanged &&
	test_lines_match out "$ALIGN_RE" &&
	cut -f1 out | sed "s/^align //" >aligns &&
	top=$(head -n 1 aligns) &&
	echo "top alignment $top" &&
	test "$top" -ge $((2 * GIB)) && test "$top" -le $((SIZE / 2)) &&
	test "$(tail -n 1 aligns)" = 131072 &&
	halving aligns
'

if have_strace; then
	test_loop '-a: its reads reach the top boundary and the last GiB' '
		cp a.trace trace &&
		top=$(sed -n "1s/^align \([0-9]*\).*/\1/p" a.out) &&
		transfers_within 0 $SIZE &&
		for at in $((top - 65536)) $((top - 32768)) $top; do
			grep -qx "pread64 $at 65536" trace ||
				{ echo "no read at $at" >&2; return 1; }
		done &&
		last=$(furthest_byte trace) &&
		echo "last byte read: $last" &&
		test "$last" -gt $((7 * GIB)) && test "$last" -le $SIZE
	'
fi
if have_strace && [ -x "$NATIVE" ]; then
	test_loop '-a: the same reads and alignments as the native build' '
		on_big "$NATIVE" -a -c 1 -b 64K "$LOOP" &&
		cut -f1 out >native.aligns && sort trace >native.trace &&
		cut -f1 a.out >this.aligns && sort a.trace >this.trace &&
		test_cmp native.aligns this.aligns &&
		test_cmp native.trace this.trace
	'
else
	test_skip '-a: the same reads as the native build' \
		"needs strace and a native flashbench at $NATIVE"
fi

# --time is a floor: the last block ends past it, by more on a busy host.
test_loop '-t --offset=5G reads from 5 GiB on, the device unchanged' '
	on_big "$FLASHBENCH" -t --offset=5G --time=1 -b 4M "$LOOP" &&
	unchanged &&
	grep -Eq "^read 4194304-byte blocks for 1(\.[0-9]+)?s: [0-9]+ MB/s" out &&
	if have_strace; then
		transfers_within $((5 * GIB)) $SIZE pread64 &&
		test "$(head -n 1 trace)" = "pread64 $((5 * GIB)) 4194304"
	fi
'

# ---- writes ----

test_loop '-O --offset=5G writes only inside its announced range' '
	destructive_past_4g -O --offset=5G -c 1 -b 256K -e 1M
'

test_loop '-O -r --offset=6G writes only inside its announced range' '
	destructive_past_4g -O -r --offset=6G -c 1 -b 256K -e 1M
'

test_loop '-A --offset=5G writes only inside its announced range' '
	destructive_past_4g -A --offset=5G -c 1 -b 256K -e 1M
'

# erase takes START and LENGTH after the device, so it is run by hand.
test_loop 'erase and erase --zero at 6 GiB + 1 MiB change those 3 MiB only' '
	for opt in "" --zero; do
		on_big "$ERASE" $opt "$LOOP" 6145M 3M || return 1
		cat out &&
		grep "^erasing bytes $((6145 * MIB)) to $((6148 * MIB - 1)) " out &&
		printf "%s\n" 6145 6146 6147 >expect &&
		test_cmp expect changed || return 1
		if have_strace; then
			kind=BLKDISCARD
			[ -n "$opt" ] && kind=BLKZEROOUT
			echo "$kind $((6145 * MIB)) $((3 * MIB))" >expect &&
			test_cmp expect trace || return 1
		fi
	done
'

test_done
