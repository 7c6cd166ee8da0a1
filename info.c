/*
 * info: device identity from sysfs, and the SD/MMC registers decoded.
 * Knows sysfs layouts, register bit positions and manufacturer IDs; it
 * neither opens the device for I/O nor judges whether a card keeps the
 * promises its registers make.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "info.h"

#define KiB 1024ULL

/* ---- tables ---- */

static const struct {
	const char *name;
	const char *label;
} transports[] = {
	[INFO_TRANSPORT_UNKNOWN] = { NULL, "unknown" },
	[INFO_TRANSPORT_SD] = { "sd", "SD card (MMC host)" },
	[INFO_TRANSPORT_EMMC] = { "emmc", "eMMC/MMC (MMC host)" },
	[INFO_TRANSPORT_MMC] = { "mmc", "MMC bus" },
	[INFO_TRANSPORT_USB] = { "usb", "USB" },
	[INFO_TRANSPORT_NVME] = { "nvme", "NVMe" },
	[INFO_TRANSPORT_ATA] = { "ata", "ATA" },
	[INFO_TRANSPORT_SCSI] = { "scsi", "SCSI" },
	[INFO_TRANSPORT_VIRTIO] = { "virtio", "virtio" },
	[INFO_TRANSPORT_LOOP] = { "loop", "loop device" },
	[INFO_TRANSPORT_DM] = { "dm", "device mapper" },
	[INFO_TRANSPORT_MD] = { "md", "software RAID (md)" },
	[INFO_TRANSPORT_FILE] = { "file", "regular file" },
	[INFO_TRANSPORT_SIMULATED] = { "simulated", "simulated card" },
};
_Static_assert(sizeof(transports) / sizeof(transports[0]) ==
	       INFO_TRANSPORT_COUNT, "one row per transport");

struct maker {
	uint8_t id;
	const char *name;
};

/* SD IDs (assigned by SD-3C, unpublished): the well-corroborated ones. */
static const struct maker sd_makers[] = {
	{ 0x01, "Panasonic" },
	{ 0x02, "Toshiba/Kioxia" },
	{ 0x03, "SanDisk" },
	{ 0x09, "ATP" },
	{ 0x1b, "Samsung" },
	{ 0x1c, "Transcend" },
	{ 0x1d, "ADATA" },
	{ 0x27, "Phison" },
	{ 0x28, "Lexar" },
	{ 0x31, "Silicon Power" },
	{ 0x41, "Kingston" },
	{ 0x5d, "Swissbit" },
	{ 0x74, "Transcend" },
	{ 0x76, "Patriot" },
	{ 0x82, "Sony" },
	{ 0x9c, "Angelbird/Hoodman" },
	{ 0x9f, "Kingston" },
};

/* eMMC IDs are JEDEC's, a separate namespace. */
static const struct maker mmc_makers[] = {
	{ 0x02, "SanDisk" },
	{ 0x11, "Toshiba/Kioxia" },
	{ 0x13, "Micron" },
	{ 0x15, "Samsung" },
	{ 0x45, "SanDisk" },
	{ 0x70, "Kingston" },
	{ 0x90, "SK hynix" },
	{ 0xfe, "Micron (Numonyx)" },
};

const char *info_transport_name(enum info_transport transport)
{
	if ((unsigned)transport >= INFO_TRANSPORT_COUNT)
		return NULL;
	return transports[transport].name;
}

const char *info_transport_label(enum info_transport transport)
{
	if ((unsigned)transport >= INFO_TRANSPORT_COUNT)
		return "unknown";
	return transports[transport].label;
}

const char *info_manufacturer(uint32_t manfid, bool mmc)
{
	const struct maker *table = mmc ? mmc_makers : sd_makers;
	size_t n = mmc ? sizeof(mmc_makers) / sizeof(mmc_makers[0])
		       : sizeof(sd_makers) / sizeof(sd_makers[0]);

	for (size_t i = 0; i < n; i++)
		if (table[i].id == manfid)
			return table[i].name;
	return NULL;
}

/* AU_SIZE and UHS_AU_SIZE codes, in KiB; 0 = not defined. */
static const uint32_t au_kib[16] = {
	0, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
	12288, 16384, 24576, 32768, 65536,
};

/* TAAC and TRAN_SPEED mantissas, times ten; code 0 is reserved. */
static const unsigned mantissa10[16] = {
	0, 10, 12, 13, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 70, 80,
};

/* ---- errors and small helpers ---- */

__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static bool path_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

/* Copy src into dst of len bytes, cut short if need be. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* "7.40 GiB", "4 MiB", "512 bytes". */
static const char *human_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = {
		"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	uint64_t div = 1;
	unsigned i = 0;

	while (i < 6 && bytes / div >= 1024) {
		div *= 1024;
		i++;
	}
	if (bytes % div == 0)
		snprintf(buf, len, "%" PRIu64 " %s", bytes / div, unit[i]);
	else
		snprintf(buf, len, "%.2f %s", (double)bytes / (double)div,
			 unit[i]);
	return buf;
}

/* "1.5 ms", "100 ns": a time given in picoseconds. */
static const char *human_time_ps(char *buf, size_t len, uint64_t ps)
{
	if (ps >= 1000000000ULL)
		snprintf(buf, len, "%g ms", (double)ps / 1e9);
	else if (ps >= 1000000ULL)
		snprintf(buf, len, "%g µs", (double)ps / 1e6);
	else
		snprintf(buf, len, "%g ns", (double)ps / 1e3);
	return buf;
}

/* ---- registers as hex ---- */

struct reg {
	unsigned nbits;
	uint8_t byte[64];	/* byte[0] holds the most significant bits */
};

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int reg_parse(const char *what, const char *hex, unsigned nbits,
		     struct reg *reg, char *err, size_t errlen)
{
	size_t want = nbits / 4, got = 0;
	const char *p = hex;

	memset(reg, 0, sizeof(*reg));
	reg->nbits = nbits;
	while (isspace((unsigned char)*p))
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; *p; p++) {
		int v = hex_digit((unsigned char)*p);

		if (isspace((unsigned char)*p))
			continue;
		if (v < 0) {
			if (isprint((unsigned char)*p))
				set_err(err, errlen,
					"%s: '%c' is not a hex digit",
					what, *p);
			else
				set_err(err, errlen,
					"%s: byte 0x%02x is not a hex digit",
					what, (unsigned char)*p);
			return -EINVAL;
		}
		if (got < want)
			reg->byte[got / 2] |= (uint8_t)(got % 2 ? v : v << 4);
		got++;
	}
	if (got != want) {
		set_err(err, errlen, "%s: expected %zu hex digits, got %zu",
			what, want, got);
		return -EINVAL;
	}
	return 0;
}

/* Bits [hi:lo] of the register, bit nbits-1 being the first one printed. */
static uint64_t field(const struct reg *reg, unsigned hi, unsigned lo)
{
	unsigned first = reg->nbits - 1 - hi;
	unsigned last = reg->nbits - 1 - lo;
	uint64_t v = 0;

	for (unsigned pos = first; pos <= last; pos++) {
		unsigned bit = (reg->byte[pos >> 3] >> (7 - (pos & 7))) & 1u;

		v = (v << 1) | bit;
	}
	return v;
}

static bool flag(const struct reg *reg, unsigned bit)
{
	return field(reg, bit, bit) != 0;
}

/* Characters of a name field, unprintable ones as '?'. */
static void reg_chars(const struct reg *reg, unsigned hi, unsigned count,
		      char *out)
{
	for (unsigned i = 0; i < count; i++) {
		unsigned c = (unsigned)field(reg, hi - 8 * i, hi - 8 * i - 7);

		out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[count] = '\0';
}

/* ---- decoders ---- */

static void cid_sd(const struct reg *r, struct info_cid *cid)
{
	cid->manfid = (uint32_t)field(r, 127, 120);
	cid->oemid = (uint16_t)field(r, 119, 104);
	reg_chars(r, 103, 5, cid->name);
	cid->prv = (uint8_t)field(r, 63, 56);
	cid->serial = (uint32_t)field(r, 55, 24);
	cid->year = 2000 + (unsigned)field(r, 19, 12);
	cid->month = (unsigned)field(r, 11, 8);
}

/*
 * eMMC: the year field counts from 1997 in 4 bits; devices of EXT_CSD
 * revision 5 and later (eMMC 4.41+, nearly all in use) count 2013-2025
 * for codes 0-12.  Without EXT_CSD at hand, that reading is assumed.
 */
static void cid_mmc(const struct reg *r, struct info_cid *cid)
{
	cid->manfid = (uint32_t)field(r, 127, 120);
	cid->oemid = (uint16_t)field(r, 119, 104);
	cid->cbx = (uint8_t)field(r, 113, 112);
	reg_chars(r, 103, 6, cid->name);
	cid->prv = (uint8_t)field(r, 55, 48);
	cid->serial = (uint32_t)field(r, 47, 16);
	cid->month = (unsigned)field(r, 15, 12);
	cid->year = 1997 + (unsigned)field(r, 11, 8);
	if (cid->year < 2010)
		cid->year += 16;
}

int info_decode_cid(const char *hex, bool mmc, struct info_cid *cid,
		    char *err, size_t errlen)
{
	struct reg r;
	int ret = reg_parse("cid", hex, 128, &r, err, errlen);

	if (ret)
		return ret;
	memset(cid, 0, sizeof(*cid));
	cid->mmc = mmc;
	if (mmc)
		cid_mmc(&r, cid);
	else
		cid_sd(&r, cid);
	return 0;
}

/* Fields at the same place in SD and eMMC CSDs. */
static void csd_common(const struct reg *r, struct info_csd *csd)
{
	unsigned t_unit, s_unit;

	csd->structure = (unsigned)field(r, 127, 126);
	csd->taac = (unsigned)field(r, 119, 112);
	csd->nsac = (unsigned)field(r, 111, 104);
	csd->tran_speed = (unsigned)field(r, 103, 96);
	t_unit = csd->taac & 7;
	csd->taac_ps = mantissa10[(csd->taac >> 3) & 15] * 100ULL;
	while (t_unit--)
		csd->taac_ps *= 10;
	s_unit = csd->tran_speed & 7;
	csd->tran_kbit = 0;
	if (s_unit < 4) {
		uint32_t kbit = 10;	/* 100 kbit/s, over the mantissa's 10 */

		while (s_unit--)
			kbit *= 10;
		csd->tran_kbit = mantissa10[(csd->tran_speed >> 3) & 15] *
				 kbit;
	}
	csd->ccc = (unsigned)field(r, 95, 84);
	csd->read_bl_len = (unsigned)field(r, 83, 80);
	csd->read_bl_partial = flag(r, 79);
	csd->write_blk_misalign = flag(r, 78);
	csd->read_blk_misalign = flag(r, 77);
	csd->dsr_imp = flag(r, 76);
	csd->wp_grp_enable = flag(r, 31);
	csd->r2w_factor = (unsigned)field(r, 28, 26);
	csd->write_bl_len = (unsigned)field(r, 25, 22);
	csd->write_bl_partial = flag(r, 21);
	csd->file_format_grp = flag(r, 15);
	csd->copy = flag(r, 14);
	csd->perm_write_protect = flag(r, 13);
	csd->tmp_write_protect = flag(r, 12);
	csd->file_format = (unsigned)field(r, 11, 10);
}

/* Capacity of the byte-addressed layout: (C_SIZE+1) << (MULT+2+BL_LEN). */
static uint64_t csd_v1_bytes(const struct info_csd *csd)
{
	return ((uint64_t)csd->c_size + 1)
	       << (csd->c_size_mult + 2 + csd->read_bl_len);
}

static void csd_sd(const struct reg *r, struct info_csd *csd)
{
	csd->erase_blk_en = flag(r, 46);
	csd->sector_size = (unsigned)field(r, 45, 39);
	csd->wp_grp_size = (unsigned)field(r, 38, 32);
	csd->capacity_known = true;
	if (csd->structure == 0) {
		csd->c_size = (uint32_t)field(r, 73, 62);
		csd->c_size_mult = (unsigned)field(r, 49, 47);
		csd->capacity_bytes = csd_v1_bytes(csd);
	} else if (csd->structure == 1) {
		csd->c_size = (uint32_t)field(r, 69, 48);
		csd->capacity_bytes = ((uint64_t)csd->c_size + 1) * 512 * KiB;
	} else if (csd->structure == 2) {
		csd->c_size = (uint32_t)field(r, 75, 48);
		csd->capacity_bytes = ((uint64_t)csd->c_size + 1) * 512 * KiB;
	} else {
		csd->capacity_known = false;
	}
	csd->erase_bytes = ((uint64_t)csd->sector_size + 1)
			   << csd->write_bl_len;
}

static void csd_mmc(const struct reg *r, struct info_csd *csd)
{
	csd->spec_vers = (unsigned)field(r, 125, 122);
	csd->c_size = (uint32_t)field(r, 73, 62);
	csd->c_size_mult = (unsigned)field(r, 49, 47);
	csd->erase_grp_size = (unsigned)field(r, 46, 42);
	csd->erase_grp_mult = (unsigned)field(r, 41, 37);
	csd->wp_grp_size = (unsigned)field(r, 36, 32);
	/* C_SIZE all ones: over 2 GB, the size is EXT_CSD SEC_COUNT */
	csd->capacity_known = csd->c_size != 0xfff;
	if (csd->capacity_known)
		csd->capacity_bytes = csd_v1_bytes(csd);
	csd->erase_bytes = ((uint64_t)csd->erase_grp_size + 1) *
			   (csd->erase_grp_mult + 1) << csd->write_bl_len;
}

int info_decode_csd(const char *hex, bool mmc, struct info_csd *csd,
		    char *err, size_t errlen)
{
	struct reg r;
	int ret = reg_parse("csd", hex, 128, &r, err, errlen);

	if (ret)
		return ret;
	memset(csd, 0, sizeof(*csd));
	csd->mmc = mmc;
	csd_common(&r, csd);
	if (mmc)
		csd_mmc(&r, csd);
	else
		csd_sd(&r, csd);
	return 0;
}

static void scr_version(struct info_scr *scr)
{
	const char *v = "reserved";
	char buf[8];

	if (scr->sd_spec == 0)
		v = "1.0x";
	else if (scr->sd_spec == 1)
		v = "1.10";
	else if (scr->sd_spec == 2 && !scr->spec3)
		v = "2.00";
	else if (scr->sd_spec == 2 && scr->specx) {
		snprintf(buf, sizeof(buf), "%u.xx", scr->specx + 4);
		v = buf;
	} else if (scr->sd_spec == 2 && scr->spec4)
		v = "4.xx";
	else if (scr->sd_spec == 2)
		v = "3.0x";
	copy_str(scr->version, sizeof(scr->version), v);
}

int info_decode_scr(const char *hex, struct info_scr *scr,
		    char *err, size_t errlen)
{
	struct reg r;
	int ret = reg_parse("scr", hex, 64, &r, err, errlen);

	if (ret)
		return ret;
	memset(scr, 0, sizeof(*scr));
	scr->structure = (unsigned)field(&r, 63, 60);
	scr->sd_spec = (unsigned)field(&r, 59, 56);
	scr->erased_ones = flag(&r, 55);
	scr->security = (unsigned)field(&r, 54, 52);
	scr->bus_widths = (unsigned)field(&r, 51, 48);
	scr->spec3 = flag(&r, 47);
	scr->ex_security = (unsigned)field(&r, 46, 43);
	scr->spec4 = flag(&r, 42);
	scr->specx = (unsigned)field(&r, 41, 38);
	scr->cmd_support = (unsigned)field(&r, 35, 32);
	scr_version(scr);
	return 0;
}

static unsigned speed_class_of(unsigned code)
{
	static const unsigned classes[] = { 0, 2, 4, 6, 10 };

	return code < 5 ? classes[code] : 0;
}

int info_decode_ssr(const char *hex, struct info_ssr *ssr,
		    char *err, size_t errlen)
{
	struct reg r;
	int ret = reg_parse("ssr", hex, 512, &r, err, errlen);

	if (ret)
		return ret;
	memset(ssr, 0, sizeof(*ssr));
	ssr->bus_width = (unsigned)field(&r, 511, 510);
	ssr->secured = flag(&r, 509);
	ssr->card_type = (unsigned)field(&r, 495, 480);
	ssr->protected_area = (uint32_t)field(&r, 479, 448);
	ssr->speed_class_code = (unsigned)field(&r, 447, 440);
	ssr->speed_class = speed_class_of(ssr->speed_class_code);
	ssr->performance_move = (unsigned)field(&r, 439, 432);
	ssr->au_code = (unsigned)field(&r, 431, 428);
	ssr->au_bytes = au_kib[ssr->au_code] * KiB;
	ssr->erase_size = (unsigned)field(&r, 423, 408);
	ssr->erase_timeout = (unsigned)field(&r, 407, 402);
	ssr->erase_offset = (unsigned)field(&r, 401, 400);
	ssr->uhs_grade = (unsigned)field(&r, 399, 396);
	ssr->uhs_au_code = (unsigned)field(&r, 395, 392);
	ssr->uhs_au_bytes = au_kib[ssr->uhs_au_code] * KiB;
	ssr->video_class = (unsigned)field(&r, 391, 384);
	ssr->vsc_au_size = (unsigned)field(&r, 377, 368);
	ssr->app_class = (unsigned)field(&r, 339, 336);
	ssr->performance_enhance = (unsigned)field(&r, 335, 328);
	ssr->discard = flag(&r, 313);
	ssr->fule = flag(&r, 312);
	return 0;
}

/* ---- sysfs ---- */

/* Read dir/name, trailing blanks removed.  False if missing or empty. */
static bool attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[INFO_PATH_BYTES];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (!path_fmt(path, sizeof(path), "%s/%s", dir, name))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return n > 0;
}

static bool parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!isxdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno == 0 && end != s && *end == '\0';
}

static bool attr_dec(const char *dir, const char *name, uint64_t *v)
{
	char buf[64];

	return attr(dir, name, buf, sizeof(buf)) && parse_u64(buf, 10, v);
}

/* A hex attribute such as "0x000003". */
static bool attr_hex(const char *dir, const char *name, uint64_t *v)
{
	char buf[64];
	const char *p = buf;

	if (!attr(dir, name, buf, sizeof(buf)))
		return false;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	return parse_u64(p, 16, v);
}

static bool exists(const char *dir, const char *name)
{
	char path[INFO_PATH_BYTES];

	return path_fmt(path, sizeof(path), "%s/%s", dir, name) &&
	       access(path, F_OK) == 0;
}

static bool is_plain_name(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") &&
	       !strchr(name, '/');
}

/* dir/entry/name is a partition called name: the recorded-tree layout. */
static bool find_partition(const char *root, const char *name, char *out)
{
	char blockdir[INFO_PATH_BYTES], cand[INFO_PATH_BYTES];
	struct dirent *ent;
	bool found = false;
	DIR *d;

	if (!path_fmt(blockdir, sizeof(blockdir), "%s/block", root))
		return false;
	d = opendir(blockdir);
	if (!d)
		return false;
	while (!found && (ent = readdir(d))) {
		if (ent->d_name[0] == '.')
			continue;
		found = path_fmt(cand, sizeof(cand), "%s/%s/%s", blockdir,
				 ent->d_name, name) &&
			exists(cand, "partition") &&
			realpath(cand, out) != NULL;
	}
	closedir(d);
	return found;
}

static int find_by_name(const char *root, const char *path, char *out,
			char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char cand[INFO_PATH_BYTES];

	if (!is_plain_name(name)) {
		set_err(err, errlen, "%s: no device name in the path", path);
		return -EINVAL;
	}
	if (path_fmt(cand, sizeof(cand), "%s/class/block/%s", root, name) &&
	    realpath(cand, out))
		return 0;
	if (path_fmt(cand, sizeof(cand), "%s/block/%s", root, name) &&
	    realpath(cand, out))
		return 0;
	if (find_partition(root, name, out))
		return 0;
	set_err(err, errlen, "%s: no such device, and no block device %s in %s",
		path, name, root);
	return -ENOENT;
}

static int find_by_devnum(const char *root, const char *path, dev_t rdev,
			  char *out, char *err, size_t errlen)
{
	char cand[INFO_PATH_BYTES];

	if (path_fmt(cand, sizeof(cand), "%s/dev/block/%u:%u", root,
		     major(rdev), minor(rdev)) && realpath(cand, out))
		return 0;
	return find_by_name(root, path, out, err, errlen);
}

static void last_component(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	copy_str(out, len, slash ? slash + 1 : path);
}

/* A partition's directory sits inside its disk's: go one level up. */
static void resolve_partition(struct info_card *card, const char *dir)
{
	uint64_t v;
	char *slash;

	card->is_partition = true;
	last_component(dir, card->partition, sizeof(card->partition));
	if (attr_dec(dir, "partition", &v))
		card->partition_number = (unsigned)v;
	if (attr_dec(dir, "start", &card->partition_start_bytes) &&
	    attr_dec(dir, "size", &card->partition_size_bytes)) {
		card->has_partition_range = true;
		card->partition_start_bytes *= 512;
		card->partition_size_bytes *= 512;
	}
	copy_str(card->sysfs_dir, sizeof(card->sysfs_dir), dir);
	slash = strrchr(card->sysfs_dir, '/');
	if (slash && slash != card->sysfs_dir)
		*slash = '\0';
}

/* ---- transport ---- */

enum {
	SEEN_USB = 1 << 0,
	SEEN_NVME = 1 << 1,
	SEEN_MMC = 1 << 2,
	SEEN_ATA = 1 << 3,
	SEEN_SCSI = 1 << 4,
	SEEN_VIRTIO = 1 << 5,
};

static unsigned subsystem_bit(const char *dir)
{
	char link[INFO_PATH_BYTES], path[INFO_PATH_BYTES];
	const char *name;
	ssize_t n;

	if (exists(dir, "ata_port"))
		return SEEN_ATA;
	if (!path_fmt(path, sizeof(path), "%s/subsystem", dir))
		return 0;
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	name = strrchr(link, '/');
	name = name ? name + 1 : link;
	if (!strcmp(name, "usb"))
		return SEEN_USB;
	if (!strcmp(name, "nvme"))
		return SEEN_NVME;
	if (!strcmp(name, "mmc"))
		return SEEN_MMC;
	if (!strcmp(name, "scsi"))
		return SEEN_SCSI;
	if (!strcmp(name, "virtio"))
		return SEEN_VIRTIO;
	return 0;
}

/* The subsystems of every device above the disk, up to the sysfs root. */
static unsigned ancestors(const char *disk_dir, const char *root)
{
	char path[INFO_PATH_BYTES], top[INFO_PATH_BYTES];
	size_t toplen;
	unsigned seen = 0;
	char *slash;

	if (!realpath(root, top))
		return 0;
	toplen = strlen(top);
	copy_str(path, sizeof(path), disk_dir);
	while (strlen(path) > toplen && !strncmp(path, top, toplen)) {
		seen |= subsystem_bit(path);
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			break;
		*slash = '\0';
	}
	return seen;
}

static enum info_transport by_ancestors(unsigned seen)
{
	if (seen & SEEN_USB)
		return INFO_TRANSPORT_USB;
	if (seen & SEEN_NVME)
		return INFO_TRANSPORT_NVME;
	if (seen & SEEN_MMC)
		return INFO_TRANSPORT_MMC;
	if (seen & SEEN_ATA)
		return INFO_TRANSPORT_ATA;
	if (seen & SEEN_SCSI)
		return INFO_TRANSPORT_SCSI;
	if (seen & SEEN_VIRTIO)
		return INFO_TRANSPORT_VIRTIO;
	return INFO_TRANSPORT_UNKNOWN;
}

/* Kernel naming conventions, for trees that lack the device links. */
static enum info_transport by_disk_name(const char *disk)
{
	static const struct {
		const char *prefix;
		enum info_transport transport;
	} names[] = {
		{ "nvme", INFO_TRANSPORT_NVME },
		{ "vd", INFO_TRANSPORT_VIRTIO },
		{ "loop", INFO_TRANSPORT_LOOP },
		{ "mmcblk", INFO_TRANSPORT_MMC },
		{ "dm-", INFO_TRANSPORT_DM },
		{ "md", INFO_TRANSPORT_MD },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(disk, names[i].prefix, strlen(names[i].prefix)))
			return names[i].transport;
	return INFO_TRANSPORT_UNKNOWN;
}

static enum info_transport find_transport(const struct info_card *card,
					  const char *root)
{
	const char *dir = card->sysfs_dir;
	enum info_transport t;

	if (!strcmp(card->card_type, "SD") ||
	    !strcmp(card->card_type, "SDcombo"))
		return INFO_TRANSPORT_SD;
	if (!strcmp(card->card_type, "MMC"))
		return INFO_TRANSPORT_EMMC;
	if (exists(dir, "loop"))
		return INFO_TRANSPORT_LOOP;
	if (exists(dir, "dm"))
		return INFO_TRANSPORT_DM;
	if (exists(dir, "md"))
		return INFO_TRANSPORT_MD;
	t = by_ancestors(ancestors(dir, root));
	if (t == INFO_TRANSPORT_UNKNOWN)
		t = by_disk_name(card->disk);
	return t;
}

/* ---- card attributes ---- */

/* The identity from the separate attributes, when there is no cid file. */
static bool cid_from_attrs(const char *dev, bool mmc, struct info_cid *cid)
{
	uint64_t v;
	char buf[64];
	bool any = false;

	memset(cid, 0, sizeof(*cid));
	cid->mmc = mmc;
	if (attr_hex(dev, "manfid", &v)) {
		cid->manfid = (uint32_t)v;
		any = true;
	}
	if (attr_hex(dev, "oemid", &v))
		cid->oemid = (uint16_t)v;
	if (attr(dev, "name", buf, sizeof(buf)))
		copy_str(cid->name, sizeof(cid->name), buf);
	if (attr_hex(dev, "serial", &v))
		cid->serial = (uint32_t)v;
	return any;
}

/* "MM/YYYY" as the kernel prints it; for eMMC it knows the EXT_CSD rule. */
static bool parse_date(const char *s, unsigned *year, unsigned *month)
{
	unsigned m, y;
	int end = 0;

	if (sscanf(s, "%2u/%4u%n", &m, &y, &end) != 2 || s[end])
		return false;
	*year = y;
	*month = m;
	return true;
}

static void read_identity(struct info_card *card, const char *dev)
{
	bool mmc = !strcmp(card->card_type, "MMC");
	char buf[160], err[8];

	if (attr(dev, "cid", buf, sizeof(buf)) &&
	    info_decode_cid(buf, mmc, &card->cid, err, sizeof(err)) == 0)
		card->has_cid = true;
	else if (cid_from_attrs(dev, mmc, &card->cid))
		card->has_cid = true;
	if (!card->has_cid)
		return;
	if (attr(dev, "date", buf, sizeof(buf)))
		parse_date(buf, &card->cid.year, &card->cid.month);
	card->manufacturer = info_manufacturer(card->cid.manfid, mmc);
	card->has_manfid = card->has_oemid = card->has_serial = true;
	card->manfid = card->cid.manfid;
	card->oemid = card->cid.oemid;
	card->serial = card->cid.serial;
	card->has_name = card->cid.name[0] != '\0';
	copy_str(card->name, sizeof(card->name), card->cid.name);
	card->has_date = card->cid.year != 0;
	card->year = card->cid.year;
	card->month = card->cid.month;
}

static void read_registers(struct info_card *card, const char *dev)
{
	bool mmc = !strcmp(card->card_type, "MMC");
	char buf[160], err[8];

	if (attr(dev, "csd", buf, sizeof(buf)) &&
	    info_decode_csd(buf, mmc, &card->csd, err, sizeof(err)) == 0) {
		card->has_csd = true;
		card->has_capacity = card->csd.capacity_known;
		card->capacity_bytes = card->csd.capacity_bytes;
	}
	if (attr(dev, "scr", buf, sizeof(buf)) &&
	    info_decode_scr(buf, &card->scr, err, sizeof(err)) == 0)
		card->has_scr = true;
	if (attr(dev, "ssr", buf, sizeof(buf)) &&
	    info_decode_ssr(buf, &card->ssr, err, sizeof(err)) == 0) {
		card->has_ssr = card->has_speed = true;
		card->speed_class = card->ssr.speed_class;
		card->uhs_grade = card->ssr.uhs_grade;
		card->video_class = card->ssr.video_class;
		card->app_class = card->ssr.app_class;
		card->au_size_bytes = card->ssr.au_bytes;
	}
	card->has_erase_size = attr_dec(dev, "erase_size", &card->erase_size);
	card->has_preferred_erase_size =
		attr_dec(dev, "preferred_erase_size",
			 &card->preferred_erase_size);
}

static void read_disk(struct info_card *card, const char *root)
{
	char dev[INFO_PATH_BYTES];
	uint64_t v;

	last_component(card->sysfs_dir, card->disk, sizeof(card->disk));
	if (attr_dec(card->sysfs_dir, "size", &v)) {
		card->has_size = true;
		card->size_bytes = v * 512;
	}
	if (attr_dec(card->sysfs_dir, "queue/logical_block_size", &v)) {
		card->has_logical_block_size = true;
		card->logical_block_size = (uint32_t)v;
	}
	attr(card->sysfs_dir, "device/type", card->card_type,
	     sizeof(card->card_type));
	card->transport = find_transport(card, root);
	if (card->transport != INFO_TRANSPORT_SD &&
	    card->transport != INFO_TRANSPORT_EMMC)
		return;
	if (!path_fmt(dev, sizeof(dev), "%s/device", card->sysfs_dir))
		return;
	read_identity(card, dev);
	read_registers(card, dev);
}

static void read_caller_view(struct info_card *card,
			     const struct info_device *d)
{
	if (d->size_bytes) {
		card->has_size = true;
		card->size_bytes = d->size_bytes;
	}
	if (d->logical_block_bytes) {
		card->has_logical_block_size = true;
		card->logical_block_size = d->logical_block_bytes;
	}
}

static int read_file(struct info_card *card, const struct info_device *d,
		     const struct stat *st)
{
	card->transport = INFO_TRANSPORT_FILE;
	read_caller_view(card, d);
	if (!card->has_size) {
		card->has_size = true;
		card->size_bytes = (uint64_t)st->st_size;
	}
	return 0;
}

static int locate(const struct info_device *d, const char *root,
		  char *dir, struct info_card *card, char *err,
		  size_t errlen)
{
	struct stat st;

	if (stat(d->path, &st) < 0)
		return find_by_name(root, d->path, dir, err, errlen);
	if (S_ISREG(st.st_mode))
		return read_file(card, d, &st) ? -EIO : 1;
	if (!S_ISBLK(st.st_mode)) {
		set_err(err, errlen,
			"%s: not a block device, regular file or sim: device",
			d->path);
		return -EINVAL;
	}
	return find_by_devnum(root, d->path, st.st_rdev, dir, err, errlen);
}

int info_read_card(const struct info_device *d, const char *sysfs_root,
		   struct info_card *card, char *err, size_t errlen)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";
	char dir[INFO_PATH_BYTES];
	int ret;

	memset(card, 0, sizeof(*card));
	if (!d || !d->path || !*d->path) {
		set_err(err, errlen, "no device given");
		return -EINVAL;
	}
	if (d->simulated || !strncmp(d->path, "sim:", 4)) {
		card->transport = INFO_TRANSPORT_SIMULATED;
		read_caller_view(card, d);
		return 0;
	}
	ret = locate(d, root, dir, card, err, errlen);
	if (ret)
		return ret < 0 ? ret : 0;
	if (exists(dir, "partition"))
		resolve_partition(card, dir);
	else
		copy_str(card->sysfs_dir, sizeof(card->sysfs_dir), dir);
	read_disk(card, root);
	if (!card->has_logical_block_size && d->logical_block_bytes)
		read_caller_view(card, d);
	return 0;
}

/* ---- output: aligned text or one JSON object ---- */

#define LABEL_WIDTH 26

struct out {
	FILE *f;
	bool json;
	int depth;		/* JSON objects open */
	bool fresh;		/* nothing written in the innermost object */
	bool quiet;		/* text lines suppressed */
};

/* Length of the valid UTF-8 sequence at p, 0 if there is none. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = *p >= 0xf0 && *p < 0xf5 ? 4 : *p >= 0xe0 ? 3 :
		   *p >= 0xc2 && *p < 0xe0 ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string; bytes that are not UTF-8 are taken as Latin-1. */
static void json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else if (*p >= 0x80 && utf8_len(p)) {
			size_t n = utf8_len(p);

			fwrite(p, 1, n, f);
			p += n - 1;
		} else if (*p >= 0x80)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void out_begin(struct out *o, FILE *f, bool json)
{
	o->f = f;
	o->json = json;
	o->depth = 0;
	o->fresh = true;
	o->quiet = false;
	if (json) {
		fputc('{', f);
		o->depth = 1;
	}
}

static void out_finish(struct out *o)
{
	if (o->json)
		fputs("\n}\n", o->f);
}

/* Start a JSON member: separator, indentation, key. */
static void json_key(struct out *o, const char *key)
{
	fprintf(o->f, "%s\n%*s", o->fresh ? "" : ",", 2 * o->depth, "");
	json_string(o->f, key);
	fputs(": ", o->f);
	o->fresh = false;
}

/*
 * A section: a heading in text; in JSON a nested object called key, or
 * nothing when key is NULL (the fields stay at the top level).
 */
static void out_section(struct out *o, const char *key, const char *heading)
{
	if (!o->json) {
		fprintf(o->f, "%s:\n", heading);
		return;
	}
	if (!key)
		return;
	json_key(o, key);
	fputc('{', o->f);
	o->depth++;
	o->fresh = true;
}

static void out_end(struct out *o, const char *key)
{
	if (!o->json || !key)
		return;
	o->depth--;
	fprintf(o->f, "\n%*s}", 2 * o->depth, "");
	o->fresh = false;
}

static void out_null_section(struct out *o, const char *key)
{
	if (o->json) {
		json_key(o, key);
		fputs("null", o->f);
	}
}

/*
 * One field.  label NULL: JSON only; key NULL: text only.  json is the
 * JSON value as it is to be written (NULL writes null), text the value
 * people read (NULL reads "unknown").
 */
static void put(struct out *o, const char *key, const char *label,
		const char *json, const char *text)
{
	if (o->json && key) {
		json_key(o, key);
		fputs(json ? json : "null", o->f);
	} else if (!o->json && label && !o->quiet) {
		fprintf(o->f, "  %-*s %s\n", LABEL_WIDTH - 1, label,
			text ? text : "unknown");
	}
}

static void put_str(struct out *o, const char *key, const char *label,
		    const char *s)
{
	if (o->json && key) {
		json_key(o, key);
		if (s)
			json_string(o->f, s);
		else
			fputs("null", o->f);
		return;
	}
	put(o, key, label, NULL, s);
}

/* A label with its colon, for the text column. */
static void put_text(struct out *o, const char *key, const char *label,
		     const char *json, const char *text)
{
	char lab[64];

	if (label)
		snprintf(lab, sizeof(lab), "%s:", label);
	put(o, key, label ? lab : NULL, json, text);
}

static void put_u64(struct out *o, const char *key, const char *label,
		    bool known, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	put_text(o, key, label, known ? num : NULL, known ? num : NULL);
}

/* Bytes: "4194304 (4 MiB)" for people, the number for machines. */
static void put_size(struct out *o, const char *key, const char *label,
		     bool known, uint64_t v)
{
	char num[32], text[80], h[32];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	if (v >= 1024)
		snprintf(text, sizeof(text), "%s (%s)", num,
			 human_size(h, sizeof(h), v));
	else
		copy_str(text, sizeof(text), num);
	put_text(o, key, label, known ? num : NULL, known ? text : NULL);
}

static void put_bool(struct out *o, const char *key, const char *label,
		     bool known, bool v)
{
	put_text(o, key, label, known ? (v ? "true" : "false") : NULL,
		 known ? (v ? "yes" : "no") : NULL);
}

/* A string value shown the same way to both readers. */
static void put_s(struct out *o, const char *key, const char *label,
		  const char *s)
{
	char lab[64];

	if (label)
		snprintf(lab, sizeof(lab), "%s:", label);
	put_str(o, key, label ? lab : NULL, s);
}

/* A hex identifier, "0x5344", as a string in both forms. */
static void put_hex(struct out *o, const char *key, const char *label,
		    bool known, uint64_t v, int digits)
{
	char hex[32];

	snprintf(hex, sizeof(hex), "0x%0*" PRIx64, digits, v);
	put_s(o, key, label, known ? hex : NULL);
}

/* ---- register sections ---- */

static const char *revision_text(char *buf, size_t len, uint8_t prv)
{
	snprintf(buf, len, "%u.%u", prv >> 4, prv & 15);
	return buf;
}

static void show_cid(struct out *o, const struct info_cid *cid)
{
	const char *maker = info_manufacturer(cid->manfid, cid->mmc);
	static const char *const cbx[] = { "card", "BGA", "PoP", "reserved" };
	char text[96], date[16], rev[16];
	bool month_ok = cid->month >= 1 && cid->month <= 12;

	put_s(o, "layout", "layout", cid->mmc ? "mmc" : "sd");
	snprintf(text, sizeof(text), "%s (0x%02" PRIx32 ")",
		 maker ? maker : "unknown", cid->manfid);
	put_str(o, "manufacturer", NULL, maker);
	put_text(o, NULL, "manufacturer", NULL, text);
	put_hex(o, "manfid", NULL, true, cid->manfid, 6);
	if (!cid->mmc && isprint(cid->oemid >> 8) && isprint(cid->oemid & 255))
		snprintf(text, sizeof(text), "0x%04x \"%c%c\"", cid->oemid,
			 cid->oemid >> 8, cid->oemid & 255);
	else
		snprintf(text, sizeof(text), "0x%04x", cid->oemid);
	put_hex(o, "oemid", NULL, true, cid->oemid, 4);
	put_text(o, NULL, "oem id", NULL, text);
	if (cid->mmc)
		put_s(o, "package", "package", cbx[cid->cbx & 3]);
	put_s(o, "name", "name", cid->name);
	put_s(o, "revision", "revision",
	      revision_text(rev, sizeof(rev), cid->prv));
	put_hex(o, "serial", "serial", true, cid->serial, 8);
	snprintf(date, sizeof(date), "%04u-%02u", cid->year, cid->month);
	snprintf(text, sizeof(text), "%s%s", date,
		 month_ok ? "" : " (invalid month)");
	put_str(o, "date", NULL, month_ok ? date : NULL);
	put_text(o, NULL, "date", NULL, text);
}

static const char *csd_structure_text(const struct info_csd *csd)
{
	static const char *const sd[] = {
		"1.0 (SDSC, byte addressed)", "2.0 (SDHC/SDXC)",
		"3.0 (SDUC)", "reserved",
	};
	static const char *const mmc[] = {
		"1.0", "1.1", "1.2", "in EXT_CSD",
	};

	return csd->mmc ? mmc[csd->structure & 3] : sd[csd->structure & 3];
}

static void show_ccc(struct out *o, unsigned ccc)
{
	char text[80], json[80];
	size_t t, j;

	t = (size_t)snprintf(text, sizeof(text), "0x%03x (classes", ccc);
	j = (size_t)snprintf(json, sizeof(json), "[");
	for (unsigned i = 0; i < 12; i++) {
		if (!(ccc & (1u << i)))
			continue;
		t += (size_t)snprintf(text + t, sizeof(text) - t, " %u", i);
		j += (size_t)snprintf(json + j, sizeof(json) - j, "%s%u",
				      j > 1 ? ", " : "", i);
	}
	snprintf(text + t, sizeof(text) - t, ")");
	snprintf(json + j, sizeof(json) - j, "]");
	put_text(o, "command_classes", "command classes", json, text);
}

static void show_csd_timing(struct out *o, const struct info_csd *csd)
{
	char text[64], json[32], t[32];

	snprintf(json, sizeof(json), "%" PRIu32, csd->tran_kbit);
	if (csd->tran_kbit)
		snprintf(text, sizeof(text), "%g Mbit/s per line (0x%02x)",
			 csd->tran_kbit / 1000.0, csd->tran_speed);
	else
		snprintf(text, sizeof(text), "reserved coding (0x%02x)",
			 csd->tran_speed);
	put_text(o, "max_transfer_kbit", "max transfer rate",
		 csd->tran_kbit ? json : NULL, text);
	snprintf(text, sizeof(text), "%s + %u clocks (0x%02x, 0x%02x)",
		 human_time_ps(t, sizeof(t), csd->taac_ps), csd->nsac * 100,
		 csd->taac, csd->nsac);
	snprintf(json, sizeof(json), "%" PRIu64, csd->taac_ps / 1000);
	put_text(o, "read_access_ns", NULL, json, NULL);
	put_u64(o, "read_access_clocks", NULL, true, csd->nsac * 100ULL);
	put_text(o, NULL, "read access time", NULL, text);
	snprintf(text, sizeof(text), "x%u", 1u << csd->r2w_factor);
	put_u64(o, "r2w_factor", NULL, true, csd->r2w_factor);
	put_text(o, NULL, "write speed factor", NULL, text);
}

static void show_csd_erase(struct out *o, const struct info_csd *csd)
{
	char text[48];

	put_size(o, "erase_sector_bytes",
		 csd->mmc ? "erase group" : "erase sector", true,
		 csd->erase_bytes);
	if (!csd->mmc)
		put_bool(o, "erase_single_block", "single-block erase", true,
			 csd->erase_blk_en);
	snprintf(text, sizeof(text), "%u erase %s", csd->wp_grp_size + 1,
		 csd->mmc ? "group(s)" : "sector(s)");
	put_u64(o, "wp_group_size", NULL, true, csd->wp_grp_size + 1ULL);
	put_text(o, NULL, "write protect group", NULL, text);
	put_bool(o, "wp_group_enable", "group write protection", true,
		 csd->wp_grp_enable);
	put_bool(o, "perm_write_protect", "permanent write protect", true,
		 csd->perm_write_protect);
	put_bool(o, "tmp_write_protect", "temporary write protect", true,
		 csd->tmp_write_protect);
	put_bool(o, "copy", "copy flag", true, csd->copy);
}

static void show_csd(struct out *o, const struct info_csd *csd)
{
	put_s(o, "layout", "layout", csd->mmc ? "mmc" : "sd");
	put_u64(o, "structure_code", NULL, true, csd->structure);
	put_s(o, "structure", "structure", csd_structure_text(csd));
	if (csd->mmc)
		put_u64(o, "spec_vers", "spec version code", true,
			csd->spec_vers);
	put_u64(o, "c_size", "c_size", true, csd->c_size);
	if (csd->mmc || csd->structure == 0)
		put_u64(o, "c_size_mult", "c_size_mult", true,
			csd->c_size_mult);
	if (csd->capacity_known)
		put_size(o, "capacity_bytes", "capacity", true,
			 csd->capacity_bytes);
	else
		put_text(o, "capacity_bytes", "capacity", NULL,
			 "in EXT_CSD (over 2 GB)");
	put_size(o, "read_block_bytes", "read block length", true,
		 1ULL << csd->read_bl_len);
	put_size(o, "write_block_bytes", "write block length", true,
		 1ULL << csd->write_bl_len);
	put_bool(o, "read_partial", "partial block reads", true,
		 csd->read_bl_partial);
	show_csd_timing(o, csd);
	show_ccc(o, csd->ccc);
	show_csd_erase(o, csd);
}

static void show_scr_bits(struct out *o, const struct info_scr *scr)
{
	static const char *const cmd[] = {
		"CMD20", "CMD23", "CMD48/49", "CMD58/59",
	};
	char text[64] = "", json[80] = "[";
	size_t t = 0, j = 1;

	for (unsigned i = 0; i < 4; i++) {
		if (!(scr->cmd_support & (1u << i)))
			continue;
		t += (size_t)snprintf(text + t, sizeof(text) - t, "%s%s",
				      t ? " " : "", cmd[i]);
		j += (size_t)snprintf(json + j, sizeof(json) - j, "%s\"%s\"",
				      j > 1 ? ", " : "", cmd[i]);
	}
	snprintf(json + j, sizeof(json) - j, "]");
	put_text(o, "commands", "optional commands", json, t ? text : "none");
	t = (size_t)snprintf(text, sizeof(text), "%s%s",
			     scr->bus_widths & 1 ? "1" : "",
			     scr->bus_widths & 4 ?
			     (scr->bus_widths & 1 ? ", 4" : "4") : "");
	snprintf(text + t, sizeof(text) - t, " bit (0x%x)", scr->bus_widths);
	snprintf(json, sizeof(json), "%u", scr->bus_widths);
	put_text(o, "bus_widths", "bus widths", json, text);
}

static void show_scr(struct out *o, const struct info_scr *scr)
{
	static const char *const security[8] = {
		"none", "not used", "SDSC (CPRM 1.01)", "SDHC (CPRM 2.00)",
		"SDXC (CPRM 3.xx)", "reserved", "reserved", "reserved",
	};

	put_u64(o, "structure", "structure", true, scr->structure);
	put_s(o, "version", "physical layer", scr->version);
	put_u64(o, "sd_spec", NULL, true, scr->sd_spec);
	put_bool(o, "sd_spec3", NULL, true, scr->spec3);
	put_bool(o, "sd_spec4", NULL, true, scr->spec4);
	put_u64(o, "sd_specx", NULL, true, scr->specx);
	put_s(o, "security", "security", security[scr->security & 7]);
	put_u64(o, "ex_security", NULL, true, scr->ex_security);
	show_scr_bits(o, scr);
	put_s(o, "erased_byte", "erased blocks read",
	      scr->erased_ones ? "0xff" : "0x00");
}

/* "U3", or "none" for grade 0. */
static void class_text(char *buf, size_t len, const char *prefix,
		       unsigned value)
{
	if (value)
		snprintf(buf, len, "%s%u", prefix, value);
	else
		snprintf(buf, len, "none");
}

static void show_ssr_classes(struct out *o, const struct info_ssr *ssr)
{
	char text[48], json[16];

	snprintf(json, sizeof(json), "%u", ssr->speed_class);
	snprintf(text, sizeof(text), "%s%u (code %u)",
		 ssr->speed_class ? "C" : "class ", ssr->speed_class,
		 ssr->speed_class_code);
	put_text(o, "speed_class", "speed class", json, text);
	snprintf(json, sizeof(json), "%u", ssr->uhs_grade);
	class_text(text, sizeof(text), "U", ssr->uhs_grade);
	put_text(o, "uhs_grade", "UHS speed grade", json, text);
	snprintf(json, sizeof(json), "%u", ssr->video_class);
	class_text(text, sizeof(text), "V", ssr->video_class);
	put_text(o, "video_class", "video speed class", json, text);
	snprintf(json, sizeof(json), "%u", ssr->app_class);
	class_text(text, sizeof(text), "A", ssr->app_class);
	put_text(o, "app_class", "application class", json, text);
}

static void show_ssr(struct out *o, const struct info_ssr *ssr)
{
	char text[64];

	put_u64(o, "bus_width", NULL, true, ssr->bus_width);
	put_text(o, NULL, "bus width", NULL,
		 ssr->bus_width == 2 ? "4 bit" :
		 ssr->bus_width == 0 ? "1 bit" : "reserved");
	put_bool(o, "secured_mode", "secured mode", true, ssr->secured);
	put_hex(o, "card_type", "card type", true, ssr->card_type, 4);
	put_u64(o, "protected_area", "protected area", true,
		ssr->protected_area);
	show_ssr_classes(o, ssr);
	put_u64(o, "performance_move", "move performance MB/s", true,
		ssr->performance_move);
	put_size(o, "au_size_bytes", "AU size", ssr->au_code != 0,
		 ssr->au_bytes);
	put_u64(o, "erase_size_aus", NULL, true, ssr->erase_size);
	put_u64(o, "erase_timeout_s", NULL, true, ssr->erase_timeout);
	put_u64(o, "erase_offset_s", NULL, true, ssr->erase_offset);
	snprintf(text, sizeof(text), "%u AUs in %u s, offset %u s",
		 ssr->erase_size, ssr->erase_timeout, ssr->erase_offset);
	put_text(o, NULL, "erase timing", NULL, text);
	put_size(o, "uhs_au_size_bytes", "UHS AU size",
		 ssr->uhs_au_code != 0, ssr->uhs_au_bytes);
	put_u64(o, "vsc_au_size", "video AU size code", true,
		ssr->vsc_au_size);
	put_hex(o, "performance_enhance", "performance enhance", true,
		ssr->performance_enhance, 2);
	put_bool(o, "discard", "discard", true, ssr->discard);
	put_bool(o, "fule", "full user area erase", true, ssr->fule);
}

/* ---- info_decode ---- */

/* Split an optional "sd:" or "mmc:" layout prefix off hex. */
static int layout_prefix(const char *kind, const char **hex, bool *mmc,
			 char *err, size_t errlen)
{
	const char *colon = strchr(*hex, ':');

	*mmc = false;
	if (!colon)
		return 0;
	if (colon - *hex == 3 && !strncmp(*hex, "mmc", 3))
		*mmc = true;
	else if (!(colon - *hex == 2 && !strncmp(*hex, "sd", 2))) {
		set_err(err, errlen,
			"%s: unknown layout '%.*s' (use sd: or mmc:)",
			kind, (int)(colon - *hex), *hex);
		return -EINVAL;
	}
	*hex = colon + 1;
	return 0;
}

struct decoded {
	bool mmc;
	struct info_cid cid;
	struct info_csd csd;
	struct info_scr scr;
	struct info_ssr ssr;
};

static int decode_kind(const char *kind, const char *hex, struct decoded *r,
		       char *err, size_t errlen)
{
	int ret = layout_prefix(kind, &hex, &r->mmc, err, errlen);

	if (ret)
		return ret;
	if ((!strcmp(kind, "scr") || !strcmp(kind, "ssr")) && r->mmc) {
		set_err(err, errlen, "%s: eMMC has no %s register", kind,
			kind);
		return -EINVAL;
	}
	if (!strcmp(kind, "cid"))
		return info_decode_cid(hex, r->mmc, &r->cid, err, errlen);
	if (!strcmp(kind, "csd"))
		return info_decode_csd(hex, r->mmc, &r->csd, err, errlen);
	if (!strcmp(kind, "scr"))
		return info_decode_scr(hex, &r->scr, err, errlen);
	if (!strcmp(kind, "ssr"))
		return info_decode_ssr(hex, &r->ssr, err, errlen);
	set_err(err, errlen, "%s: unknown register (cid, csd, scr or ssr)",
		kind);
	return -EINVAL;
}

static int finish(FILE *out, char *err, size_t errlen)
{
	if (fflush(out) || ferror(out)) {
		set_err(err, errlen, "write error on output");
		return -EIO;
	}
	return 0;
}

int info_decode(const char *kind, const char *hex, bool json, FILE *out,
		char *err, size_t errlen)
{
	struct decoded r;
	struct out o;
	int ret;

	if (!kind || !hex) {
		set_err(err, errlen, "nothing to decode");
		return -EINVAL;
	}
	ret = decode_kind(kind, hex, &r, err, errlen);
	if (ret)
		return ret;
	out_begin(&o, out, json);
	put_s(&o, "register", NULL, kind);
	out_section(&o, NULL, kind);
	if (!strcmp(kind, "cid"))
		show_cid(&o, &r.cid);
	else if (!strcmp(kind, "csd"))
		show_csd(&o, &r.csd);
	else if (!strcmp(kind, "scr"))
		show_scr(&o, &r.scr);
	else
		show_ssr(&o, &r.ssr);
	out_finish(&o);
	return finish(out, err, errlen);
}

/* ---- info_show ---- */

static void show_attr_u64(struct out *o, const char *dir, const char *key,
			  const char *label, const char *name, bool size)
{
	uint64_t v = 0;
	bool known = *dir && attr_dec(dir, name, &v);

	if (size)
		put_size(o, key, label, known, v);
	else
		put_u64(o, key, label, known, v);
}

static void show_attr_bool(struct out *o, const char *dir, const char *key,
			   const char *label, const char *name)
{
	uint64_t v = 0;
	bool known = *dir && attr_dec(dir, name, &v);

	put_bool(o, key, label, known, v != 0);
}

static void show_attr_str(struct out *o, const char *dir, const char *key,
			  const char *label, const char *name)
{
	char buf[256];
	bool known = *dir && attr(dir, name, buf, sizeof(buf));

	put_s(o, key, label, known ? buf : NULL);
}

static void show_partition(struct out *o, const struct info_card *c)
{
	if (!c->is_partition) {
		out_null_section(o, "partition");
		return;
	}
	out_section(o, "partition", "partition");
	put_s(o, "name", "name", c->partition);
	put_u64(o, "number", "number", true, c->partition_number);
	put_size(o, "start_bytes", "start", c->has_partition_range,
		 c->partition_start_bytes);
	put_size(o, "size_bytes", "size", c->has_partition_range,
		 c->partition_size_bytes);
	out_end(o, "partition");
}

static void show_discard(struct out *o, const char *dir)
{
	uint64_t max = 0, gran = 0;
	bool has_max = *dir && attr_dec(dir, "queue/discard_max_bytes", &max);
	bool has_gran = *dir &&
		attr_dec(dir, "queue/discard_granularity", &gran);

	if (has_max)
		put_bool(o, "discard", "discard", true, max != 0);
	else
		put_bool(o, "discard", "discard", has_gran, gran != 0);
	put_size(o, "discard_granularity", "discard granularity", has_gran,
		 gran);
	put_size(o, "discard_max_bytes", "discard max bytes", has_max, max);
}

static void show_queue(struct out *o, const struct info_card *c)
{
	const char *dir = c->sysfs_dir;

	if (*dir)
		put_u64(o, "logical_block_size", "logical block size",
			c->has_logical_block_size, c->logical_block_size);
	show_attr_u64(o, dir, "physical_block_size", "physical block size",
		      "queue/physical_block_size", false);
	show_attr_u64(o, dir, "minimum_io_size", "minimum I/O size",
		      "queue/minimum_io_size", false);
	show_attr_u64(o, dir, "optimal_io_size", "optimal I/O size",
		      "queue/optimal_io_size", false);
	show_discard(o, dir);
	show_attr_bool(o, dir, "rotational", "rotational", "queue/rotational");
	show_attr_bool(o, dir, "removable", "removable", "removable");
	show_attr_bool(o, dir, "read_only", "read-only", "ro");
}

static void show_device(struct out *o, const struct info_device *d,
			const struct info_card *c)
{
	const char *dir = c->sysfs_dir, *dir_label = dir;
	bool card = c->transport == INFO_TRANSPORT_SD ||
		    c->transport == INFO_TRANSPORT_EMMC;

	out_section(o, NULL, "device");
	put_s(o, "path", "path", d->path);
	put_s(o, "transport", NULL, info_transport_name(c->transport));
	put_s(o, NULL, "transport", info_transport_label(c->transport));
	put_s(o, "disk", *c->disk ? "sysfs disk" : NULL,
	      *c->disk ? c->disk : NULL);
	put_size(o, "size_bytes", "size", c->has_size, c->size_bytes);
	if (!*dir) {
		/* files and simulated cards: sysfs has nothing to say */
		put_u64(o, "logical_block_size", "logical block size",
			c->has_logical_block_size, c->logical_block_size);
		o->quiet = true;
	}
	show_queue(o, c);
	/* only devices on a bus have them, and cards show their CID */
	if (card || !*dir || !exists(dir, "device"))
		dir_label = NULL;
	show_attr_str(o, dir, "vendor", dir_label ? "vendor" : NULL,
		      "device/vendor");
	show_attr_str(o, dir, "model", dir_label ? "model" : NULL,
		      "device/model");
	if (c->transport == INFO_TRANSPORT_LOOP || o->json)
		show_attr_str(o, dir, "backing_file",
			      c->transport == INFO_TRANSPORT_LOOP ?
			      "backing file" : NULL, "loop/backing_file");
	o->quiet = false;
	show_partition(o, c);
}

/* The fields every JSON report has at its top level. */
static void show_summary(struct out *o, const struct info_card *c)
{
	char date[16];

	if (!o->json)
		return;
	put_str(o, "card_type", NULL, *c->card_type ? c->card_type : NULL);
	put_str(o, "manufacturer", NULL, c->manufacturer);
	put_hex(o, "manfid", NULL, c->has_manfid, c->manfid, 6);
	put_hex(o, "oemid", NULL, c->has_oemid, c->oemid, 4);
	put_str(o, "name", NULL, c->has_name ? c->name : NULL);
	put_hex(o, "serial", NULL, c->has_serial, c->serial, 8);
	snprintf(date, sizeof(date), "%04u-%02u", c->year, c->month);
	put_str(o, "date", NULL, c->has_date && c->month >= 1 &&
		c->month <= 12 ? date : NULL);
	put_u64(o, "capacity_bytes", NULL, c->has_capacity,
		c->capacity_bytes);
	put_u64(o, "erase_size", NULL, c->has_erase_size, c->erase_size);
	put_u64(o, "preferred_erase_size", NULL,
		c->has_preferred_erase_size, c->preferred_erase_size);
	put_u64(o, "speed_class", NULL, c->has_speed, c->speed_class);
	put_u64(o, "uhs_grade", NULL, c->has_speed, c->uhs_grade);
	put_u64(o, "video_class", NULL, c->has_speed, c->video_class);
	put_u64(o, "app_class", NULL, c->has_speed, c->app_class);
	put_u64(o, "au_size_bytes", NULL, c->has_speed && c->au_size_bytes,
		c->au_size_bytes);
}

static void show_capacity_check(struct out *o, const struct info_card *c)
{
	char text[96], h[32], json[32];
	uint64_t diff;
	bool smaller;

	if (!c->has_capacity || !c->has_size) {
		put_text(o, "capacity_check", "capacity check", NULL, NULL);
		return;
	}
	if (c->capacity_bytes == c->size_bytes) {
		put_text(o, "capacity_check", "capacity check", "\"matches\"",
			 "matches the block device");
		put_text(o, "capacity_difference_bytes", NULL, "0", NULL);
		return;
	}
	smaller = c->size_bytes < c->capacity_bytes;
	diff = smaller ? c->capacity_bytes - c->size_bytes
		       : c->size_bytes - c->capacity_bytes;
	snprintf(text, sizeof(text), "block device is %" PRIu64
		 " bytes (%s) %s", diff, human_size(h, sizeof(h), diff),
		 smaller ? "smaller" : "larger");
	put_text(o, "capacity_check", "capacity check", "\"differs\"", text);
	snprintf(json, sizeof(json), "%s%" PRIu64, smaller ? "-" : "", diff);
	put_text(o, "capacity_difference_bytes", NULL, json, NULL);
}

static void show_card(struct out *o, const struct info_card *c)
{
	out_section(o, NULL, "card");
	put_s(o, NULL, "type", *c->card_type ? c->card_type : NULL);
	put_size(o, NULL, "erase size", c->has_erase_size, c->erase_size);
	put_size(o, NULL, "preferred erase size",
		 c->has_preferred_erase_size, c->preferred_erase_size);
	put_size(o, NULL, "capacity from CSD", c->has_capacity,
		 c->capacity_bytes);
	show_capacity_check(o, c);
}

static void show_life(struct out *o, const char *dev)
{
	static const char *const used[] = {
		"not defined", "0-10% used", "10-20% used", "20-30% used",
		"30-40% used", "40-50% used", "50-60% used", "60-70% used",
		"70-80% used", "80-90% used", "90-100% used", "exceeded",
	};
	static const char *const eol[] = {
		"not defined", "normal", "warning", "urgent",
	};
	char buf[64], text[128];
	unsigned a, b;
	uint64_t v;

	if (attr(dev, "life_time", buf, sizeof(buf)) &&
	    sscanf(buf, "%x %x", &a, &b) == 2) {
		snprintf(text, sizeof(text), "A %s, B %s",
			 a < 12 ? used[a] : "reserved",
			 b < 12 ? used[b] : "reserved");
		put_text(o, NULL, "life time", NULL, text);
	} else {
		put_text(o, NULL, "life time", NULL, NULL);
	}
	put_s(o, "life_time", NULL, *buf ? buf : NULL);
	if (attr_hex(dev, "pre_eol_info", &v))
		put_s(o, "pre_eol_info", "pre-EOL info",
		      v < 4 ? eol[v] : "reserved");
	else
		put_s(o, "pre_eol_info", "pre-EOL info", NULL);
}

/* The kernel prints unset enhanced-area values as -EINVAL, unsigned. */
static void show_enhanced(struct out *o, const char *dev)
{
	uint64_t off = 0, size = 0;
	bool has_off = attr_dec(dev, "enhanced_area_offset", &off);
	bool has_size = attr_dec(dev, "enhanced_area_size", &size);
	bool set = has_off && has_size && off < (1ULL << 63) &&
		   size < 0x80000000ULL;

	if (has_off && has_size && !set) {
		put_text(o, "enhanced_area_offset", "enhanced area", NULL,
			 "not configured");
		put_text(o, "enhanced_area_size", NULL, NULL, NULL);
		return;
	}
	put_size(o, "enhanced_area_offset", "enhanced area offset", has_off,
		 off);
	put_size(o, "enhanced_area_size", "enhanced area size", has_size,
		 size * KiB);
}

static void show_emmc(struct out *o, const struct info_card *c)
{
	char dev[INFO_PATH_BYTES];
	uint64_t v = 0;
	bool known;

	if (!path_fmt(dev, sizeof(dev), "%s/device", c->sysfs_dir))
		return;
	out_section(o, "emmc", "emmc");
	show_attr_str(o, dev, "ext_csd_rev", "EXT_CSD revision", "rev");
	show_attr_str(o, dev, "prv", "product revision", "prv");
	show_attr_str(o, dev, "fwrev", "firmware", "fwrev");
	show_life(o, dev);
	show_enhanced(o, dev);
	known = attr_hex(dev, "raw_rpmb_size_mult", &v);
	put_size(o, "rpmb_size_bytes", "RPMB size", known, v * 128 * KiB);
	out_end(o, "emmc");
}

static void show_registers(struct out *o, const struct info_card *c)
{
	if (c->has_cid) {
		out_section(o, "cid", "cid");
		show_cid(o, &c->cid);
		out_end(o, "cid");
	} else {
		out_null_section(o, "cid");
	}
	if (c->has_csd) {
		out_section(o, "csd", "csd");
		show_csd(o, &c->csd);
		out_end(o, "csd");
	} else {
		out_null_section(o, "csd");
	}
	if (c->has_scr) {
		out_section(o, "scr", "scr");
		show_scr(o, &c->scr);
		out_end(o, "scr");
	} else {
		out_null_section(o, "scr");
	}
	if (c->has_ssr) {
		out_section(o, "ssr", "ssr");
		show_ssr(o, &c->ssr);
		out_end(o, "ssr");
	} else {
		out_null_section(o, "ssr");
	}
}

int info_show(const struct info_device *dev, const char *sysfs_root,
	      bool json, FILE *out, char *err, size_t errlen)
{
	struct info_card *card = malloc(sizeof(*card));
	bool is_card;
	struct out o;
	int ret;

	if (!card) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = info_read_card(dev, sysfs_root, card, err, errlen);
	if (ret) {
		free(card);
		return ret;
	}
	is_card = card->transport == INFO_TRANSPORT_SD ||
		  card->transport == INFO_TRANSPORT_EMMC;
	out_begin(&o, out, json);
	show_device(&o, dev, card);
	show_summary(&o, card);
	if (is_card || json)
		show_card(&o, card);
	show_registers(&o, card);
	if (card->transport == INFO_TRANSPORT_EMMC)
		show_emmc(&o, card);
	else
		out_null_section(&o, "emmc");
	out_finish(&o);
	free(card);
	return finish(out, err, errlen);
}
