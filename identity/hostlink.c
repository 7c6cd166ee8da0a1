/*
 * hostlink: the host link's ceiling and whether it limits the card.  The
 * ios parser follows the lines drivers/mmc/core/debugfs.c prints; the
 * ceilings follow the bus definitions (clock x data lines, twice per
 * clock for the DDR modes) and, for USB, what bulk transfers carry.  It
 * reads no files and prints nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity/hostlink.h"

#define MB 1e6

/* ---- MMC timing modes ---- */

/*
 * Each timing the kernel names in ios, with the highest clock its mode
 * defines.  The ceiling is clock x bus width / 8 bytes a second, doubled
 * for the double-data-rate modes, which move data on both clock edges:
 * - legacy (SD default speed 25 MHz, MMC 26 MHz) 4 bits: 12.5 MB/s
 * - SD high-speed 50 MHz x 4 bits / 8 = 25 MB/s
 * - UHS-I SDR50 100 MHz x 4 / 8 = 50 MB/s; SDR104 208 MHz x 4 / 8 =
 *   104 MB/s; DDR50 50 MHz x 4 x 2 / 8 = 50 MB/s
 * - MMC high-speed 52 MHz x 8 / 8 = 52 MB/s; DDR52 104 MB/s
 * - HS200 200 MHz x 8 / 8 = 200 MB/s; HS400 200 MHz x 8 x 2 / 8 = 400 MB/s
 * The clock used is the ios's "actual clock" where the kernel prints one
 * (what the controller's divider made), else "clock".
 */
struct timing {
	const char *kernel_name;	/* in ios, in parentheses */
	const char *label;		/* for people */
	uint64_t max_clock_hz;
	bool ddr;
	bool uhs;			/* a UHS-I bus mode (1.8 V signalling) */
	bool fastest;			/* no faster mode on this card's bus */
};

static const struct timing timings[] = {
	{ "legacy", "legacy (default speed)", 26000000, false, false, false },
	{ "mmc high-speed", "MMC high-speed", 52000000, false, false, false },
	{ "sd high-speed", "SD high-speed", 50000000, false, false, false },
	{ "sd uhs SDR12", "UHS-I SDR12", 25000000, false, true, false },
	{ "sd uhs SDR25", "UHS-I SDR25", 50000000, false, true, false },
	{ "sd uhs SDR50", "UHS-I SDR50", 100000000, false, true, false },
	{ "sd uhs SDR104", "UHS-I SDR104", 208000000, false, true, true },
	{ "sd uhs DDR50", "UHS-I DDR50", 50000000, true, true, false },
	{ "mmc DDR52", "MMC DDR52", 52000000, true, false, false },
	{ "mmc HS200", "HS200", 200000000, false, false, false },
	{ "mmc HS400", "HS400", 200000000, true, false, true },
	{ "mmc HS400 enhanced strobe", "HS400 enhanced strobe", 200000000,
	  true, false, true },
};

#define TIMING_COUNT (sizeof(timings) / sizeof(timings[0]))

static const struct timing *find_timing(const struct link_ios *ios)
{
	if (!ios->has_timing)
		return NULL;
	for (size_t i = 0; i < TIMING_COUNT; i++)
		if (!strcmp(timings[i].kernel_name, ios->timing))
			return &timings[i];
	return NULL;
}

/* ---- parsing ios ---- */

/* "50000000 Hz" */
static bool parse_hz(const char *s, uint64_t *hz)
{
	char *end;

	*hz = strtoull(s, &end, 10);
	return end != s && !strncmp(end, " Hz", 3);
}

/* "2 (sd high-speed)": the code, and the name inside the parentheses. */
static bool parse_named(const char *s, unsigned *code, char *name,
			size_t len)
{
	const char *open = strchr(s, '('), *close = strrchr(s, ')');
	char *end;

	*code = (unsigned)strtoul(s, &end, 10);
	if (end == s || !open || !close || close < open)
		return false;
	snprintf(name, len, "%.*s", (int)(close - open - 1), open + 1);
	return true;
}

static void take_clock(struct link_ios *ios, const char *value)
{
	ios->has_clock = parse_hz(value, &ios->clock_hz);
}

static void take_actual_clock(struct link_ios *ios, const char *value)
{
	ios->has_actual_clock = parse_hz(value, &ios->actual_clock_hz);
}

/* "2 (4 bits)": the kernel's code is log2 of the width. */
static void take_bus_width(struct link_ios *ios, const char *value)
{
	unsigned code, bits;

	if (sscanf(value, "%u (%u bits)", &code, &bits) == 2 &&
	    (bits == 1 || bits == 4 || bits == 8)) {
		ios->has_bus_width = true;
		ios->bus_width_bits = bits;
	}
}

static void take_timing(struct link_ios *ios, const char *value)
{
	ios->has_timing = parse_named(value, &ios->timing_code, ios->timing,
				      sizeof(ios->timing));
}

static void take_signal_voltage(struct link_ios *ios, const char *value)
{
	unsigned code;

	ios->has_signal_voltage = parse_named(value, &code,
					      ios->signal_voltage,
					      sizeof(ios->signal_voltage));
}

static bool take_number(const char *value, unsigned *n)
{
	char *end;

	*n = (unsigned)strtoul(value, &end, 10);
	return end != value;
}

static void take_power_mode(struct link_ios *ios, const char *value)
{
	ios->has_power_mode = take_number(value, &ios->power_mode);
}

static void take_vdd(struct link_ios *ios, const char *value)
{
	ios->has_vdd = take_number(value, &ios->vdd);
}

static void take_driver_type(struct link_ios *ios, const char *value)
{
	ios->has_driver_type = take_number(value, &ios->driver_type);
}

/* The lines of ios this reads; "bus mode" and "chip select" say nothing
   about speed and are passed over. */
static const struct {
	const char *name;
	void (*take)(struct link_ios *ios, const char *value);
} ios_lines[] = {
	{ "clock", take_clock },
	{ "actual clock", take_actual_clock },
	{ "vdd", take_vdd },
	{ "power mode", take_power_mode },
	{ "bus width", take_bus_width },
	{ "timing spec", take_timing },
	{ "signal voltage", take_signal_voltage },
	{ "driver type", take_driver_type },
};

static void parse_line(struct link_ios *ios, const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len);
	char value[128];
	size_t name_len, start;

	if (!colon)
		return;
	name_len = (size_t)(colon - line);
	start = name_len + 1;
	while (start < len && (line[start] == ' ' || line[start] == '\t'))
		start++;
	snprintf(value, sizeof(value), "%.*s", (int)(len - start),
		 line + start);
	for (size_t i = 0; i < sizeof(ios_lines) / sizeof(ios_lines[0]); i++)
		if (strlen(ios_lines[i].name) == name_len &&
		    !strncmp(ios_lines[i].name, line, name_len))
			ios_lines[i].take(ios, value);
}

int link_parse_ios(const char *text, struct link_ios *ios)
{
	*ios = (struct link_ios){ 0 };
	while (*text) {
		size_t len = strcspn(text, "\n");

		parse_line(ios, text, len);
		text += len + (text[len] == '\n');
	}
	return ios->has_clock || ios->has_timing ? 0 : -EINVAL;
}

bool link_parse_usb_speed(const char *text, uint64_t *speed_kbit)
{
	unsigned long whole;
	char *end;

	if (*text < '0' || *text > '9')
		return false;
	whole = strtoul(text, &end, 10);
	*speed_kbit = (uint64_t)whole * 1000;
	/* low speed is "1.5": tenths of a Mbit/s */
	if (end[0] == '.' && end[1] >= '0' && end[1] <= '9')
		*speed_kbit += (uint64_t)(end[1] - '0') * 100;
	return *speed_kbit > 0;
}

/* ---- ceilings ---- */

static uint64_t effective_clock(const struct link_ios *ios)
{
	if (ios->has_actual_clock && ios->actual_clock_hz)
		return ios->actual_clock_hz;
	return ios->has_clock ? ios->clock_hz : 0;
}

bool link_mmc_ceiling(const struct link_ios *ios, uint64_t *bytes_per_s,
		      bool *clock_off)
{
	const struct timing *t = find_timing(ios);
	uint64_t clock_hz = effective_clock(ios);

	*clock_off = false;
	if (!t || !ios->has_bus_width)
		return false;
	if (!clock_hz) {
		/* an idle host may stop the clock: the mode's top is the bound */
		clock_hz = t->max_clock_hz;
		*clock_off = true;
	}
	*bytes_per_s = clock_hz * ios->bus_width_bits * (t->ddr ? 2 : 1) / 8;
	return true;
}

/*
 * USB: what bulk transfers can carry at each signalling rate.
 * - full speed, 12 Mbit/s: at most 19 bulk packets of 64 bytes in each
 *   1 ms frame: 1.216 MB/s
 * - high speed, 480 Mbit/s: at most 13 bulk packets of 512 bytes in each
 *   125 us microframe: 13 x 512 x 8000 = 53.248 MB/s
 * - SuperSpeed, 5 Gbit/s: 8b/10b line coding leaves 4 Gbit/s, 500 MB/s;
 *   packet headers, link commands and flow control take about a tenth:
 *   450 MB/s
 * - SuperSpeed+, 10 Gbit/s: 128b/132b coding leaves 1212 MB/s, less the
 *   same tenth: 1091 MB/s; 20 Gbit/s runs two such lanes
 * What the storage driver leaves of that: usb-storage speaks bulk-only
 * transport, one command at a time, each with a command and a status
 * transfer around its data, and readers measured through it top out near
 * three quarters of the bulk rate (about 40 MB/s at high speed, the
 * 35-40 MB/s USB 2.0 readers show).  uas queues commands and overlaps
 * them: about nine tenths.  With the driver not known, the bulk rate
 * itself, an upper bound.
 */
static const struct {
	uint64_t speed_kbit;
	uint64_t bulk_bytes_per_s;
	const char *name;		/* the JSON timing */
	const char *label;
} usb_speeds[] = {
	{ 12000, 1216000, "usb full-speed", "full-speed, 12 Mbit/s" },
	{ 480000, 53248000, "usb high-speed", "high-speed, 480 Mbit/s" },
	{ 5000000, 450000000, "usb superspeed", "SuperSpeed, 5 Gbit/s" },
	{ 10000000, 1091000000, "usb superspeed+",
	  "SuperSpeed+, 10 Gbit/s" },
	{ 20000000, 2182000000ULL, "usb superspeed+ 20g",
	  "SuperSpeed+, 20 Gbit/s" },
};

#define USB_SPEED_COUNT (sizeof(usb_speeds) / sizeof(usb_speeds[0]))

/* Percent of the bulk rate the storage driver leaves, by driver. */
static const struct {
	const char *driver;
	unsigned percent;
	const char *protocol;
} usb_drivers[] = {
	{ "usb-storage", 75, "bulk-only transport" },
	{ "uas", 90, "USB attached SCSI" },
};

static int find_usb_speed(const struct link_usb *usb)
{
	if (!usb->has_speed)
		return -1;
	for (size_t i = 0; i < USB_SPEED_COUNT; i++)
		if (usb_speeds[i].speed_kbit == usb->speed_kbit)
			return (int)i;
	return -1;
}

static int find_usb_driver(const struct link_usb *usb)
{
	for (size_t i = 0; i < sizeof(usb_drivers) / sizeof(usb_drivers[0]);
	     i++)
		if (!strcmp(usb_drivers[i].driver, usb->driver))
			return (int)i;
	return -1;
}

bool link_usb_ceiling(const struct link_usb *usb, uint64_t *bytes_per_s)
{
	int speed = find_usb_speed(usb), driver = find_usb_driver(usb);
	unsigned percent = driver < 0 ? 100 : usb_drivers[driver].percent;

	if (speed < 0)
		return false;
	*bytes_per_s = usb_speeds[speed].bulk_bytes_per_s * percent / 100;
	return true;
}

/* ---- the card's claims ---- */

/* The slowest bus any SD card has: default speed, 25 MHz x 4 bits. */
#define SD_DEFAULT_SPEED_BYTES_PER_S 12500000.0

/* Sustained sequential write each class promises, MB/s. */
static unsigned uhs_grade_mb(unsigned grade)
{
	return grade >= 3 ? 30 : grade >= 1 ? 10 : 0;
}

double link_claimed_bytes_per_s(const struct link_claims *c)
{
	unsigned mb = c->speed_class;

	if (uhs_grade_mb(c->uhs_grade) > mb)
		mb = uhs_grade_mb(c->uhs_grade);
	if (c->video_class > mb)
		mb = c->video_class;
	if (c->app_class && mb < 10)
		mb = 10;	/* A1 and A2 include 10 MB/s sequential */
	return mb * MB;
}

/* V30 and faster exceed what a non-UHS bus (25 MB/s) can carry. */
bool link_claims_uhs(const struct link_claims *c)
{
	return c->known && (c->uhs_grade > 0 || c->video_class >= 30);
}

/* "C10 U3 V30 A2" */
static void claims_names(const struct link_claims *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (c->speed_class)
		n += (size_t)snprintf(buf + n, len - n, "C%u", c->speed_class);
	if (c->uhs_grade && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sU%u", n ? " " : "",
				      c->uhs_grade);
	if (c->video_class && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sV%u", n ? " " : "",
				      c->video_class);
	if (c->app_class && n < len)
		snprintf(buf + n, len - n, "%sA%u", n ? " " : "",
			 c->app_class);
}

/* ---- the verdict ---- */

/* "25 MB/s", "12.5 MB/s", "1091 MB/s" */
static void mb_text(char *buf, size_t len, double bytes_per_s)
{
	snprintf(buf, len, bytes_per_s >= 999.5e6 ? "%.0f MB/s" : "%.3g MB/s",
		 bytes_per_s / MB);
}

static const char *bus_word(enum link_bus bus)
{
	return bus == LINK_BUS_MMC ? "eMMC" : "card";
}

/* "the host runs this card at SD high-speed (50 MHz, 4 bits): at most
   25 MB/s" */
static void describe_mmc(const struct link_info *l, char *buf, size_t len)
{
	const struct timing *t = find_timing(&l->ios);
	char ceiling[32], clock[48];

	mb_text(ceiling, sizeof(ceiling), (double)l->ceiling_bytes_per_s);
	if (l->clock_off)
		snprintf(clock, sizeof(clock), "clock off when read, up to "
			 "%g MHz", (double)t->max_clock_hz / MB);
	else
		snprintf(clock, sizeof(clock), "%g MHz",
			 (double)effective_clock(&l->ios) / MB);
	snprintf(buf, len, "the host runs this %s at %s (%s, %u bits%s): at "
		 "most %s", bus_word(l->bus), t->label, clock,
		 l->ios.bus_width_bits, t->ddr ? ", both clock edges" : "",
		 ceiling);
}

/* "behind a USB 2.00 high-speed link (480 Mbit/s) with usb-storage:
   at most 39.9 MB/s" */
static void describe_usb(const struct link_info *l, char *buf, size_t len)
{
	int speed = find_usb_speed(&l->usb);
	char ceiling[32];

	mb_text(ceiling, sizeof(ceiling), (double)l->ceiling_bytes_per_s);
	snprintf(buf, len, "the device is behind a USB%s%s %s link with %s: "
		 "at most about %s", *l->usb.version ? " " : "",
		 l->usb.version, usb_speeds[speed].label,
		 *l->usb.driver ? l->usb.driver : "an unknown driver",
		 ceiling);
}

static void judge_sd(struct link_info *l, const struct link_claims *c,
		     const char *desc)
{
	const struct timing *t = find_timing(&l->ios);
	double claimed = link_claimed_bytes_per_s(c);
	bool uhs = link_claims_uhs(c);
	char names[40];

	if (!c->known || claimed == 0) {
		l->limits_card = LINK_UNKNOWN;
		snprintf(l->reason, sizeof(l->reason), "%s; the card's speed "
			 "ratings are not known (%s), so whether the link "
			 "limits it cannot be told", desc, c->known ?
			 "it claims no speed class" :
			 "no SD status register in sysfs");
		return;
	}
	claims_names(c, names, sizeof(names));
	if ((double)l->ceiling_bytes_per_s < claimed || (uhs && !t->uhs)) {
		l->limits_card = LINK_YES;
		snprintf(l->reason, sizeof(l->reason), "%s; the card is %s "
			 "(%.0f MB/s sustained writes)%s: %s. The host, not "
			 "the card, limits this speed.", desc, names,
			 claimed / MB, uhs ? " and UHS-I capable" : "",
			 uhs && !t->uhs ? "in a UHS-I host it can go faster" :
			 "the link cannot carry the rated speed");
		return;
	}
	l->limits_card = LINK_NO;
	snprintf(l->reason, sizeof(l->reason), "%s; the card is %s (%.0f MB/s "
		 "sustained writes)%s: the link carries its rated speed, so "
		 "it does not hold the card below its rating", desc, names,
		 claimed / MB, uhs ? " and UHS-I capable" : "");
}

static void judge_emmc(struct link_info *l, const char *desc)
{
	const struct timing *t = find_timing(&l->ios);

	if (t->fastest) {
		l->limits_card = LINK_NO;
		snprintf(l->reason, sizeof(l->reason), "%s; %s is the fastest "
			 "eMMC bus mode", desc, t->label);
		return;
	}
	l->limits_card = LINK_UNKNOWN;
	snprintf(l->reason, sizeof(l->reason), "%s; which bus modes the eMMC "
		 "supports (EXT_CSD DEVICE_TYPE) is not in sysfs, so whether "
		 "a faster mode was possible cannot be told", desc);
}

static void judge_usb(struct link_info *l, const char *desc)
{
	if ((double)l->ceiling_bytes_per_s < SD_DEFAULT_SPEED_BYTES_PER_S) {
		l->limits_card = LINK_YES;
		snprintf(l->reason, sizeof(l->reason), "%s, slower than the "
			 "slowest bus any card has (SD default speed, "
			 "12.5 MB/s). The USB link, not the card, limits this "
			 "speed.", desc);
		return;
	}
	l->limits_card = LINK_UNKNOWN;
	snprintf(l->reason, sizeof(l->reason), "%s; behind a USB reader the "
		 "card's registers are not visible and the reader's own card "
		 "bus may be slower than the USB link, so whether the link "
		 "limits the card cannot be told", desc);
}

#define MOUNT_HINT "mount -t debugfs none /sys/kernel/debug"

/* ios is there and cannot be read: why, and how when it is root's. */
static void explain_unreadable(struct link_info *l)
{
	bool denied = l->read_errno == EACCES || l->read_errno == EPERM;

	snprintf(l->reason, sizeof(l->reason), "the host's bus mode is not "
		 "known: %.400s cannot be read: %s%s", l->ios_path,
		 l->read_why[0] ? l->read_why : strerror(l->read_errno),
		 denied ? " (debugfs needs root; to mount it: " MOUNT_HINT ")" :
		 "");
}

/* Why nothing could be worked out, for the states short of LINK_READ. */
static void explain_unread(struct link_info *l, const char *debugfs_root)
{
	const char *root = debugfs_root ? debugfs_root : "/sys/kernel/debug";
	char *r = l->reason;
	size_t len = sizeof(l->reason);

	switch (l->state) {
	case LINK_NO_HOST:
		snprintf(r, len, "sysfs does not show this card's MMC host "
			 "(mmc_host/mmcN above the card), so its bus mode "
			 "cannot be read");
		break;
	case LINK_NO_DEBUGFS:
		snprintf(r, len, "the host's bus mode is not known: %.400s does "
			 "not exist; debugfs may not be mounted at %.200s (as "
			 "root: "
			 MOUNT_HINT ")", l->ios_path, root);
		break;
	case LINK_UNREADABLE:
		explain_unreadable(l);
		break;
	case LINK_UNPARSED:
		snprintf(r, len, "the host's bus mode is not known: %.400s is not in "
			 "the kernel's ios format", l->ios_path);
		break;
	case LINK_NO_USB_SPEED:
		snprintf(r, len, "sysfs shows no USB link speed above this "
			 "device, so its ceiling is not known");
		break;
	default:
		snprintf(r, len, "the link's mode is not known");
		break;
	}
}

void link_judge(struct link_info *l, const struct link_claims *claims,
		const char *debugfs_root)
{
	char desc[LINK_REASON_BYTES / 2];

	l->has_ceiling = false;
	l->limits_card = LINK_UNKNOWN;
	l->reason[0] = '\0';
	if (l->bus == LINK_BUS_NONE)
		return;
	if (l->state == LINK_READ)
		l->has_ceiling = l->bus == LINK_BUS_USB ?
			link_usb_ceiling(&l->usb, &l->ceiling_bytes_per_s) :
			link_mmc_ceiling(&l->ios, &l->ceiling_bytes_per_s,
					 &l->clock_off);
	if (l->state != LINK_READ) {
		explain_unread(l, debugfs_root);
		return;
	}
	if (!l->has_ceiling) {
		snprintf(l->reason, sizeof(l->reason), l->bus == LINK_BUS_USB ?
			 "the USB link's speed is not one this knows" :
			 "%.400s gives no timing mode or bus width that this "
			 "knows", l->ios_path);
		return;
	}
	if (l->bus == LINK_BUS_USB) {
		describe_usb(l, desc, sizeof(desc));
		judge_usb(l, desc);
		return;
	}
	describe_mmc(l, desc, sizeof(desc));
	if (l->bus == LINK_BUS_SD)
		judge_sd(l, claims, desc);
	else
		judge_emmc(l, desc);
}

bool link_below(const struct link_info *l, double required_bytes_per_s)
{
	return l && l->has_ceiling &&
	       (double)l->ceiling_bytes_per_s < required_bytes_per_s;
}

bool link_exceeded(const struct link_info *l, double measured_bytes_per_s)
{
	double bound;
	int speed;

	if (!l || !l->has_ceiling || !isfinite(measured_bytes_per_s))
		return false;
	bound = (double)l->ceiling_bytes_per_s;
	speed = find_usb_speed(&l->usb);
	if (l->bus == LINK_BUS_USB && speed >= 0)
		bound = (double)usb_speeds[speed].bulk_bytes_per_s;
	return measured_bytes_per_s > bound * 1.05;
}

double link_ceiling_share(const struct link_info *l,
			  double measured_bytes_per_s)
{
	if (!l || !l->has_ceiling || !l->ceiling_bytes_per_s ||
	    !isfinite(measured_bytes_per_s))
		return NAN;
	return measured_bytes_per_s / (double)l->ceiling_bytes_per_s;
}

/* ---- showing it ---- */

static const char *const bus_names[] = {
	[LINK_BUS_NONE] = NULL, [LINK_BUS_SD] = "sd",
	[LINK_BUS_MMC] = "mmc", [LINK_BUS_USB] = "usb",
};

const char *link_bus_name(const struct link_info *l)
{
	return bus_names[l->bus];
}

/* The JSON timing: the kernel's name, or the USB speed's. */
const char *link_timing_name(const struct link_info *l)
{
	int speed;

	if (l->state != LINK_READ)
		return NULL;
	if (l->bus != LINK_BUS_USB)
		return l->ios.has_timing ? l->ios.timing : NULL;
	speed = find_usb_speed(&l->usb);
	return speed < 0 ? NULL : usb_speeds[speed].name;
}

bool link_mmc_read(const struct link_info *l)
{
	return l->state == LINK_READ && l->bus != LINK_BUS_USB;
}

uint64_t link_clock_hz(const struct link_info *l)
{
	return effective_clock(&l->ios);
}

/* The link's next fact (not a record: records/hostlink.c makes that). */
static struct link_field *next_link_field(struct link_field *f, size_t *n,
					  size_t max, const char *key,
					  const char *label, bool is_string)
{
	struct link_field *field;

	if (*n >= max)
		return NULL;
	field = &f[(*n)++];
	*field = (struct link_field){ .key = key, .label = label,
				      .is_string = is_string };
	return field;
}

/* A field whose value is a string, shown the same way in text. */
static void string_field(struct link_field *f, size_t *n, size_t max,
			 const char *key, const char *label, const char *s)
{
	struct link_field *field = next_link_field(f, n, max, key, label, true);

	if (!field)
		return;
	field->known = s != NULL;
	snprintf(field->value, sizeof(field->value), "%s", s ? s : "");
	snprintf(field->text, sizeof(field->text), "%s", s ? s : "unknown");
}

static void number_field(struct link_field *f, size_t *n, size_t max,
			 const char *key, const char *label, bool known,
			 uint64_t v, const char *text)
{
	struct link_field *field = next_link_field(f, n, max, key, label, false);

	if (!field)
		return;
	field->known = known;
	snprintf(field->value, sizeof(field->value), "%" PRIu64, v);
	snprintf(field->text, sizeof(field->text), "%s",
		 known ? text : "unknown");
}

static void bus_text(const struct link_info *l, char *buf, size_t len)
{
	int driver = find_usb_driver(&l->usb);

	if (l->bus == LINK_BUS_USB)
		snprintf(buf, len, "USB%s%s, driver %s%s%s%s", *l->usb.version ?
			 " " : "", l->usb.version, *l->usb.driver ?
			 l->usb.driver : "unknown", driver < 0 ? "" : " (",
			 driver < 0 ? "" : usb_drivers[driver].protocol,
			 driver < 0 ? "" : ")");
	else
		snprintf(buf, len, "%s, host %s", l->bus == LINK_BUS_SD ?
			 "SD" : "eMMC", *l->host ? l->host : "unknown");
}

static void timing_text(const struct link_info *l, char *buf, size_t len)
{
	const struct timing *t = find_timing(&l->ios);
	int speed = find_usb_speed(&l->usb);

	if (l->bus == LINK_BUS_USB)
		snprintf(buf, len, "%s", speed < 0 ? "unknown" :
			 usb_speeds[speed].label);
	else if (t)
		snprintf(buf, len, "%s (ios: %u, %s)", t->label,
			 l->ios.timing_code, l->ios.timing);
	else
		snprintf(buf, len, "%s", l->ios.has_timing ? l->ios.timing :
			 "unknown");
}

static void clock_text(const struct link_info *l, char *buf, size_t len)
{
	uint64_t hz = effective_clock(&l->ios);

	if (!hz)
		snprintf(buf, len, "0 Hz (off when read)");
	else if (l->ios.has_actual_clock && l->ios.has_clock &&
		 l->ios.actual_clock_hz != l->ios.clock_hz)
		snprintf(buf, len, "%g MHz (asked for %g MHz)",
			 (double)hz / MB, (double)l->ios.clock_hz / MB);
	else
		snprintf(buf, len, "%g MHz", (double)hz / MB);
}

static const char *answer_json(enum link_answer a)
{
	return a == LINK_YES ? "true" : "false";
}

static const char *answer_text(enum link_answer a)
{
	return a == LINK_YES ? "yes" : a == LINK_NO ? "no" : "cannot tell";
}

size_t link_fields(const struct link_info *l, struct link_field *f,
		   size_t max)
{
	bool mmc = link_mmc_read(l);
	char text[LINK_REASON_BYTES], mb[32];
	struct link_field *field;
	size_t n = 0;

	string_field(f, &n, max, "bus", NULL, link_bus_name(l));
	bus_text(l, text, sizeof(text));
	string_field(f, &n, max, NULL, "bus", text);
	string_field(f, &n, max, "timing", NULL, link_timing_name(l));
	timing_text(l, text, sizeof(text));
	string_field(f, &n, max, NULL, l->state == LINK_READ ? "timing" :
		     NULL, text);
	clock_text(l, text, sizeof(text));
	number_field(f, &n, max, "clock_hz", mmc ? "clock" : NULL,
		     mmc && l->ios.has_clock, effective_clock(&l->ios), text);
	snprintf(text, sizeof(text), "%u bits", l->ios.bus_width_bits);
	number_field(f, &n, max, "bus_width_bits", mmc ? "bus width" : NULL,
		     mmc && l->ios.has_bus_width, l->ios.bus_width_bits, text);
	string_field(f, &n, max, "signal_voltage", mmc ? "signal voltage" :
		     NULL, mmc && l->ios.has_signal_voltage ?
		     l->ios.signal_voltage : NULL);
	mb_text(mb, sizeof(mb), (double)l->ceiling_bytes_per_s);
	snprintf(text, sizeof(text), "%" PRIu64 " bytes/s (%s%s)",
		 l->ceiling_bytes_per_s, l->bus == LINK_BUS_USB ? "about " :
		 "", mb);
	number_field(f, &n, max, "ceiling_bytes_per_s", "ceiling",
		     l->has_ceiling, l->ceiling_bytes_per_s, text);
	field = next_link_field(f, &n, max, "limits_card", "limits the card", false);
	if (field) {
		field->known = l->limits_card != LINK_UNKNOWN;
		snprintf(field->value, sizeof(field->value), "%s",
			 answer_json(l->limits_card));
		snprintf(field->text, sizeof(field->text), "%s",
			 answer_text(l->limits_card));
	}
	string_field(f, &n, max, "reason", "why", l->reason);
	return n;
}
