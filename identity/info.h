/*
 * info: who a device is.  Reads sysfs (or a recorded copy of it) once into
 * a struct info_card (infosysfs.c), decodes the SD/MMC card registers CID,
 * CSD, SCR and SSR into names and numbers (inforeg.c), and shows the
 * result as text or JSON (info.c).  It does no I/O on the device and
 * measures nothing: what a card declares here is a claim that only a
 * benchmark can confirm.
 */
#ifndef FLASHBENCH_INFO_H
#define FLASHBENCH_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "identity/hostlink.h"
#include "output/report.h"
#include "lib/sysattr.h"

#define INFO_PATH_BYTES 4096
#define INFO_NAME_BYTES 64

enum info_transport {
	INFO_TRANSPORT_UNKNOWN,
	INFO_TRANSPORT_SD,		/* SD card on an MMC host */
	INFO_TRANSPORT_EMMC,		/* eMMC or MMC card */
	INFO_TRANSPORT_MMC,		/* other MMC bus device (SDIO combo) */
	INFO_TRANSPORT_USB,
	INFO_TRANSPORT_NVME,
	INFO_TRANSPORT_ATA,
	INFO_TRANSPORT_SCSI,
	INFO_TRANSPORT_VIRTIO,
	INFO_TRANSPORT_LOOP,
	INFO_TRANSPORT_DM,
	INFO_TRANSPORT_MD,
	INFO_TRANSPORT_FILE,		/* a regular file */
	INFO_TRANSPORT_SIMULATED,	/* a "sim:" device */
	INFO_TRANSPORT_COUNT
};

/*
 * The device as the caller names it.  size_bytes and logical_block_bytes
 * are what the caller learnt by opening it (0 = not known); they are used
 * for simulated devices and regular files, for which sysfs knows nothing.
 */
struct info_device {
	const char *path;
	uint64_t size_bytes;
	uint32_t logical_block_bytes;
	bool simulated;
	/* where debugfs is; NULL: kernel/debug under the sysfs root */
	const char *debugfs_root;
	const char *command;	/* the command line, for JSON; or NULL */
};

/* CID.  SD and eMMC place the fields differently; mmc says which. */
struct info_cid {
	bool mmc;
	uint32_t manfid;
	uint16_t oemid;		/* whole 16-bit field, as sysfs shows it */
	uint8_t cbx;		/* eMMC: 0 card, 1 BGA, 2 PoP */
	char name[8];		/* SD 5, eMMC 6 characters, '?' = unprintable */
	uint8_t prv;		/* product revision byte */
	uint32_t serial;
	unsigned year;
	unsigned month;		/* 1-12; 0 or 13-15 are invalid codings */
};

/* CSD.  Fields of the layout not used by a version read as 0. */
struct info_csd {
	bool mmc;
	unsigned structure;	/* CSD_STRUCTURE: SD 0 = v1.0, 1 = v2.0 ... */
	unsigned spec_vers;	/* eMMC SPEC_VERS */
	unsigned taac;
	unsigned nsac;
	unsigned tran_speed;
	uint64_t taac_ps;	/* 0 when the coding is reserved */
	uint32_t tran_kbit;	/* kbit/s per line; 0 when reserved */
	unsigned ccc;		/* command classes, bit n = class n */
	unsigned read_bl_len;	/* log2 of the block length */
	unsigned write_bl_len;
	bool read_bl_partial;
	bool write_bl_partial;
	bool read_blk_misalign;
	bool write_blk_misalign;
	bool dsr_imp;
	uint32_t c_size;
	unsigned c_size_mult;
	bool erase_blk_en;	/* SD */
	unsigned sector_size;	/* SD: erase sector = SECTOR_SIZE + 1 blocks */
	unsigned erase_grp_size;	/* eMMC */
	unsigned erase_grp_mult;	/* eMMC */
	unsigned wp_grp_size;
	bool wp_grp_enable;
	unsigned r2w_factor;
	bool file_format_grp;
	bool copy;
	bool perm_write_protect;
	bool tmp_write_protect;
	unsigned file_format;
	bool capacity_known;	/* false: eMMC over 2 GB keeps it in EXT_CSD */
	uint64_t capacity_bytes;
	uint64_t erase_bytes;	/* erase sector (SD) or group (eMMC) */
};

struct info_scr {
	unsigned structure;
	unsigned sd_spec;
	bool spec3;
	bool spec4;
	unsigned specx;
	bool erased_ones;	/* DATA_STAT_AFTER_ERASE: erased reads 0xff */
	unsigned security;
	unsigned bus_widths;	/* bit 0 = 1 bit, bit 2 = 4 bits */
	unsigned ex_security;
	unsigned cmd_support;	/* bits: CMD20, CMD23, CMD48/49, CMD58/59 */
	char version[8];	/* physical layer version, "3.0x" */
};

struct info_ssr {
	unsigned bus_width;	/* DAT_BUS_WIDTH code: 0 = 1 bit, 2 = 4 bits */
	bool secured;
	unsigned card_type;
	uint32_t protected_area;
	unsigned speed_class_code;
	unsigned speed_class;	/* 0, 2, 4, 6, 10; 0 also for reserved codes */
	unsigned performance_move;	/* MB/s, 255 = infinite */
	unsigned au_code;
	uint64_t au_bytes;	/* 0 when not defined */
	unsigned erase_size;	/* AUs erased in erase_timeout seconds */
	unsigned erase_timeout;
	unsigned erase_offset;
	unsigned uhs_grade;	/* 0, 1 (U1), 3 (U3) */
	unsigned uhs_au_code;
	uint64_t uhs_au_bytes;
	unsigned video_class;	/* 0, 6, 10, 30, 60, 90 */
	unsigned vsc_au_size;
	unsigned app_class;	/* 0, 1 (A1), 2 (A2) */
	unsigned performance_enhance;
	bool discard;
	bool fule;
};

#define INFO_ATTR_BYTES 256	/* longest attribute text kept, with NUL */

/* The whole disk's queue and bus attributes, as sysfs gives them. */
struct info_queue {
	bool has_physical_block_size;
	uint64_t physical_block_size;
	bool has_minimum_io_size;
	uint64_t minimum_io_size;
	bool has_optimal_io_size;
	uint64_t optimal_io_size;
	bool has_discard_max_bytes;
	uint64_t discard_max_bytes;
	bool has_discard_granularity;
	uint64_t discard_granularity;
	bool has_rotational;
	bool rotational;
	bool has_removable;
	bool removable;
	bool has_read_only;
	bool read_only;
	bool on_bus;			/* the disk has a device/ link */
	bool has_vendor;
	char vendor[INFO_ATTR_BYTES];
	bool has_model;
	char model[INFO_ATTR_BYTES];
	bool has_backing_file;		/* loop devices: a path, as long */
	char backing_file[INFO_PATH_BYTES];
};

/* What the kernel shows of an eMMC's EXT_CSD, in the card's directory. */
struct info_emmc {
	bool has_ext_csd_rev;
	char ext_csd_rev[INFO_ATTR_BYTES];
	bool has_prv;
	char prv[INFO_ATTR_BYTES];
	bool has_fwrev;
	char fwrev[INFO_ATTR_BYTES];
	bool has_life_time;
	char life_time[64];		/* "0x01 0x02": types A and B */
	bool has_pre_eol_info;
	uint64_t pre_eol_info;
	bool has_enhanced_area_offset;
	uint64_t enhanced_area_offset;	/* bytes */
	bool has_enhanced_area_size;
	uint64_t enhanced_area_size;	/* KiB */
	bool has_rpmb_size_mult;
	uint64_t rpmb_size_mult;	/* units of 128 KiB */

	/* what those mean, worked out by info_decode_ext_csd */
	bool has_life_codes;		/* life_time held two hex codes */
	unsigned life_a, life_b;	/* DEVICE_LIFE_TIME_EST_TYP_A, _B */
	bool enhanced_unset;		/* both read, as the kernel's -EINVAL */
	uint64_t enhanced_area_bytes;
	uint64_t rpmb_bytes;
};

#define INFO_UNREADABLE_MAX 8

struct info_unreadable {
	char path[INFO_PATH_BYTES];
	char why[SYSATTR_WHY_BYTES];	/* "not a regular file (a FIFO)" */
};

/*
 * Everything known about a device.  Each has_ flag says whether the fields
 * after it are known; a field not known is shown as "unknown" (null).
 */
struct info_card {
	enum info_transport transport;
	char sysfs_dir[INFO_PATH_BYTES];	/* whole disk; "" when none */
	char disk[INFO_NAME_BYTES];		/* whole-disk name, "mmcblk0" */
	char card_type[16];		/* sysfs device/type: "SD", "MMC" */

	bool is_partition;		/* the path named a partition */
	char partition[INFO_NAME_BYTES];
	unsigned partition_number;
	bool has_partition_range;
	uint64_t partition_start_bytes;
	uint64_t partition_size_bytes;

	bool has_size;
	uint64_t size_bytes;		/* whole disk */
	bool has_logical_block_size;
	uint32_t logical_block_size;

	const char *manufacturer;	/* NULL when the ID is not known */
	bool has_manfid;
	uint32_t manfid;
	bool has_oemid;
	uint16_t oemid;
	bool has_name;
	char name[8];
	bool has_serial;
	uint32_t serial;
	bool has_date;
	unsigned year;
	unsigned month;

	bool has_capacity;		/* from the CSD */
	uint64_t capacity_bytes;
	bool has_erase_size;
	uint64_t erase_size;
	bool has_preferred_erase_size;
	uint64_t preferred_erase_size;

	bool has_speed;			/* the SSR was read */
	unsigned speed_class;
	unsigned uhs_grade;
	unsigned video_class;
	unsigned app_class;
	uint64_t au_size_bytes;		/* 0 when the card leaves it open */

	bool has_cid;
	struct info_cid cid;
	bool has_csd;
	struct info_csd csd;
	bool has_scr;
	struct info_scr scr;
	bool has_ssr;
	struct info_ssr ssr;

	struct info_queue queue;	/* all unknown without a sysfs disk */
	bool has_emmc;			/* eMMC: the emmc fields were read */
	struct info_emmc emmc;

	/* the host link: bus LINK_BUS_NONE when there is none to read */
	struct link_info link;

	/*
	 * Attributes that are there but could not be read (a FIFO, a file
	 * larger than any attribute, a read error), shown as unknown: the
	 * first INFO_UNREADABLE_MAX, and how many there were.
	 */
	unsigned unreadable_count;
	struct info_unreadable unreadable[INFO_UNREADABLE_MAX];
};

/* Machine name ("sd", "emmc", "usb"...) and human label of a transport. */
const char *info_transport_name(enum info_transport transport);
const char *info_transport_label(enum info_transport transport);

/* Manufacturer of an SD (mmc false) or eMMC ID; NULL when not known. */
const char *info_manufacturer(uint32_t manfid, bool mmc);

/*
 * Decode one register from hex as sysfs prints it: optional "0x", then
 * 32 (CID, CSD), 16 (SCR) or 128 (SSR) hex digits, most significant
 * first; blanks anywhere are ignored.  Return 0, or -EINVAL with a
 * one-line message in err ("cid: expected 32 hex digits, got 31").
 */
int info_decode_cid(const char *hex, bool mmc, struct info_cid *cid,
		    char *err, size_t errlen);
int info_decode_csd(const char *hex, bool mmc, struct info_csd *csd,
		    char *err, size_t errlen);
int info_decode_scr(const char *hex, struct info_scr *scr,
		    char *err, size_t errlen);
int info_decode_ssr(const char *hex, struct info_ssr *ssr,
		    char *err, size_t errlen);

/*
 * Work out what an eMMC's EXT_CSD attributes mean: the life-time codes of
 * life_time, whether the enhanced area is configured, sizes in bytes.
 * Fills the decoded fields of e from the attributes read into it.
 */
void info_decode_ext_csd(struct info_emmc *e);

/* One register as --decode-* names it, decoded by info_decode_register. */
struct info_register {
	bool mmc;		/* the eMMC layout, from a "mmc:" prefix */
	struct info_cid cid;
	struct info_csd csd;
	struct info_scr scr;
	struct info_ssr ssr;
};

/*
 * Decode the register kind ("cid", "csd", "scr" or "ssr") from hex, which
 * for cid and csd may start with "sd:" (the default) or "mmc:" to choose
 * the layout; only the member kind names is filled.  Return 0, or -EINVAL
 * with a message in err.
 */
int info_decode_register(const char *kind, const char *hex,
			 struct info_register *reg, char *err, size_t errlen);

/*
 * Find the device in sysfs_root (NULL means "/sys") and fill card with
 * all that is shown of it: sysfs is read here, once, and not again while
 * printing.  A partition is resolved to its whole disk.  A path that does
 * not exist is looked up by its last component under sysfs_root, so
 * recorded trees work without device nodes.  For SD and eMMC cards the
 * host's debugfs ios (under dev->debugfs_root) is read too, for USB
 * devices the USB link, into card->link.  Every attribute is read
 * through sysattr_read: one that is there but cannot be read (a FIFO, a
 * file larger than any attribute) is unknown, and noted in
 * card->unreadable.  Return 0 or a negative errno with err set.
 */
int info_read_card(const struct info_device *dev, const char *sysfs_root,
		   struct info_card *card, char *err, size_t errlen);

/*
 * Print a card that info_read_card filled for dev, as records in format
 * (device, card, link, cid, csd, scr, ssr, emmc, then one unreadable
 * record for each attribute that could not be read); nothing is read from
 * sysfs here.  Return 0, or -EIO with
 * err set when the output cannot be written.
 */
int info_print(const struct info_device *dev, const struct info_card *card,
	       enum report_format format, FILE *out, char *err, size_t errlen);

/* info_read_card, then info_print. */
int info_show(const struct info_device *dev, const char *sysfs_root,
	      enum report_format format, FILE *out, char *err, size_t errlen);

/*
 * Decode one register as info_decode_register does, and print it;
 * command (or NULL) is the command line JSON names.
 * Return 0, or -EINVAL with a message in err.
 */
int info_decode(const char *kind, const char *hex,
		enum report_format format, const char *command, FILE *out,
		char *err, size_t errlen);

#endif
