/*
 * devname: a device's identity and name for the JSON header.  The
 * identity comes from the same sources the undo file's fingerprint
 * hashes (measure/undo/trust.c), as text a reader can compare: the card's
 * CID or serial, the disk's WWID or serial, a device mapper UUID, the
 * backing file of a loop device, the real path of an image file.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "identity/devname.h"
#include "identity/infosysfs.h"
#include "lib/sysattr.h"

/* Where a disk's identity may be, most specific first, and its prefix. */
static const struct {
	const char *attribute;
	const char *prefix;
} identity_sources[] = {
	{ "device/cid", "cid" },	/* SD, eMMC: the card's own */
	{ "device/serial", "serial" },
	{ "device/wwid", "wwid" },	/* SCSI */
	{ "wwid", "wwid" },		/* NVMe */
	{ "serial", "serial" },		/* virtio */
	{ "dm/uuid", "dm-uuid" },	/* device mapper */
};

/* text with surrounding white space removed, in place */
static char *trimmed(char *text)
{
	size_t len = strlen(text);

	while (len && strchr(" \t\r\n", text[len - 1]))
		text[--len] = '\0';
	return text + strspn(text, " \t");
}

/* The attribute dir/name, trimmed, into buf; false when not there. */
static bool read_attr(const char *dir, const char *name, char *buf,
		      size_t size)
{
	char path[INFO_PATH_BYTES + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (sysattr_read(path, buf, size, NULL, 0) <= 0)
		return false;
	memmove(buf, trimmed(buf), strlen(trimmed(buf)) + 1);
	return buf[0] != '\0';
}

static void sysfs_identity(const struct info_card *card, struct devname *out)
{
	char value[INFO_ATTR_BYTES];

	if (card->queue.has_backing_file && card->queue.backing_file[0]) {
		snprintf(out->identity, sizeof(out->identity), "file:%s",
			 card->queue.backing_file);
		out->has_identity = true;
		return;
	}
	for (size_t i = 0; card->sysfs_dir[0] && i < sizeof(identity_sources) /
			   sizeof(identity_sources[0]); i++)
		if (read_attr(card->sysfs_dir, identity_sources[i].attribute,
			      value, sizeof(value))) {
			snprintf(out->identity, sizeof(out->identity), "%s:%s",
				 identity_sources[i].prefix, value);
			out->has_identity = true;
			return;
		}
}

/* The card's manufacturer and name, else the disk's vendor and model. */
static bool sysfs_name(const struct info_card *card, struct devname *out)
{
	const struct info_queue *q = &card->queue;

	if (card->has_name && card->manufacturer)
		snprintf(out->name, sizeof(out->name), "%s %s",
			 card->manufacturer, card->name);
	else if (card->has_name)
		snprintf(out->name, sizeof(out->name), "%s", card->name);
	else if (q->has_model && q->has_vendor)
		snprintf(out->name, sizeof(out->name), "%.200s %.200s",
			 q->vendor, q->model);
	else if (q->has_model)
		snprintf(out->name, sizeof(out->name), "%s", q->model);
	else
		return false;
	memmove(out->name, trimmed(out->name), strlen(trimmed(out->name)) + 1);
	return out->name[0] != '\0';
}


/* A simulated card or an image file; false for anything else. */
static bool devname_not_sysfs(const struct info_device *dev,
			      struct devname *out)
{
	char real[PATH_MAX + 1];
	struct stat st;

	*out = (struct devname){ .has_identity = false };
	snprintf(out->name, sizeof(out->name), "%.4000s", dev->path);
	if (dev->simulated)
		return true;	/* a spec, not a device: nothing to know it by */
	if (stat(dev->path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	if (realpath(dev->path, real)) {
		snprintf(out->identity, sizeof(out->identity), "file:%s", real);
		out->has_identity = true;
	}
	return true;
}

void devname_from_card(const struct info_device *dev,
		       const struct info_card *card, struct devname *out)
{
	if (devname_not_sysfs(dev, out))
		return;
	sysfs_identity(card, out);
	if (!sysfs_name(card, out))
		snprintf(out->name, sizeof(out->name), "%.4000s", dev->path);
}

void devname_read(const struct info_device *dev, const char *sysfs_root,
		  struct devname *out)
{
	struct info_card *card;
	char err[128];

	if (devname_not_sysfs(dev, out))
		return;
	card = calloc(1, sizeof(*card));
	if (card && info_read_card(dev, sysfs_root, card, err,
				   sizeof(err)) == 0) {
		sysfs_identity(card, out);
		if (!sysfs_name(card, out))
			snprintf(out->name, sizeof(out->name), "%.4000s",
				 dev->path);
	}
	free(card);	/* without it, the path names the device */
}
