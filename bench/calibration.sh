#!/bin/sh
# calibration.sh - does the confidence the staircase reading states mean
# what it says?
#
# For each card of tests/detect/staircase.tsv and the near-flat cards
# below, in each noise family (as built; with heavy-tailed read jitter,
# ",jitter=0.05"; with the read time drifting over the run, ",drift=0.03";
# with both), with ",size=8G,seed=S" appended, S = 1 .. SEEDS, this runs
#
#   detect:   flashbench --detect --format=json SPEC
#   analyze:  flashbench -a --blocksize=1024 SPEC | flashbench --analyze
#
# and scores the erase-block and page findings: right is the size the card
# was built with, or "not visible" where its reads show no erase-block
# step.  The -a test probes powers of two only, so for --analyze a 1.5, 3,
# 6, 12 or 24 MiB erase block is one the table does not show.  A finding
# is the reported size at its confidence, or "not visible" at the
# confidence given for that; "not determined" is no finding.
#
# Then, for each card of tests/detect/today.tsv (today's presets and
# variations of them), as built and with read jitter and drift, with
# ",seed=S" appended, it runs
#
#   write:    flashbench --detect --write --format=json SPEC
#
# and scores the erase-block, page, open-count (in order, out of order)
# and smallest-write findings against what the card is built with; an
# open count above what --detect probes (">=N") is right only as "at
# least N".
#
# Usage: bench/calibration.sh [FLASHBENCH [SEEDS]]  (default ./flashbench,
# 3 seeds).  Prints per mode the table confidence band -> share right,
# count, and whether the target holds: at least 95% right among findings
# at confidence >= 0.9 for the staircase modes, 98% for today's cards
# written to.  Exit 0 when it holds for every mode, 1 if not.

set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
fb=${1:-./flashbench}
seeds=${2:-3}
matrix=tests/detect/staircase.tsv
[ -x "$fb" ] || make -s >&2
[ -x "$fb" ] || { echo "calibration: no $fb" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
: >"$tmp/runs"

# Near-flat cards: erase-block steps of a few noise units, whose lines
# above the erase size fall back into the level below under jitter.
grep -v '^#' "$matrix" >"$tmp/cards"
cat >>"$tmp/cards" <<'CARDS'
erase=1M,page=8K,cross=8K:53us/1M:12us/64M:10us	1048576	8192
erase=2M,page=8K,cross=8K:50us/2M:8us	2097152	8192
erase=4M,page=16K,cross=16K:60us/4M:10us/128M:8us	4194304	16384
erase=4M,page=8K,cross=8K:40us/4M:6us	4194304	8192
CARDS

for family in built jitter drift both; do
case $family in
built) keys= ;;
jitter) keys=,jitter=0.05 ;;
drift) keys=,drift=0.03 ;;
both) keys=,jitter=0.05,drift=0.03 ;;
esac
while IFS="	" read -r spec erase page; do
	seed=1
	while [ "$seed" -le "$seeds" ]; do
		dev="sim:$spec$keys,size=8G,seed=$seed"
		"$fb" --detect --format=json "$dev" >"$tmp/d.json" ||
			{ echo "calibration: --detect failed on $dev" >&2; exit 2; }
		"$fb" -a --blocksize=1024 "$dev" >"$tmp/a.txt" &&
		"$fb" --analyze --format=json "$tmp/a.txt" >"$tmp/a.json" ||
			{ echo "calibration: -a/--analyze failed on $dev" >&2; exit 2; }
		printf '%s\t%s\t%s\t%s\t%s\n' "$spec$keys" "$erase" "$page" \
			"$tmp/d.json" "$tmp/a.json" >>"$tmp/runs.now"
		python3 - "$tmp/runs.now" >>"$tmp/runs" <<'EOF'
import json, sys
# one line per finding: mode kind expected reported confidence right
for line in open(sys.argv[1]):
    spec, erase, page, dpath, apath = line.rstrip("\n").split("\t")
    for mode, path in (("detect", dpath), ("analyze", apath)):
        doc = json.load(open(path))
        found = doc["findings"]
        stairs = [s for s in doc["results"] if s["kind"] == "staircase"]
        want = erase
        if mode == "analyze" and want != "hidden" and \
                int(want) & (int(want) - 1):
            want = "hidden"		# -a probes powers of two only
        if found["erase_size"]["value"] is not None:
            got = str(found["erase_size"]["value"])
            conf = found["erase_size"]["confidence"]
        elif stairs and not stairs[0]["erase_visible"]:
            got, conf = "hidden", stairs[0]["erase_not_visible_confidence"]
        else:
            got, conf = "-", 0.0
        print(mode, "erase", want, got, conf, int(got == want), spec,
              sep="\t")
        page_found = found["page_size"]
        got = str(page_found["value"]) if page_found["value"] is not None \
            else "-"
        conf = page_found["confidence"] if got != "-" else 0.0
        print(mode, "page", page, got, conf, int(got == page), spec,
              sep="\t")
EOF
		rm -f "$tmp/runs.now"
		seed=$((seed + 1))
	done
done <"$tmp/cards"
done

# Today's cards, written to.
: >"$tmp/writes"
for family in built both; do
case $family in
built) keys= ;;
both) keys=,jitter=0.05,drift=0.03 ;;
esac
grep -v '^#' tests/detect/today.tsv >"$tmp/today"
while IFS="	" read -r spec erase page open orand prog; do
	seed=1
	while [ "$seed" -le "$seeds" ]; do
		dev="sim:$spec$keys,seed=$seed"
		"$fb" --detect --write --format=json "$dev" >"$tmp/w.json" \
			2>/dev/null ||
			{ echo "calibration: --detect --write failed on $dev" >&2
			  exit 2; }
		python3 - "$tmp/w.json" "$spec$keys" "$erase" "$page" "$open" \
			"$orand" "$prog" >>"$tmp/writes" <<'EOF'
import json, sys
# one line per finding: mode kind expected reported confidence right
path, spec = sys.argv[1:3]
want = dict(zip(("erase_size", "page_size", "open_au_linear",
                 "open_au_random", "min_write_size"), sys.argv[3:]))
found = json.load(open(path))["findings"]
for kind, expected in want.items():
    f = found[kind]
    if f["value"] is not None:
        got, conf = str(f["value"]), f["confidence"]
    elif f.get("at_least"):
        got, conf = ">=%d" % f["at_least"], 0.0
    else:
        got, conf = "-", 0.0
    right = got == expected
    print("write", kind, expected, got, conf, int(right), spec, sep="\t")
EOF
		seed=$((seed + 1))
	done
done <"$tmp/today"
done

status=0
python3 - "$tmp/writes" "$seeds" <<'EOF' || status=1
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "bench")
from calibration_bands import band_lines, found, print_wrong, sure_share
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
kinds = ("erase_size", "page_size", "open_au_linear", "open_au_random",
         "min_write_size")
names = ("erase", "page", "open", "out of order", "smallest write")
runs = len(rows) // len(kinds)
print("Today's cards, written to: %d cards of tests/detect/today.tsv x 2 "
      "(as built, with read jitter and drift) x %s seeds = %d runs of "
      "--detect --write; right = what the card is built with, \"at least\" "
      "where it keeps more open than --detect probes.\n"
      % (runs // 2 // int(sys.argv[2]), sys.argv[2], runs))
print("| confidence | " + " | ".join(names) + " | all: share right |")
print("|---|" + "---:|" * (len(kinds) + 1))
for line in band_lines(rows, kinds):
    print(line)
print("| at least (right) / not determined | " + " | ".join(
    "%d (%d) / %d" % (
        sum(1 for r in rows if r[1] == k and r[3].startswith(">=")),
        sum(int(r[5]) for r in rows if r[1] == k and r[3].startswith(">=")),
        sum(1 for r in rows if r[1] == k and r[3] == "-"))
    for k in kinds) + " | |")
sure, right, share = sure_share(rows)
held = share >= 98
print("\n--detect --write: %d of %d findings right; at confidence >= 0.9: "
      "%d of %d right (%.1f%%), target 98%% %s\n" %
      (sum(int(r[5]) for r in rows), len(rows), right, len(sure), share,
       "HOLDS" if held else "FAILS"))
print_wrong(rows)
sys.exit(not held)
EOF

python3 - "$tmp/runs" "$seeds" <<'EOF' || status=1
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "bench")
from calibration_bands import band_lines, print_wrong, sure_share
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
seeds = sys.argv[2]
status = 0
families = 4
cards = len(rows) // 4 // int(seeds) // families
print("Staircase matrix: %d cards x %d noise families (as built, jitter, "
      "drift, both) x %s seeds; right = the size the card is built with, "
      "or \"not visible\" where it shows no erase-block step.\n"
      % (cards, families, seeds))
for mode, title in (("detect", "--detect"),
                    ("analyze", "-a --blocksize=1024 | --analyze")):
    mine = [r for r in rows if r[0] == mode]
    print("**%s**\n" % title)
    print("| confidence | erase: right / findings | page: right / findings "
          "| all: share right |")
    print("|---|---:|---:|---:|")
    for line in band_lines(mine, ("erase", "page")):
        print(line)
    none = {k: sum(1 for r in mine if r[1] == k and r[3] == "-")
            for k in ("erase", "page")}
    print("| not determined | %d | %d | |" % (none["erase"], none["page"]))
    sure, right, share = sure_share(mine)
    erase_ok = sum(int(r[5]) for r in mine if r[1] == "erase")
    page_ok = sum(int(r[5]) for r in mine if r[1] == "page")
    hidden = [r for r in mine if r[1] == "erase" and r[2] == "hidden"]
    held = share >= 95
    status |= not held
    print("\n%s: erase right %d of %d runs, page %d of %d, \"not visible\" "
          "on %d of %d hidden; at confidence >= 0.9: %d of %d right "
          "(%.1f%%), target 95%% %s\n" %
          (title, erase_ok, len(mine) // 2, page_ok, len(mine) // 2,
           sum(int(r[5]) for r in hidden), len(hidden), right, len(sure),
           share, "HOLDS" if held else "FAILS"))
    print_wrong(sure)
sys.exit(status)
EOF
exit $status
