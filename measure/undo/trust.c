/*
 * undo/trust: where undo files may live, who may have written one, and
 * which device one belongs to - the default undo directory, the checks
 * that an undo file is the user's own and not on the device under test,
 * and the device's identity (its fingerprint).
 *
 * An undo file is written back to the raw device as root, so one that
 * another user could have planted or changed is never used: the default
 * directory is the user's own (not world-writable /var/tmp), and an
 * existing file is read only when no one else could have written it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vm/stamp.h"
#include "measure/undo/trust.h"

/* errno, negative, to return; said in why after prefix ("" or "DIR: "). */
static int errno_why(const char *prefix, char *why, size_t size)
{
	int err = -errno;

	snprintf(why, size, "%s%s", prefix, strerror(-err));
	return err;
}

/* ---- the default undo directory ---- */

/* The device's name, safe for a file name: "sdb", "sim_size_1G". */
static void device_name(const char *device, char *name, size_t size)
{
	const char *base = strrchr(device, '/');
	size_t n = 0;

	base = base && strncmp(device, "sim:", 4) ? base + 1 : device;
	for (; *base && n + 1 < size; base++)
		name[n++] = (*base >= 'a' && *base <= 'z') ||
			    (*base >= 'A' && *base <= 'Z') ||
			    (*base >= '0' && *base <= '9') || *base == '-' ?
			    *base : '_';
	name[n] = '\0';
}

/*
 * The user's undo directory, and the mode its missing parents get:
 * /var/lib's are the system's (0755), a user's state directories are
 * private (0700, as the XDG base directory specification asks).
 */
static int user_directory(char *dir, size_t size, mode_t *parent_mode,
			  char *why, size_t why_size)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;

	*parent_mode = 0700;
	if (geteuid() == 0) {
		*parent_mode = 0755;
		n = snprintf(dir, size, "/var/lib/flashbench/undo");
	} else if (state && state[0] == '/') {	/* relative: ignored */
		n = snprintf(dir, size, "%s/flashbench/undo", state);
	} else if (home && home[0] == '/') {
		n = snprintf(dir, size, "%s/.local/state/flashbench/undo",
			     home);
	} else {
		snprintf(why, why_size, "no undo directory: neither "
			 "XDG_STATE_HOME nor HOME is an absolute path; give "
			 "--undo-file=FILE");
		return -ENOENT;
	}
	if (n < 0 || (size_t)n >= size) {
		snprintf(why, why_size, "the undo directory's path is too "
			 "long; give --undo-file=FILE");
		return -ENAMETOOLONG;
	}
	return 0;
}

/* mkdir -p dir: its missing parents with parent_mode, itself 0700. */
static int make_directories(char *dir, mode_t parent_mode)
{
	for (char *slash = strchr(dir + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		int made;

		*slash = '\0';
		made = mkdir(dir, parent_mode) == 0 || errno == EEXIST;
		*slash = '/';
		if (!made)
			return -errno;
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * The undo directory must be the user's alone, or anyone who can write
 * in it can plant a file there that the user's next --restore applies.
 */
static int check_own_directory(const char *dir, char *why, size_t size)
{
	struct stat st;

	char prefix[PATH_MAX + 2];

	snprintf(prefix, sizeof(prefix), "%s: ", dir);
	if (lstat(dir, &st))
		return errno_why(prefix, why, size);
	if (S_ISLNK(st.st_mode))
		snprintf(why, size, "%s: is a symbolic link; the undo "
			 "directory must be a directory of yours", dir);
	else if (!S_ISDIR(st.st_mode))
		snprintf(why, size, "%s: is not a directory", dir);
	else if (st.st_uid != geteuid())
		snprintf(why, size, "%s: is owned by uid %u, not by you "
			 "(uid %u)", dir, (unsigned)st.st_uid,
			 (unsigned)geteuid());
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, size, "%s: is writable by its group or others "
			 "(mode %04o); only you may write in the undo "
			 "directory", dir, (unsigned)(st.st_mode & 07777));
	else
		return 0;
	return -EPERM;
}

int undo_default_path(const char *device, char *buf, size_t size,
		      char *why, size_t why_size)
{
	char dir[PATH_MAX], name[64];
	mode_t parent_mode;
	int err = user_directory(dir, sizeof(dir), &parent_mode, why,
				 why_size);

	if (err)
		return err;
	err = make_directories(dir, parent_mode);
	if (err) {
		snprintf(why, why_size, "%s: cannot be made: %s; give "
			 "--undo-file=FILE", dir, strerror(-err));
		return err;
	}
	err = check_own_directory(dir, why, why_size);
	if (err)
		return err;
	device_name(device, name, sizeof(name));
	if ((size_t)snprintf(buf, size, "%s/%s.undo", dir, name) >= size) {
		snprintf(why, why_size, "%s: too long a path", dir);
		return -ENAMETOOLONG;
	}
	return 0;
}

void undo_directory_of(const char *path, char *dir, size_t size)
{
	char *slash;

	snprintf(dir, size, "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		snprintf(dir, size, ".");
}

/* ---- who could have written an undo file ---- */

/* "an undo file", "a log": the article a noun takes. */
static const char *article(const char *noun)
{
	return strchr("aeiou", noun[0]) ? "an" : "a";
}

/* What a file that is not a regular one is, for a refusal. */
static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "is a directory" :
	       S_ISLNK(mode) ? "is a symbolic link" :
	       S_ISCHR(mode) ? "is a character device" :
	       S_ISBLK(mode) ? "is a block device" :
	       S_ISFIFO(mode) ? "is a FIFO" :
	       S_ISSOCK(mode) ? "is a socket" : "is not a regular file";
}

/*
 * Could anyone but the effective user (or root) replace what is at path?
 * Its directory's owner can, and so can whoever may write in it, unless
 * the sticky bit keeps them to their own files.
 */
static int check_directory_of(const char *path, char *why, size_t size)
{
	char dir[PATH_MAX];
	struct stat st;

	undo_directory_of(path, dir, sizeof(dir));
	if (stat(dir, &st))
		return errno_why("", why, size);
	if (st.st_uid != geteuid() && st.st_uid != 0)
		snprintf(why, size, "its directory %s is owned by uid %u, "
			 "not by you or root", dir, (unsigned)st.st_uid);
	else if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
		 !(st.st_mode & S_ISVTX))
		snprintf(why, size, "its directory %s is writable by others "
			 "without the sticky bit (mode %04o)", dir,
			 (unsigned)(st.st_mode & 07777));
	else
		return 0;
	return -EPERM;
}

int undo_check_new(const char *path, const char *noun, char *why,
		   size_t size)
{
	struct stat st;

	if (lstat(path, &st) == 0) {
		if (S_ISREG(st.st_mode))
			return -EEXIST;
		snprintf(why, size, "%s; the %s must be a new regular file",
			 file_kind(st.st_mode), noun);
		return -EPERM;
	}
	if (errno != ENOENT)
		return errno_why("", why, size);
	return check_directory_of(path, why, size);
}

/* The open file's own checks: what it is, whose, who may write it. */
static int check_own_file(int fd, const struct stat *seen,
			  const char *noun, char *why, size_t size)
{
	struct stat st;

	if (fstat(fd, &st))
		return errno_why("", why, size);
	if (!S_ISREG(st.st_mode))
		snprintf(why, size, "%s, not %s %s",
			 file_kind(st.st_mode), article(noun), noun);
	else if (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino)
		snprintf(why, size, "was replaced while it was checked");
	else if (st.st_uid != geteuid())
		snprintf(why, size, "is owned by uid %u, not by you (uid %u); "
			 "someone else could have written it",
			 (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, size, "is writable by its group or others "
			 "(mode %04o); someone else could have written it",
			 (unsigned)(st.st_mode & 07777));
	else
		return 0;
	return -EPERM;
}

int undo_open_trusted(const char *path, const char *noun, char *why,
		      size_t size)
{
	struct stat seen;
	int fd, err;

	if (lstat(path, &seen))
		return errno_why("", why, size);
	/* not opened unless regular: opening a device node can act */
	if (!S_ISREG(seen.st_mode)) {
		snprintf(why, size, "%s, not %s %s",
			 file_kind(seen.st_mode), article(noun), noun);
		return -EPERM;
	}
	/* O_NONBLOCK: a FIFO swapped in since cannot hold the open */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		  O_CLOEXEC);
	if (fd < 0 && errno == ELOOP) {	/* a link since the lstat */
		snprintf(why, size, "is a symbolic link, not %s %s",
			 article(noun), noun);
		return -EPERM;
	}
	if (fd < 0)
		return errno_why("", why, size);
	err = check_own_file(fd, &seen, noun, why, size);
	if (!err)
		err = check_directory_of(path, why, size);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int undo_staged_name(const char *path, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s.new", path);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int undo_check_stale(const char *staged, const char *magic, char *why,
		     size_t size)
{
	char head[8];
	int fd = undo_open_trusted(staged, "staged undo file", why, size);
	ssize_t n;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0) {
		/* refused: what is there is not the run's to remove */
		return -EEXIST;
	}
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n == 0 || (n == (ssize_t)sizeof(head) &&
		       memcmp(head, magic, sizeof(head)) == 0))
		return 0;
	snprintf(why, size, "is not an undo file (it holds other data)");
	return -EEXIST;
}

/* ---- where an undo file may be ---- */

/* The sysfs directory of a block device number, resolved; or "". */
static void sysfs_dir(dev_t number, char *buf, size_t size)
{
	char link[64];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(number),
		 minor(number));
	if (size < PATH_MAX || !realpath(link, buf))
		buf[0] = '\0';
}

int undo_check_location(const char *path, const char *noun,
			const char *device, char *why, size_t size)
{
	char dir[PATH_MAX], disk[PATH_MAX], fs[PATH_MAX];
	struct stat dev_st, dir_st;
	size_t n;

	undo_directory_of(path, dir, sizeof(dir));
	if (stat(dir, &dir_st) || access(dir, W_OK))
		return -errno;
	if (stat(device, &dev_st) || !S_ISBLK(dev_st.st_mode))
		return 0;	/* a file or a simulated card */
	sysfs_dir(dev_st.st_rdev, disk, sizeof(disk));
	sysfs_dir(dir_st.st_dev, fs, sizeof(fs));
	n = strlen(disk);
	/* a partition's sysfs directory lies inside its disk's */
	if (dir_st.st_dev == dev_st.st_rdev ||
	    (n && strncmp(fs, disk, n) == 0 && (fs[n] == '/' || !fs[n]))) {
		snprintf(why, size, "the %s %s would be on %s itself", noun,
			 path, device);
		return -EXDEV;
	}
	return 0;
}

/* ---- the device's identity ---- */

/*
 * Read the sysfs attribute dir/name into buf, trailing blanks cut: its
 * length, or 0 when it is missing, empty or not a regular file.  One
 * bounded read, opened without waiting: identity never hangs a run.
 */
static size_t read_attribute(const char *dir, const char *name, char *buf,
			     size_t size)
{
	char path[PATH_MAX];
	struct stat st;
	ssize_t n = -1;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY |
		  O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = read(fd, buf, size - 1);
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (size_t)n;
}

/*
 * Hash dir/name's contents, tagged by name (not by dir: a place); *found
 * set (found may be NULL) when there were any.
 */
static uint64_t hash_attribute(uint64_t h, const char *dir, const char *name,
			       bool *found)
{
	char text[512];
	size_t n = read_attribute(dir, name, text, sizeof(text));

	if (!n)
		return h;
	if (found)
		*found = true;
	h = stamp_hash(h, name, strlen(name) + 1);
	return stamp_hash(h, text, n);
}

static uint64_t hash_u64(uint64_t h, uint64_t value)
{
	return stamp_hash(h, &value, sizeof(value));
}

/*
 * A loop device is its backing file (device, inode) and where in it the
 * device starts: the same after a re-attach to another loop node.
 */
static bool loop_identity(int fd, const char *disk, uint64_t *h)
{
	struct loop_info64 info;
	char probe[8];

	if (fd < 0 || !read_attribute(disk, "loop/offset", probe,
				      sizeof(probe)) ||
	    ioctl(fd, LOOP_GET_STATUS64, &info))
		return false;
	*h = stamp_hash(*h, "loop", 5);
	*h = hash_u64(*h, info.lo_device);
	*h = hash_u64(*h, info.lo_inode);
	*h = hash_u64(*h, info.lo_offset);
	return true;
}

/*
 * The USB device a disk hangs off: the nearest directory up the device
 * tree with an idVendor (at most 16 levels up, below /sys/devices).
 */
static bool usb_device_dir(const char *disk, char *dir, size_t size)
{
	char text[16];

	snprintf(dir, size, "%s", disk);
	for (int depth = 0; depth < 16; depth++) {
		char *slash = strrchr(dir, '/');

		if (!slash || slash == dir || !strcmp(dir, "/sys/devices"))
			return false;
		*slash = '\0';
		if (read_attribute(dir, "idVendor", text, sizeof(text)))
			return true;
	}
	return false;
}

/*
 * A USB disk's device ids and serial, and the disk's LUN (a card
 * reader's slots share the reader's serial); not the port, which changes
 * with the socket the reader is plugged into.
 */
static uint64_t usb_identity(uint64_t h, const char *disk, bool *found)
{
	static const char *const ids[] = { "idVendor", "idProduct" };
	char dir[PATH_MAX], scsi[PATH_MAX + 8];
	const char *lun;
	bool serial = false;

	if (!usb_device_dir(disk, dir, sizeof(dir)))
		return h;
	h = hash_attribute(h, dir, "serial", &serial);
	if (!serial)
		return h;	/* a bare vendor and product prove little */
	*found = true;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		h = hash_attribute(h, dir, ids[i], NULL);
	snprintf(scsi, sizeof(scsi), "%s/device", disk);
	lun = realpath(scsi, dir) ? strrchr(dir, ':') : NULL;
	return lun ? stamp_hash(h, lun, strlen(lun)) : h;
}

/*
 * An eMMC's boot and RPMB areas are disks of their own beside its user
 * area, with the same CID: the area is the disk name's suffix after
 * mmcblkN ("boot0", or none), which stays when the card comes back as
 * another mmcblkN.
 */
static uint64_t mmc_area(uint64_t h, const char *disk)
{
	const char *name = strrchr(disk, '/');

	if (!name || strncmp(name + 1, "mmcblk", 6))
		return h;
	name += 7;
	name += strspn(name, "0123456789");
	return stamp_hash(h, name, strlen(name) + 1);
}

/* A whole disk's identity, from what its sysfs directory holds. */
static uint64_t disk_identity(uint64_t h, int fd, const char *disk)
{
	static const char *const sources[] = {
		"device/cid", "device/serial",	/* SD, eMMC: the card's own */
		"device/wwid", "wwid",		/* SCSI, NVMe */
		"serial", "dm/uuid",		/* virtio, device mapper */
	};
	static const char *const described[] = {
		"device/vendor", "device/model", "device/name",
	};
	bool found = false;

	if (loop_identity(fd, disk, &h))
		return h;
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		h = hash_attribute(h, disk, sources[i], &found);
	h = usb_identity(h, disk, &found);
	if (found)
		return mmc_area(h, disk);
	/*
	 * No identity of its own: what the disk says it is, which stays the
	 * same across a replug, where its name and place would not.  Any
	 * disk of that kind and size matches; the contents the restore
	 * reads back are the proof left.
	 */
	for (size_t i = 0; i < sizeof(described) / sizeof(described[0]); i++)
		h = hash_attribute(h, disk, described[i], NULL);
	return stamp_hash(h, "anonymous", 10);
}

/* A block device: a partition is its disk's identity and its start. */
static uint64_t block_identity(uint64_t h, int fd, dev_t number)
{
	char dir[PATH_MAX], start[32];
	char *slash;

	sysfs_dir(number, dir, sizeof(dir));
	if (!dir[0])		/* no sysfs: nothing names the device */
		return stamp_hash(h, "no sysfs", 9);
	slash = strrchr(dir, '/');
	if (read_attribute(dir, "partition", start, sizeof(start)) && slash &&
	    read_attribute(dir, "start", start, sizeof(start))) {
		h = stamp_hash(h, "partition", 10);
		h = stamp_hash(h, start, strlen(start));
		*slash = '\0';	/* a partition's directory is in its disk's */
	}
	return disk_identity(h, fd, dir);
}

uint64_t undo_fingerprint(const struct dev *dev)
{
	uint64_t h = STAMP_FNV_BASIS;
	struct stat st;

	if (!dev_has(dev, DEV_CAP_HOST_NODE) ||
	    (dev->fd >= 0 ? fstat(dev->fd, &st) : stat(dev->path, &st)))
		return stamp_hash(h, dev->path, strlen(dev->path));
	if (S_ISBLK(st.st_mode))
		return block_identity(h, dev->fd, st.st_rdev);
	/* a regular file: where it is, not what it is called */
	h = stamp_hash(h, &st.st_dev, sizeof(st.st_dev));
	return stamp_hash(h, &st.st_ino, sizeof(st.st_ino));
}
