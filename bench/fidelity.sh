#!/bin/sh
# fidelity.sh: how close the simulated cards come to the real ones.  For
# each published table in the table files (default: tests/fidelity/*.txt)
# it runs the same command on the table's preset and prints the
# geometric-mean ratio between preset and real output and the worst row.
#
# Usage: bench/fidelity.sh [-t] [-v] [TABLE_FILE...]
#   -t  tables marked "target" only
#   -v  also every row: real and simulated columns, and its ratio
# SIM_EXTRA=KEY=VALUE,... adds keys to every preset (for fitting one).
# Exit 1 when a target table misses: a geometric mean above 1.25 or any
# row more than 2x off.  Deterministic: the simulated card's time is
# virtual, so the figures are the same on every machine.
#
# Table files hold blocks of
#   table NAME PRESET target|figure SOURCE -- ARGS
#   ROW...            (lines as the tool prints them)
#   end
# Open-AU rows "SIZE RATE" compare rates.  Align rows compare pre, on and
# post as they are and diff after adding 10us to it (negative diffs count
# as 0): a boundary's step is what matters, and a 2us diff against a 5us
# one is the same "no step", not a 2.5x miss.  A row's ratio is that of its
# worst column; rows the real run did not reach (cut short with ^C) are
# not compared.

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
FLASHBENCH=${FLASHBENCH:-$top/flashbench}
targets_only=false verbose=0
while :; do
	case $1 in
	-t) targets_only=true ;;
	-v) verbose=1 ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || set -- "$top"/tests/fidelity/*.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/fidelity.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# compare REAL SIM: "rows geomean worst_ratio worst_label" of SIM against
# REAL, matched by their first field.
compare() {
	awk -v verbose=$verbose '
	function num(s,   v) {
		v = s + 0
		if (s ~ /ns$/) return v
		if (s ~ /µs$/ || s ~ /us$/) return v * 1e3
		if (s ~ /ms$/) return v * 1e6
		if (s ~ /s$/ && s !~ /\/s$/) return v * 1e9
		if (s ~ /G\/s$/) return v * 1e9
		if (s ~ /M\/s$/) return v * 1e6
		if (s ~ /K\/s$/) return v * 1e3
		return v
	}
	function ratio(a, b) { return a > b ? a / b : b / a }
	# the comparable columns of a row, into col[1..n]; returns n
	function columns(line, col,   f, n) {
		n = split(line, f, /[ \t]+/)
		if (f[1] == "align") {
			col[1] = num(f[4]); col[2] = num(f[6]); col[3] = num(f[8])
			col[4] = (num(f[10]) > 0 ? num(f[10]) : 0) + 10000
			return 4
		}
		col[1] = num(f[2])
		return 1
	}
	function key(line,   f) {
		split(line, f, /[ \t]+/)
		return f[1] == "align" ? f[2] : f[1]
	}
	NR == FNR { real[key($0)] = $0; order[++nreal] = key($0); next }
	{ got[key($0)] = $0 }
	END {
		worst = 0; label = "-"; sum = 0; cells = 0; rows = 0
		for (i = 1; i <= nreal; i++) {
			k = order[i]
			if (!(k in got)) { missing++; continue }
			n = columns(real[k], want); columns(got[k], have)
			row = 1
			for (c = 1; c <= n; c++) {
				if (want[c] <= 0 || have[c] <= 0) { bad++; continue }
				r = ratio(have[c], want[c])
				sum += log(r); cells++
				if (r > row) row = r
			}
			rows++
			if (verbose) {
				line = "  " k
				for (c = 1; c <= n; c++)
					line = line sprintf("  %.4g/%.4g", have[c], want[c])
				printf "%s  %.2f\n", line, row >"/dev/stderr"
			}
			if (row > worst) { worst = row; label = k }
		}
		if (missing || bad || !cells) { print "0 0 0 missing"; exit }
		printf "%d %.3f %.2f %s\n", rows, exp(sum / cells), worst, label
	}' "$1" "$2"
}

status=0
printf '%-22s %-17s %-6s %4s %7s %6s  %s\n' table preset kind rows geomean worst \
	"worst row"
for file in "$@"; do
	awk -v dir="$work" '
		/^table / { f = sprintf("%s/%03d", dir, ++n); print $0 >(f ".head")
			   in_table = 1; next }
		/^end$/ { in_table = 0; next }
		in_table { print >(f ".real") }' "$file"
	for head in "$work"/*.head; do
		[ -e "$head" ] || continue
		base=${head%.head}
		set -- $(cat "$head")
		name=$2 preset=$3 kind=$4
		shift 6
		if $targets_only && [ "$kind" != target ]; then
			rm -f "$head" "$base.real"
			continue
		fi
		"$FLASHBENCH" "$@" "sim:$preset${SIM_EXTRA:+,$SIM_EXTRA}" \
			>"$base.sim" 2>/dev/null
		set -- $(compare "$base.real" "$base.sim")
		verdict=
		if [ "$4" = missing ]; then
			verdict=" FAILS: rows missing from the simulated run"
			status=1
		elif [ "$kind" = target ] &&
		     awk -v g="$2" -v w="$3" 'BEGIN { exit !(g > 1.25 || w > 2) }'
		then
			verdict=" MISSES (target: mean <= 1.25, worst <= 2)"
			status=1
		fi
		printf '%-22s %-17s %-6s %4s %7s %6s  %s%s\n' "$name" "$preset" \
			"$kind" "$1" "$2" "$3" "$4" "$verdict"
		rm -f "$head" "$base.real" "$base.sim"
	done
done
exit $status
