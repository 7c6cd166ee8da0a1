/*
 * hostlink: the host link (identity/hostlink.h) as a record, for the
 * speed tests' output and --info's "link" object.
 */
#ifndef FLASHBENCH_RECORDS_HOSTLINK_H
#define FLASHBENCH_RECORDS_HOSTLINK_H

#include "identity/hostlink.h"
#include "lib/record.h"

/*
 * The link as a result record of kind "link" for the speed tests: the
 * fields of --info's "link" object under "link.", the text line
 * "link: " and the reason.  The record points into link.
 */
void link_record(const struct link_info *link, struct record *rec);

#endif
