/*
 * records/powercut: --power-cut's cycles, examples and summary as
 * records.  A cycle's text line counts its units and names its faults;
 * an example's line says where a unit of a class is and what it holds;
 * the summary's line is the verdict in one sentence.  CSV and JSON
 * carry every count, each under its class's key.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/units.h"
#include "output/render.h"
#include "records/powercut.h"

#define SHOWN(template_text) \
	(&(const struct text_look){ .display = TEXT_AS_UNIT, \
				    .template = template_text })
#define ALONE(template_text) \
	(&(const struct text_look){ .display = TEXT_TEMPLATE_ALONE, \
				    .template = template_text })
#define HIDDEN (&text_hidden)

static const struct text_layout spaced = { .style = TEXT_SPACES };
/* (a look a loop hands out lives at file scope, not in the loop) */
static const struct text_look unflushed_look = {
	.display = TEXT_AS_UNIT, .template = "% unflushed lost (expected);" };

/*
 * Each class: its key for a count (CSV, JSON: the core's name with _ for
 * -), its name in a sentence, an example line's start.
 */
static const struct {
	const char *key;
	const char *cuts_key;	/* the summary's: cuts with units of it */
	const char *name;
	const char *example;	/* an example line's start */
} classes[POWERCUT_CLASSES] = {
	[POWERCUT_FLYING] = { "flying", "flying_cuts", "flying writes",
			      "  flying write:" },
	[POWERCUT_SHORN] = { "shorn", "shorn_cuts", "shorn writes",
			     "  shorn write:" },
	[POWERCUT_UNSERIALIZABLE] = { "unserializable",
		"unserializable_cuts", "unserializable writes",
		"  unserializable:" },
	[POWERCUT_ACK_LOST] = { "acknowledged_lost", "acknowledged_lost_cuts",
		"acknowledged writes lost", "  acknowledged write lost:" },
	[POWERCUT_OLD_DAMAGED] = { "old_damaged", "old_damaged_cuts",
		"old data damaged", "  old data damaged:" },
	[POWERCUT_UNREADABLE] = { "unreadable", "unreadable_cuts",
		"unreadable units", "  unreadable:" },
	[POWERCUT_UNFLUSHED_LOST] = { "unflushed_lost", "unflushed_lost_cuts",
		"unflushed writes lost", "  unflushed write lost:" },
};

static double known(uint64_t value)
{
	return value == POWERCUT_UNKNOWN ? NAN : (double)value;
}

/* ", " between the parts of a sentence, none before the first. */
static void append(char *buf, size_t size, const char *sep,
		   const char *text)
{
	size_t used = strlen(buf);

	if (used < size)
		snprintf(buf + used, size - used, "%s%s", used ? sep : "",
			 text);
}

/* A cycle's faults in words: "acknowledged writes lost 4, ...". */
static const char *cycle_faults(const struct powercut_cycle *c, char *buf,
				size_t size)
{
	char part[160], when[UNITS_BUF];

	buf[0] = '\0';
	for (int k = 0; k < POWERCUT_FAULTS; k++) {
		if (!c->counts[k])
			continue;
		snprintf(part, sizeof(part), "%s %llu", classes[k].name,
			 (unsigned long long)c->counts[k]);
		append(buf, size, ", ", part);
	}
	if (c->ack_lost_before_cut_ns != POWERCUT_UNKNOWN) {
		snprintf(part, sizeof(part), "(up to %s before the cut)",
			 units_format_time(when,
					   (double)c->ack_lost_before_cut_ns));
		append(buf, size, " ", part);
	}
	if (c->capacity_changed) {
		snprintf(part, sizeof(part), "capacity now %llu bytes",
			 (unsigned long long)c->capacity_bytes);
		append(buf, size, ", ", part);
	}
	if (c->read_only)
		append(buf, size, ", ", "came back read-only");
	if (c->dead)
		append(buf, size, ", ", "did not come back");
	if (!buf[0])
		snprintf(buf, size, "no fault");
	return buf;
}

static int emit_cycle_line(const struct record_sink *sink,
			   const struct powercut_cycle *c)
{
	struct record rec = { .kind = "power-cut-cycle", .layout = &spaced };
	char faults[512];

	record_add(&rec, RECORD_COUNT, "cycle", SHOWN("cycle %:"), NULL,
		   c->cycle);
	record_add(&rec, RECORD_TIME, "cut_ns",
		   &(const struct text_look){ .display = TEXT_AS_UNIT,
			.template = "cut at %;",
			.unknown = "an unknown moment" },
		   NULL, known(c->cut_ns));
	record_add(&rec, RECORD_COUNT, "units", c->dead ? HIDDEN :
		   SHOWN("% units:"), NULL, (double)c->units);
	record_add(&rec, RECORD_COUNT, "intact", c->dead ? HIDDEN :
		   SHOWN("% intact,"), NULL, (double)c->intact);
	record_add(&rec, RECORD_COUNT, "newer", HIDDEN, NULL,
		   (double)c->newer);
	for (int k = 0; k < POWERCUT_CLASSES; k++)
		record_add(&rec, RECORD_COUNT, classes[k].key,
			   k == POWERCUT_UNFLUSHED_LOST && !c->dead ?
			   &unflushed_look : HIDDEN, NULL,
			   (double)c->counts[k]);
	record_add(&rec, RECORD_TIME, "acknowledged_lost_before_cut_ns", HIDDEN, NULL,
		   known(c->ack_lost_before_cut_ns));
	record_add(&rec, RECORD_BYTES, "capacity_bytes", HIDDEN, NULL,
		   (double)c->capacity_bytes);
	record_add(&rec, RECORD_BOOL, "capacity_changed", HIDDEN, NULL,
		   c->capacity_changed);
	record_add(&rec, RECORD_BOOL, "read_only", HIDDEN, NULL, c->read_only);
	record_add(&rec, RECORD_BOOL, "dead", HIDDEN, NULL, c->dead);
	record_add(&rec, RECORD_BOOL, "fault", HIDDEN, NULL, powercut_cycle_faulty(c));
	record_add(&rec, RECORD_LABEL, "faults", SHOWN("%"),
		   cycle_faults(c, faults, sizeof(faults)), 0);
	return record_emit(sink, &rec);
}

/* What a unit holds, as an example's line says it. */
static const struct text_look holds_seq = {
	.display = TEXT_AS_UNIT, .template = "holds seq %" };
static const struct text_look holds_old = {
	.display = TEXT_TEMPLATE_ALONE, .template = "holds the old data" };
static const struct text_look holds_nothing = {
	.display = TEXT_TEMPLATE_ALONE,
	.template = "holds no stamp of this run" };

static const struct text_look *found_look(uint32_t found_seq)
{
	if (found_seq == POWERCUT_SEQ_NONE)
		return &holds_nothing;
	return found_seq ? &holds_seq : &holds_old;
}

static int emit_example(const struct record_sink *sink, uint32_t cycle,
			enum powercut_class k, const struct powercut_example *e)
{
	struct record rec = { .kind = "power-cut-example",
			      .layout = &spaced };
	bool flying = k == POWERCUT_FLYING;
	bool old = k == POWERCUT_OLD_DAMAGED;

	record_add(&rec, RECORD_COUNT, "cycle", HIDDEN, NULL, cycle);
	record_add(&rec, RECORD_LABEL, "class", ALONE(classes[k].example),
		   powercut_class_name(k), 0);
	record_add(&rec, RECORD_BYTES, "offset_bytes", SHOWN("byte %"), NULL,
		   (double)e->offset_bytes);
	record_add(&rec, RECORD_COUNT, "seq", flying ?
		   SHOWN("holds seq %,") : e->seq ? SHOWN("wants seq %,") :
		   ALONE("wants the old data,"), NULL, e->seq);
	record_add(&rec, RECORD_COUNT, "found_seq", flying ? HIDDEN :
		   found_look(e->found_seq), NULL,
		   e->found_seq == POWERCUT_SEQ_NONE ? NAN :
		   (double)e->found_seq);
	record_add(&rec, RECORD_BYTES, "named_bytes", flying ?
		   SHOWN("written for byte %") : HIDDEN, NULL,
		   flying ? (double)e->named_bytes : NAN);
	record_add(&rec, RECORD_TIME, "before_cut_ns",
		   e->before_cut_ns == POWERCUT_UNKNOWN ? HIDDEN :
		   SHOWN("(written % before the cut)"), NULL,
		   known(e->before_cut_ns));
	record_add(&rec, RECORD_BYTES, "distance_bytes",
		   old && e->distance_bytes != POWERCUT_UNKNOWN ?
		   SHOWN("% bytes from a write in flight") : HIDDEN, NULL,
		   known(e->distance_bytes));
	return record_emit(sink, &rec);
}

int powercut_emit_cycle(const struct record_sink *sink,
			const struct powercut_cycle *c)
{
	int err = emit_cycle_line(sink, c);

	for (int k = 0; !err && k < POWERCUT_FAULTS; k++)
		for (unsigned i = 0; !err && i < c->examples_n[k]; i++)
			err = emit_example(sink, c->cycle, (enum powercut_class)k,
					   &c->examples[k][i]);
	return err;
}

/* "in 3 cuts", "after 1 cut" */
static void count_part(char *buf, size_t size, const char *what,
		       const char *how, uint32_t cuts)
{
	char part[160];

	snprintf(part, sizeof(part), "%s %s %u cut%s", what, how, cuts,
		 cuts == 1 ? "" : "s");
	append(buf, size, "; ", part);
}

/* The acknowledged writes' clause, which every sentence starts with. */
static void ack_clause(char *buf, size_t size,
		       const struct powercut_summary *s)
{
	/* a card that did not come back kept nothing anyone could see */
	uint32_t seen = s->cycles - s->dead;
	const char *cuts = seen == 1 ? "cut" : "cuts";
	char when[UNITS_BUF];

	if (!seen)
		snprintf(buf, size, "no cut could be verified");
	else if (!s->ack_lost_cycles)
		snprintf(buf, size, "kept every acknowledged write in %u of "
			 "%u %s", seen, seen, cuts);
	else if (s->ack_lost_before_cut_ns == POWERCUT_UNKNOWN)
		snprintf(buf, size, "lost acknowledged writes in %u of %u %s",
			 s->ack_lost_cycles, seen, cuts);
	else
		snprintf(buf, size, "lost acknowledged writes in %u of %u %s "
			 "(up to %s of them)", s->ack_lost_cycles, seen, cuts,
			 units_format_time(when,
					   (double)s->ack_lost_before_cut_ns));
}

/* The verdict in one sentence: the faults after the two clauses. */
static const char *sentence(const struct powercut_summary *s, char *buf,
			    size_t size)
{
	static const enum powercut_class others[] = {
		POWERCUT_UNSERIALIZABLE, POWERCUT_SHORN, POWERCUT_FLYING,
	};
	char part[64];

	if (!s->cycles) {
		snprintf(buf, size, "no cut was verified");
		return buf;
	}
	ack_clause(buf, size, s);
	if (s->cycles == s->dead)
		;	/* nothing was read back to judge the old data by */
	else if (s->with[POWERCUT_OLD_DAMAGED])
		count_part(buf, size, "old data damaged", "in",
			   s->with[POWERCUT_OLD_DAMAGED]);
	else
		append(buf, size, "; ", "old data intact");
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (s->with[others[i]])
			count_part(buf, size, classes[others[i]].name, "in",
				   s->with[others[i]]);
	if (s->with[POWERCUT_UNREADABLE])
		count_part(buf, size, "unreadable units", "after",
			   s->with[POWERCUT_UNREADABLE]);
	if (s->capacity_changed)
		count_part(buf, size, "capacity changed", "after",
			   s->capacity_changed);
	if (s->read_only)
		count_part(buf, size, "read-only", "after", s->read_only);
	if (s->dead) {
		snprintf(part, sizeof(part), "did not come back after cut %u",
			 s->cycles);
		append(buf, size, "; ", part);
	}
	return buf;
}

const char *powercut_verdict(const struct powercut_summary *s)
{
	if (!s->cycles)
		return NULL;
	return s->faulty ? "damaged" : "kept";
}

int powercut_emit_summary(const struct record_sink *sink,
			  const struct powercut_outcome *o)
{
	const struct powercut_summary *s = &o->sum;
	struct record rec = { .kind = "power-cut", .layout = &spaced };
	char text[768];

	record_add(&rec, RECORD_LABEL, "verdict", HIDDEN, powercut_verdict(s),
		   0);
	record_add(&rec, RECORD_COUNT, "cuts", HIDDEN, NULL, s->cycles);
	record_add(&rec, RECORD_COUNT, "faulty_cuts", HIDDEN, NULL, s->faulty);
	record_add(&rec, RECORD_COUNT, "lost_acknowledged_writes_cuts", HIDDEN,
		   NULL, s->ack_lost_cycles);
	for (int k = 0; k < POWERCUT_CLASSES; k++) {
		record_add(&rec, RECORD_COUNT, classes[k].key, HIDDEN, NULL,
			   (double)s->counts[k]);
		record_add(&rec, RECORD_COUNT, classes[k].cuts_key, HIDDEN,
			   NULL, s->with[k]);
	}
	record_add(&rec, RECORD_TIME, "acknowledged_lost_before_cut_ns",
		   HIDDEN, NULL, known(s->ack_lost_before_cut_ns));
	record_add(&rec, RECORD_COUNT, "capacity_changed_cuts", HIDDEN, NULL,
		   s->capacity_changed);
	record_add(&rec, RECORD_COUNT, "read_only_cuts", HIDDEN, NULL,
		   s->read_only);
	record_add(&rec, RECORD_COUNT, "dead_cuts", HIDDEN, NULL, s->dead);
	record_add(&rec, RECORD_BYTES, "offset_bytes", HIDDEN, NULL,
		   (double)o->offset_bytes);
	record_add(&rec, RECORD_BYTES, "span_bytes", HIDDEN, NULL,
		   (double)o->span_bytes);
	record_add(&rec, RECORD_BYTES, "bytes_written", HIDDEN, NULL,
		   (double)o->bytes_written);
	record_add(&rec, RECORD_TIME, "device_time_ns", HIDDEN, NULL,
		   (double)o->device_time_ns);
	record_add(&rec, RECORD_BOOL, "verify_only", HIDDEN, NULL,
		   o->verify_only);
	record_add(&rec, RECORD_BOOL, "partial", HIDDEN, NULL, o->partial);
	record_add(&rec, RECORD_LABEL, "summary", SHOWN("%"),
		   sentence(s, text, sizeof(text)), 0);
	return record_emit(sink, &rec);
}
