/*
 * info: a device's identity as records that report.c renders (aligned
 * text, CSV or JSON), from the struct info_card that infosysfs.c gathers
 * (as lsblk gathers, then renders), and single registers decoded by
 * inforeg.c.  It reads nothing but that struct and judges no promise a
 * card's registers make.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "identity/devname.h"
#include "identity/info.h"
#include "identity/inforeg.h"
#include "identity/infosysfs.h"
#include "output/render.h"
#include "identity/infoutil.h"

#define KiB 1024ULL

/* ---- names of transports ---- */

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

/* ---- sizes and times for people ---- */

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

/*
 * ---- output: records for report.c ----
 *
 * Each part of the identity (device, card, link, cid, ...) is one record
 * whose fields are the machine values, keyed as the JSON members
 * ("partition.start_bytes" nests).  The aligned text people read is a
 * display of those values ("7948206080 (7.40 GiB)", "SanDisk (0x03)"),
 * so each text line rides on a field's look as its template, after the
 * field it shows: a line that shows no one value (a heading, "oem id")
 * goes with the field before it.
 */

#define LABEL_WIDTH 26
#define KEY_BYTES 48
#define VALUE_BYTES INFO_PATH_BYTES	/* a backing file's path */
#define LINES_BYTES (VALUE_BYTES + 256)	/* its line, a heading */

struct out_field {
	char key[KEY_BYTES];
	char label[VALUE_BYTES];
	char lines[LINES_BYTES];	/* its text, the look's template */
	struct text_look look;
};

struct out {
	struct render *report;
	struct render_meta meta;
	struct devname names;		/* the device's identity and name */
	struct record rec;
	struct out_field strings[RECORD_MAX_FIELDS];
	char pending[LINES_BYTES];	/* text before the record's first field */
	char prefix[KEY_BYTES];		/* "partition.": the open section */
	bool quiet;		/* text lines suppressed */
	int err;
};

static const struct text_layout out_layout = { .style = TEXT_PACKED };

static void append(char *buf, size_t size, const char *text)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s", text);
}

/* A line of text, after the last field (or before the first). */
static void text_line(struct out *o, const char *line)
{
	if (o->rec.count)
		append(o->strings[o->rec.count - 1].lines, LINES_BYTES, line);
	else
		append(o->pending, sizeof(o->pending), line);
}

/* A new field keyed key in the open section; NULL if the record is full. */
static struct record_field *add_field(struct out *o, enum record_unit unit,
				  const char *key, const char *label)
{
	struct out_field *s;
	struct record_field *f;

	if (o->rec.count == RECORD_MAX_FIELDS) {
		o->err = -E2BIG;
		return NULL;
	}
	s = &o->strings[o->rec.count];
	f = &o->rec.fields[o->rec.count];
	snprintf(s->key, sizeof(s->key), "%s%s", o->prefix, key);
	snprintf(s->label, sizeof(s->label), "%s", label ? label : "");
	snprintf(s->lines, sizeof(s->lines), "%s",
		 o->rec.count ? "" : o->pending);
	*f = (struct record_field){ unit, s->key, NULL, label ? s->label : NULL,
				NAN };
	o->rec.count++;
	return f;
}

/* Each field shows its lines; the renderer ends the last line. */
static void flush_record(struct out *o)
{
	struct record *rec = &o->rec;
	int shown = -1;

	if (!o->report || !rec->count)
		return;
	for (unsigned i = 0; i < rec->count; i++) {
		struct out_field *s = &o->strings[i];

		s->look = (struct text_look){ .display = TEXT_TEMPLATE_ALONE,
					      .template = s->lines };
		rec->fields[i].look = *s->lines ? &s->look : &text_hidden;
		if (*s->lines)
			shown = (int)i;
	}
	if (shown >= 0) {
		char *lines = o->strings[shown].lines;
		size_t len = strlen(lines);

		if (lines[len - 1] == '\n')
			lines[len - 1] = '\0';
	}
	rec->layout = &out_layout;
	if (render_record(o->report, rec))
		o->err = -EIO;
	rec->count = 0;
}

/* Start the record of one part: "device", "cid". */
static void out_record(struct out *o, const char *kind)
{
	flush_record(o);
	o->rec = (struct record){ .kind = kind };
	o->pending[0] = '\0';
}

static int out_begin(struct out *o, FILE *f, enum render_format format,
		     const char *test, const char *device)
{
	o->meta.test = test;
	o->meta.device = device;
	o->report = render_open(f, format, &o->meta);
	return o->report ? 0 : -ENOMEM;
}

static int out_finish(struct out *o)
{
	flush_record(o);
	if (render_close(o->report, NULL, false) && !o->err)
		o->err = -EIO;
	return o->err;
}

/* A section: a heading in text; with a key, a nested object in JSON. */
static void out_section(struct out *o, const char *key, const char *heading)
{
	char line[80];

	if (key) {
		append(o->prefix, sizeof(o->prefix), key);
		append(o->prefix, sizeof(o->prefix), ".");
	}
	if (heading && !o->quiet) {
		snprintf(line, sizeof(line), "%s:\n", heading);
		text_line(o, line);
	}
}

static void out_end(struct out *o, const char *key)
{
	size_t len = strlen(o->prefix);

	if (!key || !len)
		return;
	o->prefix[len - 1] = '\0';
	len = strlen(o->prefix);
	while (len && o->prefix[len - 1] != '.')
		len--;
	o->prefix[len] = '\0';
}

/* A section not read: null in JSON, empty in CSV. */
static void out_null_section(struct out *o, const char *key)
{
	add_field(o, RECORD_LABEL, key, NULL);
}

/* A line people read: "  label:   text". */
static void format_line(char *line, size_t size, const char *label,
			const char *text)
{
	snprintf(line, size, "  %-*s %s\n", LABEL_WIDTH - 1, label,
		 text ? text : "unknown");
}

static void put_line(struct out *o, const char *label, const char *text)
{
	char line[LINES_BYTES];

	if (!label || o->quiet)
		return;
	format_line(line, sizeof(line), label, text);
	text_line(o, line);
}

/*
 * A field in unit from its JSON text: null, true, false, a quoted word,
 * a list ("[0, 2]": the label "0, 2") or a number.
 */
static void put_json_field(struct out *o, enum record_unit unit,
			   const char *key, const char *json)
{
	char word[VALUE_BYTES];
	size_t len = json ? strlen(json) : 0, n = 0;
	struct record_field *f;

	if (unit != RECORD_LABEL || !json) {
		f = add_field(o, unit, key, NULL);
		if (f && json)
			f->value = unit == RECORD_BOOL ? json[0] == 't' :
				   strtod(json, NULL);
		return;
	}
	for (size_t i = 1; i + 1 < len && n + 1 < sizeof(word); i++)
		if (json[0] != '[' || json[i] != '"')
			word[n++] = json[i];
	word[n] = '\0';
	add_field(o, RECORD_LABEL, key, word);
}

/*
 * One field.  label NULL: machine formats only; key NULL: text only.
 * json is the value as JSON text (NULL: null), text the value people
 * read (NULL reads "unknown").
 */
static void put(struct out *o, enum record_unit unit, const char *key,
		const char *label, const char *json, const char *text)
{
	if (key)
		put_json_field(o, unit, key, json);
	put_line(o, label, text);
}

static void put_str(struct out *o, const char *key, const char *label,
		    const char *s)
{
	if (key)
		add_field(o, RECORD_LABEL, key, s);
	put_line(o, label, s);
}

/* A label with its colon, for the text column. */
static void put_text(struct out *o, enum record_unit unit, const char *key,
		     const char *label, const char *json, const char *text)
{
	char lab[64];

	if (label)
		snprintf(lab, sizeof(lab), "%s:", label);
	put(o, unit, key, label ? lab : NULL, json, text);
}

/* Numbers put_u64 shows plain are bytes when their key says so. */
static enum record_unit plain_unit(const char *key)
{
	size_t len = key ? strlen(key) : 0;

	return len > 6 && !strcmp(key + len - 6, "_bytes") ? RECORD_BYTES :
	       RECORD_COUNT;
}

static void put_u64(struct out *o, const char *key, const char *label,
		    bool known, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	put_text(o, plain_unit(key), key, label, known ? num : NULL,
		 known ? num : NULL);
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
		info_copy_str(text, sizeof(text), num);
	put_text(o, RECORD_BYTES, key, label, known ? num : NULL,
		 known ? text : NULL);
}

static void put_bool(struct out *o, const char *key, const char *label,
		     bool known, bool v)
{
	put_text(o, RECORD_BOOL, key, label,
		 known ? (v ? "true" : "false") : NULL,
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

/* A string attribute as read: known, or unknown. */
static void put_attr(struct out *o, const char *key, const char *label,
		     bool known, const char *text)
{
	put_s(o, key, label, known ? text : NULL);
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
	put_text(o, RECORD_LABEL, NULL, "manufacturer", NULL, text);
	put_hex(o, "manfid", NULL, true, cid->manfid, 6);
	if (!cid->mmc && isprint(cid->oemid >> 8) && isprint(cid->oemid & 255))
		snprintf(text, sizeof(text), "0x%04x \"%c%c\"", cid->oemid,
			 cid->oemid >> 8, cid->oemid & 255);
	else
		snprintf(text, sizeof(text), "0x%04x", cid->oemid);
	put_hex(o, "oemid", NULL, true, cid->oemid, 4);
	put_text(o, RECORD_LABEL, NULL, "oem id", NULL, text);
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
	put_text(o, RECORD_LABEL, NULL, "date", NULL, text);
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
	put_text(o, RECORD_LABEL, "command_classes", "command classes", json, text);
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
	put_text(o, RECORD_COUNT, "max_transfer_kbit_per_s", "max transfer rate",
		 csd->tran_kbit ? json : NULL, text);
	snprintf(text, sizeof(text), "%s + %u clocks (0x%02x, 0x%02x)",
		 human_time_ps(t, sizeof(t), csd->taac_ps), csd->nsac * 100,
		 csd->taac, csd->nsac);
	snprintf(json, sizeof(json), "%" PRIu64, csd->taac_ps / 1000);
	put_text(o, RECORD_TIME, "read_access_ns", NULL, json, NULL);
	put_u64(o, "read_access_clocks", NULL, true, csd->nsac * 100ULL);
	put_text(o, RECORD_LABEL, NULL, "read access time", NULL, text);
	snprintf(text, sizeof(text), "x%u", 1u << csd->r2w_factor);
	put_u64(o, "r2w_factor", NULL, true, csd->r2w_factor);
	put_text(o, RECORD_LABEL, NULL, "write speed factor", NULL, text);
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
	put_u64(o, "wp_group_sectors", NULL, true, csd->wp_grp_size + 1ULL);
	put_text(o, RECORD_LABEL, NULL, "write protect group", NULL, text);
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
		put_text(o, RECORD_BYTES, "capacity_bytes", "capacity", NULL,
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
	put_text(o, RECORD_LABEL, "commands", "optional commands", json, t ? text : "none");
	t = (size_t)snprintf(text, sizeof(text), "%s%s",
			     scr->bus_widths & 1 ? "1" : "",
			     scr->bus_widths & 4 ?
			     (scr->bus_widths & 1 ? ", 4" : "4") : "");
	snprintf(text + t, sizeof(text) - t, " bit (0x%x)", scr->bus_widths);
	snprintf(json, sizeof(json), "%u", scr->bus_widths);
	put_text(o, RECORD_COUNT, "bus_widths", "bus widths", json, text);
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
	put_text(o, RECORD_COUNT, "speed_class", "speed class", json, text);
	snprintf(json, sizeof(json), "%u", ssr->uhs_grade);
	class_text(text, sizeof(text), "U", ssr->uhs_grade);
	put_text(o, RECORD_COUNT, "uhs_grade", "UHS speed grade", json, text);
	snprintf(json, sizeof(json), "%u", ssr->video_class);
	class_text(text, sizeof(text), "V", ssr->video_class);
	put_text(o, RECORD_COUNT, "video_class", "video speed class", json, text);
	snprintf(json, sizeof(json), "%u", ssr->app_class);
	class_text(text, sizeof(text), "A", ssr->app_class);
	put_text(o, RECORD_COUNT, "app_class", "application class", json, text);
}

static void show_ssr(struct out *o, const struct info_ssr *ssr)
{
	char text[64];

	put_u64(o, "bus_width", NULL, true, ssr->bus_width);
	put_text(o, RECORD_LABEL, NULL, "bus width", NULL,
		 ssr->bus_width == 2 ? "4 bit" :
		 ssr->bus_width == 0 ? "1 bit" : "reserved");
	put_bool(o, "secured_mode", "secured mode", true, ssr->secured);
	put_hex(o, "card_type", "card type", true, ssr->card_type, 4);
	put_u64(o, "protected_area", "protected area", true,
		ssr->protected_area);
	show_ssr_classes(o, ssr);
	put_u64(o, "performance_move_mb_per_s", "move performance MB/s", true,
		ssr->performance_move);
	put_size(o, "au_size_bytes", "AU size", ssr->au_code != 0,
		 ssr->au_bytes);
	put_u64(o, "erase_size_aus", NULL, true, ssr->erase_size);
	put_u64(o, "erase_timeout_s", NULL, true, ssr->erase_timeout);
	put_u64(o, "erase_offset_s", NULL, true, ssr->erase_offset);
	snprintf(text, sizeof(text), "%u AUs in %u s, offset %u s",
		 ssr->erase_size, ssr->erase_timeout, ssr->erase_offset);
	put_text(o, RECORD_LABEL, NULL, "erase timing", NULL, text);
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

/* The last record out, the report closed, o freed. */
static int finish_out(struct out *o, FILE *out, char *err, size_t errlen)
{
	int ret = out_finish(o);

	free(o);
	if (ret == -E2BIG) {
		info_set_err(err, errlen, "more fields than a record holds");
		return ret;
	}
	if (ret || fflush(out) || ferror(out)) {
		info_set_err(err, errlen, "write error on output");
		return -EIO;
	}
	return 0;
}

int info_decode(const char *kind, const char *hex,
		enum render_format format, const char *command, FILE *out,
		char *err, size_t errlen)
{
	struct info_register r;
	char test[32];
	struct out *o;
	int ret;

	if (!kind || !hex) {
		info_set_err(err, errlen, "nothing to decode");
		return -EINVAL;
	}
	ret = info_decode_register(kind, hex, &r, err, errlen);
	if (ret)
		return ret;
	snprintf(test, sizeof(test), "decode-%s", kind);
	o = calloc(1, sizeof(*o));
	if (o)
		o->meta.command = command;
	if (!o || out_begin(o, out, format, test, NULL)) {
		free(o);
		info_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	out_record(o, kind);
	put_s(o, "register", NULL, kind);
	out_section(o, NULL, kind);
	if (!strcmp(kind, "cid"))
		show_cid(o, &r.cid);
	else if (!strcmp(kind, "csd"))
		show_csd(o, &r.csd);
	else if (!strcmp(kind, "scr"))
		show_scr(o, &r.scr);
	else
		show_ssr(o, &r.ssr);
	return finish_out(o, out, err, errlen);
}

/* ---- a whole card: info_print, info_show ---- */

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
	/* text says it on the device's size line */
	put_size(o, "disk_size_bytes", NULL, c->has_disk_size,
		 c->disk_size_bytes);
	out_end(o, "partition");
}

static void show_discard(struct out *o, const struct info_queue *q)
{
	if (q->has_discard_max_bytes)
		put_bool(o, "discard", "discard", true,
			 q->discard_max_bytes != 0);
	else
		put_bool(o, "discard", "discard", q->has_discard_granularity,
			 q->discard_granularity != 0);
	put_size(o, "discard_granularity_bytes", "discard granularity",
		 q->has_discard_granularity, q->discard_granularity);
	put_size(o, "discard_max_bytes", "discard max bytes",
		 q->has_discard_max_bytes, q->discard_max_bytes);
}

static void show_queue(struct out *o, const struct info_card *c)
{
	const struct info_queue *q = &c->queue;

	if (*c->sysfs_dir)
		put_u64(o, "logical_block_bytes", "logical block size",
			c->has_logical_block_size, c->logical_block_size);
	put_u64(o, "physical_block_bytes", "physical block size",
		q->has_physical_block_size, q->physical_block_size);
	put_u64(o, "minimum_io_bytes", "minimum I/O size",
		q->has_minimum_io_size, q->minimum_io_size);
	put_u64(o, "optimal_io_bytes", "optimal I/O size",
		q->has_optimal_io_size, q->optimal_io_size);
	show_discard(o, q);
	put_bool(o, "rotational", "rotational", q->has_rotational,
		 q->rotational);
	put_bool(o, "removable", "removable", q->has_removable, q->removable);
	put_bool(o, "read_only", "read-only", q->has_read_only, q->read_only);
}

/*
 * The size of the device named, which every test measures; a partition
 * adds its disk's, which the card's registers describe:
 * "67108864 (64 MiB), partition of a 256 MiB disk".
 */
static void put_device_size(struct out *o, const struct info_card *c)
{
	char num[32], text[128], h[32], disk[32];

	if (!c->is_partition || !c->has_size || !c->has_disk_size) {
		put_size(o, "size_bytes", "size", c->has_size, c->size_bytes);
		return;
	}
	snprintf(num, sizeof(num), "%" PRIu64, c->size_bytes);
	snprintf(text, sizeof(text), "%s (%s), partition of a %s disk", num,
		 human_size(h, sizeof(h), c->size_bytes),
		 human_size(disk, sizeof(disk), c->disk_size_bytes));
	put_text(o, RECORD_BYTES, "size_bytes", "size", num, text);
}

static void show_device(struct out *o, const struct info_device *d,
			const struct info_card *c)
{
	const struct info_queue *q = &c->queue;
	bool card = c->transport == INFO_TRANSPORT_SD ||
		    c->transport == INFO_TRANSPORT_EMMC;
	/* only devices on a bus have them, and cards show their CID */
	bool bus_labels = !card && *c->sysfs_dir && q->on_bus;

	out_section(o, NULL, "device");
	put_s(o, "path", "path", d->path);
	put_s(o, "transport", NULL, info_transport_name(c->transport));
	put_s(o, NULL, "transport", info_transport_label(c->transport));
	put_s(o, "disk", *c->disk ? "sysfs disk" : NULL,
	      *c->disk ? c->disk : NULL);
	put_device_size(o, c);
	if (!*c->sysfs_dir) {
		/* files and simulated cards: sysfs has nothing to say */
		put_u64(o, "logical_block_bytes", "logical block size",
			c->has_logical_block_size, c->logical_block_size);
		o->quiet = true;
	}
	show_queue(o, c);
	put_attr(o, "vendor", bus_labels ? "vendor" : NULL, q->has_vendor,
		 q->vendor);
	put_attr(o, "model", bus_labels ? "model" : NULL, q->has_model,
		 q->model);
	put_attr(o, "backing_file", c->transport == INFO_TRANSPORT_LOOP ?
		 "backing file" : NULL, q->has_backing_file, q->backing_file);
	o->quiet = false;
	show_partition(o, c);
}

/* The fields every JSON report has at its top level. */
static void show_summary(struct out *o, const struct info_card *c)
{
	char date[16];

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
	put_u64(o, "erase_size_bytes", NULL, c->has_erase_size, c->erase_size);
	put_u64(o, "preferred_erase_size_bytes", NULL,
		c->has_preferred_erase_size, c->preferred_erase_size);
	put_u64(o, "speed_class", NULL, c->has_speed, c->speed_class);
	put_u64(o, "uhs_grade", NULL, c->has_speed, c->uhs_grade);
	put_u64(o, "video_class", NULL, c->has_speed, c->video_class);
	put_u64(o, "app_class", NULL, c->has_speed, c->app_class);
	put_u64(o, "au_size_bytes", NULL, c->has_speed && c->au_size_bytes,
		c->au_size_bytes);
}

/* The CSD describes the whole card: its disk, whatever the path named. */
static void show_capacity_check(struct out *o, const struct info_card *c)
{
	char text[96], h[32], json[32];
	uint64_t diff;
	bool smaller;

	if (!c->has_capacity || !c->has_disk_size) {
		put_text(o, RECORD_LABEL, "capacity_check", "capacity check", NULL, NULL);
		return;
	}
	if (c->capacity_bytes == c->disk_size_bytes) {
		put_text(o, RECORD_LABEL, "capacity_check", "capacity check", "\"matches\"",
			 "matches the block device");
		put_text(o, RECORD_BYTES, "capacity_difference_bytes", NULL, "0", NULL);
		return;
	}
	smaller = c->disk_size_bytes < c->capacity_bytes;
	diff = smaller ? c->capacity_bytes - c->disk_size_bytes
		       : c->disk_size_bytes - c->capacity_bytes;
	snprintf(text, sizeof(text), "block device is %" PRIu64
		 " bytes (%s) %s", diff, human_size(h, sizeof(h), diff),
		 smaller ? "smaller" : "larger");
	put_text(o, RECORD_LABEL, "capacity_check", "capacity check", "\"differs\"", text);
	snprintf(json, sizeof(json), "%s%" PRIu64, smaller ? "-" : "", diff);
	put_text(o, RECORD_BYTES, "capacity_difference_bytes", NULL, json, NULL);
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

/* Index of the field keyed key in the record, or the last field. */
static unsigned field_index(const struct out *o, const char *key)
{
	for (unsigned i = 0; key && i < o->rec.count; i++)
		if (!strcmp(o->strings[i].key, key))
			return i;
	return o->rec.count - 1;
}

/*
 * The host link: its fields as hostlink.c makes them for every test's
 * "link" record, its lines as hostlink.c words them, each after its field.
 * Text shows it once the host or USB device was found; JSON always has
 * "link" (null: no link to read).
 */
static void show_link(struct out *o, const struct info_card *c)
{
	struct link_field f[LINK_FIELDS_MAX];
	struct record link;
	unsigned at = 0;
	size_t n;

	if (c->link.bus == LINK_BUS_NONE) {
		out_null_section(o, "link");
		return;
	}
	if (c->link.state == LINK_NO_HOST)
		o->quiet = true;
	out_section(o, NULL, o->quiet ? NULL : "link");
	link_record(&c->link, &link);
	for (unsigned i = 0; i < link.count; i++) {
		struct record_field *field = add_field(o, link.fields[i].unit,
						   link.fields[i].key,
						   link.fields[i].label);

		if (field && field->unit != RECORD_LABEL)
			field->value = link.fields[i].value;
	}
	n = link_fields(&c->link, f, LINK_FIELDS_MAX);
	for (size_t i = 0; i < n && o->rec.count; i++) {
		char key[KEY_BYTES], label[64], line[LINES_BYTES];

		snprintf(key, sizeof(key), "link.%s", f[i].key ? f[i].key : "");
		if (f[i].key)
			at = field_index(o, key);
		if (!f[i].label || o->quiet)
			continue;
		snprintf(label, sizeof(label), "%s:", f[i].label);
		format_line(line, sizeof(line), label, f[i].text);
		append(o->strings[at].lines, LINES_BYTES, line);
	}
	o->quiet = false;
}

static void show_life(struct out *o, const struct info_emmc *e)
{
	static const char *const used[] = {
		"not defined", "0-10% used", "10-20% used", "20-30% used",
		"30-40% used", "40-50% used", "50-60% used", "60-70% used",
		"70-80% used", "80-90% used", "90-100% used", "exceeded",
	};
	static const char *const eol[] = {
		"not defined", "normal", "warning", "urgent",
	};
	char text[128];

	if (e->has_life_codes) {
		snprintf(text, sizeof(text), "A %s, B %s",
			 e->life_a < 12 ? used[e->life_a] : "reserved",
			 e->life_b < 12 ? used[e->life_b] : "reserved");
		put_text(o, RECORD_LABEL, NULL, "life time", NULL, text);
	} else {
		put_text(o, RECORD_LABEL, NULL, "life time", NULL, NULL);
	}
	put_s(o, "life_time", NULL, *e->life_time ? e->life_time : NULL);
	if (e->has_pre_eol_info)
		put_s(o, "pre_eol_info", "pre-EOL info",
		      e->pre_eol_info < 4 ? eol[e->pre_eol_info] : "reserved");
	else
		put_s(o, "pre_eol_info", "pre-EOL info", NULL);
}

static void show_enhanced(struct out *o, const struct info_emmc *e)
{
	if (e->enhanced_unset) {
		put_text(o, RECORD_BYTES, "enhanced_area_offset_bytes",
			 "enhanced area", NULL, "not configured");
		put_text(o, RECORD_BYTES, "enhanced_area_size_bytes", NULL,
			 NULL, NULL);
		return;
	}
	put_size(o, "enhanced_area_offset_bytes", "enhanced area offset",
		 e->has_enhanced_area_offset, e->enhanced_area_offset);
	put_size(o, "enhanced_area_size_bytes", "enhanced area size",
		 e->has_enhanced_area_size, e->enhanced_area_bytes);
}

static void show_emmc(struct out *o, const struct info_emmc *e)
{
	out_section(o, "emmc", "emmc");
	put_attr(o, "ext_csd_rev", "EXT_CSD revision", e->has_ext_csd_rev,
		 e->ext_csd_rev);
	put_attr(o, "prv", "product revision", e->has_prv, e->prv);
	put_attr(o, "fwrev", "firmware", e->has_fwrev, e->fwrev);
	show_life(o, e);
	show_enhanced(o, e);
	put_size(o, "rpmb_size_bytes", "RPMB size", e->has_rpmb_size_mult,
		 e->rpmb_bytes);
	out_end(o, "emmc");
}

static void show_registers(struct out *o, const struct info_card *c)
{
	out_record(o, "cid");
	if (c->has_cid) {
		out_section(o, "cid", "cid");
		show_cid(o, &c->cid);
		out_end(o, "cid");
	} else {
		out_null_section(o, "cid");
	}
	out_record(o, "csd");
	if (c->has_csd) {
		out_section(o, "csd", "csd");
		show_csd(o, &c->csd);
		out_end(o, "csd");
	} else {
		out_null_section(o, "csd");
	}
	out_record(o, "scr");
	if (c->has_scr) {
		out_section(o, "scr", "scr");
		show_scr(o, &c->scr);
		out_end(o, "scr");
	} else {
		out_null_section(o, "scr");
	}
	out_record(o, "ssr");
	if (c->has_ssr) {
		out_section(o, "ssr", "ssr");
		show_ssr(o, &c->ssr);
		out_end(o, "ssr");
	} else {
		out_null_section(o, "ssr");
	}
}

/*
 * Each attribute that was there but could not be read, as a record of
 * its own: where, and why.  Past the first INFO_UNREADABLE_MAX the last
 * one says how many more there were.
 */
static void show_unreadable(struct out *o, const struct info_card *c)
{
	unsigned shown = c->unreadable_count < INFO_UNREADABLE_MAX ?
			 c->unreadable_count : INFO_UNREADABLE_MAX;
	char why[SYSATTR_WHY_BYTES + 64];

	for (unsigned i = 0; i < shown; i++) {
		snprintf(why, sizeof(why), "%s", c->unreadable[i].why);
		if (i + 1 == shown && c->unreadable_count > shown)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "; %u more attributes could not be read",
				 c->unreadable_count - shown);
		out_record(o, "unreadable");
		out_section(o, "unreadable", "unreadable");
		put_s(o, "path", "path", c->unreadable[i].path);
		put_s(o, "reason", "why", why);
		out_end(o, "unreadable");
	}
}

int info_print(const struct info_device *dev, const struct info_card *card,
	       enum render_format format, FILE *out, char *err, size_t errlen)
{
	bool is_card = card->transport == INFO_TRANSPORT_SD ||
		       card->transport == INFO_TRANSPORT_EMMC;
	struct out *o = calloc(1, sizeof(*o));

	if (o) {
		o->meta.device_size = card->has_size ? card->size_bytes : 0;
		o->meta.logical_block_size = card->logical_block_size;
		o->meta.command = dev->command;
		devname_from_card(dev, card, &o->names);
		o->meta.device_identity = o->names.has_identity ?
					  o->names.identity : NULL;
		o->meta.device_name = o->names.name;
	}
	if (!o || out_begin(o, out, format, "info", dev->path)) {
		free(o);
		info_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	out_record(o, "device");
	show_device(o, dev, card);
	out_record(o, "card");
	show_summary(o, card);
	/* text has a card's lines only for cards */
	o->quiet = !is_card;
	show_card(o, card);
	o->quiet = false;
	if (*card->sysfs_dir) {
		out_record(o, "link");
		show_link(o, card);
	}
	show_registers(o, card);
	out_record(o, "emmc");
	if (card->has_emmc)
		show_emmc(o, &card->emmc);
	else
		out_null_section(o, "emmc");
	show_unreadable(o, card);
	return finish_out(o, out, err, errlen);
}

int info_show(const struct info_device *dev, const char *sysfs_root,
	      enum render_format format, FILE *out, char *err, size_t errlen)
{
	struct info_card *card = malloc(sizeof(*card));
	int ret;

	if (!card) {
		info_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = info_read_card(dev, sysfs_root, card, err, errlen);
	if (ret == 0)
		ret = info_print(dev, card, format, out, err, errlen);
	free(card);
	return ret;
}
