/*
 * info: the modes that read who a card is and never write - --info (the
 * device's and card's identity from sysfs, or the model's) and
 * --decode-REGISTER=HEX (one register, given as hex).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "identity/inforeg.h"
#include "lib/die.h"
#include "modes/info.h"
#include "modes/run.h"
#include "modes/sinks.h"
#include "records/info.h"

int mode_decode(struct config *cfg)
{
	struct info_register reg;
	char why[256];
	FILE *out;

	/* bad hex is refused before -o is touched */
	if (info_decode_register(cfg->decode_kind, cfg->decode_hex, &reg,
				 why, sizeof(why)))
		usage_error("%s", why);
	out = mode_open_output(cfg);
	if (info_decode(cfg->decode_kind, cfg->decode_hex, cfg->format,
			cfg->command, out, why, sizeof(why)))
		runtime_error("%s", why);
	mode_close_output(cfg, out, 0);
	return 0;
}

/* --info: what the kernel (or the model) knows; never writes. */
int mode_info(struct config *cfg)
{
	struct info_device device = { .path = cfg->device,
				      .debugfs_root = cfg->debugfs_root,
				      .command = cfg->command };
	struct dev dev;
	char why[MESSAGE_BYTES];
	FILE *out;
	int err;

	if (dev_open(&dev, cfg->device, DEV_READ_ONLY) == 0) {
		device.size_bytes = dev.size_bytes;
		device.logical_block_bytes = dev.logical_block_bytes;
		device.simulated = !dev_has(&dev, DEV_CAP_HOST_NODE);
		dev_close(&dev);
	} else if (dev.error.usage) {
		usage_error("%s", dev_strerror(&dev, why, sizeof(why)));
	} else if (!cfg->sysfs_root) {
		/* a recorded sysfs tree names devices this machine lacks */
		runtime_error("%s", dev_strerror(&dev, why, sizeof(why)));
	}
	out = mode_open_output(cfg);
	err = info_show(&device, cfg->sysfs_root, cfg->format, out, why,
			sizeof(why));
	if (!err && cfg->also_json)
		err = info_show(&device, cfg->sysfs_root, RENDER_JSON,
				cfg->also_json, why, sizeof(why));
	if (err && out != stdout)
		fclose(out);
	if (err == -EINVAL)
		usage_error("%s", why);
	if (err)
		runtime_error("%s", why);
	mode_close_output(cfg, out, 0);
	return 0;
}

