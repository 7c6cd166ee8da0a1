/*
 * unit-undo: the done and progress records of a chunked run's undo file
 * (measure/undo.c).  A damaged one costs only itself: the scan goes on
 * past it to the records after, and the restore still leaves the device
 * as it was - a chunk whose done mark is lost is put back once more, a
 * lost progress only means --resume cannot go on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev.h"
#include "measure/undo.h"
#include "unit.h"
#include "vm/stamp.h"

#define MIB (1024ULL * 1024)
#define CHUNK MIB
#define SALT 0x7e57ab1e5a17ULL
#define CARD "sim:noise=0,size=16M,fake=16M"

static unsigned char before[4 * MIB], scratch[4 * MIB];
static unsigned char *io;	/* aligned, CHUNK bytes */

static char path[64];

static uint64_t file_bytes(void)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

/* Flip one byte of the file: damage of a record's middle. */
static void damage(uint64_t at)
{
	int fd = open(path, O_RDWR);
	unsigned char c = 0;

	if (fd < 0 || pread(fd, &c, 1, (off_t)at) != 1)
		abort();
	c ^= 0x40;
	if (pwrite(fd, &c, 1, (off_t)at) != 1)
		abort();
	close(fd);
}

/* A card holding known bytes over [0, 4 MiB), writable. */
static void card_open(struct dev *dev)
{
	uint64_t state = 12345, ns;

	if (dev_open(dev, CARD, DEV_READ_WRITE))
		abort();
	dev_allow_writes(dev, 0, dev->size_bytes);
	for (size_t i = 0; i < sizeof(before); i++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		before[i] = (unsigned char)(state >> 56);
	}
	for (uint64_t at = 0; at < sizeof(before); at += CHUNK) {
		memcpy(io, before + at, CHUNK);
		if (dev_write(dev, io, at, CHUNK, &ns))
			abort();
	}
}

/* Save a chunk, overwrite it with stamps: a chunk in flight. */
static void chunk_in_flight(struct undo *u, struct dev *dev, uint64_t at)
{
	uint64_t ns;

	if (undo_save(u, dev, at, CHUNK, io) || undo_sync(u))
		abort();
	stamp_fill(io, at, CHUNK, dev->logical_block_bytes, SALT);
	if (dev_write(dev, io, at, CHUNK, &ns))
		abort();
}

/* ... and its old contents back, marked done: the mark's file range. */
static void chunk_done(struct undo *u, struct dev *dev, uint64_t at,
		       uint64_t *mark_at, uint64_t *mark_end)
{
	uint64_t ns;

	memcpy(io, before + at, CHUNK);
	if (dev_write(dev, io, at, CHUNK, &ns))
		abort();
	*mark_at = file_bytes();
	if (undo_mark_done(u, at, CHUNK) || undo_sync(u))
		abort();
	*mark_end = file_bytes();
}

static bool device_as_before(struct dev *dev)
{
	uint64_t ns;

	for (uint64_t at = 0; at < sizeof(scratch); at += CHUNK) {
		if (dev_read(dev, io, at, CHUNK, &ns))
			return false;
		memcpy(scratch + at, io, CHUNK);
	}
	return memcmp(scratch, before, sizeof(before)) == 0;
}

static int restore(struct dev *dev, struct undo_result *result)
{
	char why[256];
	int fd = open(path, O_RDONLY), err;

	err = fd < 0 ? -errno : undo_restore(fd, dev, UNDO_VERIFY_MARKED,
					     result, why, sizeof(why));
	if (fd >= 0)
		close(fd);
	return err;
}

/* What of a record a test damages. */
enum hit { HIT_NONE, HIT_HEAD, HIT_TRAILER, HIT_BOTH, HIT_DATA };

static const char *const hit_names[] = {
	[HIT_NONE] = "whole", [HIT_HEAD] = "its head damaged",
	[HIT_TRAILER] = "its trailer damaged",
	[HIT_BOTH] = "head and trailer damaged", [HIT_DATA] = "data damaged",
};

#define HEAD 64		/* a record's head, and its trailer (undo.c) */

/* Damage the record at [at, end) of the file as hit says. */
static void damage_record(uint64_t at, uint64_t end, enum hit hit)
{
	if (hit == HIT_HEAD || hit == HIT_BOTH)
		damage(at + 20);
	if (hit == HIT_TRAILER || hit == HIT_BOTH)
		damage(end - HEAD + 20);
	if (hit == HIT_DATA)
		damage(at + HEAD + 3);
}

/* Two chunks, the first done, the second in flight; the done mark hit. */
static void test_damaged_done(enum hit hit)
{
	/* the mark is lost only when neither of its copies is whole */
	bool lost = hit == HIT_BOTH;
	const uint64_t salts[] = { SALT };
	struct undo u = { .fd = -1 };
	struct undo_result result = { 0 };
	uint64_t mark_at, mark_end;
	struct dev dev;

	card_open(&dev);
	unlink(path);
	if (undo_create(&u, path, &dev, salts, 1))
		abort();
	chunk_in_flight(&u, &dev, 0);
	chunk_done(&u, &dev, 0, &mark_at, &mark_end);
	chunk_in_flight(&u, &dev, CHUNK);
	undo_close(&u);
	damage_record(mark_at, mark_end, hit);
	UNIT_CHECK(restore(&dev, &result) == 0 && device_as_before(&dev),
		   "done mark %s: the restore leaves every byte as before",
		   hit_names[hit]);
	if (lost)
		UNIT_CHECK(result.records == 2 && result.damaged_count == 1,
			   "done mark %s: skipped (%zu damaged), the scan goes "
			   "on: the chunk before it and the one after both put "
			   "back (%llu records)", hit_names[hit],
			   result.damaged_count,
			   (unsigned long long)result.records);
	else
		UNIT_CHECK(result.records == 1,
			   "done mark %s: taken, only the chunk in flight put "
			   "back (%llu records)", hit_names[hit],
			   (unsigned long long)result.records);
	undo_result_free(&result);
	dev_close(&dev);
}

static int read_progress(struct dev *dev, struct undo_progress *progress)
{
	char why[256];
	int fd = open(path, O_RDONLY), err;

	err = fd < 0 ? -errno : undo_read_progress(fd, dev, progress, why,
						   sizeof(why));
	if (fd >= 0)
		close(fd);
	return err;
}

/* A rewritten file: header and progress, then a chunk in flight. */
static void test_damaged_progress(enum hit hit)
{
	/* the data's hash is in the head and the trailer alike */
	bool lost = hit == HIT_BOTH || hit == HIT_DATA;
	const uint64_t salts[] = { SALT };
	const struct undo_progress at = { .start = 0, .end = 4 * MIB,
		.next = 2 * MIB, .window_bytes = MIB, .chunk_bytes = CHUNK,
		.first_bad = UINT64_MAX, .good_end = 2 * MIB };
	struct undo_progress got = { 0 };
	struct undo u = { .fd = -1 };
	struct undo_result result = { 0 };
	uint64_t progress_at, progress_end;
	struct dev dev;
	int err;

	card_open(&dev);
	unlink(path);
	if (undo_replace(&u, path, &dev, salts, 1, &at))
		abort();
	progress_end = file_bytes();
	progress_at = progress_end - 2 * HEAD - 64;	/* 8 words of data */
	chunk_in_flight(&u, &dev, 2 * MIB);
	undo_close(&u);
	damage_record(progress_at, progress_end, hit);
	err = read_progress(&dev, &got);
	if (lost)
		UNIT_CHECK(err == -ENOENT, "progress %s: not taken (%d), so "
			   "--resume cannot go on from it", hit_names[hit], err);
	else
		UNIT_CHECK(err == 0 && got.next == 2 * MIB &&
			   got.end == 4 * MIB, "progress %s: read back, next "
			   "chunk at %llu", hit_names[hit],
			   (unsigned long long)got.next);
	UNIT_CHECK(restore(&dev, &result) == 0 && device_as_before(&dev) &&
		   result.records == 1,
		   "progress %s: the chunk saved after it put back, every "
		   "byte as before", hit_names[hit]);
	undo_result_free(&result);
	dev_close(&dev);
}

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/unit-undo.%ld", (long)getpid());
	io = dev_alloc_buffer(CHUNK, DEV_PATTERN_ZEROS);
	if (!io)
		return 1;
	for (enum hit hit = HIT_NONE; hit < HIT_DATA; hit++)
		test_damaged_done(hit);
	for (enum hit hit = HIT_NONE; hit <= HIT_DATA; hit++)
		test_damaged_progress(hit);
	unlink(path);
	free(io);
	return UNIT_DONE();
}
