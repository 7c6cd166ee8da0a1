/*
 * inforeg: the SD/MMC card registers CID, CSD, SCR and SSR and an eMMC's
 * EXT_CSD decoded into names and numbers, and the manufacturer names.
 */
#ifndef FLASHBENCH_INFOREG_H
#define FLASHBENCH_INFOREG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "identity/card.h"

/* Manufacturer of an SD (mmc false) or eMMC ID; NULL when not known. */
const char *info_manufacturer(uint32_t manfid, bool mmc);

/*
 * Decode one register from hex as sysfs prints it: optional "0x", then
 * 32 (CID, CSD), 16 (SCR) or 128 (SSR) hex digits, most significant
 * first; blanks anywhere are ignored.  Return 0, or -EINVAL with a
 * one-line message in err ("cid: expected 32 hex digits, got 31").
 */
int info_decode_cid(const char *hex, bool mmc, struct info_cid *cid,
		    char *err, size_t errlen);
int info_decode_csd(const char *hex, bool mmc, struct info_csd *csd,
		    char *err, size_t errlen);
int info_decode_scr(const char *hex, struct info_scr *scr,
		    char *err, size_t errlen);
int info_decode_ssr(const char *hex, struct info_ssr *ssr,
		    char *err, size_t errlen);

/*
 * Work out what an eMMC's EXT_CSD attributes mean: the life-time codes of
 * life_time, whether the enhanced area is configured, sizes in bytes.
 * Fills the decoded fields of e from the attributes read into it.
 */
void info_decode_ext_csd(struct info_emmc *e);

/*
 * Decode the register kind ("cid", "csd", "scr" or "ssr") from hex, which
 * for cid and csd may start with "sd:" (the default) or "mmc:" to choose
 * the layout; only the member kind names is filled.  Return 0, or -EINVAL
 * with a message in err.
 */
int info_decode_register(const char *kind, const char *hex,
			 struct info_register *reg, char *err, size_t errlen);

#endif
