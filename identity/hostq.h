/*
 * hostq: whether the host path to a block device queues at all - the
 * block layer's request queue (queue/nr_requests) and, for SD and eMMC,
 * whether the kernel turned the card's command queue on (the card's
 * cmdq_en).  Without them a deeper queue cannot make a card faster, so
 * --class-check says what it found beside its QD32 verdicts.
 */
#ifndef FLASHBENCH_HOSTQ_H
#define FLASHBENCH_HOSTQ_H

#include <stdbool.h>

struct hostq {
	bool known;		/* the device was found in sysfs */
	long nr_requests;	/* -1: not exposed */
	int cmdq;		/* 1 on, 0 off, -1 not exposed (not mmc) */
};

/*
 * Look device (a path such as /dev/mmcblk0p1) up under sysfs_root (NULL
 * is /sys): sysfs_root/block/NAME, or for a partition the disk that
 * holds it.
 */
void hostq_read(const char *device, const char *sysfs_root, struct hostq *q);

#endif
