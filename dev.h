/*
 * dev: the device layer.  A device is a backend (an ops table: real block
 * devices and files, or the simulated card) plus what every backend shares:
 * its size and logical block size, the byte range a test announced it may
 * write, the accounting of time and bytes, and the last error's context.
 * It times operations; it does not decide what to measure or print.
 */
#ifndef FLASHBENCH_DEV_H
#define FLASHBENCH_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dev;

enum dev_mode {
	DEV_READ_ONLY,		/* O_RDONLY: works on write-protected media */
	DEV_READ_WRITE,		/* O_RDWR|O_EXCL: refused while mounted */
};

enum dev_pattern {
	DEV_PATTERN_ZEROS,	/* every byte 0x00 */
	DEV_PATTERN_ONES,	/* every byte 0xff, what erased NAND reads as */
	DEV_PATTERN_RANDOM,	/* pseudo-random bytes, never compressible */
	DEV_PATTERN_COUNT
};

/*
 * A backend.  Each I/O operation returns 0 and the time it took in *ns, or
 * a negative errno; a failure never yields a time.  Offsets and lengths
 * reaching a backend are already checked against size and alignment.
 */
struct dev_ops {
	const char *name;
	/* spec is the path, or what follows "sim:"; sets size and block size */
	int (*open)(struct dev *dev, const char *spec, enum dev_mode mode);
	int (*read)(struct dev *dev, void *buf, uint64_t offset,
		    uint64_t length, uint64_t *ns);
	int (*write)(struct dev *dev, const void *buf, uint64_t offset,
		     uint64_t length, uint64_t *ns);
	int (*discard)(struct dev *dev, uint64_t offset, uint64_t length,
		       uint64_t *ns);
	void (*close)(struct dev *dev);
};

extern const struct dev_ops dev_blockdev_ops;	/* blockdev.c */
extern const struct dev_ops dev_sim_ops;	/* sim.c */

/* What went wrong in the last failed call, for main() to report. */
struct dev_error {
	const char *operation;	/* "read", "write", "discard", "open" */
	uint64_t offset;
	uint64_t length;
	int errnum;		/* errno value; ENODATA for a short transfer */
	uint64_t transferred;	/* bytes moved by a short transfer */
	bool usage;		/* the device spec itself was wrong: exit 2 */
	char message[256];	/* set for open, usage and refusals */
};

struct dev_stats {
	uint64_t time_ns;	/* sum of the timed operations */
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint64_t bytes_discarded;
	uint64_t operations;
};

struct dev {
	const struct dev_ops *ops;
	const char *path;		/* as the user named it */
	enum dev_mode mode;
	uint64_t size_bytes;
	uint32_t logical_block_bytes;
	bool simulated;
	int fd;				/* blockdev backend; -1 otherwise */
	void *backend;			/* backend's private state */
	uint64_t write_start;		/* announced range [start, end) */
	uint64_t write_end;
	struct dev_stats stats;
	struct dev_error error;
};

/*
 * Open path: "sim:..." selects the simulated card, anything else a block
 * device or regular file.  Returns 0 or a negative errno with dev->error
 * filled in (error.usage set for a malformed sim: spec).
 */
int dev_open(struct dev *dev, const char *path, enum dev_mode mode);
void dev_close(struct dev *dev);

/*
 * Allow writes and discards in [start, end) only.  Every write outside the
 * announced range is refused with -EPERM before it reaches the backend: the
 * last line of defence for the user's data.
 */
void dev_allow_writes(struct dev *dev, uint64_t start, uint64_t end);

int dev_read(struct dev *dev, void *buf, uint64_t offset, uint64_t length,
	     uint64_t *ns);
int dev_write(struct dev *dev, const void *buf, uint64_t offset,
	      uint64_t length, uint64_t *ns);
int dev_discard(struct dev *dev, uint64_t offset, uint64_t length,
		uint64_t *ns);

/* How erase(1) clears a range. */
enum dev_erase_kind {
	DEV_ERASE_DISCARD,	/* BLKDISCARD: TRIM / SD erase */
	DEV_ERASE_SECURE,	/* BLKSECDISCARD: secure erase */
	DEV_ERASE_ZERO,		/* BLKZEROOUT: reads back as zeros */
};

/*
 * Erase a range the way kind says; checked like a write.  The simulated
 * card treats all three as a discard.
 */
int dev_erase(struct dev *dev, enum dev_erase_kind kind, uint64_t offset,
	      uint64_t length, uint64_t *ns);

/* Check offset and length: aligned to the logical block, inside the device. */
int dev_check_range(const struct dev *dev, uint64_t offset, uint64_t length);

/*
 * Aligned buffer for direct I/O, filled with a pattern; free with free().
 * NULL also when length does not fit in memory's address space.
 */
void *dev_alloc_buffer(uint64_t length, enum dev_pattern pattern);
void dev_fill_pattern(void *buf, size_t length, enum dev_pattern pattern);

/* Monotonic nanoseconds, for backends and for wall-clock budgets. */
uint64_t dev_now_ns(void);

/* Describe dev->error as "read at 4096 (+512): Input/output error". */
const char *dev_strerror(const struct dev *dev, char *buf, size_t size);

#endif
