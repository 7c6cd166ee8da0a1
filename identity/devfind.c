/*
 * devfind: a device found again by its identity (devfind.h), through
 * the same reading of sysfs that names it in JSON (devname.c), so the
 * identity a log records is the one looked for.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "identity/devfind.h"
#include "identity/infosysfs.h"

void devfind_key_of(const char *path, const char *sysfs_root,
		    struct devfind_key *key)
{
	const struct info_device dev = { .path = path,
		.simulated = strncmp(path, "sim:", 4) == 0 };
	struct info_card *card = calloc(1, sizeof(*card));
	struct devname names;
	char err[128];

	*key = (struct devfind_key){ .has_identity = false };
	if (!card)
		return;		/* without memory, nothing is known by it */
	if (info_read_card(&dev, sysfs_root, card, err, sizeof(err)) == 0) {
		devname_from_card(&dev, card, &names);
		key->has_identity = names.has_identity;
		snprintf(key->identity, sizeof(key->identity), "%s",
			 names.identity);
		key->partition = card->is_partition ?
				 card->partition_number : 0;
	}
	free(card);
}

const char *devfind_key_text(const struct devfind_key *key, char *buf,
			     size_t size)
{
	if (!key->has_identity)
		snprintf(buf, size, "%s", "");
	else if (key->partition)
		snprintf(buf, size, "%s,partition=%u", key->identity,
			 key->partition);
	else
		snprintf(buf, size, "%s", key->identity);
	return buf;
}

void devfind_key_parse(const char *text, struct devfind_key *key)
{
	const char *part = strstr(text, ",partition=");
	int n = part ? (int)(part - text) : (int)strlen(text);

	*key = (struct devfind_key){ .has_identity = text[0] != '\0' };
	snprintf(key->identity, sizeof(key->identity), "%.*s", n, text);
	key->partition = part ? (unsigned)strtoul(part + strlen(",partition="),
						  NULL, 10) : 0;
}

bool devfind_same(const struct devfind_key *a, const struct devfind_key *b)
{
	return a->has_identity && b->has_identity &&
	       strcmp(a->identity, b->identity) == 0 &&
	       a->partition == b->partition;
}

/* node is a block device (or, named, an image file) now with key. */
static bool node_has(const char *node, const struct devfind_key *key,
		     const char *sysfs_root, bool named)
{
	struct devfind_key now;
	struct stat st;

	if (stat(node, &st) != 0 ||
	    !(S_ISBLK(st.st_mode) || (named && S_ISREG(st.st_mode))))
		return false;
	devfind_key_of(node, sysfs_root, &now);
	return devfind_same(&now, key);
}

int devfind_node(const struct devfind_key *key, const char *path,
		 const char *sysfs_root, char *node, size_t size)
{
	char dir[INFO_PATH_BYTES], cand[INFO_PATH_BYTES];
	struct dirent *ent;
	bool found = false;
	DIR *d;

	if (node_has(path, key, sysfs_root, true)) {
		snprintf(node, size, "%s", path);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/class/block",
		 sysfs_root ? sysfs_root : "/sys");
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	while (!found && (ent = readdir(d))) {
		if (ent->d_name[0] == '.')
			continue;
		snprintf(cand, sizeof(cand), "/dev/%s", ent->d_name);
		found = node_has(cand, key, sysfs_root, false);
	}
	closedir(d);
	if (!found)
		return -ENOENT;
	snprintf(node, size, "%s", cand);
	return 0;
}
