/*
 * fuzz-units: the size, duration, rate, count and fraction parsers, and
 * the formatters on whatever they accept.  A size must survive the trip
 * through units_format_exact_size and back; a plain number must read the
 * same as a size and as a rate.
 */
#include <math.h>

#include "fuzz.h"
#include "lib/units.h"

static void format_all(double value)
{
	char buf[UNITS_BUF];

	units_format_size(buf, value);
	units_format_time(buf, value);
	units_format_rate(buf, value);
	units_format_size(buf, -value);
	units_format_time(buf, -value);
	units_format_rate(buf, -value);
}

static void check_size(const char *text)
{
	char buf[UNITS_BUF];
	uint64_t bytes, again, rate;

	if (units_parse_size(text, &bytes))
		return;
	format_all((double)bytes);
	units_format_exact_size(buf, bytes);
	if (units_parse_size(buf, &again) || again != bytes)
		abort();
	/* no suffix: the same number of bytes, and of bytes per second */
	if (strspn(text, "0123456789") == strlen(text) &&
	    !units_parse_rate(text, &rate) &&
	    fabs((double)rate - (double)bytes) > 1e-12 * (double)bytes + 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	uint64_t value;
	double fraction;

	if (!text)
		return 0;
	check_size(text);
	if (!units_parse_duration(text, &value))
		format_all((double)value);
	if (!units_parse_rate(text, &value))
		format_all((double)value);
	if (!units_parse_count(text, 1, 1000, &value) &&
	    (value < 1 || value > 1000))
		abort();
	if (!units_parse_count(text, 0, UINT64_MAX, &value))
		format_all((double)value);
	if (!units_parse_fraction(text, &fraction))
		format_all(fraction);
	/* the raw bytes as a double: NaN, infinities, subnormals */
	if (size >= sizeof(double)) {
		double raw;

		memcpy(&raw, data, sizeof(raw));
		format_all(raw);
	}
	free(text);
	return 0;
}
