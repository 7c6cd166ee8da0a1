# lib.sh: helpers for the shell tests, in the manner of git's t/test-lib.sh.
# A test script sources this file, declares tests with test_expect_success,
# and ends with test_done.  Each test prints one TAP line that tests/run.sh
# counts: "ok N - name", "not ok N - name" or "ok N # skip name".

TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
FLASHBENCH=${FLASHBENCH:-$TOP/flashbench}
ERASE=${ERASE:-$TOP/erase}
FLASHEMU=${FLASHEMU:-$(dirname "$FLASHBENCH")/flashemu}
# (a wrapper's directory holds none: the tree's then)
[ -x "$FLASHEMU" ] || FLASHEMU=$TOP/flashemu
# With a results directory (tests/run.sh makes one), every JSON and CSV
# document a test has flashbench write is kept there, for t9900 and t9910
# to check: $FLASHBENCH is then save-output.sh, which runs the binary,
# $FLASHBENCH_REAL.
FLASHBENCH_REAL=${FLASHBENCH_REAL:-$FLASHBENCH}
if [ -n "$FLASHBENCH_RESULTS" ] && [ -d "$FLASHBENCH_RESULTS" ]; then
	FLASHBENCH=$TESTS_DIR/save-output.sh
fi
export FLASHBENCH FLASHBENCH_REAL ERASE FLASHEMU
test_count=0
test_failed=0
MIB=1048576
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/flashbench-test.XXXXXX")
trap 'test_cleanup_all' EXIT
test_cleanups=""

# test_at_exit CMD: run CMD when the script ends, even after a failure.
test_at_exit() {
	test_cleanups="$1; $test_cleanups"
}

test_cleanup_all() {
	eval "$test_cleanups" >/dev/null 2>&1
	# loop devices made in subshells (dev=$(make_loop ...)) are listed
	# in a file, since a subshell cannot add to test_cleanups
	if [ -f "$TRASH/.loops" ]; then
		while read -r loop; do
			umount "$loop" 2>/dev/null
			losetup -d "$loop" 2>/dev/null
		done <"$TRASH/.loops"
	fi
	rm -rf "$TRASH"
}

# missing_programs PROG,PROG...: the ones not installed, space-separated.
missing_programs() {
	mp_list=
	for mp_prog in $(echo "$1" | tr , " "); do
		command -v "$mp_prog" >/dev/null 2>&1 ||
			mp_list="${mp_list:+$mp_list }$mp_prog"
	done
	echo "$mp_list"
}

# test_expect_success [PROGS] NAME BODY: BODY (shell code) must succeed.
# PROGS (comma-separated) are programs the test needs: when one is not
# installed the test is skipped, saying which.  test_loop and the other
# test_* wrappers take PROGS the same way.
test_expect_success() {
	if [ $# = 3 ]; then
		tes_missing=$(missing_programs "$1")
		shift
		if [ -n "$tes_missing" ]; then
			test_skip "$1" "needs $tes_missing"
			return
		fi
	fi
	test_count=$((test_count + 1))
	if (cd "$TRASH" && eval "$2") >"$TRASH/.log" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TRASH/.log" | tail -n 30
	fi
}

# test_skip NAME WHY
test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # skip $1 ($2)"
}

# test_expect_code CODE CMD...: CMD must exit with CODE.
test_expect_code() {
	want=$1
	shift
	"$@"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "exit code $got, want $want: $*" >&2
		return 1
	fi
}

# test_cmp EXPECTED ACTUAL: files must be identical.
test_cmp() {
	diff -u "$1" "$2"
}

# test_lines_match FILE REGEX: every line of FILE matches the extended REGEX.
test_lines_match() {
	if grep -Evq -- "$2" "$1"; then
		echo "lines not matching /$2/:" >&2
		grep -Ev -- "$2" "$1" >&2
		return 1
	fi
	test -s "$1"
}

# Loop devices: need root.  Without it the test counts as skipped, unless
# FLASHBENCH_REQUIRE_LOOP=1, when it counts as failed.
have_loop() {
	[ "$(id -u)" = 0 ] && command -v losetup >/dev/null 2>&1 &&
		command -v blockdev >/dev/null 2>&1 && [ -e /dev/loop-control ]
}

# test_loop [PROGS] NAME BODY: like test_expect_success, but needs a loop
# device.
test_loop() {
	if have_loop; then
		test_expect_success "$@"
	elif [ "${FLASHBENCH_REQUIRE_LOOP:-0}" = 1 ]; then
		test_count=$((test_count + 1))
		test_failed=$((test_failed + 1))
		eval "tl_name=\${$(($# - 1))}"
		echo "not ok $test_count - $tl_name (loop devices required but unavailable)"
	else
		eval "tl_name=\${$(($# - 1))}"
		test_skip "$tl_name" "needs root and loop devices"
	fi
}

# require PROG...: the script's tests need every PROG; when one is
# missing the whole script counts as one skipped test, with the reason.
# (.ci/run installs them; README lists them.)
require() {
	for rq_prog in "$@"; do
		command -v "$rq_prog" >/dev/null 2>&1 && continue
		test_skip "${0##*/}: every test" "needs $rq_prog"
		test_done
		exit
	done
}

# test_loop_ext4 NAME BODY: like test_loop, on a mounted ext4 file system
# (mkfs.ext4 and fsck.ext4, from e2fsprogs).
test_loop_ext4() {
	test_loop mkfs.ext4,fsck.ext4 "$@"
}

# make_loop SIZE [losetup options]: create a backing file of SIZE, attach
# it, print the device; it is detached when the script ends.
make_loop() {
	size=$1
	shift
	img=$(mktemp "$TRASH/loop.XXXXXX")
	truncate -s "$size" "$img" || return 1
	dev=$(losetup -f --show "$@" "$img") || return 1
	echo "$dev" >>"$TRASH/.loops"
	echo "$dev"
}

# fill_random DEV: fill a device with pseudo-random data so that a write
# of any pattern anywhere changes its checksum.
fill_random() {
	openssl_free_fill "$1"
}

openssl_free_fill() {
	size=$(blockdev --getsize64 "$1")
	head -c "$size" /dev/urandom | dd of="$1" bs=1M iflag=fullblock \
		oflag=direct status=none
}

# chunk_sums DEV CHUNK: one checksum per CHUNK-sized piece, "index sum".
chunk_sums() {
	chunk_sums_quick "$@"
}

# changed_chunks BEFORE AFTER: indexes of chunks whose sums differ.
changed_chunks() {
	join "$1" "$2" | awk '$2 != $3 { print $1 }'
}

test_done() {
	echo "# $test_count tests, $test_failed failed"
	[ "$test_failed" = 0 ]
}

# ---- helpers added for the t2xxx scripts ----

# test_usage_error PROG REGEX ARGS...: PROG (flashbench or erase) run with
# ARGS exits 2, prints nothing on stdout, and on stderr exactly two lines:
# "PROG: MESSAGE" with MESSAGE matching the extended REGEX, then
# "Try 'PROG --help' for more information."
test_usage_error() {
	tue_prog=$1
	tue_re=$2
	shift 2
	case $tue_prog in
	flashbench) tue_bin=$FLASHBENCH ;;
	erase) tue_bin=$ERASE ;;
	flashemu) tue_bin=${FLASHEMU:-$(dirname "$FLASHBENCH")/flashemu} ;;
	*) echo "test_usage_error: unknown program $tue_prog" >&2; return 1 ;;
	esac
	"$tue_bin" "$@" >usage.out 2>usage.err </dev/null
	tue_code=$?
	echo "exit $tue_code; stderr:"
	cat usage.err
	if [ "$tue_code" != 2 ]; then
		echo "exit code $tue_code, want 2" >&2
		return 1
	fi
	if [ -s usage.out ]; then
		echo "unexpected output on stdout:" >&2
		cat usage.out >&2
		return 1
	fi
	if [ "$(wc -l <usage.err)" -ne 2 ]; then
		echo "want exactly 2 lines on stderr" >&2
		return 1
	fi
	tue_first=$(head -n 1 usage.err)
	case $tue_first in
	"$tue_prog: "*) ;;
	*) echo "first line does not start with '$tue_prog: '" >&2
	   return 1 ;;
	esac
	if ! printf '%s\n' "${tue_first#"$tue_prog: "}" | grep -Eq -- "$tue_re"
	then
		echo "message does not match /$tue_re/" >&2
		return 1
	fi
	if [ "$(sed -n 2p usage.err)" != \
	     "Try '$tue_prog --help' for more information." ]; then
		echo "second line is not the --help hint" >&2
		return 1
	fi
}

# loop_setup VAR SIZE [losetup options]: make_loop, but the device name is
# stored in VAR of the calling shell, so the detach that make_loop
# registers is not lost in a command substitution's subshell.  Call it
# from the script's top level, not from inside a test body.
loop_setup() {
	ls_var=$1
	shift
	make_loop "$@" >"$TRASH/.loop_name" || return 1
	eval "$ls_var=\$(cat \"\$TRASH/.loop_name\")"
}

# dev_sum DEV: one checksum of the whole device (read past the page
# cache) or file.
dev_sum() {
	if [ -b "$1" ]; then
		dd if="$1" bs=1M iflag=direct status=none | cksum
	else
		cksum <"$1"
	fi
}

# random_loop SIZE: a loop device of SIZE of random data, its name in
# $TRASH/loopdev and its checksum in $TRASH/before (same_as_before).
random_loop() {
	make_loop "$1" >"$TRASH/loopdev" &&
	fill_random "$(cat "$TRASH/loopdev")" &&
	dev_sum "$(cat "$TRASH/loopdev")" >"$TRASH/before"
}

# same_as_before DEV: DEV holds what random_loop filled it with.
same_as_before() {
	dev_sum "$1" >"$TRASH/now" &&
	test_cmp "$TRASH/before" "$TRASH/now"
}

# announced_range FILE: from a "... overwrites bytes A to B ..." line in
# FILE (a test's stderr), print "A B+1": the written range, end exclusive.
announced_range() {
	sed -n 's/.* overwrites bytes \([0-9]*\) to \([0-9]*\) .*/\1 \2/p' \
		"$1" | awk 'NR == 1 { printf "%.0f %.0f\n", $1, $2 + 1; n++ }
			END { exit n != 1 }'
}

# chunks_within LIST LO HI: every chunk index in the file LIST (one per
# line, as changed_chunks prints) is in [LO, HI).
chunks_within() {
	awk -v lo="$2" -v hi="$3" '$1 < lo || $1 >= hi {
		print "chunk " $1 " outside [" lo ", " hi ")"; bad = 1 }
		END { exit bad }' "$1" >&2
}

# time_ns T: a time as the tool prints it (123ns, 87.3µs, -1.08ms, 2.1s)
# in nanoseconds.
time_ns() {
	printf '%s\n' "$1" | awk '
		/ns$/ { sub(/ns$/, ""); print $0 + 0; exit }
		/µs$/ { sub(/µs$/, ""); print $0 * 1e3; exit }
		/ms$/ { sub(/ms$/, ""); print $0 * 1e6; exit }
		/s$/ { sub(/s$/, ""); print $0 * 1e9; exit }
		{ exit 1 }'
}

# rate_bps R: a rate as the tool prints it (614K/s, 10.7M/s) in bytes per
# second (decimal prefixes).
rate_bps() {
	printf '%s\n' "$1" | awk '
		/^[0-9.]+B\/s$/ { print $0 + 0; exit }
		/^[0-9.]+K\/s$/ { print $0 * 1e3; exit }
		/^[0-9.]+M\/s$/ { print $0 * 1e6; exit }
		/^[0-9.]+G\/s$/ { print $0 * 1e9; exit }
		{ exit 1 }'
}

# chunk_sums_quick DEV CHUNK: like chunk_sums ("index sum" per CHUNK-sized
# piece, for changed_chunks), with CRCs: several times faster.
chunk_sums_quick() {
	# one pass, one process: a dd per chunk costs seconds per device
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$1" "$2" <<'PY'
import os, sys, zlib
path, chunk = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_RDONLY)
size = os.lseek(fd, 0, os.SEEK_END)
os.lseek(fd, 0, os.SEEK_SET)
out = []
for i in range(size // chunk):
	data, want = b"", chunk
	while want:
		piece = os.read(fd, want)
		if not piece:
			break
		data += piece
		want -= len(piece)
	out.append("%d %08x" % (i, zlib.crc32(data)))
os.close(fd)
print("\n".join(out))
PY
		return
	fi
	csq_n=$(($(blockdev --getsize64 "$1") / $2))
	csq_i=0
	while [ $csq_i -lt $csq_n ]; do
		printf '%s ' $csq_i
		dd if="$1" bs="$2" skip=$csq_i count=1 status=none \
			iflag=direct | cksum
		csq_i=$((csq_i + 1))
	done | awk '{ print $1, $2 }'
}

# The output formats, as extended regular expressions: a time, a number,
# a binary size, a decimal rate, and a whole align line.
tab=$(printf '\t')
T='-?[0-9]+(\.[0-9]+)?(ns|µs|ms|s)'
N='[0-9]+(\.[0-9]+)?'
SIZE_RE='[0-9]+(\.[0-9]+)?(B|KiB|MiB|GiB)'
RATE_RE='[0-9]+(\.[0-9]+)?(B|K|M|G)/s'
ALIGN_RE="^align [0-9]+${tab}pre ${T}${tab}on ${T}${tab}post ${T}${tab}diff ${T}\$"

# restore: put $TARGET (default $LOOP) back to the image in $IMAGE - only
# the MiB chunks listed in $TRASH/dirty (those the last run changed) when
# it exists.
restore() {
	rs_target=${TARGET:-$LOOP}
	if [ ! -f "$TRASH/dirty" ]; then
		copy_to_dev "$IMAGE" "$rs_target"
		return
	fi
	while read -r i; do
		dd if="$IMAGE" of="$rs_target" bs=$MIB skip="$i" seek="$i" \
			count=1 $(direct_out "$rs_target") conv=notrunc \
			status=none || return 1
	done <"$TRASH/dirty"
}

# run_checked ARGS...: restore $LOOP to $IMAGE, run flashbench ARGS on
# it (it must succeed), then leave out, err and changed (the indexes of
# the MiB chunks that differ from the image's sums in $TRASH/image.sums).
run_checked() {
	restore &&
	rm -f "$TRASH/dirty" &&
	"$FLASHBENCH" "$@" "$LOOP" >out 2>err &&
	cat err &&
	chunk_sums_quick "$LOOP" $MIB >after &&
	changed_chunks "$TRASH/image.sums" after >changed &&
	cp changed "$TRASH/dirty" &&
	echo "changed MiB: $(tr "\n" " " <changed)"
}

# poll_until WHAT CMD...: run CMD every 10 ms until it succeeds.  Fails,
# saying WHAT never happened, after 20 s, or as soon as the run fb_start
# began (if any) has ended without it.  The pause only spaces the checks:
# what a caller goes on to do depends on CMD having succeeded, never on
# how long it took, so a slow or busy machine waits longer, nothing more.
poll_until() {
	pu_what=$1
	shift
	pu_n=0
	until "$@"; do
		if [ -n "$fb_pid" ] && ! kill -0 "$fb_pid" 2>/dev/null; then
			"$@" && return 0
			echo "the run ended before $pu_what" >&2
			return 1
		fi
		pu_n=$((pu_n + 1))
		if [ $pu_n -ge 2000 ]; then
			echo "no $pu_what within 20 s" >&2
			return 1
		fi
		sleep 0.01
	done
}
fb_pid=

# fb_start ARGS...: start flashbench ARGS in the background with its
# output in out (or the file FB_OUT names) and err; its pid in fb_pid,
# once it runs.  After 30 s it gets SIGTERM, 10 s later SIGKILL: a run
# stuck on its output cannot hang the suite.
fb_start() {
	rm -f pid
	fb_pid=
	timeout -k 10 30 \
		sh -c 'echo $$ >pid.new && mv pid.new pid && exec "$@"' \
		sh "$FLASHBENCH_REAL" "$@" >"${FB_OUT:-out}" 2>err </dev/null 3>&- &
	fb_timeout=$!
	fb_format=$(fb_format_of "$@") fb_out_file=${FB_OUT:-out}
	case $fb_out_file in /*) ;; *) fb_out_file=$PWD/$fb_out_file ;; esac
	poll_until "process id" test -s pid || return 1
	fb_pid=$(cat pid)
}

# fb_format_of ARGS...: json or csv when ARGS ask for that format.
fb_format_of() {
	for ffo_arg in "$@"; do
		case $ffo_arg in
		--format=json | --format=csv) echo "${ffo_arg#--format=}" ;;
		esac
	done
}

# fb_keep CODE: the document of the run fb_start began, kept in the
# results directory as save-output.sh keeps the others (a run the
# timeout killed, 137, left none whole; a FIFO keeps nothing to copy).
fb_keep() {
	[ -n "$fb_format" ] && [ "$1" != 137 ] || return 0
	keep_document "$fb_out_file" "$fb_format" "$1"
}

# keep_document FILE FORMAT [CODE]: keep FILE, a json or csv document
# (written by a run that exited CODE, default 0), for t9900 and t9910,
# when tests/run.sh gave a results directory.
keep_document() {
	[ -n "$FLASHBENCH_RESULTS" ] && [ -f "$1" ] || return 0
	mkdir -p "$FLASHBENCH_RESULTS/$2"
	kd_keep=$(mktemp "$FLASHBENCH_RESULTS/$2/run.XXXXXXXX") &&
	cp "$1" "$kd_keep.$2" &&
	echo "${3:-0}" >"$kd_keep.code"
}

# fb_wait: wait for the run fb_start began; its exit code in code, its
# stderr shown.
fb_wait() {
	wait $fb_timeout
	echo $? >code
	fb_pid=
	fb_keep "$(cat code)"
	echo "exit $(cat code)"
	cat err
}

# proc_status_mask FIELD: the low 16 bits of a signal mask (SigCgt,
# SigPnd, ShdPnd) of the run fb_start began, as a number.
proc_status_mask() {
	psm_hex=$(sed -n "s/^$1:[[:space:]]*//p" "/proc/$fb_pid/status" \
		2>/dev/null) && [ -n "$psm_hex" ] &&
	echo $((0x${psm_hex#"${psm_hex%????}"}))
}

# catching: the run has set its SIGINT and SIGTERM handlers (the shell
# that starts it catches SIGINT only), so a signal is the tool's to handle.
catching() {
	ca_mask=$(proc_status_mask SigCgt) &&
	[ $((ca_mask & 0x4002)) = $((0x4002)) ]
}

# signal_taken SIGNUM: no signal SIGNUM is pending for the run: the last
# one sent has been delivered to its handler.
signal_taken() {
	st_bit=$((1 << ($1 - 1)))
	st_mask=$(proc_status_mask SigPnd) &&
	[ $((st_mask & st_bit)) = 0 ] &&
	st_mask=$(proc_status_mask ShdPnd) &&
	[ $((st_mask & st_bit)) = 0 ]
}

# io_past FIELD BYTES: the run has moved at least BYTES through read
# (rchar) or write (wchar) calls, from /proc/PID/io.
io_past() {
	ip_bytes=$(sed -n "s/^$1: //p" "/proc/$fb_pid/io" 2>/dev/null) &&
	[ -n "$ip_bytes" ] && [ "$ip_bytes" -ge "$2" ]
}

# test_loop_io [PROGS] NAME BODY: a loop-device test that stops, signals
# or shrinks under a run once its I/O in /proc/PID/io (wait_read,
# wait_written) shows it in its middle.  Skipped where the kernel keeps no
# such counts, and under valgrind, which slows a run so much that it
# reaches its 30 s limit.
test_loop_io() {
	eval "tli_name=\${$(($# - 1))}"
	if [ ! -r /proc/self/io ]; then
		test_skip "$tli_name" "no /proc/PID/io to follow the run by"
	elif [ -n "$FLASHBENCH_UNDER_VALGRIND" ]; then
		test_skip "$tli_name" "signals a run in its middle, under valgrind"
	else
		test_loop "$@"
	fi
}

# wait_announced: wait for the write announcement in err (it comes after
# the signal handlers are set and before the first write).
wait_announced() {
	poll_until "write announcement" grep -q "overwrites bytes" err
}

# wait_catching: wait until the run handles SIGINT and SIGTERM itself.
wait_catching() {
	poll_until "signal handlers" catching
}

# wait_read BYTES / wait_written BYTES: wait until the run has read or
# written at least BYTES: it is inside its timed I/O, and past any record
# that needs fewer bytes.
wait_read() {
	poll_until "read of $1 bytes" io_past rchar "$1"
}

wait_written() {
	poll_until "write of $1 bytes" io_past wchar "$1"
}

# wait_read_calls N: wait until the run has made N read calls, whether
# they read anything or failed.
wait_read_calls() {
	poll_until "$1 read calls" io_past syscr "$1"
}

# refused_busy PROG ARGS...: PROG ARGS exits 1 with nothing on stdout and
# one line on stderr saying the device is busy.
refused_busy() {
	rb_prog=$1
	shift
	"$rb_prog" "$@" >out 2>err </dev/null
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

# direct_out DEV: dd's flag to write DEV past the page cache, if it is a
# block device (regular files may sit where O_DIRECT is refused).
direct_out() {
	[ -b "$1" ] && echo oflag=direct
}

# copy_to_dev FILE DEV: write FILE over the start of DEV (a block device
# or an image file), bypassing the page cache, e.g. to put a device back
# into a known state.
copy_to_dev() {
	dd if="$1" of="$2" bs=1M $(direct_out "$2") conv=notrunc status=none
}

# test_traced WRAPPER ARGS...: WRAPPER ARGS (test_loop, or another
# test_* wrapper whose last two arguments are NAME BODY), skipped where
# strace cannot follow flashbench (not installed, ptrace refused, or
# under valgrind).
test_traced() {
	tt_wrapper=$1
	shift
	eval "tt_name=\${$(($# - 1))}"
	if ! command -v strace >/dev/null 2>&1; then
		test_skip "$tt_name" "needs strace"
	elif ! strace -o /dev/null true 2>/dev/null; then
		test_skip "$tt_name" "strace cannot trace here"
	elif [ -n "$FLASHBENCH_UNDER_VALGRIND" ]; then
		test_skip "$tt_name" "strace would follow valgrind"
	else
		"$tt_wrapper" "$@"
	fi
}

# have_script: script(1) can give a command a terminal.
have_script() {
	command -v script >/dev/null 2>&1 &&
		script -qc true /dev/null </dev/null >/dev/null 2>&1
}

# on_terminal CMD: run the shell command CMD on a terminal (script(1));
# what reaches the terminal is left in tty.
on_terminal() {
	script -qc "$1" /dev/null </dev/null >tty
}

# progress_cleared TEST: tty shows TEST's progress line ("TEST: N/M ...")
# and ends by blanking the last one: a carriage return, as many spaces,
# a carriage return.
progress_cleared() {
	tr '\r' '\n' <tty | awk -v t="$1: " '
		index($0, t) == 1 { last = $0; n = NR }
		{ line[NR] = $0 }
		END {
			if (!n) { print "no " t "progress line"; exit 1 }
			if (NR != n + 1 || line[NR] !~ /^ +$/ ||
			    length(line[NR]) != length(last)) {
				print "the last progress line is not cleared"
				exit 1
			}
			print "last progress line: " last
		}' >&2
}

# signum NAME: the number of the signal NAME (HUP: 1)
signum() {
	sn_n=1
	while [ $sn_n -lt 65 ]; do
		[ "$(kill -l $sn_n 2>/dev/null)" = "$1" ] && echo $sn_n && return
		sn_n=$((sn_n + 1))
	done
	return 1
}

# table_signals: the signals lib/exitcode.c catches, one name a line
table_signals() {
	sed -n '/exit_signals\[\] = {/,/};/p' "$TOP/lib/exitcode.c" |
		tr -s ', \t' '\n\n\n' | sed -n 's/^SIG\([A-Z0-9]*\)$/\1/p' | sort
}

# ---- running the tool as another user ----

# as_other_user CMD...: CMD as uid and gid 65534 (nobody), no groups.
as_other_user() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# other_user_dir: make $OTHER_DIR, a directory uid 65534 can reach even
# when the clone and $TMPDIR lie below a private (0700) directory, with
# a copy of the flashbench under test in it ($OTHER_DIR/flashbench).
# Tests that run the tool as that user copy their fixtures there too.
# Fails, with the reason in $other_user_why, when it cannot be done
# (not root, no setpriv, /tmp not reachable): the caller skips.
other_user_dir() {
	other_user_why=
	if [ "$(id -u)" != 0 ]; then
		other_user_why="needs root to run as another user"
		return 1
	fi
	if ! command -v setpriv >/dev/null 2>&1; then
		other_user_why="needs setpriv"
		return 1
	fi
	OTHER_DIR=$(mktemp -d /tmp/flashbench-other.XXXXXX) || {
		other_user_why="cannot make a directory in /tmp"
		return 1
	}
	test_at_exit "rm -rf '$OTHER_DIR'"
	chmod 755 "$OTHER_DIR" && cp "$FLASHBENCH_REAL" "$OTHER_DIR/flashbench" &&
	as_other_user test -x "$OTHER_DIR/flashbench" || {
		other_user_why="uid 65534 cannot reach $OTHER_DIR"
		return 1
	}
}

# full_fifo: $FIFO (a path the script sets), held open on fd 3 and filled
# up, so that a run whose standard output it is blocks when it flushes its
# first round: it is sure to be in its middle until drain_fifo.
full_fifo() {
	rm -f "$FIFO" && mkfifo "$FIFO" && exec 3<>"$FIFO" &&
	{ dd if=/dev/zero of="$FIFO" bs=4096 count=1024 oflag=nonblock \
		2>/dev/null; test $? -le 1; }
}

# drain_fifo: read the FIFO away, so the run can write and end; then
# close fd 3.  The read end is opened here, while fd 3 still holds the
# FIFO open for writing (so the open cannot wait for a writer that may
# already be gone), and the reader does not inherit fd 3: a write end of
# its own would keep it waiting for an end of file that never comes.
drain_fifo() {
	exec 4<"$FIFO" &&
	{ cat <&4 >/dev/null 3<&- 4<&- & } &&
	exec 3<&- 4<&-
}

# killed_capacity_check BYTES UNDO DEVICE: a --capacity-check of DEVICE
# with its undo file at UNDO, its output a full FIFO ($FIFO) that holds it
# in its first round, killed with SIGKILL once it has written BYTES: it
# leaves UNDO behind, and DEVICE as it was in the middle of the run.
killed_capacity_check() {
	full_fifo &&
	FB_OUT=$FIFO fb_start --capacity-check --undo-file="$2" "$3" &&
	wait_written "$1" &&
	kill -9 $fb_pid &&
	fb_wait &&
	drain_fifo &&
	test -s "$2"
}

# ---- flashemu, the simulated card served as a file (as root with
# /dev/fuse; through a loop device it is a block device) ----

have_emu() {
	[ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && have_loop
}

# test_emu [PROGS] NAME BODY: like test_loop, also needing /dev/fuse.
test_emu() {
	if have_emu; then
		test_expect_success "$@"
	elif [ "${FLASHBENCH_REQUIRE_LOOP:-0}" = 1 ] && [ "$(id -u)" = 0 ]
	then
		test_count=$((test_count + 1))
		test_failed=$((test_failed + 1))
		eval "te_name=\${$(($# - 1))}"
		echo "not ok $test_count - $te_name (/dev/fuse or loop" \
			"devices required but unavailable)"
	else
		eval "te_name=\${$(($# - 1))}"
		test_skip "$te_name" "needs root, /dev/fuse and loop devices"
	fi
}

# emu_start NAME ARGS...: flashemu ARGS NAME-mountpoint in the
# background, bounded by a timeout; its pid in $TRASH/NAME.pid, output in
# NAME.out and NAME.err, exit code in NAME.rc once it ends.  Returns when
# it printed its ready line.
emu_start() {
	es_name=$TRASH/$1
	shift
	rm -f "$es_name.pid" "$es_name.rc"
	mkdir -p "$es_name"
	(
		timeout -k 5 120 sh -c 'echo $$ >"$0.pid.new" &&
			mv "$0.pid.new" "$0.pid" && exec "$@"' "$es_name" \
			"$FLASHEMU" "$@" "$es_name" >"$es_name.out" \
			2>"$es_name.err" </dev/null
		echo $? >"$es_name.rc"
	) &
	poll_until "flashemu pid" test -s "$es_name.pid" &&
	fb_pid=$(cat "$es_name.pid") &&
	poll_until "ready line" grep -q "^ready " "$es_name.out"
}

# emu_attach NAME: a loop device on NAME's card, direct I/O; printed, and
# detached when the script ends.
emu_attach() {
	ea_dev=$(losetup -f --show --direct-io=on "$TRASH/$1/card") &&
	echo "$ea_dev" >>"$TRASH/.loops" &&
	echo "$ea_dev"
}

# emu_detach DEV: detach a loop device emu_attach made, and forget it:
# the cleanup at the end must not detach another test's device that took
# the name since.
emu_detach() {
	losetup -d "$1" &&
	{ grep -vFx -- "$1" "$TRASH/.loops" || :; } >"$TRASH/.loops.new" &&
	mv "$TRASH/.loops.new" "$TRASH/.loops"
}

emu_mounted() {
	awk -v m="$TRASH/$1" '$5 == m { found = 1 } END { exit !found }' \
		/proc/self/mountinfo
}

emu_attached() {
	test -n "$(losetup -j "$TRASH/$1/card" 2>/dev/null)"
}

emu_ended() {
	test -s "$TRASH/$1.rc"
}

# emu_gone NAME: it exited 0, nothing is mounted on its directory and no
# loop device holds its card.
emu_gone() {
	fb_pid=
	poll_until "flashemu exit" emu_ended "$1" &&
	echo "flashemu exit $(cat "$TRASH/$1.rc")" &&
	test "$(cat "$TRASH/$1.rc")" = 0 &&
	! emu_mounted "$1" && ! emu_attached "$1"
}

# emu_stop NAME: whatever a failed test left of NAME: its loop devices
# detached, flashemu stopped (SIGTERM, else SIGKILL), nothing mounted.
emu_stop() {
	[ -d "$TRASH/$1" ] || return 0
	losetup -j "$TRASH/$1/card" 2>/dev/null | cut -d: -f1 |
	while read -r es_dev; do losetup -d "$es_dev"; done
	if [ -s "$TRASH/$1.pid" ] && ! emu_ended "$1"; then
		kill -TERM "$(cat "$TRASH/$1.pid")"
		fb_pid=
		poll_until "flashemu exit" emu_ended "$1" ||
			kill -KILL "$(cat "$TRASH/$1.pid")"
	fi
	! emu_mounted "$1" || umount -l "$TRASH/$1"
}

# ---- --report --write on the loop device $LOOP, its undo file $UNDO ----

# report_in_part PART: the --report --write run fb_start began has
# started PART and (a part that keeps its range) saved it, or (the
# capacity check, which saves block by block) its undo file holds 8 MiB;
# and since then 64 KiB more went to the device: PART is writing.
report_in_part() {
	rip_part=$1
	poll_until "part $1" grep -q "part [0-9] of [0-9], $1:" err &&
	if [ "$1" = capacity-check ]; then
		poll_until "8MiB saved" undo_holds $((8 * MIB))
	else
		poll_until "$1 saved" part_saved
	fi &&
	rip_sectors=$(written_sectors) &&
	poll_until "$1 writing" written_past $((rip_sectors + 128))
}

# written_sectors: the sectors written to $LOOP, from its stat
written_sectors() {
	awk "{ print \$7 }" "/sys/block/${LOOP#/dev/}/stat"
}

written_past() {
	[ "$(written_sectors)" -ge "$1" ]
}

undo_holds() {
	[ "$(stat -c %s "$UNDO" 2>/dev/null || echo 0)" -ge "$1" ]
}

# part_saved: after the line starting part rip_part, its range saved
part_saved() {
	sed -n "/part [0-9] of [0-9], $rip_part:/,\$p" err |
		grep -q "saved to $UNDO; writing"
}

# part_pid: the process the report runs its part in
part_pid() {
	cat "/proc/$fb_pid/task/$fb_pid/children" 2>/dev/null |
		awk "{ print \$1 }"
}

# gone PID: the process has ended (gone, or a zombie)
gone() {
	! [ -e "/proc/$1" ] || grep -q "^State:.*Z" "/proc/$1/status"
}

# stopped PID: the process is stopped (SIGSTOP)
stopped() {
	grep -q "^State:.*T" "/proc/$1/status"
}

# kill_report_and_part: a crash inside a part of the report fb_start
# began: kill -9 of the part, then of the report, held stopped between
# (alone it would put the part's range back: its part outlives it to do
# so).  The part is stopped first, at once: on a fast device it could
# put its range back while the report is being stopped, and nothing
# would be left to restore.  The undo file stays, for --restore.
# fb_wait is the caller's.
kill_report_and_part() {
	krp_child=$(part_pid) && test -n "$krp_child" &&
	kill -STOP "$krp_child" &&
	kill -STOP "$fb_pid" &&
	poll_until "the report stopped" stopped "$fb_pid" &&
	kill -9 "$krp_child" &&
	poll_until "the part killed" gone "$krp_child" &&
	kill -9 "$fb_pid"
}
