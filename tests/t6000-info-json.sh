#!/bin/sh
# --info and --decode-* with --format=json: every recorded sysfs tree gives
# one JSON object that parses and carries the keys scripts rely on.

. "$(dirname "$0")/lib.sh"

SYSFS=$TESTS_DIR/sysfs

# json_check FILE EXPR: FILE parses as one JSON document of schema 2, each
# record with its kind, and the Python expression EXPR is true over j, the
# members of every record (device, card, link, cid ...) side by side.
json_check() {
	python3 - "$1" "$2" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    doc = json.load(f)
assert isinstance(doc, dict), "not one object"
assert doc["schema"] == 3 and doc["test"], "no schema or test"
j = {}
for record in doc["results"]:
    assert record["kind"], "a record without kind"
    j.update((k, v) for k, v in record.items() if k != "kind")
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    print(json.dumps(doc, indent=1)[:3000])
    sys.exit(1)
PY
}

KEYS='all(k in j for k in ("manufacturer", "manfid", "oemid", "name",
	"serial", "date", "capacity_bytes", "preferred_erase_size_bytes",
	"logical_block_bytes", "transport"))'

if ! "$FLASHBENCH" --help 2>&1 | grep -q -- '--info'; then
	test_skip "info json" "flashbench has no --info option yet"
	test_done
	exit
fi
if ! command -v python3 >/dev/null 2>&1; then
	test_skip "info json" "python3 is needed to parse JSON"
	test_done
	exit
fi

info_json() {
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/$1" --format=json "$2"
}

test_expect_success 'seed card: json parses, required keys' '
	info_json sandisk-su08g /dev/mmcblk0 >out.json &&
	python3 -m json.tool out.json >/dev/null &&
	json_check out.json "$KEYS"
'

test_expect_success 'seed card: identity values' '
	info_json sandisk-su08g /dev/mmcblk0 >out.json &&
	json_check out.json "j[\"manufacturer\"] == \"SanDisk\" and
		j[\"manfid\"] == \"0x000003\" and j[\"oemid\"] == \"0x5344\" and
		j[\"name\"] == \"SU08G\" and j[\"serial\"] == \"0x716a01f2\" and
		j[\"date\"] == \"2011-11\" and
		j[\"capacity_bytes\"] == 7948206080 and
		j[\"preferred_erase_size_bytes\"] == 4194304 and
		j[\"logical_block_bytes\"] == 512 and j[\"transport\"] == \"sd\""
'

test_expect_success 'partition: its own size, its disk and card' '
	info_json sandisk-su08g /dev/mmcblk0p1 >out.json &&
	json_check out.json "j[\"disk\"] == \"mmcblk0\" and
		j[\"partition\"][\"number\"] == 1 and
		j[\"size_bytes\"] == 7944011776 and
		doc[\"device\"][\"size_bytes\"] == 7944011776 and
		j[\"partition\"][\"disk_size_bytes\"] == 7948206080 and
		j[\"capacity_bytes\"] == 7948206080 and
		j[\"capacity_check\"] == \"matches\""
'

if have_loop; then
	loop_setup PARTED 256M -P
fi

# an MBR with one partition: type 0x83, from sector 2048, 131072 sectors;
# partx adds its node (some kernels leave a re-read's list unchanged)
mbr() {
	head -c 446 /dev/zero &&
	printf "\000\000\000\000\203\000\000\000" &&
	printf "\000\010\000\000\000\000\002\000" &&
	head -c 48 /dev/zero &&
	printf "\125\252"
}

test_loop partx 'partition of a loop device: its own size, as -t measures it' '
	mbr >mbr.bin &&
	dd if=mbr.bin of="$PARTED" bs=512 conv=notrunc oflag=direct \
		status=none &&
	{ partx -a "$PARTED" || blockdev --rereadpt "$PARTED"; } &&
	poll_until "partition node" test -b "${PARTED}p1" &&
	"$FLASHBENCH" --info "${PARTED}p1" >out &&
	grep "^  size:  *67108864 (64 MiB), partition of a 256 MiB disk$" \
		out &&
	"$FLASHBENCH" --info --format=json "${PARTED}p1" >out.json &&
	json_check out.json "doc[\"device\"][\"size_bytes\"] == 67108864
		and j[\"size_bytes\"] == 67108864 and
		j[\"partition\"][\"size_bytes\"] == 67108864 and
		j[\"partition\"][\"disk_size_bytes\"] == 268435456" &&
	"$FLASHBENCH" -t --time=100ms --format=json "${PARTED}p1" >t.json &&
	json_check t.json "doc[\"device\"][\"size_bytes\"] == 67108864"
'

for t in toshiba-sd01g:mmcblk0 kingston-sd16g:mmcblk1 \
	 samsung-sdxc64:mmcblk0 samsung-emmc8g:mmcblk0 noname-4g:mmcblk0 \
	 usb-reader:sdb loop:loop0 bare:sdz; do
	test_expect_success "${t%%:*}: json parses, required keys" "
		info_json ${t%%:*} /dev/${t#*:} >out.json &&
		python3 -m json.tool out.json >/dev/null &&
		json_check out.json '$KEYS'
	"
done

test_expect_success 'unknown manufacturer is null, raw ID kept' '
	info_json noname-4g /dev/mmcblk0 >out.json &&
	json_check out.json "j[\"manufacturer\"] is None and
		j[\"manfid\"] == \"0x000012\""
'

test_expect_success 'missing attributes are null' '
	info_json bare /dev/sdz >out.json &&
	json_check out.json "j[\"transport\"] is None and
		j[\"logical_block_bytes\"] is None and j[\"rotational\"] is None"
'

test_expect_success 'sdxc speed claims' '
	info_json samsung-sdxc64 /dev/mmcblk0 >out.json &&
	json_check out.json "j[\"speed_class\"] == 10 and
		j[\"uhs_grade\"] == 3 and j[\"video_class\"] == 30 and
		j[\"app_class\"] == 2 and j[\"au_size_bytes\"] == 25165824"
'

test_expect_success 'regular file: transport file' '
	printf 12345 >img &&
	"$FLASHBENCH" --info --format=json img >out.json &&
	json_check out.json "j[\"transport\"] == \"file\" and
		j[\"size_bytes\"] == 5"
'

test_expect_success 'decode cid: json' '
	"$FLASHBENCH" --decode-cid=035344535530384780716a01f200bb00 \
		--format=json >out.json &&
	json_check out.json "doc[\"test\"] == \"decode-cid\" and
		doc[\"results\"][0][\"kind\"] == \"cid\" and
		j[\"register\"] == \"cid\" and
		j[\"name\"] == \"SU08G\" and j[\"date\"] == \"2011-11\""
'

test_expect_success 'decode csd, scr, ssr: json' '
	"$FLASHBENCH" --decode-csd=400e00325b5900003b377f800a404000 \
		--format=json >csd.json &&
	json_check csd.json "j[\"capacity_bytes\"] == 7948206080" &&
	"$FLASHBENCH" --decode-scr=0235800300000000 --format=json >scr.json &&
	json_check scr.json "j[\"version\"] == \"3.0x\"" &&
	"$FLASHBENCH" --format=json --decode-ssr=$(cat \
		"$SYSFS/samsung-sdxc64/block/mmcblk0/device/ssr") >ssr.json &&
	json_check ssr.json "j[\"au_size_bytes\"] == 25165824"
'

test_expect_success 'decode mmc: prefix selects the eMMC layout' '
	"$FLASHBENCH" --decode-cid=mmc:150100384754463452053a4b5c6d3600 \
		--format=json >out.json &&
	json_check out.json "j[\"name\"] == \"8GTF4R\" and
		j[\"date\"] == \"2019-03\" and j[\"manufacturer\"] == \"Samsung\""
'

test_expect_success 'malformed hex: exit 2, one message' '
	test_expect_code 2 "$FLASHBENCH" \
		--decode-cid=035344535530384780716a01f200bb0 2>err &&
	grep "^flashbench: cid: expected 32 hex digits, got 31" err &&
	test_expect_code 2 "$FLASHBENCH" \
		--decode-scr=02358003000000zz 2>err &&
	grep "^flashbench: scr: .z. is not a hex digit" err
'

test_expect_success 'missing device: an error, not a crash' '
	! "$FLASHBENCH" --info --sysfs-root="$SYSFS/bare" /dev/nosuch 2>err &&
	grep "^flashbench: /dev/nosuch: no such device" err
'

test_done
