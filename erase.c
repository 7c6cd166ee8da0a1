/*
 * erase: discard (or securely erase, or zero) one byte range of a device.
 * Every argument is checked before the device is touched; the device is
 * claimed exclusively, so a mounted one is refused.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/die.h"
#include "dev.h"
#include "lib/exitcode.h"
#include "lib/release.h"
#include "lib/units.h"


static void usage(FILE *out)
{
	fputs("Usage:\n"
	      " erase [options] <device> <start> <length>\n\n"
	      "Discard a byte range of a flash device, so the card can erase "
	      "it.\nAll data in the range is lost.\n\n"
	      "Options:\n"
	      " -s, --secure     secure erase (BLKSECDISCARD)\n"
	      " -z, --zero       make the range read back as zeros "
	      "(BLKZEROOUT)\n"
	      " -h, --help       display this help\n"
	      " -V, --version    display version\n\n"
	      "<start> and <length> are bytes, or numbers with a suffix: K, "
	      "M, G, T (or KiB,\nMiB...: powers of 1024), multiples of the "
	      "logical block size.\n\nFor more details see erase(1).\n",
	      out);
}

const char die_program_name[] = "erase";

static uint64_t size_arg(const char *what, const char *text)
{
	uint64_t value;
	int err = units_parse_size(text, &value);

	if (err == -ERANGE)
		usage_error("%s '%s' is too large", what, text);
	if (err)
		usage_error("%s '%s' is not a size (try 4096, 16K or 4MiB)",
			    what, text);
	return value;
}

static void check_range(const struct dev *dev, uint64_t start,
			uint64_t length)
{
	uint32_t lbs = dev->logical_block_bytes;

	if (length == 0)
		usage_error("length must be more than zero");
	if (start % lbs || length % lbs)
		usage_error("start %llu and length %llu must be multiples of "
			    "the logical block size %u",
			    (unsigned long long)start,
			    (unsigned long long)length, lbs);
	if (start > dev->size_bytes || length > dev->size_bytes - start)
		usage_error("range %llu+%llu is past the end of %s "
			    "(%llu bytes)", (unsigned long long)start,
			    (unsigned long long)length, dev->path,
			    (unsigned long long)dev->size_bytes);
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "secure", no_argument, NULL, 's' },
		{ "zero", no_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	enum dev_erase_kind kind = DEV_ERASE_DISCARD;
	char why[MESSAGE_BYTES], from[UNITS_BUF], to[UNITS_BUF];
	char took[UNITS_BUF];
	uint64_t start, length, ns = 0;
	struct dev dev;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":szhV", longs, NULL)) != -1) {
		if (c == 's' || c == 'z') {
			if (kind != DEV_ERASE_DISCARD)
				usage_error("--secure and --zero: one at a "
					    "time");
			kind = c == 's' ? DEV_ERASE_SECURE : DEV_ERASE_ZERO;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'V') {
			printf("%s %s\n", die_program_name, VERSION);
			return 0;
		} else {
			usage_error("%s", cli_option_error(c, optopt,
				    argv[optind - 1], longs, why,
				    sizeof(why)));
		}
	}
	if (argc - optind != 3)
		usage_error("expected <device> <start> <length>, got %d "
			    "argument%s", argc - optind,
			    argc - optind == 1 ? "" : "s");
	start = size_arg("start", argv[optind + 1]);
	length = size_arg("length", argv[optind + 2]);
	if (dev_open(&dev, argv[optind], DEV_READ_WRITE)) {
		dev_strerror(&dev, why, sizeof(why));
		if (dev.error.usage)
			usage_error("%s", why);
		runtime_error("%s", why);
	}
	check_range(&dev, start, length);
	/* a freed block of a file keeps its data on the disk under it */
	if (kind == DEV_ERASE_SECURE && dev.regular_file)
		usage_error("--secure: %s is a regular file; only a device "
			    "erases securely", dev.path);
	printf("erasing bytes %llu to %llu (%s to %s) of %s\n",
	       (unsigned long long)start,
	       (unsigned long long)(start + length - 1),
	       units_format_exact_size(from, start),
	       units_format_exact_size(to, start + length), dev.path);
	fflush(stdout);
	dev_allow_writes(&dev, start, start + length);
	/* a zero-out is writes: on the medium before "done" says so */
	if (dev_erase(&dev, kind, start, length, &ns) || dev_flush(&dev)) {
		dev_strerror(&dev, why, sizeof(why));
		dev_close(&dev);
		runtime_error("%s: %s", dev.path, why);
	}
	printf("done in %s\n", units_format_time(took, (double)ns));
	dev_close(&dev);
	return 0;
}
