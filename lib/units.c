/*
 * units: parse and format sizes, durations, rates and counts.
 * Parsers accept exactly their documented grammar and reject everything
 * else; formatters never truncate and keep the sign with its unit.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/units.h"

/* a formatted number without its unit; UNITS_BUF leaves room for both */
#define NUMBER_BUF 24

struct suffix {
	const char *name;
	double factor;
};

static const struct suffix size_suffixes[] = {
	{ "", 1 }, { "B", 1 },
	{ "K", 1ULL << 10 }, { "KB", 1ULL << 10 }, { "KiB", 1ULL << 10 },
	{ "M", 1ULL << 20 }, { "MB", 1ULL << 20 }, { "MiB", 1ULL << 20 },
	{ "G", 1ULL << 30 }, { "GB", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	{ "T", 1ULL << 40 }, { "TB", 1ULL << 40 }, { "TiB", 1ULL << 40 },
	{ NULL, 0 }
};

static const struct suffix rate_suffixes[] = {
	{ "", 1 }, { "B", 1 },
	{ "K", 1e3 }, { "KB", 1e3 }, { "KiB", 1024.0 },
	{ "M", 1e6 }, { "MB", 1e6 }, { "MiB", 1048576.0 },
	{ "G", 1e9 }, { "GB", 1e9 }, { "GiB", 1073741824.0 },
	{ "T", 1e12 }, { "TB", 1e12 }, { "TiB", 1099511627776.0 },
	{ NULL, 0 }
};

static const struct suffix duration_suffixes[] = {
	{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
	{ "\xc2\xb5s", 1e3 }, { "ns", 1 },
	{ NULL, 0 }
};

/* Case-insensitive lookup, except that "ms" and "Ms" must not be confused. */
static int find_suffix(const struct suffix *table, const char *text,
		       bool case_sensitive, double *factor)
{
	for (; table->name; table++) {
		int same = case_sensitive ? strcmp(table->name, text) :
					    strcasecmp(table->name, text);
		if (same == 0) {
			*factor = table->factor;
			return 0;
		}
	}
	return -EINVAL;
}

/* Length of a run of decimal digits at text. */
static size_t digits(const char *text)
{
	size_t n = 0;

	while (text[n] >= '0' && text[n] <= '9')
		n++;
	return n;
}

int units_parse_size(const char *text, uint64_t *bytes)
{
	size_t n = digits(text);
	uint64_t value = 0;
	double factor;

	if (n == 0 || find_suffix(size_suffixes, text + n, false, &factor))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(text[i] - '0');

		if (value > (UINT64_MAX - d) / 10)
			return -ERANGE;
		value = value * 10 + d;
	}
	if (value > 0 && factor > (double)UINT64_MAX / (double)value)
		return -ERANGE;
	if (factor != 1 && value > UINT64_MAX / (uint64_t)factor)
		return -ERANGE;
	*bytes = value * (uint64_t)factor;
	return 0;
}

/* DIGITS [. DIGITS]: the number part of durations, rates and fractions. */
static int parse_decimal(const char *text, double *value, const char **end)
{
	size_t whole = digits(text), fraction = 0;
	const char *p = text + whole;
	char *stop;

	if (*p == '.') {
		fraction = digits(p + 1);
		if (fraction == 0)
			return -EINVAL;
		p += 1 + fraction;
	}
	if (whole == 0 && fraction == 0)
		return -EINVAL;
	{
		char number[64];
		size_t length = (size_t)(p - text);

		if (length >= sizeof(number))
			return -ERANGE;
		memcpy(number, text, length);
		number[length] = '\0';
		errno = 0;
		*value = strtod(number, &stop);
		if (errno || !isfinite(*value))
			return -ERANGE;
	}
	*end = p;
	return 0;
}

static int parse_scaled(const char *text, const struct suffix *table,
			bool case_sensitive, double *result)
{
	const char *end;
	double value, factor;
	int err = parse_decimal(text, &value, &end);

	if (err)
		return err;
	if (find_suffix(table, end, case_sensitive, &factor))
		return -EINVAL;
	*result = value * factor;
	if (*result >= 18446744073709551615.0)
		return -ERANGE;
	return 0;
}

int units_parse_rate(const char *text, uint64_t *bytes_per_s)
{
	char number[64];
	size_t len = strlen(text);
	double value;
	int err;

	/* an optional "/s" after the unit */
	if (len >= 2 && strcmp(text + len - 2, "/s") == 0)
		len -= 2;
	if (len >= sizeof(number))
		return -EINVAL;
	memcpy(number, text, len);
	number[len] = '\0';
	err = parse_scaled(number, rate_suffixes, false, &value);
	if (err)
		return err;
	/* llround would overflow from 2^63: value is below 2^64 here */
	*bytes_per_s = (uint64_t)(value + 0.5);
	return 0;
}

int units_parse_duration(const char *text, uint64_t *ns)
{
	double value;
	int err = parse_scaled(text, duration_suffixes, true, &value);

	if (err)
		return err;
	if (value >= 9.2e18)
		return -ERANGE;
	*ns = (uint64_t)llround(value);
	return 0;
}

int units_parse_count(const char *text, uint64_t min, uint64_t max,
		      uint64_t *count)
{
	uint64_t value;
	int err;

	if (digits(text) != strlen(text))
		return -EINVAL;
	err = units_parse_size(text, &value);
	if (err)
		return err;
	if (value < min || value > max)
		return -ERANGE;
	*count = value;
	return 0;
}

int units_parse_fraction(const char *text, double *value)
{
	const char *end;
	int err = parse_decimal(text, value, &end);

	if (err)
		return err;
	return *end ? -EINVAL : 0;
}

/*
 * Print magnitude with the given significant digits; returns the value as
 * printed, so a caller can tell when rounding reached the next unit.
 */
static double print_significant(char *buf, double magnitude, int precision)
{
	snprintf(buf, NUMBER_BUF, "%.*g", precision, magnitude);
	return strtod(buf, NULL);
}

struct unit {
	const char *name;
	double size;
	int precision;
};

/*
 * Format |value| in the largest unit it reaches, moving up a unit when
 * rounding reaches the step to the next one ("999.7µs" is "1ms").
 */
static const char *format_scaled(char *buf, double value,
				 const struct unit *units, size_t count,
				 double step)
{
	const char *sign = value < 0 ? "-" : "";
	double magnitude = fabs(value);
	char number[NUMBER_BUF];
	size_t i = 0;

	if (!isfinite(value)) {
		snprintf(buf, UNITS_BUF, "%s", isnan(value) ? "nan" : "inf");
		return buf;
	}
	while (i + 1 < count && magnitude >= units[i + 1].size)
		i++;
	for (;;) {
		double shown = print_significant(number,
				magnitude / units[i].size, units[i].precision);

		if (shown < step || i + 1 == count)
			break;
		i++;
	}
	if (strchr(number, 'e'))	/* past the last unit: whole digits */
		snprintf(number, sizeof(number), "%.0f",
			 magnitude / units[i].size);
	snprintf(buf, UNITS_BUF, "%s%s%s", sign, number, units[i].name);
	return buf;
}

const char *units_format_time(char *buf, double ns)
{
	static const struct unit units[] = {
		{ "ns", 1, 0 }, { "\xc2\xb5s", 1e3, 3 }, { "ms", 1e6, 3 },
		{ "s", 1e9, 4 },
	};
	char number[NUMBER_BUF];

	/* whole nanoseconds are printed as such: "123ns", never "123.4ns" */
	if (isfinite(ns) && fabs(round(ns)) < 1000) {
		snprintf(number, sizeof(number), "%.0f", round(ns));
		snprintf(buf, UNITS_BUF, "%sns",
			 strcmp(number, "-0") == 0 ? "0" : number);
		return buf;
	}
	return format_scaled(buf, ns, units + 1, 3, 1000);
}

const char *units_format_size(char *buf, double bytes)
{
	static const struct unit units[] = {
		{ "B", 1, 3 }, { "KiB", 1024.0, 3 },
		{ "MiB", 1048576.0, 3 }, { "GiB", 1073741824.0, 3 },
		{ "TiB", 1099511627776.0, 3 },
	};
	char number[NUMBER_BUF];
	double magnitude = fabs(bytes);
	size_t i = 0;

	if (!isfinite(bytes))
		return format_scaled(buf, bytes, units, 5, 1024);
	while (i + 1 < 5 && magnitude >= units[i + 1].size)
		i++;
	/* 1000 to 1023 of a unit: four digits, no exponent */
	if (print_significant(number, magnitude / units[i].size, 3) >= 1000 &&
	    magnitude / units[i].size < 1023.5) {
		snprintf(buf, UNITS_BUF, "%s%.0f%s", bytes < 0 ? "-" : "",
			 magnitude / units[i].size, units[i].name);
		return buf;
	}
	return format_scaled(buf, bytes, units, 5, 1024);
}

const char *units_format_rate(char *buf, double bytes_per_s)
{
	static const struct unit units[] = {
		{ "B/s", 1, 3 }, { "K/s", 1e3, 3 }, { "M/s", 1e6, 3 },
		{ "G/s", 1e9, 3 }, { "T/s", 1e12, 3 },
	};

	return format_scaled(buf, bytes_per_s, units, 5, 1000);
}

const char *units_format_exact_size(char *buf, uint64_t bytes)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t i = 0;

	while (i + 1 < 5 && bytes && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	snprintf(buf, UNITS_BUF, "%llu%s", (unsigned long long)bytes,
		 names[i]);
	return buf;
}

uint64_t units_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}
