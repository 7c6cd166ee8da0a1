#!/bin/sh
# t2510: one table of exit codes.  exitcode.h is the table the programs
# use; flashbench.1's EXIT STATUS lists exactly its codes (the signal
# base as 130 and 143), and erase.1 and flashemu.1 list none outside it.

. "$(dirname "$0")/lib.sh"

# header_codes: the codes exitcode.h defines, one a line, sorted
header_codes() {
	sed -n 's/^[[:space:]]*EXIT_[A-Z_]* = \([0-9]*\),.*/\1/p' \
		"$TOP/lib/exitcode.h" |
		sed 's/^128$/130\n143/' | sort -n
}

# page_codes PAGE: the codes an EXIT STATUS section lists as .B N or
# .BR "N, M"
page_codes() {
	sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$1" |
		sed -n 's/^\.BR\{0,1\} \([0-9][0-9, "]*\).*/\1/p' |
		tr -d '"' | tr ', ' '\n\n' | grep . | sort -n
}

test_expect_success 'exitcode.h defines the codes the man page promises' '
	header_codes >header &&
	printf "0\n1\n2\n3\n4\n130\n143\n" >want &&
	test_cmp want header
'

test_expect_success 'flashbench.1 EXIT STATUS lists exactly the table' '
	header_codes >header &&
	page_codes "$TOP/doc/flashbench.1" >page &&
	test_cmp header page
'

test_expect_success 'erase.1 and flashemu.1 list only codes of the table' '
	header_codes >header &&
	for page in erase.1 flashemu.1; do
		page_codes "$TOP/doc/$page" >used &&
		echo "$page: $(tr "\n" " " <used)" &&
		test -s used &&
		! grep -vxFf header used || return 1
	done
'

test_done
