#!/bin/sh
# t0210: each program's long options are one set wherever they are listed:
# flashbench's --help, doc/flashbench.1 and its option table in the
# sources; flashemu's --help and doc/flashemu.1; erase's --help and
# doc/erase.1.  An option of a man page is one named in the tag of a .TP
# entry (the line after .TP); an option of --help one that starts an
# option line ("  -x, --name" or "      --name").

. "$(dirname "$0")/lib.sh"

FLASHEMU=${FLASHEMU:-$TOP/flashemu}

# help_options PROG: the long options that start PROG --help's lines
help_options() {
	"$1" --help | grep -oE -- '^ +(-[[:alnum:]], )?--[a-z][a-z0-9-]*' |
		grep -oE -- '--[a-z0-9-]+' | sort -u
}

# man_options PAGE: the long options in the tags of PAGE's .TP entries
man_options() {
	awk '/^\.TP/ { getline; print }' "$1" |
		grep -oE -- '\\-\\-[a-z][a-z0-9\\-]*[a-z0-9]' |
		sed 's/\\//g' | sort -u
}

# table_options: the name of each entry of flashbench's option table,
# option_defs[] in whichever source file defines it: the first string of
# each entry ({ ... }, TEST(...) or DECODE(...))
table_options() {
	src=$(cd "$TOP" && grep -l 'option_defs\[\] = {' *.c */*.c) &&
	test "$(echo "$src" | wc -l)" = 1 &&
	awk '/option_defs\[\] = \{/ { on = 1; next }
		on && /^};/ { exit }
		on { print }' "$TOP/$src" |
	awk '/^\t(\{|[A-Z_]+\()/ { want = 1 }
		want && /"/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s)
			print "--" s; want = 0 }' | sort -u
}

test_expect_success 'flashbench: --help and flashbench.1 name the same long options' '
	help_options "$FLASHBENCH" >help && test -s help &&
	man_options "$TOP/doc/flashbench.1" >man &&
	test_cmp help man
'

test_expect_success 'flashbench: the option table and --help name the same long options' '
	table_options >table && test -s table &&
	help_options "$FLASHBENCH" >help &&
	test_cmp table help
'

test_expect_success 'flashemu: --help and flashemu.1 name the same long options' '
	help_options "$FLASHEMU" >help && test -s help &&
	man_options "$TOP/doc/flashemu.1" >man &&
	test_cmp help man
'

test_expect_success 'erase: --help and erase.1 name the same long options' '
	help_options "$ERASE" >help && test -s help &&
	man_options "$TOP/doc/erase.1" >man &&
	test_cmp help man
'

test_done
