#!/bin/sh
# --info's link section on recorded sysfs and debugfs trees: the host's
# bus mode, its ceiling and whether it limits the card, in text and JSON;
# debugfs missing or unreadable is reported, never guessed; and a speed
# test on a real (loop) device that a recorded tree places behind a
# host carries the link and its share of the ceiling.

. "$(dirname "$0")/lib.sh"

SYSFS=$TESTS_DIR/sysfs
DEBUGFS=$TESTS_DIR/debugfs

require python3

# link NAME DISK [FORMAT]: --info on the tree NAME, with its debugfs
link() {
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/$1" \
		--debugfs-root="$DEBUGFS/$1" --format="${3:-text}" "/dev/$2"
}

# link_json NAME DISK EXPR: the "link" object l satisfies EXPR
link_json() {
	link "$1" "$2" json >out.json &&
	python3 - out.json "$3" <<'PY'
import json, sys
l = [r for r in json.load(open(sys.argv[1]))["results"]
     if r["kind"] == "link"][0]["link"]
keys = ["bus", "timing", "clock_hz", "bus_width_bits", "signal_voltage",
        "ceiling_bytes_per_s", "limits_card", "reason"]
assert list(l) == keys, "link keys: %s" % list(l)
if not eval("(" + sys.argv[2] + ")"):
    print(json.dumps(l, indent=1))
    sys.exit(1)
PY
}

test_expect_success 'phone host after resume: sd high-speed, 25 MB/s, limits the U3 card' '
	link_json gemini-resume mmcblk1 "l[\"bus\"] == \"sd\" and
		l[\"timing\"] == \"sd high-speed\" and
		l[\"clock_hz\"] == 50000000 and l[\"bus_width_bits\"] == 4 and
		l[\"signal_voltage\"] == \"3.30 V\" and
		l[\"ceiling_bytes_per_s\"] == 25000000 and
		l[\"limits_card\"] is True and
		\"The host, not the card, limits this speed.\" in l[\"reason\"]"
'

test_expect_success 'phone host after resume: the text says it plainly' '
	link gemini-resume mmcblk1 >out &&
	grep -x "link:" out &&
	grep -x "  timing: *SD high-speed (ios: 2, sd high-speed)" out &&
	grep -x "  ceiling: *25000000 bytes/s (25 MB/s)" out &&
	grep -x "  limits the card: *yes" out &&
	grep "the host runs this card at SD high-speed (50 MHz, 4 bits): at most 25 MB/s; the card is C10 U3 (30 MB/s sustained writes) and UHS-I capable: in a UHS-I host it can go faster. The host, not the card, limits this speed." out
'

test_expect_success 'SDR104 host, same card: actual clock 200 MHz, 100 MB/s, does not limit' '
	link_json laptop-sdr104 mmcblk0 "l[\"timing\"] == \"sd uhs SDR104\" and
		l[\"clock_hz\"] == 200000000 and
		l[\"signal_voltage\"] == \"1.80 V\" and
		l[\"ceiling_bytes_per_s\"] == 100000000 and
		l[\"limits_card\"] is False" &&
	link laptop-sdr104 mmcblk0 >out &&
	grep -x "  clock: *200 MHz (asked for 208 MHz)" out &&
	grep -x "  limits the card: *no" out
'

test_expect_success 'DDR50 host: both clock edges, 50 MB/s, carries a U1 card' '
	link_json sbc-ddr50 mmcblk0 "l[\"timing\"] == \"sd uhs DDR50\" and
		l[\"clock_hz\"] == 50000000 and
		l[\"ceiling_bytes_per_s\"] == 50000000 and
		l[\"limits_card\"] is False" &&
	link sbc-ddr50 mmcblk0 >out &&
	grep "both clock edges" out
'

test_expect_success 'eMMC at HS200: 8 bits, 200 MB/s, cannot tell' '
	link_json emmc-hs200 mmcblk2 "l[\"bus\"] == \"mmc\" and
		l[\"timing\"] == \"mmc HS200\" and l[\"bus_width_bits\"] == 8 and
		l[\"ceiling_bytes_per_s\"] == 200000000 and
		l[\"limits_card\"] is None and
		\"cannot be told\" in l[\"reason\"]" &&
	link emmc-hs200 mmcblk2 >out &&
	grep -x "  limits the card: *cannot tell" out
'

test_expect_success 'USB 2.0 reader with usb-storage: about 40 MB/s, card unknown' '
	link_json usb2-reader sdb "l[\"bus\"] == \"usb\" and
		l[\"timing\"] == \"usb high-speed\" and
		l[\"clock_hz\"] is None and l[\"bus_width_bits\"] is None and
		35000000 <= l[\"ceiling_bytes_per_s\"] <= 40000000 and
		l[\"limits_card\"] is None" &&
	link usb2-reader sdb >out &&
	grep -x "  bus: *USB 2.00, driver usb-storage (bulk-only transport)" out &&
	grep -x "  timing: *high-speed, 480 Mbit/s" out
'

test_expect_success 'USB 3 reader with uas: SuperSpeed, 405 MB/s' '
	link_json usb3-reader sdb "l[\"timing\"] == \"usb superspeed\" and
		l[\"ceiling_bytes_per_s\"] == 405000000 and
		l[\"limits_card\"] is None" &&
	link usb3-reader sdb >out &&
	grep -x "  bus: *USB 3.00, driver uas (USB attached SCSI)" out
'

test_expect_success 'debugfs not mounted: said, with how to mount it; no ceiling' '
	mkdir empty &&
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/gemini-resume" \
		--debugfs-root="$TRASH/empty" /dev/mmcblk1 >out &&
	grep "empty/mmc1/ios does not exist" out &&
	grep "mount -t debugfs none /sys/kernel/debug" out &&
	grep -x "  ceiling: *unknown" out &&
	grep -x "  limits the card: *cannot tell" out &&
	! grep "  timing:" out
'

test_expect_success 'debugfs by default under the sysfs root: absent there too' '
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/gemini-resume" \
		--format=json /dev/mmcblk1 >out.json &&
	python3 -c "
import json
l = [r for r in json.load(open(\"out.json\"))[\"results\"]
     if r[\"kind\"] == \"link\"][0][\"link\"]
assert l[\"ceiling_bytes_per_s\"] is None and l[\"timing\"] is None
assert l[\"limits_card\"] is None
assert \"gemini-resume/kernel/debug/mmc1/ios\" in l[\"reason\"], l
"
'

# debugfs is root's: an ordinary user cannot read ios.  Root reads any
# file, so the unreadable case runs as nobody, which takes root to do;
# the tool and the trees are copied where nobody can reach them, since
# the clone may lie below a private directory.
if other_user_dir; then
	unreadable=test_expect_success
else
	unreadable="test_skip_other_user"
fi
test_skip_other_user() {
	test_skip "$2" "$other_user_why"
}
$unreadable setpriv 'debugfs unreadable: the error, not a guess' '
	cp -r "$SYSFS/gemini-resume" "$OTHER_DIR/sysfs" &&
	cp -r "$DEBUGFS/gemini-resume" "$OTHER_DIR/locked" &&
	chmod -R a+rX "$OTHER_DIR/sysfs" "$OTHER_DIR/locked" &&
	chmod 700 "$OTHER_DIR/locked/mmc1" &&
	as_other_user "$OTHER_DIR/flashbench" --info \
		--sysfs-root="$OTHER_DIR/sysfs" \
		--debugfs-root="$OTHER_DIR/locked" /dev/mmcblk1 >out &&
	grep "locked/mmc1/ios cannot be read: Permission denied" out &&
	grep "mount -t debugfs none /sys/kernel/debug" out &&
	grep -x "  ceiling: *unknown" out
'

test_expect_success 'plain recorded trees keep working: no host, no guess' '
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/sandisk-su08g" \
		--format=json /dev/mmcblk0 >out.json &&
	python3 -c "
import json
l = [r for r in json.load(open(\"out.json\"))[\"results\"]
     if r[\"kind\"] == \"link\"][0][\"link\"]
assert l[\"bus\"] == \"sd\" and l[\"ceiling_bytes_per_s\"] is None
assert l[\"limits_card\"] is None and \"MMC host\" in l[\"reason\"], l
" &&
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/loop" --format=json \
		/dev/loop0 >out.json &&
	python3 -c "
import json
assert [r for r in json.load(open(\"out.json\"))[\"results\"]
     if r[\"kind\"] == \"link\"][0][\"link\"] is None"
'

test_expect_success 'the link in CSV: its row, a column per field' '
	link gemini-resume mmcblk1 csv >out.csv &&
	python3 -c "
import csv
rows = list(csv.DictReader(open(\"out.csv\")))
link = [r for r in rows if r[\"kind\"] == \"link\"]
assert len(link) == 1, rows
assert float(link[0][\"link.ceiling_bytes_per_s\"]) == 25e6, link
assert link[0][\"link.limits_card\"] == \"true\", link
assert link[0][\"cid.name\"] == \"\", link
"
'

test_expect_success '--debugfs-root does not apply to --align' '
	test_expect_code 2 "$FLASHBENCH" -a --debugfs-root=/tmp sim:sandisk-su08g
'

# tree_for_loop DEV NAME: a copy of the recorded tree NAME in which the
# loop device DEV's number leads to the tree's card
tree_for_loop() {
	cp -r "$SYSFS/$2" tree &&
	mkdir -p tree/dev/block &&
	ln -s "../../$(cd tree && readlink block/* | sed 's|^\.\./||')" \
		"tree/dev/block/$(lsblk -dno MAJ:MIN "$1" | tr -d " ")"
}

test_loop lsblk '-t on a device behind the resumed host: the link and the share' '
	dev=$(make_loop 64M) &&
	tree_for_loop "$dev" gemini-resume &&
	"$FLASHBENCH" -t --time=0.2 --sysfs-root=tree \
		--debugfs-root="$DEBUGFS/gemini-resume" --format=json "$dev" \
		>out.json &&
	python3 -c "
import json; j = json.load(open(\"out.json\"))
summary = [r for r in j[\"results\"] if r[\"kind\"] == \"summary\"][0]
link = [r for r in j[\"results\"] if r[\"kind\"] == \"link\"][0][\"link\"]
assert link[\"ceiling_bytes_per_s\"] == 25000000 and link[\"limits_card\"]
share = summary[\"ceiling_share\"]
assert abs(share - summary[\"bytes_per_s\"] / 25e6) < 1e-3 * share, summary
" &&
	"$FLASHBENCH" -t --time=0.2 --sysfs-root=tree \
		--debugfs-root="$DEBUGFS/gemini-resume" "$dev" >out &&
	grep "MB/s ([0-9]*% of the link.s ceiling[):]" out &&
	grep "^link: the host runs this card at SD high-speed" out
'

test_loop '-t on a loop device: no link, no share' '
	dev=$(make_loop 64M) &&
	"$FLASHBENCH" -t --time=0.2 --format=json "$dev" >out.json &&
	python3 -c "
import json; j = json.load(open(\"out.json\"))
assert all(r[\"kind\"] != \"link\" for r in j[\"results\"])
assert all(\"ceiling_share\" not in r for r in j[\"results\"])
"
'

test_done
