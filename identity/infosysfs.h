/*
 * infosysfs: a device looked up in sysfs (or a recorded copy of it) and
 * read, once, into a struct info_card.
 */
#ifndef FLASHBENCH_INFOSYSFS_H
#define FLASHBENCH_INFOSYSFS_H

#include <stddef.h>

#include "identity/card.h"

/*
 * Find the device in sysfs_root (NULL means "/sys") and fill card with
 * all that is shown of it: sysfs is read here, once, and not again while
 * printing.  A partition is resolved to its whole disk.  A path that does
 * not exist is looked up by its last component under sysfs_root, so
 * recorded trees work without device nodes.  For SD and eMMC cards the
 * host's debugfs ios (under dev->debugfs_root) is read too, for USB
 * devices the USB link, into card->link.  Every attribute is read
 * through sysattr_read: one that is there but cannot be read (a FIFO, a
 * file larger than any attribute) is unknown, and noted in
 * card->unreadable.  Return 0 or a negative errno with err set.
 */
int info_read_card(const struct info_device *dev, const char *sysfs_root,
		   struct info_card *card, char *err, size_t errlen);

#endif
