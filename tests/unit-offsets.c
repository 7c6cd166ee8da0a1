/*
 * unit-offsets: transfers past 2 and 4 GiB reach the right bytes.  A read
 * at a wrapped offset changes nothing, so no checksum of a device can see
 * it; here bytes written with plain pwrite past 4 GiB of a sparse image
 * file must come back through the device layer (dev_read) at the same
 * offset, and bytes written through dev_write must be found there by
 * pread, with nothing at the places a 32-bit offset would wrap to.
 * Built 32-bit by make check-32 and for armhf by make check-armhf.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "dev.h"
#include "lib/units.h"
#include "unit.h"

#define IMAGE_BYTES (8 * GIB)
#define PIECE_BYTES (64 * KIB)

/* Straddling and starting at 2 GiB (a signed 32-bit offset's limit) and
   4 GiB (an unsigned one's), well past both, and the image's last piece. */
static const uint64_t offsets[] = {
	2 * GIB - PIECE_BYTES / 2, 2 * GIB, 4 * GIB - PIECE_BYTES / 2,
	4 * GIB, 4 * GIB + 12 * KIB, 6 * GIB + 4 * KIB,
	IMAGE_BYTES - PIECE_BYTES,
};
#define OFFSET_COUNT (sizeof(offsets) / sizeof(offsets[0]))

/* Bytes that differ from one offset and one tag to the next, never all
   zero: a sparse image reads zeros wherever nothing was written. */
static void fill_piece(unsigned char *buf, uint64_t offset, unsigned tag)
{
	uint64_t state = offset ^ ((uint64_t)tag << 56) ^ 0x6f6666736574ULL;

	for (size_t i = 0; i < PIECE_BYTES; i++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		buf[i] = (unsigned char)(state >> 56) | 1;
	}
}

static int make_image(char *path)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)IMAGE_BYTES)) {
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

static int write_all(int fd, const void *buf, uint64_t offset)
{
	return pwrite(fd, buf, PIECE_BYTES, (off_t)offset) ==
	       (ssize_t)PIECE_BYTES ? 0 : -1;
}

static int read_all(int fd, void *buf, uint64_t offset)
{
	return pread(fd, buf, PIECE_BYTES, (off_t)offset) ==
	       (ssize_t)PIECE_BYTES ? 0 : -1;
}

static bool all_zero(const unsigned char *buf)
{
	for (size_t i = 0; i < PIECE_BYTES; i++)
		if (buf[i])
			return false;
	return true;
}

/* An emptied image: zeros everywhere, so a transfer at a wrong offset
   meets bytes that differ from any piece's. */
static bool empty_image(int fd)
{
	return ftruncate(fd, 0) == 0 && ftruncate(fd, (off_t)IMAGE_BYTES) == 0;
}

/* A piece written with pwrite comes back through dev_read. */
static void read_one(int fd, const char *path, uint64_t offset,
		     unsigned char *want, unsigned char *got)
{
	struct dev dev;
	uint64_t ns;
	int err = -1;

	fill_piece(want, offset, 'r');
	memset(got, 0, PIECE_BYTES);
	if (empty_image(fd) && write_all(fd, want, offset) == 0 &&
	    fsync(fd) == 0 && dev_open(&dev, path, DEV_READ_ONLY) == 0) {
		err = dev.size_bytes == IMAGE_BYTES ?
		      dev_read(&dev, got, offset, PIECE_BYTES, &ns) : -1;
		dev_close(&dev);
	}
	UNIT_CHECK(err == 0 && memcmp(got, want, PIECE_BYTES) == 0,
		   "dev_read at %llu returns the bytes pwrite put there",
		   (unsigned long long)offset);
}

/*
 * Where the only data of a fresh sparse image begins and whether any
 * follows a piece: SEEK_DATA sees a stray write anywhere in the 8 GiB.
 * Returns false when the file system cannot tell (no SEEK_DATA).
 */
static bool only_data_at(int fd, uint64_t offset, bool *alone)
{
	off_t first = lseek(fd, 0, SEEK_DATA);
	off_t next = lseek(fd, (off_t)(offset + PIECE_BYTES), SEEK_DATA);

	if (first < 0 && errno == EINVAL)
		return false;
	*alone = first == (off_t)offset && next < 0 && errno == ENXIO;
	return true;
}

/* One dev_write on an emptied image: the bytes are where pread looks,
   and nowhere else - above all not at the offset cut to 32 bits. */
static void write_one(int fd, const char *path, uint64_t offset,
		      unsigned char *want, unsigned char *got)
{
	struct dev dev;
	uint64_t ns, low = offset % (4 * GIB);
	bool alone = true, written;
	int err = -1;

	fill_piece(want, offset, 'w');
	if (empty_image(fd) && dev_open(&dev, path, DEV_READ_WRITE) == 0) {
		dev_allow_writes(&dev, offset, offset + PIECE_BYTES);
		err = dev_write(&dev, want, offset, PIECE_BYTES, &ns);
		dev_close(&dev);
	}
	written = err == 0 && read_all(fd, got, offset) == 0 &&
		  memcmp(got, want, PIECE_BYTES) == 0;
	UNIT_CHECK(written, "pread at %llu finds the bytes dev_write put "
		   "there", (unsigned long long)offset);
	if (offset >= 4 * GIB)
		UNIT_CHECK(read_all(fd, got, low) == 0 && all_zero(got),
			   "  and %llu, the offset modulo 4 GiB, is untouched",
			   (unsigned long long)low);
	if (only_data_at(fd, offset, &alone))
		UNIT_CHECK(alone, "  and the image has no other data");
	else
		printf("ok %d # skip no SEEK_DATA on this file system\n",
		       ++unit_number);
}

/* A length no size_t or ssize_t holds is refused, never cut short. */
static void test_long_lengths(const char *path, unsigned char *buf)
{
	struct dev dev;
	uint64_t ns;

	if (SIZE_MAX > UINT32_MAX) {
		printf("ok %d # skip lengths past 4 GiB fit this size_t\n",
		       ++unit_number);
		return;
	}
	UNIT_CHECK(dev_alloc_buffer(4 * GIB + 4 * KIB, DEV_PATTERN_ZEROS) ==
		   NULL, "no buffer for a 4 GiB + 4 KiB transfer, not a "
		   "4 KiB one");
	dev_open(&dev, path, DEV_READ_ONLY);
	UNIT_CHECK(dev_read(&dev, buf, 0, 4 * GIB + 4 * KIB, &ns) ==
		   -EOVERFLOW, "a read of 4 GiB + 4 KiB is refused");
	UNIT_CHECK(dev_read(&dev, buf, 0, 2 * GIB, &ns) == -EOVERFLOW,
		   "a read of 2 GiB (past ssize_t) is refused");
	dev_close(&dev);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	unsigned char *want = dev_alloc_buffer(PIECE_BYTES, DEV_PATTERN_ZEROS);
	unsigned char *got = dev_alloc_buffer(PIECE_BYTES, DEV_PATTERN_ZEROS);
	int fd;

	snprintf(path, sizeof(path), "%s/flashbench-offsets.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	fd = make_image(path);
	if (fd < 0 || !want || !got) {
		/* a file system without 8 GiB sparse files cannot run these */
		printf("ok 1 # skip no 8 GiB sparse image in %s (%s)\n",
		       tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return 0;
	}
	for (size_t i = 0; i < OFFSET_COUNT; i++)
		read_one(fd, path, offsets[i], want, got);
	for (size_t i = 0; i < OFFSET_COUNT; i++)
		write_one(fd, path, offsets[i], want, got);
	test_long_lengths(path, got);
	close(fd);
	unlink(path);
	free(want);
	free(got);
	return UNIT_DONE();
}
