/*
 * hostq: reads the two sysfs attributes that say whether requests can
 * queue on the way to the card.  Nothing here is measured or printed.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity/hostq.h"
#include "lib/sysattr.h"

/* The number in a one-line sysfs attribute, or -1 (also when it is no
   attribute: a FIFO or a file larger than any, read by sysattr). */
static long read_number(const char *dir, const char *name)
{
	char path[PATH_MAX], text[32], *end;
	long value;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path) ||
	    sysattr_read(path, text, sizeof(text), NULL, 0) <= 0)
		return -1;
	value = strtol(text, &end, 10);
	return end != text && value >= 0 ? value : -1;
}

/* The device's name: the basename of what the path resolves to. */
static void device_name(const char *device, char *name, size_t size)
{
	char resolved[PATH_MAX];
	const char *path = realpath(device, resolved) ? resolved : device;
	const char *slash = strrchr(path, '/');

	snprintf(name, size, "%s", slash ? slash + 1 : path);
}

/* The disk's attributes in dir; false when it has neither. */
static bool read_disk(const char *dir, struct hostq *q)
{
	q->nr_requests = read_number(dir, "queue/nr_requests");
	q->cmdq = (int)read_number(dir, "device/cmdq_en");
	if (q->cmdq > 1)
		q->cmdq = 1;
	q->known = q->nr_requests >= 0 || q->cmdq >= 0;
	return q->known;
}

void hostq_read(const char *device, const char *sysfs_root, struct hostq *q)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";
	char name[PATH_MAX], dir[2 * PATH_MAX];

	*q = (struct hostq){ .nr_requests = -1, .cmdq = -1 };
	device_name(device, name, sizeof(name));
	snprintf(dir, sizeof(dir), "%s/block/%s", root, name);
	if (read_disk(dir, q))
		return;
	/* a partition: the disk holding it */
	snprintf(dir, sizeof(dir), "%s/class/block/%s/..", root, name);
	read_disk(dir, q);
}
