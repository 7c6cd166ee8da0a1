/*
 * fuseserver: a file system of one file, served over /dev/fuse with the
 * kernel's own protocol (linux/fuse.h), without libfuse.  The mountpoint holds
 * one regular file of a fixed size; its reads, writes, hole punches and
 * syncs go to callbacks, one request at a time, as the kernel delivers
 * them.  Beside it may stand a control file: a word written to it, and
 * its text read back, go to callbacks too.  The file is opened with direct I/O, so every access reaches the
 * callbacks: no page cache stands between the caller and the card.  The
 * server counts the opens of the file not yet released, so that its
 * caller knows when nothing holds the file any more.
 */
#ifndef FLASHBENCH_FUSE_H
#define FLASHBENCH_FUSE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What the file does.  Each returns 0 or a negative errno, which the
 * caller of the system call sees.  Ranges are inside the file.
 */
struct fuse_file_ops {
	int (*read)(void *ctx, void *buf, uint64_t offset, uint32_t length);
	int (*write)(void *ctx, const void *buf, uint64_t offset,
		     uint32_t length);
	int (*punch)(void *ctx, uint64_t offset, uint64_t length);
	int (*sync)(void *ctx);
};

/*
 * The control file (optional): show writes its text (at most size bytes)
 * and returns its length; store takes what a write wrote, 0 or a negative
 * errno for the writer.
 */
struct fuse_control_ops {
	const char *name;
	size_t (*show)(void *ctx, char *text, size_t size);
	int (*store)(void *ctx, const char *text, size_t length);
};

/* Requests served, by kind, and the largest transfers the kernel sent. */
struct fuse_counts {
	uint64_t requests;
	uint64_t reads, writes, punches, syncs;
	uint64_t errors;		/* requests answered with an error */
	uint32_t max_read_bytes, max_write_bytes;
};

struct fuse_server {
	int fd;				/* /dev/fuse; -1 when closed */
	char *mountpoint;		/* as mounted, absolute */
	bool mounted;			/* by us, and not yet unmounted */
	const char *file_name;		/* "card" */
	uint64_t size_bytes;
	bool read_only;
	uint32_t max_write_bytes;	/* agreed at INIT */
	uint32_t max_pages;
	bool initialized;
	const struct fuse_file_ops *ops;
	const struct fuse_control_ops *control;	/* or NULL */
	void *ctx;			/* of both */
	struct fuse_counts counts;
	/* opens of the file (not the control file) not yet released: a
	   loop device holds one from attach to detach */
	uint64_t open_files;
	unsigned char *buf;		/* one request, up to max_write */
	size_t buf_bytes;
};

/*
 * Open /dev/fuse and mount the file system on mountpoint (an empty
 * directory that is not a mountpoint: the caller checked).  Returns 0, or
 * a negative errno with msg describing which step failed.
 */
int fuse_server_mount(struct fuse_server *fs, const char *mountpoint,
		      char *msg, size_t msg_size);

/*
 * Wait for one request and answer it.  Returns 0 when one was served,
 * -EINTR when a signal arrived first (the signals in unblocked are let in
 * only while waiting), -ENODEV when the kernel ended the connection (the
 * file system was unmounted), another negative errno on failure.
 */
int fuse_server_serve(struct fuse_server *fs, const sigset_t *unblocked);

/*
 * umount2 with flags (0, or MNT_DETACH).  0, or a negative errno; after
 * success the kernel ends the connection once nothing holds the file.
 */
int fuse_server_unmount(struct fuse_server *fs, int flags);

/* Close /dev/fuse and free what mount allocated. */
void fuse_server_close(struct fuse_server *fs);

#endif
