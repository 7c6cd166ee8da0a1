#!/bin/sh
# --info as text on the recorded tree of the seed's SanDisk SU08G card:
# the whole output is compared, so any change to it shows here.

. "$(dirname "$0")/lib.sh"

SYSFS=$TESTS_DIR/sysfs

if ! "$FLASHBENCH" --help 2>&1 | grep -q -- '--info'; then
	test_skip "info text" "flashbench has no --info option yet"
	test_done
	exit
fi

cat >"$TRASH/expect.seed" <<'END'
device:
  path:                     /dev/mmcblk0
  transport:                SD card (MMC host)
  sysfs disk:               mmcblk0
  size:                     7948206080 (7.40 GiB)
  logical block size:       512
  physical block size:      512
  minimum I/O size:         512
  optimal I/O size:         0
  discard:                  yes
  discard granularity:      4194304 (4 MiB)
  discard max bytes:        unknown
  rotational:               no
  removable:                no
  read-only:                no
card:
  type:                     SD
  erase size:               512
  preferred erase size:     4194304 (4 MiB)
  capacity from CSD:        7948206080 (7.40 GiB)
  capacity check:           matches the block device
cid:
  layout:                   sd
  manufacturer:             SanDisk (0x03)
  oem id:                   0x5344 "SD"
  name:                     SU08G
  revision:                 8.0
  serial:                   0x716a01f2
  date:                     2011-11
csd:
  layout:                   sd
  structure:                2.0 (SDHC/SDXC)
  c_size:                   15159
  capacity:                 7948206080 (7.40 GiB)
  read block length:        512
  write block length:       512
  partial block reads:      no
  max transfer rate:        25 Mbit/s per line (0x32)
  read access time:         1 ms + 0 clocks (0x0e, 0x00)
  write speed factor:       x4
  command classes:          0x5b5 (classes 0 2 4 5 7 8 10)
  erase sector:             65536 (64 KiB)
  single-block erase:       yes
  write protect group:      1 erase sector(s)
  group write protection:   no
  permanent write protect:  no
  temporary write protect:  no
  copy flag:                yes
scr:
  structure:                0
  physical layer:           3.0x
  security:                 SDHC (CPRM 2.00)
  optional commands:        CMD20 CMD23
  bus widths:               1, 4 bit (0x5)
  erased blocks read:       0x00
END

test_expect_success 'seed card: whole text output' '
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/sandisk-su08g" \
		/dev/mmcblk0 >out &&
	test_cmp expect.seed out
'

test_expect_success 'seed card by bare name and by partition' '
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/sandisk-su08g" \
		mmcblk0 >out &&
	sed "s|/dev/mmcblk0|mmcblk0|" expect.seed >expect.bare &&
	test_cmp expect.bare out &&
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/sandisk-su08g" \
		/dev/mmcblk0p1 >out &&
	grep "^partition:" out &&
	grep "^  number:  *1$" out &&
	grep "^  size:  *7944011776 (7.40 GiB), partition of a 7.40 GiB disk$" \
		out &&
	grep "^  capacity check:  *matches the block device$" out &&
	grep "^  manufacturer:  *SanDisk (0x03)$" out
'

test_expect_success 'decode cid: text' '
	"$FLASHBENCH" --decode-cid=035344535530384780716a01f200bb00 >out &&
	sed -n "/^cid:/,/^csd:/p" expect.seed | grep -v "^csd:" >expect.cid &&
	test_cmp expect.cid out
'

test_expect_success 'text lines are "key: value", aligned' '
	for t in sandisk-su08g:mmcblk0 samsung-emmc8g:mmcblk0 \
		 usb-reader:sdb loop:loop0 bare:sdz; do
		"$FLASHBENCH" --info --sysfs-root="$SYSFS/${t%%:*}" \
			"/dev/${t#*:}" >out &&
		test_lines_match out "^([a-z]+:|  [^ ][^:]*: +[^ ].*)$" &&
		! grep -v ":$" out | grep -v "^.\{28\}[^ ]" || return 1
	done
'

test_expect_success 'unknown manufacturer shown as raw ID' '
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/noname-4g" /dev/mmcblk0 >out &&
	grep "^  manufacturer:  *unknown (0x12)$" out &&
	grep "^  capacity check:  *block device is 2097152 bytes (2 MiB) smaller$" out
'

test_expect_success 'loop device shows its backing file' '
	"$FLASHBENCH" --info --sysfs-root="$SYSFS/loop" /dev/loop0 >out &&
	grep "^  transport:  *loop device$" out &&
	grep "^  backing file:  *\/var\/tmp\/card.img$" out
'

test_done
