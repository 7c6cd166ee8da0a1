/*
 * speed: sequential read and write rates, random 4 KiB IOPS at queue depth
 * 1, and the SD speed-class table.  All durations are device time, so sim:
 * cards behave like real ones.  It measures and prints; it does not open
 * devices, parse options or choose which ranges may be written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lfsr.h"
#include "speed.h"
#include "units.h"

#define MB 1e6
#define MIB_F 1048576.0

/* --- helpers ---------------------------------------------------------- */

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double rate_of(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e9 / (double)ns : 0;
}

static bool stopped(volatile sig_atomic_t *stop)
{
	return stop && *stop;
}

/* Nearest-rank percentile of n sorted samples, pct in (0, 100]. */
/*
 * Latencies go into a histogram, not an array: fixed memory whatever the
 * duration, nothing allocated or sorted while measuring.  Below 64 ns
 * every value has its bucket; above, each power of two has 64, so a
 * percentile is within 1.6% (the maximum is kept exactly).
 */
#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

static unsigned hist_bucket(uint64_t ns)
{
	unsigned top;

	if (ns < HIST_SUB)
		return (unsigned)ns;
	top = 63u - (unsigned)__builtin_clzll(ns);
	return (top - HIST_SUB_BITS + 1) * HIST_SUB +
	       (unsigned)((ns >> (top - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* The smallest value a bucket holds. */
static uint64_t hist_value(unsigned bucket)
{
	unsigned top;

	if (bucket < HIST_SUB)
		return bucket;
	top = bucket / HIST_SUB + HIST_SUB_BITS - 1;
	return (uint64_t)(HIST_SUB + bucket % HIST_SUB) <<
	       (top - HIST_SUB_BITS);
}

static uint64_t hist_percentile(const uint64_t *counts, uint64_t n,
				unsigned pct)
{
	uint64_t rank = (n * pct + 99) / 100, seen = 0;

	for (unsigned i = 0; n && i < HIST_BUCKETS; i++) {
		seen += counts[i];
		if (seen >= (rank ? rank : 1))
			return hist_value(i);
	}
	return 0;
}

/* --- sequential rates ------------------------------------------------- */

static void summarise_windows(struct speed_rate *r)
{
	double *sorted;
	size_t n = r->window_count;

	if (!n)
		return;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		r->window_min = r->window_median = r->window_max =
			r->bytes_per_s;
		return;
	}
	memcpy(sorted, r->windows, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_double);
	r->window_min = sorted[0];
	r->window_max = sorted[n - 1];
	r->window_median = n % 2 ? sorted[n / 2] :
			   (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
}

/*
 * Reading past an unreadable block: remember the first failure, count
 * them, and give up when nothing but failures come back.
 */
static bool skip_unreadable(const struct dev *dev, struct speed_rate *r)
{
	if (r->failed_reads++ == 0)
		r->first_failure = dev->error;
	return ++r->consecutive_failures <= SPEED_MAX_SKIPPED_IN_A_ROW;
}

int speed_measure_rate(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		       uint64_t block_bytes, bool write, uint64_t duration_ns,
		       volatile sig_atomic_t *stop, struct speed_rate *r)
{
	uint64_t end, pos, win_ns = 0, win_bytes = 0, ns;
	size_t max_windows;
	void *buf;
	int err = 0;

	*r = (struct speed_rate){ .write = write, .block_bytes = block_bytes };
	end = span_bytes ? offset + span_bytes : dev->size_bytes;
	if (!block_bytes || offset >= dev->size_bytes ||
	    end > dev->size_bytes || block_bytes > end - offset)
		return -EINVAL;
	max_windows = duration_ns / SPEED_WINDOW_NS + 2;
	r->windows = calloc(max_windows, sizeof(*r->windows));
	buf = dev_alloc_buffer(block_bytes, write ? DEV_PATTERN_RANDOM :
			       DEV_PATTERN_ZEROS);
	if (!r->windows || !buf) {
		free(buf);
		speed_rate_free(r);
		return -ENOMEM;
	}
	pos = offset;
	while (r->device_time_ns < duration_ns) {
		if (stopped(stop)) {
			err = -EINTR;
			break;
		}
		if (block_bytes > end - pos)
			pos = offset;
		err = write ? dev_write(dev, buf, pos, block_bytes, &ns) :
			      dev_read(dev, buf, pos, block_bytes, &ns);
		if (err == -EIO && !write && skip_unreadable(dev, r)) {
			/* a bad area: counted, never timed */
			pos += block_bytes;
			err = 0;
			continue;
		}
		if (err)
			break;
		r->consecutive_failures = 0;
		pos += block_bytes;
		r->device_time_ns += ns;
		r->bytes += block_bytes;
		r->operations++;
		win_ns += ns;
		win_bytes += block_bytes;
		if (win_ns >= SPEED_WINDOW_NS &&
		    r->window_count < max_windows) {
			r->windows[r->window_count++] =
				rate_of(win_bytes, win_ns);
			win_ns = win_bytes = 0;
		}
	}
	free(buf);
	/* a final partial window counts when it is at least half a second,
	 * or when it is all there is */
	if (win_ns && r->window_count < max_windows &&
	    (win_ns >= SPEED_WINDOW_NS / 2 || !r->window_count))
		r->windows[r->window_count++] = rate_of(win_bytes, win_ns);
	r->bytes_per_s = rate_of(r->bytes, r->device_time_ns);
	summarise_windows(r);
	return err;
}

void speed_rate_free(struct speed_rate *r)
{
	free(r->windows);
	r->windows = NULL;
	r->window_count = 0;
}

/* --- random I/O ------------------------------------------------------- */

int speed_measure_iops(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		       bool write, uint64_t duration_ns,
		       volatile sig_atomic_t *stop,
		       struct speed_iops_result *r)
{
	struct lfsr_shuffle shuffle;
	uint64_t slots, *lat, ns;
	uint32_t done = 0;
	void *buf;
	int err = 0;

	*r = (struct speed_iops_result){ .write = write };
	slots = span_bytes / SPEED_IO_BYTES;
	if (!slots || offset > dev->size_bytes ||
	    span_bytes > dev->size_bytes - offset)
		return -EINVAL;
	if (slots > LFSR_MAX_SLOTS)
		slots = LFSR_MAX_SLOTS;
	/* zeroed now, so no page is first touched while timing */
	lat = calloc(HIST_BUCKETS, sizeof(*lat));
	if (lat)
		memset(lat, 0, HIST_BUCKETS * sizeof(*lat));
	buf = dev_alloc_buffer(SPEED_IO_BYTES, write ? DEV_PATTERN_RANDOM :
			       DEV_PATTERN_ZEROS);
	if (!lat || !buf) {
		free(lat);
		free(buf);
		return -ENOMEM;
	}
	lfsr_shuffle_init(&shuffle, (uint32_t)slots);
	while (r->device_time_ns < duration_ns) {
		uint64_t pos;

		if (stopped(stop)) {
			err = -EINTR;
			break;
		}
		if (done == slots) {
			lfsr_shuffle_init(&shuffle, (uint32_t)slots);
			done = 0;
		}
		pos = offset + (uint64_t)lfsr_shuffle_next(&shuffle) *
			       SPEED_IO_BYTES;
		done++;
		err = write ? dev_write(dev, buf, pos, SPEED_IO_BYTES, &ns) :
			      dev_read(dev, buf, pos, SPEED_IO_BYTES, &ns);
		if (err)
			break;
		lat[hist_bucket(ns)]++;
		if (ns > r->max_ns)
			r->max_ns = ns;
		r->operations++;
		r->device_time_ns += ns;
	}
	free(buf);
	r->p50_ns = hist_percentile(lat, r->operations, 50);
	r->p99_ns = hist_percentile(lat, r->operations, 99);
	r->iops = r->device_time_ns ?
		  (double)r->operations * 1e9 / (double)r->device_time_ns : 0;
	free(lat);
	return err;
}

int speed_write_range(const struct dev *dev, uint64_t erase_bytes,
		      uint64_t span_bytes, uint64_t *start, uint64_t *end)
{
	uint64_t from, room;

	if (!erase_bytes)
		return -EINVAL;
	from = (SPEED_WRITE_FROM_BYTES + erase_bytes - 1) / erase_bytes *
	       erase_bytes;
	if (!span_bytes)
		span_bytes = SPEED_WRITE_SPAN_BYTES;
	if (from >= dev->size_bytes)
		return -ENOSPC;
	room = dev->size_bytes - from;
	if (span_bytes > room)
		span_bytes = room;
	span_bytes -= span_bytes % erase_bytes;
	if (!span_bytes)
		return -ENOSPC;
	*start = from;
	*end = from + span_bytes;
	return 0;
}

/* --- printing --------------------------------------------------------- */

static void print_rate_text(FILE *out, const struct speed_rate *r)
{
	fprintf(out, "%s %llu-byte blocks for %.2f s: %.1f MB/s "
		"(%.1f MiB/s); per second: min %.1f, median %.1f, "
		"max %.1f MB/s\n", r->write ? "write" : "read",
		(unsigned long long)r->block_bytes,
		(double)r->device_time_ns / 1e9, r->bytes_per_s / MB,
		r->bytes_per_s / MIB_F, r->window_min / MB,
		r->window_median / MB, r->window_max / MB);
	if (r->failed_reads) {
		struct dev failed = { .error = r->first_failure };
		char why[320];

		fprintf(out, "skipped %llu unreadable block%s (first: %s)\n",
			(unsigned long long)r->failed_reads,
			r->failed_reads == 1 ? "" : "s",
			dev_strerror(&failed, why, sizeof(why)));
	}
}

static void print_rate_json(FILE *out, const struct speed_rate *r,
			    bool interrupted)
{
	fprintf(out, "{\"test\": \"%s-speed\", \"block_bytes\": %llu, "
		"\"device_time_ns\": %llu, \"bytes_read\": %llu, "
		"\"bytes_written\": %llu, \"bytes_per_s\": %.0f, "
		"\"mb_per_s\": %.3f, \"mib_per_s\": %.3f, \"windows\": [",
		r->write ? "write" : "read",
		(unsigned long long)r->block_bytes,
		(unsigned long long)r->device_time_ns,
		(unsigned long long)(r->write ? 0 : r->bytes),
		(unsigned long long)(r->write ? r->bytes : 0),
		r->bytes_per_s, r->bytes_per_s / MB, r->bytes_per_s / MIB_F);
	for (size_t i = 0; i < r->window_count; i++)
		fprintf(out, "%s%.0f", i ? ", " : "", r->windows[i]);
	fprintf(out, "], \"window_min\": %.0f, \"window_median\": %.0f, "
		"\"window_max\": %.0f, \"failed_reads\": %llu, "
		"\"interrupted\": %s}\n",
		r->window_min, r->window_median, r->window_max,
		(unsigned long long)r->failed_reads,
		interrupted ? "true" : "false");
}

static int run_rate(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		    uint64_t block_bytes, bool write, uint64_t duration_ns,
		    volatile sig_atomic_t *stop, FILE *out, bool json)
{
	struct speed_rate r;
	int err;

	err = speed_measure_rate(dev, offset, span_bytes, block_bytes, write,
				 duration_ns, stop, &r);
	if (err && err != -EINTR)
		goto done;
	if (json)
		print_rate_json(out, &r, err == -EINTR);
	else
		print_rate_text(out, &r);
done:
	speed_rate_free(&r);
	return err;
}

int speed_read(struct dev *dev, uint64_t offset, uint64_t block_bytes,
	       uint64_t duration_ns, volatile sig_atomic_t *stop, FILE *out,
	       bool json)
{
	return run_rate(dev, offset, 0, block_bytes, false, duration_ns, stop,
			out, json);
}

int speed_write(struct dev *dev, uint64_t offset, uint64_t span_bytes,
		uint64_t erase_bytes, uint64_t duration_ns,
		volatile sig_atomic_t *stop, FILE *out, bool json)
{
	if (!span_bytes)
		return -EINVAL;
	return run_rate(dev, offset, span_bytes, erase_bytes, true,
			duration_ns, stop, out, json);
}

static void print_iops_text(FILE *out, const struct speed_iops_result *r)
{
	char p50[UNITS_BUF], p99[UNITS_BUF], max[UNITS_BUF];

	fprintf(out, "random %u-byte %s for %.2f s: %.0f IOPS; latency "
		"p50 %s, p99 %s, max %s\n", SPEED_IO_BYTES,
		r->write ? "writes" : "reads",
		(double)r->device_time_ns / 1e9, r->iops,
		units_format_time(p50, (double)r->p50_ns),
		units_format_time(p99, (double)r->p99_ns),
		units_format_time(max, (double)r->max_ns));
}

static void print_iops_members(FILE *out, const struct speed_iops_result *r)
{
	fprintf(out, "\"operations\": %llu, \"device_time_ns\": %llu, "
		"\"iops\": %.1f, \"latency_ns\": {\"p50\": %llu, "
		"\"p99\": %llu, \"max\": %llu}",
		(unsigned long long)r->operations,
		(unsigned long long)r->device_time_ns, r->iops,
		(unsigned long long)r->p50_ns, (unsigned long long)r->p99_ns,
		(unsigned long long)r->max_ns);
}

int speed_iops(struct dev *dev, uint64_t offset, uint64_t span_bytes,
	       uint64_t duration_ns, bool write, volatile sig_atomic_t *stop,
	       FILE *out, bool json)
{
	struct speed_iops_result rd, wr = { .write = true };
	int err;

	err = speed_measure_iops(dev, offset, span_bytes, false, duration_ns,
				 stop, &rd);
	if (err && err != -EINTR)
		return err;
	if (!err && write) {
		err = speed_measure_iops(dev, offset, span_bytes, true,
					 duration_ns, stop, &wr);
		if (err && err != -EINTR)
			return err;
	}
	if (!json) {
		print_iops_text(out, &rd);
		if (write && wr.operations)
			print_iops_text(out, &wr);
		return err;
	}
	/* reads at the top level; writes, when measured, in "write" */
	fprintf(out, "{\"test\": \"iops\", \"block_bytes\": %u, "
		"\"queue_depth\": 1, \"span_bytes\": %llu, ", SPEED_IO_BYTES,
		(unsigned long long)span_bytes);
	print_iops_members(out, &rd);
	fprintf(out, ", \"write\": ");
	if (write && wr.operations) {
		fprintf(out, "{");
		print_iops_members(out, &wr);
		fprintf(out, "}");
	} else {
		fprintf(out, "null");
	}
	fprintf(out, ", \"bytes_read\": %llu, \"bytes_written\": %llu, "
		"\"interrupted\": %s}\n",
		(unsigned long long)(rd.operations * SPEED_IO_BYTES),
		(unsigned long long)(wr.operations * SPEED_IO_BYTES),
		err == -EINTR ? "true" : "false");
	return err;
}

/* --- the class table -------------------------------------------------- */

enum speed_family { FAMILY_C, FAMILY_U, FAMILY_V, FAMILY_A };

struct speed_class {
	const char *name;
	enum speed_family family;
	unsigned level;			/* as the SSR codes it */
	double write_mb;		/* sustained sequential write, MB/s */
	double read_iops;		/* 0: no requirement */
	double write_iops;
};

static const struct speed_class classes[] = {
	{ "C2", FAMILY_C, 2, 2, 0, 0 },
	{ "C4", FAMILY_C, 4, 4, 0, 0 },
	{ "C6", FAMILY_C, 6, 6, 0, 0 },
	{ "C10", FAMILY_C, 10, 10, 0, 0 },
	{ "U1", FAMILY_U, 1, 10, 0, 0 },
	{ "U3", FAMILY_U, 3, 30, 0, 0 },
	{ "V6", FAMILY_V, 6, 6, 0, 0 },
	{ "V10", FAMILY_V, 10, 10, 0, 0 },
	{ "V30", FAMILY_V, 30, 30, 0, 0 },
	{ "V60", FAMILY_V, 60, 60, 0, 0 },
	{ "V90", FAMILY_V, 90, 90, 0, 0 },
	{ "A1", FAMILY_A, 1, 10, 1500, 500 },
	{ "A2", FAMILY_A, 2, 10, 4000, 2000 },
};

#define CLASS_COUNT (sizeof(classes) / sizeof(classes[0]))

static const struct speed_class *find_class(const char *name)
{
	for (size_t i = 0; i < CLASS_COUNT; i++)
		if (strcmp(classes[i].name, name) == 0)
			return &classes[i];
	return NULL;
}

const char *speed_class_name(size_t i)
{
	return i < CLASS_COUNT ? classes[i].name : NULL;
}

/* Fold one requirement into the verdict so far. */
static void judge(bool needed, bool measured, double value, double min,
		  bool *fail, bool *missing)
{
	if (!needed)
		return;
	if (!measured)
		*missing = true;
	else if (value < min)
		*fail = true;
}

static enum speed_verdict verdict_of(const struct speed_class *c,
				     const struct speed_measured *m)
{
	bool fail = false, missing = false;

	judge(true, m->has_write_rate, m->write_bytes_per_s,
	      c->write_mb * MB, &fail, &missing);
	judge(c->read_iops > 0, m->has_read_iops, m->read_iops,
	      c->read_iops, &fail, &missing);
	judge(c->write_iops > 0, m->has_write_iops, m->write_iops,
	      c->write_iops, &fail, &missing);
	if (fail)
		return SPEED_FAIL;
	return missing ? SPEED_NOT_MEASURED : SPEED_PASS;
}

enum speed_verdict speed_class_verdict(const char *name,
				       const struct speed_measured *m)
{
	const struct speed_class *c = find_class(name);

	return c ? verdict_of(c, m) : SPEED_NOT_MEASURED;
}

static bool claimed(const struct speed_class *c, const struct info_card *card)
{
	unsigned have;

	if (!card || !card->has_speed)
		return false;
	switch (c->family) {
	case FAMILY_C: have = card->speed_class; break;
	case FAMILY_U: have = card->uhs_grade; break;
	case FAMILY_V: have = card->video_class; break;
	default: have = card->app_class; break;
	}
	return have >= c->level;
}

bool speed_class_claimed(const char *name, const struct info_card *card)
{
	const struct speed_class *c = find_class(name);

	return c && claimed(c, card);
}

static const char *const verdict_text[] = {
	[SPEED_NOT_MEASURED] = "not measured",
	[SPEED_PASS] = "pass",
	[SPEED_FAIL] = "FAIL",
};

static const char host_limits[] =
	"a host cannot reproduce the rating conditions: the kernel picks "
	"the bus timing, not the spec's fixed measurement clocks; there is no "
	"CMD20 (speed class control) from the block layer; the "
	"fragmented-AU Pm method is not run; A2 needs the card's command "
	"queue and cache, which the kernel may not enable, so an A2 card "
	"can measure like A1";

static void required_text(const struct speed_class *c, char *buf,
			  size_t size)
{
	if (c->read_iops > 0)
		snprintf(buf, size, "r %.0f w %.0f IOPS, %.0f MB/s",
			 c->read_iops, c->write_iops, c->write_mb);
	else
		snprintf(buf, size, "write %.0f MB/s", c->write_mb);
}

static void measured_text(const struct speed_class *c,
			  const struct speed_measured *m, char *buf,
			  size_t size)
{
	char w[24] = "-", ri[24] = "-", wi[24] = "-";

	if (m->has_write_rate)
		snprintf(w, sizeof(w), "%.1f", m->write_bytes_per_s / MB);
	if (m->has_read_iops)
		snprintf(ri, sizeof(ri), "%.0f", m->read_iops);
	if (m->has_write_iops)
		snprintf(wi, sizeof(wi), "%.0f", m->write_iops);
	if (c->read_iops > 0)
		snprintf(buf, size, "r %s w %s IOPS, %s MB/s", ri, wi, w);
	else
		snprintf(buf, size, "write %s MB/s", w);
}

static void print_class_text(FILE *out, const struct speed_measured *m,
			     const struct info_card *card)
{
	bool known = card && card->has_speed, failed_label = false;
	char req[64], got[64];

	fprintf(out, "%-5s %-28s %-30s %-12s%s\n", "class", "required",
		"measured", "result", known ? " claimed" : "");
	for (size_t i = 0; i < CLASS_COUNT; i++) {
		const struct speed_class *c = &classes[i];
		enum speed_verdict v = verdict_of(c, m);

		required_text(c, req, sizeof(req));
		measured_text(c, m, got, sizeof(got));
		fprintf(out, "%-5s %-28s %-30s %-12s%s\n", c->name, req, got,
			verdict_text[v],
			known ? (claimed(c, card) ? " yes" : " no") : "");
	}
	if (!known) {
		fprintf(out, "claimed classes: unknown (no SD status "
			"register)\n");
	} else {
		for (size_t i = 0; i < CLASS_COUNT; i++) {
			if (!claimed(&classes[i], card) ||
			    verdict_of(&classes[i], m) != SPEED_FAIL)
				continue;
			if (!failed_label)
				fprintf(out, "card fails its own label:");
			fprintf(out, " %s", classes[i].name);
			failed_label = true;
		}
		if (failed_label)
			fprintf(out, "\n");
	}
	fprintf(out, "note: %s\n", host_limits);
}

static void json_figure(FILE *out, const char *key, bool has, double value,
			bool *first)
{
	fprintf(out, "%s\"%s\": ", *first ? "" : ", ", key);
	*first = false;
	if (has)
		fprintf(out, "%.1f", value);
	else
		fprintf(out, "null");
}

static void print_class_json_entry(FILE *out, const struct speed_class *c,
				   const struct speed_measured *m,
				   const struct info_card *card)
{
	enum speed_verdict v = verdict_of(c, m);
	bool first = true;

	fprintf(out, "\"%s\": {\"required\": {", c->name);
	json_figure(out, "write_bytes_per_s", true, c->write_mb * MB, &first);
	if (c->read_iops > 0) {
		json_figure(out, "read_iops", true, c->read_iops, &first);
		json_figure(out, "write_iops", true, c->write_iops, &first);
	}
	fprintf(out, "}, \"measured\": {");
	first = true;
	json_figure(out, "write_bytes_per_s", m->has_write_rate,
		    m->write_bytes_per_s, &first);
	if (c->read_iops > 0) {
		json_figure(out, "read_iops", m->has_read_iops, m->read_iops,
			    &first);
		json_figure(out, "write_iops", m->has_write_iops,
			    m->write_iops, &first);
	}
	fprintf(out, "}, \"pass\": %s, \"claimed\": %s}",
		v == SPEED_NOT_MEASURED ? "null" :
		v == SPEED_PASS ? "true" : "false",
		!(card && card->has_speed) ? "null" :
		claimed(c, card) ? "true" : "false");
}

static void print_class_json(FILE *out, const struct speed_measured *m,
			     const struct info_card *card, bool read_only,
			     const struct dev *dev, bool interrupted)
{
	bool first = true;

	fprintf(out, "{\"test\": \"class-check\", \"read_only\": %s, ",
		read_only ? "true" : "false");
	json_figure(out, "write_bytes_per_s", m->has_write_rate,
		    m->write_bytes_per_s, &first);
	json_figure(out, "read_iops", m->has_read_iops, m->read_iops, &first);
	json_figure(out, "write_iops", m->has_write_iops, m->write_iops,
		    &first);
	fprintf(out, ", \"classes\": {");
	for (size_t i = 0; i < CLASS_COUNT; i++) {
		fprintf(out, "%s", i ? ", " : "");
		print_class_json_entry(out, &classes[i], m, card);
	}
	fprintf(out, "}, \"fails_own_label\": ");
	if (!(card && card->has_speed)) {
		fprintf(out, "null");
	} else {
		first = true;
		fprintf(out, "[");
		for (size_t i = 0; i < CLASS_COUNT; i++) {
			if (!claimed(&classes[i], card) ||
			    verdict_of(&classes[i], m) != SPEED_FAIL)
				continue;
			fprintf(out, "%s\"%s\"", first ? "" : ", ",
				classes[i].name);
			first = false;
		}
		fprintf(out, "]");
	}
	fprintf(out, ", \"host_limits\": \"%s\", \"device_time_ns\": %llu, "
		"\"bytes_read\": %llu, \"bytes_written\": %llu, "
		"\"interrupted\": %s}\n", host_limits,
		(unsigned long long)dev->stats.time_ns,
		(unsigned long long)dev->stats.bytes_read,
		(unsigned long long)dev->stats.bytes_written,
		interrupted ? "true" : "false");
}

/* The three measurements; stops at the first error or interruption. */
static int measure_classes(struct dev *dev, bool read_only, uint64_t offset,
			   uint64_t span_bytes, uint64_t erase_bytes,
			   uint64_t duration_ns, volatile sig_atomic_t *stop,
			   struct speed_measured *m)
{
	struct speed_iops_result io;
	struct speed_rate r;
	int err;

	if (!read_only) {
		err = speed_measure_rate(dev, offset, span_bytes, erase_bytes,
					 true, duration_ns, stop, &r);
		speed_rate_free(&r);
		if (err)
			return err;
		m->has_write_rate = true;
		m->write_bytes_per_s = r.bytes_per_s;
	}
	err = speed_measure_iops(dev, offset, span_bytes, false, duration_ns,
				 stop, &io);
	if (err)
		return err;
	m->has_read_iops = true;
	m->read_iops = io.iops;
	if (read_only)
		return 0;
	err = speed_measure_iops(dev, offset, span_bytes, true, duration_ns,
				 stop, &io);
	if (err)
		return err;
	m->has_write_iops = true;
	m->write_iops = io.iops;
	return 0;
}

int speed_class_check(struct dev *dev, const struct info_card *card,
		      bool read_only, uint64_t offset, uint64_t span_bytes,
		      uint64_t erase_bytes, uint64_t duration_ns,
		      volatile sig_atomic_t *stop, FILE *out, bool json)
{
	struct speed_measured m = { 0 };
	int err;

	err = measure_classes(dev, read_only, offset, span_bytes, erase_bytes,
			      duration_ns, stop, &m);
	if (err && err != -EINTR)
		return err;
	if (json)
		print_class_json(out, &m, card, read_only, dev,
				 err == -EINTR);
	else
		print_class_text(out, &m, card);
	return err;
}
