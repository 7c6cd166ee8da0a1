/*
 * info: a device's identity as records that output/render.c renders
 * (aligned text, CSV or JSON), from the struct info_card that
 * identity/infosysfs.c gathers (as lsblk gathers, then renders), and
 * single registers decoded by identity/inforeg.c.  It reads nothing but
 * that struct and judges no promise a card's registers make.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "identity/devname.h"
#include "identity/inforeg.h"
#include "identity/infosysfs.h"
#include "identity/infoutil.h"
#include "records/hostlink.h"
#include "records/info.h"
#include "records/infoout.h"

/* ---- register sections ---- */

static const char *revision_text(char *buf, size_t len, uint8_t prv)
{
	snprintf(buf, len, "%u.%u", prv >> 4, prv & 15);
	return buf;
}

static void show_cid(struct info_out *o, const struct info_cid *cid)
{
	const char *maker = info_manufacturer(cid->manfid, cid->mmc);
	static const char *const cbx[] = { "card", "BGA", "PoP", "reserved" };
	char text[96], date[16], rev[16];
	bool month_ok = cid->month >= 1 && cid->month <= 12;

	info_put_s(o, "layout", "layout", cid->mmc ? "mmc" : "sd");
	snprintf(text, sizeof(text), "%s (0x%02" PRIx32 ")",
		 maker ? maker : "unknown", cid->manfid);
	info_put_str(o, "manufacturer", NULL, maker);
	info_put_text(o, RECORD_LABEL, NULL, "manufacturer", NULL, text);
	info_put_hex(o, "manfid", NULL, true, cid->manfid, 6);
	if (!cid->mmc && isprint(cid->oemid >> 8) && isprint(cid->oemid & 255))
		snprintf(text, sizeof(text), "0x%04x \"%c%c\"", cid->oemid,
			 cid->oemid >> 8, cid->oemid & 255);
	else
		snprintf(text, sizeof(text), "0x%04x", cid->oemid);
	info_put_hex(o, "oemid", NULL, true, cid->oemid, 4);
	info_put_text(o, RECORD_LABEL, NULL, "oem id", NULL, text);
	if (cid->mmc)
		info_put_s(o, "package", "package", cbx[cid->cbx & 3]);
	info_put_s(o, "name", "name", cid->name);
	info_put_s(o, "revision", "revision",
	      revision_text(rev, sizeof(rev), cid->prv));
	info_put_hex(o, "serial", "serial", true, cid->serial, 8);
	snprintf(date, sizeof(date), "%04u-%02u", cid->year, cid->month);
	snprintf(text, sizeof(text), "%s%s", date,
		 month_ok ? "" : " (invalid month)");
	info_put_str(o, "date", NULL, month_ok ? date : NULL);
	info_put_text(o, RECORD_LABEL, NULL, "date", NULL, text);
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

static void show_ccc(struct info_out *o, unsigned ccc)
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
	info_put_text(o, RECORD_LABEL, "command_classes", "command classes",
		      json, text);
}

static void show_csd_timing(struct info_out *o, const struct info_csd *csd)
{
	char text[64], json[32], t[32];

	snprintf(json, sizeof(json), "%" PRIu32, csd->tran_kbit);
	if (csd->tran_kbit)
		snprintf(text, sizeof(text), "%g Mbit/s per line (0x%02x)",
			 csd->tran_kbit / 1000.0, csd->tran_speed);
	else
		snprintf(text, sizeof(text), "reserved coding (0x%02x)",
			 csd->tran_speed);
	info_put_text(o, RECORD_COUNT, "max_transfer_kbit_per_s",
		      "max transfer rate",
		 csd->tran_kbit ? json : NULL, text);
	snprintf(text, sizeof(text), "%s + %u clocks (0x%02x, 0x%02x)",
		 info_human_time_ps(t, sizeof(t), csd->taac_ps),
				    csd->nsac * 100,
		 csd->taac, csd->nsac);
	snprintf(json, sizeof(json), "%" PRIu64, csd->taac_ps / 1000);
	info_put_text(o, RECORD_TIME, "read_access_ns", NULL, json, NULL);
	info_put_u64(o, "read_access_clocks", NULL, true, csd->nsac * 100ULL);
	info_put_text(o, RECORD_LABEL, NULL, "read access time", NULL, text);
	snprintf(text, sizeof(text), "x%u", 1u << csd->r2w_factor);
	info_put_u64(o, "r2w_factor", NULL, true, csd->r2w_factor);
	info_put_text(o, RECORD_LABEL, NULL, "write speed factor", NULL, text);
}

static void show_csd_erase(struct info_out *o, const struct info_csd *csd)
{
	char text[48];

	info_put_size(o, "erase_sector_bytes",
		 csd->mmc ? "erase group" : "erase sector", true,
		 csd->erase_bytes);
	if (!csd->mmc)
		info_put_bool(o, "erase_single_block", "single-block erase",
			      true,
			 csd->erase_blk_en);
	snprintf(text, sizeof(text), "%u erase %s", csd->wp_grp_size + 1,
		 csd->mmc ? "group(s)" : "sector(s)");
	info_put_u64(o, "wp_group_sectors", NULL, true,
		     csd->wp_grp_size + 1ULL);
	info_put_text(o, RECORD_LABEL, NULL, "write protect group", NULL, text);
	info_put_bool(o, "wp_group_enable", "group write protection", true,
		 csd->wp_grp_enable);
	info_put_bool(o, "perm_write_protect", "permanent write protect", true,
		 csd->perm_write_protect);
	info_put_bool(o, "tmp_write_protect", "temporary write protect", true,
		 csd->tmp_write_protect);
	info_put_bool(o, "copy", "copy flag", true, csd->copy);
}

static void show_csd(struct info_out *o, const struct info_csd *csd)
{
	info_put_s(o, "layout", "layout", csd->mmc ? "mmc" : "sd");
	info_put_u64(o, "structure_code", NULL, true, csd->structure);
	info_put_s(o, "structure", "structure", csd_structure_text(csd));
	if (csd->mmc)
		info_put_u64(o, "spec_vers", "spec version code", true,
			csd->spec_vers);
	info_put_u64(o, "c_size", "c_size", true, csd->c_size);
	if (csd->mmc || csd->structure == 0)
		info_put_u64(o, "c_size_mult", "c_size_mult", true,
			csd->c_size_mult);
	if (csd->capacity_known)
		info_put_size(o, "capacity_bytes", "capacity", true,
			 csd->capacity_bytes);
	else
		info_put_text(o, RECORD_BYTES, "capacity_bytes", "capacity",
			      NULL,
			 "in EXT_CSD (over 2 GB)");
	info_put_size(o, "read_block_bytes", "read block length", true,
		 1ULL << csd->read_bl_len);
	info_put_size(o, "write_block_bytes", "write block length", true,
		 1ULL << csd->write_bl_len);
	info_put_bool(o, "read_partial", "partial block reads", true,
		 csd->read_bl_partial);
	show_csd_timing(o, csd);
	show_ccc(o, csd->ccc);
	show_csd_erase(o, csd);
}

static void show_scr_bits(struct info_out *o, const struct info_scr *scr)
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
	info_put_text(o, RECORD_LABEL, "commands", "optional commands", json,
		      t ? text : "none");
	t = (size_t)snprintf(text, sizeof(text), "%s%s",
			     scr->bus_widths & 1 ? "1" : "",
			     scr->bus_widths & 4 ?
			     (scr->bus_widths & 1 ? ", 4" : "4") : "");
	snprintf(text + t, sizeof(text) - t, " bit (0x%x)", scr->bus_widths);
	snprintf(json, sizeof(json), "%u", scr->bus_widths);
	info_put_text(o, RECORD_COUNT, "bus_widths", "bus widths", json, text);
}

static void show_scr(struct info_out *o, const struct info_scr *scr)
{
	static const char *const security[8] = {
		"none", "not used", "SDSC (CPRM 1.01)", "SDHC (CPRM 2.00)",
		"SDXC (CPRM 3.xx)", "reserved", "reserved", "reserved",
	};

	info_put_u64(o, "structure", "structure", true, scr->structure);
	info_put_s(o, "version", "physical layer", scr->version);
	info_put_u64(o, "sd_spec", NULL, true, scr->sd_spec);
	info_put_bool(o, "sd_spec3", NULL, true, scr->spec3);
	info_put_bool(o, "sd_spec4", NULL, true, scr->spec4);
	info_put_u64(o, "sd_specx", NULL, true, scr->specx);
	info_put_s(o, "security", "security", security[scr->security & 7]);
	info_put_u64(o, "ex_security", NULL, true, scr->ex_security);
	show_scr_bits(o, scr);
	info_put_s(o, "erased_byte", "erased blocks read",
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

/* A speed class: "U3" or "none" for people, the number for machines. */
static void put_class(struct info_out *o, const char *key, const char *label,
		      const char *prefix, unsigned value)
{
	char text[48], json[16];

	snprintf(json, sizeof(json), "%u", value);
	class_text(text, sizeof(text), prefix, value);
	info_put_text(o, RECORD_COUNT, key, label, json, text);
}

static void show_ssr_classes(struct info_out *o, const struct info_ssr *ssr)
{
	char text[48], json[16];

	snprintf(json, sizeof(json), "%u", ssr->speed_class);
	snprintf(text, sizeof(text), "%s%u (code %u)",
		 ssr->speed_class ? "C" : "class ", ssr->speed_class,
		 ssr->speed_class_code);
	info_put_text(o, RECORD_COUNT, "speed_class", "speed class", json,
		      text);
	put_class(o, "uhs_grade", "UHS speed grade", "U", ssr->uhs_grade);
	put_class(o, "video_class", "video speed class", "V",
		  ssr->video_class);
	put_class(o, "app_class", "application class", "A", ssr->app_class);
}

static void show_ssr(struct info_out *o, const struct info_ssr *ssr)
{
	char text[64];

	info_put_u64(o, "bus_width", NULL, true, ssr->bus_width);
	info_put_text(o, RECORD_LABEL, NULL, "bus width", NULL,
		 ssr->bus_width == 2 ? "4 bit" :
		 ssr->bus_width == 0 ? "1 bit" : "reserved");
	info_put_bool(o, "secured_mode", "secured mode", true, ssr->secured);
	info_put_hex(o, "card_type", "card type", true, ssr->card_type, 4);
	info_put_u64(o, "protected_area", "protected area", true,
		ssr->protected_area);
	show_ssr_classes(o, ssr);
	info_put_u64(o, "performance_move_mb_per_s", "move performance MB/s",
		     true,
		ssr->performance_move);
	info_put_size(o, "au_size_bytes", "AU size", ssr->au_code != 0,
		 ssr->au_bytes);
	info_put_u64(o, "erase_size_aus", NULL, true, ssr->erase_size);
	info_put_u64(o, "erase_timeout_s", NULL, true, ssr->erase_timeout);
	info_put_u64(o, "erase_offset_s", NULL, true, ssr->erase_offset);
	snprintf(text, sizeof(text), "%u AUs in %u s, offset %u s",
		 ssr->erase_size, ssr->erase_timeout, ssr->erase_offset);
	info_put_text(o, RECORD_LABEL, NULL, "erase timing", NULL, text);
	info_put_size(o, "uhs_au_size_bytes", "UHS AU size",
		 ssr->uhs_au_code != 0, ssr->uhs_au_bytes);
	info_put_u64(o, "vsc_au_size", "video AU size code", true,
		ssr->vsc_au_size);
	info_put_hex(o, "performance_enhance", "performance enhance", true,
		ssr->performance_enhance, 2);
	info_put_bool(o, "discard", "discard", true, ssr->discard);
	info_put_bool(o, "fule", "full user area erase", true, ssr->fule);
}

/* The register kind names ("cid", "csd", "scr", "ssr") of r. */
static void show_register(struct info_out *o, const char *kind,
			  const struct info_register *r)
{
	if (!strcmp(kind, "cid"))
		show_cid(o, &r->cid);
	else if (!strcmp(kind, "csd"))
		show_csd(o, &r->csd);
	else if (!strcmp(kind, "scr"))
		show_scr(o, &r->scr);
	else
		show_ssr(o, &r->ssr);
}

/* ---- info_decode ---- */

int info_decode(const char *kind, const char *hex,
		enum render_format format, const char *command, FILE *out,
		char *err, size_t errlen)
{
	struct info_register r;
	char test[32];
	struct info_out *o;
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
	if (!o || info_out_begin(o, out, format, test, NULL)) {
		free(o);
		info_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	info_out_record(o, kind);
	info_put_s(o, "register", NULL, kind);
	info_out_section(o, NULL, kind);
	show_register(o, kind, &r);
	return info_out_close(o, out, err, errlen);
}

/* ---- a whole card: info_print, info_show ---- */

static void show_partition(struct info_out *o, const struct info_card *c)
{
	if (!c->is_partition) {
		info_out_null_section(o, "partition");
		return;
	}
	info_out_section(o, "partition", "partition");
	info_put_s(o, "name", "name", c->partition);
	info_put_u64(o, "number", "number", true, c->partition_number);
	info_put_size(o, "start_bytes", "start", c->has_partition_range,
		 c->partition_start_bytes);
	info_put_size(o, "size_bytes", "size", c->has_partition_range,
		 c->partition_size_bytes);
	/* text says it on the device's size line */
	info_put_size(o, "disk_size_bytes", NULL, c->has_disk_size,
		 c->disk_size_bytes);
	info_out_end(o, "partition");
}

static void show_discard(struct info_out *o, const struct info_queue *q)
{
	if (q->has_discard_max_bytes)
		info_put_bool(o, "discard", "discard", true,
			 q->discard_max_bytes != 0);
	else
		info_put_bool(o, "discard", "discard",
			      q->has_discard_granularity,
			 q->discard_granularity != 0);
	info_put_size(o, "discard_granularity_bytes", "discard granularity",
		 q->has_discard_granularity, q->discard_granularity);
	info_put_size(o, "discard_max_bytes", "discard max bytes",
		 q->has_discard_max_bytes, q->discard_max_bytes);
}

static void show_queue(struct info_out *o, const struct info_card *c)
{
	const struct info_queue *q = &c->queue;

	if (*c->sysfs_dir)
		info_put_u64(o, "logical_block_bytes", "logical block size",
			c->has_logical_block_size, c->logical_block_size);
	info_put_u64(o, "physical_block_bytes", "physical block size",
		q->has_physical_block_size, q->physical_block_size);
	info_put_u64(o, "minimum_io_bytes", "minimum I/O size",
		q->has_minimum_io_size, q->minimum_io_size);
	info_put_u64(o, "optimal_io_bytes", "optimal I/O size",
		q->has_optimal_io_size, q->optimal_io_size);
	show_discard(o, q);
	info_put_bool(o, "rotational", "rotational", q->has_rotational,
		 q->rotational);
	info_put_bool(o, "removable", "removable", q->has_removable,
		      q->removable);
	info_put_bool(o, "read_only", "read-only", q->has_read_only,
		      q->read_only);
}

/*
 * The size of the device named, which every test measures; a partition
 * adds its disk's, which the card's registers describe:
 * "67108864 (64 MiB), partition of a 256 MiB disk".
 */
static void put_device_size(struct info_out *o, const struct info_card *c)
{
	char num[32], text[128], h[32], disk[32];

	if (!c->is_partition || !c->has_size || !c->has_disk_size) {
		info_put_size(o, "size_bytes", "size", c->has_size,
			      c->size_bytes);
		return;
	}
	snprintf(num, sizeof(num), "%" PRIu64, c->size_bytes);
	snprintf(text, sizeof(text), "%s (%s), partition of a %s disk", num,
		 info_human_size(h, sizeof(h), c->size_bytes),
		 info_human_size(disk, sizeof(disk), c->disk_size_bytes));
	info_put_text(o, RECORD_BYTES, "size_bytes", "size", num, text);
}

static void show_device(struct info_out *o, const struct info_device *d,
			const struct info_card *c)
{
	const struct info_queue *q = &c->queue;
	bool card = c->transport == INFO_TRANSPORT_SD ||
		    c->transport == INFO_TRANSPORT_EMMC;
	/* only devices on a bus have them, and cards show their CID */
	bool bus_labels = !card && *c->sysfs_dir && q->on_bus;

	info_out_section(o, NULL, "device");
	info_put_s(o, "path", "path", d->path);
	info_put_s(o, "transport", NULL, info_transport_name(c->transport));
	info_put_s(o, NULL, "transport", info_transport_label(c->transport));
	info_put_s(o, "disk", *c->disk ? "sysfs disk" : NULL,
	      *c->disk ? c->disk : NULL);
	put_device_size(o, c);
	if (!*c->sysfs_dir) {
		/* files and simulated cards: sysfs has nothing to say */
		info_put_u64(o, "logical_block_bytes", "logical block size",
			c->has_logical_block_size, c->logical_block_size);
		o->quiet = true;
	}
	show_queue(o, c);
	info_put_attr(o, "vendor", bus_labels ? "vendor" : NULL, q->has_vendor,
		 q->vendor);
	info_put_attr(o, "model", bus_labels ? "model" : NULL, q->has_model,
		 q->model);
	info_put_attr(o, "backing_file", c->transport == INFO_TRANSPORT_LOOP ?
		 "backing file" : NULL, q->has_backing_file, q->backing_file);
	o->quiet = false;
	show_partition(o, c);
}

/* The fields every JSON report has at its top level. */
static void show_summary(struct info_out *o, const struct info_card *c)
{
	char date[16];

	info_put_str(o, "card_type", NULL, *c->card_type ? c->card_type : NULL);
	info_put_str(o, "manufacturer", NULL, c->manufacturer);
	info_put_hex(o, "manfid", NULL, c->has_manfid, c->manfid, 6);
	info_put_hex(o, "oemid", NULL, c->has_oemid, c->oemid, 4);
	info_put_str(o, "name", NULL, c->has_name ? c->name : NULL);
	info_put_hex(o, "serial", NULL, c->has_serial, c->serial, 8);
	snprintf(date, sizeof(date), "%04u-%02u", c->year, c->month);
	info_put_str(o, "date", NULL, c->has_date && c->month >= 1 &&
		c->month <= 12 ? date : NULL);
	info_put_u64(o, "capacity_bytes", NULL, c->has_capacity,
		c->capacity_bytes);
	info_put_u64(o, "erase_size_bytes", NULL, c->has_erase_size,
		     c->erase_size);
	info_put_u64(o, "preferred_erase_size_bytes", NULL,
		c->has_preferred_erase_size, c->preferred_erase_size);
	info_put_u64(o, "speed_class", NULL, c->has_speed, c->speed_class);
	info_put_u64(o, "uhs_grade", NULL, c->has_speed, c->uhs_grade);
	info_put_u64(o, "video_class", NULL, c->has_speed, c->video_class);
	info_put_u64(o, "app_class", NULL, c->has_speed, c->app_class);
	info_put_u64(o, "au_size_bytes", NULL, c->has_speed && c->au_size_bytes,
		c->au_size_bytes);
}

/* The CSD describes the whole card: its disk, whatever the path named. */
static void show_capacity_check(struct info_out *o, const struct info_card *c)
{
	char text[96], h[32], json[32];
	uint64_t diff;
	bool smaller;

	if (!c->has_capacity || !c->has_disk_size) {
		info_put_text(o, RECORD_LABEL, "capacity_check",
			      "capacity check", NULL, NULL);
		return;
	}
	if (c->capacity_bytes == c->disk_size_bytes) {
		info_put_text(o, RECORD_LABEL, "capacity_check",
			      "capacity check", "\"matches\"",
			 "matches the block device");
		info_put_text(o, RECORD_BYTES, "capacity_difference_bytes",
			      NULL, "0", NULL);
		return;
	}
	smaller = c->disk_size_bytes < c->capacity_bytes;
	diff = smaller ? c->capacity_bytes - c->disk_size_bytes
		       : c->disk_size_bytes - c->capacity_bytes;
	snprintf(text, sizeof(text), "block device is %" PRIu64
		 " bytes (%s) %s", diff, info_human_size(h, sizeof(h), diff),
		 smaller ? "smaller" : "larger");
	info_put_text(o, RECORD_LABEL, "capacity_check", "capacity check",
		      "\"differs\"", text);
	snprintf(json, sizeof(json), "%s%" PRIu64, smaller ? "-" : "", diff);
	info_put_text(o, RECORD_BYTES, "capacity_difference_bytes", NULL, json,
		      NULL);
}

static void show_card(struct info_out *o, const struct info_card *c)
{
	info_out_section(o, NULL, "card");
	info_put_s(o, NULL, "type", *c->card_type ? c->card_type : NULL);
	info_put_size(o, NULL, "erase size", c->has_erase_size, c->erase_size);
	info_put_size(o, NULL, "preferred erase size",
		 c->has_preferred_erase_size, c->preferred_erase_size);
	info_put_size(o, NULL, "capacity from CSD", c->has_capacity,
		 c->capacity_bytes);
	show_capacity_check(o, c);
}

/* Index of the field keyed key in the record, or the last field. */
static unsigned field_index(const struct info_out *o, const char *key)
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
static void show_link(struct info_out *o, const struct info_card *c)
{
	struct link_field f[LINK_FIELDS_MAX];
	struct record link;
	unsigned at = 0;
	size_t n;

	if (c->link.bus == LINK_BUS_NONE) {
		info_out_null_section(o, "link");
		return;
	}
	if (c->link.state == LINK_NO_HOST)
		o->quiet = true;
	info_out_section(o, NULL, o->quiet ? NULL : "link");
	link_record(&c->link, &link);
	for (unsigned i = 0; i < link.count; i++) {
		struct record_field *field = info_add_field(o,
							    link.fields[i].unit,
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
		info_format_line(line, sizeof(line), label, f[i].text);
		info_append(o->strings[at].lines, LINES_BYTES, line);
	}
	o->quiet = false;
}

static void show_life(struct info_out *o, const struct info_emmc *e)
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
		info_put_text(o, RECORD_LABEL, NULL, "life time", NULL, text);
	} else {
		info_put_text(o, RECORD_LABEL, NULL, "life time", NULL, NULL);
	}
	info_put_s(o, "life_time", NULL, *e->life_time ? e->life_time : NULL);
	if (e->has_pre_eol_info)
		info_put_s(o, "pre_eol_info", "pre-EOL info",
		      e->pre_eol_info < 4 ? eol[e->pre_eol_info] : "reserved");
	else
		info_put_s(o, "pre_eol_info", "pre-EOL info", NULL);
}

static void show_enhanced(struct info_out *o, const struct info_emmc *e)
{
	if (e->enhanced_unset) {
		info_put_text(o, RECORD_BYTES, "enhanced_area_offset_bytes",
			 "enhanced area", NULL, "not configured");
		info_put_text(o, RECORD_BYTES, "enhanced_area_size_bytes", NULL,
			 NULL, NULL);
		return;
	}
	info_put_size(o, "enhanced_area_offset_bytes", "enhanced area offset",
		 e->has_enhanced_area_offset, e->enhanced_area_offset);
	info_put_size(o, "enhanced_area_size_bytes", "enhanced area size",
		 e->has_enhanced_area_size, e->enhanced_area_bytes);
}

static void show_emmc(struct info_out *o, const struct info_emmc *e)
{
	info_out_section(o, "emmc", "emmc");
	info_put_attr(o, "ext_csd_rev", "EXT_CSD revision", e->has_ext_csd_rev,
		 e->ext_csd_rev);
	info_put_attr(o, "prv", "product revision", e->has_prv, e->prv);
	info_put_attr(o, "fwrev", "firmware", e->has_fwrev, e->fwrev);
	show_life(o, e);
	show_enhanced(o, e);
	info_put_size(o, "rpmb_size_bytes", "RPMB size", e->has_rpmb_size_mult,
		 e->rpmb_bytes);
	info_out_end(o, "emmc");
}

static void show_registers(struct info_out *o, const struct info_card *c)
{
	const struct info_register r = { .cid = c->cid, .csd = c->csd,
					 .scr = c->scr, .ssr = c->ssr };
	const struct {
		const char *kind;
		bool has;
	} regs[] = { { "cid", c->has_cid }, { "csd", c->has_csd },
		     { "scr", c->has_scr }, { "ssr", c->has_ssr } };

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		info_out_record(o, regs[i].kind);
		if (!regs[i].has) {
			info_out_null_section(o, regs[i].kind);
			continue;
		}
		info_out_section(o, regs[i].kind, regs[i].kind);
		show_register(o, regs[i].kind, &r);
		info_out_end(o, regs[i].kind);
	}
}

/*
 * Each attribute that was there but could not be read, as a record of
 * its own: where, and why.  Past the first INFO_UNREADABLE_MAX the last
 * one says how many more there were.
 */
static void show_unreadable(struct info_out *o, const struct info_card *c)
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
		info_out_record(o, "unreadable");
		info_out_section(o, "unreadable", "unreadable");
		info_put_s(o, "path", "path", c->unreadable[i].path);
		info_put_s(o, "reason", "why", why);
		info_out_end(o, "unreadable");
	}
}

int info_print(const struct info_device *dev, const struct info_card *card,
	       enum render_format format, FILE *out, char *err, size_t errlen)
{
	bool is_card = card->transport == INFO_TRANSPORT_SD ||
		       card->transport == INFO_TRANSPORT_EMMC;
	struct info_out *o = calloc(1, sizeof(*o));

	if (o) {
		o->meta.device_size = card->has_size ? card->size_bytes : 0;
		o->meta.logical_block_size = card->logical_block_size;
		o->meta.command = dev->command;
		devname_from_card(dev, card, &o->names);
		o->meta.device_identity = o->names.has_identity ?
					  o->names.identity : NULL;
		o->meta.device_name = o->names.name;
	}
	if (!o || info_out_begin(o, out, format, "info", dev->path)) {
		free(o);
		info_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	info_out_record(o, "device");
	show_device(o, dev, card);
	info_out_record(o, "card");
	show_summary(o, card);
	/* text has a card's lines only for cards */
	o->quiet = !is_card;
	show_card(o, card);
	o->quiet = false;
	if (*card->sysfs_dir) {
		info_out_record(o, "link");
		show_link(o, card);
	}
	show_registers(o, card);
	info_out_record(o, "emmc");
	if (card->has_emmc)
		show_emmc(o, &card->emmc);
	else
		info_out_null_section(o, "emmc");
	show_unreadable(o, card);
	return info_out_close(o, out, err, errlen);
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
