#!/bin/sh
# t1300: the simulated card's SLC write cache (slc=, slc-fold=).  Written
# from empty, a card with one takes its first SIZE bytes at the cache's
# rate and the rest at write-rate: --surface --write's speed map shows the
# step where the cache ends.  Time the card spends not writing (here, its
# reads) folds the cache at slc-fold, so the burst comes back; without
# that time it does not.  Bad values are usage errors.
. "$(dirname "$0")/lib.sh"

# step FILE: from a --surface --write JSON document, "OFFSET BURST
# NATIVE": the first window that writes at less than half the first
# one's rate, the first window's rate and the last one's.
step() {
	awk '/"kind": "surface-window"/ {
		match($0, /"offset_bytes": [0-9]+/)
		off = substr($0, RSTART + 16, RLENGTH - 16)
		match($0, /"write_bytes_per_s": [0-9]+/)
		rate = substr($0, RSTART + 21, RLENGTH - 21)
		if (n++ == 0) first = rate
		if (!at && rate < first / 2) at = off
		last = rate
	}
	END { print at + 0, first + 0, last + 0 }' "$1"
}

# within A B PERCENT: A is within PERCENT of B.
within() {
	awk -v a="$1" -v b="$2" -v p="$3" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'
}

test_expect_success 'surface --write shows the burst, then the native rate at the cache size' '
	"$FLASHBENCH" --surface --write -q --format=json \
		sim:size=1G,fake=1G,slc=256M >out.json &&
	set -- $(step out.json) && echo "step at $1, burst $2, native $3" &&
	within "$1" 268435456 10 &&
	within "$2" 43000000 10 &&
	within "$3" 10750000 10 &&
	"$FLASHBENCH" --surface --write -q --format=json \
		sim:size=1G,fake=1G >plain.json &&
	set -- $(step plain.json) && echo "without slc=: $*" &&
	test "$1" = 0 && within "$2" 10750000 10
'

test_expect_success 'slc=SIZE:RATE sets the burst rate, and the step moves with SIZE' '
	"$FLASHBENCH" --surface --write -q --format=json \
		sim:size=1G,fake=1G,slc=600M:30M >out.json &&
	set -- $(step out.json) && echo "step at $1, burst $2, native $3" &&
	within "$1" 629145600 10 &&
	within "$2" 30000000 10 &&
	within "$3" 10750000 10
'

# 64 MiB written four times in 4 MiB blocks, at 0, 64M, 128M and 192M;
# before the last, the card reads 256 MiB (about 13 s of its time) once
# with -c 2, not at all with -c 1.
cat >"$TRASH/burst.prog" <<'EOF'
format spaces
for part in linear 0 1 3 none {
	let t = for i in linear 0 1 16 total {
		write part * 67108864 + i * 4194304 4194304 random
	}
	report mbps rate 67108864 t
}
for r in linear 0 1 $count - 1 none {
	let t = for i in linear 0 1 64 total { read i * 4194304 4194304 }
}
let t = for i in linear 0 1 16 total {
	write 201326592 + i * 4194304 4194304 random
}
report mbps rate 67108864 t
newline
EOF

# burst READS SPEC: the four write rates in bytes/s, reading 256 MiB
# READS times before the last.
burst() {
	"$FLASHBENCH" --program=burst.prog -c $(($1 + 1)) --format=csv \
		"sim:$2" >out.csv 2>err &&
	head -n 1 out.csv | grep -q "^schema,kind,rate_0,rate_1,rate_2,rate_3," &&
	tail -n 1 out.csv | cut -d , -f 3-6 | tr , " "
}

test_expect_success 'reads fold the cache: the burst comes back after them' '
	set -- $(burst 1 size=1G,slc=64M) && echo "rates $*" &&
	within "$1" 43000000 10 &&
	within "$2" 10750000 10 &&
	within "$4" 43000000 10
'

test_expect_success 'without time to fold, the cache stays full' '
	set -- $(burst 0 size=1G,slc=64M) && echo "rates $*" &&
	within "$1" 43000000 10 &&
	within "$4" 10750000 10
'

test_expect_success 'slc-fold sets how fast: a slow fold brings back only part' '
	set -- $(burst 1 size=1G,slc=64M,slc-fold=1M) && echo "rates $*" &&
	awk -v r="$4" "BEGIN { exit !(r > 11000000 && r < 13000000) }"
'

test_expect_success 'slc=0 takes the cache away' '
	set -- $(burst 0 size=1G,slc=0) && echo "rates $*" &&
	within "$1" 10750000 10
'

test_expect_success 'a 256G card with an 8G cache opens without allocating it' '
	"$FLASHBENCH" --write-speed --stats sim:size=256G,slc=8G >out 2>err &&
	grep -E "^write 4194304-byte blocks .*: 4[0-9.]+ MB/s" out
'

test_expect_success 'bad slc values are usage errors' '
	test_usage_error flashbench "^sim: bad value for slc: .1M:0.$" \
		--write-speed sim:slc=1M:0 &&
	test_usage_error flashbench "^sim: bad value for slc: .100.$" \
		--write-speed sim:slc=100 &&
	test_usage_error flashbench "^sim: bad value for slc: .x:1M.$" \
		--write-speed sim:slc=x:1M &&
	test_usage_error flashbench "^sim: bad value for slc-fold: .0.$" \
		--write-speed sim:slc=1M,slc-fold=0 &&
	test_usage_error flashbench \
		"^sim: slc 2GiB is more than the card.s size 1GiB$" \
		--write-speed sim:size=1G,slc=2G &&
	test_usage_error flashbench \
		"^sim: slc-fold needs an SLC cache \(slc=SIZE\)$" \
		--write-speed sim:slc-fold=5M
'

test_done
