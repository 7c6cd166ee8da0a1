/*
 * infosysfs: what sysfs (or a recorded copy of it) knows about a device,
 * read once into a struct info_card: the disk a path names, its queue
 * and bus attributes, its transport, and the card's registers decoded.
 * It neither opens the device for I/O nor prints anything.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "identity/inforeg.h"
#include "identity/infosysfs.h"
#include "identity/infoutil.h"
#include "lib/sysattr.h"

/* ---- sysfs ---- */

__attribute__((format(printf, 3, 4)))
static bool path_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

/*
 * An attribute that is there but cannot be read, once per path, noted on
 * the card info_read_card is filling: every reader below takes it.
 */
static void note_unreadable(struct info_card *card, const char *path,
			    const char *why)
{
	unsigned kept;

	kept = card->unreadable_count < INFO_UNREADABLE_MAX ?
	       card->unreadable_count : INFO_UNREADABLE_MAX;
	for (unsigned i = 0; i < kept; i++)
		if (!strcmp(card->unreadable[i].path, path))
			return;
	if (kept < INFO_UNREADABLE_MAX) {
		info_copy_str(card->unreadable[kept].path,
			      sizeof(card->unreadable[kept].path), path);
		info_copy_str(card->unreadable[kept].why,
			      sizeof(card->unreadable[kept].why), why);
	}
	card->unreadable_count++;
}

/*
 * Read dir/name, trailing blanks removed.  False if missing, empty or
 * unreadable (a FIFO, a file larger than any attribute, an error): those
 * are noted on the card, with their path.
 */
static bool attr(struct info_card *card, const char *dir, const char *name,
		 char *buf, size_t len)
{
	char path[INFO_PATH_BYTES], why[SYSATTR_WHY_BYTES];
	ssize_t n;

	buf[0] = '\0';
	if (!path_fmt(path, sizeof(path), "%s/%s", dir, name))
		return false;
	n = sysattr_read(path, buf, len, why, sizeof(why));
	if (n < 0 && why[0])
		note_unreadable(card, path, why);
	if (n <= 0)
		return false;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return n > 0;
}

static bool parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!isxdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno == 0 && end != s && *end == '\0';
}

static bool attr_dec(struct info_card *card, const char *dir,
		     const char *name, uint64_t *v)
{
	char buf[64];

	return attr(card, dir, name, buf, sizeof(buf)) &&
	       parse_u64(buf, 10, v);
}

/* A hex attribute such as "0x000003". */
static bool attr_hex(struct info_card *card, const char *dir,
		     const char *name, uint64_t *v)
{
	char buf[64];
	const char *p = buf;

	if (!attr(card, dir, name, buf, sizeof(buf)))
		return false;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	return parse_u64(p, 16, v);
}

static bool exists(const char *dir, const char *name)
{
	char path[INFO_PATH_BYTES];

	return path_fmt(path, sizeof(path), "%s/%s", dir, name) &&
	       access(path, F_OK) == 0;
}

static bool is_plain_name(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") &&
	       !strchr(name, '/');
}

/* dir/entry/name is a partition called name: the recorded-tree layout. */
static bool find_partition(const char *root, const char *name, char *out)
{
	char blockdir[INFO_PATH_BYTES], cand[INFO_PATH_BYTES];
	struct dirent *ent;
	bool found = false;
	DIR *d;

	if (!path_fmt(blockdir, sizeof(blockdir), "%s/block", root))
		return false;
	d = opendir(blockdir);
	if (!d)
		return false;
	while (!found && (ent = readdir(d))) {
		if (ent->d_name[0] == '.')
			continue;
		found = path_fmt(cand, sizeof(cand), "%s/%s/%s", blockdir,
				 ent->d_name, name) &&
			exists(cand, "partition") &&
			realpath(cand, out) != NULL;
	}
	closedir(d);
	return found;
}

static int find_by_name(const char *root, const char *path, char *out,
			char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char cand[INFO_PATH_BYTES];

	if (!is_plain_name(name)) {
		info_set_err(err, errlen, "%s: no device name in the path",
			     path);
		return -EINVAL;
	}
	if (path_fmt(cand, sizeof(cand), "%s/class/block/%s", root, name) &&
	    realpath(cand, out))
		return 0;
	if (path_fmt(cand, sizeof(cand), "%s/block/%s", root, name) &&
	    realpath(cand, out))
		return 0;
	if (find_partition(root, name, out))
		return 0;
	info_set_err(err, errlen,
		     "%s: no such device, and no block device %s in %s", path,
		     name, root);
	return -ENOENT;
}

static int find_by_devnum(const char *root, const char *path, dev_t rdev,
			  char *out, char *err, size_t errlen)
{
	char cand[INFO_PATH_BYTES];

	if (path_fmt(cand, sizeof(cand), "%s/dev/block/%u:%u", root,
		     major(rdev), minor(rdev)) && realpath(cand, out))
		return 0;
	return find_by_name(root, path, out, err, errlen);
}

static void last_component(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	info_copy_str(out, len, slash ? slash + 1 : path);
}

/* A partition's directory sits inside its disk's: go one level up. */
static void resolve_partition(struct info_card *card, const char *dir)
{
	uint64_t v;
	char *slash;

	card->is_partition = true;
	last_component(dir, card->partition, sizeof(card->partition));
	if (attr_dec(card, dir, "partition", &v))
		card->partition_number = (unsigned)v;
	if (attr_dec(card, dir, "start", &card->partition_start_bytes) &&
	    attr_dec(card, dir, "size", &card->partition_size_bytes)) {
		card->has_partition_range = true;
		card->partition_start_bytes *= 512;
		card->partition_size_bytes *= 512;
	}
	info_copy_str(card->sysfs_dir, sizeof(card->sysfs_dir), dir);
	slash = strrchr(card->sysfs_dir, '/');
	if (slash && slash != card->sysfs_dir)
		*slash = '\0';
}

/* ---- transport ---- */

enum {
	SEEN_USB = 1 << 0,
	SEEN_NVME = 1 << 1,
	SEEN_MMC = 1 << 2,
	SEEN_ATA = 1 << 3,
	SEEN_SCSI = 1 << 4,
	SEEN_VIRTIO = 1 << 5,
};

static unsigned subsystem_bit(const char *dir)
{
	char link[INFO_PATH_BYTES], path[INFO_PATH_BYTES];
	const char *name;
	ssize_t n;

	if (exists(dir, "ata_port"))
		return SEEN_ATA;
	if (!path_fmt(path, sizeof(path), "%s/subsystem", dir))
		return 0;
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	name = strrchr(link, '/');
	name = name ? name + 1 : link;
	if (!strcmp(name, "usb"))
		return SEEN_USB;
	if (!strcmp(name, "nvme"))
		return SEEN_NVME;
	if (!strcmp(name, "mmc"))
		return SEEN_MMC;
	if (!strcmp(name, "scsi"))
		return SEEN_SCSI;
	if (!strcmp(name, "virtio"))
		return SEEN_VIRTIO;
	return 0;
}

/*
 * Call visit on the disk's directory and each one above it, up to the
 * sysfs root, until visit returns true.
 */
static void walk_up(const char *disk_dir, const char *root,
		    bool (*visit)(const char *dir, void *ctx), void *ctx)
{
	char path[INFO_PATH_BYTES], top[INFO_PATH_BYTES];
	size_t toplen;
	char *slash;

	if (!realpath(root, top))
		return;
	toplen = strlen(top);
	info_copy_str(path, sizeof(path), disk_dir);
	while (strlen(path) > toplen && !strncmp(path, top, toplen)) {
		if (visit(path, ctx))
			return;
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			break;
		*slash = '\0';
	}
}

static bool note_subsystem(const char *dir, void *ctx)
{
	*(unsigned *)ctx |= subsystem_bit(dir);
	return false;
}

/* The subsystems of every device above the disk, up to the sysfs root. */
static unsigned ancestors(const char *disk_dir, const char *root)
{
	unsigned seen = 0;

	walk_up(disk_dir, root, note_subsystem, &seen);
	return seen;
}

static enum info_transport by_ancestors(unsigned seen)
{
	if (seen & SEEN_USB)
		return INFO_TRANSPORT_USB;
	if (seen & SEEN_NVME)
		return INFO_TRANSPORT_NVME;
	if (seen & SEEN_MMC)
		return INFO_TRANSPORT_MMC;
	if (seen & SEEN_ATA)
		return INFO_TRANSPORT_ATA;
	if (seen & SEEN_SCSI)
		return INFO_TRANSPORT_SCSI;
	if (seen & SEEN_VIRTIO)
		return INFO_TRANSPORT_VIRTIO;
	return INFO_TRANSPORT_UNKNOWN;
}

/* Kernel naming conventions, for trees that lack the device links. */
static enum info_transport by_disk_name(const char *disk)
{
	static const struct {
		const char *prefix;
		enum info_transport transport;
	} names[] = {
		{ "nvme", INFO_TRANSPORT_NVME },
		{ "vd", INFO_TRANSPORT_VIRTIO },
		{ "loop", INFO_TRANSPORT_LOOP },
		{ "mmcblk", INFO_TRANSPORT_MMC },
		{ "dm-", INFO_TRANSPORT_DM },
		{ "md", INFO_TRANSPORT_MD },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(disk, names[i].prefix, strlen(names[i].prefix)))
			return names[i].transport;
	return INFO_TRANSPORT_UNKNOWN;
}

static enum info_transport find_transport(const struct info_card *card,
					  const char *root)
{
	const char *dir = card->sysfs_dir;
	enum info_transport t;

	if (!strcmp(card->card_type, "SD") ||
	    !strcmp(card->card_type, "SDcombo"))
		return INFO_TRANSPORT_SD;
	if (!strcmp(card->card_type, "MMC"))
		return INFO_TRANSPORT_EMMC;
	if (exists(dir, "loop"))
		return INFO_TRANSPORT_LOOP;
	if (exists(dir, "dm"))
		return INFO_TRANSPORT_DM;
	if (exists(dir, "md"))
		return INFO_TRANSPORT_MD;
	t = by_ancestors(ancestors(dir, root));
	if (t == INFO_TRANSPORT_UNKNOWN)
		t = by_disk_name(card->disk);
	return t;
}

/* ---- card attributes ---- */

/* The identity from the separate attributes, when there is no cid file. */
static bool cid_from_attrs(struct info_card *card, const char *dev,
			   bool mmc)
{
	struct info_cid *cid = &card->cid;
	uint64_t v;
	char buf[64];
	bool any = false;

	memset(cid, 0, sizeof(*cid));
	cid->mmc = mmc;
	if (attr_hex(card, dev, "manfid", &v)) {
		cid->manfid = (uint32_t)v;
		any = true;
	}
	if (attr_hex(card, dev, "oemid", &v))
		cid->oemid = (uint16_t)v;
	if (attr(card, dev, "name", buf, sizeof(buf)))
		info_copy_str(cid->name, sizeof(cid->name), buf);
	if (attr_hex(card, dev, "serial", &v))
		cid->serial = (uint32_t)v;
	return any;
}

/* "MM/YYYY" as the kernel prints it; for eMMC it knows the EXT_CSD rule. */
static bool parse_date(const char *s, unsigned *year, unsigned *month)
{
	unsigned m, y;
	int end = 0;

	if (sscanf(s, "%2u/%4u%n", &m, &y, &end) != 2 || s[end])
		return false;
	*year = y;
	*month = m;
	return true;
}

static void read_identity(struct info_card *card, const char *dev)
{
	bool mmc = !strcmp(card->card_type, "MMC");
	char buf[160], err[8];

	if (attr(card, dev, "cid", buf, sizeof(buf)) &&
	    info_decode_cid(buf, mmc, &card->cid, err, sizeof(err)) == 0)
		card->has_cid = true;
	else if (cid_from_attrs(card, dev, mmc))
		card->has_cid = true;
	if (!card->has_cid)
		return;
	if (attr(card, dev, "date", buf, sizeof(buf)))
		parse_date(buf, &card->cid.year, &card->cid.month);
	card->manufacturer = info_manufacturer(card->cid.manfid, mmc);
	card->has_manfid = card->has_oemid = card->has_serial = true;
	card->manfid = card->cid.manfid;
	card->oemid = card->cid.oemid;
	card->serial = card->cid.serial;
	card->has_name = card->cid.name[0] != '\0';
	info_copy_str(card->name, sizeof(card->name), card->cid.name);
	card->has_date = card->cid.year != 0;
	card->year = card->cid.year;
	card->month = card->cid.month;
}

static void read_registers(struct info_card *card, const char *dev)
{
	bool mmc = !strcmp(card->card_type, "MMC");
	char buf[160], err[8];

	if (attr(card, dev, "csd", buf, sizeof(buf)) &&
	    info_decode_csd(buf, mmc, &card->csd, err, sizeof(err)) == 0) {
		card->has_csd = true;
		card->has_capacity = card->csd.capacity_known;
		card->capacity_bytes = card->csd.capacity_bytes;
	}
	if (attr(card, dev, "scr", buf, sizeof(buf)) &&
	    info_decode_scr(buf, &card->scr, err, sizeof(err)) == 0)
		card->has_scr = true;
	if (attr(card, dev, "ssr", buf, sizeof(buf)) &&
	    info_decode_ssr(buf, &card->ssr, err, sizeof(err)) == 0) {
		card->has_ssr = card->has_speed = true;
		card->speed_class = card->ssr.speed_class;
		card->uhs_grade = card->ssr.uhs_grade;
		card->video_class = card->ssr.video_class;
		card->app_class = card->ssr.app_class;
		card->au_size_bytes = card->ssr.au_bytes;
	}
	card->has_erase_size = attr_dec(card, dev, "erase_size",
					&card->erase_size);
	card->has_preferred_erase_size =
		attr_dec(card, dev, "preferred_erase_size",
			 &card->preferred_erase_size);
}

/* attr_dec and attr as known/value pairs, for the fields shown later. */
static bool attr_flag(struct info_card *card, const char *dir,
		      const char *name, bool *v)
{
	uint64_t n = 0;
	bool known = attr_dec(card, dir, name, &n);

	*v = n != 0;
	return known;
}

static void read_queue(struct info_card *card, const char *dir)
{
	struct info_queue *q = &card->queue;

	q->has_physical_block_size = attr_dec(card, dir,
		"queue/physical_block_size", &q->physical_block_size);
	q->has_minimum_io_size = attr_dec(card, dir,
		"queue/minimum_io_size", &q->minimum_io_size);
	q->has_optimal_io_size = attr_dec(card, dir,
		"queue/optimal_io_size", &q->optimal_io_size);
	q->has_discard_max_bytes = attr_dec(card, dir,
		"queue/discard_max_bytes", &q->discard_max_bytes);
	q->has_discard_granularity = attr_dec(card, dir,
		"queue/discard_granularity", &q->discard_granularity);
	q->has_rotational = attr_flag(card, dir, "queue/rotational",
				      &q->rotational);
	q->has_removable = attr_flag(card, dir, "removable", &q->removable);
	q->has_read_only = attr_flag(card, dir, "ro", &q->read_only);
	q->on_bus = exists(dir, "device");
	q->has_vendor = attr(card, dir, "device/vendor", q->vendor,
			     sizeof(q->vendor));
	q->has_model = attr(card, dir, "device/model", q->model,
			    sizeof(q->model));
	q->has_backing_file = attr(card, dir, "loop/backing_file",
				   q->backing_file, sizeof(q->backing_file));
}

static void read_emmc(struct info_card *card, const char *dev)
{
	struct info_emmc *e = &card->emmc;

	e->has_ext_csd_rev = attr(card, dev, "rev", e->ext_csd_rev,
				  sizeof(e->ext_csd_rev));
	e->has_prv = attr(card, dev, "prv", e->prv, sizeof(e->prv));
	e->has_fwrev = attr(card, dev, "fwrev", e->fwrev, sizeof(e->fwrev));
	e->has_life_time = attr(card, dev, "life_time", e->life_time,
				sizeof(e->life_time));
	e->has_pre_eol_info = attr_hex(card, dev, "pre_eol_info",
				       &e->pre_eol_info);
	e->has_enhanced_area_offset = attr_dec(card, dev,
		"enhanced_area_offset", &e->enhanced_area_offset);
	e->has_enhanced_area_size = attr_dec(card, dev, "enhanced_area_size",
					     &e->enhanced_area_size);
	e->has_rpmb_size_mult = attr_hex(card, dev, "raw_rpmb_size_mult",
					 &e->rpmb_size_mult);
	info_decode_ext_csd(e);
}

static void read_disk(struct info_card *card, const char *root)
{
	char dev[INFO_PATH_BYTES];
	uint64_t v;

	last_component(card->sysfs_dir, card->disk, sizeof(card->disk));
	if (attr_dec(card, card->sysfs_dir, "size", &v)) {
		card->has_disk_size = true;
		card->disk_size_bytes = v * 512;
	}
	if (attr_dec(card, card->sysfs_dir, "queue/logical_block_size", &v)) {
		card->has_logical_block_size = true;
		card->logical_block_size = (uint32_t)v;
	}
	attr(card, card->sysfs_dir, "device/type", card->card_type,
	     sizeof(card->card_type));
	read_queue(card, card->sysfs_dir);
	card->transport = find_transport(card, root);
	if (card->transport != INFO_TRANSPORT_SD &&
	    card->transport != INFO_TRANSPORT_EMMC)
		return;
	if (!path_fmt(dev, sizeof(dev), "%s/device", card->sysfs_dir))
		return;
	read_identity(card, dev);
	read_registers(card, dev);
	if (card->transport == INFO_TRANSPORT_EMMC) {
		card->has_emmc = true;
		read_emmc(card, dev);
	}
}

/* ---- the host link ---- */

/* The last component of the link dir/name points to: "uas". */
static bool link_target_name(const char *dir, const char *name, char *out,
			     size_t len)
{
	char path[INFO_PATH_BYTES], target[INFO_PATH_BYTES];
	ssize_t n;

	if (!path_fmt(path, sizeof(path), "%s/%s", dir, name))
		return false;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	last_component(target, out, len);
	return true;
}

/*
 * The card's MMC host.  Real sysfs has the card at
 * .../mmc_host/mmcN/mmcN:RCA, where the disk's device link points.
 */
static bool find_mmc_host(const char *disk_dir, char *host, size_t len)
{
	char dev[INFO_PATH_BYTES], real[INFO_PATH_BYTES], class[32];
	char *slash;

	if (!path_fmt(dev, sizeof(dev), "%s/device", disk_dir) ||
	    !realpath(dev, real))
		return false;
	slash = strrchr(real, '/');
	if (!slash)
		return false;
	*slash = '\0';			/* .../mmc_host/mmcN */
	slash = strrchr(real, '/');
	if (!slash)
		return false;
	*slash = '\0';			/* .../mmc_host */
	last_component(real, class, sizeof(class));
	if (strcmp(class, "mmc_host"))
		return false;
	info_copy_str(host, len, slash + 1);
	return true;
}

static void read_ios(struct link_info *link, const char *debugfs)
{
	char text[SYSATTR_MAX_BYTES + 1];
	ssize_t n;

	link->state = LINK_NO_DEBUGFS;
	if (!path_fmt(link->ios_path, sizeof(link->ios_path), "%s/%s/ios",
		      debugfs, link->host))
		return;
	n = sysattr_read(link->ios_path, text, sizeof(text), link->read_why,
			 sizeof(link->read_why));
	link->read_errno = n < 0 ? (int)-n : 0;
	if (n < 0 && link->read_why[0])
		link->state = LINK_UNREADABLE;
	if (n < 0)
		return;
	link->state = link_parse_ios(text, &link->ios) ? LINK_UNPARSED :
							 LINK_READ;
}

/*
 * Above a USB disk: the interface (it has bInterfaceNumber, and its
 * driver is the storage driver), then the USB device with its speed.
 */
static bool visit_usb(const char *dir, void *ctx)
{
	struct info_card *card = ctx;
	struct link_usb *usb = &card->link.usb;
	char buf[32];
	const char *version = buf;

	if (!*usb->driver && exists(dir, "bInterfaceNumber"))
		link_target_name(dir, "driver", usb->driver,
				 sizeof(usb->driver));
	if (!attr(card, dir, "speed", buf, sizeof(buf)) ||
	    !link_parse_usb_speed(buf, &usb->speed_kbit))
		return false;
	usb->has_speed = true;
	if (attr(card, dir, "version", buf, sizeof(buf))) {
		while (*version == ' ')
			version++;
		info_copy_str(usb->version, sizeof(usb->version), version);
	}
	return true;
}

static void read_link(struct info_card *card, const struct info_device *d,
		      const char *sysfs_root)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";
	struct link_info *link = &card->link;
	struct link_claims claims = { .known = card->has_ssr,
		.speed_class = card->speed_class, .uhs_grade = card->uhs_grade,
		.video_class = card->video_class, .app_class = card->app_class };
	char debugfs[INFO_PATH_BYTES];

	/* real systems mount debugfs at /sys/kernel/debug */
	if (d->debugfs_root)
		info_copy_str(debugfs, sizeof(debugfs), d->debugfs_root);
	else if (!path_fmt(debugfs, sizeof(debugfs), "%s/kernel/debug", root))
		return;
	if (card->transport == INFO_TRANSPORT_SD ||
	    card->transport == INFO_TRANSPORT_EMMC) {
		link->bus = card->transport == INFO_TRANSPORT_SD ?
			    LINK_BUS_SD : LINK_BUS_MMC;
		if (find_mmc_host(card->sysfs_dir, link->host,
				  sizeof(link->host)))
			read_ios(link, debugfs);
		else
			link->state = LINK_NO_HOST;
	} else if (card->transport == INFO_TRANSPORT_USB) {
		link->bus = LINK_BUS_USB;
		walk_up(card->sysfs_dir, root, visit_usb, card);
		link->state = link->usb.has_speed ? LINK_READ :
						    LINK_NO_USB_SPEED;
	}
	link_judge(link, &claims, debugfs);
}

static void read_caller_view(struct info_card *card,
			     const struct info_device *d)
{
	if (d->size_bytes) {
		card->has_size = true;
		card->size_bytes = d->size_bytes;
	}
	if (d->logical_block_bytes) {
		card->has_logical_block_size = true;
		card->logical_block_size = d->logical_block_bytes;
	}
}

/*
 * The size of the device named, which the speed tests and --surface
 * measure: a partition's own, not its disk's.  On this machine's sysfs
 * the caller's BLKGETSIZE64 of the opened node says it; a recorded tree
 * (sysfs_root) has only its own numbers, whatever a node of that name
 * here holds.
 */
static void read_named_size(struct info_card *card,
			    const struct info_device *d,
			    const char *sysfs_root)
{
	if (!sysfs_root && d->size_bytes) {
		card->has_size = true;
		card->size_bytes = d->size_bytes;
	} else if (card->is_partition) {
		card->has_size = card->has_partition_range;
		card->size_bytes = card->partition_size_bytes;
	} else {
		card->has_size = card->has_disk_size;
		card->size_bytes = card->disk_size_bytes;
	}
}

static int read_file(struct info_card *card, const struct info_device *d,
		     const struct stat *st)
{
	card->transport = INFO_TRANSPORT_FILE;
	read_caller_view(card, d);
	if (!card->has_size) {
		card->has_size = true;
		card->size_bytes = (uint64_t)st->st_size;
	}
	return 0;
}

static int locate(const struct info_device *d, const char *root,
		  char *dir, struct info_card *card, char *err,
		  size_t errlen)
{
	struct stat st;

	if (stat(d->path, &st) < 0)
		return find_by_name(root, d->path, dir, err, errlen);
	if (S_ISREG(st.st_mode))
		return read_file(card, d, &st) ? -EIO : 1;
	if (!S_ISBLK(st.st_mode)) {
		info_set_err(err, errlen,
			     "%s: not a block device, regular file or sim: "
			     "device", d->path);
		return -EINVAL;
	}
	return find_by_devnum(root, d->path, st.st_rdev, dir, err, errlen);
}

int info_read_card(const struct info_device *d, const char *sysfs_root,
		   struct info_card *card, char *err, size_t errlen)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";
	char dir[INFO_PATH_BYTES];
	int ret;

	memset(card, 0, sizeof(*card));
	if (!d || !d->path || !*d->path) {
		info_set_err(err, errlen, "no device given");
		return -EINVAL;
	}
	if (d->simulated || !strncmp(d->path, "sim:", 4)) {
		card->transport = INFO_TRANSPORT_SIMULATED;
		read_caller_view(card, d);
		return 0;
	}
	ret = locate(d, root, dir, card, err, errlen);
	if (ret)
		return ret < 0 ? ret : 0;
	if (exists(dir, "partition"))
		resolve_partition(card, dir);
	else
		info_copy_str(card->sysfs_dir, sizeof(card->sysfs_dir), dir);
	read_disk(card, root);
	read_named_size(card, d, sysfs_root);
	read_link(card, d, sysfs_root);
	if (!card->has_logical_block_size && d->logical_block_bytes)
		read_caller_view(card, d);
	return 0;
}
