#!/bin/sh
# t2700: make install honours PREFIX and DESTDIR and installs the programs
# and their man pages; erase as flashbench-erase, as Debian names it.
. "$(dirname "$0")/lib.sh"

test_expect_success 'make install puts binaries and man pages under DESTDIR/PREFIX' '
	make -C "$TOP" -s install DESTDIR="$TRASH/root" PREFIX=/opt/fb \
		>/dev/null &&
	test -x root/opt/fb/bin/flashbench &&
	test -x root/opt/fb/bin/flashemu &&
	test -f root/opt/fb/share/man/man1/flashbench.1 &&
	test -f root/opt/fb/share/man/man1/flashemu.1 &&
	root/opt/fb/bin/flashbench --version | grep -q "^flashbench "
'

test_expect_success 'BINDIR and MANDIR override the PREFIX layout' '
	make -C "$TOP" -s install DESTDIR="$TRASH/other" BINDIR=/b \
		MANDIR=/m >/dev/null &&
	test -x other/b/flashbench &&
	test -f other/m/man1/flashbench-erase.1
'

test_expect_success 'erase is installed as flashbench-erase, with its page' '
	make -C "$TOP" -s install DESTDIR="$TRASH/deb" PREFIX=/usr \
		>/dev/null &&
	test ! -e deb/usr/bin/erase &&
	test ! -e deb/usr/share/man/man1/erase.1 &&
	deb/usr/bin/flashbench-erase --version >version &&
	echo "erase 1.0" >expect &&
	test_cmp expect version &&
	cmp "$TOP/doc/erase.1" deb/usr/share/man/man1/flashbench-erase.1
'

test_expect_success groff 'the man pages render without warnings' '
	for page in flashbench erase; do
		groff -man -Tutf8 -ww "$TOP/doc/$page.1" >/dev/null 2>warn &&
		test ! -s warn || { cat warn; return 1; }
	done
'

test_expect_success 'every long option of --help is in the man page' '
	"$FLASHBENCH" --help | grep -oE -- "--[a-z][a-z0-9-]+" | sort -u >opts &&
	missing=0 &&
	while read -r opt; do
		name=${opt#--}
		grep -q -- "$(echo "$name" | sed "s/-/\\\\\\\\-/g")" \
			"$TOP/doc/flashbench.1" || { echo "missing: $opt"; missing=1; }
	done <opts &&
	test $missing = 0
'

test_expect_success 'the README holds no copy of --help (the man page has every option)' '
	"$FLASHBENCH" --help | grep -E "^ +(-[[:alnum:]], )?--" |
		sed "s/^ *//" >lines &&
	test -s lines &&
	! grep -F -f lines "$TOP/README.md"
'

test_done
