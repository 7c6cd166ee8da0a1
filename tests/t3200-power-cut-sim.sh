#!/bin/sh
# t3200: --power-cut on the simulated card, whose power the tool cuts
# itself at a seeded moment of each cycle.  An honest card with a
# volatile cache keeps every acknowledged write; one that ignores
# flushes loses some (exit 4); each power-fault key of the card shows as
# its own class and no other; the log holds one event a line, each
# ending in its checksum; the text ends with the verdict's sentence; the
# same seed gives the same run; --verify of a simulated card is refused
# (it does not outlive the run); and every signal of the table stops a
# run with 128 + the signal, its log whole.

. "$(dirname "$0")/lib.sh"

require python3

CARD=sim:size=256M
RUN="--power-cut --seed=7 --span=8M"

# classes.py FILE: the summary record's fault classes with units, one a
# line, sorted; then the unflushed ones as "unflushed_lost" when any
cat >"$TRASH/classes.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
summary = [r for r in doc["results"] if r["kind"] == "power-cut"]
assert len(summary) == 1, summary
s = summary[0]
for key in ("flying", "shorn", "unserializable", "acknowledged_lost",
            "old_damaged", "unreadable"):
    if s[key]:
        print(key)
if s["dead_cuts"]:
    print("dead")
cycles = [r for r in doc["results"] if r["kind"] == "power-cut-cycle"]
assert len(cycles) == s["cuts"], (len(cycles), s["cuts"])
PY

# faults_only SPEC EXPECTED...: a run on CARD,SPEC exits 4 and its
# summary counts units of exactly the EXPECTED classes
faults_only() {
	fo_spec=$1
	shift
	test_expect_code 4 "$FLASHBENCH" $RUN --cycles=10 --format=json \
		"$CARD,$fo_spec" >run.json 2>err &&
	python3 "$TRASH/classes.py" run.json >got &&
	printf "%s\n" "$@" | sort >want &&
	test_cmp want got
}

test_expect_success 'an honest card with a volatile cache keeps every acknowledged write in 20 cuts' '
	"$FLASHBENCH" --power-cut --seed=1 --cycles=20 \
		"$CARD,volatile=1M,flush=honest" >out 2>err &&
	tail -n 1 out >summary &&
	echo "kept every acknowledged write in 20 of 20 cuts; old data intact" >want &&
	test_cmp want summary &&
	test "$(grep -c "^cycle [0-9]*: .*; no fault$" out)" = 20
'

test_expect_success 'its JSON counts no fault in any class' '
	"$FLASHBENCH" --power-cut --seed=1 --cycles=20 --format=json \
		"$CARD,volatile=1M,flush=honest" >run.json 2>err &&
	python3 "$TRASH/classes.py" run.json >got &&
	test_cmp /dev/null got &&
	python3 -c "import json, sys
s = json.load(open(\"run.json\"))[\"results\"][-1]
assert s[\"verdict\"] == \"kept\" and s[\"cuts\"] == 20, s
assert s[\"span_bytes\"] == 64 << 20 and s[\"offset_bytes\"] == 16 << 20, s"
'

test_expect_success 'a card that ignores flushes loses acknowledged writes (exit 4)' '
	test_expect_code 4 "$FLASHBENCH" $RUN --cycles=20 \
		"$CARD,volatile=1M,flush=ignore" >out 2>err &&
	tail -n 1 out >summary &&
	grep -Ex "lost acknowledged writes in [0-9]+ of 20 cuts \(up to [0-9.]+(ms|s) of them\); old data intact" summary &&
	grep -q "^  acknowledged write lost: byte [0-9]* wants seq [0-9]*, holds" out
'

test_expect_success 'cut-damage= is old data damaged and nothing else' '
	faults_only cut-damage=0.5 old_damaged &&
	test_expect_code 4 "$FLASHBENCH" $RUN --cycles=10 \
		"$CARD,cut-damage=0.5" >out 2>err &&
	grep -q "^  old data damaged: byte [0-9]* wants the old data, holds no stamp of this run" out
'

test_expect_success 'cut-shorn= is shorn writes and nothing else' '
	faults_only cut-shorn=1 shorn
'

test_expect_success 'cut-map= is unserializable and flying writes and nothing else' '
	faults_only cut-map=8 flying unserializable &&
	test_expect_code 4 "$FLASHBENCH" $RUN --cycles=10 "$CARD,cut-map=8" \
		>out 2>err &&
	grep -q "^  flying write: byte [0-9]* holds seq [0-9]*, written for byte [0-9]*" out &&
	grep -q "^  unserializable: byte [0-9]* wants seq [0-9]*, holds" out
'

test_expect_success 'cut-dead= is a card that did not come back, and the run ends there' '
	faults_only cut-dead=1 dead &&
	test_expect_code 4 "$FLASHBENCH" $RUN --cycles=10 "$CARD,cut-dead=1" \
		>out 2>err &&
	cat >want <<-\EOF &&
	cycle 1: cut at X; did not come back
	no cut could be verified; did not come back after cut 1
	EOF
	sed "s/cut at [^;]*;/cut at X;/" out >got &&
	test_cmp want got
'

test_expect_success 'the text format ends with the one verdict line' '
	test_expect_code 4 "$FLASHBENCH" $RUN --cycles=6 \
		"$CARD,volatile=1M,flush=ignore,cut-damage=0.5" >out 2>err &&
	tail -n 1 out >summary &&
	grep -Ex "lost acknowledged writes in [0-9] of 6 cuts( \(up to [0-9.]+(ms|s) of them\))?; old data damaged in [0-9] cuts?" summary
'

test_expect_success 'the same seed gives the same run, byte for byte' '
	"$FLASHBENCH" $RUN --cycles=5 --format=csv "$CARD,cut-map=8,seed=3" \
		>one.csv 2>/dev/null
	"$FLASHBENCH" $RUN --cycles=5 --format=csv "$CARD,cut-map=8,seed=3" \
		>two.csv 2>/dev/null
	test -s one.csv && test_cmp one.csv two.csv
'

test_expect_success 'the run announces its range, the card-wide harm and its seed first' '
	"$FLASHBENCH" $RUN --cycles=1 "$CARD,volatile=1M" >out 2>err &&
	sed -n 1p err | grep -x "flashbench: --power-cut overwrites bytes 16777216 to 25165823 (16MiB to 24MiB) of $CARD,volatile=1M" &&
	sed -n 2p err | grep -q "a power cut can harm data anywhere on .* it should hold nothing of value" &&
	sed -n 3p err | grep -q "seed 7 (--seed=7 repeats the writes and the cut moments)"
'

# log_shape LOG: a header, then one event a line, each ending in its
# checksum; the events in the order a run makes them
cat >"$TRASH/log_shape.awk" <<'AWK'
$NF !~ /^sum=[0-9a-f]+$/ { print "line " NR ": no checksum: " $0; bad = 1 }
NR == 1 && $1 != "flashbench-power-cut" { print "no header"; bad = 1 }
NR == 1 { next }
{ seen[$1]++; order = order " " $1 }
END {
	if (!seen["old"] || !seen["cycle"] || !seen["write"] ||
	    !seen["flush"] || !seen["cut"] || !seen["verify"] ||
	    !seen["settled"]) { print "events missing:" order; bad = 1 }
	if (seen["cycle"] != 3 || seen["cut"] != 3 || seen["verify"] != 3 ||
	    seen["settled"] != 2) { print "not 3 cycles:" order; bad = 1 }
	exit bad
}
AWK

test_expect_success 'the log: a header, then every event a line with its checksum' '
	"$FLASHBENCH" $RUN --cycles=3 --log="$TRASH/cut.log" \
		"$CARD,volatile=1M" >out 2>err &&
	awk -f "$TRASH/log_shape.awk" "$TRASH/cut.log" &&
	head -n 1 "$TRASH/cut.log" |
		grep -q "^flashbench-power-cut 1 salt=[0-9a-f]* seed=7 device=268435456 offset=16777216 span=8388608 sector=512 unit=4096 identity= sum=" &&
	test "$(stat -c %a "$TRASH/cut.log")" = 600
'

test_expect_success 'the log on standard output; the results go to standard error' '
	"$FLASHBENCH" $RUN --cycles=2 --log=- "$CARD,volatile=1M" >log 2>err &&
	sed -n 1p log | grep -q "^flashbench-power-cut 1 " &&
	! grep -qv "sum=[0-9a-f]*$" log &&
	grep -q "^kept every acknowledged write in 2 of 2 cuts; old data intact$" err
'

test_expect_success '--verify of a simulated card is refused: it does not outlive its run' '
	"$FLASHBENCH" $RUN --cycles=1 --log="$TRASH/sim.log" "$CARD,volatile=1M" \
		>/dev/null 2>&1 &&
	test_usage_error flashbench "^--verify: sim:.*: a simulated card does not outlive the run that wrote its log; nothing to verify$" \
		--power-cut --verify="$TRASH/sim.log" "$CARD,volatile=1M"
'

test_expect_success 'a simulated card that keeps no data is refused' '
	test_usage_error flashbench "^--power-cut: the simulated card keeps no data; give it a cache that power can lose" \
		--power-cut "$CARD"
'

test_expect_success 'options that do not fit are refused' '
	test_usage_error flashbench "^--cut-command: a simulated card.s power is cut by flashbench itself" \
		--power-cut --cut-command=true "$CARD,volatile=1M" &&
	test_usage_error flashbench "^--cycles does not apply to --power-cut --verify" \
		--power-cut --verify=x.log --cycles=2 "$CARD,volatile=1M" &&
	test_usage_error flashbench "^--cycles goes with --power-cut$" \
		--cycles=2 "$CARD,volatile=1M" &&
	test_usage_error flashbench "^--seed does not apply to -a$" \
		-a --seed=1 "$CARD" &&
	test_usage_error flashbench "^--log: - is standard output, where -o - sends the results too" \
		--power-cut --log=- -o - "$CARD,volatile=1M" &&
	test_usage_error flashbench "^--span 4097 is not a multiple of the power-cut test.s unit, 4096 bytes$" \
		--power-cut --span=4097 "$CARD,volatile=1M" &&
	: >exists.log &&
	test_usage_error flashbench "^--log: exists.log exists; name a new file" \
		--power-cut --log=exists.log "$CARD,volatile=1M"
'

# whole_lines LOG: every line but a torn last one ends in its checksum
whole_lines() {
	awk 'NR > 1 && prev !~ /sum=[0-9a-f]+$/ { bad = 1 }
		{ prev = $0 } END { exit bad }' "$1"
}

test_expect_success 'every signal of the table stops a run: 128 + the signal, the log whole' '
	for name in $(table_signals); do
		rm -f "$TRASH/sig.log" &&
		fb_start --power-cut --seed=7 --span=8M --cycles=1000 \
			--log="$TRASH/sig.log" "$CARD,volatile=1M,pace=1ms" &&
		wait_catching &&
		poll_until "a flush in the log" grep -q "^flush " "$TRASH/sig.log" &&
		kill -$name $fb_pid && fb_wait >/dev/null &&
		test "$(cat code)" = $((128 + $(signum $name))) ||
			{ echo "SIG$name: exit $(cat code)"; return 1; }
		whole_lines "$TRASH/sig.log" ||
			{ echo "SIG$name: a line cut short"; return 1; }
		tail -n 1 "$TRASH/sig.log" |
			grep -q "sum=[0-9a-f]*$" &&
		grep -q "^flashbench: interrupted; the range holds the run.s stamps$" err ||
			{ echo "SIG$name: not stopped cleanly"; return 1; }
	done
'

test_done
