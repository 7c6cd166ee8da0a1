/*
 * hostlink: the host link a device sits behind, and the most it can carry.
 * For an SD or eMMC card that is the MMC host's bus as the kernel's
 * debugfs file mmcN/ios shows it (clock, bus width, timing mode, signal
 * voltage); for a USB device, the USB signalling rate and the storage
 * driver (usb-storage or uas).  From those it works out the ceiling in
 * bytes per second and, against what the card's registers claim, whether
 * the link rather than the card limits the speed a test measures.
 * Everything here is pure: infosysfs.c reads the files, info.c and
 * speed.c show the result.
 */
#ifndef FLASHBENCH_LINK_H
#define FLASHBENCH_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/sysattr.h"

#define LINK_PATH_BYTES 4096
#define LINK_REASON_BYTES 1024

enum link_bus {
	LINK_BUS_NONE,		/* no host link to speak of: loop, NVMe... */
	LINK_BUS_SD,		/* SD card on an MMC host */
	LINK_BUS_MMC,		/* eMMC or MMC card on an MMC host */
	LINK_BUS_USB,
};

/* How far reading the link got. */
enum link_state {
	LINK_READ,		/* ios, or the USB attributes, were read */
	LINK_NO_HOST,		/* sysfs does not show the card's MMC host */
	LINK_NO_DEBUGFS,	/* <debugfs>/mmcN/ios does not exist */
	LINK_UNREADABLE,	/* it is there but cannot be read: read_why,
				   or read_errno */
	LINK_UNPARSED,		/* read, but not in the kernel's format */
	LINK_NO_USB_SPEED,	/* no USB device with a speed above the disk */
};

/* A tri-state answer: the link limits the card, does not, or unknown. */
enum link_answer {
	LINK_UNKNOWN = -1,
	LINK_NO = 0,
	LINK_YES = 1,
};

/*
 * The lines of debugfs mmcN/ios, as drivers/mmc/core/debugfs.c prints
 * them ("clock:\t\t50000000 Hz", "timing spec:\t2 (sd high-speed)").
 */
struct link_ios {
	bool has_clock;
	uint64_t clock_hz;		/* what the core asked for */
	bool has_actual_clock;
	uint64_t actual_clock_hz;	/* what the controller made of it */
	bool has_bus_width;
	unsigned bus_width_bits;	/* 1, 4 or 8 */
	bool has_timing;
	unsigned timing_code;		/* MMC_TIMING_* */
	char timing[40];		/* "sd high-speed", as printed */
	bool has_signal_voltage;
	char signal_voltage[16];	/* "3.30 V" */
	bool has_power_mode;
	unsigned power_mode;		/* 0 off, 1 up, 2 on */
	bool has_vdd;
	unsigned vdd;			/* bit number of the OCR voltage */
	bool has_driver_type;
	unsigned driver_type;
};

/* A USB device's link, from sysfs. */
struct link_usb {
	bool has_speed;
	uint64_t speed_kbit;		/* "480" in sysfs: 480000 */
	char version[16];		/* "2.00"; "" when not shown */
	char driver[32];		/* the interface's: "usb-storage", "uas" */
};

/* What the card's registers claim, for the verdict; all 0 if unknown. */
struct link_claims {
	bool known;			/* the SD status register was read */
	unsigned speed_class;		/* 2, 4, 6, 10 */
	unsigned uhs_grade;		/* 1, 3 */
	unsigned video_class;		/* 6 ... 90 */
	unsigned app_class;		/* 1, 2 */
};

struct link_info {
	enum link_bus bus;
	enum link_state state;
	int read_errno;			/* LINK_UNREADABLE */
	char read_why[SYSATTR_WHY_BYTES];	/* and why: "Permission
						   denied", "not a regular
						   file (a FIFO)" */
	char host[32];			/* "mmc0" */
	char ios_path[LINK_PATH_BYTES];	/* where ios was looked for */
	struct link_ios ios;
	struct link_usb usb;
	/* worked out by link_judge */
	bool has_ceiling;
	uint64_t ceiling_bytes_per_s;
	bool clock_off;			/* ios showed 0 Hz: mode's maximum used */
	enum link_answer limits_card;
	char reason[LINK_REASON_BYTES];
};

/*
 * Parse the text of an ios file.  Lines that are missing are left
 * unknown; returns 0, or -EINVAL when neither a clock nor a timing line is
 * there (not the kernel's format).
 */
int link_parse_ios(const char *text, struct link_ios *ios);

/* Parse a sysfs USB "speed" ("1.5", "12", "480", "5000"); false if not. */
bool link_parse_usb_speed(const char *text, uint64_t *speed_kbit);

/*
 * The most an MMC bus in the ios's state carries, in bytes per second;
 * false when the timing or bus width is not known.  *clock_off is set
 * when the clock read 0 Hz (a host that gates an idle clock) and the
 * timing mode's highest clock was used instead.
 */
bool link_mmc_ceiling(const struct link_ios *ios, uint64_t *bytes_per_s,
		      bool *clock_off);

/* The practical ceiling of a USB link; false when its speed is unknown. */
bool link_usb_ceiling(const struct link_usb *usb, uint64_t *bytes_per_s);

/* The sustained write rate the card's classes promise, bytes/s; 0: none. */
double link_claimed_bytes_per_s(const struct link_claims *claims);

/* Whether the claims show a UHS-I card (a UHS grade, or V30 and up). */
bool link_claims_uhs(const struct link_claims *claims);

/*
 * Work out the ceiling, limits_card and the reason sentence from what
 * was read into link (bus, state, ios or usb) and what the card claims.
 * debugfs_root is named in the reason when debugfs could not be read.
 */
void link_judge(struct link_info *link, const struct link_claims *claims,
		const char *debugfs_root);

/*
 * Whether a class needing required_bytes_per_s cannot be shown through
 * this link: its ceiling is known and below the requirement.
 */
bool link_below(const struct link_info *link, double required_bytes_per_s);

/*
 * Whether measured_bytes_per_s is more than the link can carry at all
 * (the MMC ceiling, or for USB the bulk rate before the driver's share,
 * with 5% for timing noise): then the reading does not describe the path
 * the data took (a stale mode, a recorded tree, a wrong device).
 */
bool link_exceeded(const struct link_info *link,
		   double measured_bytes_per_s);

/* measured / ceiling, or NaN when the ceiling is not known. */
double link_ceiling_share(const struct link_info *link,
			  double measured_bytes_per_s);

/*
 * One line of the link as --info shows it.  key: the JSON member (NULL:
 * text only); label: the text label (NULL: machine formats only).  value
 * is the JSON value's text: a string when is_string, else a number or
 * boolean as written; known false writes null.
 */
struct link_field {
	const char *key;
	const char *label;
	bool is_string;
	bool known;
	char value[LINK_REASON_BYTES];
	char text[LINK_REASON_BYTES];
};

#define LINK_FIELDS_MAX 12

/* The link's fields for --info, in order; returns how many. */
size_t link_fields(const struct link_info *link, struct link_field *fields,
		   size_t max);

/* The link's JSON bus ("sd", "mmc", "usb"; NULL: none) and timing (the
   kernel's name, or the USB speed's; NULL: not read). */
const char *link_bus_name(const struct link_info *link);
const char *link_timing_name(const struct link_info *link);

/* The MMC host's ios was read: its clock, width and voltage mean something. */
bool link_mmc_read(const struct link_info *link);

/* The clock the card runs at: the actual one when the host says it. */
uint64_t link_clock_hz(const struct link_info *link);

#endif
