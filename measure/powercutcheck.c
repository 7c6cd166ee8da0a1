/*
 * powercutcheck: the range read back after a cut, each unit given one
 * class, and the range settled for the next cycle.  Reads go by chunks
 * of POWERCUT_CHUNK_BYTES into the state's one buffer; only a failed
 * chunk is read again, unit by unit, to find what cannot be read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dev.h"
#include "measure/powercutcheck.h"
#include "measure/powercutstamp.h"

/* A unit that holds its newest version has no class: this verdict. */
#define VERDICT_GOOD POWERCUT_CLASSES

static const char *const class_names[POWERCUT_CLASSES] = {
	[POWERCUT_FLYING] = "flying",
	[POWERCUT_SHORN] = "shorn",
	[POWERCUT_UNSERIALIZABLE] = "unserializable",
	[POWERCUT_ACK_LOST] = "acknowledged-lost",
	[POWERCUT_OLD_DAMAGED] = "old-damaged",
	[POWERCUT_UNREADABLE] = "unreadable",
	[POWERCUT_UNFLUSHED_LOST] = "unflushed-lost",
};

const char *powercut_class_name(enum powercut_class cls)
{
	return (unsigned)cls < POWERCUT_CLASSES ? class_names[cls] : "?";
}

enum powercut_class powercut_class_named(const char *name)
{
	for (int c = 0; c < POWERCUT_CLASSES; c++)
		if (strcmp(class_names[c], name) == 0)
			return (enum powercut_class)c;
	return POWERCUT_CLASSES;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Errors that a medium's bad spot gives, not a device gone away. */
static bool read_error(int err)
{
	return err == -EIO || err == -ENODATA || err == -EILSEQ;
}

static void progress(const struct powercut_state *st, uint64_t done_bytes,
		     uint64_t total_bytes)
{
	if (st->progress)
		st->progress(st->progress_ctx, done_bytes, total_bytes);
}

/* Stamp [offset, +length) with seq of cycle and write it. */
static int write_stamps(struct dev *dev, struct powercut_state *st,
			uint64_t offset, uint64_t length, uint32_t seq,
			uint32_t cycle)
{
	uint64_t ns;

	powercut_stamp_fill(&st->run, st->buf, offset, length, seq, cycle);
	return dev_write(dev, st->buf, offset, length, &ns);
}

/* Units of the chunk at offset that are not whole stamps of seq 0. */
static uint64_t old_mismatches(const struct powercut_state *st,
			       uint64_t offset, uint64_t length)
{
	const struct powercut_run *r = &st->run;
	const unsigned char *p = st->buf;
	uint64_t bad = 0;

	for (uint64_t u = 0; u < length; u += r->unit_bytes) {
		bool good = true;

		for (uint64_t s = u; s < u + r->unit_bytes;
		     s += r->sector_bytes) {
			struct powercut_stamp stamp;

			good = good && powercut_stamp_check(r, p + s, offset + s,
							    &stamp) ==
					       POWERCUT_SECTOR_OURS &&
			       stamp.seq == 0;
		}
		bad += !good;
	}
	return bad;
}

long long powercut_stamp_old(struct dev *dev, struct powercut_state *st)
{
	const struct powercut_run *r = &st->run;
	uint64_t end = r->offset_bytes + r->span_bytes, bad = 0, ns;
	int err;

	for (uint64_t at = r->offset_bytes; at < end; at += POWERCUT_CHUNK_BYTES) {
		uint64_t length = min64(POWERCUT_CHUNK_BYTES, end - at);

		err = write_stamps(dev, st, at, length, 0, 0);
		if (err)
			return err;
		progress(st, at + length - r->offset_bytes, 2 * r->span_bytes);
	}
	err = dev_flush(dev);
	if (err)
		return err;
	for (uint64_t at = r->offset_bytes; at < end; at += POWERCUT_CHUNK_BYTES) {
		uint64_t length = min64(POWERCUT_CHUNK_BYTES, end - at);

		err = dev_read(dev, st->buf, at, length, &ns);
		if (err)
			return err;
		bad += old_mismatches(st, at, length);
		progress(st, r->span_bytes + at + length - r->offset_bytes,
			 2 * r->span_bytes);
	}
	if (bad == 0)
		powercut_old(st);
	return (long long)bad;
}

/* What the sectors of one unit hold. */
struct unit_look {
	unsigned sectors, ours, damaged;
	bool flying;
	struct powercut_stamp fly;	/* the first flying stamp */
	uint32_t lo, hi;		/* this run's seqs naming the unit */
};

/* One verification under way. */
struct verify {
	struct dev *dev;
	struct powercut_state *st;
	struct powercut_cycle *out;
	bool survivor;			/* a write of this cycle reads back */
	uint32_t survivor_seq;		/* the newest that does */
};

static void look_unit(const struct powercut_run *r, const unsigned char *p,
		      uint64_t offset, struct unit_look *look)
{
	memset(look, 0, sizeof(*look));
	look->lo = POWERCUT_SEQ_NONE;
	look->sectors = r->unit_bytes / r->sector_bytes;
	for (unsigned i = 0; i < look->sectors; i++) {
		uint64_t at = (uint64_t)i * r->sector_bytes;
		struct powercut_stamp s;

		switch (powercut_stamp_check(r, p + at, offset + at, &s)) {
		case POWERCUT_SECTOR_OURS:
			look->ours++;
			look->lo = s.seq < look->lo ? s.seq : look->lo;
			look->hi = s.seq > look->hi ? s.seq : look->hi;
			break;
		case POWERCUT_SECTOR_FLYING:
			if (!look->flying)
				look->fly = s;
			look->flying = true;
			break;
		default:
			look->damaged++;
		}
	}
}

static uint64_t unit_offset(const struct powercut_state *st, uint64_t u)
{
	return st->run.offset_bytes + u * st->run.unit_bytes;
}

static bool covers(const struct powercut_write *w, uint64_t offset)
{
	return offset >= w->offset_bytes &&
	       offset - w->offset_bytes < w->length_bytes;
}

/* Was a write to the unit in flight at the cut: not acknowledged? */
static bool in_flight(const struct powercut_state *st, uint64_t u)
{
	return st->written[u] > st->acked[u] ||
	       (st->cut_seen && st->cut.torn &&
		covers(&st->cut.write, unit_offset(st, u)));
}

/* Written in this cycle: a torn unit there is a shorn write. */
static bool written_now(const struct powercut_state *st, uint64_t u,
			const struct unit_look *look)
{
	return st->written[u] >= st->cycle_first_seq ||
	       look->hi > st->written[u] || in_flight(st, u);
}

static uint64_t before_cut(const struct powercut_state *st, uint32_t seq)
{
	const struct powercut_write *w = powercut_write_of(st, seq);

	if (!w || !st->cut_seen || w->t_ns > st->cut.t_ns)
		return POWERCUT_UNKNOWN;
	return st->cut.t_ns - w->t_ns;
}

static uint64_t gap(const struct powercut_write *w, uint64_t offset,
		    uint64_t length)
{
	if (offset + length <= w->offset_bytes)
		return w->offset_bytes - (offset + length);
	if (w->offset_bytes + w->length_bytes <= offset)
		return offset - (w->offset_bytes + w->length_bytes);
	return 0;
}

/* From the unit to the nearest write not acknowledged at the cut. */
static uint64_t distance(const struct powercut_state *st, uint64_t u)
{
	uint64_t offset = unit_offset(st, u), best = POWERCUT_UNKNOWN;

	for (size_t i = st->writes_n; i-- > 0;) {
		if (st->writes[i].seq <= st->flushed_seq)
			break;
		best = min64(best, gap(&st->writes[i], offset,
				       st->run.unit_bytes));
	}
	if (st->cut_seen && st->cut.torn)
		best = min64(best, gap(&st->cut.write, offset,
				       st->run.unit_bytes));
	return best;
}

static void count(struct powercut_cycle *out, enum powercut_class cls,
		  const struct powercut_example *ex)
{
	out->counts[cls]++;
	if (out->examples_n[cls] < POWERCUT_EXAMPLES)
		out->examples[cls][out->examples_n[cls]++] = *ex;
}

static bool uniform(const struct unit_look *look)
{
	return look->ours == look->sectors && look->lo == look->hi;
}

/*
 * An untorn unit's class: the worst any of its sectors gives it.  An
 * older version than the acknowledged one is an acknowledged write
 * lost (told apart from unserializable once the whole range is read);
 * damage is expected only under a write in flight.
 */
static enum powercut_class sectors_class(const struct powercut_state *st,
					 uint64_t u,
					 const struct unit_look *look)
{
	enum powercut_class worst = VERDICT_GOOD;

	if (look->ours && look->lo < st->acked[u])
		return POWERCUT_ACK_LOST;
	if (look->damaged)
		worst = in_flight(st, u) ? POWERCUT_UNFLUSHED_LOST :
					   POWERCUT_OLD_DAMAGED;
	if (look->ours && look->lo < st->written[u] &&
	    worst == VERDICT_GOOD)
		worst = POWERCUT_UNFLUSHED_LOST;
	return worst;
}

static enum powercut_class unit_class(const struct powercut_state *st,
				      uint64_t u, const struct unit_look *look,
				      struct powercut_example *ex)
{
	if (look->flying) {
		ex->seq = look->fly.seq;
		ex->named_bytes = look->fly.offset_bytes;
		return POWERCUT_FLYING;
	}
	if (look->ours && look->hi >= st->written[u] && !uniform(look) &&
	    written_now(st, u, look)) {
		ex->seq = look->hi;
		ex->found_seq = look->lo < look->hi ? look->lo
						    : POWERCUT_SEQ_NONE;
		return POWERCUT_SHORN;
	}
	return sectors_class(st, u, look);
}

static void classify_unit(struct verify *v, uint64_t u,
			  const unsigned char *p)
{
	struct powercut_state *st = v->st;
	struct unit_look look;
	struct powercut_example ex = {
		.offset_bytes = unit_offset(st, u), .seq = st->written[u],
		.found_seq = POWERCUT_SEQ_NONE,
		.distance_bytes = POWERCUT_UNKNOWN,
		.named_bytes = POWERCUT_UNKNOWN };
	enum powercut_class cls;

	look_unit(&st->run, p, ex.offset_bytes, &look);
	if (look.ours && look.hi >= st->cycle_first_seq && st->cycle > 0 &&
	    (!v->survivor || look.hi > v->survivor_seq)) {
		v->survivor = true;
		v->survivor_seq = look.hi;
	}
	st->found[u] = uniform(&look) ? look.hi : POWERCUT_SEQ_NONE;
	if (look.ours)
		ex.found_seq = look.lo;
	cls = unit_class(st, u, &look, &ex);
	st->verdict[u] = (unsigned char)cls;
	if (cls == VERDICT_GOOD) {
		if (st->found[u] == st->written[u])
			v->out->intact++;
		else
			v->out->newer++;
		return;
	}
	if (cls == POWERCUT_ACK_LOST)
		return;		/* resolved when every unit is read */
	if (cls == POWERCUT_OLD_DAMAGED)
		ex.distance_bytes = distance(st, u);
	ex.before_cut_ns = before_cut(st, ex.seq);
	count(v->out, cls, &ex);
}

static void mark_unreadable(struct verify *v, uint64_t u)
{
	struct powercut_state *st = v->st;
	struct powercut_example ex = {
		.offset_bytes = unit_offset(st, u), .seq = st->written[u],
		.found_seq = POWERCUT_SEQ_NONE,
		.before_cut_ns = before_cut(st, st->written[u]),
		.distance_bytes = POWERCUT_UNKNOWN,
		.named_bytes = POWERCUT_UNKNOWN };

	st->found[u] = POWERCUT_SEQ_NONE;
	st->verdict[u] = POWERCUT_UNREADABLE;
	count(v->out, POWERCUT_UNREADABLE, &ex);
}

/* A chunk whose read failed: unit by unit, to find what cannot be read. */
static int verify_units(struct verify *v, uint64_t at, uint64_t length)
{
	struct powercut_state *st = v->st;
	uint32_t unit = st->run.unit_bytes;
	unsigned char *p = st->buf;
	uint64_t ns;

	for (uint64_t off = 0; off < length; off += unit) {
		uint64_t u = powercut_unit_of(st, at + off);
		int err = dev_read(v->dev, p + off, at + off, unit, &ns);

		if (err == 0)
			classify_unit(v, u, p + off);
		else if (read_error(err))
			mark_unreadable(v, u);
		else
			return err;
	}
	return 0;
}

static int verify_chunk(struct verify *v, uint64_t at, uint64_t length)
{
	struct powercut_state *st = v->st;
	uint32_t unit = st->run.unit_bytes;
	const unsigned char *p = st->buf;
	uint64_t ns;
	int err = dev_read(v->dev, st->buf, at, length, &ns);

	if (read_error(err))
		return verify_units(v, at, length);
	if (err)
		return err;
	for (uint64_t off = 0; off < length; off += unit)
		classify_unit(v, powercut_unit_of(st, at + off), p + off);
	return 0;
}

/*
 * The acknowledged versions lost: unserializable when a write that came
 * after the flush acknowledging it reads back (a version from before
 * the cycle was acknowledged by the settle's flush, before every write
 * of the cycle).
 */
static void resolve_ack_lost(struct verify *v)
{
	struct powercut_state *st = v->st;
	struct powercut_cycle *out = v->out;

	for (uint64_t u = 0; u < st->units; u++) {
		uint32_t a = st->acked[u], by;
		struct powercut_example ex = {
			.offset_bytes = unit_offset(st, u), .seq = a,
			.found_seq = st->found[u],
			.before_cut_ns = before_cut(st, a),
			.distance_bytes = POWERCUT_UNKNOWN,
			.named_bytes = POWERCUT_UNKNOWN };
		enum powercut_class cls = POWERCUT_ACK_LOST;

		if (st->verdict[u] != POWERCUT_ACK_LOST)
			continue;
		by = powercut_acked_by(st, a);
		if (v->survivor && by != POWERCUT_SEQ_NONE &&
		    (by == 0 || v->survivor_seq > by))
			cls = POWERCUT_UNSERIALIZABLE;
		st->verdict[u] = (unsigned char)cls;
		count(out, cls, &ex);
		if (ex.before_cut_ns != POWERCUT_UNKNOWN &&
		    (out->ack_lost_before_cut_ns == POWERCUT_UNKNOWN ||
		     ex.before_cut_ns > out->ack_lost_before_cut_ns))
			out->ack_lost_before_cut_ns = ex.before_cut_ns;
	}
}

static void verify_start(const struct dev *dev,
			 const struct powercut_state *st,
			 struct powercut_cycle *out)
{
	memset(out, 0, sizeof(*out));
	out->cycle = st->cycle;
	out->cut_ns = st->cut_seen ? st->cut.t_ns : POWERCUT_UNKNOWN;
	out->units = st->units;
	out->ack_lost_before_cut_ns = POWERCUT_UNKNOWN;
	out->capacity_bytes = dev->size_bytes;
	out->capacity_changed = dev->size_bytes != st->run.device_bytes;
}

int powercut_verify(struct dev *dev, struct powercut_state *st,
		    struct powercut_cycle *out)
{
	const struct powercut_run *r = &st->run;
	struct verify v = { .dev = dev, .st = st, .out = out };
	uint64_t end = r->offset_bytes + r->span_bytes;
	/* what a device that shrank still has of the range */
	uint64_t readable = min64(end, dev->size_bytes -
					       dev->size_bytes % r->unit_bytes);

	verify_start(dev, st, out);
	for (uint64_t at = r->offset_bytes; at < end;
	     at += POWERCUT_CHUNK_BYTES) {
		uint64_t length = min64(POWERCUT_CHUNK_BYTES, end - at);
		uint64_t whole = at < readable ? min64(length, readable - at)
					       : 0;
		int err = whole ? verify_chunk(&v, at, whole) : 0;

		if (err)
			return err;
		for (uint64_t off = whole; off < length; off += r->unit_bytes)
			mark_unreadable(&v, powercut_unit_of(st, at + off));
		progress(st, at + length - r->offset_bytes, r->span_bytes);
	}
	resolve_ack_lost(&v);
	powercut_mark_verified(st);
	return 0;
}

long long powercut_settle(struct dev *dev, struct powercut_state *st)
{
	uint32_t unit = st->run.unit_bytes;
	unsigned char *p = st->buf;
	uint64_t u = 0, rewritten = 0, ns;
	int err;

	if (!st->verified)
		return -EINVAL;
	while (u < st->units) {
		uint64_t first = u, n = 0;

		for (; u < st->units && st->found[u] != st->written[u] &&
		       (n + 1) * unit <= POWERCUT_CHUNK_BYTES; u++, n++)
			powercut_stamp_fill(&st->run, p + n * unit,
					    unit_offset(st, u), unit,
					    st->written[u], st->cycle);
		if (n == 0) {
			u++;
			continue;
		}
		err = dev_write(dev, p, unit_offset(st, first), n * unit, &ns);
		if (err)
			return err;
		rewritten += n;
		progress(st, (uint64_t)u * unit, st->run.span_bytes);
	}
	err = dev_flush(dev);
	if (err)
		return err;
	progress(st, st->run.span_bytes, st->run.span_bytes);
	powercut_settled(st);
	return (long long)rewritten;
}

bool powercut_cycle_faulty(const struct powercut_cycle *c)
{
	for (int k = 0; k < POWERCUT_FAULTS; k++)
		if (c->counts[k])
			return true;
	return c->capacity_changed || c->read_only || c->dead;
}

void powercut_summary_init(struct powercut_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->ack_lost_before_cut_ns = POWERCUT_UNKNOWN;
}

void powercut_summary_add(struct powercut_summary *s,
			  const struct powercut_cycle *c)
{
	s->cycles++;
	for (int k = 0; k < POWERCUT_CLASSES; k++) {
		s->counts[k] += c->counts[k];
		s->with[k] += c->counts[k] > 0;
	}
	if (c->counts[POWERCUT_ACK_LOST] || c->counts[POWERCUT_UNSERIALIZABLE])
		s->ack_lost_cycles++;
	if (c->ack_lost_before_cut_ns != POWERCUT_UNKNOWN &&
	    (s->ack_lost_before_cut_ns == POWERCUT_UNKNOWN ||
	     c->ack_lost_before_cut_ns > s->ack_lost_before_cut_ns))
		s->ack_lost_before_cut_ns = c->ack_lost_before_cut_ns;
	s->capacity_changed += c->capacity_changed;
	s->read_only += c->read_only;
	s->dead += c->dead;
	s->faulty += powercut_cycle_faulty(c);
}
