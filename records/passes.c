/*
 * records/passes: the endurance passes as records.  Each pass is a
 * "surface-pass" line (its outcome, write and read rates over the
 * windows, its bad blocks), then a "surface-pass-bad" line per range of
 * blocks that went bad in it (what --plot maps); the run ends with a
 * "surface-passes" summary: how many passes, how it ended, the pass of
 * each milestone, the bad blocks of the range.
 */
#include <math.h>
#include <stdio.h>

#include "output/render.h"
#include "records/passes.h"
#include "records/surface.h"

#define HIDDEN (&text_hidden)
/* text the builder composed, shown as it is: it lives with the record */
#define ALONE(text) \
	((struct text_look){ .display = TEXT_TEMPLATE_ALONE, .template = text })

static const struct text_layout spaced = { .style = TEXT_SPACES };

/* The fields' looks: static, as a record outlives its builder's helpers */
#define LOOK(name, template_text) \
	static const struct text_look name = { .display = TEXT_AS_UNIT, \
					       .template = template_text }
LOOK(value_look, "%");
LOOK(bad_look, "% bad blocks");
LOOK(pass_bad_look, "% bad blocks,");
LOOK(blocks_look, "% blocks");
LOOK(in_all_look, "% in all");
LOOK(new_look, "% new,");
LOOK(result_look, "%;");
LOOK(length_look, "(+%):");
LOOK(offset_look, "bytes at %");
LOOK(pass_time_look, "device time %");
LOOK(time_look, "device time %;");
LOOK(of_look, "of %");
LOOK(pass_look, "pass %:");
LOOK(range_pass_look, "pass %: new bad:");
LOOK(seed_look, "seed %");
LOOK(written_look, "written %,");

static const struct text_look percent_look = { .display = TEXT_FIXED,
	.template = "(%%);", .digits = 2 };

/* bad out of the range's blocks, in percent */
static double percent(const struct passes_run *run, uint64_t bad)
{
	return 100.0 * (double)bad / (double)passes_blocks(run);
}

static int emit_range(const struct record_sink *sink,
		      const struct passes_range *g, uint32_t lbs)
{
	struct record rec = { .kind = "surface-pass-bad", .layout = &spaced };

	record_add(&rec, RECORD_COUNT, "pass", &range_pass_look,
	    NULL, g->pass);
	record_add(&rec, RECORD_BYTES, "offset_bytes", &offset_look,
	    NULL, (double)g->offset);
	record_add(&rec, RECORD_BYTES, "length_bytes", &length_look, NULL,
	    (double)g->length);
	record_add(&rec, RECORD_COUNT, "blocks", &blocks_look, NULL,
	    (double)(g->length / lbs));
	record_add(&rec, RECORD_LABEL, "result", &value_look,
	    surface_state_name(g->state), 0);
	return record_emit(sink, &rec);
}

static void add_bad_figures(struct record *rec, const struct passes_run *run,
			    const struct passes_pass *p, char *listed,
			    size_t size, struct text_look *listed_look)
{
	record_add(rec, RECORD_COUNT, "bad_blocks", &pass_bad_look,
	    NULL, (double)p->bad_blocks);
	record_add(rec, RECORD_COUNT, "new_bad_blocks", &new_look, NULL,
	    (double)p->new_bad_blocks);
	snprintf(listed, size, "in %llu ranges (the first %d listed),",
		 (unsigned long long)p->new_ranges, PASSES_PASS_RANGES);
	*listed_look = ALONE(listed);
	record_add(rec, RECORD_COUNT, "new_bad_ranges",
	    p->new_ranges > PASSES_PASS_RANGES ? listed_look : HIDDEN, NULL,
	    (double)p->new_ranges);
	record_add(rec, RECORD_COUNT, "total_bad_blocks", &in_all_look,
	    NULL, (double)p->total_bad_blocks);
	record_add(rec, RECORD_COUNT, "total_bad_percent", &percent_look,
	    NULL, percent(run, p->total_bad_blocks));
	record_add(rec, RECORD_COUNT, "write_errors", HIDDEN, NULL,
	    (double)p->write_errors);
	record_add(rec, RECORD_COUNT, "read_errors", HIDDEN, NULL,
	    (double)p->read_errors);
}

static int emit_one(const struct record_sink *sink,
		    const struct passes_run *run, const struct passes_pass *p)
{
	struct record rec = { .kind = "surface-pass", .layout = &spaced };
	struct text_look listed_look;
	char listed[96];

	record_add(&rec, RECORD_COUNT, "pass", &pass_look, NULL, p->pass);
	record_add(&rec, RECORD_LABEL, "result", &result_look,
	    passes_outcome_name(p->outcome), 0);
	surface_add_rates(&rec, true, p->write_bps);
	surface_add_rates(&rec, false, p->read_bps);
	add_bad_figures(&rec, run, p, listed, sizeof(listed), &listed_look);
	record_add(&rec, RECORD_BYTES, "bytes_written", HIDDEN, NULL,
	    (double)p->bytes_written);
	record_add(&rec, RECORD_BYTES, "bytes_read", HIDDEN, NULL,
	    (double)p->bytes_read);
	record_add(&rec, RECORD_TIME, "device_time_ns", &pass_time_look,
	    NULL, (double)p->device_time_ns);
	record_add(&rec, RECORD_TIME, "wall_ns", HIDDEN, NULL,
	    (double)p->wall_ns);
	record_add(&rec, RECORD_COUNT, "slices_stamped", HIDDEN, NULL,
	    p->slices_stamped);
	return record_emit(sink, &rec);
}

int passes_emit_pass(const struct record_sink *sink,
		     const struct passes_run *run,
		     const struct passes_pass *pass)
{
	size_t n;
	const struct passes_range *g = passes_ranges_of(run, pass->pass, &n);
	int err = emit_one(sink, run, pass);

	for (size_t i = 0; !err && i < n; i++)
		err = emit_range(sink, &g[i], run->block_bytes);
	return err;
}

int passes_emit_done(const struct record_sink *sink,
		     const struct passes_run *run)
{
	int err = 0;

	for (size_t i = 0; !err && i < run->done_count; i++)
		err = passes_emit_pass(sink, run, &run->done[i]);
	return err;
}

/* ---- the summary ---- */

/* The summary's texts, composed for the text line. */
struct texts {
	char passes[64], ended[160], until[32];
	char milestone[PASSES_MILESTONES][48];
	struct text_look passes_look, ended_look;
	struct text_look milestone_look[PASSES_MILESTONES];
};

static const char *const milestone_keys[PASSES_MILESTONES] = {
	[PASSES_AT_FIRST_ERROR] = "first_error_pass",
	[PASSES_AT_TENTH_PERCENT] = "tenth_percent_pass",
	[PASSES_AT_ONE_PERCENT] = "one_percent_pass",
	[PASSES_AT_TEN_PERCENT] = "ten_percent_pass",
};

static const char *const milestone_names[PASSES_MILESTONES] = {
	[PASSES_AT_FIRST_ERROR] = "first error",
	[PASSES_AT_TENTH_PERCENT] = "0.1% bad",
	[PASSES_AT_ONE_PERCENT] = "1% bad",
	[PASSES_AT_TEN_PERCENT] = "10% bad",
};

/* The pass the run ended at or in: the last done, or the one going. */
static uint32_t end_pass(const struct passes_run *run)
{
	if (run->current)
		return run->current;
	return run->done_count ? run->done[run->done_count - 1].pass : 0;
}

/* "--until=first-error", "--until=0.5%", "--until=read-only" */
static void until_text(const struct passes_run *run, char *buf, size_t size)
{
	if (run->until == PASSES_UNTIL_PERCENT)
		snprintf(buf, size, "--until=%g%%", run->until_fraction * 100);
	else
		snprintf(buf, size, "--until=%s",
			 run->until == PASSES_UNTIL_FIRST_ERROR ?
			 "first-error" : "read-only");
}

static void ended_text(const struct passes_run *run, struct texts *t)
{
	unsigned long long passes = run->passes;
	uint32_t at = end_pass(run);

	until_text(run, t->until, sizeof(t->until));
	switch (run->ended) {
	case PASSES_ALL_DONE:
		snprintf(t->ended, sizeof(t->ended), "ended: the %llu "
			 "pass%s asked for;", passes, passes == 1 ? "" : "es");
		break;
	case PASSES_UNTIL_REACHED:
		snprintf(t->ended, sizeof(t->ended), "ended: %s reached at "
			 "pass %u;", t->until, at);
		break;
	case PASSES_READ_ONLY:
		snprintf(t->ended, sizeof(t->ended), "ended: read-only at "
			 "pass %u (the card refuses writes, its reads "
			 "answer);", at);
		break;
	case PASSES_STOPPED_ANSWERING:
		snprintf(t->ended, sizeof(t->ended), "ended: the card "
			 "stopped answering in pass %u;", at);
		break;
	default:
		snprintf(t->ended, sizeof(t->ended), "ended: %s in pass %u;",
			 passes_end_name(run->ended), at);
		break;
	}
}

static void add_milestones(struct record *rec, const struct passes_run *run,
			   struct texts *t)
{
	for (int m = 0; m < PASSES_MILESTONES; m++) {
		char *text = t->milestone[m];
		const char *end = m + 1 == PASSES_MILESTONES ? ";" : ",";

		if (run->milestone[m])
			snprintf(text, sizeof(t->milestone[0]), "%s at pass "
				 "%u%s", milestone_names[m], run->milestone[m],
				 end);
		else
			snprintf(text, sizeof(t->milestone[0]), "%s: not "
				 "reached%s", milestone_names[m], end);
		t->milestone_look[m] = ALONE(text);
		record_add(rec, RECORD_COUNT, milestone_keys[m],
		    &t->milestone_look[m], NULL,
		    run->milestone[m] ? (double)run->milestone[m] : NAN);
	}
}

/* What the done passes wrote and took, summed. */
static void sums(const struct passes_run *run, uint64_t *written,
		 uint64_t *device_ns, uint64_t *wall_ns)
{
	*written = *device_ns = *wall_ns = 0;
	for (size_t i = 0; i < run->done_count; i++) {
		*written += run->done[i].bytes_written;
		*device_ns += run->done[i].device_time_ns;
		*wall_ns += run->done[i].wall_ns;
	}
}

static void add_run(struct record *rec, const struct passes_run *run,
		    struct texts *t)
{
	snprintf(t->passes, sizeof(t->passes), "endurance: %zu pass%s;",
		 run->done_count, run->done_count == 1 ? "" : "es");
	t->passes_look = ALONE(t->passes);
	t->ended_look = ALONE(t->ended);
	record_add(rec, RECORD_COUNT, "passes", &t->passes_look, NULL,
	    (double)run->done_count);
	record_add(rec, RECORD_LABEL, "end", &t->ended_look,
	    passes_end_name(run->ended), 0);
	record_add(rec, RECORD_COUNT, "end_pass", HIDDEN, NULL,
	    end_pass(run) ? (double)end_pass(run) : NAN);
	record_add(rec, RECORD_COUNT, "passes_asked", HIDDEN, NULL,
	    run->passes ? (double)run->passes : NAN);
	record_add(rec, RECORD_LABEL, "until", HIDDEN,
	    run->until == PASSES_UNTIL_NONE ? NULL : t->until + 8, 0);
	add_milestones(rec, run, t);
}

int passes_emit_summary(const struct record_sink *sink,
			const struct passes_run *run)
{
	struct record rec = { .kind = "surface-passes", .layout = &spaced };
	uint64_t written, device_ns, wall_ns;
	struct texts t;

	ended_text(run, &t);
	sums(run, &written, &device_ns, &wall_ns);
	add_run(&rec, run, &t);
	record_add(&rec, RECORD_COUNT, "bad_blocks", &bad_look,
	    NULL, (double)run->bad_blocks);
	record_add(&rec, RECORD_COUNT, "blocks", &of_look, NULL,
	    (double)passes_blocks(run));
	record_add(&rec, RECORD_COUNT, "bad_percent", &percent_look, NULL,
	    percent(run, run->bad_blocks));
	record_add(&rec, RECORD_BYTES, "start_bytes", HIDDEN, NULL,
	    (double)run->start);
	record_add(&rec, RECORD_BYTES, "end_bytes", HIDDEN, NULL,
	    (double)run->end);
	record_add(&rec, RECORD_BYTES, "bytes_written", &written_look,
	    NULL, (double)written);
	record_add(&rec, RECORD_TIME, "device_time_ns",
	    &time_look, NULL, (double)device_ns);
	record_add(&rec, RECORD_TIME, "wall_ns", HIDDEN, NULL,
	    (double)wall_ns);
	record_add(&rec, RECORD_COUNT, "seed", &seed_look, NULL,
	    (double)run->seed);
	return record_emit(sink, &rec);
}
