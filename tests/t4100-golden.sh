#!/bin/sh
# t4100: golden files.  The simulated card is deterministic, so every test
# on a preset prints the same bytes on every run: each output (text, CSV,
# JSON) is compared whole with its file under tests/golden/, and any
# change to any output shows up in review as a change to those files.
#
# After a change on purpose, write the files anew and review the diff:
#     GOLDEN_UPDATE=1 sh tests/t4100-golden.sh
#
# What could vary between runs is normalized in normalize() below, and
# only there: the program's path, the first word of JSON's "command".
# Device paths are sim: presets, --analyze reads a path relative to
# tests/, and the runs report simulated (device) time, never wall time.
. "$(dirname "$0")/lib.sh"

GOLDEN=$TESTS_DIR/golden
CARD=sim:sandisk-su08g

# NAME<TAB>ARGUMENTS, run in tests/ with each --format; short runs
cases=$TRASH/cases.tsv
cat >"$cases" <<EOF
align	-a -c 2 $CARD
write-align	-A -c 2 $CARD
open-au	-O $CARD
open-au-random	-O -r $CARD
find-fat	-f $CARD
scatter	-s -c 2 $CARD
interval	-i -c 2 $CARD
read-speed	-t --time=0.2 $CARD
write-speed	--write-speed --time=0.2 $CARD
iops	--iops --time=0.2 $CARD
class-check	--class-check --time=0.2 $CARD
detect	--detect $CARD
detect-write	--detect --write $CARD
info	--info $CARD
analyze	--analyze analyze/su08g.txt
list-programs	--list-programs
EOF

# The one place where run-to-run differences are taken out.
normalize() {
	sed 's|^\(  "command": "\)[^ "]*|\1flashbench|'
}

# golden_run ARGS... FORMAT: the normalized output, to standard output
golden_run() {
	gr_format=$1
	shift
	(cd "$TESTS_DIR" && "$FLASHBENCH" "$@" --format="$gr_format" \
		2>/dev/null </dev/null) >"$TRASH/raw" &&
	normalize <"$TRASH/raw"
}

ext_of() {
	case $1 in text) echo txt ;; *) echo "$1" ;; esac
}

test -n "$GOLDEN_UPDATE" && mkdir -p "$GOLDEN"

while IFS=$tab read -r name args; do
	for format in text csv json; do
		file=$GOLDEN/$name.$(ext_of $format)
		if [ -n "$GOLDEN_UPDATE" ]; then
			test_expect_success "$name --format=$format: written" "
				golden_run $format $args >'$file'
			"
			continue
		fi
		test_expect_success "$name --format=$format: as $name.$(ext_of $format)" "
			golden_run $format $args >got &&
			test_cmp '$file' got
		"
	done
done <"$cases"

test_expect_success 'every golden file belongs to a case' '
	ls "$GOLDEN" | sort >files &&
	while IFS=$tab read -r name args; do
		printf "%s\n" "$name.csv" "$name.json" "$name.txt"
	done <"$cases" | sort >expect &&
	test_cmp expect files
'

test_done
