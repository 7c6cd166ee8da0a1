/*
 * detect: finds a card's geometry by itself - erase-block and page size
 * from read timing (read-only), and with writes allowed, the open erase
 * blocks, the smallest efficient write and the FAT area - then says what
 * to do with it.  Each measurement is a VM program run by this module.
 */
#ifndef FLASHBENCH_DETECT_H
#define FLASHBENCH_DETECT_H

#include <stdbool.h>
#include <signal.h>

#include "analysis/detected.h"
#include "dev.h"

struct detect_options {
	bool write;			/* also run the write probes */
	uint64_t erase_size;		/* --erasesize, 0: measure it */
	uint64_t budget_ns;		/* device time for the read probes */
	const char *sysfs_root;
	bool verbose;
	/* called with the exact write range before the first write; a
	   non-zero return stops the run before it writes anything */
	int (*announce)(void *ctx, struct dev *dev, uint64_t start,
			uint64_t end);
	void *ctx;
};

/*
 * Everything a write run will touch, for the announcement: [start, end).
 * Returns -EINVAL when erase_size is no multiple of the logical block or
 * too small for the probes' smallest write to be whole blocks, -ENOSPC
 * when the device is too small for the probes.
 */
int detect_write_range(const struct dev *dev, uint64_t erase_size,
		       uint64_t *start, uint64_t *end);

/*
 * The smallest device the read probes measure: every boundary of a 1 MiB
 * alignment they read, where erase blocks of 1 MiB and less show.
 */
uint64_t detect_min_device_bytes(void);

/* The smallest erase size the write probes take with blocks of lbs. */
uint64_t detect_min_erase_bytes(uint32_t lbs);

/*
 * Run the probes on an open device (read-write when options->write) and
 * fill in the findings, which records/detect.c renders.  Returns 0,
 * -EINTR, or a failed
 * operation's negative errno.
 */
int detect_run(struct dev *dev, const struct detect_options *options,
	       volatile sig_atomic_t *stop, struct detect_findings *findings);

#endif
