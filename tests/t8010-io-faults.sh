#!/bin/sh
# t8010: I/O faults.  On a simulated card with bad= ranges or ro, on a loop
# device whose backing file shrinks under it, and on a detached loop
# device, every test reports the fault in one line ("flashbench: DEV:
# read at N (+L): why") and exits 1, or - scatter (-s) and read speed (-t)
# only - goes past an unreadable block, saying so and counting it.  No run
# hangs, a short transfer is an error and never a measurement, and no
# result line is computed from a failed operation.

. "$(dirname "$0")/lib.sh"

SIM=sim:size=256M
ERR_RE='(read|write|discard) at [0-9]+ \(\+[0-9]+\): [^ ].*'
ANNOUNCE_RE='overwrites bytes [0-9]+ to [0-9]+ |erase blocks .*apart'

# run_fb ARGS...: flashbench ARGS, stdout in out, stderr in err, exit code
# in code; never more than 30 s.
run_fb() {
	timeout 30 "$FLASHBENCH" "$@" >out 2>err </dev/null
	echo $? >code
	echo "exit $(cat code): flashbench $*"
	cat err
}

# exit_is CODE: the last run_fb exited with CODE.
exit_is() {
	test "$(cat code)" = "$1" ||
		{ echo "exit code $(cat code), want $1" >&2; return 1; }
}

# fault_reported DEV [OP]: the last run exited 1, the last line on stderr
# is "flashbench: DEV: OP at N (+L): why", and every other line on stderr
# is the write announcement (or a scatter/read-speed skip count).
fault_reported() {
	exit_is 1 || return 1
	fr_last=$(tail -n 1 err)
	fr_rest=${fr_last#"flashbench: $1: "}
	if [ "$fr_rest" = "$fr_last" ] ||
	   ! printf '%s\n' "$fr_rest" |
		grep -Eq -- "^${2:-(read|write|discard)} at [0-9]+ \(\+[0-9]+\): [^ ].*\$"
	then
		echo "last line on stderr is not the fault in context:" >&2
		printf '%s\n' "$fr_last" >&2
		return 1
	fi
	if sed '$d' err | grep -Ev -- "$ANNOUNCE_RE|skipped [0-9]+ unreadable" |
		grep -q .; then
		echo "more than one line about the fault:" >&2
		cat err >&2
		return 1
	fi
}

# prefix_of_clean ARGS... (after a faulty sim run whose stdout is in out):
# the same run without the fault prints the same lines and more, so no
# line of the faulty run came from a failed operation and none is missing.
prefix_of_clean() {
	timeout 30 "$FLASHBENCH" "$@" >clean 2>/dev/null </dev/null || return 1
	n=$(wc -l <out)
	head -n "$n" clean >clean.head
	test_cmp clean.head out &&
	if [ "$n" -ge "$(wc -l <clean)" ]; then
		echo "the faulty run printed as many lines as a clean one" >&2
		return 1
	fi
}

# ---- simulated card, bad= ranges ----

BAD16=$SIM,bad=16M+1M
BAD0=$SIM,bad=0+1M

test_expect_success 'sim bad=: -a reports the failed read and prints no line for it or after it' '
	run_fb -a -c 1 "$BAD16" &&
	fault_reported "$BAD16" read &&
	grep "read at 16769024 (+16384): Input/output error\$" err &&
	test -s out &&
	prefix_of_clean -a -c 1 "$SIM" &&
	awk "\$2 <= 16777216 { print \"line after the failure: \" \$0; bad = 1 }
		END { exit bad }" out
'

for t in "-O" "-O -r" "-f" "--write-speed --time=1" "--class-check --time=1"
do
	test_expect_success "sim bad=: $t reports the failed write at 16 MiB, no result" "
		run_fb $t '$BAD16' &&
		fault_reported '$BAD16' write &&
		grep 'write at 16777216 (+4194304): Input/output error\$' err &&
		grep 'overwrites bytes' err &&
		test ! -s out
	"
done

test_expect_success 'sim bad=: -A keeps the lines before the failed write, none after' '
	run_fb -A -c 1 "$SIM,bad=17M+1M" &&
	fault_reported "$SIM,bad=17M+1M" write &&
	prefix_of_clean -A -c 1 "$SIM"
'

for t in "--iops --time=1" "--iops --read-only --time=1" \
	"--class-check --read-only --time=1" "-i -c 2" "--detect --budget=2" \
	"--detect --write --budget=2"
do
	test_expect_success "sim bad=: $t reports the failed read, no result" "
		run_fb $t '$BAD16,bad=0+1M' &&
		fault_reported '$BAD16,bad=0+1M' read &&
		grep ': Input/output error\$' err &&
		test ! -s out
	"
done

test_expect_success 'sim bad=: -i keeps the sizes read before the failure, no regression after it' '
	run_fb -i -b 4K --interval-order=10 -c 120 "$SIM,bad=100M+1M" &&
	fault_reported "$SIM,bad=100M+1M" read &&
	test_lines_match out "^[0-9]+ bytes: min " &&
	prefix_of_clean -i -b 4K --interval-order=10 -c 120 "$SIM" &&
	! grep -q "^1048576 bytes" out
'

test_expect_success 'sim bad=: -s skips the unreadable blocks, says so and counts them' '
	run_fb -s "$BAD0" &&
	exit_is 0 &&
	test "$(wc -l <err)" = 1 &&
	grep -E "^flashbench: scatter: skipped 64 unreadable blocks \(512 failed reads; first: read at 0 \(\+16384\): Input/output error\)\$" err &&
	timeout 30 "$FLASHBENCH" -s "$SIM" >clean &&
	awk "\$1 >= 1 { print \$1 }" clean >expect &&
	cut -f1 out >got &&
	test_cmp expect got
'

test_expect_success 'sim bad=: -s over nothing but unreadable blocks gives up (exit 1)' '
	run_fb -s --scatter-order=3 -c 1 "$BAD0" &&
	grep "skipped 8 unreadable blocks" err &&
	test ! -s out &&
	exit_is 1
'

test_expect_success python3 'sim bad=: -t skips the unreadable blocks, says so and counts them' '
	run_fb -t --time=1 -b 64K "$BAD0" &&
	exit_is 0 &&
	test "$(wc -l <out)" = 1 &&
	grep -E "^read 65536-byte blocks for " out &&
	test "$(wc -l <err)" = 1 &&
	grep -E "^flashbench: read-speed: skipped 16 unreadable blocks \(16 failed reads; first: read at 0 \(\+65536\): Input/output error\)\$" err &&
	run_fb -t --time=1 -b 64K --format=json "$BAD0" &&
	exit_is 0 &&
	python3 -c "import json,sys; d=json.load(open(\"out\")); sys.exit(d[\"results\"][-1][\"failed_reads\"] != 16)"
'

test_expect_success 'sim bad=: -t on a card that reads nothing gives up with the fault (exit 1)' '
	run_fb -t --time=1 "$SIM,bad=0+256M" &&
	fault_reported "$SIM,bad=0+256M" read &&
	test ! -s out
'

test_expect_success 'sim bad=: erase reports the failed discard (exit 1)' '
	timeout 30 "$ERASE" "$BAD0" 0 1M >out 2>err
	echo $? >code &&
	cat out err &&
	exit_is 1 &&
	test "$(wc -l <err)" = 1 &&
	test "$(cat err)" = "erase: $BAD0: discard at 0 (+1048576): Input/output error" &&
	! grep -q "^done" out
'

# ---- simulated card, ro ----

for t in "-O" "-O -r" "-f" "-A -c 1" "--write-speed --time=1" "--iops --time=1" \
	"--class-check --time=1" "--detect --write -e 4M --budget=2"
do
	test_expect_success "sim ro: $t is refused before any write, in one line" "
		run_fb $t '$SIM,ro' &&
		exit_is 1 &&
		test ! -s out &&
		test \"\$(wc -l <err)\" = 1 &&
		grep -E '^flashbench: sim:.*(write-protected|read-only)' err &&
		! grep 'overwrites bytes' err
	"
done

test_expect_success 'sim ro: erase is refused in one line' '
	timeout 30 "$ERASE" "$SIM,ro" 0 1M >out 2>err
	echo $? >code &&
	cat out err &&
	exit_is 1 &&
	test "$(wc -l <err)" = 1 &&
	grep -E "^erase: sim:.*(write-protected|read-only)" err
'

test_expect_success 'sim ro: the read-only tests still run' '
	run_fb -a -c 1 "$SIM,ro" && exit_is 0 &&
	run_fb --iops --read-only --time=1 "$SIM,ro" && exit_is 0 &&
	grep "IOPS" out
'

# ---- loop devices ----




# fb_stop: stop the running flashbench and wait until it has stopped
# (its state in /proc/PID/stat is T).
fb_stop() {
	kill -STOP $fb_pid 2>/dev/null || return 1
	poll_until "stop" eval \
		'[ "$(cut -d" " -f3 /proc/$fb_pid/stat 2>/dev/null)" = T ]'
}

# shrink_mid_run DEV READY ARGS...: run flashbench ARGS DEV; once the
# shell command READY has returned (lib.sh's wait_read or wait_written:
# the run is inside its timed I/O), stop it, shrink the backing file to
# 1 MiB and the device with it (losetup -c, which takes effect before it
# returns), and let it go on.  Exit code in code.
shrink_mid_run() {
	smr_dev=$1 smr_ready=$2
	shift 2
	smr_img=$(losetup -nO BACK-FILE "$smr_dev") &&
	test -f "$smr_img" || { echo "no backing file for $smr_dev" >&2; return 1; }
	fb_start "$@" "$smr_dev" || return 1
	if ! eval "$smr_ready" || ! fb_stop; then
		fb_wait
		echo "the run ended before the fault" >&2
		return 1
	fi
	truncate -s 1M "$smr_img" && losetup -c "$smr_dev"
	kill -CONT $fb_pid
	fb_wait
}

# Runs that read shrink once they have read a MiB; runs that write, once
# they have written one (the announcement on stderr is far less).
AFTER_READ="wait_read $MIB"
AFTER_WRITE="wait_written $MIB"

test_loop_io 'loop shrunk: -t stops at the short transfer (exit 1), no rate' '
	dev=$(make_loop 256M) &&
	shrink_mid_run $dev "$AFTER_READ" -t --time=20 -b 4K &&
	fault_reported $dev read &&
	grep -E "read at [0-9]+ \(\+4096\): short transfer \(0 of 4096 bytes\)\$" err &&
	test ! -s out
'

test_loop_io 'loop shrunk: -a stops at the short transfer, no align line after it' '
	dev=$(make_loop 256M) &&
	shrink_mid_run $dev "$AFTER_READ" -a -b 1024 -c 4096 &&
	fault_reported $dev read &&
	grep -E "short transfer \(0 of 1024 bytes\)\$" err &&
	n=$(wc -l <out) &&
	echo "$n align lines" &&
	{ test ! -s out || test_lines_match out "^align [0-9]+	pre "; }
'

test_loop_io 'loop shrunk: -s and -i stop at the short transfer (exit 1)' '
	dev=$(make_loop 256M) &&
	shrink_mid_run $dev "$AFTER_READ" -s -b 4K --scatter-order=16 -c 64 &&
	fault_reported $dev read &&
	grep -E "short transfer \(0 of 4096 bytes\)\$" err &&
	dev=$(make_loop 256M) &&
	shrink_mid_run $dev "$AFTER_READ" -i -b 4K --interval-order=10 -c 120 &&
	fault_reported $dev read &&
	grep -E "short transfer \(0 of [0-9]+ bytes\)\$" err &&
	{ test ! -s out || test_lines_match out "^[0-9]+ bytes: min "; }
'

for t in "-O -e 16M -b 512 -0 4" "-O -r -e 16M -b 512 -0 4" \
	"--write-speed --time=20 -e 1M" "--iops --time=20" \
	"--class-check --time=20" "-A -b 1024 -c 4096 -e 1M" \
	"-f -b 512 -e 2M --fat-nr=8"
do
	test_loop_io "loop shrunk: $t stops at the failed write (exit 1)" "
		dev=\$(make_loop 256M) &&
		shrink_mid_run \$dev \"\$AFTER_WRITE\" $t &&
		fault_reported \$dev &&
		grep -E ': (short transfer \\(0 of [0-9]+ bytes\\)|No space left on device|Input/output error)\$' err &&
		case '$t' in
		-O*|-A*|-f*) test ! -s out || test_lines_match out '^(align )?[0-9]' ;;
		*) test ! -s out ;;
		esac
	"
done

test_loop 'loop with a backing file shorter than the device: -a, -i, --iops --read-only report EIO' '
	dev=$(make_loop 256M) &&
	img=$(losetup -nO BACK-FILE $dev) &&
	truncate -s 1M "$img" &&
	for t in "-a -c 1" "-i -c 2 --offset=8M" "--iops --read-only --time=1" \
		"--class-check --read-only --time=1" "--detect --budget=2"; do
		run_fb $t $dev &&
		fault_reported $dev read &&
		grep -q "Input/output error\$" err &&
		test ! -s out || { echo "FAILED: $t"; return 1; }
	done
'

test_loop 'loop with a backing file shorter than the device: -s skips past its end and says so' '
	dev=$(make_loop 256M) &&
	img=$(losetup -nO BACK-FILE $dev) &&
	truncate -s 1M "$img" &&
	run_fb -s -b 4K --scatter-order=10 -c 1 $dev &&
	exit_is 0 &&
	grep -E "^flashbench: scatter: skipped 768 unreadable blocks \(768 failed reads; first: read at 1048576 \(\+4096\): Input/output error\)\$" err &&
	test "$(wc -l <out)" = 256 &&
	awk "\$1 >= 1 { print \"line for an unreadable block: \" \$0; bad = 1 }
		END { exit bad }" out
'

# every read past 128 MiB fails and reads nothing: the run is followed by
# its read calls (some 2 million before it would give up)
test_loop_io 'loop: -s stopped by a short transfer after skipping blocks names the short transfer' '
	dev=$(make_loop 256M) &&
	img=$(losetup -nO BACK-FILE $dev) &&
	truncate -s 128M "$img" &&
	shrink_mid_run $dev "wait_read_calls 10000" -s -b 4K --scatter-order=15 -c 64 --offset=128M &&
	grep "^flashbench: scatter: skipped [0-9]* unreadable blocks ([0-9]* failed reads; first: read at 134217728 (+4096): Input/output error)\$" err &&
	fault_reported $dev read &&
	tail -n 1 err | grep -E ": short transfer \(0 of 4096 bytes\)\$"
'

test_loop 'loop with a backing file shorter than the device: -t gives up (exit 1)' '
	dev=$(make_loop 256M) &&
	img=$(losetup -nO BACK-FILE $dev) &&
	truncate -s 1M "$img" &&
	run_fb -t --time=1 $dev &&
	fault_reported $dev read &&
	test ! -s out
'

# --time=2 is device time: the run reads for at least 2 s
test_loop_io 'loop detached mid-run: the run ends normally or reports the fault' '
	dev=$(make_loop 64M) &&
	fb_start -t --time=2 -b 64K $dev &&
	wait_read $MIB &&
	losetup -d $dev &&
	fb_wait &&
	case $(cat code) in
	0) grep "^read 65536-byte blocks for [0-9.]*m\{0,1\}s: " out && test ! -s err ;;
	1) fault_reported $dev read ;;
	*) false ;;
	esac
'

# A detached loop device is still there, with 0 bytes: nothing to measure.
# A loop device over an empty file is the same 0 bytes, and stays ours: a
# detached one may be taken by any other losetup -f on the machine while
# the test runs.
test_loop 'loop of 0 bytes (as a detached one): every test refuses it with nothing on stdout' '
	dev=$(make_loop 0 2>/dev/null) &&
	test "$(blockdev --getsize64 $dev)" = 0 &&
	bad=0 &&
	for t in "-a" "-s" "-i" "-t --time=1" "--iops --read-only --time=1" \
		"--detect" "-O" "-O -r" "-f" "-A" "--write-speed --time=1" \
		"--iops --time=1" "--class-check --time=1" \
		"--detect --write -e 1M"; do
		run_fb $t $dev >/dev/null
		if [ "$(cat code)" != 1 ] && [ "$(cat code)" != 2 ]; then
			echo "FAILED: $t exits $(cat code)"; bad=1
		elif [ -s out ]; then
			echo "FAILED: $t printed a result:"; cat out; bad=1
		elif ! grep -q "^flashbench: .*$dev" err; then
			echo "FAILED: $t does not name $dev:"; cat err; bad=1
		fi
	done &&
	test $bad = 0
'

test_done
