#!/bin/sh
# t7100: queue depth above 1.  On the simulated card, queue=N makes up to
# N operations overlap: at depth d <= N random reads take exactly 1/d of
# the device time, beyond N no less, and each operation's latency stays
# its own (or grows by the wait in the card).  On a loop device io_uring
# and AIO (forced through FLASHBENCH_ENGINE) run at depth 32 and report
# so, writes at depth 32 stay inside the announced range, and a read
# that fails at depth is reported with its offset.  The VM's "depth"
# compiles only on a timed loop with one read or write as its body.

. "$(dirname "$0")/lib.sh"
require python3

MIB=1048576
# 4 KiB reads take 624.8us each, every time: no noise, no spikes
SIM=sim:plain,queue=4,noise=0,spikes=0

# iops_json DEPTH [ARGS...]: --iops --read-only on $SIM at DEPTH, JSON
iops_json() {
	d=$1
	shift
	"$FLASHBENCH" --iops --read-only --time=1 --iodepth="$d" \
		--format=json "$@" "$SIM" >qd$d.json
}

test_expect_success 'sim queue=4: depth 1, 2, 4, 8 run on the model, each at its depth' '
	iops_json 1 && iops_json 2 && iops_json 4 && iops_json 8 &&
	python3 -c "import json
for d in (1, 2, 4, 8):
    r = json.load(open(\"qd%d.json\" % d))
    assert r[\"parameters\"][\"engine\"] == \"sim\", r[\"parameters\"]
    assert r[\"results\"][0][\"iodepth\"] == d, (d, r[\"results\"])"
'

test_expect_success 'sim queue=4: depth d <= 4 is exactly d times the reads, same latency' '
	python3 - <<-\PY
	import json
	runs = {d: json.load(open("qd%d.json" % d)) for d in (1, 2, 4, 8)}
	r = {d: runs[d]["results"][0] for d in runs}
	one = r[1]
	for d in (1, 2, 4):
	    assert runs[d]["parameters"]["iodepth"] == d, runs[d]["parameters"]
	    assert runs[d]["parameters"]["engine"] == "sim"
	    # the same device time holds d times the operations
	    assert r[d]["device_time_ns"] == one["device_time_ns"], (d, r[d])
	    assert r[d]["operations"] == d * one["operations"], (d, r[d])
	    # and each one takes as long as alone
	    assert r[d]["latency_ns"] == one["latency_ns"], (d, r[d])
	PY
'

test_expect_success 'sim queue=4: depth 8 is no faster than 4, and waits twice as long' '
	python3 - <<-\PY
	import json
	four = json.load(open("qd4.json"))["results"][0]
	eight = json.load(open("qd8.json"))["results"][0]
	# time per operation, exactly: t8 / n8 == t4 / n4
	assert eight["device_time_ns"] * four["operations"] == \
	    four["device_time_ns"] * eight["operations"], (four, eight)
	p4, p8 = four["latency_ns"]["p50"], eight["latency_ns"]["p50"]
	assert abs(p8 - 2 * p4) <= 0.02 * p8, (p4, p8)
	PY
'

test_expect_success 'sim queue=1 (the default): depth 32 is no faster' '
	"$FLASHBENCH" --iops --read-only --time=1 --format=json \
		sim:plain,noise=0,spikes=0 >one.json &&
	"$FLASHBENCH" --iops --read-only --time=1 --iodepth=32 \
		--format=json sim:plain,noise=0,spikes=0 >deep.json &&
	python3 - <<-\PY
	import json
	a = json.load(open("one.json"))["results"][0]
	b = json.load(open("deep.json"))["results"][0]
	assert b["device_time_ns"] * a["operations"] == \
	    a["device_time_ns"] * b["operations"], (a, b)
	PY
'

test_expect_success 'sim queue=4: text names the depth; depth 1 text is unchanged' '
	"$FLASHBENCH" --iops --read-only --time=1 --iodepth=4 "$SIM" >out &&
	grep "^random 4096-byte reads for 1s: 6402 IOPS; latency p50 .*(queue depth 4)\$" out &&
	"$FLASHBENCH" --iops --read-only --time=1 "$SIM" >out &&
	grep "^random 4096-byte reads for 1s: 1601 IOPS; latency p50 [^(]*\$" out
'

test_expect_success 'sim queue=4: -t at depth 4 reads 1 MiB blocks 4 times as fast' '
	"$FLASHBENCH" -t --time=2 --format=json sim:plain,noise=0,spikes=0,queue=4 >a.json &&
	"$FLASHBENCH" -t --time=2 --iodepth=4 --format=json \
		sim:plain,noise=0,spikes=0,queue=4 >b.json &&
	python3 - <<-\PY
	import json
	a = json.load(open("a.json"))["results"][-1]["bytes_per_s"]
	b = json.load(open("b.json"))["results"][-1]["bytes_per_s"]
	assert abs(b - 4 * a) <= 0.001 * b, (a, b)
	PY
'

test_expect_success 'sim bad=: a read failing at depth 32 is reported with its offset' '
	test_expect_code 1 "$FLASHBENCH" --iops --read-only --time=1 \
		--iodepth=32 "$SIM,bad=100M+1M" >out 2>err &&
	cat err &&
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	sed -n "s/^flashbench: sim:[^ ]*: read at \([0-9]*\) (+4096): Input\/output error\$/\1/p" \
		err >offset &&
	test -s offset &&
	off=$(cat offset) &&
	test "$off" -ge $((100 * MIB)) && test "$off" -lt $((101 * MIB))
'

test_expect_success 'sim bad=: a write failing at depth 8 is reported like at depth 1' '
	test_expect_code 1 "$FLASHBENCH" --write-speed --time=1 --iodepth=8 \
		"$SIM,bad=16M+1M" >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 2 &&
	grep "^flashbench: --write-speed overwrites bytes " err &&
	grep "^flashbench: sim:[^ ]*: write at 16777216 (+4194304): Input/output error\$" err
'

test_expect_success 'FLASHBENCH_ENGINE: an unknown engine is a usage error' '
	FLASHBENCH_ENGINE=spdk &&
	export FLASHBENCH_ENGINE &&
	test_usage_error flashbench \
		"^FLASHBENCH_ENGINE: .spdk. is not an engine; use io_uring, aio or psync\$" \
		--iops --read-only --time=1 --iodepth=4 "$SIM" &&
	unset FLASHBENCH_ENGINE
'

test_expect_success '--iodepth: 0 and 257 are refused, and it has no place in -a' '
	test_usage_error flashbench "iodepth" --iodepth=0 --iops "$SIM" &&
	test_usage_error flashbench "iodepth" --iodepth=257 --iops "$SIM" &&
	test_usage_error flashbench "iodepth" --iodepth=4 -a "$SIM"
'

# ---- the VM's depth ----

test_expect_success 'program: a loop with a depth takes the model'"'"'s time' '
	cat >deep.prog <<-\EOF &&
	let t, n = for pos in shuffle 0 4096 64 within 1000000 depth 2 * 2 (total, runs) {
		read pos 4096
	}
	report time t t
	report count n n
	EOF
	"$FLASHBENCH" --program=deep.prog --format=json "$SIM" >doc.json &&
	python3 - <<-\PY
	import json
	r = json.load(open("doc.json"))["results"][0]
	# 4 lanes of 624.8us: the second round of 4 starts before 1 ms,
	# the third would start after it
	assert r["n"] == 8 and r["t"] == 2 * 624800, r
	PY
'

test_expect_success 'program: depth needs within, one read or write, 1..256' '
	printf "for p in linear 0 4096 4 depth 4 none {\n\tread p 4096\n}\n" >a.prog &&
	test_expect_code 2 "$FLASHBENCH" --program=a.prog "$SIM" 2>err &&
	grep "depth. needs a loop bounded by time" err &&
	printf "for p in linear 0 4096 4 within 1000 depth 4 none {\n\tread p 4096\n\tread p 4096\n}\n" >b.prog &&
	test_expect_code 2 "$FLASHBENCH" --program=b.prog "$SIM" 2>err &&
	grep "a single read or write as its body" err &&
	printf "for p in linear 0 4096 4 within 1000 depth 300 none {\n\tread p 4096\n}\n" >c.prog &&
	test_expect_code 2 "$FLASHBENCH" --program=c.prog "$SIM" 2>err &&
	cat err && grep "depth" err
'

test_expect_success 'list-programs: --iops and the rate tests loop at $iodepth' '
	"$FLASHBENCH" --list-programs >out &&
	grep "within \$time depth \$iodepth (total, runs, p50, p99, max) {" out &&
	grep "within 1000000000 resume depth \$iodepth (total, runs) {" out &&
	grep "within \$time depth 32 (total, runs, p50, p99, max) {" out
'

# ---- does the host path queue? (a file standing in for the card) ----

# host_queue CMDQ: --class-check --read-only on the file mmcblk0 with a
# sysfs tree whose mmcblk0 has nr_requests 64 and, unless CMDQ is "-",
# device/cmdq_en CMDQ; the host_queue record in host.json
host_queue() {
	rm -rf sys && mkdir -p sys/block/mmcblk0/queue sys/block/mmcblk0/device &&
	echo 64 >sys/block/mmcblk0/queue/nr_requests &&
	if [ "$1" != - ]; then echo "$1" >sys/block/mmcblk0/device/cmdq_en; fi &&
	truncate -s 64M mmcblk0 &&
	"$FLASHBENCH" --class-check --read-only --time=0.05 --sysfs-root=sys \
		--format=json mmcblk0 >doc.json &&
	python3 -c "import json
d = json.load(open(\"doc.json\"))
print(json.dumps([r for r in d[\"results\"] if r[\"kind\"] == \"host_queue\"][0]))" >host.json &&
	cat host.json
}

test_expect_success 'host queue: the card'"'"'s command queue on' '
	host_queue 1 &&
	grep "\"nr_requests\": 64, \"command_queue\": true, \"queues\": \"card\"" host.json
'

test_expect_success 'host queue: the card'"'"'s command queue off: not A2'"'"'s queueing' '
	host_queue 0 &&
	grep "\"command_queue\": false, \"queues\": \"host\"" host.json &&
	grep "so QD32 is not A2" host.json
'

test_expect_success 'host queue: not an mmc card: the block layer only' '
	host_queue - &&
	grep "\"command_queue\": null, \"queues\": \"host\"" host.json
'

test_expect_success 'host queue: not in sysfs: cannot tell' '
	truncate -s 64M other &&
	"$FLASHBENCH" --class-check --read-only --time=0.05 --sysfs-root=sys \
		other >out &&
	grep "^host queue: cannot tell: the device is not in sysfs\$" out
'

# ---- loop devices: the engines ----

if have_loop; then
	loop_setup LOOP 128M
fi
IMAGE=$TRASH/image

test_loop 'loop: setup: a 128 MiB device of random data' '
	head -c $((128 * MIB)) /dev/urandom >"$IMAGE" &&
	dd if="$IMAGE" of="$LOOP" bs=1M oflag=direct status=none &&
	chunk_sums_quick "$LOOP" $MIB >"$TRASH/image.sums"
'

# engine_works ENGINE: the kernel lets ENGINE run here (a container's
# seccomp filter may refuse io_uring); the reason in engine.why if not
engine_works() {
	truncate -s 64M "$TRASH/probe" &&
	FLASHBENCH_ENGINE=$1 "$FLASHBENCH" --iops --read-only --time=0.01 \
		--iodepth=2 -q "$TRASH/probe" >/dev/null 2>"$TRASH/engine.why"
}

# test_engine ENGINE NAME BODY: a loop test of ENGINE, skipped (saying
# why) where the kernel refuses the engine itself
test_engine() {
	if have_loop && ! engine_works "$1"; then
		test_skip "$2" "$(cat "$TRASH/engine.why")"
	else
		test_loop "$2" "$3"
	fi
}

# engine_reads ENGINE: --iops --read-only at depth 32 forced on ENGINE
engine_reads() {
	FLASHBENCH_ENGINE=$1 "$FLASHBENCH" --iops --read-only --time=0.3 \
		--iodepth=32 --span=32M --format=json "$LOOP" >doc.json 2>err &&
	cat err && test ! -s err &&
	python3 - "$1" <<-\PY
	import json, sys
	d = json.load(open("doc.json"))
	p = d["parameters"]
	assert p["engine"] == sys.argv[1] and p["iodepth"] == 32, p
	r = d["results"][0]
	lat = r["latency_ns"]
	assert r["operations"] > 32 and 0 < lat["p50"] <= lat["p99"] <= lat["max"], r
	assert d["bytes_written"] == 0 and d["bytes_read"] == 4096 * r["operations"], d
	PY
}

test_engine io_uring 'loop: io_uring runs --iops at depth 32 and reads nothing past it' '
	engine_reads io_uring
'

test_engine aio 'loop: aio runs --iops at depth 32' '
	engine_reads aio
'

test_loop 'loop: psync forced: depth 1, said on stderr' '
	FLASHBENCH_ENGINE=psync "$FLASHBENCH" --iops --read-only --time=0.2 \
		--iodepth=32 --span=32M --format=json "$LOOP" >doc.json 2>err &&
	grep "^flashbench: note: FLASHBENCH_ENGINE=psync: running at queue depth 1\$" err &&
	python3 -c "import json
d = json.load(open(\"doc.json\"))
p = d[\"parameters\"]
assert p[\"engine\"] == \"psync\" and p[\"iodepth\"] == 1, p
assert d[\"results\"][0][\"iodepth\"] == 1, d[\"results\"]"
'

# --class-check mirrors fio's libaio jobs (the Raspberry Pi's test): on
# Linux AIO where it works, though io_uring is the engine of --iops
if have_loop && { ! engine_works aio || ! engine_works io_uring; }; then
	test_skip 'loop: --class-check runs on aio as fio'"'"'s libaio jobs, --iops on io_uring' \
		"$(cat "$TRASH/engine.why")"
else
	test_loop 'loop: --class-check runs on aio as fio'"'"'s libaio jobs, --iops on io_uring' '
		"$FLASHBENCH" --class-check --read-only --time=0.05 \
			--span=32M --format=json "$LOOP" >class.json 2>err &&
		"$FLASHBENCH" --iops --read-only --iodepth=32 --time=0.05 \
			--span=32M --format=json "$LOOP" >iops.json 2>>err &&
		cat err && test ! -s err &&
		python3 -c "import json
c = json.load(open(\"class.json\"))[\"parameters\"]
i = json.load(open(\"iops.json\"))[\"parameters\"]
assert c[\"engine\"] == \"aio\", c
assert i[\"engine\"] == \"io_uring\", i"
	'
fi

# What reached the kernel, not what flashbench says of itself: strace
# shows how many reads each io_uring_enter or io_submit handed over.

# traced ENGINE: --iops --read-only at depth 32 on ENGINE under strace,
# its reads' system calls in trace, its stderr in err (LeakSanitizer
# cannot run under ptrace: the sanitizer pass checks leaks elsewhere)
traced() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	FLASHBENCH_ENGINE=$1 strace -f -qq -o trace \
		-e trace=io_uring_enter,io_submit,pread64,preadv,preadv2 \
		"$FLASHBENCH_REAL" --iops --read-only --time=0.2 --iodepth=32 \
		--span=32M -q "$LOOP" >/dev/null 2>err &&
	cat err
}

# most_at_once: the most operations one io_uring_enter or io_submit
# handed the kernel (0 when none did)
most_at_once() {
	awk '/(io_uring_enter|io_submit)(\(| resumed)/ && /= [0-9]+$/ {
		if ($NF + 0 > most) most = $NF + 0
	} END { print most + 0 }' trace
}

test_traced test_engine io_uring 'loop: io_uring hands the kernel 32 reads at once' '
	traced io_uring && test ! -s err &&
	test "$(most_at_once)" = 32
'

test_traced test_engine aio 'loop: aio hands the kernel 32 reads at once' '
	traced aio && test ! -s err &&
	test "$(most_at_once)" = 32
'

test_traced test_engine psync 'loop: psync forced: one read at a time, each its own pread' '
	traced psync &&
	grep "^flashbench: note: FLASHBENCH_ENGINE=psync: running at queue depth 1\$" err &&
	test "$(most_at_once)" = 0 &&
	test "$(grep -c "pread64(.*, 4096, [0-9]*) = 4096\$" trace)" -gt 32
'

test_loop 'loop: psync forced: the QD32 verdicts are not measured, not QD1 figures' '
	FLASHBENCH_ENGINE=psync "$FLASHBENCH" --class-check --read-only \
		--time=0.1 "$LOOP" >out 2>err &&
	grep "^A1-QD32 .* at QD32: not measured\$" out &&
	grep "^A2 .* at QD32: not measured\$" out &&
	grep "^A1 .* measured r [0-9]* IOPS at QD1: not measured\$" out
'

# engine_writes ENGINE TEST...: TEST at depth 32 on ENGINE changes only
# MiB pieces inside [16 MiB, 48 MiB), which it announced, and some.
engine_writes() {
	ew_engine=$1
	shift
	dd if="$IMAGE" of="$LOOP" bs=1M oflag=direct status=none &&
	FLASHBENCH_ENGINE=$ew_engine "$FLASHBENCH" "$@" --span=32M \
		--time=0.3 --iodepth=32 --format=json "$LOOP" >doc.json 2>err &&
	cat err &&
	grep "^flashbench: $1 overwrites bytes 16777216 to 50331647 " err &&
	test "$(wc -l <err)" = 1 &&
	chunk_sums_quick "$LOOP" $MIB >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	echo "changed MiB: $(tr "\n" " " <changed)" &&
	test -s changed &&
	chunks_within changed 16 48 &&
	python3 - "$ew_engine" <<-\PY
	import json, sys
	d = json.load(open("doc.json"))
	assert d["parameters"]["engine"] == sys.argv[1], d["parameters"]
	assert d["bytes_written"] > 0, d
	PY
}

test_engine io_uring 'loop: io_uring --iops writes at depth 32 only inside the announced range' '
	engine_writes io_uring --iops
'

test_engine aio 'loop: aio --iops writes at depth 32 only inside the announced range' '
	engine_writes aio --iops
'

test_engine io_uring 'loop: io_uring --write-speed at depth 32 only inside the announced range' '
	engine_writes io_uring --write-speed
'

test_engine aio 'loop: aio --write-speed at depth 32 only inside the announced range' '
	engine_writes aio --write-speed
'

test_engine io_uring 'loop: SIGINT at depth 32: exit 130, a whole document, writes inside the range' '
	dd if="$IMAGE" of="$LOOP" bs=1M oflag=direct status=none &&
	FLASHBENCH_ENGINE=io_uring &&
	export FLASHBENCH_ENGINE &&
	FB_OUT=doc.json fb_start --iops --iodepth=32 --span=32M --time=60 \
		--format=json -q "$LOOP" &&
	unset FLASHBENCH_ENGINE &&
	wait_announced &&
	kill -INT "$fb_pid" &&
	fb_wait &&
	test "$(cat code)" = 130 &&
	grep "^flashbench: interrupted; results are incomplete\$" err &&
	python3 -c "import json
d = json.load(open(\"doc.json\"))
assert d[\"incomplete\"] is True and d[\"parameters\"][\"iodepth\"] == 32, d" &&
	chunk_sums_quick "$LOOP" $MIB >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	chunks_within changed 16 48
'

test_loop 'loop: --class-check says the block layer queues' '
	"$FLASHBENCH" --class-check --read-only --time=0.2 "$LOOP" >out 2>err &&
	grep "^A1-QD32 .* at QD32: " out &&
	grep "^host queue: nr_requests [0-9]*, the block layer queues" out
'

test_done
