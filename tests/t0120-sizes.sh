#!/bin/sh
# t0120: rooms of a size one can read.  No source file of the tree (the
# .c and .h files outside tests/, fuzz/, bench/ and build/) is over 1,000
# lines, vm.c aside (the interpreter's one switch), and no C function is
# over 80 lines.  Offenders are printed, one a line.
#
# The scanner (sizes.awk below) finds a function by its braces, as the
# house writes them (Linux kernel style): it opens with a line that is
# "{" alone, right after a line ending in ")" (the last line of its
# signature), and closes at the next line that is "}" alone.  Its length
# is the lines from that "{" to that "}", both counted.  Its name is the
# first "word(" of the last line before the "{" that starts in column 0
# with a letter or "_", where the signature begins.  A struct body or an
# initializer opens at the end of a line ("= {", "struct x {"), so none
# is taken for a function.

. "$(dirname "$0")/lib.sh"

# The allow-list: what is over the limits today while other cuts of the
# tree are under way.  One a line, as the scanner names it without its
# count: "FILE" for a file over 1,000 lines, "FILE: NAME()" for a
# function over 80.  Take an entry off when its cut lands (the second
# test fails until then: an entry that no longer offends); the list is
# to end empty.
cat >"$TRASH/allow-list" <<'EOF_ALLOWED'
EOF_ALLOWED

cat >"$TRASH/sizes.awk" <<'AWK'
# awk -v max_file=N -v max_fn=M -f sizes.awk FILE...: "FILE: N lines"
# for a file over max_file lines (vm.c aside), "FILE: NAME(): N lines
# (from line L)" for a function over max_fn, in the order met.
function flush_file() {
	if (file != "" && lines > max_file && file != "vm.c")
		printf "%s: %d lines\n", file, lines
}
FNR == 1 {
	flush_file()
	file = FILENAME
	sub(/^\.\//, "", file)
	prev = ""; head = ""; start = 0
}
{ lines = FNR }
/^[A-Za-z_]/ { head = $0 }
$0 == "{" && prev ~ /\)[ \t]*$/ && !start {
	start = FNR
	name = "?"
	if (match(head, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = substr(head, RSTART, RLENGTH)
		sub(/[ \t]*\($/, "", name)
	}
}
$0 == "}" && start {
	if (FNR - start + 1 > max_fn)
		printf "%s: %s(): %d lines (from line %d)\n", file, name,
		       FNR - start + 1, start
	start = 0
}
{ prev = $0 }
END { flush_file() }
AWK

# offenders DIR: what the scanner finds in the sources of the tree at DIR
offenders() {
	(cd "$1" && find . \( -path ./tests -o -path ./fuzz -o \
		-path ./bench -o -path ./build -o -path ./.git \) -prune -o \
		\( -name "*.c" -o -name "*.h" \) -print |
		LC_ALL=C sort | sed "s|^\./||" |
		xargs awk -v max_file=1000 -v max_fn=80 -f "$TRASH/sizes.awk")
}

# names_and_allowed: in the current directory, "names" (the tree's
# offenders as the allow-list names them: without their counts) and
# "allowed" (the allow-list), both sorted for comm
names_and_allowed() {
	offenders "$TOP" | sed "s/: [0-9]* lines.*//" | LC_ALL=C sort >names &&
	LC_ALL=C sort "$TRASH/allow-list" >allowed
}

test_expect_success 'no file over 1,000 lines nor function over 80 but those allowed' '
	names_and_allowed &&
	LC_ALL=C comm -23 names allowed >unexpected &&
	test_cmp /dev/null unexpected
'

test_expect_success 'every file and function on the allow-list is still over' '
	names_and_allowed &&
	LC_ALL=C comm -13 names allowed >stale &&
	test_cmp /dev/null stale
'

# planted_function NAME BODY_LINES: a function in house style whose
# signature takes two lines and whose braces hold BODY_LINES lines
planted_function() {
	printf "static int %s(int a,\n\t\tint b)\n{\n" "$1"
	i=0
	while [ $i -lt "$2" ]; do
		printf "\ta += b;\n"
		i=$((i + 1))
	done
	printf "}\n\n"
}

test_expect_success 'the scanner sees a planted long file and a planted long function' '
	mkdir -p tree/lib tree/tests &&
	seq 1001 | sed "s/.*/int x_&;/" >tree/lib/long.c &&
	seq 1000 | sed "s/.*/int y_&;/" >tree/lib/full.c &&
	seq 2000 | sed "s/.*/int z_&;/" >tree/vm.c &&
	seq 2000 | sed "s/.*/int t_&;/" >tree/tests/unit-long.c &&
	{
		printf "static const int table[] = {\n" &&
		seq 100 | sed "s/.*/\t&,/" &&
		printf "};\n\n" &&
		planted_function fits 78 &&
		planted_function too_long 79
	} >tree/lib/fn.c &&
	offenders tree >found &&
	cat >expect <<-\EOF &&
	lib/fn.c: too_long(): 81 lines (from line 189)
	lib/long.c: 1001 lines
	EOF
	test_cmp expect found
'

# The README answers the user's questions in at most 300 lines; the
# details live in doc/.
test_expect_success 'README.md is at most 300 lines' '
	lines=$(wc -l <"$TOP/README.md") &&
	echo "README.md: $lines lines" &&
	test "$lines" -le 300
'

test_done
