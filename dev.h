/*
 * dev: the device layer.  A device is a backend (an ops table: real block
 * devices and files, or the simulated card) plus what every backend shares:
 * its size and logical block size, the byte range a test announced it may
 * write, the accounting of time and bytes, and the last error's context.
 * It times operations; it does not decide what to measure or print.
 */
#ifndef FLASHBENCH_DEV_H
#define FLASHBENCH_DEV_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dev;
struct dev_batch;

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

/* The asynchronous engines, by what they are called in reports. */
enum dev_engine { DEV_ENGINE_PSYNC, DEV_ENGINE_IO_URING, DEV_ENGINE_AIO,
		  DEV_ENGINE_SIM, DEV_ENGINE_COUNT };

/*
 * A backend.  Each I/O operation returns 0 and the time it took in *ns, or
 * a negative errno; a failure never yields a time.  Offsets and lengths
 * reaching a backend are already checked against size and alignment.
 */
/*
 * What a backend is, for callers that must act on it (fio's engine
 * flags): ask dev_has(), never which backend it is.
 */
enum dev_cap {
	/* the path names a file or device node of this host: stat, sysfs
	   and the host queue know it (not so a sim: spec) */
	DEV_CAP_HOST_NODE = 1u << 0,
	/* times are the model's, not the clock's */
	DEV_CAP_MODEL_TIME = 1u << 1,
	/* a read returns what was written (not so a simulated card
	   without fake=, which holds no bytes) */
	DEV_CAP_KEEPS_DATA = 1u << 2,
	/* what was written is still there at the next open (a simulated
	   card is made afresh at each) */
	DEV_CAP_OUTLIVES_CLOSE = 1u << 3,
};

struct dev_ops {
	const char *name;
	unsigned caps;		/* enum dev_cap: every device of this
				   backend; open may add to dev->caps */
	/* spec is the path, or what follows "sim:"; sets size and block size */
	int (*open)(struct dev *dev, const char *spec, enum dev_mode mode);
	int (*read)(struct dev *dev, void *buf, uint64_t offset,
		    uint64_t length, uint64_t *ns);
	int (*write)(struct dev *dev, const void *buf, uint64_t offset,
		     uint64_t length, uint64_t *ns);
	int (*discard)(struct dev *dev, uint64_t offset, uint64_t length,
		       uint64_t *ns);
	void (*close)(struct dev *dev);
	/*
	 * Queue depth above 1 (optional; NULL: dev_batch runs one
	 * operation at a time).  async_setup readies the engine for up to
	 * depth operations in flight (forced: the engine to use, or
	 * DEV_ENGINE_COUNT for the best that works) and sets dev->engine
	 * and dev->depth; batch runs the operations struct dev_batch
	 * describes, already checked, at most dev->depth in flight;
	 * async_buffers (optional) is offered the run's buffers to
	 * register.
	 */
	int (*async_setup)(struct dev *dev, unsigned depth,
			   enum dev_engine forced);
	void (*async_buffers)(struct dev *dev, void *const *bufs,
			      const uint64_t *lengths, unsigned count);
	int (*batch)(struct dev *dev, struct dev_batch *batch);
	/*
	 * Optional, for a backend that keeps stamps (lib/stampblock.h) as
	 * what names them (the simulated card): stamp writes the stamps
	 * of the range's logical blocks, each naming its own offset, with
	 * salt, without buffers - 0, -errno as write, or -EOPNOTSUPP when
	 * it cannot here; verify_stamps says whether every block of the
	 * range reads back as its own stamp of salt: 1, and *ns the read's
	 * time; 0 when it cannot say so (anything else there, an error),
	 * and then nothing was read.  Both take the time the bytes would.
	 */
	int (*stamp)(struct dev *dev, uint64_t offset, uint64_t length,
		     uint64_t salt, uint64_t *ns);
	int (*verify_stamps)(struct dev *dev, uint64_t offset,
			     uint64_t length, uint64_t salt, uint64_t *ns);
	/*
	 * Optional, for a card with a volatile write cache and a power
	 * that can fail (the simulated card).  flush makes what was
	 * written durable as far as the card honours a flush (NULL: the
	 * fd's fsync, or nothing), its time in *ns.  power_cut makes the
	 * power fail once the card's own clock has run after_ns more (0:
	 * at once): the operation in flight then is torn and fails with
	 * -EIO, as does every later one until power_on; what the card
	 * loses or damages is decided at that moment.  power_on: 0, or
	 * -ENODEV when the card does not come back.
	 */
	int (*flush)(struct dev *dev, uint64_t *ns);
	int (*power_cut)(struct dev *dev, uint64_t after_ns);
	int (*power_on)(struct dev *dev);
};

extern const struct dev_ops dev_blockdev_ops;	/* blockdev.c */
extern const struct dev_ops dev_sim_ops;	/* engines/sim/ops.c */

/* What went wrong in the last failed call, for main() to report. */
struct dev_error {
	const char *operation;	/* "read", "write", "discard", "open" */
	uint64_t offset;
	uint64_t length;
	int errnum;		/* errno value; ENODATA for a short transfer */
	uint64_t transferred;	/* bytes moved by a short transfer */
	bool usage;		/* the device spec itself was wrong: exit 2 */
	char message[256];	/* set for open, usage and refusals */
	/*
	 * Whom message names, said by the backend that wrote it, so a
	 * caller names the device once: names_device, it begins with the
	 * device's path (print it as it is); else message + what_at says
	 * what went wrong without naming anything (what_at skips the
	 * backend's own "sim: "), for the caller to put the device's name
	 * before it.
	 */
	bool names_device;
	unsigned char what_at;
};

struct dev_stats {
	uint64_t time_ns;	/* sum of the timed operations */
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint64_t bytes_discarded;
	uint64_t operations;
};

/* The most operations a batch keeps in flight (--iodepth's maximum). */
#define DEV_MAX_DEPTH 256
/*
 * The longest single operation: Linux moves at most 2 GiB - 4 KiB in one
 * read or write, and io_uring's lengths are 32 bits and its results
 * signed (-b and -e are held to it).
 */
#define DEV_MAX_TRANSFER_BYTES (1ULL << 30)
/* An operation of a batch that failed or was never submitted has no time. */
#define DEV_IO_NO_TIME UINT64_MAX

enum dev_io_kind { DEV_IO_READ, DEV_IO_WRITE };

/* One operation of a batch: the caller fills the first three. */
struct dev_io {
	uint64_t offset;
	uint64_t length;
	void *buf;		/* read into, or written from; at depth the
				   operations may share one buffer */
	uint64_t ns;		/* out: submission to completion, or
				   DEV_IO_NO_TIME */
};

/*
 * A batch: count operations of one kind, in order, with up to depth of
 * them in flight.  Submitting stops early once budget_ns have passed
 * since the first submission, or *stop is set; what was submitted is
 * always waited for, so done operations are a prefix of ios.
 */
struct dev_batch {
	enum dev_io_kind kind;
	struct dev_io *ios;
	unsigned count;
	unsigned depth;
	uint64_t budget_ns;
	volatile sig_atomic_t *stop;	/* may be NULL */
	unsigned done;			/* out: operations submitted */
	uint64_t elapsed_ns;		/* out: first submission to last
					   completion: the device time */
	unsigned failed;		/* out: the first failed one's index
					   (when batch returned an error) */
};

struct dev {
	const struct dev_ops *ops;
	const char *path;		/* as the user named it */
	enum dev_mode mode;
	uint64_t size_bytes;
	uint32_t logical_block_bytes;
	unsigned caps;			/* enum dev_cap, from ops and open */
	bool regular_file;		/* an image, not a block device */
	int fd;				/* blockdev backend; -1 otherwise */
	void *backend;			/* backend's private state */
	uint64_t write_start;		/* announced range [start, end) */
	uint64_t write_end;
	struct dev_stats stats;
	struct dev_error error;
	enum dev_engine engine;		/* what dev_batch runs on */
	/* set before dev_async_setup: Linux AIO first, as fio's libaio
	   jobs a test mirrors run (io_uring may hand an operation to a
	   worker thread, which passes it on out of order) */
	bool prefer_aio;
	unsigned depth;			/* in flight at most: 1 unless
					   dev_async_setup said more */
	char engine_note[200];		/* why a faster engine was not
					   used, for stderr; or empty */
	void *async;			/* the engine's state */
};

/*
 * Open path: "sim:..." selects the simulated card, anything else a block
 * device or regular file.  Returns 0 or a negative errno with dev->error
 * filled in (error.usage set for a malformed sim: spec).
 */
int dev_open(struct dev *dev, const char *path, enum dev_mode mode);
void dev_close(struct dev *dev);

/* Whether dev has every capability of caps (enum dev_cap). */
bool dev_has(const struct dev *dev, unsigned caps);

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
/*
 * The stamps of [offset, offset + length) written by the backend itself
 * (dev_ops.stamp): -EOPNOTSUPP when it has no such operation, then the
 * caller fills a buffer and writes it.
 */
int dev_stamp(struct dev *dev, uint64_t offset, uint64_t length,
	      uint64_t salt, uint64_t *ns);
/*
 * Whether the backend can tell that every block of the range holds its
 * own stamp of salt (dev_ops.verify_stamps): true, and the read counted
 * with its time; false when it cannot, and then nothing was read.
 */
bool dev_verify_stamps(struct dev *dev, uint64_t offset, uint64_t length,
		       uint64_t salt, uint64_t *ns);
int dev_discard(struct dev *dev, uint64_t offset, uint64_t length,
		uint64_t *ns);

/*
 * Ready dev for up to depth operations in flight (1..DEV_MAX_DEPTH):
 * sets dev->engine and dev->depth (1 when no engine can queue, with
 * dev->engine_note saying why).  Above depth 1,
 * FLASHBENCH_ENGINE=io_uring|aio|psync forces an engine; a forced one
 * that fails is an error (-errno, with dev->error set; error.usage for
 * an unknown name).  Call after the last dev_open of a run.
 */
int dev_async_setup(struct dev *dev, unsigned depth);

/*
 * Offer the buffers a run's batches will use, so an engine can register
 * them (io_uring fixed buffers, where the memory-lock limit allows).
 * Purely an optimisation: batches work on any buffer.
 */
void dev_async_buffers(struct dev *dev, void *const *bufs,
		       const uint64_t *lengths, unsigned count);

/*
 * Run a batch (see struct dev_batch) at min(batch->depth, dev->depth).
 * Every operation is checked first, writes against the announced range
 * too: a refused one fails the batch before any I/O.  Returns 0 or the
 * first failure's negative errno, with dev->error describing that
 * operation like dev_read's and dev_write's.
 */
int dev_batch(struct dev *dev, struct dev_batch *batch);

/* "io_uring", "aio", "psync", "sim" */
const char *dev_engine_name(enum dev_engine engine);

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

/*
 * Flush what was written through dev to the medium: fsync, which sends a
 * block device a cache flush (O_DIRECT writes only reach the card's
 * volatile cache); the backend's own flush where it has one (the
 * simulated card's volatile=).  A no-op for a device opened read-only.
 * 0, or a negative errno with dev->error set.
 */
int dev_flush(struct dev *dev);

/*
 * Cut the card's power once its clock has run after_ns more (0: now),
 * and power it on again (dev_ops.power_cut, power_on): -EOPNOTSUPP for
 * a backend whose power this tool cannot cut (a real card: the user or
 * a --cut-command does).  dev_power_on: -ENODEV when the card is gone.
 */
int dev_power_cut(struct dev *dev, uint64_t after_ns);
int dev_power_on(struct dev *dev);

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
