/*
 * info: who a device is, shown.  A struct info_card (identity/card.h),
 * read by identity/infosysfs.c and decoded by identity/inforeg.c, is
 * made records here for output/ to render: text, CSV or JSON.  It does
 * no I/O on the device and measures nothing: what a card declares here
 * is a claim that only a benchmark can confirm.
 */
#ifndef FLASHBENCH_RECORDS_INFO_H
#define FLASHBENCH_RECORDS_INFO_H

#include <stddef.h>
#include <stdio.h>

#include "identity/card.h"
#include "identity/info.h"
#include "output/render.h"

/*
 * Print a card that info_read_card filled for dev, as records in format
 * (device, card, link, cid, csd, scr, ssr, emmc, then one unreadable
 * record for each attribute that could not be read); nothing is read from
 * sysfs here.  Return 0, or -EIO with
 * err set when the output cannot be written.
 */
int info_print(const struct info_device *dev, const struct info_card *card,
	       enum render_format format, FILE *out, char *err, size_t errlen);

/* info_read_card, then info_print. */
int info_show(const struct info_device *dev, const char *sysfs_root,
	      enum render_format format, FILE *out, char *err, size_t errlen);

/*
 * Decode one register as info_decode_register does, and print it;
 * command (or NULL) is the command line JSON names.
 * Return 0, or -EINVAL with a message in err.
 */
int info_decode(const char *kind, const char *hex,
		enum render_format format, const char *command, FILE *out,
		char *err, size_t errlen);

#endif
