#!/bin/sh
# detect-cost.sh - what `--detect --write` costs, against its targets.
#
# For each simulated preset and each card of tests/detect/matrix.tsv (with
# ",size=8G" appended) this runs
#
#   flashbench --detect --write --format=json --stats SPEC
#
# and compares the detected geometry with the true one ("-": a device with
# none, where every finding must be not determined), and the device time
# and bytes written with the targets: every preset within 30 s and 16 MiB
# (a preset that keeps more than 32 erase blocks open, 1 MiB per open
# erase block: a probe of N blocks writes up to 4 x N x 32 KiB, and a
# count of N takes probes up to 2N); every matrix card whose erase block x
# open count exceeds 128 MiB within a fifth of what detection cost before
# its probes were cut (the "before" columns, from the earlier version of
# this table).  All runs are on
# simulated cards, whose clock is virtual: device time is what a real card
# of that shape would take.
#
# Usage: bench/detect-cost.sh [FLASHBENCH]   (default ./flashbench, built
# with make if missing).  Run from anywhere; it works in the repository.
# Prints a text table and a summary, and writes both as markdown to
# doc/detect-cost.md.  Exit status is 0 when the targets hold, 1 when they
# do not, 2 on a failed run.

set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
fb=${1:-./flashbench}
matrix=tests/detect/matrix.tsv
[ -x "$fb" ] || make -s >&2
[ -x "$fb" ] || { echo "detect-cost: no $fb" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
rows=$tmp/rows
: >"$rows"

# Top-level "key": value of flashbench's JSON output (two-space indent).
jget() {
	awk -v k="$2" '
		index($0, "  \"" k "\": ") == 1 {
			v = substr($0, length(k) + 7); sub(/,$/, "", v)
			print v; found = 1; exit
		}
		END { if (!found) print "null" }' "$1"
}

# fget FILE NAME: the value of a finding ("findings": {NAME: {"value": V}})
fget() {
	awk -v k="$2" '
		index($0, "    \"" k "\": {\"value\": ") == 1 {
			v = substr($0, length(k) + 19); sub(/[,}].*/, "", v)
			print v; found = 1; exit
		}
		END { if (!found) print "null" }' "$1"
}

# Runs flashbench with --format=json --stats; adds its device time and
# bytes written to the running totals t_ns and w_b.
t_ns=0
w_b=0
run() {
	out=$tmp/out.json
	if ! "$fb" --format=json --stats -q "$@" >"$out" 2>"$tmp/err"; then
		echo "detect-cost: failed: $fb $*" >&2
		cat "$tmp/err" >&2
		exit 2
	fi
	t_ns=$(awk -v a="$t_ns" -v b="$(jget "$out" device_time_ns)" \
		'BEGIN { printf "%.0f", a + b }')
	w_b=$(awk -v a="$w_b" -v b="$(jget "$out" bytes_written)" \
		'BEGIN { printf "%.0f", a + b }')
}

# What detection cost before its probes were cut: name seconds MiB.
before() {
	awk -v k="$1" '$1 == k { print $2 "\t" $3; found = 1 }
		END { if (!found) print "-\t-" }' <<-\EOF
	sandisk-su08g 9.7 28.5
	toshiba-7au 24.7 48
	sandisk-20au 159.4 185
	readme-example 35.8 12
	wirenboard-sa04g 32.2 12.3
	wirenboard-ncard 6.5 14.6
	wirenboard-su04g 41.9 39.7
	matrix-1 6.8 3.63
	matrix-2 15.4 7.23
	matrix-3 11.6 10.1
	matrix-4 25.3 21.9
	matrix-5 30.2 21
	matrix-6 54.6 54.9
	matrix-7 27.6 43.8
	matrix-8 48.0 60.9
	matrix-9 66.1 77.3
	matrix-10 11.9 5.96
	matrix-11 21.5 41.6
	matrix-12 43.6 121
	matrix-13 33.8 61.7
	matrix-14 143.8 336
	matrix-15 13.4 26.1
	matrix-16 44.1 101
	matrix-17 16.7 24.8
	matrix-18 143.1 438
	matrix-19 146.1 205
	matrix-20 107.7 139
	matrix-21 46.4 44.1
	matrix-22 19.8 12
	EOF
}

# One card: kind name spec erase page open open_random [OPTION]
# kind: preset or matrix; "-" for a geometry the device does not have
card() {
	kind=$1 name=$2 spec=$3 erase=$4 page=$5 open=$6 orand=$7
	printf '%s ...\n' "$name" >&2

	t_ns=0 w_b=0
	run --detect --write ${8:-} "$spec"
	det=$tmp/out.json
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$kind" "$name" "$erase" "$page" "$open" "$orand" \
		"$(fget "$det" erase_size)" "$(fget "$det" page_size)" \
		"$(fget "$det" open_au_linear)" "$(fget "$det" open_au_random)" \
		"$t_ns" "$w_b" "$(before "$name")" >>"$rows"
}

start=$(date +%s)

card preset sandisk-su08g sim:sandisk-su08g 4194304 8192 6 1
card preset plain sim:plain 4194304 8192 6 1
card preset toshiba-7au sim:toshiba-7au 4194304 8192 7 4
card preset sandisk-20au sim:sandisk-20au 4194304 16384 20 20
card preset readme-example sim:readme-example 4194304 8192 2 1
card preset wirenboard-sa04g sim:wirenboard-sa04g 4194304 16384 3 3
card preset wirenboard-ncard sim:wirenboard-ncard 4194304 8192 2 2
# its reads, like the real card's table, step higher at 8 MiB than at its
# 4 MiB erase blocks, so detection reads 8 MiB (4 MiB the alternative):
# its open counts are read at the erase size it is built with
card preset wirenboard-su04g sim:wirenboard-su04g 4194304 8192 4 0 \
	--erasesize=4M
# today's cards; the A2 card keeps 64 open, more than 32: found on a
# device of 32 GiB and more, which detection probes up to 128
card preset a1-32g sim:a1-32g 8388608 16384 7 2
card preset a2-64g sim:a2-64g 25165824 49152 64 64
card preset u3-128g sim:u3-128g 16777216 32768 10 4
card preset v30-256g sim:v30-256g 16777216 32768 16 16
# no flash behind them: nothing to find, cost all the same
card preset ramdisk sim:ramdisk - - - -
card preset cached-reader sim:cached-reader 4194304 8192 - -

i=0
tab=$(printf '\t')
while IFS="$tab" read -r spec erase page open orand; do
	case $spec in '#'*|'') continue ;; esac
	i=$((i + 1))
	card matrix "matrix-$i" "sim:$spec,size=8G" "$erase" "$page" "$open" \
		"$orand"
done <"$matrix"

wall=$(( $(date +%s) - start ))

# Table, summary and markdown from the rows.
awk -F '\t' -v wall="$wall" -v md=doc/detect-cost.md '
function sz(b,   u, i) {
	if (b == "null" || b == "-") return "-"
	split("B KiB MiB GiB TiB", u, " ")
	for (i = 1; b >= 1024 && i < 5; i++) b /= 1024
	if (b == int(b)) return sprintf("%d%s", b, u[i])
	return sprintf("%.3g%s", b, u[i])
}
function num(v) { return v == "null" ? "-" : v }
# the truth "-" is matched by a finding not determined
function same(truth, found) {
	return truth == "-" ? found == "null" : found == truth
}
{
	n++
	kind[n] = $1; name[n] = $2
	te[n] = $3; tp[n] = $4; to[n] = $5; tr[n] = $6
	de[n] = $7; dp[n] = $8; dl[n] = $9; dr[n] = $10
	dt[n] = $11 / 1e9; dw[n] = $12 / 1048576; bt[n] = $13; bw[n] = $14
	# su04g: its erase size is given (--erasesize), its reads differ
	ok_e = name[n] == "wirenboard-su04g" || same(te[n], de[n])
	ok_p = same(tp[n], dp[n])
	ok_o = same(to[n], dl[n]); ok_r = same(tr[n], dr[n])
	ne += ok_e; np += ok_p; no += ok_o; nr += ok_r
	wrong = ""
	if (!ok_e) wrong = wrong " erase"
	if (!ok_p) wrong = wrong " page"
	if (!ok_o) wrong = wrong " open"
	if (!ok_r) wrong = wrong " open-random"
	big = kind[n] == "matrix" && te[n] * to[n] > 128 * 1048576
	# 1 MiB per open erase block where a card keeps more than 32
	mib = to[n] ~ /^[0-9]+$/ && to[n] > 32 ? to[n] : 16
	over = ""
	if (kind[n] == "preset" && (dt[n] > 30 || dw[n] > mib))
		over = sprintf(" over 30 s / %d MiB", mib)
	if (big && (dt[n] > bt[n] / 5 || dw[n] > bw[n] / 5))
		over = " over a fifth of before"
	target[n] = "-"
	if (kind[n] == "preset") target[n] = sprintf("<= 30 s, %d MiB", mib)
	if (big) target[n] = sprintf("<= %.1f s, %.1f MiB", bt[n] / 5, bw[n] / 5)
	verdict[n] = wrong == "" ? "right" : "wrong:" wrong
	if (over != "") verdict[n] = verdict[n] "," over
	if (!ok_e || !ok_o || !ok_r || over != "") {
		fail++; failed = failed " " name[n]
	}
	if (kind[n] == "preset" && dt[n] > pt) pt = dt[n]
	if (kind[n] == "preset" && mib == 16 && dw[n] > pw) pw = dw[n]
	if (mib > 16) many = many sprintf(" %s %.1f s and %.1f MiB;",
					   name[n], dt[n], dw[n])
	sdt += dt[n]; sdw += dw[n]
	if (bt[n] != "-") { sbt += bt[n]; sbw += bw[n]; sat += dt[n]; saw += dw[n] }
}
END {
	held = fail == 0 ? "HOLD" : "FAIL on" failed
	summary = sprintf("%d cards: exact erase %d/%d, open linear %d/%d, " \
		"open random %d/%d, page %d/%d; presets at most %.1f s and " \
		"(32 open or fewer) %.1f MiB written; the cards with a " \
		"before figure %.0f s / %.0f MiB written, before %.0f s / " \
		"%.0f MiB; all %.0f s / " \
		"%.0f MiB written; targets (exact erase and open counts; " \
		"presets <= 30 s and 16 MiB, 1 MiB per open erase block " \
		"where more than 32 are open; cards with erase block x open " \
		"> 128 MiB <= a fifth of before) %s",
		n, ne, n, no, n, nr, n, np, n, pt, pw, sat, saw, sbt, sbw,
		sdt, sdw, held)
	if (many != "")
		summary = summary ".  More than 32 open:" substr(many, 1, \
			  length(many) - 1)
	printf "%-16s %-22s %-22s %-24s %7s %8s %7s %8s\n", "card",
		"true E/P/open/rand", "detected E/P/open/rand", "result",
		"det s", "det MiB", "bef s", "bef MiB"
	for (i = 1; i <= n; i++)
		printf "%-16s %-22s %-22s %-24s %7.1f %8.1f %7s %8s\n",
			name[i],
			sz(te[i]) "/" sz(tp[i]) "/" to[i] "/" tr[i],
			sz(de[i]) "/" sz(dp[i]) "/" num(dl[i]) "/" num(dr[i]),
			verdict[i], dt[i], dw[i], bt[i], bw[i]
	print ""
	print summary
	printf "wall time %d s\n", wall

	print "# Detection cost" >md
	print "" >md
	print "Written by `bench/detect-cost.sh`: `flashbench --detect " \
		"--write --format=json --stats` on every simulated preset " \
		"and on the 22 cards of `tests/detect/matrix.tsv` (with " \
		"`,size=8G`), device time and bytes written as the " \
		"simulated card counts them (virtual time: what a real card " \
		"of that shape would take).  \"Before\": what detection cost " \
		"before its open-count probes became small bisecting ones.  " \
		"A truth of \"-\" is a geometry the device does not have: " \
		"the finding must be not determined.  `a2-64g` keeps 64 " \
		"erase blocks open, more than the 32 detection probes up to " \
		"below 32 GiB; on its 59.5 GiB it probes up to 128 and finds " \
		"them, at a target of 1 MiB written per open erase block " \
		"(a probe of N blocks writes up to 4 x N x 32 KiB, and a " \
		"count of N takes probes up to 2N); searching up to 32 it " \
		"wrote 11.3 MiB in 1.5 s and said \"at least 32\".  " \
		"`wirenboard-su04g` runs " \
		"with `--erasesize=4M` (its reads step higher at 8 MiB than " \
		"at its 4 MiB erase blocks, so its erase reading is not " \
		"counted).  The page column of the Wiren " \
		"Board presets is the staircase reading of their fitted " \
		"reads; the targets count erase size and open counts only." >md
	print "" >md
	print "| card | true erase / page / open / open-random | detected " \
		"| result | target | time (s) | written (MiB) " \
		"| before (s) | before (MiB) |" >md
	print "|---|---|---|---|---|---:|---:|---:|---:|" >md
	for (i = 1; i <= n; i++)
		printf "| %s | %s / %s / %s / %s | %s / %s / %s / %s | %s " \
			"| %s | %.1f | %.1f | %s | %s |\n",
			name[i], sz(te[i]), sz(tp[i]), to[i], tr[i],
			sz(de[i]), sz(dp[i]), num(dl[i]), num(dr[i]),
			verdict[i], target[i], dt[i], dw[i], bt[i], bw[i] >md
	print "" >md
	print summary "." >md
	exit fail ? 1 : 0
}' "$rows"
