#!/bin/sh
# t8100: the libFuzzer targets in fuzz/ build, replay their regression
# inputs (tests/fuzz-regressions/NAME/) and fuzz a few seconds each on
# their corpus (tests/fuzz-corpus/NAME/) without a crash.  Skipped
# without clang's libFuzzer, and in the sanitizer pass: the targets
# carry their own sanitizers.

. "$(dirname "$0")/lib.sh"

FUZZ_CC=${FUZZ_CC:-clang}
FUZZ_SHORT_SECONDS=${FUZZ_SHORT_SECONDS:-3}
names=$(cd "$TOP/fuzz" && ls fuzz-*.c | sed 's/^fuzz-//; s/\.c$//')

have_libfuzzer() {
	cat >"$TRASH/probe.c" <<-\EOF
	#include <stddef.h>
	#include <stdint.h>
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
	{
		(void)data;
		(void)size;
		return 0;
	}
	EOF
	"$FUZZ_CC" -fsanitize=fuzzer,address,undefined -o "$TRASH/probe" \
		"$TRASH/probe.c" >/dev/null 2>&1 &&
		"$TRASH/probe" -runs=10 >/dev/null 2>&1
}

if [ -n "$FLASHBENCH_UNDER_SANITIZER" ]; then
	test_skip 'fuzz targets run' 'sanitizer pass'
	test_done
	exit
fi
if ! have_libfuzzer; then
	test_skip 'fuzz targets run' "no libFuzzer in $FUZZ_CC"
	test_done
	exit
fi

test_expect_success 'fuzz targets build' '
	MAKEFLAGS= MAKELEVEL= make -s -C "$TOP" \
		-j"$(nproc 2>/dev/null || echo 2)" FUZZ_CC="$FUZZ_CC" fuzz-build
'

test_expect_success 'every target has a corpus and finds it' '
	for name in $names; do
		test -n "$(ls "$TOP/tests/fuzz-corpus/$name")" || return 1
	done
'

# one run for all, two targets at a time; a TAP line for each below
(cd "$TRASH" && FUZZ_JOBS=2 sh "$TOP/fuzz/run.sh" "$FUZZ_SHORT_SECONDS" \
	"$TOP/build/fuzz" "$TRASH/fuzz" $names >/dev/null 2>&1)

for name in $names; do
	test_expect_success "fuzz-$name: regressions replay, then no crash" "
		res=\"\$TRASH/fuzz/$name.res\" &&
		cat \"\$res\" &&
		grep -q '^$name: [0-9]* runs, 0 crashes\$' \"\$res\" ||
		{ tail -n 40 \"\$TRASH/fuzz/$name.log\"; false; }
	"
done

test_done
