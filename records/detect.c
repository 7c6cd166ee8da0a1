/*
 * records/detect: --detect's findings as records, and their text layout.
 * Every format renders the same records through report.c: a line of
 * text is a record, and the labels around the values ("erase block
 * size:", "(confidence 0.99)") are its layout, so CSV and JSON carry the
 * values alone.  JSON indexes the findings by name beside "results", as
 * --class-check does its classes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "records/detect.h"
#include "lib/units.h"

/* "%-26s " of the original lines: 26 columns and the space after them */
#define CAPTION_WIDTH 27
#define TEMPLATE_MAX 160

/* A line "caption:                   value": one layout each. */
#define LINE(name) { .style = TEXT_SPACES, .caption = name, \
		     .caption_width = CAPTION_WIDTH }

static const struct text_layout device_line = LINE("device:");
static const struct text_layout card_line = LINE("card:");
static const struct text_layout cost_line = LINE("cost:");
static const struct text_layout alternative_line = LINE("  or:");
static const struct text_layout claim_line = LINE("card's preferred erase:");
static const struct text_layout order_cost_line = LINE("random/linear:");
static const struct text_layout spaces = { .style = TEXT_SPACES };

const struct text_look detect_exact_size_look = {
	.display = TEXT_EXACT_SIZE };
const struct text_look detect_confidence_look = { .display = TEXT_FIXED,
	.template = "(confidence %)", .digits = 2 };

/* The findings, in the text's order; shown: printed in text at all. */
enum finding_shown { SHOWN_ALWAYS, SHOWN_IF_KNOWN, SHOWN_IF_WRITTEN };

struct finding_row {
	struct text_layout line;	/* its caption */
	enum finding_shown shown;
};

static const struct finding_row finding_rows[ANALYSIS_FINDING_COUNT] = {
	[ANALYSIS_ERASE] = { LINE("erase block size:"), SHOWN_ALWAYS },
	[ANALYSIS_PAGE] = { LINE("page size:"), SHOWN_ALWAYS },
	[ANALYSIS_EFFECTIVE_PAGE] = { LINE("effective page size:"),
				      SHOWN_IF_KNOWN },
	[ANALYSIS_OPEN_LINEAR] = { LINE("open erase blocks:"),
				   SHOWN_IF_WRITTEN },
	[ANALYSIS_OPEN_RANDOM] = { LINE("open out of order:"),
				   SHOWN_IF_WRITTEN },
	[ANALYSIS_MIN_WRITE] = { LINE("smallest efficient write:"),
				 SHOWN_IF_WRITTEN },
	[ANALYSIS_FAT_AREA] = { LINE("FAT-like area:"), SHOWN_IF_WRITTEN },
};

static const struct analysis_finding *finding_of(
	const struct detect_findings *f, unsigned row)
{
	const struct analysis_finding *all[ANALYSIS_FINDING_COUNT] = {
		[ANALYSIS_ERASE] = &f->geometry.erase,
		[ANALYSIS_PAGE] = &f->geometry.page,
		[ANALYSIS_EFFECTIVE_PAGE] = &f->geometry.effective_page,
		[ANALYSIS_OPEN_LINEAR] = &f->open_linear,
		[ANALYSIS_OPEN_RANDOM] = &f->open_random,
		[ANALYSIS_MIN_WRITE] = &f->min_write,
		[ANALYSIS_FAT_AREA] = &f->fat_area,
	};

	return all[row];
}

/* The text of a finding not determined: "not determined: REASON". */
static const struct text_look not_determined = {
	.display = TEXT_AS_UNIT, .template = "not determined: %" };

/* A count that no probe fell off at: at least this many (0: none). */
static unsigned at_least_of(const struct detect_findings *f, unsigned row)
{
	return row == ANALYSIS_OPEN_LINEAR ? f->open_linear_at_least :
	       row == ANALYSIS_OPEN_RANDOM ? f->open_random_at_least : 0;
}

/*
 * A finding: name, value, confidence, why it is not determined (null
 * when it is) and, for the open counts, the lower bound a search that
 * never fell off gives.  Text shows "caption value (confidence c)" or
 * "caption not determined: reason", or no line.
 */
static int emit_finding(struct render *report,
			const struct detect_findings *f, unsigned row)
{
	const struct finding_row *r = &finding_rows[row];
	const struct analysis_finding_name *id = &analysis_finding_names[row];
	const struct analysis_finding *found = finding_of(f, row);
	bool shown = r->shown == SHOWN_ALWAYS ||
		     (r->shown == SHOWN_IF_KNOWN && found->known) ||
		     (r->shown == SHOWN_IF_WRITTEN && f->wrote);
	unsigned at_least = at_least_of(f, row);
	struct record rec;

	analysis_finding_record(id->name, found, id->bytes, NULL, &rec);
	rec.fields[rec.count++] = (struct record_field){ RECORD_LABEL, "reason",
		NULL, found->known ? NULL :
		found->reason[0] ? found->reason : "unknown", 0 };
	if (row == ANALYSIS_OPEN_LINEAR || row == ANALYSIS_OPEN_RANDOM)
		rec.fields[rec.count++] = (struct record_field){ RECORD_COUNT,
			"at_least", NULL, NULL, at_least ? (double)at_least : NAN };
	rec.layout = &r->line;
	render_hide_fields(&rec);
	if (shown && found->known) {
		rec.fields[1].look = id->bytes ? &detect_exact_size_look : NULL;
		rec.fields[2].look = &detect_confidence_look;
	} else if (shown) {
		rec.fields[3].look = &not_determined;
	}
	return render_record(report, &rec);
}

int detect_report_order_cost(struct render *report,
			     const struct analysis_order_cost *c,
			     const struct text_layout *line, const char *of,
			     const char *why_key, const char *why, bool shown)
{
	char template[TEMPLATE_MAX];
	const struct text_look ratio = { .display = TEXT_FIXED, .digits = 2,
					 .template = template };
	static const struct text_look at = { .template = "at N=%" };
	struct record rec = { .kind = "finding", .count = 5,
			      .layout = line };

	snprintf(template, sizeof(template), "%% %s", of);
	rec.fields[0] = (struct record_field){ RECORD_LABEL, "name",
		&text_hidden, "random_linear_ratio", 0 };
	rec.fields[1] = (struct record_field){ RECORD_COUNT, "value",
		c->known ? &ratio : &text_hidden, NULL,
		c->known ? c->ratio : NAN };
	rec.fields[2] = (struct record_field){ RECORD_COUNT, "nr",
		c->known ? &at : &text_hidden, NULL,
		c->known ? (double)c->nr : NAN };
	rec.fields[3] = (struct record_field){ RECORD_COUNT, "confidence",
		c->known ? &detect_confidence_look : &text_hidden, NULL,
		c->known ? c->confidence : NAN };
	rec.fields[4] = (struct record_field){ RECORD_LABEL, why_key,
		c->known ? &text_hidden : &not_determined, why, 0 };
	if (!shown)
		render_hide_fields(&rec);
	return render_record(report, &rec);
}

/* random/linear:  0.49 of the in-order rate at N=1 (confidence 0.50) */
static int emit_order_cost(struct render *report,
			   const struct detect_findings *f)
{
	const struct analysis_order_cost *c = &f->random_linear;

	return detect_report_order_cost(report, c, &order_cost_line,
					"of the in-order rate", "reason",
					c->known ? NULL :
					f->random_linear_reason[0] ?
					f->random_linear_reason : "unknown",
				 f->wrote);
}

/* "  or:  2MiB (weight 0.40 against 0.60)", when two readings fit. */
int detect_report_alternative(struct render *report,
			      const struct analysis_geometry *g,
			      const struct text_layout *line, const char *tail)
{
	char template[TEMPLATE_MAX];
	struct text_look weight = { .display = TEXT_FIXED, .digits = 2,
				    .template = template };
	struct record rec;

	if (!g->erase.known || !g->erase_alternative.known)
		return 0;
	snprintf(template, sizeof(template), "(weight %% against %.2f%s)",
		 g->erase.confidence, tail);
	analysis_finding_record("erase_alternative", &g->erase_alternative,
				true, NULL, &rec);
	rec.layout = line;
	rec.fields[0].look = &text_hidden;
	rec.fields[1].look = &detect_exact_size_look;
	rec.fields[2].look = &weight;
	return render_record(report, &rec);
}

/* What the card says of its erase size, and whether it agrees. */
static int emit_claim(struct render *report, const struct detect_findings *f)
{
	const struct analysis_geometry *g = &f->geometry;
	const struct analysis_finding claim = { .known = f->sysfs_known,
		.value = f->sysfs_erase, .confidence = NAN };
	struct text_look verdict = { .display = TEXT_EXACT_SIZE };
	struct record rec;

	verdict.template = !g->erase.known ? "% (no measurement to compare)" :
			   g->erase.value == f->sysfs_erase ? "% (agrees)" :
			   "% (disagrees with the measurement)";
	analysis_finding_record("preferred_erase_size", &claim, true, NULL,
				&rec);
	rec.layout = &claim_line;
	render_hide_fields(&rec);
	if (f->sysfs_known)
		rec.fields[1].look = &verdict;
	return render_record(report, &rec);
}

/* "device: PATH (N bytes, logical blocks of N)" */
static int emit_device(struct render *report, const struct dev *dev)
{
	static const struct text_look looks[] = {
		{ .display = TEXT_AS_UNIT },
		{ .display = TEXT_AS_UNIT, .template = "(% bytes," },
		{ .display = TEXT_AS_UNIT, .template = "logical blocks of %)" },
	};
	struct record rec = { .kind = "device", .count = 3,
				 .layout = &device_line };

	rec.fields[0] = (struct record_field){ RECORD_LABEL, "path", &looks[0],
					   dev->path, 0 };
	rec.fields[1] = (struct record_field){ RECORD_BYTES, "size_bytes", &looks[1],
					   NULL, (double)dev->size_bytes };
	rec.fields[2] = (struct record_field){ RECORD_BYTES,
		"logical_block_bytes", &looks[2], NULL,
		(double)dev->logical_block_bytes };
	return render_record(report, &rec);
}

static int emit_card(struct render *report, const struct detect_findings *f)
{
	struct record rec = { .kind = "card", .count = 1,
				 .layout = &card_line };

	rec.fields[0] = (struct record_field){ RECORD_LABEL, "identity", NULL,
					   f->identity, 0 };
	return render_record(report, &rec);
}

/* "cost: 3.252 s, read 6.56MiB, written 0B" */
static int emit_cost(struct render *report, const struct dev_stats *stats)
{
	static const struct text_look looks[] = {
		{ .display = TEXT_SECONDS, .template = "% s,", .digits = 3 },
		{ .display = TEXT_SIZE, .template = "read %," },
		{ .display = TEXT_SIZE, .template = "written %" },
	};
	struct record rec = { .kind = "cost", .count = 3,
				 .layout = &cost_line };

	rec.fields[0] = (struct record_field){ RECORD_TIME, "device_time_ns",
		&looks[0], NULL, (double)stats->time_ns };
	rec.fields[1] = (struct record_field){ RECORD_BYTES, "bytes_read",
		&looks[1], NULL, (double)stats->bytes_read };
	rec.fields[2] = (struct record_field){ RECORD_BYTES, "bytes_written",
		&looks[2], NULL, (double)stats->bytes_written };
	return render_record(report, &rec);
}

/*
 * The staircase: a record of its noise and whether an erase block shows
 * in it ("Staircase (levels of the diff column, noise 935ns per
 * diff):"), then a "level" record each ("  from 4MiB     +99.2µs ...").
 */
int detect_report_staircase(struct render *report,
			    const struct analysis_geometry *g, bool shown)
{
	static const struct text_look level_looks[] = {
		{ .display = TEXT_EXACT_SIZE, .template = "  from %",
		  .width = 8 },
		{ .display = TEXT_AS_UNIT, .template = "+%", .width = 9 },
		{ .display = TEXT_AS_UNIT, .width = 17 },
		{ .display = TEXT_FIXED, .template = "(% noise units)",
		  .digits = 1 },
	};
	static const struct text_layout level_layout = { .style = TEXT_SPACES,
		.looks = level_looks, .look_count = 4 };
	const struct text_look noise = { .display = TEXT_AS_UNIT,
		.template = g->level_count ?
			"\nStaircase (levels of the diff column, noise % per "
			"diff):" :
			"\nStaircase (levels of the diff column, noise % per "
			"diff):\n  no step stands clear of the noise" };
	struct record rec = { .kind = "staircase", .count = 3,
				 .layout = &spaces };
	int err;

	rec.fields[0] = (struct record_field){ RECORD_TIME, "diff_noise_ns",
					   &noise, NULL, g->noise_ns };
	rec.fields[1] = (struct record_field){ RECORD_BOOL, "erase_visible",
					   &text_hidden, NULL, !g->erase_hidden };
	rec.fields[2] = (struct record_field){ RECORD_COUNT,
		"erase_not_visible_confidence", &text_hidden, NULL,
		g->erase_hidden ? g->hidden_confidence : 0 };
	if (!shown)
		render_hide_fields(&rec);
	err = render_record(report, &rec);
	for (size_t j = 0; !err && j < g->level_count; j++) {
		analysis_level_record(&g->levels[j], &rec);
		rec.layout = &level_layout;
		if (!shown)
			render_hide_fields(&rec);
		err = render_record(report, &rec);
	}
	return err;
}

/* Lines of text, a record of kind each, the first under heading. */
int detect_report_lines(struct render *report, const char *kind,
			const char *heading,
			const char (*lines)[ANALYSIS_ADVICE_BYTES],
			size_t count)
{
	char first[TEMPLATE_MAX];
	const struct text_look looks[] = {
		{ .display = TEXT_AS_UNIT, .template = first },
		{ .display = TEXT_AS_UNIT, .template = "  %" },
	};
	int err = 0;

	snprintf(first, sizeof(first), "\n%s\n  %%", heading);
	for (size_t i = 0; !err && i < count; i++) {
		struct record rec = { .kind = kind, .count = 1,
					 .layout = &spaces };

		rec.fields[0] = (struct record_field){ RECORD_LABEL, "text",
			&looks[i ? 1 : 0], lines[i], 0 };
		err = render_record(report, &rec);
	}
	return err;
}

/*
 * The read timing the reading came from, an "align" record per
 * alignment: "  4MiB     pre 91.2µs   on 190µs    post 91.0µs   diff
 * 99.2µs    +- 935ns".
 */
static int emit_evidence(struct render *report,
			 const struct detect_findings *f)
{
	static const char *const keys[] = { "pre_ns", "on_ns", "post_ns",
					    "diff_ns", "noise_ns" };
	static const struct text_look looks[] = {
		{ .display = TEXT_AS_UNIT, .template = "pre %", .width = 8 },
		{ .display = TEXT_AS_UNIT, .template = "on %", .width = 8 },
		{ .display = TEXT_AS_UNIT, .template = "post %", .width = 8 },
		{ .display = TEXT_AS_UNIT, .template = "diff %", .width = 9 },
		{ .display = TEXT_AS_UNIT, .template = "+- %" },
	};
	char heading[TEMPLATE_MAX];
	const struct text_look aligns[] = {
		{ .display = TEXT_EXACT_SIZE, .template = heading,
		  .width = 8 },
		{ .display = TEXT_EXACT_SIZE, .template = "  %", .width = 8 },
	};
	int err = 0;

	snprintf(heading, sizeof(heading), "\nEvidence (read timing, fastest "
		 "of all rounds, median over %u boundaries):\n  %%",
		 f->boundaries);
	for (size_t i = 0; !err && i < f->evidence_count; i++) {
		const struct analysis_align_point *p = &f->evidence[i];
		const double ns[] = { p->pre, p->on, p->post, p->diff,
				      p->noise };
		struct record rec = { .kind = "align", .count = 1,
					 .layout = &spaces };

		rec.fields[0] = (struct record_field){ RECORD_BYTES, "align_bytes",
			&aligns[i ? 1 : 0], NULL, (double)p->align };
		for (size_t k = 0; k < 5; k++)
			rec.fields[rec.count++] = (struct record_field){
				RECORD_TIME, keys[k], &looks[k], NULL,
				ns[k] };
		err = render_record(report, &rec);
	}
	return err;
}

/* The records in the text's order: a line each, or none. */
static int emit_all(struct render *report, const struct dev *dev,
		    const struct detect_findings *f)
{
	int err = emit_device(report, dev);

	if (!err)
		err = emit_card(report, f);
	if (!err)
		err = emit_finding(report, f, ANALYSIS_ERASE);
	if (!err)
		err = detect_report_alternative(report, &f->geometry,
						&alternative_line, "");
	for (unsigned row = ANALYSIS_PAGE;
	     !err && row <= ANALYSIS_EFFECTIVE_PAGE; row++)
		err = emit_finding(report, f, row);
	if (!err)
		err = emit_claim(report, f);
	for (unsigned row = ANALYSIS_OPEN_LINEAR;
	     !err && row <= ANALYSIS_OPEN_RANDOM; row++)
		err = emit_finding(report, f, row);
	if (!err)
		err = emit_order_cost(report, f);
	for (unsigned row = ANALYSIS_MIN_WRITE;
	     !err && row < ANALYSIS_FINDING_COUNT; row++)
		err = emit_finding(report, f, row);
	if (!err)
		err = emit_cost(report, &dev->stats);
	if (!err)
		err = detect_report_staircase(report, &f->geometry, true);
	if (!err)
		err = detect_report_lines(report, "recommendation",
					  "Recommendations:", f->advice,
					  f->advice_count);
	if (!err)
		err = emit_evidence(report, f);
	return err;
}

int detect_report(FILE *out, enum render_format format,
		  const struct render_meta *meta, const struct dev *dev,
		  const struct detect_findings *f)
{
	struct render_meta indexed = *meta;
	struct render *report;
	int err;

	/* JSON: "findings": {"erase_size": {"value": ...}, ...} */
	indexed.index_member = "findings";
	indexed.index_key = "name";
	indexed.index_schema1 = true;
	report = render_open(out, format, &indexed);
	if (!report)
		return -ENOMEM;
	err = emit_all(report, dev, f);
	if (render_close(report, &dev->stats, false) && !err)
		err = -EIO;
	return err;
}
