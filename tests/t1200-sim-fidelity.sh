#!/bin/sh
# t1200: the seed presets reproduce the published tables of the cards they
# stand for.  bench/fidelity.sh runs each table's command on its preset:
# every target table (the SU08G's align table and 7 open-AU sweeps, the
# Toshiba's 4, the SanDisk's 3) is within 1.25x on geometric mean and no
# row is more than 2x off.  The run is deterministic (virtual time), so a
# change to the simulator that loses fidelity fails here.
. "$(dirname "$0")/lib.sh"

FIDELITY="$TOP/bench/fidelity.sh"
SEEDS="$TESTS_DIR/fidelity/seeds.txt"

test_expect_success 'every seed target holds: mean <= 1.25x, no row > 2x' '
	sh "$FIDELITY" -t "$SEEDS" >out 2>err &&
	cat out &&
	test "$(grep -c " target " out)" = 15 &&
	! grep -q "MISSES\|FAILS" out &&
	awk "NR > 1 && (\$5 > 1.25 || \$6 > 2 || \$4 < 5) { bad = 1 }
	     END { exit bad }" out
'

test_expect_success 'the targets name each published table once' '
	sh "$FIDELITY" -t "$SEEDS" >out &&
	awk "NR > 1 { print \$1 }" out | sort >names &&
	sort -u names >unique &&
	test_cmp unique names &&
	for t in su08g-align su08g-O-1 su08g-O-6 su08g-O-7 su08g-O-8 \
		 su08g-O-random-2 su08g-O-random-6 su08g-O-random-7 \
		 toshiba-O-1 toshiba-O-6 toshiba-O-7 toshiba-O-8 \
		 sandisk-O-20 sandisk-O-21 sandisk-O-22; do
		grep -qx "$t" names || { echo "no $t"; return 1; }
	done
'

test_expect_success 'a card without the spill path misses the SU08G tables' '
	test_expect_code 1 env SIM_EXTRA=spill=0 sh "$FIDELITY" -t "$SEEDS" \
		>out &&
	grep "^su08g-O-7 .*MISSES" out &&
	grep "^su08g-O-8 .*MISSES" out
'

test_expect_success 'the corpus presets run every published table' '
	sh "$FIDELITY" "$TESTS_DIR/fidelity/corpus.txt" >out &&
	test "$(grep -c " figure " out)" = 48 &&
	! grep -q FAILS out &&
	for p in readme-example wirenboard-su04g wirenboard-sa04g \
		 wirenboard-ncard; do
		grep -q " $p " out || { echo "no $p"; return 1; }
	done
'

test_expect_success '-v prints each row with its ratio' '
	sh "$FIDELITY" -v -t "$SEEDS" >out 2>rows &&
	grep -q "^  8KiB  [0-9.e+]*/6.14e+05  [0-9.]*$" rows
'

test_done
