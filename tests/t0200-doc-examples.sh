#!/bin/sh
# t0200: every example in README.md, doc/*.md and the man pages that runs
# on a simulated card or a fixture under tests/ prints what it shows, so
# the docs cannot drift from the program.
#
# An example is a line "$ flashbench ...", "$ erase ..." or
# "$ flashemu ..." in a code block (a Markdown block indented by four
# spaces or fenced by ```, a man page's .nf/.fi block; a command ending in
# "\" goes on on the next line), followed by the output it shows, up to a
# blank line, the next example or the end of the block.  It is run (in a
# scratch directory where tests/ is the tree's, so fixtures and relative
# output files resolve) when its command names "sim:" or "tests/", unless
# its block is marked as one for a real device: a line
# "<!-- real device -->" before the block in Markdown, '.\" real device'
# in a man page.  Its standard output and error, together, are compared
# with what it shows: every line with runs of blanks made one space and
# leading and trailing blanks dropped; a shown line "..." stands for lines
# skipped, and splits the shown lines into runs; each run must be printed
# as consecutive lines, the runs in order, anything printed before, between
# and after them.  The exit status is not compared.
#
# A Markdown block after a line "<!-- setup -->" is a shell script (a loop
# that saves runs, say) that makes what the next example reads: it runs
# first, with the tree's flashbench first on PATH, in a fresh directory
# where that example then runs too, whatever its command names; it must
# succeed.

. "$(dirname "$0")/lib.sh"

FLASHEMU=${FLASHEMU:-$TOP/flashemu}

# doc_examples FILE DIR: write each example of FILE to DIR/N.cmd (the
# command), DIR/N.shown (its shown output), DIR/N.where ("FILE:LINE") and,
# when it is not to run, DIR/N.skip
doc_examples() {
	awk -v dir="$2" -v file="${1##*/}" '
	function end_example() {
		if (n && open) {
			close(dir "/" n ".shown")
			if (skip || (cmd !~ /sim:|tests\// && !with_setup))
				printf "" >(dir "/" n ".skip")
			close(dir "/" n ".skip")
		}
		open = 0
		cont = 0
	}
	function end_block() {
		end_example()
		inblock = 0
		skip = 0
		setup = 0
	}
	function content(text) {
		if (setup) {
			print text >(dir "/" (n + 1) ".setup")
			pending_setup = 1
			return
		}
		if (cont) {
			sub(/^[ \t]+/, "", text)
			cmd = cmd " " text
			cont = sub(/\\$/, "", cmd)
			if (!cont)
				print cmd >(dir "/" n ".cmd")
			return
		}
		if (text ~ /^\$ (flashbench|erase|flashemu)( |$)/) {
			end_example()
			n++
			open = 1
			with_setup = pending_setup
			pending_setup = 0
			cmd = substr(text, 3)
			printf "" >(dir "/" n ".shown")
			print file ":" NR >(dir "/" n ".where")
			close(dir "/" n ".where")
			cont = sub(/\\$/, "", cmd)
			if (!cont) {
				print cmd >(dir "/" n ".cmd")
				close(dir "/" n ".cmd")
			}
			return
		}
		if (!open)
			return
		if (text ~ /^[ \t]*$/) {
			end_example()
			return
		}
		print text >(dir "/" n ".shown")
	}
	function unroff(text) {
		gsub(/\\-/, "-", text)
		gsub(/\\\(mc/, "\302\265", text)
		gsub(/\\&/, "", text)
		gsub(/\\e/, "\\", text)
		return text
	}
	FILENAME ~ /\.md$/ {
		if ($0 ~ /^```/) {
			if (fence)
				end_block()
			else
				inblock = 1
			fence = !fence
			next
		}
		if (fence) {
			content($0)
			next
		}
		if ($0 ~ /^(    |\t)/ && $0 !~ /^[ \t]*$/) {
			inblock = 1
			line = $0
			sub(/^(    |\t)/, "", line)
			content(line)
			next
		}
		if (inblock)
			end_block()
		if ($0 ~ /<!-- real device -->/)
			skip = 1
		if ($0 ~ /<!-- setup -->/)
			setup = 1
		next
	}
	{
		if ($0 ~ /^\.\\" real device/) {
			skip = 1
			next
		}
		if ($0 ~ /^\.nf/) {
			inblock = 1
			next
		}
		if ($0 ~ /^\.fi/) {
			end_block()
			next
		}
		if (inblock && $0 !~ /^\./)
			content(unroff($0))
	}
	END { end_block() }
	' "$1"
}

# normalize: runs of blanks one space, no leading or trailing blanks
normalize() {
	sed -e 's/[[:space:]][[:space:]]*/ /g' -e 's/^ //' -e 's/ $//' "$1"
}

# shown_in SHOWN OUTPUT: every run of SHOWN's lines (split at "...") is
# in OUTPUT as consecutive lines, in order; else print the first line not
# found where it should be and fail
shown_in() {
	normalize "$1" >"$1.n" && normalize "$2" >"$2.n" &&
	awk '
	NR == FNR { out[++nout] = $0; next }
	$0 == "..." { if (nrun) runs++; nrun = 0; next }
	{ run[runs + 0, ++nrun] = $0; len[runs + 0] = nrun }
	END {
		if (nrun) runs++
		at = 1
		for (r = 0; r < runs; r++) {
			found = 0
			for (i = at; i + len[r] - 1 <= nout; i++) {
				for (k = 1; k <= len[r]; k++)
					if (out[i + k - 1] != run[r, k])
						break
				if (k > len[r]) {
					found = 1
					break
				}
			}
			if (!found) {
				for (k = 1; k <= len[r]; k++)
					print "  shown: " run[r, k]
				print "  not printed in that order"
				exit 1
			}
			at = i + len[r]
		}
	}' "$2.n" "$1.n"
}

# run_doc_examples FILE...: run every example of the FILEs that is to run,
# compare its output with what it shows, say each failure and how many
# ran (in DIR/ran); fail if one failed
run_doc_examples() {
	rde_dir=$(mktemp -d "$TRASH/examples.XXXXXX") &&
	mkdir "$rde_dir/run" && ln -s "$TOP/tests" "$rde_dir/run/tests" &&
	rde_failed=0 && rde_ran=0 && rde_i=0 &&
	for rde_file in "$@"; do
		rde_i=$((rde_i + 1))
		mkdir "$rde_dir/$rde_i" &&
		doc_examples "$rde_file" "$rde_dir/$rde_i" || return 1
		for rde_cmd in "$rde_dir/$rde_i"/*.cmd; do
			[ -f "$rde_cmd" ] || continue
			rde_ex=${rde_cmd%.cmd}
			[ -f "$rde_ex.skip" ] && continue
			rde_ran=$((rde_ran + 1))
			run_example "$rde_ex" "$rde_dir/run" || {
				rde_failed=1
				echo "$(cat "$rde_ex.where"): $(cat "$rde_cmd")"
				cat "$rde_ex.diff"
			}
		done
	done
	echo "$rde_ran" >"$TRASH/ran"
	echo "ran $rde_ran examples"
	test $rde_failed = 0
}

# setup_example EX DIR: make a directory of its own for EX beside DIR
# (tests/ in it as in DIR), run EX.setup there with the tree's flashbench
# and erase first on PATH, and print the directory; the script's output
# to EX.setup.out
setup_example() {
	se_dir=$1.dir se_bin=$1.bin
	mkdir "$se_dir" "$se_bin" && ln -s "$TOP/tests" "$se_dir/tests" &&
	for se_prog in flashbench:FLASHBENCH erase:ERASE; do
		printf '#!/bin/sh\nexec "$%s" "$@"\n' "${se_prog#*:}" \
			>"$se_bin/${se_prog%:*}" &&
		chmod +x "$se_bin/${se_prog%:*}" || return 1
	done &&
	(cd "$se_dir" && PATH="$se_bin:$PATH" timeout 600 sh "$1.setup") \
		>"$1.setup.out" 2>&1 </dev/null || {
		echo "  the setup before it failed:"
		sed 's/^/    /' "$1.setup.out" | tail -n 20
		return 1
	} >&2
	echo "$se_dir"
}

# run_example EX DIR: run EX.cmd in DIR (in a directory of its own after
# its setup, when it has one) with the tree's programs, output to EX.out,
# the comparison's complaint to EX.diff
run_example() {
	if [ -f "$1.setup" ]; then
		set -- "$1" "$(setup_example "$1" "$2" 2>"$1.diff")" &&
		[ -n "$2" ] || return 1
	fi
	re_cmd=$(cat "$1.cmd")
	case $re_cmd in
	flashbench*) re_prog='"$FLASHBENCH"' re_rest=${re_cmd#flashbench} ;;
	erase*) re_prog='"$ERASE"' re_rest=${re_cmd#erase} ;;
	flashemu*) re_prog='"$FLASHEMU"' re_rest=${re_cmd#flashemu} ;;
	esac
	(cd "$2" && eval "timeout 600 $re_prog $re_rest") >"$1.out" 2>&1 </dev/null
	shown_in "$1.shown" "$1.out" >"$1.diff" || {
		echo "  printed:" >>"$1.diff"
		sed 's/^/    /' "$1.out" | head -n 40 >>"$1.diff"
		return 1
	}
}

DOCS="$TOP/README.md $(ls "$TOP"/doc/*.md "$TOP"/doc/*.1 2>/dev/null)"

test_expect_success 'every example on sim: or tests/ prints the lines it shows' '
	run_doc_examples $DOCS
'

test_expect_success 'the docs hold examples that run, in README.md and the man pages' '
	test "$(cat ran)" -gt 0 &&
	mkdir one && doc_examples "$TOP/README.md" one &&
	test -n "$(cd one && ls *.cmd | while read -r c; do
		test -f "${c%.cmd}.skip" || echo "$c"; done)" &&
	mkdir man && doc_examples "$TOP/doc/flashbench.1" man &&
	ls man/*.cmd >/dev/null
'

test_expect_success 'a shown line edited by hand makes the examples fail' '
	mkdir edited &&
	doc_examples "$TOP/README.md" edited &&
	first=$(cd edited && for c in *.cmd; do
		n=${c%.cmd}
		test -f "$n.skip" || ! test -s "$n.shown" || { echo "$n"; break; }
	done) &&
	test -n "$first" &&
	line=$(cut -d: -f2 "edited/$first.where") &&
	awk -v at="$line" "NR > at && !done && /[0-9]/ {
		sub(/[0-9]/, \"9&\"); done = 1 } { print }" \
		"$TOP/README.md" >README.md &&
	! cmp -s "$TOP/README.md" README.md &&
	! run_doc_examples README.md >log 2>&1 &&
	grep "^README.md:$line: " log &&
	grep "not printed in that order" log
'

test_expect_success 'the README runs its --compare example after the loop that saves its runs' '
	mkdir readme && doc_examples "$TOP/README.md" readme &&
	compare=$(grep -l "^flashbench --compare \*-t.json" readme/*.cmd) &&
	test -n "$compare" &&
	test ! -f "${compare%.cmd}.skip" &&
	grep -q "^for card in " "${compare%.cmd}.setup" &&
	grep -q "^Compared 6 runs of 3 cards:$" "${compare%.cmd}.shown"
'

test_expect_success 'a setup block runs first, in a directory of its own' '
	printf "%s\n" "<!-- setup -->" "" \
		"    flashbench -t --time=1 --format=json -o a.json sim:" "" \
		"    \$ flashbench --compare a.json" \
		"    Compared 1 run of 1 card:" >setup.md &&
	run_doc_examples setup.md >log &&
	grep "^ran 1 examples" log &&
	sed "s/1 run of/2 runs of/" setup.md >wrong.md &&
	! run_doc_examples wrong.md >log &&
	grep "shown: Compared 2 runs of 1 card:" log &&
	sed "s/-o a.json/-o b.json/" setup.md >missing.md &&
	! run_doc_examples missing.md >log &&
	grep "a.json: No such file" log
'

test_expect_success 'a block marked as a real device is passed over' '
	printf "%s\n" "<!-- real device -->" "" \
		"    \$ flashbench -a sim:" "    no such line" >marked.md &&
	run_doc_examples marked.md >log &&
	grep "^ran 0 examples" log
'

test_done
