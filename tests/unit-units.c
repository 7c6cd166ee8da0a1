/* unit-units: size, rate, duration and count parsing; time, size, rate formatting. */
#include <errno.h>
#include <math.h>

#include "lib/units.h"
#include "unit.h"

static const struct {
	const char *text;
	int err;
	uint64_t bytes;
} sizes[] = {
	{ "512", 0, 512 }, { "0", 0, 0 }, { "16k", 0, 16384 },
	{ "16K", 0, 16384 }, { "16KiB", 0, 16384 }, { "16KB", 0, 16384 },
	{ "4M", 0, 4194304 }, { "4MiB", 0, 4194304 }, { "1G", 0, 1 << 30 },
	{ "2T", 0, 2ULL << 40 }, { "100B", 0, 100 },
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "", -EINVAL, 0 }, { "-5", -EINVAL, 0 }, { "+5", -EINVAL, 0 },
	{ "4.5M", -EINVAL, 0 }, { "12Q", -EINVAL, 0 }, { "4 M", -EINVAL, 0 },
	{ " 4", -EINVAL, 0 }, { "4MiBx", -EINVAL, 0 }, { "k", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "99999999999999999999", -ERANGE, 0 }, { "17179869184G", -ERANGE, 0 },
};

static const struct {
	double ns;
	const char *text;
} times[] = {
	{ 0, "0ns" }, { 123, "123ns" }, { 999, "999ns" }, { 999.6, "1µs" },
	{ 1000, "1µs" }, { 4160, "4.16µs" }, { 5200, "5.2µs" },
	{ 87300, "87.3µs" }, { 492000, "492µs" }, { 999600, "1ms" },
	{ 1080000, "1.08ms" }, { 1.5e9, "1.5s" }, { 12.345e9, "12.35s" },
	{ -9689, "-9.69µs" }, { -412331, "-412µs" }, { -5, "-5ns" },
	{ -0.4, "0ns" }, { 2.5e12, "2500s" },
};

static const struct {
	double bytes;
	const char *text;
} size_texts[] = {
	{ 512, "512B" }, { 8192, "8KiB" }, { 524288, "512KiB" },
	{ 4194304, "4MiB" }, { 1610612736, "1.5GiB" }, { 2147483648.0, "2GiB" },
	{ 1024000, "1000KiB" }, { 0, "0B" },
};

static const struct {
	double rate;
	const char *text;
} rates[] = {
	{ 10.7e6, "10.7M/s" }, { 614000, "614K/s" }, { 9.53e6, "9.53M/s" },
	{ 13e6, "13M/s" }, { 999.7e3, "1M/s" }, { 512, "512B/s" },
	{ 2.139e9, "2.14G/s" },
};

static void test_durations(void)
{
	uint64_t ns = 0;

	UNIT_CHECK(units_parse_duration("5ms", &ns) == 0 && ns == 5000000,
		   "duration 5ms");
	UNIT_CHECK(units_parse_duration("2.5us", &ns) == 0 && ns == 2500,
		   "duration 2.5us");
	UNIT_CHECK(units_parse_duration("100\xc2\xb5s", &ns) == 0 &&
		   ns == 100000, "duration 100µs");
	UNIT_CHECK(units_parse_duration("3", &ns) == 0 && ns == 3000000000,
		   "bare duration is seconds");
	UNIT_CHECK(units_parse_duration("7ns", &ns) == 0 && ns == 7,
		   "duration 7ns");
	UNIT_CHECK(units_parse_duration("5Ms", &ns) == -EINVAL,
		   "duration 5Ms rejected");
	UNIT_CHECK(units_parse_duration("-1s", &ns) == -EINVAL,
		   "negative duration rejected");
	UNIT_CHECK(units_parse_duration("1.s", &ns) == -EINVAL,
		   "duration 1.s rejected");
	UNIT_CHECK(units_parse_duration("1e3s", &ns) == -EINVAL,
		   "exponent rejected");
}

static void test_rates_and_counts(void)
{
	uint64_t v = 0;
	double f = 0;

	UNIT_CHECK(units_parse_rate("20M", &v) == 0 && v == 20000000,
		   "rate 20M is decimal");
	UNIT_CHECK(units_parse_rate("10.7M/s", &v) == 0 && v == 10700000,
		   "rate 10.7M/s");
	UNIT_CHECK(units_parse_rate("1MiB", &v) == 0 && v == 1048576,
		   "rate 1MiB is binary");
	UNIT_CHECK(units_parse_rate("fast", &v) == -EINVAL,
		   "rate junk rejected");
	UNIT_CHECK(units_parse_count("8", 1, 10, &v) == 0 && v == 8,
		   "count 8");
	UNIT_CHECK(units_parse_count("0", 1, 10, &v) == -ERANGE,
		   "count below range");
	UNIT_CHECK(units_parse_count("11", 1, 10, &v) == -ERANGE,
		   "count above range");
	UNIT_CHECK(units_parse_count("4k", 1, 1000000, &v) == -EINVAL,
		   "count takes no suffix");
	UNIT_CHECK(units_parse_fraction("0.03", &f) == 0 && fabs(f - 0.03) <
		   1e-12, "fraction 0.03");
	UNIT_CHECK(units_parse_fraction("3%", &f) == -EINVAL,
		   "fraction junk rejected");
}

int main(void)
{
	char buf[UNITS_BUF];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t v = 0;
		int err = units_parse_size(sizes[i].text, &v);

		UNIT_CHECK(err == sizes[i].err &&
			   (err || v == sizes[i].bytes),
			   "parse size '%s'", sizes[i].text);
	}
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		UNIT_STREQ(units_format_time(buf, times[i].ns), times[i].text,
			   "format time %g", times[i].ns);
	for (size_t i = 0; i < sizeof(size_texts) / sizeof(size_texts[0]); i++)
		UNIT_STREQ(units_format_size(buf, size_texts[i].bytes),
			   size_texts[i].text, "format size %.0f",
			   size_texts[i].bytes);
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		UNIT_STREQ(units_format_rate(buf, rates[i].rate),
			   rates[i].text, "format rate %g", rates[i].rate);
	UNIT_STREQ(units_format_exact_size(buf, 12 << 20), "12MiB",
		   "exact size 12MiB");
	UNIT_STREQ(units_format_exact_size(buf, 1536), "1536B",
		   "exact size 1536B");
	test_durations();
	test_rates_and_counts();
	return UNIT_DONE();
}
