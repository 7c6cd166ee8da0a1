/*
 * capacity: the capacity check's records (capacity.h).  Every record's
 * text is its fields separated by a space; the machine formats have each
 * value in its base unit.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "records/capacity.h"
#include "vm/layout.h"

/* The text line's look of a field: its template, or none (layout.h). */
#define SHOWN(template_text) \
	(&(const struct text_look){ .display = TEXT_AS_UNIT, \
				    .template = template_text })
#define HIDDEN (&text_hidden)
/* A template shown as it is, without the value. */
#define ALONE(template_text) \
	(&(const struct text_look){ .display = TEXT_TEMPLATE_ALONE, \
				    .template = template_text })

/* Every capacity record's text: fields separated by a space. */
static const struct text_layout spaced = { .style = TEXT_SPACES };

/* ---- the evidence ---- */

int capacity_emit_probe(const struct record_sink *sink,
			const struct capacity_probe *p)
{
	struct record rec = { .kind = "capacity-probe",
				 .layout = &spaced };

	record_add(&rec, RECORD_COUNT, "round", SHOWN("round %:"), NULL,
		  p->round);
	record_add(&rec, RECORD_BYTES, "offset_bytes", SHOWN("block at %"), NULL,
		  (double)p->offset_bytes);
	record_add(&rec, RECORD_LABEL, "result",
		  SHOWN("%"), p->result, 0);
	record_add(&rec, RECORD_BYTES, "named_offset_bytes",
		  p->shares_storage ? SHOWN("(shares storage with %)") : HIDDEN,
		  NULL, p->shares_storage ? (double)p->named_offset_bytes : NAN);
	record_add(&rec, RECORD_BOOL, "good", SHOWN("good: %"), NULL, p->good);
	return record_emit(sink, &rec);
}

/* ---- the verdict ---- */

static const char *certainty(const struct capacity_result *r)
{

	if (!r->fake_kind && !strcmp(r->verdict, "genuine"))
		return "every probe across the device read back intact after "
		       "a flush larger than --cache-limit; a larger write "
		       "cache could still hide a fake";
	if (r->usable_bytes == 0)
		return "cannot tell where the real capacity ends: it is below "
		       "the flush area at the start of the device";
	if (!strcmp(r->verdict, "damaged"))
		return "blocks past a bad one read back intact: bad areas, "
		       "not a capacity limit; the usable size is up to the "
		       "first one";
	return "sure: the block at the usable size does not keep data, "
	       "the one below it does";
}

static int emit_summary(const struct record_sink *sink,
			const struct capacity_result *r)
{
	struct record rec = { .kind = "capacity",
				 .layout = &spaced };

	record_add(&rec, RECORD_LABEL, "verdict",
		  SHOWN("verdict: %"), r->verdict, 0);
	record_add(&rec, RECORD_LABEL, "fake_kind",
		  r->fake_kind ? SHOWN("(%)") : HIDDEN, r->fake_kind, 0);
	record_add(&rec, RECORD_BYTES, "usable_bytes",
		  SHOWN("usable % bytes"), NULL, (double)r->usable_bytes);
	record_add(&rec, RECORD_BYTES, "announced_bytes",
		  SHOWN("of % announced;"), NULL, (double)r->announced_bytes);
	record_add(&rec, RECORD_BYTES, "cache_bytes",
		  isnan(r->cache_bytes) ? HIDDEN :
		  SHOWN("write cache about % bytes;"), NULL, r->cache_bytes);
	record_add(&rec, RECORD_BYTES, "probe_bytes_written",
		  SHOWN("written %,"), NULL, (double)r->bytes_written);
	record_add(&rec, RECORD_BYTES, "bytes_restored",
		  SHOWN("restored %,"), NULL, (double)r->bytes_restored);
	record_add(&rec, RECORD_TIME, "device_time_ns", SHOWN("device time %;"),
		  NULL, (double)r->device_time_ns);
	record_add(&rec, RECORD_COUNT, "rounds",
		  SHOWN("% rounds;"), NULL, r->rounds);
	record_add(&rec, RECORD_LABEL, "certainty",
		  SHOWN("%"), certainty(r), 0);
	return record_emit(sink, &rec);
}

/* A partition that ends at the real capacity, 1 MiB aligned. */
static int emit_fix(const struct record_sink *sink,
		    const struct capacity_result *r)
{
	const uint64_t mib = 1024 * 1024;
	uint64_t end_mib = r->usable_bytes / mib;
	struct record rec = { .kind = "capacity-fix",
				 .layout = &spaced };
	char sfdisk[512], parted[512];
	int err;

	if (end_mib < 2)
		return 0;
	snprintf(sfdisk, sizeof(sfdisk), "echo 'start=2048, size=%llu, "
		 "type=c' | sfdisk %s", (unsigned long long)((end_mib - 1) *
		 (mib / 512)), r->device_path);
	snprintf(parted, sizeof(parted), "parted -s %s mklabel msdos mkpart "
		 "primary fat32 1MiB %lluMiB", r->device_path,
		 (unsigned long long)end_mib);
	record_add(&rec, RECORD_LABEL, "tool", SHOWN("%:"), "sfdisk", 0);
	record_add(&rec, RECORD_LABEL, "command", SHOWN("%"), sfdisk, 0);
	err = record_emit(sink, &rec);
	rec.count = 0;
	record_add(&rec, RECORD_LABEL, "tool", SHOWN("%:"), "parted", 0);
	record_add(&rec, RECORD_LABEL, "command", SHOWN("%"), parted, 0);
	return err ? err : record_emit(sink, &rec);
}

int capacity_emit_verdict(const struct record_sink *sink,
			  const struct capacity_result *result)
{
	int err = emit_summary(sink, result);

	if (!err && result->fake_kind)
		err = emit_fix(sink, result);
	return err;
}

/*
 * A range a restore left as it was: where, where its record was, and
 * why: its record damaged, cut short where the run wrote, or none left
 * for the run's stamps there (then no bytes of the file are named).
 */
static int emit_damage(const struct record_sink *sink,
		       const struct undo_damage *d)
{
	static const char *const causes[] = { [UNDO_DAMAGED] = "damaged",
		[UNDO_CUT] = "cut", [UNDO_LOST] = "lost" };
	struct record rec = { .kind = "restore-damaged",
				 .layout = &spaced };
	bool known = d->range_known, lost = d->cause == UNDO_LOST;

	record_add(&rec, RECORD_BYTES, "offset_bytes",
		  known ? SHOWN("not put back: bytes at %") :
		  ALONE("not put back: an unknown range:"), NULL,
		  known ? (double)d->offset : NAN);
	record_add(&rec, RECORD_BYTES, "length_bytes",
		  known ? SHOWN("(+%):") : HIDDEN, NULL,
		  known ? (double)d->length : NAN);
	record_add(&rec, RECORD_BYTES, "file_bytes",
		  lost ? HIDDEN : SHOWN("the undo file's % bytes"), NULL,
		  (double)d->file_bytes);
	record_add(&rec, RECORD_BYTES, "file_offset_bytes",
		  lost ? HIDDEN : d->cause == UNDO_CUT ?
		  SHOWN("at % are a record cut short") :
		  SHOWN("at % are damaged"), NULL, (double)d->file_offset);
	record_add(&rec, RECORD_LABEL, "cause",
		  lost ? ALONE("the run's stamps lie there, and the undo file "
			       "holds no record of them") :
		  d->cause == UNDO_CUT ? ALONE("where the run wrote") : HIDDEN,
		  causes[d->cause], 0);
	return record_emit(sink, &rec);
}

int capacity_emit_restore(const struct record_sink *sink,
			  const struct undo_result *restore)
{
	struct record rec = { .kind = "restore", .layout = &spaced };
	int err;

	record_add(&rec, RECORD_BYTES, "bytes_restored",
		  SHOWN("restored % bytes"), NULL,
		  (double)restore->bytes_restored);
	record_add(&rec, RECORD_COUNT, "records",
		  SHOWN("from % records;"), NULL, (double)restore->records);
	record_add(&rec, RECORD_COUNT, "blocks_checked",
		  SHOWN("% blocks read back,"), NULL,
		  (double)restore->blocks_checked);
	record_add(&rec, RECORD_COUNT, "blocks_differing",
		  SHOWN("% not as saved"), NULL,
		  (double)restore->blocks_differing);
	record_add(&rec, RECORD_COUNT, "records_damaged",
		  restore->damaged_count ?
		  SHOWN("(ranges not put back: %)") : HIDDEN, NULL,
		  (double)restore->damaged_count);
	err = record_emit(sink, &rec);
	for (size_t i = 0; !err && i < restore->damaged_count; i++)
		err = emit_damage(sink, &restore->damaged[i]);
	return err;
}

/* ---- the check's sink ---- */

static int take_probe(void *ctx, const struct capacity_probe *probe)
{
	return capacity_emit_probe(ctx, probe);
}

static int take_verdict(void *ctx, const struct capacity_result *result)
{
	return capacity_emit_verdict(ctx, result);
}

static int take_restore(void *ctx, const struct undo_result *restore)
{
	return capacity_emit_restore(ctx, restore);
}

struct capacity_sink capacity_sink_to(const struct record_sink *sink)
{
	return (struct capacity_sink){ take_probe, take_verdict, take_restore,
				       (void *)sink };
}
