#!/bin/sh
# t1100: the simulated card shows, in the tool's own output, the patterns
# of the cards its presets model.  Every original test (-a, -A, -O,
# -O -r, -f, -s, -i) runs on every seed preset and prints lines in its
# format; the align test shows each preset's 4 MiB erase blocks (and the
# 8 KiB pages of the SU08G), the open-AU test its number of open erase blocks
# (6, 7, 20) and what lies beyond it (the SU08G degrades to half its rate
# with 7 and collapses at 8 KiB with 8; its 8 KiB random writes beat
# 16 KiB ones), the Toshiba its 32 KiB program unit; the presets fitted
# to corpus cards and plain print align and open-AU lines; a 12 MiB card
# shows its boundaries with --threes; bad= ranges fail the I/O that
# touches them with one line naming the offset, slow= ranges read at
# their rate; ro refuses writes only;
# output is deterministic per seed; whole erase blocks written in
# sequence run at one rate in every test that writes them.  (How long -a
# takes on the wall clock is a figure bench/timings.sh prints, not an
# assertion.)

. "$(dirname "$0")/lib.sh"

AU_RE="^${SIZE_RE} +${RATE_RE}\$"
FAT_RE="^${SIZE_RE} +${RATE_RE}( +${RATE_RE}){5}\$"
SCATTER_RE="^${N}${tab}${N}\$"
INTERVAL_RE="^[0-9]+ bytes: min $T avg $T max $T: $N MB/s\$"
REGRESSION_RE="^$N MB/s, $T access time\$"
OVERHEAD_RE="^[0-9]+ bytes: $T overhead\$"
PRESETS="sandisk-su08g toshiba-7au sandisk-20au"

# first_align PRESET: the largest power of two at most half the card,
# where -a starts.
first_align() {
	case $1 in
	sandisk-su08g) echo 2147483648 ;;	# 7948206080 bytes
	toshiba-7au) echo 1073741824 ;;		# 3904897024 bytes
	sandisk-20au) echo 4294967296 ;;	# 15931539456 bytes
	readme-example) echo 134217728 ;;	# 500 MiB
	wirenboard-su04g) echo 1073741824 ;;	# 3965190144 bytes
	wirenboard-sa04g) echo 1073741824 ;;	# 3980394496 bytes
	wirenboard-ncard) echo 2147483648 ;;	# 8035237888 bytes
	plain) echo 2147483648 ;;		# 7948206080 bytes
	esac
}

# diffs FILE: "align diff_ns" for each line of -a output, the diff parsed
# with its unit.
diffs() {
	while IFS="$tab" read -r align _ _ _ diff; do
		ns=$(time_ns "${diff#diff }") || {
			echo "cannot parse '$diff'" >&2
			return 1
		}
		echo "${align#align } $ns"
	done <"$1"
}

# rates FILE: "size_bytes rate_bps" for each line of -O output.
rates() {
	while read -r size rate; do
		bps=$(rate_bps "$rate") || {
			echo "cannot parse rate '$rate'" >&2
			return 1
		}
		echo "$(size_bytes "$size") $bps"
	done <"$1"
}

# size_bytes SIZE: 4MiB, 512KiB... in bytes.
size_bytes() {
	printf '%s\n' "$1" | awk '
		/KiB$/ { print $0 * 1024; exit }
		/MiB$/ { print $0 * 1048576; exit }
		/GiB$/ { print $0 * 1073741824; exit }
		/B$/ { print $0 + 0; exit }'
}

# au PRESET NR [ARGS...]: -O with 4 MiB erase blocks and 64 KiB blocks on
# PRESET writing NR erase blocks in turn; "size rate" in bytes, B/s.
au() {
	au_p=$1 au_n=$2
	shift 2
	"$FLASHBENCH" -O --erasesize=4M --blocksize=64K -0 "$au_n" "$@" \
		"sim:$au_p" >au.out 2>au.err
	au_code=$?
	if [ $au_code != 0 ] || [ "$(wc -l <au.out)" != 7 ]; then
		echo "-O -0 $au_n $* sim:$au_p: exit $au_code, want 0 and" \
			"7 lines:" >&2
		cat au.out au.err >&2
		return 1
	fi
	test_lines_match au.out "$AU_RE" &&
	rates au.out
}

# holds FILE [SHARE]: every rate in FILE ("size rate" lines) is at least
# SHARE (default 0.85) of the rate at the largest size: the card keeps up
# down to small blocks.
holds() {
	awk -v share="${2:-0.85}" 'NR == 1 { top = $2 }
	     $2 < share * top { print "falls off at " $1 ": " $2 " B/s, " \
		"top " top; bad = 1 }
	     END { exit bad || NR == 0 }' "$1" >&2
}

# falls_off SLOW FAST BELOW: at every size under BELOW bytes, the rate in
# SLOW is under 70% of the rate in FAST; at least one such size exists.
falls_off() {
	awk -v below="$3" 'NR == FNR { fast[$1] = $2; next }
	     $1 < below { n++
		if (!($1 in fast) || $2 >= 0.7 * fast[$1]) {
			print "size " $1 ": " $2 " B/s against " fast[$1]; bad = 1
		} }
	     END { exit bad || !n }' "$2" "$1" >&2
}

# ---- every original test on every preset ----

for p in $PRESETS; do
	test_expect_success "$p: -a prints one align line per power of two" "
		\"\$FLASHBENCH\" -a -c 2 sim:$p >out 2>err &&
		test ! -s err &&
		test_lines_match out \"\$ALIGN_RE\" &&
		cut -f1 out | sed 's/^align //' >aligns &&
		a=\$(first_align $p) && : >expect &&
		while [ \$a -ge 32768 ]; do echo \$a >>expect; a=\$((a / 2)); done &&
		test_cmp expect aligns
	"

	test_expect_success "$p: -a diff jumps at the 4 MiB erase block" "
		\"\$FLASHBENCH\" -a -c 2 sim:$p >out &&
		diffs out >d && cat d &&
		awk '\$1 >= 4194304 && \$2 < 40000 { print \"small at \" \$1; bad = 1 }
		     \$1 < 4194304 && (\$2 > 15000 || \$2 < -15000) {
			print \"large at \" \$1; bad = 1 }
		     END { exit bad }' d
	"

	test_expect_success "$p: -A prints 8 MiB to 32 KiB and announces" "
		\"\$FLASHBENCH\" -A -c 2 sim:$p >out 2>err &&
		test_lines_match out \"\$ALIGN_RE\" &&
		printf '%s\n' 8388608 4194304 2097152 1048576 524288 262144 \
			131072 65536 32768 >expect &&
		cut -f1 out | sed 's/^align //' >aligns &&
		test_cmp expect aligns &&
		test \"\$(wc -l <err)\" = 1 &&
		grep '^flashbench: write-align overwrites bytes [0-9]* to [0-9]* ' err
	"

	for r in "" "-r"; do
		test_expect_success "$p: -O${r:+ $r} prints 4MiB to 256KiB with rates" "
			\"\$FLASHBENCH\" -O $r --erasesize=4M --blocksize=256K \
				-c 2 sim:$p >out 2>err &&
			test_lines_match out \"\$AU_RE\" &&
			printf '%s\n' 4MiB 2MiB 1MiB 512KiB 256KiB >expect &&
			cut -d' ' -f1 out >sizes &&
			test_cmp expect sizes &&
			test \"\$(announced_range err)\" = '16777216 71303168'
		"
	done

	test_expect_success "$p: -f prints 6 rates per size in the first 24 MiB" "
		\"\$FLASHBENCH\" -f --erasesize=4M --blocksize=256K -c 2 \
			sim:$p >out 2>err &&
		test_lines_match out \"\$FAT_RE\" &&
		printf '%s\n' 4MiB 2MiB 1MiB 512KiB 256KiB >expect &&
		cut -d' ' -f1 out >sizes &&
		test_cmp expect sizes &&
		test \"\$(announced_range err)\" = '0 25165824'
	"

	test_expect_success "$p: -s prints 512 offset/time pairs, reads only" "
		\"\$FLASHBENCH\" -s -c 2 sim:$p >out 2>err &&
		test ! -s err &&
		test_lines_match out \"\$SCATTER_RE\" &&
		test \"\$(wc -l <out)\" = 512 &&
		test \"\$(head -n 1 out | cut -f1)\" = 0 &&
		awk -F'$tab' 'NR > 1 && \$1 <= prev { bad = 1 } { prev = \$1 }
			END { exit bad }' out
	"

	test_expect_success "$p: -i prints 8 sizes, regression, overheads" "
		\"\$FLASHBENCH\" -i -c 2 sim:$p >out 2>err &&
		test ! -s err &&
		test \"\$(wc -l <out)\" = 17 &&
		head -n 8 out >sizes.part &&
		test_lines_match sizes.part \"\$INTERVAL_RE\" &&
		sed -n 9p out | grep -Ex \"\$REGRESSION_RE\" &&
		tail -n 8 out >overhead.part &&
		test_lines_match overhead.part \"\$OVERHEAD_RE\" &&
		cut -d' ' -f1 sizes.part >lens &&
		printf '%s\n' 16384 32768 65536 131072 262144 524288 1048576 \
			2097152 >expect &&
		test_cmp expect lens
	"
done

# ---- SanDisk SU08G ----

test_expect_success 'su08g: -a -b 1024: ~100us diff from 4 MiB, a few us below' '
	"$FLASHBENCH" -a --blocksize=1024 sim:sandisk-su08g >out &&
	test_lines_match out "$ALIGN_RE" &&
	diffs out >d && cat d &&
	test "$(tail -n 1 d | cut -d" " -f1)" = 2048 &&
	awk "\$1 >= 4194304 && (\$2 < 80000 || \$2 > 130000) {
		print \"not ~100us at \" \$1; bad = 1 }
	     \$1 <= 2097152 && \$1 >= 8192 && (\$2 < 1000 || \$2 > 10000) {
		print \"not a few us at \" \$1; bad = 1 }
	     \$1 < 8192 && (\$2 > 2000 || \$2 < -2000) {
		print \"page-internal boundary costs at \" \$1; bad = 1 }
	     END { exit bad }" d
'

test_expect_success 'su08g: -O -0 1..6 write about 10.7 MB/s at large sizes' '
	for n in 1 2 3 4 5 6; do
		au sandisk-su08g $n >r$n || return 1
		echo "-0 $n:" $(cat r$n)
		awk "\$1 >= 1048576 && (\$2 < 10.3e6 || \$2 > 11.1e6) {
			print \"-0 $n at \" \$1 \": \" \$2; bad = 1 }
			END { exit bad }" r$n || return 1
		holds r$n || return 1
	done
'

test_expect_success 'su08g: -O -0 7 and -0 8 fall off at 1 MiB and below' '
	au sandisk-su08g 6 >r6 &&
	au sandisk-su08g 7 >r7 &&
	au sandisk-su08g 8 >r8 &&
	cat r6 r7 r8 &&
	falls_off r7 r6 $((MIB + 1)) &&
	falls_off r8 r6 $((MIB + 1))
'

test_expect_success 'su08g: -O --random falls off below 256 KiB at -0 2, not at -0 1' '
	au sandisk-su08g 2 >lin2 &&
	au sandisk-su08g 2 --random >rnd2 &&
	au sandisk-su08g 1 --random >rnd1 &&
	cat lin2 rnd2 rnd1 &&
	falls_off rnd2 lin2 $((256 * 1024)) &&
	holds rnd1
'

# au8 PRESET NR [ARGS...]: au with 8 KiB blocks, as the SU08G seed ran it.
au8() {
	"$FLASHBENCH" -O --erasesize=4M --blocksize=8K -0 "$2" ${3:+"$3"} \
		"sim:$1" 2>/dev/null | rates /dev/stdin
}

test_expect_success 'su08g: -O -b 8K -0 7 halves every size, -0 8 collapses at 8 KiB only' '
	au8 sandisk-su08g 6 >r6 && au8 sandisk-su08g 7 >r7 &&
	au8 sandisk-su08g 8 >r8 &&
	paste r6 r7 r8 &&
	test "$(wc -l <r8)" = 10 &&
	paste r6 r7 r8 | awk "
		\$1 >= 16384 && (\$4 < 0.4 * \$2 || \$4 > 0.8 * \$2) {
			print \"-0 7 not about half at \" \$1; bad = 1 }
		\$1 >= 16384 && \$6 < 0.3 * \$2 {
			print \"-0 8 collapses at \" \$1; bad = 1 }
		\$1 == 8192 && \$6 > 0.2 * \$4 {
			print \"-0 8 holds at 8 KiB\"; bad = 1 }
		END { exit bad }"
'

test_expect_success 'su08g: -O -b 8K --random: 8 KiB writes beat 16 KiB ones' '
	au8 sandisk-su08g 2 --random >r &&
	cat r &&
	a=$(awk "\$1 == 8192 { print \$2 }" r) &&
	b=$(awk "\$1 == 16384 { print \$2 }" r) &&
	awk -v a="$a" -v b="$b" "BEGIN { exit !(a > 2 * b) }"
'

test_expect_success 'su08g: 16 KiB writes do not halve (8 KiB program unit)' '
	"$FLASHBENCH" -O -e 4M -b 16K -0 1 sim:sandisk-su08g >out 2>/dev/null &&
	rates out >r && cat r &&
	a=$(awk "\$1 == 32768 { print \$2 }" r) &&
	b=$(awk "\$1 == 16384 { print \$2 }" r) &&
	awk -v a="$a" -v b="$b" "BEGIN { exit !(b > 0.75 * a) }"
'

# ---- Toshiba, 7 open, 32 KiB program unit ----

test_expect_success 'toshiba: -O -0 7 holds, -0 8 falls off below 1 MiB' '
	au toshiba-7au 7 >r7 &&
	au toshiba-7au 8 >r8 &&
	cat r7 r8 &&
	holds r7 &&
	falls_off r8 r7 $MIB &&
	a=$(awk "\$1 == 4194304 { print \$2 }" r7) &&
	b=$(awk "\$1 == 4194304 { print \$2 }" r8) &&
	awk -v a="$a" -v b="$b" "BEGIN { exit !(b >= 0.9 * a) }"
'

test_expect_success 'toshiba: rate more than halves from 32 KiB to 16 KiB' '
	"$FLASHBENCH" -O -e 4M -b 16K -0 1 sim:toshiba-7au >out 2>/dev/null &&
	test_lines_match out "$AU_RE" &&
	rates out >r && cat r &&
	a=$(awk "\$1 == 32768 { print \$2 }" r) &&
	b=$(awk "\$1 == 16384 { print \$2 }" r) &&
	test -n "$a" && test -n "$b" &&
	awk -v a="$a" -v b="$b" "BEGIN { exit !(b <= 0.52 * a) }"
'

# ---- SanDisk 20 AU ----

# The real card's -0 20 table already drops to 71% of its top rate at
# 128 KiB (4 ms per write), so "holds" asks for 55% down to 64 KiB.
test_expect_success 'sandisk-20au: -O -0 20 holds, -0 21 falls off below 2 MiB' '
	au sandisk-20au 20 >r20 &&
	au sandisk-20au 21 >r21 &&
	cat r20 r21 &&
	holds r20 0.55 &&
	falls_off r21 r20 $((2 * MIB))
'

# ---- the presets fitted to corpus cards, and plain ----

for p in readme-example wirenboard-su04g wirenboard-sa04g wirenboard-ncard \
	 plain; do
	test_expect_success "$p: -a and -O print their lines" "
		\"\$FLASHBENCH\" -a -c 2 sim:$p >out 2>err &&
		test ! -s err &&
		test_lines_match out \"\$ALIGN_RE\" &&
		test \"\$(head -n 1 out | cut -f1)\" = \"align \$(first_align $p)\" &&
		\"\$FLASHBENCH\" -O --erasesize=4M --blocksize=256K -0 3 \
			sim:$p >out 2>err &&
		test_lines_match out \"\$AU_RE\" &&
		test \"\$(wc -l <out)\" = 5
	"
done

# ---- a 12 MiB erase block, with --threes ----

test_expect_success 'erase=12M: -a --threes: large diff at 12 MiB multiples only' '
	"$FLASHBENCH" -a --threes sim:erase=12M,page=16K >out &&
	test_lines_match out "$ALIGN_RE" &&
	diffs out >d && cat d &&
	for a in 12582912 25165824 50331648 100663296 8388608 16777216; do
		grep -q "^$a " d || { echo "no line for $a"; return 1; }
	done &&
	awk "\$1 % 12582912 == 0 && \$2 < 50000 { print \"small at \" \$1; bad = 1 }
	     \$1 % 12582912 != 0 && \$2 > 20000 { print \"large at \" \$1; bad = 1 }
	     END { exit bad }" d
'

test_expect_success 'erase=12M: without --threes no line shows a boundary' '
	"$FLASHBENCH" -a sim:erase=12M,page=16K >out &&
	diffs out >d &&
	! grep -q "^12582912 " d &&
	awk "\$2 > 20000 { print \"large at \" \$1; bad = 1 } END { exit bad }" d
'

# ---- bad ranges ----

# fails_at FILE LO HI: FILE has exactly one line "... at OFF (+LEN): ..."
# (besides an announcement), and [OFF, OFF + LEN) overlaps [LO, HI).
fails_at() {
	grep -v " overwrites bytes " "$1" >errline
	cat errline
	test "$(wc -l <errline)" = 1 &&
	set -- $(sed -n 's/.* at \([0-9]*\) (+\([0-9]*\)): .*/\1 \2/p' errline) \
		"$2" "$3" &&
	test $# = 4 &&
	test "$1" -lt "$4" && test $(($1 + $2)) -gt "$3"
}

test_expect_success 'bad=4M+1M: -a exits 1 with one line naming the offset' '
	timeout 20 "$FLASHBENCH" -a sim:bad=4M+1M >out 2>err
	code=$?
	echo "exit $code" &&
	test $code = 1 &&
	fails_at err $((4 * MIB)) $((5 * MIB)) &&
	grep -i "input/output error" err &&
	test_lines_match out "$ALIGN_RE"
'

test_expect_success 'bad=4M+1M: -a beyond the bad range is not affected' '
	"$FLASHBENCH" -a sim:bad=4000M+1M >out 2>err &&
	test ! -s err &&
	"$FLASHBENCH" -a sim: >clean &&
	test_cmp clean out
'

test_expect_success 'slow=1G+64M:2M: -t reads that range at 2 MB/s, the rest as before' '
	"$FLASHBENCH" -t --offset=1G sim:noise=0,slow=1G+64M:2M >slow &&
	"$FLASHBENCH" -t --offset=2G sim:noise=0,slow=1G+64M:2M >fast &&
	"$FLASHBENCH" -t --offset=2G sim:noise=0 >plain &&
	cat slow fast &&
	grep "^read 1048576-byte blocks for .*: 2 MB/s; per second: min 2," slow &&
	test_cmp plain fast
'

test_expect_success 'slow=: a read inside takes read-lat + its bytes at the rate, one half inside half of it' '
	"$FLASHBENCH" -i -c 1 --blocksize=1M --offset=1G \
		sim:noise=0,read-lat=1ms,page-cross=0,slow=1G+64M:2M >out &&
	cat out &&
	grep "^1048576 bytes: min 525ms avg 525ms max 525ms: 2 MB/s\$" out &&
	grep "^67108864 bytes: min 33\.56s .*: 2 MB/s\$" out &&
	grep "^134217728 bytes: .*: 3\.6[0-9] MB/s\$" out
'

test_expect_success 'bad=17M+1M: -O exits 1 with one line naming the offset' '
	timeout 20 "$FLASHBENCH" -O -e 4M -b 256K sim:bad=17M+1M >out 2>err
	code=$?
	echo "exit $code" &&
	test $code = 1 &&
	fails_at err $((17 * MIB)) $((18 * MIB)) &&
	test ! -s out
'

test_expect_success 'bad=17M+1M: erase of 16M+4M exits 1 naming the offset' '
	timeout 20 "$ERASE" sim:bad=17M+1M 16M 4M >out 2>err
	code=$?
	echo "exit $code" &&
	test $code = 1 &&
	grep "^erase: " err &&
	fails_at err $((17 * MIB)) $((18 * MIB))
'

test_expect_success 'bad=17M+1M: erase elsewhere succeeds' '
	"$ERASE" sim:bad=17M+1M 32M 4M >out 2>err &&
	test ! -s err
'

# ---- write-protected ----

# refused_ro PROG ARGS...: exit 1, nothing on stdout, one line on stderr
# saying the card is write-protected.
refused_ro() {
	rr_prog=$1
	shift
	timeout 20 "$rr_prog" "$@" >out 2>err </dev/null
	rr_code=$?
	cat err
	test "$rr_code" = 1 || { echo "exit $rr_code, want 1"; return 1; }
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	grep -i "write-protected" err
}

test_expect_success 'ro: -O is refused cleanly' '
	refused_ro "$FLASHBENCH" -O -e 4M -b 256K sim:ro
'

test_expect_success 'ro: -A is refused cleanly' '
	refused_ro "$FLASHBENCH" -A -c 2 sim:toshiba-7au,ro
'

test_expect_success 'ro: -f is refused cleanly' '
	refused_ro "$FLASHBENCH" -f -e 4M -b 256K sim:sandisk-20au,ro
'

test_expect_success 'ro: erase is refused cleanly' '
	refused_ro "$ERASE" sim:ro 16M 4M
'

test_expect_success 'ro: -a still works and matches the writable card' '
	"$FLASHBENCH" -a -c 2 sim:ro >out 2>err &&
	test ! -s err &&
	"$FLASHBENCH" -a -c 2 sim: >rw &&
	test_cmp rw out
'

# ---- one sequential write rate per card ----

# csv_value FILE KIND COLUMN: COLUMN (by its header name) of the first row
# of FILE whose kind is KIND.
csv_value() {
	awk -F, -v kind="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
		$2 == kind && at[col] { print $at[col]; found = 1; exit }
		END { exit !found }' "$1"
}

# Whole erase blocks written one after the other run at the rate of one
# written alone: --write-speed (3 s and 40 s, which wraps its span on the
# faster cards), --class-check's sequential write and the first row of
# -O -0 1 (one 4 MiB block) agree within 10%.
for p in sandisk-su08g toshiba-7au sandisk-20au readme-example \
	 wirenboard-su04g wirenboard-sa04g wirenboard-ncard plain; do
	test_expect_success "one sequential write rate on $p" "
		\"\$FLASHBENCH\" --write-speed --format=csv sim:$p >ws 2>/dev/null &&
		\"\$FLASHBENCH\" --write-speed --time=40 --format=csv sim:$p \
			>long 2>/dev/null &&
		\"\$FLASHBENCH\" --class-check --format=csv sim:$p >cc 2>/dev/null &&
		\"\$FLASHBENCH\" -O -0 1 --format=csv sim:$p >au 2>/dev/null &&
		au=\$(csv_value au measurement rate) &&
		for r in \$(csv_value ws summary bytes_per_s) \\
			 \$(csv_value long summary bytes_per_s) \\
			 \$(csv_value cc measured write_bytes_per_s); do
			echo \"$p: \$r B/s against -O -0 1's \$au B/s\" &&
			awk -v r=\$r -v au=\$au \\
				'BEGIN { exit !(r > 0.9 * au && r < 1.1 * au) }' ||
			return 1
		done
	"
done

# ---- determinism ----

for t in "-a -c 2" "-O -e 4M -b 256K -0 7" "-O -r -e 4M -b 256K" \
	 "-f -e 4M -b 256K -c 2" "-A -c 2" "-i -c 2"; do
	test_expect_success "same command twice, same bytes: $t" "
		\"\$FLASHBENCH\" $t sim:toshiba-7au >one 2>one.err &&
		\"\$FLASHBENCH\" $t sim:toshiba-7au >two 2>two.err &&
		test -s one &&
		cmp one two && cmp one.err two.err
	"
done

test_expect_success 'another seed with noise gives other output' '
	"$FLASHBENCH" -O -e 4M -b 256K sim:noise=0.05,seed=3 >one 2>/dev/null &&
	"$FLASHBENCH" -O -e 4M -b 256K sim:noise=0.05,seed=4 >two 2>/dev/null &&
	! cmp -s one two &&
	"$FLASHBENCH" -a -c 2 sim:noise=0.05,seed=3 >one &&
	"$FLASHBENCH" -a -c 2 sim:noise=0.05,seed=4 >two &&
	! cmp -s one two
'

test_expect_success 'without noise the seed changes nothing' '
	"$FLASHBENCH" -a -c 2 sim:noise=0,seed=3 >one &&
	"$FLASHBENCH" -a -c 2 sim:noise=0,seed=4 >two &&
	test_cmp one two
'

test_done
