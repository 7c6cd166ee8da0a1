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
#include "identity/devname.h"
#include "lib/exitcode.h"
#include "lib/release.h"
#include "lib/units.h"
#include "output/render.h"


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
	      "     --format=F   text (the default), csv or json\n"
	      " -h, --help       display this help\n"
	      " -V, --version    display version\n\n"
	      "<start> and <length> are bytes, or numbers with a suffix: K, "
	      "M, G, T (or KiB,\nMiB...: powers of 1024), multiples of the "
	      "logical block size.\n\nFor more details see erase(1).\n",
	      out);
}

const char die_program_name[] = "erase";

/* How each kind of erase is named in the machine formats. */
static const char *const method_names[] = {
	[DEV_ERASE_DISCARD] = "discard",
	[DEV_ERASE_SECURE] = "secure",
	[DEV_ERASE_ZERO] = "zero",
};

/*
 * What was erased, how, and how long it took, through the one output
 * layer: in text the original "done in" line, in CSV and JSON a record
 * of kind erase in the document every flashbench test writes.
 */
static void report_erase(enum render_format format, const char *command,
			 const struct dev *dev, enum dev_erase_kind kind,
			 uint64_t start, uint64_t length, uint64_t ns)
{
	static const struct text_look done = { .display = TEXT_AS_UNIT,
					       .template = "done in %" };
	struct devname *names = calloc(1, sizeof(*names));
	const struct info_device idev = { .path = dev->path,
		.size_bytes = dev->size_bytes,
		.logical_block_bytes = dev->logical_block_bytes,
		.simulated = !dev_has(dev, DEV_CAP_HOST_NODE) };
	struct render_meta meta = { .test = "erase", .command = command,
		.device = dev->path, .device_size = dev->size_bytes,
		.logical_block_size = dev->logical_block_bytes };
	struct record rec = { .kind = "erase", .count = 4 };
	struct render *report;
	int err;

	if (!names)
		runtime_error("out of memory");
	if (format == RENDER_JSON) {
		devname_read(&idev, NULL, names);
		meta.device_identity = names->has_identity ? names->identity :
				       NULL;
		meta.device_name = names->name;
	}
	rec.fields[0] = (struct record_field){ RECORD_LABEL, "method",
		&text_hidden, method_names[kind], 0 };
	rec.fields[1] = (struct record_field){ RECORD_BYTES, "offset_bytes",
		&text_hidden, NULL, (double)start };
	rec.fields[2] = (struct record_field){ RECORD_BYTES, "length_bytes",
		&text_hidden, NULL, (double)length };
	rec.fields[3] = (struct record_field){ RECORD_TIME, "device_time_ns",
		&done, NULL, (double)ns };
	report = render_open(stdout, format, &meta);
	if (!report)
		runtime_error("out of memory");
	err = render_record(report, &rec);
	if (render_close(report, &dev->stats, false) || err)
		runtime_error("standard output: write error");
	free(names);
}

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

/* What the command line asks: the kind of erase, the format, the range. */
struct erase_args {
	enum dev_erase_kind kind;
	enum render_format format;
	const char *device;
	uint64_t start, length;
};

static void parse_erase_args(int argc, char **argv, struct erase_args *a)
{
	static const struct option longs[] = {
		{ "secure", no_argument, NULL, 's' },
		{ "zero", no_argument, NULL, 'z' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	char why[MESSAGE_BYTES];
	int c;

	*a = (struct erase_args){ .kind = DEV_ERASE_DISCARD,
				  .format = RENDER_TEXT };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":szhV", longs, NULL)) != -1) {
		if (c == 's' || c == 'z') {
			if (a->kind != DEV_ERASE_DISCARD)
				usage_error("--secure and --zero: one at a "
					    "time");
			a->kind = c == 's' ? DEV_ERASE_SECURE : DEV_ERASE_ZERO;
		} else if (c == 'f') {
			if (render_parse_format(optarg, &a->format))
				usage_error("--format: '%s' is not text, csv or "
					    "json", optarg);
		} else if (c == 'h') {
			usage(stdout);
			exit(EXIT_OK);	/* help and version: all asked */
		} else if (c == 'V') {
			printf("%s %s\n", die_program_name, VERSION);
			exit(EXIT_OK);	/* help and version: all asked */
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
	a->device = argv[optind];
	a->start = size_arg("start", argv[optind + 1]);
	a->length = size_arg("length", argv[optind + 2]);
}

/* Open the device for writing and check the range on it: exits if not. */
static void open_erase_device(const struct erase_args *a, struct dev *dev)
{
	char why[MESSAGE_BYTES];

	if (dev_open(dev, a->device, DEV_READ_WRITE)) {
		dev_strerror(dev, why, sizeof(why));
		if (dev->error.usage)
			usage_error("%s", why);
		runtime_error("%s", why);
	}
	check_range(dev, a->start, a->length);
	/* a freed block of a file keeps its data on the disk under it */
	if (a->kind == DEV_ERASE_SECURE && dev->regular_file)
		usage_error("--secure: %s is a regular file; only a device "
			    "erases securely", dev->path);
}

/* Announce the range, then erase it and flush: its time, or exit 1. */
static uint64_t erase_range(const struct erase_args *a, struct dev *dev)
{
	char why[MESSAGE_BYTES], from[UNITS_BUF], to[UNITS_BUF];
	/* the announcement is the text's first line; else stderr's */
	FILE *announce = a->format == RENDER_TEXT ? stdout : stderr;
	uint64_t start = a->start, length = a->length, ns = 0;

	fprintf(announce, "%serasing bytes %llu to %llu (%s to %s) of %s\n",
		announce == stderr ? "erase: " : "",
		(unsigned long long)start,
		(unsigned long long)(start + length - 1),
		units_format_exact_size(from, start),
		units_format_exact_size(to, start + length), dev->path);
	fflush(announce);
	dev_allow_writes(dev, start, start + length);
	/* a zero-out is writes: on the medium before "done" says so */
	if (dev_erase(dev, a->kind, start, length, &ns) || dev_flush(dev)) {
		dev_strerror(dev, why, sizeof(why));
		dev_close(dev);
		runtime_error("%s: %s", dev->path, why);
	}
	return ns;
}

int main(int argc, char **argv)
{
	struct erase_args a;
	struct dev dev;
	char *command;
	uint64_t ns;

	parse_erase_args(argc, argv, &a);
	open_erase_device(&a, &dev);
	ns = erase_range(&a, &dev);
	command = cli_join_command(argc, argv);
	if (!command)
		runtime_error("out of memory");
	report_erase(a.format, command, &dev, a.kind, a.start, a.length, ns);
	free(command);
	dev_close(&dev);
	return 0;
}
