/*
 * fuzz-sim: "sim:" device specs.  What opens is read in a few places,
 * then opened for writing, written and discarded a little, flushed, its
 * power cut in the middle of writes and turned on again, and closed.
 */
#include "dev.h"
#include "fuzz.h"
#include "engines/sim.h"

#define IO_BYTES (64u << 10)

static char buf[IO_BYTES];

static void exercise(struct dev *dev, bool write)
{
	uint64_t size = dev->size_bytes, ns;
	uint64_t lbs = dev->logical_block_bytes ? dev->logical_block_bytes
						: 512;
	uint64_t offsets[] = { 0, size / 2, size > IO_BYTES ?
			       size - IO_BYTES : 0, 12345 * lbs };
	struct sim_geometry g;

	sim_geometry(dev, &g);
	for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		uint64_t off = offsets[i] / lbs * lbs;

		dev_read(dev, buf, off, lbs, &ns);
		dev_read(dev, buf, off, IO_BYTES, &ns);
		if (!write)
			continue;
		dev_write(dev, buf, off, IO_BYTES, &ns);
		dev_write(dev, buf, off + lbs, lbs, &ns);
		dev_discard(dev, off, IO_BYTES, &ns);
		if (g.erase_bytes)
			dev_discard(dev, off / g.erase_bytes * g.erase_bytes,
				    g.erase_bytes, &ns);
	}
}

/* A flush, a cut 1 ms of device time ahead, writes into it, power on. */
static void cut(struct dev *dev)
{
	uint64_t ns;

	dev_flush(dev);
	dev_power_cut(dev, 1000000);
	for (int i = 0; i < 4; i++)
		dev_write(dev, buf, 0, IO_BYTES, &ns);
	dev_flush(dev);
	dev_power_on(dev);
	dev_read(dev, buf, 0, IO_BYTES, &ns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec;
	struct dev dev;

	/* pace= sleeps on the wall clock by design: not a hang to find */
	if (size > FUZZ_MAX_INPUT || memmem(data, size, "pace", 4))
		return 0;
	spec = malloc(size + 5);
	if (!spec)
		return 0;
	memcpy(spec, "sim:", 4);
	memcpy(spec + 4, data, size);
	spec[size + 4] = '\0';
	if (dev_open(&dev, spec, DEV_READ_ONLY) == 0) {
		exercise(&dev, false);
		dev_close(&dev);
	}
	if (dev_open(&dev, spec, DEV_READ_WRITE) == 0) {
		dev_allow_writes(&dev, 0, dev.size_bytes);
		exercise(&dev, true);
		if (dev.size_bytes >= IO_BYTES)
			cut(&dev);
		dev_close(&dev);
	}
	free(spec);
	return 0;
}
