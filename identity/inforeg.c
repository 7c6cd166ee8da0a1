/*
 * inforeg: the SD/MMC card registers CID, CSD, SCR and SSR decoded from
 * hex into fields, and the manufacturer IDs.  Pure functions: it knows
 * bit positions and codings, never where a register came from (sysfs,
 * the command line) or how it is shown.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "identity/inforeg.h"
#include "identity/infoutil.h"

#define KiB 1024ULL

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
				info_set_err(err, errlen,
					     "%s: '%c' is not a hex digit",
					     what, *p);
			else
				info_set_err(err, errlen,
					     "%s: byte 0x%02x is not a hex "
					     "digit", what, (unsigned char)*p);
			return -EINVAL;
		}
		if (got < want)
			reg->byte[got / 2] |= (uint8_t)(got % 2 ? v : v << 4);
		got++;
	}
	if (got != want) {
		info_set_err(err, errlen,
			     "%s: expected %zu hex digits, got %zu", what,
			     want, got);
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
	info_copy_str(scr->version, sizeof(scr->version), v);
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

/* ---- EXT_CSD, as the kernel shows it in sysfs ---- */

void info_decode_ext_csd(struct info_emmc *e)
{
	unsigned a, b;

	e->has_life_codes = e->has_life_time &&
			    sscanf(e->life_time, "%x %x", &a, &b) == 2;
	e->life_a = e->has_life_codes ? a : 0;
	e->life_b = e->has_life_codes ? b : 0;
	/* the kernel prints unset enhanced-area values as -EINVAL, unsigned */
	e->enhanced_unset = e->has_enhanced_area_offset &&
			    e->has_enhanced_area_size &&
			    !(e->enhanced_area_offset < (1ULL << 63) &&
			      e->enhanced_area_size < 0x80000000ULL);
	e->enhanced_area_bytes = e->enhanced_area_size * KiB;
	e->rpmb_bytes = e->rpmb_size_mult * 128 * KiB;
}

/* ---- a register named on the command line ---- */

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
		info_set_err(err, errlen,
			     "%s: unknown layout '%.*s' (use sd: or mmc:)",
			     kind, (int)(colon - *hex), *hex);
		return -EINVAL;
	}
	*hex = colon + 1;
	return 0;
}

int info_decode_register(const char *kind, const char *hex,
			 struct info_register *r, char *err, size_t errlen)
{
	int ret = layout_prefix(kind, &hex, &r->mmc, err, errlen);

	if (ret)
		return ret;
	if ((!strcmp(kind, "scr") || !strcmp(kind, "ssr")) && r->mmc) {
		info_set_err(err, errlen, "%s: eMMC has no %s register",
			     kind, kind);
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
	info_set_err(err, errlen,
		     "%s: unknown register (cid, csd, scr or ssr)", kind);
	return -EINVAL;
}
