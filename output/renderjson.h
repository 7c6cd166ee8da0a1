/*
 * renderjson: the renderer's JSON format, and the "device" member every
 * JSON document of flashbench's carries.
 */
#ifndef FLASHBENCH_RENDERJSON_H
#define FLASHBENCH_RENDERJSON_H

#include <stdbool.h>
#include <stdio.h>

#include "output/render.h"
#include "output/renderstate.h"

/*
 * The JSON document's "device" member for meta's device: path, size,
 * logical block, identity and name; null when the run read no device.
 */
void render_json_device(FILE *out, const struct render_meta *meta);

/* The formatter's steps: the header, one record, the end. */
void render_json_begin(struct render *report);
void render_json_record(struct render *report, const struct record *rec);
void render_json_end(struct render *report, const struct dev_stats *stats,
		     bool incomplete);

#endif
