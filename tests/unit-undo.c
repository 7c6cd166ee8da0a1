/*
 * unit-undo: the done and progress records of a chunked run's undo file
 * (measure/undo/: write.c, scan.c, proof.c, restore.c).  A damaged one
 * costs only itself: the scan goes on past it to the records after, and
 * the restore still leaves the device as it was - a chunk whose done
 * mark is lost is put back once more, a lost progress only means
 * --resume cannot go on.  A damaged record a later done mark covers is
 * no failure.  A file cut inside its last
 * record (in the head, the data, the trailer), with the run's stamps or
 * test patterns on the device there or not: the restore puts every byte
 * back or lists what it could not, never leaves a byte changed unsaid.
 * A damaged header is -EBADMSG; a header-only file puts nothing back
 * unless the run's stamps lie at the device's start; undo_save refuses a
 * stopped run's stamp as data.  A chunk's file staged beside the test of
 * the chunk before is no part of the undo file until it is committed;
 * what lies under its name is staged over only when a killed run left
 * it.
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
#include "lib/units.h"
#include "measure/undo/proof.h"
#include "measure/undo/restore.h"
#include "measure/undo/write.h"
#include "unit.h"
#include "vm/stamp.h"

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

/* Save a chunk, overwrite it with the random test pattern. */
static void pattern_in_flight(struct undo *u, struct dev *dev, uint64_t at)
{
	uint64_t ns;

	if (undo_save(u, dev, at, CHUNK, io) || undo_sync(u))
		abort();
	dev_fill_pattern(io, CHUNK, DEV_PATTERN_RANDOM);
	if (dev_write(dev, io, at, CHUNK, &ns))
		abort();
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

/* A chunk saved, stamped, put back and marked done; its record hit. */
static void test_covered_damage(enum hit hit)
{
	/* both copies of its head lost: its range is not known */
	bool listed = hit == HIT_BOTH;
	const uint64_t salts[] = { SALT };
	struct undo u = { .fd = -1 };
	struct undo_result result = { 0 };
	uint64_t record_at, record_end, mark_at, mark_end;
	struct dev dev;

	card_open(&dev);
	unlink(path);
	if (undo_create(&u, path, &dev, salts, 1))
		abort();
	record_at = file_bytes();
	chunk_in_flight(&u, &dev, 0);
	record_end = file_bytes();
	chunk_done(&u, &dev, 0, &mark_at, &mark_end);
	chunk_in_flight(&u, &dev, CHUNK);
	undo_close(&u);
	damage_record(record_at, record_end, hit);
	UNIT_CHECK(restore(&dev, &result) == 0 && device_as_before(&dev) &&
		   result.records == 1 &&
		   result.damaged_count == (listed ? 1u : 0u),
		   "a done chunk's record %s: %s, the chunk in flight put back "
		   "(%llu records, %zu listed)", hit_names[hit],
		   listed ? "listed (its range is not known)" :
		   "no failure, its data is back", (unsigned long long)
		   result.records, result.damaged_count);
	undo_result_free(&result);
	dev_close(&dev);
}

/* Where a test cuts the last record, from its first byte. */
static const struct {
	const char *name;
	uint64_t at;
} cuts[] = {
	{ "1 byte into its head", 1 },
	{ "20 bytes into its head", 20 },
	{ "40 bytes into its head (offset and length whole)", 40 },
	{ "63 bytes into its head", 63 },
	{ "after its head", HEAD },
	{ "in the middle of its data", HEAD + CHUNK / 2 },
	{ "a byte before its data ends", HEAD + CHUNK - 1 },
	{ "after its data", HEAD + CHUNK },
	{ "30 bytes into its trailer", HEAD + CHUNK + 30 },
	{ "63 bytes into its trailer", HEAD + CHUNK + 63 },
};

/* What the device holds in the last record's chunk when the file is cut. */
enum written { NOT_WRITTEN, STAMPED, PATTERN };

static const char *const written_names[] = {
	[NOT_WRITTEN] = "nothing written there", [STAMPED] = "stamped",
	[PATTERN] = "the test pattern there",
};

/*
 * The file of a run with the chunk at CHUNK in flight: a capacity-like
 * one (the chunk at 0 done before it), or a chunked run's (a progress at
 * CHUNK).  Where the chunk's record starts in the file.
 */
static uint64_t file_in_flight(struct dev *dev, bool progress,
			       enum written written)
{
	const uint64_t salts[] = { written == PATTERN ? UNDO_PATTERN_SALT :
				   SALT };
	const struct undo_progress stands = { .start = 0, .end = 4 * MIB,
		.next = CHUNK, .window_bytes = MIB, .chunk_bytes = CHUNK,
		.first_bad = UINT64_MAX };
	struct undo u = { .fd = -1 };
	uint64_t record_at, mark_at, mark_end, ns;

	unlink(path);
	if (progress ? undo_replace(&u, path, dev, salts, 1, &stands) :
		       undo_create(&u, path, dev, salts, 1))
		abort();
	if (!progress) {
		chunk_in_flight(&u, dev, 0);
		chunk_done(&u, dev, 0, &mark_at, &mark_end);
	}
	record_at = file_bytes();
	if (written == STAMPED)
		chunk_in_flight(&u, dev, CHUNK);
	else if (written == PATTERN)
		pattern_in_flight(&u, dev, CHUNK);
	else if (undo_save(&u, dev, CHUNK, CHUNK, io) || undo_sync(&u))
		abort();
	undo_close(&u);
	/* the device's chunk as the file saved it, the rest as before */
	memcpy(io, before, CHUNK);
	if (dev_write(dev, io, 0, CHUNK, &ns))
		abort();
	return record_at;
}

/*
 * Cut the file inside its last record: every byte back, or what is not
 * back listed.  Put back when the run wrote there and the data is whole;
 * skipped when the device shows nothing written; listed otherwise (a
 * head cut before its range, in a file that says nothing of where the
 * run stood, cannot be judged).
 */
static void test_cut(bool progress, enum written written, size_t c)
{
	struct undo_result result = { 0 };
	bool data_whole = cuts[c].at >= HEAD + CHUNK;
	bool unknown = !progress && cuts[c].at < 32;
	bool refused = unknown || (written != NOT_WRITTEN && !data_whole);
	struct dev dev;
	int err;

	card_open(&dev);
	if (truncate(path, 0) && errno != ENOENT)
		abort();
	if (truncate(path, (off_t)(file_in_flight(&dev, progress, written) +
				   cuts[c].at)))
		abort();
	err = restore(&dev, &result);
	if (refused)
		UNIT_CHECK(err == 0 && result.damaged_count == 1 &&
			   result.damaged[0].range_known == !unknown &&
			   (unknown || (result.damaged[0].offset == CHUNK &&
					result.damaged[0].length == CHUNK)) &&
			   /* a chunked run's head cut before its range:
			      the chunk it stood at is read */
			   result.damaged[0].cause == (progress &&
				cuts[c].at < 32 ? UNDO_LOST : UNDO_CUT),
			   "%s, %s, cut %s: listed, not put back (%d, %zu "
			   "listed)", progress ? "a chunked run" : "a run",
			   written_names[written], cuts[c].name, err,
			   result.damaged_count);
	else
		UNIT_CHECK(err == 0 && result.damaged_count == 0 &&
			   device_as_before(&dev) && result.records ==
			   (written != NOT_WRITTEN ? 1u : 0u),
			   "%s, %s, cut %s: every byte back (%d, %llu records, "
			   "%zu listed)", progress ? "a chunked run" : "a run",
			   written_names[written], cuts[c].name, err,
			   (unsigned long long)result.records,
			   result.damaged_count);
	undo_result_free(&result);
	dev_close(&dev);
}

/* A header damaged: a failure of the file (no usage error). */
static void test_damaged_header(void)
{
	struct undo_result result = { 0 };
	struct dev dev;

	card_open(&dev);
	file_in_flight(&dev, false, STAMPED);
	damage(100);			/* among the salts */
	UNIT_CHECK(restore(&dev, &result) == -EBADMSG,
		   "a damaged header: -EBADMSG, nothing put back");
	undo_result_free(&result);
	dev_close(&dev);
}

/*
 * A file of only its header: nothing to put back, unless the run's
 * stamps lie at the device's start (where a capacity check always
 * stamps), when the record that saved them is lost: listed.
 */
static void test_header_only(bool stamped)
{
	const uint64_t salts[] = { SALT };
	struct undo u = { .fd = -1 };
	struct undo_result result = { 0 };
	struct dev dev;
	uint64_t ns;
	int err;

	card_open(&dev);
	unlink(path);
	if (undo_create(&u, path, &dev, salts, 1))
		abort();
	undo_close(&u);
	stamp_fill(io, 3 * CHUNK, CHUNK, dev.logical_block_bytes, SALT);
	if (stamped && dev_write(&dev, io, 3 * CHUNK, CHUNK, &ns))
		abort();
	err = restore(&dev, &result);
	if (stamped)
		UNIT_CHECK(err == 0 && result.records == 0 &&
			   result.damaged_count == 1 &&
			   result.damaged[0].cause == UNDO_LOST &&
			   result.damaged[0].offset == 3 * CHUNK &&
			   result.damaged[0].length == CHUNK,
			   "a header-only file, its run's stamps on the device: "
			   "their range listed (%d, %zu listed)", err,
			   result.damaged_count);
	else
		UNIT_CHECK(err == 0 && result.records == 0 &&
			   result.damaged_count == 0 && device_as_before(&dev),
			   "a header-only file, no stamp of its run: nothing to "
			   "put back (%d)", err);
	undo_result_free(&result);
	dev_close(&dev);
}

static bool staged_exists(void)
{
	char fresh[80];

	snprintf(fresh, sizeof(fresh), "%s.new", path);
	return access(fresh, F_OK) == 0;
}

/*
 * --keep-data's pipeline: chunk 0 in flight in the file, chunk 1's old
 * contents staged beside it.  Killed before the commit, the file puts
 * back chunk 0 alone (the staged file is no part of it, and unstaged it
 * is gone); committed once chunk 0 is back, the file holds chunk 1 and
 * where the run stood, and puts chunk 1 back, and the file it replaced
 * waits beside it for the next stage to write over.
 */
static void test_staged(bool commit)
{
	const uint64_t salts[] = { SALT };
	const struct undo_progress stands = { .start = 0, .end = 4 * MIB,
		.next = 0, .window_bytes = MIB, .chunk_bytes = CHUNK,
		.first_bad = UINT64_MAX };
	struct undo u = { .fd = -1 }, next;
	struct undo_progress got = { 0 };
	struct undo_result result = { 0 };
	uint64_t ns, mark_at, mark_end;
	struct dev dev;
	int spare_fd;
	bool fine;

	card_open(&dev);
	unlink(path);
	if (undo_replace(&u, path, &dev, salts, 1, &stands) ||
	    dev_read(&dev, io, 0, CHUNK, &ns) ||
	    undo_stage(&next, &u, &stands, 0, io, CHUNK) ||
	    undo_commit(&u, &next))
		abort();
	stamp_fill(io, 0, CHUNK, dev.logical_block_bytes, SALT);
	if (dev_write(&dev, io, 0, CHUNK, &ns) ||
	    dev_read(&dev, io, CHUNK, CHUNK, &ns) ||
	    undo_stage(&next, &u, &stands, CHUNK, io, CHUNK))
		abort();
	fine = staged_exists() && !next.failed;
	if (commit) {
		chunk_done(&u, &dev, 0, &mark_at, &mark_end);
		fine = fine && undo_commit(&u, &next) == 0 && u.spare &&
		       staged_exists();
		stamp_fill(io, CHUNK, CHUNK, dev.logical_block_bytes, SALT);
		if (dev_write(&dev, io, CHUNK, CHUNK, &ns))
			abort();
		/* the next stage writes over the file the commit replaced */
		spare_fd = u.spare_fd;
		fine = fine && undo_stage(&next, &u, &stands, 2 * CHUNK, io,
					  CHUNK) == 0 && next.fd == spare_fd &&
		       !u.spare;
		undo_unstage(&next);
	}
	if (!commit)		/* killed: the staged file goes with it */
		undo_unstage(&next);
	undo_drop_spare(&u);
	undo_close(&u);
	UNIT_CHECK(fine && !staged_exists() && restore(&dev, &result) == 0 &&
		   device_as_before(&dev) && result.records == 1 &&
		   read_progress(&dev, &got) == 0 && got.next == 0,
		   commit ? "a staged chunk committed once the one before is "
		   "back: the file puts it back, and stands where it stood; "
		   "the file it replaced is written over by the next stage" :
		   "killed with a chunk staged: the file puts back the chunk "
		   "in flight alone");

	undo_result_free(&result);
	dev_close(&dev);
}

/* A staged file that cannot be made: its operation said, nothing left. */
static void test_stage_fails(void)
{
	const uint64_t salts[] = { SALT };
	const struct undo_progress stands = { .end = 4 * MIB };
	struct undo u = { .fd = -1 }, next;
	struct dev dev;
	int err;

	card_open(&dev);
	unlink(path);
	if (undo_create(&u, path, &dev, salts, 1))
		abort();
	u.path = "/nonexistent/unit-undo";
	err = undo_stage(&next, &u, &stands, 0, io, CHUNK);
	UNIT_CHECK(err == -ENOENT && next.failed &&
		   strcmp(next.failed, "create") == 0,
		   "a stage where no file can be made fails at its create "
		   "(%d)", err);
	undo_unstage(&next);
	undo_close(&u);
	dev_close(&dev);
}

/* name holding text (NULL: a symbolic link to /dev/null), or nothing. */
static void plant(const char *name, const char *text)
{
	int fd;

	unlink(name);
	if (!text) {
		if (symlink("/dev/null", name))
			abort();
		return;
	}
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
}

/* Does name hold text (NULL: is it a symbolic link)? */
static bool holds(const char *name, const char *text)
{
	char buf[64] = "";
	struct stat st;
	int fd;

	if (!text)
		return lstat(name, &st) == 0 && S_ISLNK(st.st_mode);
	fd = open(name, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0)
		abort();
	close(fd);
	return strcmp(buf, text) == 0;
}

/*
 * What lies at FILE.new: a killed run's leavings (empty, or an undo
 * file's start) are staged over; a file of other data or a symbolic
 * link stays, and the stage fails at its create; --restore's removal
 * leaves it too.  The state file's own (undo_write_whole) alike.
 */
static void test_stale_staged(void)
{
	const uint64_t salts[] = { SALT };
	const struct undo_progress stands = { .end = 4 * MIB };
	const char *planted[] = { "my notes", NULL, "", "FBUNDO02 and" };
	const char *state = "flashbench-passes 1\nidentity x\n";
	char fresh[sizeof(path) + 4];
	struct undo u = { .fd = -1 }, next;
	struct dev dev;
	const char *failed;
	int err;

	card_open(&dev);
	snprintf(fresh, sizeof(fresh), "%s.new", path);
	for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
		bool ours = i >= 2;

		unlink(path);
		plant(fresh, planted[i]);
		if (undo_create(&u, path, &dev, salts, 1))
			abort();
		err = undo_stage(&next, &u, &stands, 0, io, CHUNK);
		UNIT_CHECK(ours ? err == 0 : err == -EEXIST &&
			   strcmp(next.failed, "create") == 0 &&
			   holds(fresh, planted[i]),
			   "FILE.new holding %s: %s (%d)", planted[i] ?
			   (*planted[i] ? planted[i] : "nothing") : "a link",
			   ours ? "staged over" : "kept, the stage refused",
			   err);
		undo_unstage(&next);
		undo_close(&u);
		if (!ours) {
			undo_remove_staged(path);
			UNIT_CHECK(holds(fresh, planted[i]), "a restore's "
				   "removal leaves it too");
		}
		plant(fresh, ours ? "flashbench-passes" : planted[i]);
		err = undo_write_whole(path, state, strlen(state), &failed);
		UNIT_CHECK(ours ? err == 0 && holds(path, state) &&
			   access(fresh, F_OK) != 0 :
			   err == -EEXIST && holds(fresh, planted[i]),
			   "a state file beside one: %s (%d)",
			   ours ? "written over" : "kept, refused", err);
	}
	unlink(fresh);
	dev_close(&dev);
}

/* --resume: a stopped run's stamp is never saved as the card's data. */
static void test_refused_stamps(void)
{
	const uint64_t salts[] = { SALT + 1 }, stopped[] = { SALT };
	struct undo u = { .fd = -1 };
	struct dev dev;
	uint64_t ns;
	int err;

	card_open(&dev);
	unlink(path);
	stamp_fill(io, 2 * CHUNK + 4096, 512, dev.logical_block_bytes, SALT);
	if (dev_write(&dev, io, 2 * CHUNK + 4096, 512, &ns) ||
	    undo_create(&u, path, &dev, salts, 1))
		abort();
	undo_refuse_stamps(&u, stopped, 1);
	err = undo_save(&u, &dev, CHUNK, CHUNK, io);
	UNIT_CHECK(err == 0, "a chunk holding no stopped run's stamp is saved");
	err = undo_save(&u, &dev, 2 * CHUNK, CHUNK, io);
	UNIT_CHECK(err == -EUCLEAN && u.foreign_at == 2 * CHUNK + 4096 &&
		   u.records == 1, "a chunk holding one: refused at its "
		   "offset, nothing appended (%d, at %llu)", err,
		   (unsigned long long)u.foreign_at);
	undo_close(&u);
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
	for (enum hit hit = HIT_HEAD; hit <= HIT_DATA; hit++)
		test_covered_damage(hit);
	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		test_cut(false, STAMPED, c);
		test_cut(false, NOT_WRITTEN, c);
		test_cut(true, STAMPED, c);
		test_cut(true, NOT_WRITTEN, c);
		test_cut(false, PATTERN, c);
	}
	test_damaged_header();
	test_header_only(false);
	test_header_only(true);
	test_refused_stamps();
	test_staged(false);
	test_staged(true);
	test_stage_fails();
	test_stale_staged();
	unlink(path);
	free(io);
	return UNIT_DONE();
}
