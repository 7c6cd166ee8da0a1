/*
 * card: what the identity code knows of a device - the types only.  The
 * transport, the SD/MMC registers CID, CSD, SCR and SSR, the queue, an
 * eMMC's EXT_CSD, the host link, gathered in struct info_card.
 * identity/infosysfs.c fills it from sysfs, identity/inforeg.c decodes
 * the registers into it, identity/info.c shows it.
 */
#ifndef FLASHBENCH_CARD_H
#define FLASHBENCH_CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "identity/hostlink.h"
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
	uint64_t size_bytes;		/* the device named: a partition's own */
	bool has_disk_size;
	uint64_t disk_size_bytes;	/* whole disk, which the CSD describes */
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

/* One register as --decode-* names it, decoded by info_decode_register. */
struct info_register {
	bool mmc;		/* the eMMC layout, from a "mmc:" prefix */
	struct info_cid cid;
	struct info_csd csd;
	struct info_scr scr;
	struct info_ssr ssr;
};

#endif
