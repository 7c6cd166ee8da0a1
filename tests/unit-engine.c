/*
 * unit-engine: the io_uring and AIO engines on a regular file, forced by
 * FLASHBENCH_ENGINE, at depth 8 and at depth 32 (where completions are
 * taken several at a time, and all 16 reads are in flight at once).
 * Every byte a batch reads is the file's, and a failure inside a batch -
 * reads past a file cut short after it was opened come back short - is
 * reported with its offset, like a single read's.  An engine the kernel
 * refuses is skipped, saying why.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"
#include "lib/units.h"
#include "unit.h"

#define FILE_BYTES (1024 * KIB)
#define IO_BYTES (64 * KIB)
#define IO_COUNT (FILE_BYTES / IO_BYTES)

static unsigned char expected[FILE_BYTES];

static bool make_file(char *path)
{
	int fd = mkstemp(path);
	bool ok;

	if (fd < 0)
		return false;
	for (size_t i = 0; i < sizeof(expected); i++)
		expected[i] = (unsigned char)(i * 7 + i / 4096);
	ok = write(fd, expected, sizeof(expected)) ==
	     (ssize_t)sizeof(expected);
	close(fd);
	return ok;
}

/* IO_COUNT reads of IO_BYTES, each into its own part of buf */
static void fill_ios(struct dev_io *ios, unsigned char *buf)
{
	for (unsigned i = 0; i < IO_COUNT; i++)
		ios[i] = (struct dev_io){ .offset = i * IO_BYTES,
					  .length = IO_BYTES,
					  .buf = buf + i * IO_BYTES };
}

static int run(struct dev *dev, struct dev_io *ios, struct dev_batch *b)
{
	*b = (struct dev_batch){ .kind = DEV_IO_READ, .ios = ios,
				 .count = IO_COUNT, .depth = dev->depth,
				 .budget_ns = UINT64_MAX };
	return dev_batch(dev, b);
}

static bool timed(const struct dev_io *ios, unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++)
		if (ios[i].ns == DEV_IO_NO_TIME || ios[i].ns == 0)
			return false;
	return true;
}

static void test_engine(const char *engine, enum dev_engine id,
			unsigned depth)
{
	char path[] = "/tmp/flashbench-unit-engine.XXXXXX", why[256];
	unsigned char *buf = dev_alloc_buffer(FILE_BYTES, DEV_PATTERN_ZEROS);
	struct dev_io ios[IO_COUNT];
	struct dev_batch b;
	struct dev dev;
	char name[64];
	int err;

	snprintf(name, sizeof(name), "%s at depth %u", engine, depth);
	if (!buf || !make_file(path)) {
		UNIT_CHECK(false, "%s: a 1 MiB file to read", name);
		free(buf);
		return;
	}
	setenv("FLASHBENCH_ENGINE", engine, 1);
	UNIT_CHECK(dev_open(&dev, path, DEV_READ_ONLY) == 0, "%s: opens",
		   name);
	err = dev_async_setup(&dev, depth);
	if (err) {
		unit_number++;
		printf("ok %d # skip %s: %s\n", unit_number, name,
		       dev_strerror(&dev, why, sizeof(why)));
		goto out;
	}
	UNIT_CHECK(dev.engine == id && dev.depth == depth,
		   "%s: runs at that depth", name);
	fill_ios(ios, buf);
	UNIT_CHECK(run(&dev, ios, &b) == 0 && b.done == IO_COUNT &&
		   timed(ios, 0, IO_COUNT), "%s: 16 reads, each timed", name);
	UNIT_CHECK(memcmp(buf, expected, FILE_BYTES) == 0,
		   "%s: every byte is the file's", name);
	UNIT_CHECK(dev.stats.bytes_read == FILE_BYTES &&
		   dev.stats.operations == IO_COUNT && dev.stats.time_ns > 0,
		   "%s: accounted", name);

	/* the file loses its second half: those reads come back short */
	UNIT_CHECK(truncate(path, FILE_BYTES / 2) == 0, "%s: file cut",
		   name);
	fill_ios(ios, buf);
	err = run(&dev, ios, &b);
	UNIT_CHECK(err == -ENODATA && b.failed == IO_COUNT / 2,
		   "%s: the first read past the end fails the batch (%d, %u)",
		   name, err, b.failed);
	UNIT_CHECK(timed(ios, 0, IO_COUNT / 2) &&
		   ios[IO_COUNT / 2].ns == DEV_IO_NO_TIME,
		   "%s: the reads before it have times, it has none", name);
	UNIT_STREQ(dev_strerror(&dev, why, sizeof(why)),
		   "read at 524288 (+65536): short transfer (0 of 65536 bytes)",
		   "%s: reported with its offset", name);
out:
	dev_close(&dev);
	unlink(path);
	free(buf);
}

static void test_forced_refusal(void)
{
	struct dev dev;
	char why[256];

	setenv("FLASHBENCH_ENGINE", "raw", 1);
	UNIT_CHECK(dev_open(&dev, "sim:", DEV_READ_ONLY) == 0, "sim opens");
	UNIT_CHECK(dev_async_setup(&dev, 8) == -EINVAL && dev.error.usage,
		   "an unknown engine is a usage error");
	UNIT_CHECK(strstr(dev_strerror(&dev, why, sizeof(why)),
			  "'raw' is not an engine") != NULL, "saying so: %s",
		   why);
	dev_close(&dev);
}

/* A file is a node of this host that keeps what is written to it. */
static void test_caps(void)
{
	char path[] = "/tmp/unit-engine-caps-XXXXXX";
	struct dev dev;
	int fd = mkstemp(path);

	UNIT_CHECK(fd >= 0 && dev_open(&dev, path, DEV_READ_ONLY) == 0 &&
		   dev_has(&dev, DEV_CAP_HOST_NODE | DEV_CAP_KEEPS_DATA |
			   DEV_CAP_OUTLIVES_CLOSE) &&
		   !dev_has(&dev, DEV_CAP_MODEL_TIME),
		   "a file: a host node that keeps its data, on the clock");
	dev_close(&dev);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	UNIT_CHECK(dev_open(&dev, path, DEV_READ_ONLY) == -ENOENT &&
		   dev.error.names_device &&
		   !strncmp(dev.error.message, path, strlen(path)),
		   "a missing file: the message names it (%s)",
		   dev.error.message);
}

/*
 * Unforced, the engine is io_uring's where it works; a test that
 * mirrors fio's libaio jobs (prefer_aio) runs on Linux AIO first, and
 * on io_uring where AIO does not work.
 */
static void test_preference(void)
{
	char path[] = "/tmp/unit-engine-prefer-XXXXXX";
	int fd = mkstemp(path);
	struct dev dev;
	bool opened;

	unsetenv("FLASHBENCH_ENGINE");
	opened = fd >= 0 && dev_open(&dev, path, DEV_READ_ONLY) == 0;
	UNIT_CHECK(opened && dev_async_setup(&dev, 8) == 0 &&
		   (dev.engine == DEV_ENGINE_IO_URING || dev.depth == 1 ||
		    dev.engine_note[0]),
		   "unforced: io_uring where it works (%s)",
		   dev_engine_name(dev.engine));
	if (opened)
		dev_close(&dev);
	opened = fd >= 0 && dev_open(&dev, path, DEV_READ_ONLY) == 0;
	if (opened)
		dev.prefer_aio = true;
	UNIT_CHECK(opened && dev_async_setup(&dev, 8) == 0 &&
		   (dev.engine == DEV_ENGINE_AIO || dev.engine_note[0]),
		   "prefer_aio: Linux AIO where it works (%s)",
		   dev_engine_name(dev.engine));
	if (opened)
		dev_close(&dev);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

int main(void)
{
	test_caps();
	test_engine("io_uring", DEV_ENGINE_IO_URING, 8);
	test_engine("io_uring", DEV_ENGINE_IO_URING, 32);
	test_engine("aio", DEV_ENGINE_AIO, 8);
	test_engine("aio", DEV_ENGINE_AIO, 32);
	test_forced_refusal();
	test_preference();
	unsetenv("FLASHBENCH_ENGINE");
	return UNIT_DONE();
}
