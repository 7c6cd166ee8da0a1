/*
 * undotrust: where undo files may live and which device one belongs to -
 * the default undo path, the check that an undo file is not on the
 * device under test, and the device's identity (its fingerprint).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "stamp.h"
#include "undotrust.h"

void undo_default_path(const char *device, char *buf, size_t size)
{
	const char *base = strrchr(device, '/');
	char name[64];
	size_t n = 0;

	base = base && strncmp(device, "sim:", 4) ? base + 1 : device;
	for (; *base && n + 1 < sizeof(name); base++)
		name[n++] = (*base >= 'a' && *base <= 'z') ||
			    (*base >= 'A' && *base <= 'Z') ||
			    (*base >= '0' && *base <= '9') || *base == '-' ?
			    *base : '_';
	name[n] = '\0';
	snprintf(buf, size, "/var/tmp/flashbench-%s.undo", name);
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

/* The sysfs directory of a block device number, resolved; or "". */
static void sysfs_dir(dev_t number, char *buf, size_t size)
{
	char link[64];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(number),
		 minor(number));
	if (size < PATH_MAX || !realpath(link, buf))
		buf[0] = '\0';
}

int undo_check_location(const char *path, const char *device, char *why,
			size_t size)
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
		snprintf(why, size, "the undo file %s would be on %s itself",
			 path, device);
		return -EXDEV;
	}
	return 0;
}

/* Hash a small file's contents into h; missing files add nothing. */
static uint64_t hash_file(uint64_t h, const char *path)
{
	char text[512];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return h;
	n = fread(text, 1, sizeof(text), f);
	fclose(f);
	return stamp_hash(stamp_hash(h, path, strlen(path)), text, n);
}

uint64_t undo_fingerprint(const struct dev *dev)
{
	static const char *const identity[] = {
		"loop/backing_file", "device/serial", "device/cid",
		"device/wwid", "device/model", "wwid",
	};
	uint64_t h = STAMP_FNV_BASIS;
	char dir[PATH_MAX], file[PATH_MAX + 32];
	struct stat st;

	if (dev->simulated || stat(dev->path, &st))
		return stamp_hash(h, dev->path, strlen(dev->path));
	if (!S_ISBLK(st.st_mode)) {
		/* a regular file: where it is, not what it is called */
		h = stamp_hash(h, &st.st_dev, sizeof(st.st_dev));
		return stamp_hash(h, &st.st_ino, sizeof(st.st_ino));
	}
	sysfs_dir(st.st_rdev, dir, sizeof(dir));
	h = stamp_hash(h, dir, strlen(dir));
	for (size_t i = 0; i < sizeof(identity) / sizeof(identity[0]); i++) {
		snprintf(file, sizeof(file), "%s/%s", dir, identity[i]);
		h = hash_file(h, file);
	}
	return h;
}
