/*
 * fuseserver: one file over /dev/fuse.  The kernel writes requests (a
 * fuse_in_header, then the opcode's argument) and reads back replies (a
 * fuse_out_header, then the opcode's result); the handlers below are a
 * table from opcode to what to do.  Three inodes exist: the root
 * directory, the file and the control file (when there is one).  Requests
 * are served one at a time, as a card serves one command at a time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "emu/fuseserver.h"

#define FILE_ID 2		/* the one file's inode; FUSE_ROOT_ID is 1 */
#define CONTROL_ID 3		/* the control file's */
#define CONTROL_BYTES 64	/* the most its text or a word written is */
#define ATTR_VALID_S 3600	/* nothing about either inode ever changes */
#define HEADER_ROOM 4096	/* a request's headers, before WRITE data */
#define DEFAULT_MAX_PAGES 256	/* the kernel's limit unless raised */
#define MAX_PAGES_LIMIT "/proc/sys/fs/fuse/max_pages_limit"

/* The largest request the kernel allows, in pages: its configured limit. */
static uint32_t kernel_max_pages(void)
{
	FILE *f = fopen(MAX_PAGES_LIMIT, "r");
	unsigned int pages = DEFAULT_MAX_PAGES;

	if (f) {
		if (fscanf(f, "%u", &pages) != 1 || pages == 0)
			pages = DEFAULT_MAX_PAGES;
		fclose(f);
	}
	/* fuse_init_out.max_pages is 16 bits */
	return pages > UINT16_MAX ? UINT16_MAX : pages;
}

int fuse_server_mount(struct fuse_server *fs, const char *mountpoint,
		      char *msg, size_t msg_size)
{
	long page_bytes = sysconf(_SC_PAGESIZE);
	char options[128];
	int err;

	fs->max_pages = kernel_max_pages();
	fs->max_write_bytes = fs->max_pages * (uint32_t)page_bytes;
	fs->buf_bytes = HEADER_ROOM + fs->max_write_bytes;
	fs->buf = malloc(2 * fs->buf_bytes);	/* request, then reply */
	fs->mountpoint = realpath(mountpoint, NULL);
	if (!fs->buf || !fs->mountpoint) {
		snprintf(msg, msg_size, "%s: %s", mountpoint, strerror(errno));
		return -ENOMEM;
	}
	fs->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fs->fd < 0) {
		err = errno;
		snprintf(msg, msg_size, "open /dev/fuse: %s", strerror(err));
		return -err;
	}
	snprintf(options, sizeof(options),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fs->fd);
	if (mount("flashemu", fs->mountpoint, "fuse", MS_NOSUID | MS_NODEV,
		  options) < 0) {
		err = errno;
		snprintf(msg, msg_size, "mount fuse on %s: %s",
			 fs->mountpoint, strerror(err));
		return -err;
	}
	fs->mounted = true;
	return 0;
}

int fuse_server_unmount(struct fuse_server *fs, int flags)
{
	if (!fs->mounted)
		return 0;
	if (umount2(fs->mountpoint, flags) < 0)
		return -errno;
	fs->mounted = false;
	return 0;
}

void fuse_server_close(struct fuse_server *fs)
{
	if (fs->fd >= 0)
		close(fs->fd);
	fs->fd = -1;
	free(fs->buf);
	free(fs->mountpoint);
	fs->buf = NULL;
	fs->mountpoint = NULL;
}

/* --- replies ---------------------------------------------------------- */

/*
 * A reply: the header, then length bytes of result.  -ENOENT when the
 * caller gave up on the request (it was interrupted or aborted).
 */
static int send_reply(struct fuse_server *fs, uint64_t unique, int error,
		      const void *result, size_t length)
{
	struct fuse_out_header out = {
		.len = (uint32_t)(sizeof(out) + (error ? 0 : length)),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &out, .iov_len = sizeof(out) },
		{ .iov_base = (void *)result, .iov_len = error ? 0 : length },
	};

	if (error)
		fs->counts.errors++;
	if (writev(fs->fd, iov, 2) < 0)
		return -errno;
	return 0;
}

/* A reply whose caller may have given up: that is no failure of ours. */
static int reply(struct fuse_server *fs, uint64_t unique, int error,
		 const void *result, size_t length)
{
	int err = send_reply(fs, unique, error, result, length);

	return err == -ENOENT ? 0 : err;
}

static void fill_attr(const struct fuse_server *fs, uint64_t node,
		      struct fuse_attr *attr)
{
	time_t now = time(NULL);

	memset(attr, 0, sizeof(*attr));
	attr->ino = node;
	attr->atime = attr->mtime = attr->ctime = (uint64_t)now;
	attr->blksize = 4096;
	if (node == FUSE_ROOT_ID) {
		attr->mode = S_IFDIR | 0755;
		attr->nlink = 2;
		return;
	}
	attr->nlink = 1;
	if (node == CONTROL_ID) {	/* its size: what a read returns */
		attr->mode = S_IFREG | 0644;
		return;
	}
	attr->mode = S_IFREG | (fs->read_only ? 0444 : 0644);
	attr->size = fs->size_bytes;
	attr->blocks = fs->size_bytes / 512;
}

/* --- the handlers ----------------------------------------------------- */

/* What a handler sees: the request's header and argument. */
struct request {
	const struct fuse_in_header *in;
	const void *arg;
	size_t arg_bytes;
	unsigned char *out;	/* room for a reply of max_write bytes */
};

typedef int handler(struct fuse_server *fs, const struct request *r);

static int do_init(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_init_in *in = r->arg;
	struct fuse_init_out out = { .major = FUSE_KERNEL_VERSION };

	if (in->major < 7)
		return reply(fs, r->in->unique, -EPROTO, NULL, 0);
	if (in->major > 7)	/* the kernel asks again, at our version */
		return reply(fs, r->in->unique, 0, &out, sizeof(out));
	out.minor = in->minor < FUSE_KERNEL_MINOR_VERSION ?
		    in->minor : FUSE_KERNEL_MINOR_VERSION;
	out.max_readahead = in->max_readahead;
	out.flags = in->flags & (FUSE_BIG_WRITES | FUSE_MAX_PAGES);
	out.max_background = 1;
	out.congestion_threshold = 1;
	out.max_write = fs->max_write_bytes;
	out.max_pages = (uint16_t)fs->max_pages;
	out.time_gran = 1;
	fs->initialized = true;
	return reply(fs, r->in->unique, 0, &out, sizeof(out));
}

/* Is the name a LOOKUP asks for this one? */
static bool named(const struct request *r, const char *name)
{
	return strncmp(r->arg, name, r->arg_bytes) == 0;
}

static int do_lookup(struct fuse_server *fs, const struct request *r)
{
	struct fuse_entry_out out = {
		.nodeid = FILE_ID,
		.generation = 1,
		.entry_valid = ATTR_VALID_S,
		.attr_valid = ATTR_VALID_S,
	};

	if (r->in->nodeid == FUSE_ROOT_ID && fs->control &&
	    named(r, fs->control->name))
		out.nodeid = CONTROL_ID;
	else if (r->in->nodeid != FUSE_ROOT_ID || !named(r, fs->file_name))
		return reply(fs, r->in->unique, -ENOENT, NULL, 0);
	fill_attr(fs, out.nodeid, &out.attr);
	return reply(fs, r->in->unique, 0, &out, sizeof(out));
}

static int do_getattr(struct fuse_server *fs, const struct request *r)
{
	struct fuse_attr_out out = { .attr_valid = ATTR_VALID_S };

	fill_attr(fs, r->in->nodeid, &out.attr);
	return reply(fs, r->in->unique, 0, &out, sizeof(out));
}

/*
 * The card's size is fixed: a truncate to any other size is refused.  The
 * control file's O_TRUNC (echo off > power) changes nothing.
 */
static int do_setattr(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_setattr_in *in = r->arg;

	if ((in->valid & FATTR_SIZE) && in->size != fs->size_bytes &&
	    r->in->nodeid != CONTROL_ID)
		return reply(fs, r->in->unique, -EPERM, NULL, 0);
	return do_getattr(fs, r);
}

/*
 * Both files bypass the page cache (direct I/O): every access reaches the
 * callbacks.  The handle names the file, so a RELEASE says which.
 */
static int do_open(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_open_in *in = r->arg;
	struct fuse_open_out out = { .fh = r->in->nodeid,
				     .open_flags = FOPEN_DIRECT_IO };
	int err;

	if (r->in->nodeid == CONTROL_ID)
		return reply(fs, r->in->unique, 0, &out, sizeof(out));
	if (fs->read_only && (in->flags & O_ACCMODE) != O_RDONLY)
		return reply(fs, r->in->unique, -EROFS, NULL, 0);
	/* counted once the opener has its file: each gets a RELEASE */
	err = send_reply(fs, r->in->unique, 0, &out, sizeof(out));
	if (!err)
		fs->open_files++;
	return err == -ENOENT ? 0 : err;
}

/* An open of the file ended: its last descriptor closed, a loop device
   detached. */
static int do_release(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_release_in *in = r->arg;

	if (in->fh != CONTROL_ID && fs->open_files)
		fs->open_files--;
	return reply(fs, r->in->unique, 0, NULL, 0);
}

static int do_opendir(struct fuse_server *fs, const struct request *r)
{
	struct fuse_open_out out = { 0 };

	return reply(fs, r->in->unique, 0, &out, sizeof(out));
}

/* Append one entry if it fits; returns the new length. */
static size_t add_dirent(unsigned char *out, size_t used, size_t room,
			 uint64_t ino, uint64_t next, const char *name,
			 uint32_t type)
{
	struct fuse_dirent *d = (struct fuse_dirent *)(out + used);
	size_t namelen = strlen(name);
	size_t size = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);

	if (used + size > room)
		return used;
	memset(d, 0, size);
	d->ino = ino;
	d->off = next;
	d->namelen = (uint32_t)namelen;
	d->type = type;
	memcpy(d->name, name, namelen);
	return used + size;
}

static int do_readdir(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_read_in *in = r->arg;
	const struct { uint64_t ino; const char *name; uint32_t type; } list[] = {
		{ FUSE_ROOT_ID, ".", DT_DIR },
		{ FUSE_ROOT_ID, "..", DT_DIR },
		{ FILE_ID, fs->file_name, DT_REG },
		{ CONTROL_ID, fs->control ? fs->control->name : NULL, DT_REG },
	};
	size_t used = 0, room = in->size < fs->max_write_bytes ?
				 in->size : fs->max_write_bytes;

	for (uint64_t i = in->offset; i < sizeof(list) / sizeof(list[0]) &&
	     list[i].name; i++) {
		size_t now = add_dirent(r->out, used, room, list[i].ino, i + 1,
					list[i].name, list[i].type);

		if (now == used)
			break;
		used = now;
	}
	return reply(fs, r->in->unique, 0, r->out, used);
}

/* Clip [offset, offset + length) to the file; 0 bytes past its end. */
static uint32_t clip(const struct fuse_server *fs, uint64_t offset,
		     uint32_t length)
{
	if (offset >= fs->size_bytes)
		return 0;
	if (length > fs->size_bytes - offset)
		return (uint32_t)(fs->size_bytes - offset);
	return length;
}

/* The control file's text from the offset on, as far as asked. */
static int control_read(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_read_in *in = r->arg;
	char text[CONTROL_BYTES];
	size_t length = fs->control->show(fs->ctx, text, sizeof(text));
	size_t from = in->offset < length ? (size_t)in->offset : length;
	size_t n = length - from < in->size ? length - from : in->size;

	return reply(fs, r->in->unique, 0, text + from, n);
}

/* A word written to the control file, whole: longer ones are refused. */
static int control_write(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_write_in *in = r->arg;
	struct fuse_write_out out = { .size = in->size };
	int err = -EINVAL;

	if (r->arg_bytes >= sizeof(*in) + in->size &&
	    in->size < CONTROL_BYTES)
		err = fs->control->store(fs->ctx, (const char *)(in + 1),
					 in->size);
	return reply(fs, r->in->unique, err, &out, sizeof(out));
}

static int do_read(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_read_in *in = r->arg;
	uint32_t length = clip(fs, in->offset, in->size);
	int err = 0;

	if (r->in->nodeid == CONTROL_ID)
		return control_read(fs, r);
	if (length > fs->max_write_bytes)
		length = fs->max_write_bytes;
	fs->counts.reads++;
	if (length > fs->counts.max_read_bytes)
		fs->counts.max_read_bytes = length;
	if (length)
		err = fs->ops->read(fs->ctx, r->out, in->offset, length);
	return reply(fs, r->in->unique, err, r->out, length);
}

static int do_write(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_write_in *in = r->arg;
	struct fuse_write_out out = { .size = in->size };
	int err = 0;

	if (r->in->nodeid == CONTROL_ID)
		return control_write(fs, r);
	fs->counts.writes++;
	if (in->size > fs->counts.max_write_bytes)
		fs->counts.max_write_bytes = in->size;
	if (fs->read_only)
		err = -EROFS;
	else if (r->arg_bytes < sizeof(*in) + in->size)
		err = -EINVAL;
	else if (clip(fs, in->offset, in->size) != in->size)
		err = -ENOSPC;	/* the card does not grow */
	else if (in->size)
		err = fs->ops->write(fs->ctx, in + 1, in->offset, in->size);
	return reply(fs, r->in->unique, err, &out, sizeof(out));
}

/*
 * A hole punch (what a loop device makes of a discard) or a zeroed range
 * reads as zeros afterwards: both are the card's erase.  Allocating is
 * a no-op inside the card; nothing else is supported.
 */
static int do_fallocate(struct fuse_server *fs, const struct request *r)
{
	const struct fuse_fallocate_in *in = r->arg;
	uint32_t zeroing = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE;
	int err = 0;

	if (r->in->nodeid == CONTROL_ID)
		err = -EOPNOTSUPP;
	else if (in->offset >= fs->size_bytes ||
		 in->length > fs->size_bytes - in->offset)
		err = (in->mode & FALLOC_FL_KEEP_SIZE) ? 0 : -EFBIG;
	else if (in->mode & ~(zeroing | FALLOC_FL_KEEP_SIZE))
		err = -EOPNOTSUPP;
	else if (fs->read_only)
		err = -EROFS;
	else if (in->mode & zeroing) {
		fs->counts.punches++;
		err = fs->ops->punch(fs->ctx, in->offset, in->length);
	}
	return reply(fs, r->in->unique, err, NULL, 0);
}

/* An fsync of the file (a loop device's flush) is the card's flush. */
static int do_fsync(struct fuse_server *fs, const struct request *r)
{
	if (r->in->nodeid == CONTROL_ID)
		return reply(fs, r->in->unique, 0, NULL, 0);
	fs->counts.syncs++;
	return reply(fs, r->in->unique, fs->ops->sync(fs->ctx), NULL, 0);
}

static int do_statfs(struct fuse_server *fs, const struct request *r)
{
	struct fuse_statfs_out out = { .st = {
		.blocks = fs->size_bytes / 4096,
		.files = 1,
		.bsize = 4096,
		.frsize = 4096,
		.namelen = 255,
	} };

	return reply(fs, r->in->unique, 0, &out, sizeof(out));
}

/* Nothing to do, nothing to return: FLUSH, RELEASEDIR, DESTROY... */
static int do_ok(struct fuse_server *fs, const struct request *r)
{
	return reply(fs, r->in->unique, 0, NULL, 0);
}

/* FORGET and INTERRUPT take no reply; nothing is ever forgotten. */
static int do_nothing(struct fuse_server *fs, const struct request *r)
{
	(void)fs;
	(void)r;
	return 0;
}

struct operation {
	uint32_t opcode;
	size_t arg_bytes;	/* the least argument the handler reads */
	handler *handle;	/* NULL: answer with error */
	int error;
};

/* Every request the file system understands; the rest get ENOSYS. */
static const struct operation operations[] = {
	/* before 7.36 the argument ends after flags */
	{ FUSE_INIT, 4 * sizeof(uint32_t), do_init, 0 },
	{ FUSE_LOOKUP, 1, do_lookup, 0 },
	{ FUSE_GETATTR, 0, do_getattr, 0 },
	{ FUSE_SETATTR, sizeof(struct fuse_setattr_in), do_setattr, 0 },
	{ FUSE_OPEN, sizeof(struct fuse_open_in), do_open, 0 },
	{ FUSE_OPENDIR, 0, do_opendir, 0 },
	{ FUSE_READDIR, sizeof(struct fuse_read_in), do_readdir, 0 },
	{ FUSE_READ, sizeof(struct fuse_read_in), do_read, 0 },
	{ FUSE_WRITE, sizeof(struct fuse_write_in), do_write, 0 },
	{ FUSE_FALLOCATE, sizeof(struct fuse_fallocate_in), do_fallocate, 0 },
	{ FUSE_FSYNC, 0, do_fsync, 0 },
	{ FUSE_FSYNCDIR, 0, do_ok, 0 },
	{ FUSE_FLUSH, 0, do_ok, 0 },
	{ FUSE_RELEASE, sizeof(struct fuse_release_in), do_release, 0 },
	{ FUSE_RELEASEDIR, 0, do_ok, 0 },
	{ FUSE_STATFS, 0, do_statfs, 0 },
	{ FUSE_DESTROY, 0, do_ok, 0 },
	{ FUSE_FORGET, 0, do_nothing, 0 },
	{ FUSE_BATCH_FORGET, 0, do_nothing, 0 },
	{ FUSE_INTERRUPT, 0, do_nothing, 0 },
	/* the one file is all there is: the name space is fixed */
	{ FUSE_MKNOD, 0, NULL, -EPERM },
	{ FUSE_MKDIR, 0, NULL, -EPERM },
	{ FUSE_CREATE, 0, NULL, -EPERM },
	{ FUSE_UNLINK, 0, NULL, -EPERM },
	{ FUSE_RMDIR, 0, NULL, -EPERM },
	{ FUSE_RENAME, 0, NULL, -EPERM },
	{ FUSE_RENAME2, 0, NULL, -EPERM },
	{ FUSE_LINK, 0, NULL, -EPERM },
	{ FUSE_SYMLINK, 0, NULL, -EPERM },
};

static const struct operation *find_operation(uint32_t opcode)
{
	for (size_t i = 0; i < sizeof(operations) / sizeof(operations[0]); i++)
		if (operations[i].opcode == opcode)
			return &operations[i];
	return NULL;
}

static int dispatch(struct fuse_server *fs, const struct request *r)
{
	const struct operation *op = find_operation(r->in->opcode);

	fs->counts.requests++;
	if (!op)
		return reply(fs, r->in->unique, -ENOSYS, NULL, 0);
	if (r->arg_bytes < op->arg_bytes)
		return reply(fs, r->in->unique, -EINVAL, NULL, 0);
	if (!op->handle)
		return reply(fs, r->in->unique, op->error, NULL, 0);
	if (!fs->initialized && op->opcode != FUSE_INIT)
		return reply(fs, r->in->unique, -EIO, NULL, 0);
	return op->handle(fs, r);
}

int fuse_server_serve(struct fuse_server *fs, const sigset_t *unblocked)
{
	struct pollfd pfd = { .fd = fs->fd, .events = POLLIN };
	struct request r;
	ssize_t n;

	if (ppoll(&pfd, 1, NULL, unblocked) < 0)
		return -errno;
	n = read(fs->fd, fs->buf, fs->buf_bytes);
	if (n < 0) {
		/* ENOENT: a request withdrawn before we read it */
		if (errno == ENOENT || errno == EAGAIN || errno == EINTR)
			return 0;
		return -errno;
	}
	if ((size_t)n < sizeof(struct fuse_in_header))
		return -EPROTO;
	r.in = (const struct fuse_in_header *)fs->buf;
	if (r.in->len != (uint32_t)n)
		return -EPROTO;
	r.arg = r.in + 1;
	r.arg_bytes = (size_t)n - sizeof(*r.in);
	r.out = fs->buf + fs->buf_bytes;
	return dispatch(fs, &r);
}
