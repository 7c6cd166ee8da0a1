/*
 * interval: the interval test's regression, as records.  A read of n
 * bytes takes access + n / rate; the fastest read of each size is the
 * one the card's own cost shows best in.
 */
#include "analysis/interval.h"
#include "analysis/fit.h"
#include "vm/layout.h"

/* "19.6 MB/s, 418µs access time", then "4096 bytes: 87µs overhead" */
static const struct text_look regression_looks[] = {
	{ .display = TEXT_MBPS, .template = "% MB/s," },
	{ .display = TEXT_AS_UNIT, .template = "% access time" },
};
static const struct text_layout regression_layout = {
	.style = TEXT_SPACES, .looks = regression_looks, .look_count = 2 };
static const struct text_look overhead_looks[] = {
	{ .display = TEXT_AS_UNIT, .template = "% bytes:" },
	{ .display = TEXT_AS_UNIT, .template = "% overhead" },
};
static const struct text_layout overhead_layout = {
	.style = TEXT_SPACES, .looks = overhead_looks, .look_count = 2 };

void interval_add(struct interval_points *points,
		  const struct record *record)
{
	if (points->count < INTERVAL_MAX_POINTS && record->count >= 2) {
		points->length_bytes[points->count] = record->fields[0].value;
		points->fastest_ns[points->count++] = record->fields[1].value;
	}
}

int interval_summary(const struct interval_points *points,
		     const struct record_sink *sink)
{
	double slope, intercept;
	struct record rec = { .layout = &regression_layout, .count = 2 };
	int err;

	if (analysis_interval_fit(points->length_bytes, points->fastest_ns,
				  points->count, &slope, &intercept))
		return 0;
	rec.kind = "regression";
	rec.fields[0] = (struct record_field){ RECORD_RATE, "bytes_per_s", NULL,
					   NULL, slope > 0 ? 1e9 / slope : 0 };
	rec.fields[1] = (struct record_field){ RECORD_TIME, "access_ns", NULL,
					   NULL, intercept };
	err = record_emit(sink, &rec);
	rec.kind = "overhead";
	rec.layout = &overhead_layout;
	for (size_t i = 0; !err && i < points->count; i++) {
		rec.fields[0] = (struct record_field){ RECORD_BYTES, "length_bytes",
			NULL, NULL, points->length_bytes[i] };
		rec.fields[1] = (struct record_field){ RECORD_TIME, "overhead_ns",
			NULL, NULL, points->fastest_ns[i] -
			slope * points->length_bytes[i] };
		err = record_emit(sink, &rec);
	}
	return err;
}
