/*
 * unit-link: the host link's ceiling from debugfs ios and USB speeds,
 * the verdict on whether it limits the card, and the class check's
 * "limited by the host link".  The expected ceilings follow from the bus
 * definitions: clock x data lines / 8, twice that for DDR modes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity/hostlink.h"
#include "output/render.h"
#include "measure/speed.h"
#include "records/hostlink.h"
#include "records/speed.h"
#include "unit.h"

/* ios as drivers/mmc/core/debugfs.c prints it, for a given mode */
#define IOS(clock, actual, width_code, width, timing, voltage)		\
	"clock:\t\t" clock " Hz\n" actual				\
	"vdd:\t\t21 (3.3 ~ 3.4 V)\n"					\
	"bus mode:\t2 (push-pull)\n"					\
	"chip select:\t0 (don't care)\n"				\
	"power mode:\t2 (on)\n"						\
	"bus width:\t" width_code " (" width " bits)\n"			\
	"timing spec:\t" timing "\n"					\
	"signal voltage:\t" voltage "\n"				\
	"driver type:\t0 (driver type B)\n"

static const char ios_sd_hs[] =
	IOS("50000000", "", "2", "4", "2 (sd high-speed)", "0 (3.30 V)");
static const char ios_sdr104[] =
	IOS("208000000", "actual clock:\t200000000 Hz\n", "2", "4",
	    "6 (sd uhs SDR104)", "1 (1.80 V)");

static uint64_t ceiling_of(const char *text)
{
	struct link_ios ios;
	uint64_t bytes = 0;
	bool off;

	if (link_parse_ios(text, &ios) || !link_mmc_ceiling(&ios, &bytes,
							    &off))
		return 0;
	return bytes;
}

static void test_parse(void)
{
	struct link_ios ios;

	UNIT_CHECK(link_parse_ios(ios_sd_hs, &ios) == 0, "ios parses");
	UNIT_CHECK(ios.has_clock && ios.clock_hz == 50000000, "clock");
	UNIT_CHECK(!ios.has_actual_clock, "no actual clock line: none");
	UNIT_CHECK(ios.has_bus_width && ios.bus_width_bits == 4,
		   "bus width from \"2 (4 bits)\"");
	UNIT_CHECK(ios.has_timing && ios.timing_code == 2, "timing code");
	UNIT_STREQ(ios.timing, "sd high-speed", "timing name");
	UNIT_STREQ(ios.signal_voltage, "3.30 V", "signal voltage");
	UNIT_CHECK(ios.has_power_mode && ios.power_mode == 2, "power mode");
	UNIT_CHECK(ios.has_vdd && ios.vdd == 21, "vdd");
	UNIT_CHECK(link_parse_ios(ios_sdr104, &ios) == 0 &&
		   ios.has_actual_clock && ios.actual_clock_hz == 200000000,
		   "actual clock line");
	UNIT_CHECK(link_parse_ios("hello\nworld\n", &ios) == -EINVAL,
		   "text not in the kernel's format: -EINVAL");
	UNIT_CHECK(link_parse_ios("", &ios) == -EINVAL, "empty: -EINVAL");
}

/* Each mode's ceiling, from ios as the kernel prints it. */
static const struct {
	const char *ios;
	uint64_t bytes_per_s;		/* 0: no ceiling */
	const char *what;
} ceilings[] = {
	{ ios_sd_hs, 25000000, "SD high-speed 50 MHz x 4 bits / 8 = 25 MB/s" },
	{ ios_sdr104, 100000000,
	  "SDR104 at its actual 200 MHz: 100 MB/s, not 104" },
	{ IOS("208000000", "", "2", "4", "6 (sd uhs SDR104)", "1 (1.80 V)"),
	  104000000, "SDR104 208 MHz x 4 / 8 = 104 MB/s" },
	{ IOS("50000000", "", "2", "4", "7 (sd uhs DDR50)", "1 (1.80 V)"),
	  50000000, "DDR50: 50 MHz x 4 x 2 / 8 = 50 MB/s" },
	{ IOS("200000000", "", "3", "8", "9 (mmc HS200)", "1 (1.80 V)"),
	  200000000, "HS200 200 MHz x 8 / 8 = 200 MB/s" },
	{ IOS("200000000", "", "3", "8", "10 (mmc HS400)", "1 (1.80 V)"),
	  400000000, "HS400: 200 MHz, 8 bits, both edges = 400 MB/s" },
	{ IOS("25000000", "", "2", "4", "0 (legacy)", "0 (3.30 V)"),
	  12500000, "legacy 25 MHz x 4 / 8 = 12.5 MB/s" },
	{ IOS("25000000", "", "0", "1", "0 (legacy)", "0 (3.30 V)"),
	  3125000, "a 1-bit bus carries a quarter of a 4-bit one" },
	{ IOS("50000000", "", "2", "4", "13 (invalid)", "0 (3.30 V)"), 0,
	  "a timing not known: no ceiling, not a guess" },
};

static void test_mmc_ceilings(void)
{
	struct link_ios ios;
	uint64_t bytes = 0;
	bool off = false;

	for (size_t i = 0; i < sizeof(ceilings) / sizeof(ceilings[0]); i++)
		UNIT_CHECK(ceiling_of(ceilings[i].ios) ==
			   ceilings[i].bytes_per_s, "%s", ceilings[i].what);
	UNIT_CHECK(link_parse_ios(IOS("0", "", "2", "4", "2 (sd high-speed)",
				      "0 (3.30 V)"), &ios) == 0 &&
		   link_mmc_ceiling(&ios, &bytes, &off) && off &&
		   bytes == 25000000,
		   "clock off when read: the mode's highest clock, flagged");
}

static void test_usb(void)
{
	struct link_usb usb = { .has_speed = true };
	uint64_t kbit = 0, bytes = 0;

	UNIT_CHECK(link_parse_usb_speed("480", &kbit) && kbit == 480000,
		   "usb speed 480");
	UNIT_CHECK(link_parse_usb_speed("1.5", &kbit) && kbit == 1500,
		   "usb speed 1.5 (low speed)");
	UNIT_CHECK(link_parse_usb_speed("5000\n", &kbit) && kbit == 5000000,
		   "usb speed 5000");
	UNIT_CHECK(!link_parse_usb_speed("fast", &kbit), "not a number");
	usb.speed_kbit = 480000;
	snprintf(usb.driver, sizeof(usb.driver), "usb-storage");
	UNIT_CHECK(link_usb_ceiling(&usb, &bytes) && bytes >= 35000000 &&
		   bytes <= 40000000,
		   "USB 2.0 with usb-storage: 35-40 MB/s (%.1f)", bytes / 1e6);
	snprintf(usb.driver, sizeof(usb.driver), "uas");
	usb.speed_kbit = 5000000;
	UNIT_CHECK(link_usb_ceiling(&usb, &bytes) && bytes == 405000000,
		   "USB 3 5 Gbit/s with uas: 405 MB/s");
	usb.driver[0] = '\0';
	UNIT_CHECK(link_usb_ceiling(&usb, &bytes) && bytes == 450000000,
		   "driver unknown: the bulk rate, an upper bound");
	usb.speed_kbit = 1500;
	UNIT_CHECK(!link_usb_ceiling(&usb, &bytes),
		   "low speed carries no storage: no ceiling");
}

static const struct link_claims u3 = { .known = true, .speed_class = 10,
				       .uhs_grade = 3 };
static const struct link_claims c10 = { .known = true, .speed_class = 10 };
static const struct link_claims unknown_claims = { 0 };

static void judge_ios(struct link_info *l, enum link_bus bus,
		      const char *text, const struct link_claims *claims)
{
	*l = (struct link_info){ .bus = bus, .state = LINK_READ };
	snprintf(l->host, sizeof(l->host), "mmc0");
	link_parse_ios(text, &l->ios);
	link_judge(l, claims, NULL);
}

static void test_verdict_sd(void)
{
	struct link_info l;

	UNIT_CHECK(link_claimed_bytes_per_s(&u3) == 30e6, "U3: 30 MB/s");
	UNIT_CHECK(link_claims_uhs(&u3) && !link_claims_uhs(&c10),
		   "U3 is UHS-I, C10 alone is not");
	judge_ios(&l, LINK_BUS_SD, ios_sd_hs, &u3);
	UNIT_CHECK(l.has_ceiling && l.ceiling_bytes_per_s == 25000000 &&
		   l.limits_card == LINK_YES,
		   "U3 card at SD high-speed: the link limits it");
	UNIT_CHECK(strstr(l.reason, "SD high-speed (50 MHz, 4 bits): at most "
			  "25 MB/s") && strstr(l.reason, "U3 (30 MB/s "
			  "sustained writes) and UHS-I capable: in a UHS-I "
			  "host it can go faster. The host, not the card, "
			  "limits this speed."),
		   "the reason says so: %s", l.reason);
	judge_ios(&l, LINK_BUS_SD, ios_sdr104, &u3);
	UNIT_CHECK(l.limits_card == LINK_NO, "the same card at SDR104: no");
	judge_ios(&l, LINK_BUS_SD, ios_sd_hs, &c10);
	UNIT_CHECK(l.limits_card == LINK_NO,
		   "a C10 card (not UHS) at SD high-speed: no");
	judge_ios(&l, LINK_BUS_SD, IOS("25000000", "", "2", "4",
				       "3 (sd uhs SDR12)", "1 (1.80 V)"), &u3);
	UNIT_CHECK(l.limits_card == LINK_YES &&
		   strstr(l.reason, "cannot carry the rated speed"),
		   "a UHS mode too slow for the rating: yes");
	judge_ios(&l, LINK_BUS_SD, ios_sd_hs, &unknown_claims);
	UNIT_CHECK(l.limits_card == LINK_UNKNOWN && l.has_ceiling &&
		   strstr(l.reason, "cannot be told"),
		   "claims unknown: a ceiling, but no verdict");
}

static void test_verdict_other(void)
{
	struct link_info l;

	judge_ios(&l, LINK_BUS_MMC, IOS("200000000", "", "3", "8",
					"9 (mmc HS200)", "1 (1.80 V)"),
		  &unknown_claims);
	UNIT_CHECK(l.limits_card == LINK_UNKNOWN && l.ceiling_bytes_per_s ==
		   200000000, "eMMC at HS200: 200 MB/s, cannot tell");
	judge_ios(&l, LINK_BUS_MMC, IOS("200000000", "", "3", "8",
					"10 (mmc HS400)", "1 (1.80 V)"),
		  &unknown_claims);
	UNIT_CHECK(l.limits_card == LINK_NO, "eMMC at HS400, the fastest: no");
	l = (struct link_info){ .bus = LINK_BUS_USB, .state = LINK_READ,
		.usb = { .has_speed = true, .speed_kbit = 480000,
			 .version = "2.00", .driver = "usb-storage" } };
	link_judge(&l, &unknown_claims, NULL);
	UNIT_CHECK(l.limits_card == LINK_UNKNOWN && l.has_ceiling,
		   "USB 2.0 reader: registers hidden, cannot tell");
	l.usb.speed_kbit = 12000;
	link_judge(&l, &u3, NULL);
	UNIT_CHECK(l.limits_card == LINK_YES,
		   "USB 1.1, slower than any card's slowest bus: yes");
}

static void test_unread(void)
{
	struct link_info l = { .bus = LINK_BUS_SD, .state = LINK_NO_DEBUGFS,
			       .ios_path = "/sys/kernel/debug/mmc0/ios" };

	link_judge(&l, &u3, "/sys/kernel/debug");
	UNIT_CHECK(!l.has_ceiling && l.limits_card == LINK_UNKNOWN,
		   "debugfs not mounted: no ceiling, no verdict");
	UNIT_CHECK(strstr(l.reason, "mount -t debugfs none /sys/kernel/debug")
		   != NULL, "and how to mount it: %s", l.reason);
	l.state = LINK_UNREADABLE;
	l.read_errno = EACCES;
	link_judge(&l, &u3, NULL);
	UNIT_CHECK(!l.has_ceiling && strstr(l.reason, strerror(EACCES)),
		   "unreadable: the error, not a guess");
	UNIT_CHECK(isnan(link_ceiling_share(&l, 20e6)) && !link_below(&l, 30e6),
		   "no ceiling: no share, never below");
}

static void test_fields(void)
{
	static const char *const keys[] = { "bus", "timing", "clock_hz",
		"bus_width_bits", "signal_voltage", "ceiling_bytes_per_s",
		"limits_card", "reason" };
	struct link_field f[LINK_FIELDS_MAX];
	struct record rec;
	struct link_info l;
	size_t n, k = 0;
	bool order = true;

	judge_ios(&l, LINK_BUS_SD, ios_sd_hs, &u3);
	n = link_fields(&l, f, LINK_FIELDS_MAX);
	for (size_t i = 0; i < n; i++)
		if (f[i].key)
			order &= k < 8 && !strcmp(f[i].key, keys[k++]);
	UNIT_CHECK(order && k == 8, "--info: exactly the issue's 8 fields");
	link_record(&l, &rec);
	UNIT_CHECK(rec.count == 8 && !strcmp(rec.kind, "link") &&
		   !strcmp(rec.fields[5].key, "link.ceiling_bytes_per_s") &&
		   rec.fields[5].value == 25e6 && rec.fields[6].value == 1,
		   "speed tests: a link record with the same fields");
	UNIT_CHECK(fabs(link_ceiling_share(&l, 19.8e6) - 0.792) < 1e-9,
		   "19.8 MB/s through 25 MB/s: a share of 0.792");
	UNIT_CHECK(!link_exceeded(&l, 25.5e6) && link_exceeded(&l, 30e6),
		   "30 MB/s through a 25 MB/s bus: the reading is wrong");
	l = (struct link_info){ .bus = LINK_BUS_USB, .state = LINK_READ,
		.usb = { .has_speed = true, .speed_kbit = 480000,
			 .driver = "usb-storage" } };
	link_judge(&l, &unknown_claims, NULL);
	UNIT_CHECK(!link_exceeded(&l, 45e6) && link_exceeded(&l, 60e6),
		   "USB: past the estimate is possible, past the bulk rate not");
}

/* the class check's verdict, with and without the link's ceiling */
static void test_class_verdict(void)
{
	struct speed_measured m = { .has_write_rate = true,
		.write_bytes_per_s = 19.8e6, .has_ceiling = true,
		.ceiling_bytes_per_s = 25e6 };

	UNIT_CHECK(speed_class_verdict("U3", &m) == SPEED_LINK_LIMITED,
		   "U3 failed under a 25 MB/s ceiling: limited by the link");
	UNIT_CHECK(speed_class_verdict("V30", &m) == SPEED_LINK_LIMITED,
		   "V30 too");
	UNIT_CHECK(speed_class_verdict("C10", &m) == SPEED_PASS_AS_FAR,
		   "C10 passes (as far as measured): the ceiling changes "
		   "nothing");
	m.ceiling_bytes_per_s = 100e6;
	UNIT_CHECK(speed_class_verdict("U3", &m) == SPEED_FAIL,
		   "U3 failed under a 100 MB/s ceiling: the card's fail");
	m.has_ceiling = false;
	UNIT_CHECK(speed_class_verdict("U3", &m) == SPEED_FAIL,
		   "ceiling unknown: a plain fail");
	m = (struct speed_measured){ .has_write_rate = true,
		.write_bytes_per_s = 12e6, .has_read_iops = true,
		.read_iops = 2000, .has_write_iops = true, .write_iops = 100,
		.has_ceiling = true, .ceiling_bytes_per_s = 25e6 };
	UNIT_CHECK(speed_class_verdict("A1", &m) == SPEED_FAIL,
		   "A1 failed on write IOPS the link could carry: a fail");
}

/* Through speed_emit_classes: the U3 record says who failed it. */
struct seen {
	char u3_result[40];
	double u3_pass;
	bool link_record;
};

static int watch(void *ctx, const struct record *rec)
{
	struct seen *s = ctx;

	if (!strcmp(rec->kind ? rec->kind : "", "link"))
		s->link_record = true;
	if (strcmp(rec->kind ? rec->kind : "", "class") ||
	    strcmp(rec->fields[0].label, "U3"))
		return 0;
	for (unsigned i = 0; i < rec->count; i++) {
		if (!strcmp(rec->fields[i].key, "result"))
			snprintf(s->u3_result, sizeof(s->u3_result), "%s",
				 rec->fields[i].label);
		if (!strcmp(rec->fields[i].key, "pass"))
			s->u3_pass = rec->fields[i].value;
	}
	return 0;
}

static void test_class_records(void)
{
	struct speed_results r = { .has_rate = true, .rate_ns = 1000000000,
				   .rate_bytes = 19800000 };
	struct seen seen = { .u3_pass = 0 };
	struct speed_exec x = { .sink = { watch, &seen } };
	struct link_info l;

	judge_ios(&l, LINK_BUS_SD, ios_sd_hs, &u3);
	x.link = &l;
	UNIT_CHECK(speed_emit_classes(&x, &r, NULL) == 0, "classes emitted");
	UNIT_STREQ(seen.u3_result, "limited by the host link",
		   "U3 at 19.8 MB/s behind SD high-speed");
	UNIT_CHECK(isnan(seen.u3_pass) && seen.link_record,
		   "pass is null (the card is not judged), link shown");
	x.link = NULL;
	seen = (struct seen){ .u3_pass = 0 };
	speed_emit_classes(&x, &r, NULL);
	UNIT_STREQ(seen.u3_result, "FAIL", "no link known: FAIL");
	UNIT_CHECK(!seen.link_record, "and no link record");
}

/* The class check as text, through the report renderer. */
static void test_class_text(void)
{
	struct speed_results r = { .has_rate = true, .rate_ns = 1000000000,
				   .rate_bytes = 19800000 };
	struct render_meta meta = { .test = "class-check" };
	struct speed_exec x = { .sink = { render_record, NULL } };
	struct link_info l;
	struct render *report;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	judge_ios(&l, LINK_BUS_SD, ios_sd_hs, &u3);
	x.link = &l;
	report = out ? render_open(out, RENDER_TEXT, &meta) : NULL;
	x.sink.ctx = report;
	UNIT_CHECK(report && speed_emit_classes(&x, &r, NULL) == 0 &&
		   render_close(report, NULL, false) == 0, "rendered");
	if (out)
		fclose(out);
	UNIT_CHECK(text && strstr(text, "\nU3      required 30 MB/s; measured "
				  "19.8 MB/s: limited by the host link\n"),
		   "U3's line blames the host link");
	UNIT_CHECK(text && strstr(text, "\nC10     required 10 MB/s; measured "
				  "19.8 MB/s over the first 18.9MiB, no fall "
				  "seen: pass as far as measured\n"),
		   "C10's line passes, as far as measured");
	UNIT_CHECK(text && strstr(text, "measured: sequential write 19.8 MB/s "
				  "(the write at 79% of the link's ceiling)\n"
				  "link: the host runs this card at SD "
				  "high-speed"),
		   "the share, then the link line");
	free(text);
}

int main(void)
{
	test_parse();
	test_mmc_ceilings();
	test_usb();
	test_verdict_sd();
	test_verdict_other();
	test_unread();
	test_fields();
	test_class_verdict();
	test_class_records();
	test_class_text();
	return UNIT_DONE();
}
