/*
 * unit-info: register decoding (inforeg.c), sysfs reading (infosysfs.c)
 * and rendering (info.c), against the recorded trees in tests/sysfs/.
 * Expected values are worked out by hand from the bit layouts; it does
 * not touch any real device.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity/inforeg.h"
#include "identity/infosysfs.h"
#include "records/info.h"
#include "unit.h"

static const char *trees = "sysfs";

static const char *tree(const char *name)
{
	static char path[4][256];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", trees, name);
	return p;
}

static int read_card(const char *device, const char *name,
		     struct info_card *card)
{
	struct info_device dev = { .path = device };
	char err[256] = "";
	int ret = info_read_card(&dev, tree(name), card, err, sizeof(err));

	if (ret)
		printf("# %s: %s\n", device, err);
	return ret;
}

/* Run info_show or info_decode into a string (freed by the caller). */
static char *show(const char *device, const char *name, bool json,
		  int *ret)
{
	struct info_device dev = { .path = device };
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = info_show(&dev, name ? tree(name) : NULL,
			 json ? RENDER_JSON : RENDER_TEXT, f, err,
			 sizeof(err));
	fclose(f);
	return buf;
}

static char *decode(const char *kind, const char *hex, bool json, int *ret,
		    char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = info_decode(kind, hex, json ? RENDER_JSON : RENDER_TEXT, NULL, f,
			  err, errlen);
	fclose(f);
	return buf;
}

static bool has(const char *text, const char *what)
{
	return text && strstr(text, what);
}

/* Crude shape check; tests/t6000-info-json.sh parses for real. */
static bool json_shaped(const char *s)
{
	int depth = 0;
	bool in_string = false;

	if (!s || s[0] != '{' || strcmp(s + strlen(s) - 2, "}\n"))
		return false;
	for (; *s; s++) {
		if (in_string && *s == '\\' && s[1])
			s++;
		else if (*s == '"')
			in_string = !in_string;
		else if (!in_string && (*s == '{' || *s == '['))
			depth++;
		else if (!in_string && (*s == '}' || *s == ']'))
			depth--;
		else if (!in_string && *s == ',' && s[1] == '\n' &&
			 (s[2] == '}' || s[2] == ']'))
			return false;
	}
	return depth == 0 && !in_string;
}

/*
 * The seed: SanDisk SU08G.
 * CID 03 5344 5355303847 80 716a01f2 0 0bb 00:
 *   MID 0x03 = SanDisk; OID "SD"; PNM "SU08G"; PRV 8.0; PSN 0x716a01f2;
 *   MDT [19:12] = 0x0b -> 2000 + 11 = 2011, [11:8] = 0xb = November.
 * CSD 400e0032 5b590000 3b377f80 0a404000: CSD_STRUCTURE = 01 -> v2.0;
 *   C_SIZE [69:48] = 0x003b37 = 15159; (15159 + 1) * 512 KiB
 *   = 15160 * 524288 = 7948206080 bytes = size 15523840 * 512.
 * SCR 02358003 00000000: SD_SPEC 2, SD_SPEC3 1 -> 3.0x; SECURITY 3;
 *   BUS_WIDTHS 0101; CMD_SUPPORT 0011 (CMD20, CMD23).
 */
static void test_seed(void)
{
	struct info_card *c = calloc(1, sizeof(*c));
	int ret;

	ret = read_card("/dev/mmcblk0", "sandisk-su08g", c);
	UNIT_CHECK(ret == 0,
		   "seed: tree read");
	UNIT_CHECK(c->transport == INFO_TRANSPORT_SD, "seed: transport sd");
	UNIT_STREQ(info_transport_name(c->transport), "sd",
		   "seed: transport name");
	UNIT_STREQ(c->disk, "mmcblk0", "seed: disk name");
	UNIT_STREQ(c->manufacturer, "SanDisk", "seed: manufacturer SanDisk");
	UNIT_CHECK(c->has_manfid && c->manfid == 3, "seed: manfid 3");
	UNIT_CHECK(c->has_oemid && c->oemid == 0x5344, "seed: oemid 0x5344");
	UNIT_STREQ(c->name, "SU08G", "seed: name SU08G");
	UNIT_CHECK(c->has_serial && c->serial == 0x716a01f2,
		   "seed: serial 0x716a01f2");
	UNIT_CHECK(c->has_date && c->year == 2011 && c->month == 11,
		   "seed: date 2011-11");
	UNIT_CHECK(c->cid.prv == 0x80, "seed: revision 8.0");
	UNIT_CHECK(c->has_csd && c->csd.structure == 1, "seed: CSD v2.0");
	UNIT_CHECK(c->csd.c_size == 15159, "seed: C_SIZE 15159");
	UNIT_CHECK(c->has_capacity && c->capacity_bytes == 7948206080ULL,
		   "seed: capacity 7948206080 from CSD");
	UNIT_CHECK(c->has_size && c->size_bytes == 7948206080ULL,
		   "seed: block size 15523840 sectors");
	UNIT_CHECK(c->has_preferred_erase_size &&
		   c->preferred_erase_size == 4194304,
		   "seed: preferred erase size 4 MiB");
	UNIT_CHECK(c->has_erase_size && c->erase_size == 512,
		   "seed: erase size 512");
	UNIT_CHECK(c->has_logical_block_size && c->logical_block_size == 512,
		   "seed: logical block 512");
	UNIT_CHECK(c->csd.tran_kbit == 25000, "seed: TRAN_SPEED 0x32 = 25M");
	UNIT_CHECK(c->csd.taac_ps == 1000000000ULL, "seed: TAAC 0x0e = 1 ms");
	UNIT_CHECK(c->csd.erase_bytes == 65536,
		   "seed: erase sector (127 + 1) * 512 = 64 KiB");
	UNIT_CHECK(c->has_scr, "seed: SCR read");
	UNIT_STREQ(c->scr.version, "3.0x", "seed: SD physical layer 3.0x");
	UNIT_CHECK(c->scr.cmd_support == 3 && c->scr.bus_widths == 5 &&
		   c->scr.security == 3, "seed: SCR commands, widths, security");
	UNIT_CHECK(!c->has_ssr && !c->has_speed, "seed: no ssr, no claims");
	UNIT_CHECK(!c->is_partition, "seed: whole disk");
	free(c);
}

static void test_seed_output(void)
{
	int ret;
	char *text = show("/dev/mmcblk0", "sandisk-su08g", false, &ret);
	char *json;

	UNIT_CHECK(ret == 0, "seed text: shown");
	UNIT_CHECK(has(text, "SanDisk (0x03)"), "seed text: maker with ID");
	UNIT_CHECK(has(text, "7948206080 (7.40 GiB)"), "seed text: size");
	UNIT_CHECK(has(text, "matches the block device"),
		   "seed text: CSD capacity matches");
	UNIT_CHECK(has(text, "  serial:                   0x716a01f2\n"),
		   "seed text: aligned serial line");
	free(text);
	json = show("/dev/mmcblk0", "sandisk-su08g", true, &ret);
	UNIT_CHECK(ret == 0 && json_shaped(json), "seed json: one object");
	UNIT_CHECK(has(json, "\"manufacturer\": \"SanDisk\""),
		   "seed json: manufacturer");
	UNIT_CHECK(has(json, "\"date\": \"2011-11\""), "seed json: date");
	UNIT_CHECK(has(json, "\"capacity_bytes\": 7948206080"),
		   "seed json: capacity");
	UNIT_CHECK(has(json, "\"preferred_erase_size_bytes\": 4194304"),
		   "seed json: preferred erase size");
	UNIT_CHECK(has(json, "\"transport\": \"sd\""), "seed json: transport");
	UNIT_CHECK(has(json, "\"ssr\": null"), "seed json: absent ssr null");
	free(json);
}

/*
 * mmcblk0p1: start 8100 sectors, size 15515648 sectors, inside
 * block/mmcblk0/.  Named by /dev path (no such node here) or bare name.
 */
static void test_partition(void)
{
	struct info_card *c = calloc(1, sizeof(*c));
	int ret;
	const char *names[] = { "/dev/mmcblk0p1", "mmcblk0p1" };

	for (int i = 0; i < 2; i++) {
		ret = read_card(names[i], "sandisk-su08g", c);
		UNIT_CHECK(ret == 0,
			   "partition %s: found", names[i]);
		UNIT_CHECK(c->is_partition && c->partition_number == 1,
			   "partition %s: number 1", names[i]);
		UNIT_STREQ(c->disk, "mmcblk0", "partition %s: disk mmcblk0",
			   names[i]);
		UNIT_CHECK(c->has_partition_range &&
			   c->partition_start_bytes == 8100 * 512ULL &&
			   c->partition_size_bytes == 15515648 * 512ULL,
			   "partition %s: range", names[i]);
		UNIT_CHECK(c->has_capacity &&
			   c->disk_size_bytes == 7948206080ULL,
			   "partition %s: the disk's card and size", names[i]);
		UNIT_CHECK(c->has_size &&
			   c->size_bytes == 15515648 * 512ULL,
			   "partition %s: its own size", names[i]);
	}
	ret = read_card("/dev/mmcblk0p9", "sandisk-su08g", c);
	UNIT_CHECK(ret == -ENOENT,
		   "partition: a missing one is -ENOENT");
	free(c);
}

/*
 * SDSC, CSD 1.0: 002600325f5983c7edb7cf800a404000.
 *   READ_BL_LEN [83:80] = 9; C_SIZE [73:62] = 0xf1f = 3871;
 *   C_SIZE_MULT [49:47] = 7; (3871 + 1) << (7 + 2 + 9) = 3872 * 262144
 *   = 1015021568 bytes = 1982464 sectors (the tree's size).
 *   ERASE_BLK_EN 1, SECTOR_SIZE 31: (31 + 1) << WRITE_BL_LEN 9 = 16 KiB.
 *   TAAC 0x26: mantissa code 4 = 1.5, unit 6 = 1 ms -> 1.5 ms.
 * CID 02 544d 5344303147 21 1a2b3c4d 0 074 00: Toshiba, "TM", SD01G,
 *   PRV 2.1, MDT 0x07 -> 2007, month 4.
 * SCR 02a5...: SD_SPEC 2, SPEC3 0 -> 2.00; DATA_STAT_AFTER_ERASE 1.
 */
static void test_sdsc(void)
{
	struct info_card *c = calloc(1, sizeof(*c));
	int ret;

	ret = read_card("/dev/mmcblk0", "toshiba-sd01g", c);
	UNIT_CHECK(ret == 0,
		   "sdsc: tree read");
	UNIT_STREQ(c->manufacturer, "Toshiba/Kioxia", "sdsc: Toshiba");
	UNIT_STREQ(c->name, "SD01G", "sdsc: name");
	UNIT_CHECK(c->year == 2007 && c->month == 4, "sdsc: date 2007-04");
	UNIT_CHECK(c->csd.structure == 0 && c->csd.c_size == 3871 &&
		   c->csd.c_size_mult == 7 && c->csd.read_bl_len == 9,
		   "sdsc: CSD 1.0 fields");
	UNIT_CHECK(c->capacity_bytes == 1015021568ULL &&
		   c->capacity_bytes == c->size_bytes,
		   "sdsc: capacity 1015021568 = block size");
	UNIT_CHECK(c->csd.erase_bytes == 16384 && c->csd.erase_blk_en,
		   "sdsc: erase sector 16 KiB");
	UNIT_CHECK(c->csd.taac_ps == 1500000000ULL, "sdsc: TAAC 1.5 ms");
	UNIT_STREQ(c->scr.version, "2.00", "sdsc: physical layer 2.00");
	UNIT_CHECK(c->scr.erased_ones, "sdsc: erased reads 0xff");
	free(c);
}

/*
 * SDHC: CSD C_SIZE 0x0076b7 = 30391; (30391 + 1) * 524288 = 15934160896
 * = 31121408 sectors.  TRAN_SPEED 0x5a: code 11 = 5.0, unit 2 = 10M
 * -> 50 Mbit/s.
 * SSR: SPEED_CLASS [447:440] = 4 -> C10; AU_SIZE [431:428] = 9 -> 4 MiB;
 *   ERASE_SIZE 0x0040 = 64 AUs, ERASE_TIMEOUT 0x14 = 20 s, OFFSET 2;
 *   UHS_SPEED_GRADE 1; VIDEO_SPEED_CLASS 0x0a = 10; APP_PERF_CLASS 0;
 *   SIZE_OF_PROTECTED_AREA 0x05000000 = 83886080.
 */
static void test_sdhc(void)
{
	struct info_card *c = calloc(1, sizeof(*c));
	int ret;

	ret = read_card("/dev/mmcblk1", "kingston-sd16g", c);
	UNIT_CHECK(ret == 0,
		   "sdhc: tree read");
	UNIT_STREQ(c->manufacturer, "Kingston", "sdhc: Kingston (0x41)");
	UNIT_CHECK(c->capacity_bytes == 15934160896ULL &&
		   c->size_bytes == c->capacity_bytes, "sdhc: capacity");
	UNIT_CHECK(c->csd.tran_kbit == 50000, "sdhc: 50 Mbit/s");
	UNIT_CHECK(c->has_ssr && c->has_speed, "sdhc: ssr read");
	UNIT_CHECK(c->speed_class == 10 && c->ssr.speed_class_code == 4,
		   "sdhc: speed class 10");
	UNIT_CHECK(c->uhs_grade == 1 && c->video_class == 10 &&
		   c->app_class == 0, "sdhc: U1 V10 no A");
	UNIT_CHECK(c->au_size_bytes == 4 * 1024 * 1024,
		   "sdhc: AU 4 MiB = preferred erase size");
	UNIT_CHECK(c->ssr.erase_size == 64 && c->ssr.erase_timeout == 20 &&
		   c->ssr.erase_offset == 2, "sdhc: erase timing");
	UNIT_CHECK(c->ssr.protected_area == 83886080, "sdhc: protected area");
	free(c);
}

/*
 * SDXC: C_SIZE [69:48] = 0x01dcff = 122111 (>= 0xffff: SDXC);
 * (122111 + 1) * 524288 = 64021856256 = 125042688 sectors.
 * SCR 0245848b: SPEC 2, SPEC3 1, SPEC4 1, SPECX [41:38] = 2 -> 6.xx;
 *   SECURITY 4 (SDXC); CMD_SUPPORT 1011 = CMD20 CMD23 CMD58/59.
 * SSR: C10, AU code 0xd = 24 MiB, U3, V30 (0x1e), A2, DISCARD 1,
 *   PERFORMANCE_ENHANCE 0x05, VSC_AU_SIZE 24.
 */
static void test_sdxc(void)
{
	struct info_card *c = calloc(1, sizeof(*c));
	int ret;

	ret = read_card("/dev/mmcblk0", "samsung-sdxc64", c);
	UNIT_CHECK(ret == 0,
		   "sdxc: tree read");
	UNIT_STREQ(c->manufacturer, "Samsung", "sdxc: Samsung (0x1b)");
	UNIT_CHECK(c->csd.c_size == 122111 &&
		   c->capacity_bytes == 64021856256ULL &&
		   c->size_bytes == c->capacity_bytes, "sdxc: capacity");
	UNIT_STREQ(c->scr.version, "6.xx", "sdxc: physical layer 6.xx");
	UNIT_CHECK(c->scr.cmd_support == 0xb && c->scr.security == 4,
		   "sdxc: commands and security");
	UNIT_CHECK(c->speed_class == 10 && c->uhs_grade == 3 &&
		   c->video_class == 30 && c->app_class == 2,
		   "sdxc: C10 U3 V30 A2");
	UNIT_CHECK(c->au_size_bytes == 24 * 1024 * 1024 &&
		   c->preferred_erase_size == c->au_size_bytes,
		   "sdxc: AU 24 MiB");
	UNIT_CHECK(c->ssr.discard && !c->ssr.fule &&
		   c->ssr.performance_enhance == 5 && c->ssr.vsc_au_size == 24,
		   "sdxc: ssr flags");
	UNIT_CHECK(c->serial == 0xdeadbeef && c->year == 2019 &&
		   c->month == 5, "sdxc: serial and date");
	free(c);
}

/*
 * eMMC CID 15 01 00 384754463452 05 3a4b5c6d 36 00: MID 0x15 Samsung
 * (JEDEC), CBX 1 = BGA, OID 0x00 (sysfs oemid 0x0100), PNM "8GTF4R",
 * PRV 0x05, PSN 0x3a4b5c6d, MDT month 3, year code 6: 1997 + 6 = 2003,
 * under 2010 so + 16 = 2019.  CSD C_SIZE 0xfff: size is in EXT_CSD.
 * CSD ERASE_GRP_SIZE 31, MULT 31: 32 * 32 * 512 = 512 KiB.
 */
static void test_emmc(void)
{
	struct info_card *c = calloc(1, sizeof(*c));
	struct info_cid cid;
	int ret;
	char *text;

	ret = read_card("mmcblk0", "samsung-emmc8g", c);
	UNIT_CHECK(ret == 0,
		   "emmc: tree read by bare name");
	UNIT_CHECK(c->transport == INFO_TRANSPORT_EMMC, "emmc: transport");
	UNIT_STREQ(c->manufacturer, "Samsung", "emmc: Samsung (JEDEC 0x15)");
	UNIT_STREQ(c->name, "8GTF4R", "emmc: six-character name");
	UNIT_CHECK(c->oemid == 0x0100 && c->cid.cbx == 1, "emmc: oemid, BGA");
	UNIT_CHECK(c->year == 2019 && c->month == 3, "emmc: date 2019-03");
	UNIT_CHECK(c->serial == 0x3a4b5c6d, "emmc: serial");
	UNIT_CHECK(c->has_csd && !c->has_capacity,
		   "emmc: capacity not in the CSD");
	UNIT_CHECK(c->csd.erase_bytes == 524288, "emmc: erase group 512 KiB");
	UNIT_CHECK(c->size_bytes == 15269888ULL * 512, "emmc: size");
	ret = info_decode_cid("150100384754463452053a4b5c6d3600", true, &cid,
			      NULL, 0);
	UNIT_CHECK(ret == 0 && cid.year == 2019 && cid.month == 3 && cid.prv == 5,
		   "emmc: CID decoded alone gives the same date");
	text = show("/dev/mmcblk0", "samsung-emmc8g", false, &ret);
	UNIT_CHECK(ret == 0 && has(text, "A 0-10% used, B 10-20% used"),
		   "emmc text: life time");
	UNIT_CHECK(has(text, "enhanced area:            not configured"),
		   "emmc text: enhanced area unset");
	UNIT_CHECK(has(text, "RPMB size:                4194304 (4 MiB)"),
		   "emmc text: RPMB 0x20 * 128 KiB");
	UNIT_CHECK(has(text, "pre-EOL info:             normal"),
		   "emmc text: pre-EOL");
	free(text);
	free(c);
}

/*
 * Unknown MID 0x12 (in neither table): CID 12 3456 4153544320 10
 * 00000a5c 0 0e2 00 -> OID "4V", "ASTC ", 2014-02.  CSD C_SIZE 0x1d9b
 * = 7579: (7579 + 1) * 524288 = 3974103040, but the tree's size is
 * 7757824 sectors = 3972005888: 2097152 bytes short.  No queue/, no
 * removable, no ro, no scr: all unknown.
 */
static void test_unknown(void)
{
	struct info_card *c = calloc(1, sizeof(*c));
	int ret;
	char *text, *json;

	ret = read_card("/dev/mmcblk0", "noname-4g", c);
	UNIT_CHECK(ret == 0,
		   "unknown: tree read");
	UNIT_CHECK(c->manufacturer == NULL && c->manfid == 0x12,
		   "unknown: no name, raw ID 0x12");
	UNIT_CHECK(c->capacity_bytes == 3974103040ULL &&
		   c->size_bytes == 3972005888ULL, "unknown: both sizes");
	UNIT_CHECK(!c->has_logical_block_size && !c->has_scr,
		   "unknown: missing attributes not known");
	text = show("/dev/mmcblk0", "noname-4g", false, &ret);
	UNIT_CHECK(ret == 0 && has(text, "unknown (0x12)"),
		   "unknown text: raw ID shown");
	UNIT_CHECK(has(text, "logical block size:       unknown"),
		   "unknown text: missing attribute is unknown");
	UNIT_CHECK(has(text, "block device is 2097152 bytes (2 MiB) smaller"),
		   "unknown text: capacity difference");
	json = show("/dev/mmcblk0", "noname-4g", true, &ret);
	UNIT_CHECK(ret == 0 && json_shaped(json) &&
		   has(json, "\"manufacturer\": null") &&
		   has(json, "\"manfid\": \"0x000012\"") &&
		   has(json, "\"logical_block_bytes\": null") &&
		   has(json, "\"capacity_difference_bytes\": -2097152"),
		   "unknown json: nulls and raw ID");
	free(json);
	free(text);
	free(c);
}

static void test_other_transports(void)
{
	struct info_card *c = calloc(1, sizeof(*c));
	int ret;
	char *text;

	ret = read_card("/dev/sdb", "usb-reader", c);
	UNIT_CHECK(ret == 0 &&
		   c->transport == INFO_TRANSPORT_USB,
		   "usb: found through the device symlinks");
	UNIT_CHECK(!c->has_cid && c->manufacturer == NULL,
		   "usb: a reader hides the card registers");
	text = show("/dev/sdb", "usb-reader", false, &ret);
	UNIT_CHECK(ret == 0 && has(text, "vendor:                   Generic-\n")
		   && has(text, "model:                    SD/MMC\n"),
		   "usb text: vendor and model, blanks trimmed");
	UNIT_CHECK(has(text, "rotational:               yes"),
		   "usb text: rotational");
	free(text);
	ret = read_card("/dev/loop0", "loop", c);
	UNIT_CHECK(ret == 0 &&
		   c->transport == INFO_TRANSPORT_LOOP, "loop: transport");
	text = show("/dev/loop0", "loop", false, &ret);
	UNIT_CHECK(ret == 0 && has(text, "backing file:             "
				   "/var/tmp/card.img"), "loop: backing file");
	free(text);
	ret = read_card("sdz", "bare", c);
	UNIT_CHECK(ret == 0 &&
		   c->transport == INFO_TRANSPORT_UNKNOWN &&
		   c->size_bytes == 1048576, "bare: size only");
	text = show("sdz", "bare", false, &ret);
	UNIT_CHECK(ret == 0 && has(text, "rotational:               unknown"),
		   "bare: no crash, unknown shown");
	free(text);
	text = show("sdz", "bare", true, &ret);
	UNIT_CHECK(ret == 0 && json_shaped(text) &&
		   has(text, "\"transport\": null") &&
		   has(text, "\"name\": null"), "bare json: nulls");
	free(text);
	free(c);
}

static void test_file_and_sim(void)
{
	struct info_device sim = {
		.path = "sim:size=1G", .size_bytes = 1 << 30,
		.logical_block_bytes = 512, .simulated = true,
	};
	struct info_card *c = calloc(1, sizeof(*c));
	char dir[] = "/tmp/unit-info.XXXXXX", path[64], err[256];
	struct info_device file = { .path = path };
	char *text;
	int ret;
	FILE *f;

	ret = info_read_card(&sim, NULL, c, err, sizeof(err));
	UNIT_CHECK(ret == 0 &&
		   c->transport == INFO_TRANSPORT_SIMULATED &&
		   c->size_bytes == 1 << 30 && c->logical_block_size == 512,
		   "sim: caller's size and block size");
	ret = mkdtemp(dir) ? 0 : -errno;
	UNIT_CHECK(ret == 0, "file: temporary directory");
	snprintf(path, sizeof(path), "%s/a\"b\tc", dir);
	f = fopen(path, "w");
	fputs("12345", f);
	fclose(f);
	ret = info_read_card(&file, NULL, c, err, sizeof(err));
	UNIT_CHECK(ret == 0 &&
		   c->transport == INFO_TRANSPORT_FILE && c->size_bytes == 5,
		   "file: transport file, size from stat");
	text = show(path, NULL, true, &ret);
	UNIT_CHECK(ret == 0 && json_shaped(text) &&
		   has(text, "a\\\"b\\tc\"") &&
		   has(text, "\"transport\": \"file\""),
		   "file json: path escaped");
	free(text);
	unlink(path);
	rmdir(dir);
	free(c);
}

/* Every attribute the output shows is in the card once it is read. */
static void test_gathered(void)
{
	struct info_card *c = calloc(1, sizeof(*c));
	const struct info_emmc *e = &c->emmc;
	const struct info_queue *q = &c->queue;
	int ret;

	ret = read_card("/dev/mmcblk0", "samsung-emmc8g", c);
	UNIT_CHECK(ret == 0 && c->has_emmc && e->has_life_time &&
		   !strcmp(e->life_time, "0x01 0x02") &&
		   e->has_pre_eol_info && e->pre_eol_info == 1 &&
		   e->has_rpmb_size_mult && e->rpmb_size_mult == 0x20,
		   "emmc card: life time, pre-EOL and RPMB read");
	UNIT_CHECK(e->has_ext_csd_rev && !strcmp(e->ext_csd_rev, "0x7") &&
		   e->has_fwrev && !strcmp(e->fwrev, "0x0500000000000000") &&
		   e->has_enhanced_area_size &&
		   e->enhanced_area_size == 4294967274ULL,
		   "emmc card: revisions and the unset enhanced area as "
		   "the kernel prints it");
	UNIT_CHECK(e->has_life_codes && e->life_a == 1 && e->life_b == 2 &&
		   e->enhanced_unset && e->rpmb_bytes == 4194304,
		   "emmc card: EXT_CSD decoded: life codes 1 and 2, no "
		   "enhanced area, 4 MiB RPMB");
	ret = read_card("/dev/mmcblk0", "sandisk-su08g", c);
	UNIT_CHECK(ret == 0 && !c->has_emmc && q->has_discard_granularity &&
		   q->discard_granularity == 4194304 && q->has_rotational &&
		   !q->rotational && q->on_bus && !q->has_backing_file,
		   "sd card: queue read, no emmc fields");
	ret = read_card("/dev/sdb", "usb-reader", c);
	UNIT_CHECK(ret == 0 && q->on_bus && q->has_vendor &&
		   !strcmp(q->vendor, "Generic-") && q->has_model &&
		   !strcmp(q->model, "SD/MMC"), "usb: vendor and model read");
	ret = read_card("/dev/loop0", "loop", c);
	UNIT_CHECK(ret == 0 && q->has_backing_file &&
		   !strcmp(q->backing_file, "/var/tmp/card.img") && !q->on_bus,
		   "loop: backing file read, not on a bus");
	ret = read_card("sdz", "bare", c);
	UNIT_CHECK(ret == 0 && !q->has_physical_block_size &&
		   !q->has_rotational && !q->has_vendor && !c->has_emmc,
		   "bare: nothing but the size known");
	free(c);
}

/* The EXT_CSD decoder on attributes set by hand. */
static void test_ext_csd(void)
{
	struct info_emmc e = {
		.has_life_time = true, .life_time = "0x0b 0x0c",
		.has_enhanced_area_offset = true,
		.enhanced_area_offset = 1 << 20,
		.has_enhanced_area_size = true, .enhanced_area_size = 2048,
		.has_rpmb_size_mult = true, .rpmb_size_mult = 1,
	};

	info_decode_ext_csd(&e);
	UNIT_CHECK(e.has_life_codes && e.life_a == 11 && e.life_b == 12 &&
		   !e.enhanced_unset && e.enhanced_area_bytes == 2 << 20 &&
		   e.rpmb_bytes == 128 << 10,
		   "ext_csd: codes 11 and 12, a 2 MiB enhanced area, 128 KiB "
		   "RPMB");
	snprintf(e.life_time, sizeof(e.life_time), "0x01");
	e.enhanced_area_size = 0xffffffeaULL;
	info_decode_ext_csd(&e);
	UNIT_CHECK(!e.has_life_codes && e.life_a == 0 && e.enhanced_unset,
		   "ext_csd: one code is no life time; -EINVAL size is unset");
	e.has_enhanced_area_offset = false;
	info_decode_ext_csd(&e);
	UNIT_CHECK(!e.enhanced_unset,
		   "ext_csd: an area is unset only when both values say so");
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void remove_file(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	remove(path);
}

static char *print_card(const struct info_device *dev,
			const struct info_card *card, bool json, int *ret)
{
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = info_print(dev, card, json ? RENDER_JSON : RENDER_TEXT, f, err,
			 sizeof(err));
	fclose(f);
	return buf;
}

/* Files of the loop-device tree that make_loop_tree writes. */
static const char *const loop_files[] = {
	"queue/physical_block_size", "queue/rotational", "ro",
	"loop/backing_file", "size",
};

/* A recorded tree in a new directory root: block/loop7 on backing. */
static int make_loop_tree(char *root, const char *backing)
{
	static const char *const dirs[] = {
		"block", "block/loop7", "block/loop7/queue", "block/loop7/loop",
	};
	char path[160];

	if (!mkdtemp(root))
		return -errno;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		mkdir(path, 0700);
	}
	snprintf(path, sizeof(path), "%s/block/loop7", root);
	put_file(path, "size", "2048\n");
	put_file(path, "ro", "1\n");
	put_file(path, "queue/physical_block_size", "4096\n");
	put_file(path, "queue/rotational", "0\n");
	put_file(path, "loop/backing_file", backing);
	return 0;
}

static void remove_loop_tree(const char *root)
{
	static const char *const dirs[] = {
		"block/loop7/queue", "block/loop7/loop", "block/loop7", "block",
	};
	char path[160];

	snprintf(path, sizeof(path), "%s/block/loop7", root);
	for (size_t i = 0; i < sizeof(loop_files) / sizeof(loop_files[0]); i++)
		remove_file(path, loop_files[i]);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		rmdir(path);
	}
	rmdir(root);
}

/*
 * Gather, then render: a tree read into a card and then emptied prints as
 * it was read, so printing reads nothing of sysfs.
 */
static void test_read_once(void)
{
	char root[] = "/tmp/unit-info.XXXXXX", disk[160];
	struct info_device dev = { .path = "/dev/loop7" };
	struct info_card *c = calloc(1, sizeof(*c));
	char err[256], *before = NULL, *after = NULL;
	int ret = make_loop_tree(root, "/srv/disk.img\n"), ret2;

	if (ret == 0)
		ret = info_read_card(&dev, root, c, err, sizeof(err));
	if (ret == 0)
		before = print_card(&dev, c, false, &ret);
	snprintf(disk, sizeof(disk), "%s/block/loop7", root);
	for (size_t i = 0; i < sizeof(loop_files) / sizeof(loop_files[0]); i++)
		remove_file(disk, loop_files[i]);
	after = print_card(&dev, c, false, &ret2);
	UNIT_CHECK(ret == 0 && ret2 == 0 && before && after &&
		   !strcmp(before, after) &&
		   has(after, "backing file:             /srv/disk.img\n") &&
		   has(after, "physical block size:      4096\n") &&
		   has(after, "read-only:                yes\n"),
		   "a card prints what was read, after the tree is gone");
	free(before);
	free(after);
	remove_loop_tree(root);
	free(c);
}

/* A loop device's backing file may be as long as a path: kept whole. */
static void test_long_backing_file(void)
{
	char root[] = "/tmp/unit-info.XXXXXX", backing[400], err[256];
	struct info_device dev = { .path = "/dev/loop7" };
	struct info_card *c = calloc(1, sizeof(*c));
	int ret;

	memset(backing, 'd', sizeof(backing));
	memcpy(backing, "/srv/", 5);
	snprintf(backing + 300, sizeof(backing) - 300, ".img\n");
	ret = make_loop_tree(root, backing);
	if (ret == 0)
		ret = info_read_card(&dev, root, c, err, sizeof(err));
	UNIT_CHECK(ret == 0 && c->queue.has_backing_file &&
		   strlen(c->queue.backing_file) == 304 &&
		   !strcmp(c->queue.backing_file + 300, ".img"),
		   "loop: a 304-byte backing file path is not cut short");
	remove_loop_tree(root);
	free(c);
}

static void test_bad_hex(void)
{
	static const struct {
		const char *kind, *hex, *message;
	} cases[] = {
		{ "cid", "035344535530384780716a01f200bb0",
		  "cid: expected 32 hex digits, got 31" },
		{ "cid", "035344535530384780716a01f200bb000",
		  "cid: expected 32 hex digits, got 33" },
		{ "cid", "", "cid: expected 32 hex digits, got 0" },
		{ "csd", "400e00325b5900003b377f800a40400g",
		  "csd: 'g' is not a hex digit" },
		{ "scr", "023580030000000",
		  "scr: expected 16 hex digits, got 15" },
		{ "ssr", "00", "ssr: expected 128 hex digits, got 2" },
		{ "scr", "mmc:0235800300000000",
		  "scr: eMMC has no scr register" },
		{ "cid", "emmc:035344535530384780716a01f200bb00",
		  "cid: unknown layout 'emmc' (use sd: or mmc:)" },
		{ "ext_csd", "00", "ext_csd: unknown register "
		  "(cid, csd, scr or ssr)" },
		{ "csd", "0x0x400e00325b5900003b377f800a4040",
		  "csd: 'x' is not a hex digit" },
	};
	char err[256];
	int ret;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out;

		err[0] = '\0';
		out = decode(cases[i].kind, cases[i].hex, false, &ret, err,
			     sizeof(err));
		UNIT_CHECK(ret == -EINVAL, "bad hex %zu: -EINVAL", i);
		UNIT_STREQ(err, cases[i].message, "bad hex %zu: message", i);
		UNIT_CHECK(out && !*out, "bad hex %zu: prints nothing", i);
		free(out);
	}
}

static void test_decode(void)
{
	char err[256], *out;
	int ret;

	out = decode("cid", "0x03534453 55303847 80716a01 f200bb00\n", false,
		     &ret, err, sizeof(err));
	UNIT_CHECK(ret == 0 && has(out, "SanDisk (0x03)") &&
		   has(out, "0x716a01f2") && has(out, "2011-11"),
		   "decode cid: 0x prefix and blanks accepted");
	free(out);
	out = decode("cid", "sd:035344535530384780716a01f200bb00", true,
		     &ret, err, sizeof(err));
	UNIT_CHECK(ret == 0 && json_shaped(out) &&
		   has(out, "\"register\": \"cid\"") &&
		   has(out, "\"name\": \"SU08G\"") &&
		   has(out, "\"serial\": \"0x716a01f2\""),
		   "decode cid: json");
	free(out);
	out = decode("csd", "400E00325B5900003B377F800A404000", true, &ret,
		     err, sizeof(err));
	UNIT_CHECK(ret == 0 && json_shaped(out) &&
		   has(out, "\"capacity_bytes\": 7948206080"),
		   "decode csd: upper case, capacity");
	free(out);
	out = decode("csd", "mmc:d02701328f5903ffffffffef8a400000", false,
		     &ret, err, sizeof(err));
	UNIT_CHECK(ret == 0 && has(out, "in EXT_CSD (over 2 GB)"),
		   "decode csd: mmc layout");
	free(out);
	out = decode("scr", "0235800300000000", false, &ret, err,
		     sizeof(err));
	UNIT_CHECK(ret == 0 && has(out, "3.0x") && has(out, "CMD20 CMD23"),
		   "decode scr: text");
	free(out);
	out = decode("ssr", "80000000020000000400d00001043d1e"
		     "00180000000205000200000000000000"
		     "00000000000000000000000000000000"
		     "00000000000000000000000000000000", true, &ret, err,
		     sizeof(err));
	UNIT_CHECK(ret == 0 && json_shaped(out) &&
		   has(out, "\"au_size_bytes\": 25165824") &&
		   has(out, "\"video_class\": 30"), "decode ssr: json");
	free(out);
}

static void test_tables(void)
{
	UNIT_STREQ(info_manufacturer(0x03, false), "SanDisk", "table: SD 3");
	UNIT_STREQ(info_manufacturer(0x45, true), "SanDisk", "table: MMC 45");
	UNIT_CHECK(info_manufacturer(0x15, false) == NULL,
		   "table: namespaces kept apart");
	for (int t = 0; t < INFO_TRANSPORT_COUNT; t++)
		UNIT_CHECK(info_transport_label(t) != NULL,
			   "table: transport %d has a label", t);
	UNIT_CHECK(info_transport_name(INFO_TRANSPORT_UNKNOWN) == NULL,
		   "table: unknown transport has no name");
}

int main(void)
{
	if (access("sysfs/sandisk-su08g", F_OK) != 0)
		trees = "tests/sysfs";
	test_seed();
	test_seed_output();
	test_partition();
	test_sdsc();
	test_sdhc();
	test_sdxc();
	test_emmc();
	test_unknown();
	test_other_transports();
	test_gathered();
	test_ext_csd();
	test_read_once();
	test_long_backing_file();
	test_file_and_sim();
	test_bad_hex();
	test_decode();
	test_tables();
	return UNIT_DONE();
}
