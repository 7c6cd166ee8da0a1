/*
 * records/analyze: --analyze's findings as records with their text layout,
 * rendered in every format by report.c, as records/detect.c does for
 * --detect: a line of text is a record, the words around its values
 * are its layout.  Records that only the machine formats need (each
 * open-AU run and its points) have no line; lines that only people need
 * (the table headings) are the layout of the record below them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "records/analyze.h"
#include "records/detect.h"

#define CAPTION_WIDTH 22	/* "%-22s" of the findings' lines */
#define TEMPLATE_MAX 512
#define NOTES_MAX 4
#define ANALYZE_ADVICE_MAX 16
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

#define LINE(name) { .style = TEXT_SPACES, .caption = name, \
		     .caption_width = CAPTION_WIDTH }

static const struct text_layout spaces = { .style = TEXT_SPACES };
static const struct text_layout packed = { .style = TEXT_PACKED };
static const struct text_layout alternative_line = LINE("  or:");
static const struct text_layout claim_line = LINE("Preferred erase size:");
static const struct text_layout limit_line = LINE("");
static const struct text_layout order_cost_line = LINE("  random/linear:");

static const struct text_look not_determined = {
	.display = TEXT_AS_UNIT, .template = "not determined: %" };
static const struct text_look at_least = { .display = TEXT_AS_UNIT,
	.template = "at least %" };
static const struct text_look lower_bound_confidence = {
	.display = TEXT_FIXED, .digits = 2,
	.template = "(confidence %): no run fell off; try a larger "
		    "--open-au-nr" };

/* "Read 12 align lines in 1 table and 2 open-AU runs; 0 lines ignored" */
static int emit_input(struct render *report, const struct analyze_result *r,
		      const struct analyze_findings *f)
{
	const struct text_look looks[] = {
		{ .template = "Read % align lines in" },
		{ .template = r->table_count == 1 ? "% table and" :
			      "% tables and" },
		{ .template = r->run_count == 1 ? "% open-AU run;" :
			      "% open-AU runs;" },
		{ .template = "% lines ignored\n" },
	};
	const struct { const char *key; double value; } fields[] = {
		{ "align_lines", (double)r->point_count },
		{ "align_tables", r->table_count },
		{ "open_au_runs", (double)r->run_count },
		{ "lines_ignored", (double)r->lines_ignored },
		{ "lines", (double)r->lines },
		{ "commands", (double)r->commands },
		{ "align_table_used", f->table_points ? f->table + 1.0 : NAN },
		{ "dropped", (double)r->dropped },
	};
	struct record rec = { .kind = "input", .layout = &spaces };

	for (size_t i = 0; i < COUNT_OF(fields); i++)
		rec.fields[rec.count++] = (struct record_field){ RECORD_COUNT,
			fields[i].key, i < COUNT_OF(looks) ? &looks[i] :
			&text_hidden, NULL, fields[i].value };
	return render_record(report, &rec);
}

/* The findings, in the text's order. */
enum finding_shown { SHOWN_ALWAYS, SHOWN_IF_KNOWN, SHOWN_NEVER };

struct finding_row {
	struct text_layout line;
	enum finding_shown shown;
	bool open;		/* an open count: at least N, or exactly */
};

static const struct finding_row finding_rows[ANALYSIS_FINDING_COUNT] = {
	[ANALYSIS_ERASE] = { LINE("Erase block size:"), SHOWN_ALWAYS, false },
	[ANALYSIS_PAGE] = { LINE("Page size:"), SHOWN_ALWAYS, false },
	[ANALYSIS_EFFECTIVE_PAGE] = { LINE("Effective page size:"),
				      SHOWN_IF_KNOWN, false },
	[ANALYSIS_OPEN_LINEAR] = { LINE("Open erase blocks:"), SHOWN_ALWAYS,
				   true },
	[ANALYSIS_OPEN_RANDOM] = { LINE("  with --random:"), SHOWN_ALWAYS,
				   true },
	[ANALYSIS_MIN_WRITE] = { LINE(""), SHOWN_NEVER, false },
	[ANALYSIS_FAT_AREA] = { LINE(""), SHOWN_NEVER, false },
};

static const char not_shown[] = "not shown by align or open-AU output";

/* A row's finding, why it is missing ("" if known), and its bound. */
static const struct analysis_finding *finding_of(
	const struct analyze_findings *f, unsigned row, const char **why,
	bool *lower_bound)
{
	static const struct analysis_finding none;

	*lower_bound = false;
	switch (row) {
	case ANALYSIS_ERASE:
		*why = f->erase_why;
		return &f->geometry.erase;
	case ANALYSIS_PAGE:
		*why = f->page_why;
		return &f->geometry.page;
	case ANALYSIS_EFFECTIVE_PAGE:
		*why = "";
		return &f->geometry.effective_page;
	case ANALYSIS_OPEN_LINEAR:
		*why = f->linear_why;
		*lower_bound = f->open.linear_lower_bound;
		return &f->open.linear;
	case ANALYSIS_OPEN_RANDOM:
		*why = f->random_why;
		*lower_bound = f->open.random_lower_bound;
		return &f->open.random;
	default:
		*why = not_shown;
		return &none;
	}
}

/*
 * A finding: name, value, confidence, why it is not known and, for an
 * open count, whether it is a lower bound.  Text: "caption value
 * (confidence c)", "caption at least N (...)" or "caption not determined:
 * why".
 */
static int emit_finding(struct render *report,
			const struct analyze_findings *f, unsigned row)
{
	const struct finding_row *r = &finding_rows[row];
	const struct analysis_finding_name *id = &analysis_finding_names[row];
	const char *why;
	bool bound;
	const struct analysis_finding *found = finding_of(f, row, &why,
							  &bound);
	struct record rec;

	analysis_finding_record(id->name, found, id->bytes, why, &rec);
	if (r->open)
		rec.fields[rec.count++] = (struct record_field){ RECORD_BOOL,
			"lower_bound", NULL, NULL, bound };
	rec.layout = &r->line;
	render_hide_fields(&rec);
	if (r->shown == SHOWN_NEVER ||
	    (r->shown == SHOWN_IF_KNOWN && !found->known))
		return render_record(report, &rec);
	if (!found->known) {
		rec.fields[3].look = &not_determined;
	} else if (bound) {
		rec.fields[1].look = &at_least;
		rec.fields[2].look = &lower_bound_confidence;
	} else {
		rec.fields[1].look = id->bytes ? &detect_exact_size_look : NULL;
		rec.fields[2].look = &detect_confidence_look;
	}
	return render_record(report, &rec);
}

/*
 * What random order costs by itself: the random_linear_ratio finding,
 * "  random/linear:      0.25 of the linear rate at N=1 (confidence
 * 0.90)", or not determined without a random run and a linear one.
 */
static int emit_order_cost(struct render *report,
			   const struct analysis_open *o)
{
	const struct analysis_order_cost *c = &o->random_linear;

	return detect_report_order_cost(report, c, &order_cost_line,
					"of the linear rate", "why",
					c->known ? "" :
					"a --random run and a linear one with "
					"no more erase blocks are needed", true);
}

/* What the text said of the erase size, and whether the reading agrees. */
static int emit_claim(struct render *report, const struct analyze_result *r,
		      const struct analysis_geometry *g)
{
	static const char *const verdicts[] = {
		"% (no reading to compare)", "% (agrees)",
		"% (matches the alternative)", "% (disagrees with the reading)" };
	int verdict = g->prior_verdict == 1 ? 1 : g->prior_verdict == 2 ? 2 :
		      g->prior_verdict == -1 ? 3 : 0;
	const struct analysis_finding claim = {
		.known = r->prior.preferred_erase != 0,
		.value = r->prior.preferred_erase, .confidence = NAN };
	const struct text_look look = { .display = TEXT_EXACT_SIZE,
					.template = verdicts[verdict] };
	struct record rec;

	analysis_finding_record("preferred_erase_size", &claim, true, "",
				&rec);
	rec.layout = &claim_line;
	render_hide_fields(&rec);
	if (claim.known)
		rec.fields[1].look = &look;
	return render_record(report, &rec);
}

/* The SD specification's largest erase size for the capacity, if known:
   shown when the reading is above it. */
static int emit_limit(struct render *report, const struct analysis_geometry *g)
{
	static const struct text_look above = { .display = TEXT_EXACT_SIZE,
		.template = "above the % the SD specification allows a card "
			    "of this capacity" };
	struct record rec = { .kind = "sd_limit", .count = 1,
				 .layout = &limit_line };

	if (!g->spec_max_au)
		return 0;
	rec.fields[0] = (struct record_field){ RECORD_BYTES, "max_erase_size_bytes",
		g->erase.known && g->erase.value > g->spec_max_au ? &above :
		&text_hidden, NULL, (double)g->spec_max_au };
	return render_record(report, &rec);
}

/* The words after an align line: the largest boundary it is, if any. */
static const char *boundary_of(const struct analysis_geometry *g,
			       uint64_t align)
{
	if (g->erase.known && align % g->erase.value == 0)
		return "erase-block";
	if (g->effective_page.known && align % g->effective_page.value == 0)
		return "effective-page";
	if (g->page.known && align % g->page.value == 0)
		return "page";
	return "";
}

/* "Align table 1 of 1 (12 lines); diff = ..." and the column heads. */
static void align_heading(const struct analyze_result *r,
			  const struct analyze_findings *f, char *buf,
			  size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "\nAlign table %u of %u (%zu "
				    "lines", f->table + 1, r->table_count,
				    f->table_points);

	if (r->table_count > 1 && n < size)
		n += (size_t)snprintf(buf + n, size - n, "; the reading pools "
				      "all %u", r->table_count);
	if (n < size)
		snprintf(buf + n, size - n, "); diff = on - (pre + post) / "
			 "2:\n  %-8s%10s%10s%10s%10s\n  %%", "align", "pre",
			 "on", "post", "diff");
}

/* The align lines of the table used, an "align" record each. */
static int emit_align(struct render *report, const struct analyze_result *r,
		      const struct analyze_findings *f)
{
	static const char *const keys[] = { "pre_ns", "on_ns", "post_ns",
					    "diff_ns" };
	static const struct text_look column = { .display = TEXT_AS_UNIT,
		.width = 10, .right = true };
	static const struct text_look boundary = { .display = TEXT_AS_UNIT,
		.template = "  % boundary" };
	char heading[TEMPLATE_MAX];
	const struct text_look aligns[] = {
		{ .display = TEXT_EXACT_SIZE, .template = heading, .width = 8 },
		{ .display = TEXT_EXACT_SIZE, .template = "  %", .width = 8 },
	};
	bool first = true;
	int err = 0;

	if (!f->table_points)
		return 0;
	align_heading(r, f, heading, sizeof(heading));
	for (size_t i = 0; !err && i < r->point_count; i++) {
		const struct analysis_align_point *p = &r->points[i];
		const double ns[] = { p->pre, p->on, p->post, p->diff };
		const char *mark = boundary_of(&f->geometry, p->align);
		struct record rec = { .kind = "align", .count = 1,
					 .layout = &packed };

		if (r->point_table[i] != f->table)
			continue;
		rec.fields[0] = (struct record_field){ RECORD_BYTES, "align_bytes",
			&aligns[first ? 0 : 1], NULL, (double)p->align };
		first = false;
		for (size_t k = 0; k < COUNT_OF(keys); k++)
			rec.fields[rec.count++] = (struct record_field){
				RECORD_TIME, keys[k], &column, NULL, ns[k] };
		rec.fields[rec.count++] = (struct record_field){ RECORD_LABEL,
			"boundary", mark[0] ? &boundary : &text_hidden, mark,
			0 };
		err = render_record(report, &rec);
	}
	return err;
}

static const char *verdict_text(const struct analysis_run *run,
				const struct analysis_verdict *v)
{
	if (!run->nr)
		return "N unknown: not used";
	if (!v->has_reference)
		return "reference: no run with fewer N";
	if (!v->compared && v->at_floor)
		return "every size already at the thrashing rate";
	if (!v->compared)
		return "no size below the erase size to compare";
	return v->fell ? "falls off" : "holds";
}

/* The open-AU table's heading and column heads, then "  %". */
static void runs_heading(char *buf, size_t size)
{
	snprintf(buf, size, "\nOpen-AU runs, each against the runs with fewer "
		 "erase blocks (rate / their rate; falls off with a median "
		 "below %.2g;\nrepeated runs combined, median per size):\n"
		 "  %5s  %-6s %4s %5s  %6s %5s %-8s %s\n  %%",
		 ANALYSIS_FALL_RATIO, "N", "order", "runs", "sizes", "median",
		 "worst", "at", "verdict");
}

/*
 * One record per N and order, repeated runs combined, the line of the
 * open-AU table: "      6  linear    1     9    0.97  0.93 4MiB  holds".
 */
static int emit_combined(struct render *report,
			 const struct analyze_result *r)
{
	char heading[TEMPLATE_MAX];
	const struct text_look looks[] = {
		{ .template = heading, .width = 5, .right = true,
		  .unknown = "?" },
		{ .template = "  %", .width = 6 },
		{ .template = " %", .width = 4, .right = true },
		{ .template = " %", .width = 5, .right = true },
		{ .display = TEXT_FIXED, .digits = 2, .template = "  %",
		  .width = 6, .right = true, .unknown = "-" },
		{ .display = TEXT_FIXED, .digits = 2, .template = " %",
		  .width = 5, .right = true, .unknown = "-" },
		{ .display = TEXT_EXACT_SIZE, .template = " %", .width = 8,
		  .unknown = "" },
		{ .template = " %" },
	};
	const struct text_look *nr_later = &(const struct text_look){
		.template = "  %", .width = 5, .right = true, .unknown = "?" };
	int err = 0;

	runs_heading(heading, sizeof(heading));
	for (size_t i = 0; !err && i < r->combined_count; i++) {
		const struct analysis_run *run = &r->combined[i];
		struct analysis_verdict v;
		struct record rec = { .kind = "open_au_combined",
					 .count = 8, .layout = &packed };

		analysis_open_au_verdict(r->combined, r->combined_count, i,
					 &v);
		rec.fields[0] = (struct record_field){ RECORD_COUNT, "nr",
			i ? nr_later : &looks[0], NULL,
			run->nr ? (double)run->nr : NAN };
		rec.fields[1] = (struct record_field){ RECORD_LABEL, "order",
			&looks[1], run->random ? "random" : "linear", 0 };
		rec.fields[2] = (struct record_field){ RECORD_COUNT, "runs",
			&looks[2], NULL, run->combined };
		rec.fields[3] = (struct record_field){ RECORD_COUNT, "sizes",
			&looks[3], NULL, (double)run->count };
		rec.fields[4] = (struct record_field){ RECORD_COUNT,
			"median_ratio", &looks[4], NULL,
			v.compared ? v.median_ratio : NAN };
		rec.fields[5] = (struct record_field){ RECORD_COUNT,
			"worst_ratio", &looks[5], NULL,
			v.compared ? v.worst_ratio : NAN };
		rec.fields[6] = (struct record_field){ RECORD_BYTES, "worst_size_bytes",
			&looks[6], NULL, v.compared ?
			(double)v.worst_size : NAN };
		rec.fields[7] = (struct record_field){ RECORD_LABEL, "verdict",
			&looks[7], verdict_text(run, &v), 0 };
		err = render_record(report, &rec);
	}
	return err;
}

/*
 * Each open-AU run as read, for the machine formats: a record of kind
 * "open_au_run" with its verdict, then one of kind "open_au_point" per
 * block size, both numbered "run".  Text shows the combined runs.
 */
static int emit_runs(struct render *report, const struct analyze_result *r)
{
	int err = 0;

	for (size_t i = 0; !err && i < r->run_count; i++) {
		const struct analysis_run *run = &r->runs[i];
		struct analysis_verdict v;
		struct record rec = { .kind = "open_au_run", .count = 5 };

		analysis_open_au_verdict(r->combined, r->combined_count,
					 r->run_combined[i], &v);
		rec.fields[0] = (struct record_field){ RECORD_COUNT, "run",
			&text_hidden, NULL, (double)i + 1 };
		rec.fields[1] = (struct record_field){ RECORD_COUNT, "nr",
			&text_hidden, NULL, run->nr ? (double)run->nr : NAN };
		rec.fields[2] = (struct record_field){ RECORD_BOOL, "random",
			&text_hidden, NULL, run->random };
		rec.fields[3] = (struct record_field){ RECORD_BOOL, "falls_off",
			&text_hidden, NULL, v.compared ? v.fell : NAN };
		rec.fields[4] = (struct record_field){ RECORD_COUNT,
			"median_ratio", &text_hidden, NULL,
			v.compared ? v.median_ratio : NAN };
		err = render_record(report, &rec);
		rec.kind = "open_au_point";
		for (size_t j = 0; !err && j < run->count; j++) {
			rec.count = 3;
			rec.fields[1] = (struct record_field){ RECORD_BYTES,
				"block_bytes", &text_hidden, NULL,
				(double)run->size[j] };
			rec.fields[2] = (struct record_field){ RECORD_RATE,
				"bytes_per_s", &text_hidden, NULL, run->rate[j] };
			err = render_record(report, &rec);
		}
	}
	return err;
}

/* What this input cannot tell, a "cannot_tell" record each. */
static int emit_cannot_tell(struct render *report,
			    const struct analyze_result *r,
			    const struct analyze_findings *f)
{
	char notes[NOTES_MAX][ANALYSIS_ADVICE_BYTES];
	size_t n = 0;

	snprintf(notes[n++], sizeof(notes[0]), "minimum write size and FAT "
		 "area: saved align and open-AU output does not show them");
	if (!r->point_count)
		snprintf(notes[n++], sizeof(notes[0]), "erase block and page "
			 "size: no align table found");
	if (!r->run_count)
		snprintf(notes[n++], sizeof(notes[0]), "open erase blocks: no "
			 "open-AU runs found");
	else if (f->open.linear_lower_bound || f->open.random_lower_bound)
		snprintf(notes[n++], sizeof(notes[0]), "open erase blocks "
			 "beyond the largest N tried: no run fell off");
	if (r->dropped)
		snprintf(notes[n++], sizeof(notes[0]), "%zu records past the "
			 "limits (%d align lines, %d runs of %d sizes) or "
			 "find-fat rows were not used", r->dropped,
			 ANALYZE_MAX_POINTS, ANALYZE_MAX_RUNS,
			 ANALYSIS_MAX_SIZES);
	return detect_report_lines(report, "cannot_tell",
				   "Cannot tell from this input:",
				   (const char (*)[ANALYSIS_ADVICE_BYTES])notes,
				   n);
}

/* The records in the text's order: a line each, or none. */
static int emit_all(struct render *report, const struct analyze_result *r,
		    const struct analyze_findings *f,
		    const char (*advice)[ANALYSIS_ADVICE_BYTES],
		    size_t advice_count)
{
	int err = emit_input(report, r, f);

	if (!err)
		err = emit_finding(report, f, ANALYSIS_ERASE);
	if (!err)
		err = detect_report_alternative(report, &f->geometry,
			&alternative_line,
			": a lower step that could be the erase block");
	for (unsigned row = ANALYSIS_PAGE;
	     !err && row <= ANALYSIS_EFFECTIVE_PAGE; row++)
		err = emit_finding(report, f, row);
	if (!err)
		err = emit_claim(report, r, &f->geometry);
	if (!err)
		err = emit_limit(report, &f->geometry);
	for (unsigned row = ANALYSIS_OPEN_LINEAR;
	     !err && row < ANALYSIS_FINDING_COUNT; row++)
		err = emit_finding(report, f, row);
	if (!err)
		err = emit_order_cost(report, &f->open);
	if (!err)
		err = detect_report_lines(report, "recommendation",
					  "Advice:", advice, advice_count);
	if (!err)
		err = detect_report_staircase(report, &f->geometry,
				       f->table_points > 0);
	if (!err)
		err = emit_align(report, r, f);
	if (!err && r->combined_count)
		err = emit_combined(report, r);
	if (!err)
		err = emit_runs(report, r);
	if (!err)
		err = emit_cannot_tell(report, r, f);
	return err;
}

int analyze_report(const struct analyze_result *r,
		   enum render_format format, const char *command, FILE *out)
{
	static const struct dev_stats nothing;	/* it measures nothing */
	char advice[ANALYZE_ADVICE_MAX][ANALYSIS_ADVICE_BYTES];
	const struct render_meta meta = { .test = "analyze",
		.command = command,
		.index_member = "findings", .index_key = "name",
		.index_schema1 = true };
	const struct analysis_finding *erase, *page, *linear;
	struct analyze_findings f;
	struct render *report;
	size_t advice_count;
	int err;

	analyze_findings(r, &f);
	erase = &f.geometry.erase;
	page = &f.geometry.page;
	linear = &f.open.linear;
	advice_count = analysis_recommend(erase->known ? erase->value : 0,
					page->known ? page->value : 0,
					/* "at least N" is no limit to plan by */
					linear->known &&
					!f.open.linear_lower_bound ?
					(unsigned)linear->value : 0,
					advice, ANALYZE_ADVICE_MAX);
	report = render_open(out, format, &meta);
	if (!report)
		return -ENOMEM;
	err = emit_all(report, r, &f,
		       (const char (*)[ANALYSIS_ADVICE_BYTES])advice,
		       advice_count);
	if (render_close(report, &nothing, false) && !err)
		err = -EIO;
	return err ? -EIO : 0;
}
