/*
 * units: parse and format sizes, durations, rates and counts.
 * The one place that knows how "16KiB", "87.3µs" or "10.7M/s" are spelled.
 * It does no I/O and holds no state.
 */
#ifndef FLASHBENCH_UNITS_H
#define FLASHBENCH_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Binary size units, for sizes written in bytes ("16 * MIB"). */
#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)

/* Longest string any units_format_* writes, with its NUL. */
#define UNITS_BUF 48

/*
 * Parse a size in bytes.  Grammar: DIGITS [SUFFIX], where SUFFIX is one of
 * k K KB KiB m M MB MiB g G GB GiB t T TB TiB (all powers of 1024; "KB" is
 * taken in the sense every disk tool uses on the command line) or "B".
 * No sign, no fraction, no leading or trailing junk.  Returns 0, -EINVAL
 * for junk or -ERANGE for a value above UINT64_MAX.
 */
int units_parse_size(const char *text, uint64_t *bytes);

/*
 * Parse a rate in bytes per second.  Grammar: NUMBER [SUFFIX] ["/s"],
 * NUMBER may have a fraction; SUFFIX k K M G T are powers of 1000, as in
 * the rates flashbench prints ("10.7M/s"), KiB MiB GiB powers of 1024.
 */
int units_parse_rate(const char *text, uint64_t *bytes_per_s);

/*
 * Parse a duration.  Grammar: NUMBER [ns|us|µs|ms|s]; NUMBER may have a
 * fraction; a bare number is seconds.  Result in nanoseconds.
 */
int units_parse_duration(const char *text, uint64_t *ns);

/* Parse an unsigned decimal count in [min, max]. */
int units_parse_count(const char *text, uint64_t min, uint64_t max,
		      uint64_t *count);

/* Parse a plain non-negative decimal fraction such as "0.03". */
int units_parse_fraction(const char *text, double *value);

/*
 * Formatting.  Each writes into buf (UNITS_BUF bytes) and returns buf.
 *  time: "123ns", then three significant digits in µs and ms, four in s;
 *        negative values keep their unit ("-9.69µs").
 *  size: binary units with three significant digits: "512B" "4MiB" "1.5GiB".
 *  rate: decimal units per second, three significant digits: "614K/s".
 */
const char *units_format_time(char *buf, double ns);
const char *units_format_size(char *buf, double bytes);
const char *units_format_rate(char *buf, double bytes_per_s);

/* Human size for prose: exact when it is a whole number of units ("12MiB"). */
const char *units_format_exact_size(char *buf, uint64_t bytes);

/* value rounded up to a whole number of steps (step > 0). */
static inline uint64_t units_round_up(uint64_t value, uint64_t step)
{
	return (value + step - 1) / step * step;
}

/* The greatest common divisor of a and b (a when b is 0). */
uint64_t units_gcd(uint64_t a, uint64_t b);

#endif
