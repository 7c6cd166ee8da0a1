#!/bin/sh
# t0110: no mutable global state.  nm lists every object's writable data
# (types d, D, b, B: globals, file statics and a function's statics such
# as values.3) outside .data.rel.ro, which is const once relocated; each
# must be on the allow-list below: the flags signal handlers set, and
# what flashbench's handler reads (written once before it is set), the
# only state a handler can reach.  Everything else belongs to a run.

. "$(dirname "$0")/lib.sh"

require nm cc

# OBJECT: SYMBOL, one a line, sorted
cat >"$TRASH/allowed" <<'EOF_ALLOWED'
emu/flashemu.o: report_wanted
emu/flashemu.o: stop_signals
emu/flashemu.o: stop_signo
flashbench.o: pending_undo
flashbench.o: stop_signal
EOF_ALLOWED

# writable OBJECT...: "OBJECT: SYMBOL" for each writable data symbol
writable() {
	for o in "$@"; do
		nm -f sysv "$o" | awk -F'|' -v o="$o" '
			{ for (i = 1; i <= NF; i++)
				gsub(/^ +| +$/, "", $i) }
			$3 ~ /^[dDbB]$/ && $7 !~ /\.rel\.ro/ {
				print o ": " $1 }'
	done
}

test_expect_success 'only the allowed symbols are writable data' '
	(cd "$TOP/build" && writable $(find . -name "*.o" \
		-not -path "./sanitize/*" -not -path "./32/*" \
		-not -path "./armhf/*" -not -path "./fuzz/*" \
		-not -path "./tests/*" | sed "s|^\./||" | sort)) |
		sort >found &&
	test -s found &&
	test_cmp "$TRASH/allowed" found
'

test_expect_success 'the check sees a planted writable global and static' '
	cat >planted.c <<-\EOF_C &&
	static const char *const names[] = { "a", "b" };
	int counter;
	const char *name_of(int i);
	const char *name_of(int i)
	{
		static int calls;

		calls++;
		counter++;
		return names[i];
	}
	EOF_C
	cc -fPIE -O2 -c -o planted.o planted.c &&
	writable planted.o | sort >found &&
	printf "%s\n" "planted.o: calls.0" "planted.o: counter" >expect &&
	test_cmp expect found
'

test_done
