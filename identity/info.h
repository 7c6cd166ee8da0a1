/*
 * info: who a device is.  A struct info_card (identity/card.h) is read by
 * identity/infosysfs.c and decoded by identity/inforeg.c; records/info.c
 * makes it records.  Nothing here does I/O on the device or measures:
 * what a card declares is a claim that only a benchmark can confirm.
 */
#ifndef FLASHBENCH_INFO_H
#define FLASHBENCH_INFO_H

#include "identity/card.h"

/* Machine name ("sd", "emmc", "usb"...) and human label of a transport. */
const char *info_transport_name(enum info_transport transport);
const char *info_transport_label(enum info_transport transport);

#endif
