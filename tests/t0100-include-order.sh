#!/bin/sh
# t0100: the house's one direction.  Every include line of the sources
# names a header by its folder (lib/units.h, not units.h) and runs down
# the layers: lib; engines and dev.c; vm.c and vm/; analysis; output;
# identity; measure; records; modes; flashbench.c.  emu/ and erase.c include
# anything below modes.  No header of the tree shadows a system one,
# no header declares the functions of two .c files, and no object or
# dependency file lies beside the sources.

. "$(dirname "$0")/lib.sh"

require python3

cat >"$TRASH/order.py" <<'PY'
import glob, os, re, sys

top = sys.argv[1]
layers = ["lib", "engines", "vm", "analysis", "output", "identity",
          "measure", "records", "modes", "front"]
at_root = {"dev.c": "engines", "dev.h": "engines", "vm.c": "vm",
           "vm.h": "vm", "flashbench.c": "front", "erase.c": "emu"}

def layer(path):
    if path in at_root:
        return at_root[path]
    return path.split("/")[0] if "/" in path else None

def rank(name):
    # emu/ and erase.c stand beside modes: anything below it
    return layers.index("modes") if name == "emu" else layers.index(name)

bad = []
sources = [p for p in glob.glob("**/*.[ch]", root_dir=top, recursive=True)
           if p.split("/")[0] not in ("tests", "fuzz", "bench", "build")]
for path in sorted(sources):
    mine = layer(path)
    if mine is None:
        bad.append("%s: a source outside the folders" % path)
        continue
    for n, line in enumerate(open(os.path.join(top, path)), 1):
        m = re.match(r'#include "([^"]+)"', line)
        if not m:
            continue
        name = m.group(1)
        if not os.path.exists(os.path.join(top, name)):
            bad.append("%s:%d: %s is not named from the root" %
                       (path, n, name))
            continue
        theirs = layer(name)
        if theirs == mine:
            continue
        if theirs in ("front", "emu") or rank(theirs) > rank(mine) or \
           (mine != "emu" and rank(theirs) == rank(mine)):
            bad.append("%s:%d: %s (%s) includes %s (%s): upward" %
                       (path, n, path, mine, name, theirs))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

test_expect_success 'every include names its folder and runs down the layers' '
	python3 "$TRASH/order.py" "$TOP"
'

test_expect_success 'the check sees an include that runs up' '
	mkdir -p tree/lib tree/measure &&
	echo "#include \"measure/undo.h\"" >tree/lib/units.c &&
	: >tree/measure/undo.h &&
	! python3 "$TRASH/order.py" tree >out &&
	grep "lib/units.c:1: lib/units.c (lib) includes measure/undo.h (measure): upward" out
'

test_expect_success 'no header of the tree shadows a system header' '
	for h in $(cd "$TOP" && ls lib/*.h engines/*.h vm/*.h analysis/*.h \
			output/*.h identity/*.h measure/*.h records/*.h emu/*.h dev.h vm.h); do
		name=${h##*/}
		for dir in /usr/include /usr/include/linux \
				/usr/include/$(gcc -dumpmachine 2>/dev/null); do
			if [ -e "$dir/$name" ]; then
				echo "$h shadows $dir/$name"
				return 1
			fi
		done
	done
'

cat >"$TRASH/owners.py" <<'PY'
import glob, os, re, sys

# Which .c file defines each function, and which .c files the functions a
# header declares are defined in: one at the most.
top = sys.argv[1]
skip = ("tests", "fuzz", "bench", "build")
def ours(pattern):
    return [p for p in glob.glob(pattern, root_dir=top, recursive=True)
            if p.split("/")[0] not in skip]
defined = {}
for path in ours("**/*.c"):
    for line in open(os.path.join(top, path)):
        m = re.match(r"(?!static\b)[A-Za-z].*?\b(\w+)\(", line)
        if m and not line.rstrip().endswith(";"):
            defined.setdefault(m.group(1), set()).add(path)
bad = []
for path in sorted(ours("**/*.h")):
    text = re.sub(r"/\*.*?\*/", "", open(os.path.join(top, path)).read(),
                  flags=re.S)
    owners = set()
    for m in re.finditer(r"^(?!static\b|#|typedef\b)[A-Za-z][^;{}()]*?"
                         r"\b(\w+)\([^;{}]*\)\s*;", text, re.M):
        owners |= defined.get(m.group(1), set())
    if len(owners) > 1:
        bad.append("%s declares functions of %s" %
                   (path, ", ".join(sorted(owners))))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

test_expect_success 'no header declares the functions of two .c files' '
	python3 "$TRASH/owners.py" "$TOP"
'

test_expect_success 'the check sees a header that serves two .c files' '
	mkdir -p two/lib &&
	printf "int one(void);\nint two(void);\n" >two/lib/both.h &&
	printf "int one(void)\n{\n\treturn 1;\n}\n" >two/lib/one.c &&
	printf "int two(void)\n{\n\treturn 2;\n}\n" >two/lib/two.c &&
	! python3 "$TRASH/owners.py" two >out &&
	grep "lib/both.h declares functions of lib/one.c, lib/two.c" out
'

test_expect_success 'measure/ and identity/ include nothing from output/' '
	(cd "$TOP" && grep -rn "^#include \"output/" measure identity) >found ||
	test $? = 1 &&
	test_cmp /dev/null found
'

test_expect_success 'no object or dependency file outside build/' '
	(cd "$TOP" && find . -path ./build -prune -o \
		\( -name "*.o" -o -name "*.d" \) -print) >strays &&
	test_cmp /dev/null strays
'

test_done
