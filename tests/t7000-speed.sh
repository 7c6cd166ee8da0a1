#!/bin/sh
# t7000: real-world speed.  On simulated cards whose write rate and
# latencies are chosen, --class-check gives the verdicts that follow from
# the model, in text and JSON; -t reports the model's read rate; --iops
# reports IOPS and ordered latency percentiles; --read-only writes
# nothing and opens read-only.  On a loop device -t agrees with dd, the
# writing tests change nothing outside the range they announce, and a
# mounted device is refused.

. "$(dirname "$0")/lib.sh"

MIB=1048576

# A fast card: 4 MiB in 50us + 4MiB / 40MB/s; 4 KiB random reads in
# 100us + 4KiB / 20MB/s, writes in 50us + 4KiB / 40MB/s; no gc, no noise.
FAST=write-rate=40M,write-lat=50us,gc=0,read-lat=100us,read-rate=20M
FAST=sim:$FAST,page-cross=0,au-cross=0,noise=0,page=4K,prog=4K
# A slow one: 5 MB/s writes.
SLOW=write-rate=5M,write-lat=500us,gc=0,read-lat=400us,read-rate=20M
SLOW=sim:$SLOW,page-cross=0,au-cross=0,noise=0,page=4K,prog=4K

# model WRITE_RATE WRITE_LAT_S READ_RATE READ_LAT_S: "write_bytes_per_s
# read_iops write_iops" the model gives for 4 MiB sequential writes and
# 4 KiB random I/O (one 4 KiB program unit, no page or AU crossing).
model() {
	awk -v wr="$1" -v wl="$2" -v rr="$3" -v rl="$4" 'BEGIN {
		e = 4194304; b = 4096
		printf "%.1f %.1f %.1f\n", e / (wl + e / wr),
			1 / (rl + b / rr), 1 / (wl + b / wr) }'
}

# verdicts W RI WI: "CLASS pass|FAIL" for every class, from the SD
# requirements (MB/s sequential write; A1, A2 also read and write IOPS).
verdicts() {
	awk -v w="$1" -v ri="$2" -v wi="$3" 'BEGIN {
		n = split("C2 2 0 0 C4 4 0 0 C6 6 0 0 C10 10 0 0 U1 10 0 0 " \
			"U3 30 0 0 V6 6 0 0 V10 10 0 0 V30 30 0 0 V60 60 0 0 " \
			"V90 90 0 0 A1 10 1500 500 A2 10 4000 2000", t, " ")
		for (i = 1; i <= n; i += 4)
			print t[i], (w >= t[i + 1] * 1e6 && ri >= t[i + 2] &&
				     wi >= t[i + 3]) ? "pass" : "FAIL" }'
}

# text_verdicts FILE: "CLASS RESULT" from --class-check text output (the
# result column: pass, FAIL or "not measured").
text_verdicts() {
	awk 'NR > 1 && NF && $1 ~ /^[CUVA][0-9]+$/ {
		r = substr($0, 67, 12); sub(/ +$/, "", r); print $1, r }' "$1"
}

# check_class_json FILE W RI WI: the JSON document has a "classes" object
# keyed by every class name, each with "required", "measured", "pass";
# the measured figures are the model's (0.5%), and pass follows from them.
check_class_json() {
	verdicts "$2" "$3" "$4" >verdicts.expect
	python3 - "$@" <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	w, ri, wi = (float(x) for x in sys.argv[2:5])
	want = dict(l.split() for l in open("verdicts.expect"))
	names = "C2 C4 C6 C10 U1 U3 V6 V10 V30 V60 V90 A1 A2".split()
	assert doc["test"] == "class-check", doc["test"]
	assert doc["read_only"] is False
	assert list(doc["classes"]) == names, list(doc["classes"])
	def near(got, exp):
	    assert abs(got - exp) <= 0.005 * exp, (got, exp)
	near(doc["write_bytes_per_s"], w)
	near(doc["read_iops"], ri)
	near(doc["write_iops"], wi)
	assert doc["bytes_written"] > 0 and doc["bytes_read"] > 0
	mb = {"C2": 2, "C4": 4, "C6": 6, "C10": 10, "U1": 10, "U3": 30,
	      "V6": 6, "V10": 10, "V30": 30, "V60": 60, "V90": 90, "A1": 10,
	      "A2": 10}
	for name, c in doc["classes"].items():
	    assert set(c) >= {"required", "measured", "pass"}, (name, c)
	    assert c["required"]["write_bytes_per_s"] == mb[name] * 1e6, c
	    near(c["measured"]["write_bytes_per_s"], w)
	    if name.startswith("A"):
	        near(c["measured"]["read_iops"], ri)
	        near(c["measured"]["write_iops"], wi)
	        r = {"A1": (1500, 500), "A2": (4000, 2000)}[name]
	        assert (c["required"]["read_iops"],
	                c["required"]["write_iops"]) == r, c
	    assert c["pass"] is (want[name] == "pass"), (name, c, want[name])
	PY
}

# ---- class check on simulated cards ----

test_expect_success 'sim: the fast card passes U3, V30 and A1, fails V60, A2' '
	set -- $(model 40e6 50e-6 20e6 100e-6) &&
	echo "model: $*" &&
	"$FLASHBENCH" --class-check --time=1 "$FAST" >out 2>err &&
	cat out err &&
	text_verdicts out >got &&
	verdicts "$@" >expect &&
	test_cmp expect got &&
	grep "^U3 .* pass" out && grep "^V30 .* pass" out &&
	grep "^A1 .* pass" out && grep "^A2 .* FAIL" out &&
	grep "^V60 .* FAIL" out
'

test_expect_success 'sim: the fast card: text shows the model figures' '
	set -- $(model 40e6 50e-6 20e6 100e-6) &&
	"$FLASHBENCH" --class-check --time=1 "$FAST" >out 2>/dev/null &&
	w=$(awk -v w="$1" "BEGIN { printf \"%.1f\", w / 1e6 }") &&
	ri=$(awk -v x="$2" "BEGIN { printf \"%.0f\", x }") &&
	wi=$(awk -v x="$3" "BEGIN { printf \"%.0f\", x }") &&
	echo "want $w MB/s, r $ri w $wi IOPS" &&
	grep "^U3 .*write 30 MB/s .*write $w MB/s " out &&
	grep "^A1 .*r 1500 w 500 IOPS, 10 MB/s .*r $ri w $wi IOPS, $w MB/s " out
'

test_expect_success 'sim: the fast card: json classes with required, measured, pass' '
	set -- $(model 40e6 50e-6 20e6 100e-6) &&
	"$FLASHBENCH" --class-check --time=1 --format=json "$FAST" \
		>doc.json 2>err &&
	check_class_json doc.json "$@"
'

test_expect_success 'sim: the 5 MB/s card fails C10 and passes only C2, C4' '
	set -- $(model 5e6 500e-6 20e6 400e-6) &&
	echo "model: $*" &&
	"$FLASHBENCH" --class-check --time=1 "$SLOW" >out 2>err &&
	cat out &&
	text_verdicts out >got &&
	verdicts "$@" >expect &&
	test_cmp expect got &&
	grep "^C10 .* FAIL" out &&
	awk "\$2 == \"pass\" { print \$1 }" got >passed &&
	printf "C2\nC4\n" >expect.passed &&
	test_cmp expect.passed passed
'

test_expect_success 'sim: the 5 MB/s card in json' '
	set -- $(model 5e6 500e-6 20e6 400e-6) &&
	"$FLASHBENCH" --class-check --time=1 --format=json "$SLOW" \
		>doc.json 2>/dev/null &&
	check_class_json doc.json "$@" &&
	python3 -c "import json; d = json.load(open(\"doc.json\"));
assert d[\"classes\"][\"C10\"][\"pass\"] is False"
'

# ---- read rate ----

# read_rate_ok BLOCK: -t -b BLOCK (JSON bytes_per_s, and the text's MB/s)
# within 2% of BLOCK / (read-lat + BLOCK / read-rate).
read_rate_ok() {
	card=sim:read-lat=300us,read-rate=15M,page-cross=0,au-cross=0
	want=$(awk -v b="$1" "BEGIN { printf \"%.0f\", b / (300e-6 + b / 15e6) }")
	"$FLASHBENCH" -t -b "$1" --time=1 --format=json "$card" >doc.json &&
	"$FLASHBENCH" -t -b "$1" --time=1 "$card" >out &&
	cat doc.json out &&
	python3 - "$want" "$1" <<-\PY &&
	import json, sys
	d = json.load(open("doc.json"))
	want, block = float(sys.argv[1]), int(sys.argv[2])
	assert d["test"] == "read-speed" and d["block_bytes"] == block, d
	got = d["bytes_per_s"]
	assert abs(got - want) <= 0.02 * want, (got, want)
	assert d["bytes_written"] == 0 and d["bytes_read"] > 0
	assert abs(got - d["bytes_read"] * 1e9 / d["device_time_ns"]) <= \
	    0.001 * got
	PY
	mbs=$(sed -n "s/^read $1-byte blocks for [0-9.]* s: \([0-9.]*\) MB\/s .*/\1/p" out) &&
	echo "text: $mbs MB/s, model $want B/s" &&
	awk -v g="$mbs" -v w="$want" "BEGIN { exit !(g * 1e6 >= 0.98 * w &&
		g * 1e6 <= 1.02 * w) }"
}

test_expect_success 'sim: -t -b 64K reads at the model rate' '
	read_rate_ok 65536
'

test_expect_success 'sim: -t (1 MiB blocks) reads at the model rate' '
	read_rate_ok 1048576
'

# ---- IOPS ----

test_expect_success 'sim: --iops json has iops and p50 <= p99 <= max' '
	"$FLASHBENCH" --iops --time=1 --format=json \
		sim:spikes=0.02,seed=5 >doc.json 2>err &&
	grep "^flashbench: --iops overwrites bytes " err &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	assert d["test"] == "iops"
	def check(r, want):
	    lat = r["latency_ns"]
	    assert 0 < lat["p50"] <= lat["p99"] <= lat["max"], lat
	    assert r["operations"] > 0
	    iops = r["operations"] * 1e9 / r["device_time_ns"]
	    assert abs(r["iops"] - iops) <= 0.001 * iops + 0.1, (r, iops)
	    if want:
	        assert abs(r["iops"] - want) <= 0.05 * want, (r["iops"], want)
	# reads: read-lat 420us + 4KiB / 20MB/s, a few spikes
	check(d, None)
	assert 1000 < d["iops"] <= 1 / (420e-6 + 4096 / 20e6) * 1.01, d["iops"]
	assert d["latency_ns"]["p50"] < d["latency_ns"]["max"]
	assert isinstance(d["write"], dict), d["write"]
	check(d["write"], None)
	assert d["bytes_read"] == d["operations"] * 4096
	assert d["bytes_written"] == d["write"]["operations"] * 4096
	PY
'

test_expect_success 'sim: --iops --read-only measures no writes' '
	"$FLASHBENCH" --iops --read-only --time=1 --format=json \
		sim:ro >doc.json 2>err &&
	test ! -s err &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	assert d["write"] is None and d["bytes_written"] == 0, d
	lat = d["latency_ns"]
	assert lat["p50"] <= lat["p99"] <= lat["max"], lat
	PY
'

# ---- read-only class check ----

test_expect_success 'sim:ro: --class-check --read-only runs and writes nothing' '
	"$FLASHBENCH" --class-check --read-only --time=1 --format=json \
		sim:ro >doc.json 2>err &&
	cat err &&
	test ! -s err &&
	python3 - <<-\PY
	import json
	d = json.load(open("doc.json"))
	assert d["read_only"] is True
	assert d["bytes_written"] == 0 and d["bytes_read"] > 0, d
	assert d["write_bytes_per_s"] is None and d["write_iops"] is None
	want = 1 / (420e-6 + 4096 / 20e6)
	assert abs(d["read_iops"] - want) <= 0.02 * want, d["read_iops"]
	for name, c in d["classes"].items():
	    assert c["measured"]["write_bytes_per_s"] is None, c
	    # a write requirement is not measured; A2 fails on reads alone
	    assert c["pass"] is (False if name == "A2" else None), (name, c)
	PY
'

test_expect_success 'sim:ro: --class-check --read-only --stats: written 0B' '
	"$FLASHBENCH" --class-check --read-only --time=1 --stats \
		sim:ro >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep "^device time .*, written 0B$" err &&
	grep "^C10 .* not measured" out
'

test_expect_success 'sim:ro: --class-check without --read-only is refused' '
	test_expect_code 1 "$FLASHBENCH" --class-check --time=1 sim:ro \
		>out 2>err &&
	cat err &&
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	grep "write-protected" err
'

# ---- loop devices ----

if have_loop; then
	loop_setup LOOP 256M
	loop_setup ROLOOP 64M -r
	MNT=$TRASH/mnt
	mkdir -p "$MNT"
	# registered after the loop device, so it runs before the detach
	test_at_exit "umount '$MNT'"
fi
IMAGE=$TRASH/image

# restore: put the loop device back to the random image, only the MiB
# chunks the last run changed when that is known.
restore() {
	if [ ! -f "$TRASH/dirty" ]; then
		copy_to_dev "$IMAGE" "$LOOP"
		return
	fi
	while read -r i; do
		dd if="$IMAGE" of="$LOOP" bs=$MIB skip="$i" seek="$i" count=1 \
			oflag=direct conv=notrunc status=none || return 1
	done <"$TRASH/dirty"
	rm -f "$TRASH/dirty"
}

# run_checked ARGS...: restore the device, run flashbench ARGS... on it,
# leave out, err and changed (MiB chunks that differ from the image).
run_checked() {
	restore &&
	"$FLASHBENCH" "$@" "$LOOP" >out 2>err &&
	cat err &&
	chunk_sums_quick "$LOOP" $MIB >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	cp changed "$TRASH/dirty" &&
	echo "changed MiB: $(tr "\n" " " <changed)"
}

# median FILE: the middle line of FILE's numbers.
median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

test_loop 'loop: setup: a 256 MiB device of random data' '
	test -b "$LOOP" &&
	test "$(blockdev --getsize64 "$LOOP")" = $((256 * MIB)) &&
	head -c $((64 * MIB)) /dev/urandom >random64 &&
	cat random64 random64 random64 random64 >"$IMAGE" &&
	copy_to_dev "$IMAGE" "$LOOP" &&
	chunk_sums_quick "$LOOP" $MIB >"$TRASH/image.sums" &&
	test "$(wc -l <"$TRASH/image.sums")" = 256 &&
	dev_sum "$IMAGE" >"$TRASH/image.sum"
'

# fb_rate: one -t -b 1M run of 0.3 s on the loop device; bytes_per_s.
fb_rate() {
	"$FLASHBENCH" -t -b 1M --time=0.3 --format=json "$LOOP" >doc.json &&
	python3 -c "import json
d = json.load(open(\"doc.json\"))
assert d[\"block_bytes\"] == 1048576 and d[\"bytes_read\"] > 0, d
print(d[\"bytes_per_s\"])"
}

# dd_rate: three passes of dd over the whole loop device (about as long
# as fb_rate); bytes per second from dd's own counts and times.
dd_rate() {
	for pass in 1 2 3; do
		LC_ALL=C dd if="$LOOP" of=/dev/null bs=1M iflag=direct || return 1
	done 2>dd.err &&
	awk '/ copied, / { if ($1 != 268435456) exit 1
		bytes += $1; s += $(NF - 3); n++ }
		END { if (n != 3) exit 1; print bytes / s }' dd.err
}

# Three runs of each, interleaved, taking turns to go first; the medians
# must agree within 10%.  Other load on the machine can disturb a round,
# so up to three rounds are run; a real disagreement (a wrong time base or
# byte count) fails them all.
test_timing_loop 'loop: -t -b 1M agrees with dd iflag=direct within 10%' '
	for round in 1 2 3; do
		: >fb && : >dd &&
		for i in 1 2 3; do
			if [ $(((i + round) % 2)) = 1 ]; then
				fb_rate >>fb && dd_rate >>dd || return 1
			else
				dd_rate >>dd && fb_rate >>fb || return 1
			fi
		done
		f=$(median fb) && d=$(median dd) &&
		echo "round $round: flashbench" $(cat fb) "median $f;" \
			"dd" $(cat dd) "median $d" &&
		if awk -v f="$f" -v d="$d" \
			"BEGIN { exit !(f >= 0.9 * d && f <= 1.1 * d) }"; then
			return 0
		fi
	done
	return 1
'

test_loop 'loop: -t writes nothing' '
	"$FLASHBENCH" -t --time=0.1 "$LOOP" >out 2>err &&
	test ! -s err &&
	grep "^read 1048576-byte blocks for " out &&
	dev_sum "$LOOP" >after &&
	test_cmp "$TRASH/image.sum" after
'

test_loop 'loop: --write-speed --span=32M writes only [16 MiB, 48 MiB)' '
	run_checked --write-speed --span=32M --time=0.2 --format=json &&
	test "$(wc -l <err)" = 1 &&
	grep "^flashbench: --write-speed overwrites bytes 16777216 to 50331647 " err &&
	python3 -c "import json
d = json.load(open(\"out\"))
assert d[\"test\"] == \"write-speed\" and d[\"bytes_written\"] > 0, d" &&
	test -s changed &&
	chunks_within changed 16 48 &&
	set -- $(announced_range err) &&
	chunks_within changed $(($1 / MIB)) $((($2 + MIB - 1) / MIB))
'

test_loop 'loop: --class-check --span=32M writes only [16 MiB, 48 MiB)' '
	run_checked --class-check --span=32M --time=0.2 &&
	test "$(wc -l <err)" = 1 &&
	grep "^flashbench: --class-check overwrites bytes 16777216 to 50331647 " err &&
	grep "^C10 " out &&
	test -s changed &&
	chunks_within changed 16 48
'

test_loop 'loop: --class-check --read-only writes nothing' '
	restore &&
	"$FLASHBENCH" --class-check --read-only --time=0.2 --format=json \
		"$LOOP" >doc.json 2>err &&
	test ! -s err &&
	python3 -c "import json
d = json.load(open(\"doc.json\"))
assert d[\"bytes_written\"] == 0 and d[\"read_iops\"] > 0, d" &&
	dev_sum "$LOOP" >after &&
	test_cmp "$TRASH/image.sum" after
'

test_loop 'loop: read-only device: --class-check --read-only and -t work' '
	test "$(blockdev --getro "$ROLOOP")" = 1 &&
	"$FLASHBENCH" --class-check --read-only --time=0.1 "$ROLOOP" \
		>out 2>err &&
	test ! -s err &&
	grep "^A1 " out &&
	"$FLASHBENCH" -t --time=0.1 "$ROLOOP" >out &&
	grep "^read " out
'

test_loop 'loop: read-only device: --write-speed, --class-check refused' '
	for t in --write-speed --class-check --iops; do
		test_expect_code 1 "$FLASHBENCH" $t --time=0.1 "$ROLOOP" \
			>out 2>err || return 1
		cat err
		test ! -s out && test "$(wc -l <err)" = 1 &&
		grep -i "read-only" err || return 1
	done
'

# ---- mounted ----

# refused_busy ARGS...: flashbench ARGS exits 1 with nothing on stdout
# and one line on stderr saying the device is busy.
refused_busy() {
	"$FLASHBENCH" "$@" >out 2>err </dev/null
	rb_code=$?
	cat err
	if [ "$rb_code" != 1 ]; then
		echo "exit code $rb_code, want 1" >&2
		return 1
	fi
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	grep -Ei "busy|in use" err
}

test_loop 'loop: --iops with the default span ends at the end of the device' '
	"$FLASHBENCH" --iops --time=0.05 "$LOOP" >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	test "$(announced_range err)" = "$((16 * MIB)) $((256 * MIB))" &&
	grep "^random 4096-byte reads for " out &&
	grep "^random 4096-byte writes for " out
'

test_loop 'loop: setup: an ext4 file system, mounted' '
	rm -f "$TRASH/dirty" &&
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" &&
	mount "$LOOP" "$MNT" &&
	head -c $MIB /dev/urandom >"$TRASH/payload" &&
	cp "$TRASH/payload" "$MNT/payload" &&
	sync
'

test_loop 'mounted: --write-speed is refused as busy' '
	refused_busy --write-speed --time=0.1 "$LOOP"
'

test_loop 'mounted: --class-check is refused as busy' '
	refused_busy --class-check --time=0.1 "$LOOP"
'

test_loop 'mounted: --iops is refused as busy' '
	refused_busy --iops --time=0.1 "$LOOP"
'

test_loop 'mounted: -t and --class-check --read-only still run' '
	"$FLASHBENCH" -t --time=0.1 "$LOOP" >out &&
	grep "^read 1048576-byte blocks " out &&
	"$FLASHBENCH" --class-check --read-only --time=0.1 "$LOOP" >out &&
	grep "^A1 " out
'

test_loop 'unmounted: fsck -n finds the file system clean, data intact' '
	umount "$MNT" &&
	fsck.ext4 -n -f "$LOOP" &&
	mount -o ro "$LOOP" "$MNT" &&
	cmp "$TRASH/payload" "$MNT/payload" &&
	umount "$MNT"
'

test_done
