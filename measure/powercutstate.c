/*
 * powercutstate: what the power-cut test's range should hold, kept from
 * the events in the order they completed.  The live run and a log's
 * replay call the same functions, so a later --verify= judges what the
 * run would have.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "lib/grow.h"
#include "measure/powercutstate.h"

static bool run_holds(const struct powercut_run *run)
{
	uint32_t sector = run->sector_bytes, unit = run->unit_bytes;

	return sector >= 64 && sector % 8 == 0 && unit >= sector &&
	       unit % sector == 0 && POWERCUT_CHUNK_BYTES % unit == 0 &&
	       run->span_bytes > 0 && run->span_bytes % unit == 0 &&
	       run->offset_bytes % unit == 0 &&
	       run->span_bytes / unit <= UINT32_MAX &&
	       run->span_bytes / unit <= SIZE_MAX / sizeof(uint32_t) &&
	       memchr(run->identity, 0, sizeof(run->identity)) != NULL;
}

int powercut_state_init(struct powercut_state *st,
			const struct powercut_run *run)
{
	memset(st, 0, sizeof(*st));
	if (!run_holds(run))
		return -EINVAL;
	st->run = *run;
	st->units = (size_t)(run->span_bytes / run->unit_bytes);
	st->written = calloc(st->units, sizeof(*st->written));
	st->acked = calloc(st->units, sizeof(*st->acked));
	st->found = calloc(st->units, sizeof(*st->found));
	st->verdict = malloc(st->units);
	st->buf = dev_alloc_buffer(POWERCUT_CHUNK_BYTES, DEV_PATTERN_ZEROS);
	if (!st->written || !st->acked || !st->found || !st->verdict ||
	    !st->buf) {
		powercut_state_free(st);
		return -ENOMEM;
	}
	memset(st->verdict, POWERCUT_CLASSES, st->units);
	st->next_seq = 1;
	return 0;
}

void powercut_state_free(struct powercut_state *st)
{
	free(st->written);
	free(st->acked);
	free(st->found);
	free(st->verdict);
	free(st->buf);
	free(st->writes);
	free(st->flushes);
	memset(st, 0, sizeof(*st));
}

uint64_t powercut_unit_of(const struct powercut_state *st, uint64_t offset)
{
	return (offset - st->run.offset_bytes) / st->run.unit_bytes;
}

void powercut_old(struct powercut_state *st)
{
	memset(st->written, 0, st->units * sizeof(*st->written));
	memset(st->acked, 0, st->units * sizeof(*st->acked));
	memset(st->found, 0, st->units * sizeof(*st->found));
	st->old_stamped = true;
}

int powercut_cycle_begin(struct powercut_state *st, uint32_t cycle,
			 uint32_t first_seq)
{
	/* every cycle starts from a range that holds what the log says:
	   the old data, or the previous cycle settled */
	if (!st->old_stamped || cycle != st->cycle + 1 ||
	    first_seq < st->next_seq || first_seq == POWERCUT_SEQ_NONE ||
	    (st->cycle > 0 && !st->settled))
		return -EINVAL;
	st->cycle = cycle;
	st->cycle_first_seq = first_seq;
	st->next_seq = first_seq;
	st->flushed_seq = first_seq - 1;
	st->writes_n = 0;
	st->flushes_n = 0;
	st->cut_seen = false;
	memset(&st->cut, 0, sizeof(st->cut));
	st->verified = false;
	st->settled = false;
	return 0;
}

/* A range of whole units inside the span? */
static bool range_fits(const struct powercut_state *st, uint64_t offset,
		       uint64_t length)
{
	const struct powercut_run *r = &st->run;

	return length > 0 && offset >= r->offset_bytes &&
	       offset % r->unit_bytes == 0 && length % r->unit_bytes == 0 &&
	       offset - r->offset_bytes <= r->span_bytes &&
	       length <= r->span_bytes - (offset - r->offset_bytes);
}

int powercut_wrote(struct powercut_state *st, uint32_t seq,
		   uint64_t offset, uint64_t length, uint64_t t_ns)
{
	struct powercut_write *w;
	uint64_t first, n;

	if (st->cycle == 0 || st->cut_seen || seq != st->next_seq ||
	    seq == POWERCUT_SEQ_NONE || !range_fits(st, offset, length))
		return -EINVAL;
	if (grow_array((void **)&st->writes, &st->writes_room,
		       st->writes_n + 1, sizeof(*st->writes)))
		return -ENOMEM;
	w = &st->writes[st->writes_n++];
	*w = (struct powercut_write){ .seq = seq, .offset_bytes = offset,
				      .length_bytes = length, .t_ns = t_ns };
	first = powercut_unit_of(st, offset);
	n = length / st->run.unit_bytes;
	for (uint64_t u = first; u < first + n; u++)
		st->written[u] = seq;
	st->next_seq = seq + 1;
	return 0;
}

int powercut_flushed(struct powercut_state *st, uint32_t seq, uint64_t t_ns)
{
	if (st->cycle == 0 || st->cut_seen || seq < st->flushed_seq ||
	    seq >= st->next_seq)
		return -EINVAL;
	if (grow_array((void **)&st->flushes, &st->flushes_room,
		       st->flushes_n + 1, sizeof(*st->flushes)))
		return -ENOMEM;
	st->flushes[st->flushes_n++] = (struct powercut_flush){
		.seq = seq, .t_ns = t_ns };
	/* in seq order, so each unit ends with its newest covered write */
	for (size_t i = 0; i < st->writes_n; i++) {
		const struct powercut_write *w = &st->writes[i];
		uint64_t first, n;

		if (w->seq <= st->flushed_seq || w->seq > seq)
			continue;
		first = powercut_unit_of(st, w->offset_bytes);
		n = w->length_bytes / st->run.unit_bytes;
		for (uint64_t u = first; u < first + n; u++)
			st->acked[u] = w->seq;
	}
	st->flushed_seq = seq;
	return 0;
}

int powercut_cut(struct powercut_state *st, const struct powercut_cut *cut)
{
	if (st->cycle == 0 || cut->cycle != st->cycle || st->cut_seen)
		return -EINVAL;
	if (cut->torn && (cut->write.seq < st->next_seq ||
			  cut->write.seq == POWERCUT_SEQ_NONE ||
			  !range_fits(st, cut->write.offset_bytes,
				      cut->write.length_bytes)))
		return -EINVAL;
	st->cut = *cut;
	st->cut_seen = true;
	if (cut->torn)
		st->next_seq = cut->write.seq + 1;
	return 0;
}

void powercut_mark_verified(struct powercut_state *st)
{
	st->verified = true;
}

void powercut_settled(struct powercut_state *st)
{
	memcpy(st->acked, st->written, st->units * sizeof(*st->acked));
	memcpy(st->found, st->written, st->units * sizeof(*st->found));
	memset(st->verdict, POWERCUT_CLASSES, st->units);
	st->flushed_seq = st->next_seq - 1;
	st->settled = true;
}

const struct powercut_write *powercut_write_of(const struct powercut_state *st,
					       uint32_t seq)
{
	uint64_t i;

	if (st->cut_seen && st->cut.torn && st->cut.write.seq == seq)
		return &st->cut.write;
	if (st->cycle == 0 || seq < st->cycle_first_seq)
		return NULL;
	i = seq - st->cycle_first_seq;
	if (i >= st->writes_n || st->writes[i].seq != seq)
		return NULL;
	return &st->writes[i];
}

uint32_t powercut_acked_by(const struct powercut_state *st, uint32_t seq)
{
	if (st->cycle == 0 || seq < st->cycle_first_seq)
		return 0;
	for (size_t i = 0; i < st->flushes_n; i++)
		if (st->flushes[i].seq >= seq)
			return st->flushes[i].seq;
	return POWERCUT_SEQ_NONE;
}

static bool runs_equal(const struct powercut_run *a,
		       const struct powercut_run *b)
{
	return a->salt == b->salt && a->seed == b->seed &&
	       a->device_bytes == b->device_bytes &&
	       a->offset_bytes == b->offset_bytes &&
	       a->span_bytes == b->span_bytes &&
	       a->sector_bytes == b->sector_bytes &&
	       a->unit_bytes == b->unit_bytes &&
	       strcmp(a->identity, b->identity) == 0;
}

static bool writes_equal(const struct powercut_write *a,
			 const struct powercut_write *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].seq != b[i].seq ||
		    a[i].offset_bytes != b[i].offset_bytes ||
		    a[i].length_bytes != b[i].length_bytes ||
		    a[i].t_ns != b[i].t_ns)
			return false;
	return true;
}

static bool flushes_equal(const struct powercut_flush *a,
			  const struct powercut_flush *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].seq != b[i].seq || a[i].t_ns != b[i].t_ns)
			return false;
	return true;
}

static bool cuts_equal(const struct powercut_cut *a,
		       const struct powercut_cut *b)
{
	return a->cycle == b->cycle && a->t_ns == b->t_ns &&
	       a->errnum == b->errnum && a->torn == b->torn &&
	       (!a->torn || writes_equal(&a->write, &b->write, 1));
}

bool powercut_state_equal(const struct powercut_state *a,
			  const struct powercut_state *b)
{
	size_t per_unit = a->units * sizeof(uint32_t);

	return runs_equal(&a->run, &b->run) && a->units == b->units &&
	       memcmp(a->written, b->written, per_unit) == 0 &&
	       memcmp(a->acked, b->acked, per_unit) == 0 &&
	       a->old_stamped == b->old_stamped && a->cycle == b->cycle &&
	       a->next_seq == b->next_seq &&
	       a->cycle_first_seq == b->cycle_first_seq &&
	       a->flushed_seq == b->flushed_seq &&
	       a->writes_n == b->writes_n &&
	       writes_equal(a->writes, b->writes, a->writes_n) &&
	       a->flushes_n == b->flushes_n &&
	       flushes_equal(a->flushes, b->flushes, a->flushes_n) &&
	       a->cut_seen == b->cut_seen &&
	       (!a->cut_seen || cuts_equal(&a->cut, &b->cut)) &&
	       a->verified == b->verified && a->settled == b->settled;
}
