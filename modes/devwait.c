/*
 * devwait: the wait for a device that went away, and the test that it
 * is back (see devwait.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "modes/devwait.h"
#include "output/progress.h"

/* How often a waiting run looks again: a person's pace, not a busy loop. */
#define WAIT_STEP_NS 100000000L

int mode_open_answering(struct dev *dev, const char *node,
			enum dev_mode mode)
{
	uint64_t ns;
	void *buf;
	int err = dev_open(dev, node, mode);

	if (err)
		return err;
	buf = dev_alloc_buffer(dev->logical_block_bytes, DEV_PATTERN_ZEROS);
	err = !buf ? -ENOMEM : dev->size_bytes == 0 ? -ENOMEDIUM :
	      dev_read(dev, buf, 0, dev->logical_block_bytes, &ns);
	free(buf);
	if (err)
		dev_close(dev);
	return err;
}

int mode_wait_until(const struct config *cfg, const char *test,
		    const char *what, bool (*found)(void *ctx), void *ctx,
		    uint64_t deadline_ns)
{
	const struct timespec step = { 0, WAIT_STEP_NS };
	struct progress progress;
	int err = 0;

	progress_start(&progress, stderr, test,
		       !cfg->quiet && cfg->format == RENDER_TEXT);
	while (!found(ctx)) {
		if (*cfg->stop) {
			err = -EINTR;
			break;
		}
		if (deadline_ns && dev_now_ns() > deadline_ns) {
			err = -ETIMEDOUT;
			break;
		}
		progress_wait(&progress, what);
		nanosleep(&step, NULL);	/* a signal ends it early */
	}
	progress_end(&progress);
	return err;
}
