/*
 * info: the names of a device's transports, for people and for machines
 * (identity/card.h's enum info_transport).  Its records are built in
 * records/info.c.
 */
#include <stddef.h>

#include "identity/info.h"

/* ---- names of transports ---- */

static const struct {
	const char *name;
	const char *label;
} transports[] = {
	[INFO_TRANSPORT_UNKNOWN] = { NULL, "unknown" },
	[INFO_TRANSPORT_SD] = { "sd", "SD card (MMC host)" },
	[INFO_TRANSPORT_EMMC] = { "emmc", "eMMC/MMC (MMC host)" },
	[INFO_TRANSPORT_MMC] = { "mmc", "MMC bus" },
	[INFO_TRANSPORT_USB] = { "usb", "USB" },
	[INFO_TRANSPORT_NVME] = { "nvme", "NVMe" },
	[INFO_TRANSPORT_ATA] = { "ata", "ATA" },
	[INFO_TRANSPORT_SCSI] = { "scsi", "SCSI" },
	[INFO_TRANSPORT_VIRTIO] = { "virtio", "virtio" },
	[INFO_TRANSPORT_LOOP] = { "loop", "loop device" },
	[INFO_TRANSPORT_DM] = { "dm", "device mapper" },
	[INFO_TRANSPORT_MD] = { "md", "software RAID (md)" },
	[INFO_TRANSPORT_FILE] = { "file", "regular file" },
	[INFO_TRANSPORT_SIMULATED] = { "simulated", "simulated card" },
};
_Static_assert(sizeof(transports) / sizeof(transports[0]) ==
	       INFO_TRANSPORT_COUNT, "one row per transport");

const char *info_transport_name(enum info_transport transport)
{
	if ((unsigned)transport >= INFO_TRANSPORT_COUNT)
		return NULL;
	return transports[transport].name;
}

const char *info_transport_label(enum info_transport transport)
{
	if ((unsigned)transport >= INFO_TRANSPORT_COUNT)
		return "unknown";
	return transports[transport].label;
}
