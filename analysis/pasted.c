/*
 * pasted: saved align and open-AU output back into numbers, judged by
 * analysis/staircase.c and analysis/openau.c and reported.  The parser
 * takes text as people paste it: prompts, prose, folded lines, escape
 * junk, either tool's spelling (pastelex.c the words, pastecmd.c the
 * command lines and loops, pasteline.c each line).  Here: the text line
 * by line, why a line was ignored, the files, and the findings with the
 * reasons for what they cannot tell.  Nothing here touches a device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pasted.h"
#include "analysis/pasteline.h"
#include "lib/readfile.h"
#include "lib/units.h"

/* ---- why a line was ignored ---- */

/* Words a record begins with, to tell a misspelling of one. */
static const char *const keywords[] = { "align", "pre", "on", "post",
					"diff", "flashbench" };

/*
 * One edit apart (a letter changed, added, dropped, or two swapped):
 * "aling", "algn", "allign" for align.
 */
static bool one_edit(const struct paste_token *t, const char *word)
{
	size_t n = strlen(word), i = 0;

	if (t->len + 1 < n || t->len > n + 1 || n < 3)
		return false;
	while (i < t->len && i < n && t->s[i] == word[i])
		i++;
	if (t->len == n && i == n)
		return false;			/* the word itself */
	if (t->len == n) {
		if (i + 1 < n && t->s[i] == word[i + 1] &&
		    t->s[i + 1] == word[i] &&
		    memcmp(t->s + i + 2, word + i + 2, n - i - 2) == 0)
			return true;		/* swapped */
		return memcmp(t->s + i + 1, word + i + 1, n - i - 1) == 0;
	}
	if (t->len > n)				/* one added */
		return memcmp(t->s + i + 1, word + i, n - i) == 0;
	return memcmp(t->s + i, word + i + 1, n - i - 1) == 0;
}

/* A number with letters after it that no unit list knows: "1.2mss". */
static bool unknown_unit(const struct paste_token *t)
{
	double v, ns;
	uint64_t bytes;
	size_t used;

	if (!paste_parse_decimal(t->s, t->len, true, &v, &used) ||
	    used == t->len)
		return false;
	return !paste_parse_time(t, true, &ns) &&
	       !paste_parse_size(t, &bytes) && !paste_parse_rate(t, &v);
}

/* Why a line that is not blank held nothing: into why. */
static void diagnose(const char *p, const char *end, char *why, size_t size)
{
	bool align = false, numbers = false;
	struct paste_token t;

	while (paste_next_token(&p, end, &t)) {
		for (size_t i = 0; i < PASTE_COUNT_OF(keywords); i++)
			if (one_edit(&t, keywords[i])) {
				snprintf(why, size, "misspelt keyword \"%.*s\" "
					 "(%s?)", (int)(t.len > 24 ? 24 : t.len),
					 t.s, keywords[i]);
				return;
			}
		if (unknown_unit(&t)) {
			snprintf(why, size, "a unit it does not know: "
				 "\"%.*s\"", (int)(t.len > 24 ? 24 : t.len),
				 t.s);
			return;
		}
		align |= paste_token_is(&t, "align");
		numbers |= t.s[0] >= '0' && t.s[0] <= '9';
	}
	if (align)
		snprintf(why, size, "an align line without its pre, on, post "
			 "and diff times");
	else
		snprintf(why, size, numbers ? "numbers that are no align line "
			 "or open-AU row" : "no flashbench output");
}

/* Note an ignored line for -v: its number, why, how it begins. */
static void note_ignored(struct analyze_result *r, size_t line,
			 const char *p, const char *end)
{
	struct analyze_ignored *ig;
	size_t len;

	r->lines_ignored++;
	if (r->lines_ignored > ANALYZE_MAX_IGNORED)
		return;
	ig = &r->ignored[r->lines_ignored - 1];
	ig->file = r->files;
	ig->line = line;
	diagnose(p, end, ig->why, sizeof(ig->why));
	while (p < end && paste_is_space(*p))
		p++;
	len = (size_t)(end - p);
	if (len >= sizeof(ig->text))
		len = sizeof(ig->text) - 1;
	for (size_t i = 0; i < len; i++)	/* printable, for a terminal */
		ig->text[i] = (unsigned char)p[i] < ' ' || p[i] == 0x7f ?
			      '?' : p[i];
	ig->text[len] = 0;
}

static bool blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!paste_is_space(*p))
			return false;
	return true;
}

/* Parse len bytes into r, adding to what it holds; context starts afresh. */
static int parse_text(struct analyze_result *r, const char *text, size_t len)
{
	struct paste_parser ps = { .r = r };
	char *clean = malloc(len + 1);
	const char *p, *end;
	size_t n, line = 0;

	if (!clean)
		return -ENOMEM;
	n = paste_clean_text(clean, text, len);
	for (p = clean, end = clean + n; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		r->lines++;
		line++;
		if (!paste_parse_line(&ps, p, eol) && !blank(p, eol))
			note_ignored(r, line, p, eol);
		p = eol + 1;
	}
	r->files++;
	free(clean);
	return 0;
}

/* Repeated runs of one N and order as one, for the findings. */
static void combine_runs(struct analyze_result *r)
{
	r->combined_count = analysis_open_au_combine(r->runs, r->run_count,
						     r->combined,
						     r->run_combined);
}

int analyze_text(const char *text, struct analyze_result *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	err = parse_text(out, text, strlen(text));
	combine_runs(out);
	return err;
}

/* ---- files ---- */

/* Read one file ("-": standard input) and parse it, within budget. */
static int analyze_file(const char *path, size_t *budget,
			struct analyze_result *out, char *why, size_t why_size)
{
	bool is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "standard input" : path;
	char *text = NULL;
	size_t len = 0;
	int err = is_stdin ? readfile_stream(stdin, *budget, &text, &len) :
		  readfile_whole(path, *budget, &text, &len);

	if (err == -EISDIR)
		snprintf(why, why_size, "%s: is a directory; give files of "
			 "saved output", name);
	else if (err == -EFBIG)
		snprintf(why, why_size, "%s: input beyond %u MiB in all",
			 name, ANALYZE_MAX_INPUT >> 20);
	else if (err)
		snprintf(why, why_size, "%s: %s", name, strerror(-err));
	if (err)
		return err;
	*budget -= len;
	err = parse_text(out, text, len);
	if (err)
		snprintf(why, why_size, "%s: %s", name, strerror(-err));
	free(text);
	return err;
}

int analyze_files(const char *const *paths, size_t count,
		  struct analyze_result *out, char *why, size_t why_size)
{
	size_t budget = ANALYZE_MAX_INPUT;
	int err;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < count; i++) {
		err = analyze_file(paths[i], &budget, out, why, why_size);
		if (err)
			return err;
	}
	combine_runs(out);
	return 0;
}

/* ---- findings ---- */

bool analyze_found_any(const struct analyze_result *r)
{
	return r->point_count || r->run_count;
}

/* The align table with the most lines (the first of equals). */
static unsigned largest_table(const struct analyze_result *r, size_t *points)
{
	size_t counts[ANALYZE_MAX_POINTS] = { 0 };
	unsigned best = 0;

	for (size_t i = 0; i < r->point_count; i++)
		counts[r->point_table[i]]++;
	for (unsigned t = 1; t < r->table_count && t < ANALYZE_MAX_POINTS; t++)
		if (counts[t] > counts[best])
			best = t;
	*points = counts[best];
	return best;
}

/* Why there is no erase block: too little, no steps, or none in range. */
static void erase_reason(const struct analyze_result *r,
			 struct analyze_findings *f)
{
	const struct analysis_geometry *g = &f->geometry;
	char low[UNITS_BUF], high[UNITS_BUF], min[UNITS_BUF], max[UNITS_BUF];
	uint64_t flat_low = g->span_low, flat_high = g->span_high;

	if (r->point_count == 0) {
		snprintf(f->erase_why, sizeof(f->erase_why),
			 "no align table found");
		return;
	}
	if (f->table_points < 4) {
		snprintf(f->erase_why, sizeof(f->erase_why),
			 "the longest align table has %zu lines; too few to "
			 "tell", f->table_points);
		return;
	}
	if (!g->erase_hidden) {
		snprintf(f->erase_why, sizeof(f->erase_why),
			 "no step in the diff column stands clear of the "
			 "noise (%s per diff)",
			 units_format_time(low, g->noise_ns));
		return;
	}
	for (size_t j = 0; j < g->level_count; j++) {
		if (g->levels[j].size < g->erase_min)
			flat_low = g->levels[j].size;
		else if (g->levels[j].size > g->erase_max &&
			 flat_high >= g->levels[j].size)
			flat_high = g->levels[j].size / 2;
	}
	units_format_exact_size(min, g->erase_min);
	units_format_exact_size(max, g->erase_max);
	if (flat_low >= flat_high)
		snprintf(f->erase_why, sizeof(f->erase_why),
			 "not visible: no step where an erase block can be "
			 "(%s to %s; confidence %.2f)", min, max,
			 g->hidden_confidence);
	else
		snprintf(f->erase_why, sizeof(f->erase_why),
			 "not visible: the diff is flat from %s to %s, no step "
			 "where an erase block can be (%s to %s; confidence "
			 "%.2f)", units_format_exact_size(low, flat_low),
			 units_format_exact_size(high, flat_high), min, max,
			 g->hidden_confidence);
}

static void geometry_reasons(const struct analyze_result *r,
			     struct analyze_findings *f)
{
	const struct analysis_geometry *g = &f->geometry;

	if (!g->erase.known)
		erase_reason(r, f);
	if (!g->page.known && f->table_points >= 4 && r->point_count)
		snprintf(f->page_why, sizeof(f->page_why),
			 "no step below %s stands clear of the noise",
			 g->erase.known ? "the erase block" :
			 "the erase-block range");
	else if (!g->page.known)
		snprintf(f->page_why, sizeof(f->page_why), "%.150s",
			 f->erase_why);
}

/* Why the count in one order is unknown, or at least what it is. */
static void open_reason(const struct analyze_result *r,
			const struct analysis_open *o, bool random, char *why,
			size_t size)
{
	const char *order = random ? "--random " : "linear ";
	unsigned runs = 0, known = 0, first_nr = 0, at_least;
	bool several = false;

	for (size_t i = 0; i < r->combined_count; i++) {
		const struct analysis_run *run = &r->combined[i];

		if (run->random != random || run->count == 0)
			continue;
		runs++;
		if (!run->nr)
			continue;
		known++;
		if (first_nr && run->nr != first_nr)
			several = true;
		first_nr = first_nr ? first_nr : run->nr;
	}
	at_least = random ? o->random_at_least : o->linear_at_least;
	if (r->run_count == 0)
		snprintf(why, size, "no open-AU runs found");
	else if (runs == 0)
		snprintf(why, size, "no %sopen-AU runs found", order);
	else if (known == 0)
		snprintf(why, size, "no %srun's --open-au-nr is known (paste "
			 "the command lines with the output)", order);
	else if (random && o->random_slow_nr)
		snprintf(why, size, "random order writes at the thrashing "
			 "rate already at N=%u (%.2f of the linear rate): fewer "
			 "are open, a --random run with -0 1 would tell how "
			 "many",
			 o->random_slow_nr, o->random_slow_ratio);
	else if (!several)
		snprintf(why, size, "only N=%u was run; runs with other "
			 "--open-au-nr values are needed", first_nr);
	else
		snprintf(why, size, "no run fell off, but no run above N=%u "
			 "had a size below the erase size to compare (let "
			 "the runs go on to smaller sizes)", at_least);
}

void analyze_findings(const struct analyze_result *r,
		      struct analyze_findings *f)
{
	struct analysis_align_point points[ANALYZE_MAX_POINTS];
	struct analysis_prior prior = r->prior;
	size_t n = 0;

	/* the original's top alignment is the first power of two at least
	   a seventh of the capacity: the capacity is at most 7 times it */
	for (size_t i = 0; i < r->point_count && !r->prior.capacity_bytes;
	     i++)
		if (r->points[i].align <= UINT64_MAX / 7 &&
		    7 * r->points[i].align > prior.capacity_bytes)
			prior.capacity_bytes = 7 * r->points[i].align;
	memset(f, 0, sizeof(*f));
	f->table = largest_table(r, &f->table_points);
	/* repeated runs of one card: every table is more evidence */
	for (size_t i = 0; i < r->point_count; i++)
		points[n++] = r->points[i];
	f->tables_used = r->table_count;
	analysis_align_prior(points, n, &prior, &f->geometry);
	geometry_reasons(r, f);
	analysis_open_au(r->combined, r->combined_count, &f->open);
	if (!f->open.linear.known)
		open_reason(r, &f->open, false, f->linear_why,
			    sizeof(f->linear_why));
	if (!f->open.random.known)
		open_reason(r, &f->open, true, f->random_why,
			    sizeof(f->random_why));
}

