/*
 * undo/write: the writer (write.h).  Each record is appended whole and
 * the file fsync'd before its blocks are overwritten; a file is
 * replaced by a rename, never rewritten in place, so a crash leaves one
 * whole file.  A chunked run's next file is written beside the one in
 * place (staged) while the chunk before is tested.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/le64.h"
#include "lib/stampblock.h"
#include "vm/stamp.h"
#include "measure/undo/format.h"
#include "measure/undo/trust.h"
#include "measure/undo/write.h"

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

/* Note which of the file's operations failed: err, passed through. */
static int file_failed(struct undo *u, const char *operation, int err)
{
	if (err) {
		u->failed = operation;
		u->failed_errno = -err;
	}
	return err;
}

/* u's fields for a new file of dev's naming the salts, not yet open. */
static void init_fields(struct undo *u, const char *path,
			const struct dev *dev, const uint64_t *stamp_salts,
			unsigned salt_count)
{
	*u = (struct undo){ .fd = -1, .path = path,
			    .device_bytes = dev->size_bytes,
			    .block_bytes = dev->logical_block_bytes,
			    .fingerprint = undo_fingerprint(dev) };
	if (salt_count > UNDO_MAX_SALTS)
		salt_count = UNDO_MAX_SALTS;
	u->salt_count = salt_count;
	memcpy(u->salts, stamp_salts, salt_count * sizeof(*stamp_salts));
}

/* u's header, at the file's start: a new file salt, no records yet. */
static int write_header(struct undo *u)
{
	unsigned char header[UNDO_HEADER_BYTES] = { 0 };

	u->file_salt = stamp_new_salt();
	u->records = 0;
	memcpy(header, undo_magic_header, sizeof(undo_magic_header));
	put64(header + UNDO_H_DEVICE, u->device_bytes);
	put64(header + UNDO_H_BLOCK, u->block_bytes);
	put64(header + UNDO_H_FINGERPRINT, u->fingerprint);
	put64(header + UNDO_H_SALT, u->file_salt);
	put64(header + UNDO_H_SALT_COUNT, u->salt_count);
	for (unsigned i = 0; i < u->salt_count; i++)
		put64(header + UNDO_H_SALTS + 8 * i, u->salts[i]);
	put64(header + UNDO_H_SUM,
	      stamp_hash(STAMP_FNV_BASIS, header, UNDO_H_SUM));
	u->unsynced = true;
	return file_failed(u, "write", write_all(u->fd, header,
						 sizeof(header)));
}

/* Create u's file at name (never over another) with its header. */
static int create_file(struct undo *u, const char *name)
{
	u->fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (u->fd < 0)
		return file_failed(u, "create", -errno);
	return write_header(u);
}

int undo_create(struct undo *u, const char *path, const struct dev *dev,
		const uint64_t *stamp_salts, unsigned salt_count)
{
	int err;

	init_fields(u, path, dev, stamp_salts, salt_count);
	err = create_file(u, path);
	return err ? err : file_failed(u, "fsync", sync_directory(path));
}

/* A head, or a trailer under its own magic: the same fields. */
static void fill_head(const struct undo *u, unsigned char *head,
		      const char *magic, uint64_t kind, uint64_t offset,
		      uint64_t length, uint64_t hash, uint64_t extent)
{
	memset(head, 0, UNDO_HEAD_BYTES);
	memcpy(head, magic, 8);
	put64(head + UNDO_R_KIND, kind);
	put64(head + UNDO_R_OFFSET, offset);
	put64(head + UNDO_R_LENGTH, length);
	put64(head + UNDO_R_HASH, hash);
	put64(head + UNDO_R_SEQUENCE, u->records);
	put64(head + UNDO_R_EXTENT, extent);
	put64(head + UNDO_R_SUM,
	      undo_salted_sum(u->file_salt, head, UNDO_R_SUM));
}

static int append(struct undo *u, uint64_t kind, uint64_t offset,
		  const void *data, uint64_t length, uint64_t extent)
{
	unsigned char head[UNDO_HEAD_BYTES], trailer[UNDO_HEAD_BYTES];
	uint64_t hash = undo_data_hash(kind, data, (size_t)length);
	int err;

	fill_head(u, head, undo_magic_head, kind, offset, length, hash, extent);
	fill_head(u, trailer, undo_magic_trailer, kind, offset, length, hash,
		  extent);
	err = write_all(u->fd, head, sizeof(head));
	if (!err)
		err = write_all(u->fd, data, (size_t)length);
	if (!err)
		err = write_all(u->fd, trailer, sizeof(trailer));
	if (err)
		return file_failed(u, "write", err);
	u->records++;
	u->unsynced = true;
	return 0;
}

void undo_refuse_stamps(struct undo *u, const uint64_t *salts,
			unsigned count)
{
	if (count > UNDO_MAX_SALTS)
		count = UNDO_MAX_SALTS;
	memcpy(u->foreign_salts, salts, count * sizeof(*salts));
	u->foreign_count = count;
}

/* Is block (read at offset) a whole stamp of a salt u refuses? */
static bool foreign_stamp(const struct undo *u, const unsigned char *block,
			  uint64_t offset)
{
	uint64_t named, salt;
	enum stamp_state state;

	if (u->block_bytes < STAMP_MIN_BYTES ||
	    !stampblock_header(block, &named, &salt))
		return false;
	state = stamp_classify(block, offset, u->block_bytes, salt, &named);
	for (unsigned i = 0; i < u->foreign_count; i++)
		if (u->foreign_salts[i] == salt)
			return state == STAMP_INTACT || state == STAMP_ALIAS;
	return false;
}

int undo_refuse_check(struct undo *u, uint64_t offset, const void *data,
		      uint64_t length)
{
	for (uint64_t at = 0; u->foreign_count && at < length;
	     at += u->block_bytes)
		if (foreign_stamp(u, (const unsigned char *)data + at,
				  offset + at)) {
			u->foreign_at = offset + at;
			return -EUCLEAN;
		}
	return 0;
}

/* Append the old contents of [offset, offset + length), in data. */
static int append_saved(struct undo *u, uint64_t offset, const void *data,
			uint64_t length)
{
	int err = append(u, UNDO_KIND_WORDS, offset, data, length, 0);

	if (!err)
		u->bytes_saved += length;
	return err;
}

int undo_save(struct undo *u, struct dev *dev, uint64_t offset,
	      uint64_t length, void *buf)
{
	uint64_t ns;
	int err = dev_read(dev, buf, offset, length, &ns);

	/* a stopped run's stamp is what it wrote, not what the card held */
	if (!err)
		err = undo_refuse_check(u, offset, buf, length);
	return err ? err : append_saved(u, offset, buf, length);
}

int undo_sync(struct undo *u)
{
	if (!u->unsynced)
		return 0;
	if (fsync(u->fd))
		return file_failed(u, "fsync", -errno);
	u->unsynced = false;
	return 0;
}

int undo_mark_usable(struct undo *u, uint64_t usable_bytes)
{
	int err = append(u, UNDO_KIND_USABLE, usable_bytes, "", 0, 0);

	return err ? err : undo_sync(u);
}

int undo_mark_done(struct undo *u, uint64_t offset, uint64_t length)
{
	return append(u, UNDO_KIND_DONE, offset, "", 0, length);
}

/*
 * The run's salts, then those of the stopped run it goes on with (so
 * its file tells their stamps from data too, to a later --restore or
 * --resume), as many as fit: into out, their number returned.
 */
static unsigned with_refused(const struct undo *u, const uint64_t *salts,
			     unsigned count, uint64_t *out)
{
	unsigned n = count < UNDO_MAX_SALTS ? count : UNDO_MAX_SALTS;

	memcpy(out, salts, n * sizeof(*salts));
	for (unsigned i = 0; i < u->foreign_count && n < UNDO_MAX_SALTS; i++)
		out[n++] = u->foreign_salts[i];
	return n;
}

/* A progress record: where a chunked run stands. */
static int append_progress(struct undo *u, const struct undo_progress *pr)
{
	unsigned char data[UNDO_PROGRESS_BYTES];

	undo_put_progress(data, pr);
	return append(u, UNDO_KIND_PROGRESS, pr->next, data, sizeof(data),
		      0);
}

/*
 * Remove what a killed run left at fresh (undo_check_stale: empty or
 * beginning with magic), if anything: 0, or -1 with errno set (EEXIST:
 * something else is there).
 */
static int remove_stale(const char *fresh, const char *magic)
{
	char why[PATH_MAX];

	if (undo_check_stale(fresh, magic, why, sizeof(why))) {
		errno = EEXIST;
		return -1;
	}
	return unlink(fresh) && errno != ENOENT ? -1 : 0;
}

/*
 * next's file at fresh: the file the last commit replaced (u's spare),
 * written over from its start, or a new one.
 */
static int stage_file(struct undo *next, struct undo *u, const char *fresh)
{
	if (u->spare) {
		next->fd = u->spare_fd;
		u->spare = false;
		if (lseek(next->fd, 0, SEEK_SET) < 0)
			return file_failed(next, "write", -errno);
		return write_header(next);
	}
	/* a killed run's was never in place: no copy; anything else there
	   is the user's own and stays (create fails) */
	if (remove_stale(fresh, undo_magic_header))
		return file_failed(next, "create", -errno);
	return create_file(next, fresh);
}

int undo_stage(struct undo *next, struct undo *u,
	       const struct undo_progress *progress, uint64_t offset,
	       const void *data, uint64_t length)
{
	char fresh[PATH_MAX];
	off_t end;
	int err;

	*next = (struct undo){ .fd = -1, .path = u->path,
			       .device_bytes = u->device_bytes,
			       .block_bytes = u->block_bytes,
			       .fingerprint = u->fingerprint,
			       .salt_count = u->salt_count,
			       .foreign_count = u->foreign_count };
	memcpy(next->salts, u->salts, sizeof(next->salts));
	memcpy(next->foreign_salts, u->foreign_salts,
	       sizeof(next->foreign_salts));
	err = undo_staged_name(u->path, fresh, sizeof(fresh));
	err = err ? file_failed(next, "create", err) :
		    stage_file(next, u, fresh);
	if (!err)
		err = append_progress(next, progress);
	if (!err && length)
		err = append_saved(next, offset, data, length);
	/* a file written over keeps nothing past its new end */
	end = err ? 0 : lseek(next->fd, 0, SEEK_CUR);
	if (!err && (end < 0 || ftruncate(next->fd, end)))
		err = file_failed(next, "truncate", -errno);
	return err ? err : undo_sync(next);
}

/* The file fd holds, staged beside path, removed if still named so. */
static void remove_own(int fd, const char *path)
{
	char fresh[PATH_MAX];
	struct stat mine, named;

	if (!undo_staged_name(path, fresh, sizeof(fresh)) &&
	    !fstat(fd, &mine) && !lstat(fresh, &named) &&
	    mine.st_dev == named.st_dev && mine.st_ino == named.st_ino)
		unlink(fresh);
}

/*
 * fresh in place of path: swapped with the file there when u holds it
 * open (it becomes the spare, named fresh), else renamed over it.
 * true when swapped.
 */
static bool put_in_place(const struct undo *u, const char *fresh,
			 const char *path, int *err)
{
	*err = 0;
	if (u->fd >= 0 && renameat2(AT_FDCWD, fresh, AT_FDCWD, path,
				    RENAME_EXCHANGE) == 0)
		return true;
	if (rename(fresh, path))
		*err = -errno;
	return false;
}

int undo_commit(struct undo *u, struct undo *next)
{
	char fresh[PATH_MAX];
	int err = undo_staged_name(next->path, fresh, sizeof(fresh));
	bool swapped = !err && put_in_place(u, fresh, next->path, &err);

	if (err)
		err = file_failed(next, "rename", err);
	if (!err)
		err = file_failed(next, "fsync", sync_directory(next->path));
	if (err) {
		u->failed = next->failed;
		u->failed_errno = next->failed_errno;
		/* swapped, u's file (its chunk back) bears the staged name */
		if (swapped)
			remove_own(u->fd, next->path);
		undo_unstage(next);
		return err;
	}
	if (swapped) {			/* the replaced file, kept to reuse */
		next->spare = true;
		next->spare_fd = u->fd;
		u->fd = -1;
	}
	undo_close(u);
	*u = *next;
	next->fd = -1;
	next->spare = false;
	return 0;
}

void undo_remove_staged(const char *path)
{
	char fresh[PATH_MAX];

	if (!undo_staged_name(path, fresh, sizeof(fresh)))
		(void)remove_stale(fresh, undo_magic_header);
}

void undo_unstage(struct undo *next)
{
	if (next->fd < 0)
		return;
	remove_own(next->fd, next->path);
	undo_close(next);
}

void undo_drop_spare(struct undo *u)
{
	if (!u->spare)
		return;
	remove_own(u->spare_fd, u->path);
	close(u->spare_fd);
	u->spare = false;
}

int undo_replace(struct undo *u, const char *path, const struct dev *dev,
		 const uint64_t *stamp_salts, unsigned salt_count,
		 const struct undo_progress *progress)
{
	uint64_t salts[UNDO_MAX_SALTS];
	struct undo like, next;
	int err;

	if (u->fd >= 0) {		/* the open file's own salts */
		like = *u;
	} else {
		salt_count = with_refused(u, stamp_salts, salt_count, salts);
		init_fields(&like, path, dev, salts, salt_count);
		undo_refuse_stamps(&like, u->foreign_salts, u->foreign_count);
	}
	like.path = path;
	err = undo_stage(&next, &like, progress, 0, NULL, 0);
	u->spare = like.spare;		/* taken by the stage, maybe */
	if (err) {
		u->failed = next.failed;
		u->failed_errno = next.failed_errno;
		undo_unstage(&next);
		return err;
	}
	return undo_commit(u, &next);
}

void undo_close(struct undo *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
	if (u->spare)
		close(u->spare_fd);
	u->spare = false;
}

int undo_write_whole(const char *path, const void *data, size_t length,
		     const char **failed)
{
	char fresh[PATH_MAX];
	int fd, err = undo_staged_name(path, fresh, sizeof(fresh));

	*failed = "create";
	if (err)
		return err;
	/* one a killed write left begins as this one does: the rest stays */
	if (length < 8 || remove_stale(fresh, data))
		return length < 8 ? -EINVAL : -errno;
	fd = open(fresh, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	*failed = "write";
	err = write_all(fd, data, length);
	if (!err && fsync(fd)) {
		*failed = "fsync";
		err = -errno;
	}
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(fresh, path)) {
		*failed = "rename";
		err = -errno;
	}
	if (err) {
		unlink(fresh);
		return err;
	}
	*failed = "fsync";
	return sync_directory(path);
}
