/*
 * advice: a geometry into partition and mkfs advice - the partition start
 * where erase blocks meet the 1 MiB grid, ext4's stride, f2fs's sections
 * and logs, vfat's clusters - each with its reason.  Text only from the
 * sizes it is given.
 */
#include <stdio.h>

#include "analysis/advice.h"
#include "lib/units.h"

size_t analysis_recommend(uint64_t erase, uint64_t page,
			  unsigned open_linear,
			  char lines[][ANALYSIS_ADVICE_BYTES], size_t max)
{
	char e_text[UNITS_BUF], start_text[UNITS_BUF];
	const size_t line = sizeof(*lines);
	uint64_t start, cluster;
	size_t n = 0;

	if (!erase || max < 5)
		return 0;
	/* lcm with the 1 MiB grid */
	start = erase / units_gcd(erase, MIB) * MIB;
	units_format_exact_size(e_text, erase);
	units_format_exact_size(start_text, start);
	snprintf(lines[n++], line, "partition start: sector %llu (%s): "
		 "sfdisk 'start=%llu', parted 'mkpart primary %s 100%%' - "
		 "erase blocks of %s and the 1MiB grid line up there",
		 (unsigned long long)(start / 512), start_text,
		 (unsigned long long)(start / 512), start_text, e_text);
	snprintf(lines[n++], line, "ext4: mkfs.ext4 -b 4096 -E stride=%llu,"
		 "stripe_width=%llu - allocations sized and placed by page "
		 "and erase block",
		 (unsigned long long)(page > 4096 ? page / 4096 : 1),
		 (unsigned long long)(erase / 4096 ? erase / 4096 : 1));
	snprintf(lines[n++], line, "f2fs: mkfs.f2fs -s %llu -z 1 - a section "
		 "of %llu 2MiB segments is a whole number of erase blocks",
		 (unsigned long long)(erase / units_gcd(erase, 2 * MIB)),
		 (unsigned long long)(erase / units_gcd(erase, 2 * MIB)));
	if (open_linear && open_linear < 6)
		snprintf(lines[n++], line, "f2fs: mount -o active_logs=%u - "
			 "the card keeps only %u erase blocks open",
			 open_linear >= 4 ? 4 : 2, open_linear);
	cluster = page > 16384 ? page : 16384;
	if (cluster > 65536)
		cluster = 65536;
	snprintf(lines[n++], line, "vfat: mkfs.vfat -s %llu (clusters of %s), "
		 "never -a; raise -R so the data area starts on a %s "
		 "boundary", (unsigned long long)(cluster / 512),
		 units_format_exact_size(start_text, cluster), e_text);
	return n;
}
