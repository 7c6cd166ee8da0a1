# lib.sh: helpers for the shell tests, in the manner of git's t/test-lib.sh.
# A test script sources this file, declares tests with test_expect_success,
# and ends with test_done.  Each test prints one TAP line that tests/run.sh
# counts: "ok N - name", "not ok N - name" or "ok N # skip name".

TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
FLASHBENCH=${FLASHBENCH:-$TOP/flashbench}
ERASE=${ERASE:-$TOP/erase}
test_count=0
test_failed=0
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/flashbench-test.XXXXXX")
trap 'test_cleanup_all' EXIT
test_cleanups=""

# test_at_exit CMD: run CMD when the script ends, even after a failure.
test_at_exit() {
	test_cleanups="$1; $test_cleanups"
}

test_cleanup_all() {
	eval "$test_cleanups" >/dev/null 2>&1
	rm -rf "$TRASH"
}

# test_expect_success NAME BODY: BODY (shell code) must succeed.
test_expect_success() {
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
		[ -e /dev/loop-control ]
}

# test_loop NAME BODY: like test_expect_success, but needs a loop device.
test_loop() {
	if have_loop; then
		test_expect_success "$1" "$2"
	elif [ "${FLASHBENCH_REQUIRE_LOOP:-0}" = 1 ]; then
		test_count=$((test_count + 1))
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1 (loop devices required but unavailable)"
	else
		test_skip "$1" "needs root and loop devices"
	fi
}

# make_loop SIZE [losetup options]: create a backing file of SIZE, attach
# it, print the device; it is detached when the script ends.
make_loop() {
	size=$1
	shift
	img=$(mktemp "$TRASH/loop.XXXXXX")
	truncate -s "$size" "$img" || return 1
	dev=$(losetup -f --show "$@" "$img") || return 1
	test_at_exit "losetup -d $dev"
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
	size=$(blockdev --getsize64 "$1")
	chunk=$2
	n=$((size / chunk))
	i=0
	while [ $i -lt $n ]; do
		echo "$i $(dd if="$1" bs="$chunk" skip=$i count=1 status=none \
			iflag=direct | md5sum | cut -d' ' -f1)"
		i=$((i + 1))
	done
}

# changed_chunks BEFORE AFTER: indexes of chunks whose sums differ.
changed_chunks() {
	join "$1" "$2" | awk '$2 != $3 { print $1 }'
}

test_done() {
	echo "# $test_count tests, $test_failed failed"
	[ "$test_failed" = 0 ]
}
