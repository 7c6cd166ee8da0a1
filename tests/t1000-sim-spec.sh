#!/bin/sh
# The simulated card as the command line sees it: spec errors are usage
# errors naming the key, a tiny card takes a preset's defaults shrunk to
# fit, a write-protected card refuses writes only, and the same spec and
# seed give the same output.
. "$(dirname "$0")/lib.sh"

test_expect_success 'unknown key is a usage error naming it' '
	test_expect_code 2 "$FLASHBENCH" -a sim:foo=1 2>err &&
	grep "unknown key '\''foo'\''" err
'

test_expect_success 'bad value is a usage error naming the key' '
	test_expect_code 2 "$FLASHBENCH" -a sim:erase=x 2>err &&
	grep "bad value for erase" err
'

test_expect_success 'a misspelt key beginning with s lists the SLC keys among its likely ones' '
	test_usage_error flashbench \
		"^sim: unknown key .slcx. \(keys with .s.: .*, slc, slc-fold; all in doc/simulator.md\)$" \
		-a sim:slcx=1
'

test_expect_success 'cache-any takes 0 or 1' '
	test_usage_error flashbench "^sim: bad value for cache-any: .2.$" \
		-a sim:cache-any=2
'

test_expect_success 'page must divide the erase block' '
	test_expect_code 2 "$FLASHBENCH" -a sim:page=48K 2>err &&
	grep "page 48KiB does not divide erase 4MiB" err
'

test_expect_success 'a 1 MiB card opens: the preset FAT area shrinks to fit' '
	"$FLASHBENCH" -a sim:size=1M >out &&
	grep "^align 524288	" out &&
	test "$(grep -c "^align " out)" -gt 3
'

test_expect_success 'an explicit FAT area too big for the card is refused' '
	test_expect_code 2 "$FLASHBENCH" -a sim:size=1M,fat=2 2>err &&
	grep "fat 2 exceeds the card.s 1 erase blocks" err
'

test_expect_success 'write-protected card refuses a write test' '
	test_expect_code 1 "$FLASHBENCH" -O sim:ro 2>err &&
	grep "write-protected" err
'

test_expect_success 'write-protected card still reads' '
	"$FLASHBENCH" -a sim:toshiba-7au,ro >out &&
	grep "^align 4194304" out
'

test_expect_success 'same spec and seed, same output' '
	"$FLASHBENCH" -a sim:noise=0.05,seed=9 >one &&
	"$FLASHBENCH" -a sim:noise=0.05,seed=9 >two &&
	test_cmp one two
'

test_expect_success 'another seed, other output' '
	"$FLASHBENCH" -a sim:noise=0.05,seed=9 >one &&
	"$FLASHBENCH" -a sim:noise=0.05,seed=10 >two &&
	! cmp -s one two
'

test_done
