#!/bin/sh
# t3030: an undo file is used only when no one but the user running the
# check could have written it, and it follows the device, not its name.
# As root on loop devices full of random data (compared in full): copies
# of a killed run's undo file, owned by uid 65534, or root's but mode
# 0666, or in a directory anyone may write to, are refused by --restore
# with nothing written; a file of uid 65534's at the old default path in
# /var/tmp does not stop a check, which keeps its blocks in
# /var/lib/flashbench/undo; --undo-file refuses /dev/null, a FIFO, a
# directory and a block device; the killed run's undo file restores the
# same backing file attached at another loop node, and is refused on
# another backing file of the same size.  As uid 65534: the default undo
# directory is made 0700 under XDG_STATE_HOME (or ~/.local/state), and
# one that is group-writable or a symbolic link is refused.

. "$(dirname "$0")/lib.sh"

UNDO=$TRASH/real.undo
FIFO=$TRASH/results.fifo
# A round writes its 20 MiB flush area, its old contents to the undo file
# first: past this many bytes written the run is in its first round.
IN_ROUND=$((30 * MIB))
SYSTEM_UNDO=/var/lib/flashbench/undo

if have_loop; then
	loop_setup LOOP 64M
	loop_setup OTHER 64M
	# the same backing file at a second node: the device as it comes
	# back after a replug, under another name
	AGAIN=$(losetup -f --show "$(losetup -n -O BACK-FILE "$LOOP")") &&
		echo "$AGAIN" >>"$TRASH/.loops"
	OLD_DEFAULT=/var/tmp/flashbench-${LOOP##*/}.undo
	NEW_DEFAULT=$SYSTEM_UNDO/${LOOP##*/}.undo
	# the system's undo directory, removed again (when empty) if this
	# script's run made it
	[ -d /var/lib/flashbench ] ||
		test_at_exit "rmdir $SYSTEM_UNDO /var/lib/flashbench"
fi

# A directory of uid 65534's own that it can reach: the trash may be
# inside a directory only root may enter.  NOBODY_WHY says why not.
NOBODY=
NOBODY_WHY=
AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" != 0 ]; then
	NOBODY_WHY="needs root, to run as uid 65534"
elif ! command -v setpriv >/dev/null 2>&1; then
	NOBODY_WHY="needs setpriv"
else
	NOBODY=$(mktemp -d /tmp/flashbench-t3030.XXXXXX) &&
		test_at_exit "rm -rf '$NOBODY'" &&
		chmod 755 "$NOBODY" && chown 65534:65534 "$NOBODY"
	# a copy: the tree may lie below a directory uid 65534 cannot enter
	cp "$FLASHBENCH_REAL" "$NOBODY/flashbench.bin" &&
		printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$AS_NOBODY" \
		"$NOBODY/flashbench.bin" >"$NOBODY/flashbench" &&
		chmod 755 "$NOBODY/flashbench"
	"$NOBODY/flashbench" --version >/dev/null 2>&1 &&
		$AS_NOBODY test -w "$NOBODY" ||
		NOBODY_WHY="uid 65534 cannot write in $NOBODY or run $FLASHBENCH_REAL"
fi

# as_nobody CMD...: CMD as uid 65534, with HOME and XDG_STATE_HOME in its
# own directory.
as_nobody() {
	HOME=$NOBODY/home XDG_STATE_HOME=$NOBODY/state $AS_NOBODY "$@"
}

# test_as_nobody NAME BODY: a test run as uid 65534 (with
# $NOBODY/flashbench, which runs a copy of $FLASHBENCH as it); skipped saying why
# when that cannot be.
test_as_nobody() {
	if [ -n "$NOBODY_WHY" ]; then
		test_skip "$1" "$NOBODY_WHY"
	else
		test_expect_success "$@"
	fi
}

# unchanged: $LOOP still reads as the killed run left it.
unchanged() {
	test "$(dev_sum "$LOOP")" = "$(cat "$TRASH/stamped.sum")"
}

test_loop 'loop: setup: random data, the same at both nodes of one file' '
	fill_random "$LOOP" &&
	dev_sum "$LOOP" >"$TRASH/loop.sum" &&
	test "$(dev_sum "$AGAIN")" = "$(cat "$TRASH/loop.sum")" &&
	fill_random "$OTHER" &&
	dev_sum "$OTHER" >"$TRASH/other.sum"
'

test_loop_io 'loop: kill -9 in the middle leaves an undo file, the device changed' '
	killed_capacity_check $IN_ROUND "$UNDO" "$LOOP" &&
	dev_sum "$LOOP" >"$TRASH/stamped.sum" &&
	test "$(cat "$TRASH/stamped.sum")" != "$(cat "$TRASH/loop.sum")"
'

# The copies below would put the device back as the killed run found it:
# a restore that took one would change the device.
test_loop_io 'loop: --restore refuses an undo file of uid 65534 (mode 0666): nothing written' '
	cp "$UNDO" planted.undo &&
	chown 65534:65534 planted.undo &&
	chmod 666 planted.undo &&
	test_usage_error flashbench \
		"^--restore: planted.undo: is owned by uid 65534, not by you \(uid 0\); someone else could have written it\$" \
		--restore=planted.undo "$LOOP" &&
	unchanged
'

test_loop_io 'loop: --restore refuses root'"'"'s undo file of mode 0666: nothing written' '
	cp "$UNDO" writable.undo &&
	chmod 666 writable.undo &&
	test_usage_error flashbench \
		"^--restore: writable.undo: is writable by its group or others \(mode 0666\); someone else could have written it\$" \
		--restore=writable.undo "$LOOP" &&
	unchanged
'

test_loop_io 'loop: --restore refuses an undo file in a world-writable directory without the sticky bit: nothing written' '
	mkdir open &&
	chmod 777 open &&
	cp "$UNDO" open/dev.undo &&
	chmod 600 open/dev.undo &&
	test_usage_error flashbench \
		"^--restore: open/dev.undo: its directory open is writable by others without the sticky bit \(mode 0777\)\$" \
		--restore=open/dev.undo "$LOOP" &&
	unchanged
'

test_loop_io 'loop: --restore refuses a symbolic link to the undo file: nothing written' '
	ln -s "$UNDO" link.undo &&
	test_usage_error flashbench \
		"^--restore: link.undo: is a symbolic link, not an undo file\$" \
		--restore=link.undo "$LOOP" &&
	unchanged
'

test_loop_io 'loop: another backing file of the same size has another identity: refused, nothing written' '
	test_usage_error flashbench "^--restore: .*real.undo: .*another device" \
		--restore="$UNDO" "$OTHER" &&
	test "$(dev_sum "$OTHER")" = "$(cat "$TRASH/other.sum")"
'

test_loop_io 'loop: the backing file at another loop node has the same identity: --restore there puts every byte back' '
	"$FLASHBENCH" --restore="$UNDO" "$AGAIN" >out 2>err &&
	cat out err &&
	grep -E "^restored [0-9]+ bytes from [0-9]+ records; [0-9]+ blocks read back, 0 not as saved\$" out &&
	test "$(grep -cv "^flashbench: --restore overwrites bytes " err)" = 0 &&
	test "$(dev_sum "$AGAIN")" = "$(cat "$TRASH/loop.sum")" &&
	test "$(dev_sum "$LOOP")" = "$(cat "$TRASH/loop.sum")"
'

if have_loop && { [ -e "$OLD_DEFAULT" ] || [ -e "$NEW_DEFAULT" ]; }; then
	test_skip "loop: a file at the old default path stops nothing" \
		"$OLD_DEFAULT or $NEW_DEFAULT exists already, not this test's"
else
	have_loop && test_at_exit "rm -f '$OLD_DEFAULT'"
	test_loop 'loop: a file of uid 65534 at the old default path in /var/tmp stops nothing: the check keeps its blocks in /var/lib/flashbench/undo, every byte back' '
	printf "planted\n" >"$OLD_DEFAULT" &&
	chown 65534:65534 "$OLD_DEFAULT" &&
	chmod 666 "$OLD_DEFAULT" &&
	before=$(dev_sum "$LOOP") &&
	"$FLASHBENCH" --capacity-check "$LOOP" >out 2>err &&
	cat err &&
	grep "old contents go to $NEW_DEFAULT first" err &&
	test "$(dev_sum "$LOOP")" = "$before" &&
	test ! -e "$NEW_DEFAULT" &&
	test "$(stat -c "%a %u" "$SYSTEM_UNDO")" = "700 0" &&
	test "$(cat "$OLD_DEFAULT")" = planted
'
fi

test_loop '--undo-file: /dev/null, a FIFO, a directory, a block device: refused, naming what it is, nothing written' '
	mkfifo undo.fifo &&
	mkdir undo.dir &&
	before=$(dev_sum "$LOOP") &&
	test_usage_error flashbench \
		"^--undo-file: /dev/null: is a character device; the undo file must be a new regular file\$" \
		--capacity-check --undo-file=/dev/null "$LOOP" &&
	test -c /dev/null &&
	test_usage_error flashbench \
		"^--undo-file: undo.fifo: is a FIFO; the undo file must be a new regular file\$" \
		--capacity-check --undo-file=undo.fifo "$LOOP" &&
	test -p undo.fifo &&
	test_usage_error flashbench \
		"^--undo-file: undo.dir: is a directory; the undo file must be a new regular file\$" \
		--capacity-check --undo-file=undo.dir "$LOOP" &&
	test -z "$(ls -A undo.dir)" &&
	test_usage_error flashbench \
		"^--undo-file: $OTHER: is a block device; the undo file must be a new regular file\$" \
		--capacity-check --undo-file="$OTHER" "$LOOP" &&
	test "$(dev_sum "$LOOP")" = "$before" &&
	test "$(dev_sum "$OTHER")" = "$(cat "$TRASH/other.sum")"
'

STATE=$NOBODY/state/flashbench/undo

test_as_nobody 'as uid 65534: the undo directory is made 0700 under XDG_STATE_HOME; the check puts every byte back and removes its file' '
	as_nobody sh -c "head -c $((16 * MIB)) /dev/urandom >$NOBODY/image" &&
	before=$(dev_sum "$NOBODY/image") &&
	as_nobody "$NOBODY/flashbench.bin" --capacity-check --cache-limit=1M \
		"$NOBODY/image" >out 2>err &&
	cat err &&
	grep "old contents go to $STATE/image.undo first" err &&
	test "$(stat -c "%a %u" "$STATE")" = "700 65534" &&
	test "$(stat -c "%a %u" "$NOBODY/state/flashbench")" = "700 65534" &&
	test "$(stat -c "%a %u" "$NOBODY/state")" = "700 65534" &&
	test -z "$(ls -A "$STATE")" &&
	test "$(dev_sum "$NOBODY/image")" = "$before"
'

test_as_nobody 'as uid 65534 without XDG_STATE_HOME: the undo directory is made 0700 under ~/.local/state' '
	before=$(dev_sum "$NOBODY/image") &&
	as_nobody env -u XDG_STATE_HOME "$NOBODY/flashbench.bin" \
		--capacity-check \
		--cache-limit=1M "$NOBODY/image" >out 2>err &&
	cat err &&
	home=$NOBODY/home/.local/state/flashbench/undo &&
	grep "old contents go to $home/image.undo first" err &&
	test "$(stat -c "%a %u" "$home")" = "700 65534" &&
	test "$(stat -c "%a %u" "$NOBODY/home/.local")" = "700 65534" &&
	test -z "$(ls -A "$home")" &&
	test "$(dev_sum "$NOBODY/image")" = "$before"
'

test_as_nobody 'as uid 65534: a crashed run'"'"'s file in the undo directory stops the check, naming the --restore' '
	as_nobody sh -c "printf saved >$STATE/image.undo" &&
	export HOME="$NOBODY/home" XDG_STATE_HOME="$NOBODY/state" &&
	FLASHBENCH=$NOBODY/flashbench &&
	test_usage_error flashbench \
		"^--undo-file: $STATE/image.undo exists \(left by a run that did not finish\? flashbench --restore=$STATE/image.undo $NOBODY/image puts its blocks back\); remove it to start over\$" \
		--capacity-check --cache-limit=1M "$NOBODY/image" &&
	test "$(cat "$STATE/image.undo")" = saved &&
	rm "$STATE/image.undo"
'

test_as_nobody 'as uid 65534: a group-writable undo directory, or a symbolic link to one, is refused before any I/O' '
	before=$(dev_sum "$NOBODY/image") &&
	export HOME="$NOBODY/home" XDG_STATE_HOME="$NOBODY/state" &&
	FLASHBENCH=$NOBODY/flashbench &&
	chmod 770 "$STATE" &&
	test_usage_error flashbench \
		"^--undo-file: $STATE: is writable by its group or others \(mode 0770\); only you may write in the undo directory\$" \
		--capacity-check --cache-limit=1M "$NOBODY/image" &&
	chmod 700 "$STATE" &&
	mv "$STATE" "$NOBODY/elsewhere" &&
	as_nobody ln -s "$NOBODY/elsewhere" "$STATE" &&
	test_usage_error flashbench \
		"^--undo-file: $STATE: is a symbolic link; the undo directory must be a directory of yours\$" \
		--capacity-check --cache-limit=1M "$NOBODY/image" &&
	test -z "$(ls -A "$NOBODY/elsewhere")" &&
	test "$(dev_sum "$NOBODY/image")" = "$before"
'

test_done
