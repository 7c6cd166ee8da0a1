#!/bin/sh
# t3000: --capacity-check on simulated counterfeit cards.  Every fake
# mode (wrap, drop, zero, error), without a write cache and with caches
# up to the default --cache-limit of 16 MiB, at real capacities that are
# not powers of two: the verdict is "fake", the kind the mode's, and the
# usable size exact (to the 512-byte block, so to 1 MiB as well).  The
# last round's evidence is the block below the end (good) and the block
# at it (bad).  Genuine simulated cards, with or without a cache, are
# "genuine" with the announced size usable.  A cache larger than
# --cache-limit hides a dropping fake until the limit is raised.  A fake
# gets sfdisk and parted commands that end at its real capacity; bad
# input is refused with exit 2; a genuine 1 GiB card costs at most 1/8
# of the bytes f3probe would write there (512 MiB).

. "$(dirname "$0")/lib.sh"

UNDO=$TRASH/card.undo

# check.py FILE VERDICT KIND USABLE ANNOUNCED [CACHE]: the JSON run in
# FILE has one "capacity" record with these values (KIND and CACHE may
# be "null"; CACHE "any" for a number), its evidence shows the block
# below USABLE good and the one at USABLE bad (for a fake), and the
# bytes put back are no more than those written; the exit code in the
# file code is the verdict's.
cat >"$TRASH/check.py" <<'PY'
import json, sys
path, verdict, kind, usable, announced = sys.argv[1:6]
cache = sys.argv[6] if len(sys.argv) > 6 else None
code = int(open("code").read())
assert code == {"genuine": 0, "fake": 3, "damaged": 4}[verdict], code
doc = json.load(open(path))
assert doc["incomplete"] is False
runs = [r for r in doc["results"] if r["kind"] == "capacity"]
assert len(runs) == 1, runs
r = runs[0]
assert r["verdict"] == verdict, r
assert r["fake_kind"] == (None if kind == "null" else kind), r
assert r["usable_bytes"] == int(usable), (r["usable_bytes"], usable)
assert r["announced_bytes"] == int(announced), r
assert 0 < r["bytes_restored"] <= r["probe_bytes_written"], r
assert r["device_time_ns"] > 0, r
if cache == "null":
    assert r["cache_bytes"] is None, r
elif cache == "any":
    assert r["cache_bytes"] > 0, r
elif cache is not None:
    assert r["cache_bytes"] == int(cache), (r["cache_bytes"], cache)
probes = [p for p in doc["results"] if p["kind"] == "capacity-probe"]
last = max(p["round"] for p in probes)
final = [p for p in probes if p["round"] == last]
if verdict == "genuine":
    assert [p["good"] for p in final] == [True], final
    assert final[0]["offset_bytes"] == int(announced) - 512, final
else:
    # the block at the end is bad, in the last round; the one below it
    # good, in that round or the one before
    assert final[-1]["offset_bytes"] == int(usable) and not final[-1]["good"], final
    below = [p for p in probes if p["offset_bytes"] == int(usable) - 512]
    assert below and all(p["good"] for p in below), below
fixes = [f for f in doc["results"] if f["kind"] == "capacity-fix"]
assert len(fixes) == (2 if verdict == "fake" else 0), fixes
print(r["verdict"], r["fake_kind"], r["usable_bytes"], r["cache_bytes"],
      r["probe_bytes_written"], r["rounds"], "rounds")
PY

# capacity SPEC [OPTIONS...]: --capacity-check --format=json on sim:SPEC
# into out.json, its exit code in code, undo file in the trash; it must
# leave no undo file behind.
capacity() {
	cc_spec=$1
	shift
	"$FLASHBENCH" --capacity-check --format=json --undo-file="$UNDO" \
		"$@" "sim:$cc_spec" >out.json 2>err
	echo $? >code
	cat err &&
	test ! -e "$UNDO"
}

check() {
	python3 "$TRASH/check.py" out.json "$@"
}

# mode, kind it must be found as, and real capacities (not powers of two)
for fake in "wrap wraparound" "drop limbo" "zero limbo" "error io-error"; do
	set -- $fake
	mode=$1 kind=$2
	for cache in none 4M 16M; do
		spec="size=4G,fake=3000M,fake-mode=$mode"
		want_cache=null
		if [ $cache != none ]; then
			spec="$spec,fake-cache=$cache"
			want_cache=any
		fi
		test_expect_success python3 "fake-mode=$mode, cache $cache, 3000 MiB of 4 GiB: fake, $kind, usable exact" "
			capacity $spec &&
			check fake $kind $((3000 * MIB)) $((4096 * MIB)) $want_cache
		"
	done
	test_expect_success python3 "fake-mode=$mode: 1234567 blocks of 8 GiB, usable to the block" "
		capacity size=8G,fake=$((1234567 * 512)),fake-mode=$mode &&
		check fake $kind $((1234567 * 512)) $((8192 * MIB))
	"
done

test_expect_success python3 'a cache of 8 MiB is measured to the MiB' '
	capacity size=2G,fake=777M,fake-mode=drop,fake-cache=8M &&
	check fake limbo $((777 * MIB)) $((2048 * MIB)) $((8 * MIB))
'

test_expect_success python3 'genuine cards: genuine, every byte usable' '
	capacity size=1G,fake=1G &&
	check genuine null $((1024 * MIB)) $((1024 * MIB)) null &&
	capacity sandisk-su08g,fake-mode=wrap &&
	check genuine null 7948206080 7948206080 null &&
	capacity size=3000M,fake-cache=16M &&
	check genuine null $((3000 * MIB)) $((3000 * MIB)) null
'

test_expect_success python3 'a genuine 1 GiB card: at most 1/8 of the 512 MiB f3probe writes' '
	capacity size=1G,fake=1G &&
	python3 -c "
import json
r = [r for r in json.load(open(\"out.json\"))[\"results\"]
     if r[\"kind\"] == \"capacity\"][0]
assert r[\"probe_bytes_written\"] <= 512 * 2**20 / 8, r[\"probe_bytes_written\"]
print(r[\"probe_bytes_written\"], \"bytes written\")
"
'

test_expect_success python3 'a cache past --cache-limit hides a fake; raising the limit finds it' '
	capacity size=1G,fake=300M,fake-mode=drop,fake-cache=32M &&
	check genuine null $((1024 * MIB)) $((1024 * MIB)) &&
	grep "\"certainty\": \".*larger write cache could still hide a fake" \
		out.json &&
	capacity size=1G,fake=300M,fake-mode=drop,fake-cache=32M \
		--cache-limit=32M &&
	check fake limbo $((300 * MIB)) $((1024 * MIB)) $((32 * MIB))
'

test_expect_success python3 'a real capacity inside the flush area: usable 0, cannot tell' '
	capacity size=1G,fake=8M,fake-mode=drop &&
	python3 -c "
import json
r = [r for r in json.load(open(\"out.json\"))[\"results\"]
     if r[\"kind\"] == \"capacity\"][0]
assert r[\"verdict\"] == \"fake\" and r[\"usable_bytes\"] == 0, r
assert r[\"certainty\"].startswith(\"cannot tell\"), r
"
'

test_expect_success python3 'a bad area on a genuine card: damaged, usable up to it, no fix commands' '
	capacity size=1G,fake=1G,bad=500M+8M &&
	check damaged null $((500 * MIB)) $((1024 * MIB)) null
'

test_expect_success 'text: evidence lines, the verdict, and partition commands ending at the real capacity' '
	test_expect_code 3 "$FLASHBENCH" --capacity-check --undo-file="$UNDO" \
		sim:size=4G,fake=3000M,fake-mode=wrap >out 2>err &&
	cat out &&
	grep -E "^round [0-9]+: block at [0-9]+ (intact|alias.*) good: (yes|no)\$" out &&
	grep "^verdict: fake (wraparound) usable 3145728000 bytes of 4294967296 announced;" out &&
	grep "^sfdisk: echo .start=2048, size=$(((3000 - 1) * 2048)), type=c. | sfdisk sim:" out &&
	grep "^parted: parted -s sim:.* mkpart primary fat32 1MiB 3000MiB\$" out &&
	"$FLASHBENCH" --capacity-check --undo-file="$UNDO" sim:size=1G,fake=1G \
		>out 2>err &&
	grep "^verdict: genuine usable 1073741824 bytes of 1073741824 announced;" out &&
	! grep -E "^(sfdisk|parted):" out
'

test_expect_success 'the whole device is announced, and the undo file named, before the first write' '
	"$FLASHBENCH" --capacity-check --undo-file="$UNDO" sim:size=1G,fake=1G \
		>out 2>err &&
	grep "^flashbench: --capacity-check overwrites bytes 0 to 1073741823 " err &&
	grep "go to $UNDO first" err
'

test_expect_success 'csv: one table with the verdict row' '
	test_expect_code 3 "$FLASHBENCH" --capacity-check --format=csv \
		--undo-file="$UNDO" sim:size=1G,fake=600M,fake-mode=zero \
		>out.csv 2>err &&
	head -n 1 out.csv | grep "^schema,kind," &&
	grep "^3,capacity,.*,fake,limbo," out.csv
'

test_expect_success 'a simulated card without fake keys keeps no data: refused' '
	test_usage_error flashbench \
		"--capacity-check: the simulated card keeps no data; give it fake=SIZE" \
		--capacity-check --undo-file="$UNDO" sim:size=1G
'

test_expect_success 'a card too small for the cache limit: refused' '
	test_usage_error flashbench "--capacity-check: .* is too small for --cache-limit" \
		--capacity-check --undo-file="$UNDO" --cache-limit=1G \
		sim:size=1G,fake=1G
'

test_expect_success 'fake keys: bad values refused' '
	test_usage_error flashbench "sim: bad value for fake-mode: .loop." \
		--capacity-check sim:size=1G,fake=1G,fake-mode=loop &&
	test_usage_error flashbench "sim: fake [0-9]+ is more than the announced size" \
		--capacity-check sim:size=1G,fake=2G &&
	test_usage_error flashbench "sim: fake-cache is at most 256MiB" \
		--capacity-check sim:size=1G,fake=1G,fake-cache=1G &&
	test_usage_error flashbench "--cache-limit goes with --capacity-check" \
		--cache-limit=1M sim:
'

test_expect_success '--restore: an undo file for another card, or not an undo file, is refused' '
	"$FLASHBENCH" --capacity-check --undo-file="$UNDO" \
		sim:size=1G,fake=1G >out 2>err &&
	test ! -e "$UNDO" &&
	printf "not an undo file\n" >junk &&
	test_usage_error flashbench "--restore: junk: not a flashbench undo file" \
		--restore=junk sim:size=1G,fake=1G
'

test_expect_success 'an undo file that exists already is never overwritten: refused' '
	printf "blocks of a crashed run\n" >"$UNDO" &&
	test_usage_error flashbench \
		"--undo-file: .*card.undo exists \(left by a run that did not finish\? flashbench --restore=.*card.undo sim:size=1G,fake=1G puts its blocks back\); remove it to start over" \
		--capacity-check --undo-file="$UNDO" sim:size=1G,fake=1G &&
	test "$(cat "$UNDO")" = "blocks of a crashed run" &&
	rm "$UNDO"
'

test_expect_success 'an undo file in a directory that does not exist: refused before any write' '
	test_usage_error flashbench "--undo-file: .*/nowhere/x.undo: No such file or directory" \
		--capacity-check --undo-file="$TRASH/nowhere/x.undo" \
		sim:size=1G,fake=1G
'

test_expect_success python3 '-v: the evidence is every probe of every round' '
	capacity size=1G,fake=500M,fake-mode=zero -v &&
	python3 -c "
import json
d = json.load(open(\"out.json\"))
probes = [p for p in d[\"results\"] if p[\"kind\"] == \"capacity-probe\"]
rounds = [r for r in d[\"results\"] if r[\"kind\"] == \"capacity\"][0][\"rounds\"]
assert len(probes) > 256 * (rounds - 1), (len(probes), rounds)
for p in probes:
    assert p[\"good\"] == (p[\"offset_bytes\"] < 500 * 2**20), p
print(len(probes), \"probes in\", rounds, \"rounds\")
"
'

# A run on a card paced at 10 ms an operation takes seconds: killed as
# soon as its undo file holds a record (a 256-byte header, then a block
# of 512 between a head and a trailer of 64), it leaves the file behind.
PACED=sim:size=256M,fake=256M,pace=10ms
has_record() {
	test "$(wc -c <"$UNDO")" -ge $((256 + 64 + 512 + 64))
}

test_expect_success '--restore: a file left by a killed run restores its card, not one of another size' '
	fb_start --capacity-check --undo-file="$UNDO" $PACED &&
	poll_until "the undo file header" test -s "$UNDO" &&
	poll_until "a whole record" has_record &&
	kill -9 $fb_pid && fb_wait &&
	test -s "$UNDO" &&
	test_usage_error flashbench \
		"--restore: .*card.undo: it was made for a device of 268435456 bytes" \
		--restore="$UNDO" sim:size=512M,fake=512M &&
	"$FLASHBENCH" --restore="$UNDO" $PACED >out 2>err &&
	cat out err &&
	grep -E "^restored [0-9]+ bytes from [0-9]+ records; [0-9]+ blocks read back, 0 not as saved\$" out &&
	test ! -e "$UNDO"
'

test_done
