/*
 * emustore: the emulated card's data, sparse.  In memory the card is cut
 * into chunks of EMUSTORE_CHUNK bytes, each allocated on its first write
 * and freed when a punch covers it; a backing file is a sparse file of the
 * card's size, punched with fallocate, or a block device at least that
 * large.  Every access goes chunk by chunk.
 * Where a backing file may be is checked first (emustore_check), by its
 * resolved name: writing the card's data into /proc/self/mem, a FIFO or
 * a file someone else planted would be no store.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "emu/emustore.h"

/* small enough that 4 KiB writes scattered over a card stay cheap, large
   enough that a 16 GiB card needs only a 2 MiB table */
#define EMUSTORE_CHUNK (64 * 1024ULL)

struct emustore {
	uint64_t size_bytes;
	int fd;			/* backing file; -1 in memory */
	uint64_t cap_bytes;	/* in memory: at most this much data */
	uint64_t held_bytes;	/* in memory: chunks allocated */
	size_t nchunks;
	unsigned char **chunks;	/* NULL: never written, or punched */
	char *created;		/* its name, when this open made the file */
};

/* --- where a store file may be ---------------------------------------- */

/* File systems of the kernel's own state: their files keep no data. */
static const struct {
	uint32_t magic;
	const char *name;
} kernel_fs[] = {
	{ PROC_SUPER_MAGIC, "proc" }, { SYSFS_MAGIC, "sysfs" },
	{ DEBUGFS_MAGIC, "debugfs" }, { TRACEFS_MAGIC, "tracefs" },
	{ SECURITYFS_MAGIC, "securityfs" }, { SELINUX_MAGIC, "selinuxfs" },
	{ SMACK_MAGIC, "smackfs" }, { CGROUP_SUPER_MAGIC, "cgroup" },
	{ CGROUP2_SUPER_MAGIC, "cgroup2" }, { BPF_FS_MAGIC, "bpf" },
	{ EFIVARFS_MAGIC, "efivarfs" }, { PSTOREFS_MAGIC, "pstore" },
	{ BINFMTFS_MAGIC, "binfmt_misc" }, { DEVPTS_SUPER_MAGIC, "devpts" },
	{ NSFS_MAGIC, "nsfs" },
};

/* The kernel file system path is on, or NULL. */
static const char *kernel_fs_of(const char *path)
{
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(kernel_fs[0]); i++)
		if ((uint32_t)sf.f_type == kernel_fs[i].magic)
			return kernel_fs[i].name;
	return NULL;
}

static const char *kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "a special file";
}

/* The directory part of path: "." for a bare name, "/" for "/name". */
static void parent_of(const char *path, char *dir, size_t dir_size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, dir_size, ".");
	else if (slash == path)
		snprintf(dir, dir_size, "/");
	else
		snprintf(dir, dir_size, "%.*s", (int)(slash - path), path);
}

static int why_not(char *why, size_t why_size, int err, const char *format,
		   ...) __attribute__((format(printf, 4, 5)));

static int why_not(char *why, size_t why_size, int err, const char *format,
		   ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(why, why_size, format, args);
	va_end(args);
	return err;
}

/* A name not yet taken: its directory resolved, the name put back. */
static int resolve_new(const char *path, struct emustore_place *place,
		       char *why, size_t why_size)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char dir[PATH_MAX], real[PATH_MAX];

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return why_not(why, why_size, -EISDIR, "names a directory");
	parent_of(path, dir, sizeof(dir));
	if (!realpath(dir, real))
		return why_not(why, why_size, -errno, "directory %s: %s", dir,
			       strerror(errno));
	if ((size_t)snprintf(place->path, sizeof(place->path), "%s/%s",
			     strcmp(real, "/") ? real : "", base) >=
	    sizeof(place->path))
		return why_not(why, why_size, -ENAMETOOLONG, "%s",
			       strerror(ENAMETOOLONG));
	return 0;
}

/*
 * In a directory anyone can write, another user can plant the name: a
 * symbolic link to a file of ours, or a hard link to one.  The store
 * would overwrite that file, so a name there must be ours alone.
 */
static int check_shared(const char *path, const struct emustore_place *place,
			const struct stat *st, char *why, size_t why_size)
{
	char dir[PATH_MAX];
	struct stat dir_st, link_st;
	uid_t me = geteuid();

	parent_of(path, dir, sizeof(dir));
	if (stat(dir, &dir_st) == 0 && (dir_st.st_mode & S_IWOTH) &&
	    lstat(path, &link_st) == 0 && S_ISLNK(link_st.st_mode) &&
	    link_st.st_uid != me)
		return why_not(why, why_size, -EPERM, "a symbolic link of uid "
			       "%u in a directory anyone can write",
			       (unsigned)link_st.st_uid);
	parent_of(place->path, dir, sizeof(dir));
	if (!place->exists || stat(dir, &dir_st) < 0 ||
	    !(dir_st.st_mode & S_IWOTH))
		return 0;
	if (st->st_uid != me)
		return why_not(why, why_size, -EPERM, "a file of uid %u in a "
			       "directory anyone can write",
			       (unsigned)st->st_uid);
	if (S_ISREG(st->st_mode) && st->st_nlink > 1)
		return why_not(why, why_size, -EPERM, "a file with %lu names "
			       "in a directory anyone can write",
			       (unsigned long)st->st_nlink);
	return 0;
}

/* A block device holds the card only if it is at least as large. */
static int check_block(const struct emustore_place *place,
		       uint64_t size_bytes, char *why, size_t why_size)
{
	int fd = open(place->path, O_RDONLY | O_CLOEXEC);
	uint64_t bytes = 0;
	int err = 0;

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes) < 0)
		err = why_not(why, why_size, -errno, "%s", strerror(errno));
	else if (bytes < size_bytes)
		err = why_not(why, why_size, -ENOSPC, "a block device of %llu "
			      "bytes, smaller than the card (%llu bytes)",
			      (unsigned long long)bytes,
			      (unsigned long long)size_bytes);
	if (fd >= 0)
		close(fd);
	return err;
}

/* Resolve path: an existing file, or a new name in an existing directory. */
static int resolve(const char *path, struct emustore_place *place,
		   struct stat *st, char *why, size_t why_size)
{
	struct stat link_st;

	if (!*path)
		return why_not(why, why_size, -EINVAL, "an empty name");
	if (stat(path, st) == 0) {
		place->exists = true;
		if (!realpath(path, place->path))
			return why_not(why, why_size, -errno, "%s",
				       strerror(errno));
		return 0;
	}
	if (errno != ENOENT)
		return why_not(why, why_size, -errno, "%s", strerror(errno));
	if (lstat(path, &link_st) == 0)
		return why_not(why, why_size, -ENOENT, "a symbolic link to "
			       "nothing");
	return resolve_new(path, place, why, why_size);
}

/* Is path outside_of itself or under it? */
static bool is_under(const char *path, const char *outside_of)
{
	size_t n = strlen(outside_of);

	return strncmp(path, outside_of, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/' ||
		(n > 0 && outside_of[n - 1] == '/'));
}

int emustore_check(const char *path, const char *outside_of,
		   uint64_t size_bytes, struct emustore_place *place,
		   char *why, size_t why_size)
{
	char dir[PATH_MAX];
	const char *fs;
	struct stat st;
	int err;

	memset(place, 0, sizeof(*place));
	err = resolve(path, place, &st, why, why_size);
	if (err)
		return err;
	if (outside_of && is_under(place->path, outside_of))
		return why_not(why, why_size, -EINVAL, "inside the mountpoint "
			       "%s (choose a file outside it)", outside_of);
	parent_of(place->path, dir, sizeof(dir));
	fs = kernel_fs_of(place->exists ? place->path : dir);
	if (fs)
		return why_not(why, why_size, -EINVAL, "on %s, a kernel file "
			       "system, not storage", fs);
	if (place->exists && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return why_not(why, why_size, -EINVAL, "%s, not a regular "
			       "file or a block device", kind_of(st.st_mode));
	if (place->exists) {
		place->block = S_ISBLK(st.st_mode);
		place->dev = st.st_dev;
		place->ino = st.st_ino;
	}
	err = check_shared(path, place, &st, why, why_size);
	if (!err && place->block)
		err = check_block(place, size_bytes, why, why_size);
	return err;
}

/* --- the store -------------------------------------------------------- */

static int store_error(char *msg, size_t msg_size, const char *path,
		       int err)
{
	snprintf(msg, msg_size, "store %s: %s", path, strerror(err));
	return -err;
}

/*
 * Open what emustore_check found: a new name is created exclusively, so
 * a file that appeared since is not taken over; an existing one must be
 * the file that was checked; a block device is claimed exclusively (no
 * file system mounted on it).
 */
static int open_file(struct emustore *s, const struct emustore_place *place,
		     struct stat *st, char *msg, size_t msg_size)
{
	int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW;

	if (!place->exists || place->block)
		flags |= O_EXCL;
	if (!place->exists)
		flags |= O_CREAT;
	/* named before it exists: no file is made that could not be removed */
	if (!place->exists && !(s->created = strdup(place->path)))
		return store_error(msg, msg_size, place->path, ENOMEM);
	s->fd = open(place->path, flags, 0600);
	if (s->fd < 0 || fstat(s->fd, st) < 0)
		return store_error(msg, msg_size, place->path, errno);
	if (place->exists && (st->st_dev != place->dev ||
			      st->st_ino != place->ino)) {
		snprintf(msg, msg_size, "store %s: replaced since it was "
			 "checked", place->path);
		return -ESTALE;
	}
	return 0;
}

/* A regular file grows to the card's size, sparse; a device is as large. */
static int open_store_file(struct emustore *s,
			   const struct emustore_place *place, char *msg,
			   size_t msg_size)
{
	struct stat st;
	int err = open_file(s, place, &st, msg, msg_size);

	if (err || place->block || (uint64_t)st.st_size >= s->size_bytes)
		return err;
	if (ftruncate(s->fd, (off_t)s->size_bytes) < 0) {
		err = errno;
		snprintf(msg, msg_size, "store %s: cannot grow it to %llu "
			 "bytes: %s", place->path,
			 (unsigned long long)s->size_bytes, strerror(err));
		return -err;
	}
	return 0;
}

int emustore_open(struct emustore **store, uint64_t size_bytes,
		  const struct emustore_place *place, uint64_t cap_bytes,
		  char *msg, size_t msg_size)
{
	struct emustore *s = calloc(1, sizeof(*s));
	uint64_t nchunks = (size_bytes + EMUSTORE_CHUNK - 1) / EMUSTORE_CHUNK;
	int err = 0;

	if (!s)
		return -ENOMEM;
	s->size_bytes = size_bytes;
	s->cap_bytes = cap_bytes;
	s->fd = -1;
	if (place) {
		err = open_store_file(s, place, msg, msg_size);
	} else if (nchunks > SIZE_MAX / sizeof(*s->chunks) ||
		   !(s->chunks = calloc((size_t)nchunks, sizeof(*s->chunks)))) {
		snprintf(msg, msg_size, "store: no memory for the table of a "
			 "%llu-byte card", (unsigned long long)size_bytes);
		err = -ENOMEM;
	}
	s->nchunks = (size_t)nchunks;
	if (err) {
		emustore_discard(s);
		return err;
	}
	*store = s;
	return 0;
}

int emustore_flush(struct emustore *store)
{
	if (store->fd >= 0 && fsync(store->fd) < 0)
		return -errno;
	return 0;
}

/* Unlink the file this open created, if the name still holds it. */
static void remove_created(struct emustore *s)
{
	struct stat ours, named;

	if (s->fd >= 0 && fstat(s->fd, &ours) == 0 &&
	    lstat(s->created, &named) == 0 && ours.st_dev == named.st_dev &&
	    ours.st_ino == named.st_ino)
		unlink(s->created);
}

static void close_store(struct emustore *store, bool remove)
{
	if (!store)
		return;
	if (remove && store->created)
		remove_created(store);
	free(store->created);
	if (store->chunks)
		for (size_t i = 0; i < store->nchunks; i++)
			free(store->chunks[i]);
	free(store->chunks);
	if (store->fd >= 0)
		close(store->fd);
	free(store);
}

void emustore_close(struct emustore *store)
{
	close_store(store, false);
}

void emustore_discard(struct emustore *store)
{
	close_store(store, true);
}

/* One piece of an access: inside one chunk, at its offset in the store. */
struct piece {
	uint64_t physical;
	size_t length;
	size_t done;		/* bytes of the access before this piece */
};

/* The next piece of [offset + done, offset + length); false when none. */
static bool next_piece(uint64_t offset, uint64_t length, struct piece *p)
{
	uint64_t pos = offset + p->done, left = length - p->done;
	uint64_t room = EMUSTORE_CHUNK - pos % EMUSTORE_CHUNK;

	if (p->done >= length)
		return false;
	p->physical = pos;
	p->length = (size_t)(left < room ? left : room);
	return true;
}

static int file_io(struct emustore *s, void *buf, const struct piece *p,
		   bool write)
{
	size_t done = 0;

	while (done < p->length) {
		ssize_t n = write ?
			pwrite(s->fd, (char *)buf + done, p->length - done,
			       (off_t)(p->physical + done)) :
			pread(s->fd, (char *)buf + done, p->length - done,
			      (off_t)(p->physical + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0 && !write) {	/* a store file shorter than the card */
			memset((char *)buf + done, 0, p->length - done);
			return 0;
		}
		done += (size_t)n;
	}
	return 0;
}

static unsigned char **chunk_of(struct emustore *s, uint64_t physical)
{
	return &s->chunks[physical / EMUSTORE_CHUNK];
}

int emustore_read(struct emustore *store, void *buf, uint64_t offset,
		  uint64_t length)
{
	struct piece p = { 0 };

	for (; next_piece(offset, length, &p); p.done += p.length) {
		char *out = (char *)buf + p.done;
		unsigned char *chunk;
		int err;

		if (store->fd >= 0) {
			err = file_io(store, out, &p, false);
			if (err)
				return err;
			continue;
		}
		chunk = *chunk_of(store, p.physical);
		if (chunk)
			memcpy(out, chunk + p.physical % EMUSTORE_CHUNK,
			       p.length);
		else
			memset(out, 0, p.length);
	}
	return 0;
}

/* The chunk for physical, allocated (zeroed) when new: NULL at the cap. */
static unsigned char *writable_chunk(struct emustore *s, uint64_t physical)
{
	unsigned char **slot = chunk_of(s, physical);

	if (*slot)
		return *slot;
	if (s->held_bytes + EMUSTORE_CHUNK > s->cap_bytes)
		return NULL;
	*slot = calloc(1, EMUSTORE_CHUNK);
	if (*slot)
		s->held_bytes += EMUSTORE_CHUNK;
	return *slot;
}

int emustore_write(struct emustore *store, const void *buf, uint64_t offset,
		   uint64_t length)
{
	struct piece p = { 0 };

	for (; next_piece(offset, length, &p); p.done += p.length) {
		const char *in = (const char *)buf + p.done;
		unsigned char *chunk;
		int err;

		if (store->fd >= 0) {
			err = file_io(store, (void *)in, &p, true);
			if (err)
				return err;
			continue;
		}
		chunk = writable_chunk(store, p.physical);
		if (!chunk)
			return -ENOSPC;
		memcpy(chunk + p.physical % EMUSTORE_CHUNK, in, p.length);
	}
	return 0;
}

/* A piece of a punch in memory: whole chunks are freed, parts zeroed. */
static void punch_memory(struct emustore *s, const struct piece *p)
{
	unsigned char **slot = chunk_of(s, p->physical);

	if (!*slot)
		return;
	if (p->length == EMUSTORE_CHUNK) {
		free(*slot);
		*slot = NULL;
		s->held_bytes -= EMUSTORE_CHUNK;
		return;
	}
	memset(*slot + p->physical % EMUSTORE_CHUNK, 0, p->length);
}

/* A file system without hole punching gets zeros written instead. */
static int punch_file(struct emustore *s, const struct piece *p)
{
	static const unsigned char zeros[EMUSTORE_CHUNK];

	if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)p->physical, (off_t)p->length) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return -errno;
	return file_io(s, (void *)zeros, p, true);
}

int emustore_punch(struct emustore *store, uint64_t offset, uint64_t length)
{
	struct piece p = { 0 };

	for (; next_piece(offset, length, &p); p.done += p.length) {
		int err = 0;

		if (store->fd >= 0)
			err = punch_file(store, &p);
		else
			punch_memory(store, &p);
		if (err)
			return err;
	}
	return 0;
}

/* The model's calls for a fake card's real blocks, on the store. */
static int model_read(void *store, void *buf, uint64_t real, uint64_t length)
{
	return emustore_read(store, buf, real, length);
}

static int model_write(void *store, const void *buf, uint64_t real,
		       uint64_t length)
{
	return emustore_write(store, buf, real, length);
}

static int model_punch(void *store, uint64_t real, uint64_t length)
{
	return emustore_punch(store, real, length);
}

const struct sim_data_ops emustore_sim_ops = {
	.read = model_read,
	.write = model_write,
	.punch = model_punch,
};

uint64_t emustore_held_bytes(const struct emustore *store)
{
	struct stat st;

	if (store->fd < 0)
		return store->held_bytes;
	return fstat(store->fd, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}
