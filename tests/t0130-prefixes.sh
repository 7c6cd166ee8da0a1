#!/bin/sh
# t0130: exported names carry their room's prefix.  Every function a
# header of modes/ declares starts with "mode_", but those on the
# allow-list below, which are to be renamed and taken off it.  The check
# prints each offender as "modes/FILE.h: NAME()", one a line.

. "$(dirname "$0")/lib.sh"

require python3

# one collation for sort and comm
LC_ALL=C
export LC_ALL

# The allow-list: today's unprefixed exports of modes/, as the check
# names them.  Take an entry off when its rename lands (the second test
# fails until then); the list is to end empty.
cat >"$TRASH/allow-list" <<'EOF_ALLOWED'
EOF_ALLOWED

# prefix.py TOP: the functions modes/*.h declares without "mode_"
cat >"$TRASH/prefix.py" <<'PY'
import glob, os, re, sys

top = sys.argv[1]
names = []
for path in sorted(glob.glob(os.path.join(top, "modes", "*.h"))):
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    # a declaration starts in column 0; a struct's function pointers
    # ("int (*emit)(...)") and static inlines are no exports
    for m in re.finditer(r"^(?!static\b|#|typedef\b)[A-Za-z][^;{}()=]*?"
                         r"\b(\w+)\([^;{}]*\)\s*;", text, re.M):
        if not m.group(1).startswith("mode_"):
            names.append("%s: %s()" % (os.path.relpath(path, top),
                                       m.group(1)))
sys.stdout.write("".join(n + "\n" for n in sorted(names)))
PY

test_expect_success 'every function modes/ exports starts with mode_, but those allowed' '
	python3 "$TRASH/prefix.py" "$TOP" | sort >found &&
	sort "$TRASH/allow-list" >allowed &&
	comm -23 found allowed >unexpected &&
	test_cmp /dev/null unexpected
'

test_expect_success 'every name on the allow-list is still unprefixed' '
	comm -13 found allowed >stale &&
	test_cmp /dev/null stale
'

test_expect_success 'the check sees a planted unprefixed export, not a prefixed one' '
	mkdir -p tree/modes &&
	cp "$TOP"/modes/*.h tree/modes/ &&
	printf "int mode_fine(void);\nvoid planted(const char *what,\n\t     int n);\n" \
		>tree/modes/planted.h &&
	python3 "$TRASH/prefix.py" tree | sort >found.planted &&
	comm -23 found.planted allowed >unexpected &&
	echo "modes/planted.h: planted()" >expect &&
	test_cmp expect unexpected
'

test_done
