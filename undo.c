/*
 * undo: an append-only log of old block contents.  Layout (little
 * endian): a 64-byte header - magic "FBUNDO01", device size, logical
 * block size, fingerprint - then records: magic "FBUR", offset, length,
 * FNV-1a of the data, the data.  A record cut short by a crash is the
 * end of the log: it was not fsync'd, so its blocks were not yet
 * overwritten.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "le64.h"
#include "stamp.h"
#include "undo.h"
#include "undotrust.h"

#define HEADER_BYTES 64
#define RECORD_BYTES 32		/* a record's head, before its data */
#define MAX_RECORD_BYTES (64ULL << 20)

static const char header_magic[8] = { 'F', 'B', 'U', 'N', 'D', 'O', '0',
				       '1' };
static const char record_magic[8] = { 'F', 'B', 'U', 'R', 0, 0, 0, 0 };

static int write_all(int fd, const void *buf, size_t length)
{
	const char *p = buf;

	while (length) {
		ssize_t n = write(fd, p, length);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		length -= (size_t)n;
	}
	return 0;
}

/* The new file's name must survive a power loss too: sync its directory. */
static int sync_directory(const char *path)
{
	char dir[PATH_MAX];
	int fd, err = 0;

	undo_directory_of(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

int undo_create(struct undo *u, const char *path, const struct dev *dev)
{
	unsigned char header[HEADER_BYTES] = { 0 };
	int err;

	*u = (struct undo){ .path = path, .device_bytes = dev->size_bytes,
			    .block_bytes = dev->logical_block_bytes,
			    .fingerprint = undo_fingerprint(dev) };
	u->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (u->fd < 0)
		return -errno;
	memcpy(header, header_magic, sizeof(header_magic));
	put64(header + 8, u->device_bytes);
	put64(header + 16, u->block_bytes);
	put64(header + 24, u->fingerprint);
	u->unsynced = true;
	err = write_all(u->fd, header, sizeof(header));
	return err ? err : sync_directory(path);
}

int undo_save(struct undo *u, struct dev *dev, uint64_t offset,
	      uint64_t length, void *buf)
{
	unsigned char head[RECORD_BYTES];
	uint64_t ns;
	int err = dev_read(dev, buf, offset, length, &ns);

	if (err)
		return err;
	memcpy(head, record_magic, sizeof(record_magic));
	put64(head + 8, offset);
	put64(head + 16, length);
	put64(head + 24, stamp_hash(STAMP_FNV_BASIS, buf, (size_t)length));
	err = write_all(u->fd, head, sizeof(head));
	if (!err)
		err = write_all(u->fd, buf, (size_t)length);
	if (err)
		return err;
	u->records++;
	u->bytes_saved += length;
	u->unsynced = true;
	return 0;
}

int undo_sync(struct undo *u)
{
	if (!u->unsynced)
		return 0;
	if (fsync(u->fd))
		return -errno;
	u->unsynced = false;
	return 0;
}

void undo_close(struct undo *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

/* ---- restoring ---- */

struct saved {
	uint64_t offset, length;
	off_t data_at;			/* in the file */
	uint64_t hash;
};

static int read_exact(int fd, void *buf, size_t length, off_t at)
{
	char *p = buf;

	while (length) {
		ssize_t n = pread(fd, p, length, at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		p += n;
		at += n;
		length -= (size_t)n;
	}
	return 0;
}

static int check_header(int fd, const struct dev *dev, char *why,
			size_t size)
{
	unsigned char header[HEADER_BYTES];

	if (read_exact(fd, header, sizeof(header), 0) ||
	    memcmp(header, header_magic, sizeof(header_magic))) {
		snprintf(why, size, "not a flashbench undo file");
		return -EINVAL;
	}
	if (get64(header + 8) != dev->size_bytes ||
	    get64(header + 16) != dev->logical_block_bytes) {
		snprintf(why, size, "it was made for a device of %llu bytes "
			 "(blocks of %llu), not this one of %llu",
			 (unsigned long long)get64(header + 8),
			 (unsigned long long)get64(header + 16),
			 (unsigned long long)dev->size_bytes);
		return -ENODEV;
	}
	if (get64(header + 24) != undo_fingerprint(dev)) {
		snprintf(why, size, "it was made for another device of the "
			 "same size (its identity differs)");
		return -ENODEV;
	}
	return 0;
}

/* The records of the log, in order, up to the first cut-short one. */
static int read_index(int fd, const struct dev *dev, struct saved **list,
		      size_t *count)
{
	unsigned char head[RECORD_BYTES];
	off_t at = HEADER_BYTES;
	size_t cap = 0;

	*list = NULL;
	*count = 0;
	while (read_exact(fd, head, sizeof(head), at) == 0 &&
	       memcmp(head, record_magic, sizeof(record_magic)) == 0) {
		struct saved s = { get64(head + 8), get64(head + 16),
				   at + RECORD_BYTES, get64(head + 24) };
		struct stat st;

		if (!s.length || s.length > MAX_RECORD_BYTES ||
		    dev_check_range(dev, s.offset, s.length) ||
		    fstat(fd, &st) ||
		    (uint64_t)st.st_size < (uint64_t)s.data_at + s.length)
			break;
		if (*count == cap) {
			struct saved *bigger;

			cap = cap ? cap * 2 : 64;
			bigger = realloc(*list, cap * sizeof(**list));
			if (!bigger)
				return -ENOMEM;
			*list = bigger;
		}
		(*list)[(*count)++] = s;
		at = s.data_at + (off_t)s.length;
	}
	return 0;
}

static uint64_t largest(const struct saved *list, size_t count)
{
	uint64_t top = 0;

	for (size_t i = 0; i < count; i++)
		if (list[i].length > top)
			top = list[i].length;
	return top;
}

static int put_back(int fd, struct dev *dev, const struct saved *s,
		    void *buf, struct undo_result *result)
{
	uint64_t ns;
	int err = read_exact(fd, buf, (size_t)s->length, s->data_at);

	if (err)
		return err;
	if (stamp_hash(STAMP_FNV_BASIS, buf, (size_t)s->length) != s->hash)
		return -EBADMSG;
	err = dev_write(dev, buf, s->offset, s->length, &ns);
	if (!err)
		result->bytes_restored += s->length;
	return err;
}

/* Compare the device with one record, a block at a time. */
static int check_back(int fd, struct dev *dev, const struct saved *s,
		      uint64_t verify_below, unsigned char *saved,
		      unsigned char *now, struct undo_result *result)
{
	uint32_t lbs = dev->logical_block_bytes;
	uint64_t ns;
	bool unreadable = false;
	int err = 0;

	if (s->offset < verify_below)
		err = read_exact(fd, saved, (size_t)s->length, s->data_at);
	if (!err && s->offset < verify_below)
		err = dev_read(dev, now, s->offset, s->length, &ns);
	if (err == -EIO) {		/* counted as not put back */
		unreadable = true;
		err = 0;
	}
	for (uint64_t at = 0; !err && at < s->length; at += lbs) {
		if (s->offset + at >= verify_below) {
			result->blocks_unchecked++;
			continue;
		}
		result->blocks_checked++;
		if (!unreadable && memcmp(saved + at, now + at, lbs) == 0)
			continue;
		if (result->blocks_differing++ == 0)
			result->first_differing = s->offset + at;
	}
	return err;
}

/* Is record i the first save of its blocks?  Later ones hold stamps. */
static bool first_save(const struct saved *list, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (list[j].offset < list[i].offset + list[i].length &&
		    list[i].offset < list[j].offset + list[j].length)
			return false;
	return true;
}

static int restore_records(int fd, struct dev *dev, uint64_t verify_below,
			   const struct saved *list, size_t count,
			   struct undo_result *result)
{
	uint64_t top = largest(list, count);
	unsigned char *buf, *saved;
	int err;

	if (top >= SIZE_MAX)	/* on 32 bits, more than memory can hold */
		return -ENOMEM;
	buf = dev_alloc_buffer(top ? top : 1, DEV_PATTERN_ZEROS);
	saved = malloc(top ? (size_t)top : 1);
	err = buf && saved ? 0 : -ENOMEM;

	for (size_t i = count; !err && i-- > 0; )
		err = put_back(fd, dev, &list[i], buf, result);
	for (size_t i = 0; !err && i < count; i++)
		if (first_save(list, i))
			err = check_back(fd, dev, &list[i], verify_below,
					 saved, buf, result);
	free(buf);
	free(saved);
	return err;
}

int undo_check_file(const char *path, const struct dev *dev, char *why,
		    size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0) {
		err = -errno;
		snprintf(why, size, "%s", strerror(-err));
		return err;
	}
	err = check_header(fd, dev, why, size);
	close(fd);
	return err;
}

int undo_restore(const char *path, struct dev *dev, uint64_t verify_below,
		 struct undo_result *result, char *why, size_t size)
{
	struct saved *list = NULL;
	size_t count = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	*result = (struct undo_result){ 0 };
	if (fd < 0) {
		err = -errno;
		snprintf(why, size, "%s", strerror(-err));
		return err;
	}
	err = check_header(fd, dev, why, size);
	if (!err)
		err = read_index(fd, dev, &list, &count);
	result->records = count;
	if (!err)
		err = restore_records(fd, dev, verify_below, list, count,
				      result);
	free(list);
	close(fd);
	return err;
}
