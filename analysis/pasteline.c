/*
 * pasteline: the recognisers of one pasted line, tried word by word - a
 * command, an align line, a size and rate pair, a device fact, else a
 * word of prose that may name the next run's count or order - and the
 * records they add: align points in tables, open-AU runs by size.
 */
#include <string.h>

#include "analysis/pasteline.h"

#define MAX_ALIGN_BYTES (1ULL << 62)	/* an alignment larger is junk */
#define DEFAULT_OPEN_AU_NR 2		/* -O without -0, in both tools */

/*
 * A command begins: inside a loop's body it is the body's next command,
 * elsewhere it ends any loop.
 */
static void start_command(struct paste_parser *ps)
{
	paste_command_begins(&ps->loop, &ps->cmd);
	ps->cmd = (struct paste_command){ 0 };
	ps->new_run = true;
	ps->new_table = true;
	ps->r->commands++;
}

/* Output began: the loop's body is complete (or it had no commands). */
static void end_loop_body(struct paste_parser *ps)
{
	paste_body_ends(&ps->loop, &ps->cmd);
}

/* ---- the early layout: one column per count ---- */

/* "1 AU  2 AU  3 AU ...": at least two columns. */
static bool try_columns_header(struct paste_parser *ps, const char *p,
			       const char *end)
{
	struct paste_columns cols = { 0 };
	struct paste_token t, unit;
	uint64_t v;

	while (paste_next_token(&p, end, &t)) {
		if (!paste_parse_integer(&t, 1, PASTE_MAX_NR, &v) ||
		    !paste_next_token(&p, end, &unit) ||
		    !(paste_token_is(&unit, "AU") ||
		      paste_token_is(&unit, "AUs")) ||
		    cols.count == PASTE_COLUMNS_MAX)
			return false;
		cols.nr[cols.count++] = (unsigned)v;
	}
	if (cols.count < 2)
		return false;
	ps->columns = cols;
	ps->new_run = true;
	return true;
}

/* ---- records ---- */

static bool align_seen(const struct paste_parser *ps, uint64_t align)
{
	const struct analyze_result *r = ps->r;

	for (size_t i = 0; i < r->point_count; i++)
		if (r->point_table[i] == ps->table &&
		    r->points[i].align == align)
			return true;
	return false;
}

static void add_point(struct paste_parser *ps,
		      const struct analysis_align_point *pt)
{
	struct analyze_result *r = ps->r;

	end_loop_body(ps);
	if (r->point_count == ANALYZE_MAX_POINTS) {
		r->dropped++;
		return;
	}
	if (!ps->table_open || ps->new_table || align_seen(ps, pt->align)) {
		ps->table = r->table_count++;
		ps->table_open = true;
		ps->new_table = false;
	}
	r->point_table[r->point_count] = ps->table;
	r->points[r->point_count++] = *pt;
}

/* "align N pre T on T post T diff T": consumes it and returns true. */
static bool try_align(struct paste_parser *ps, const char **p, const char *end)
{
	static const char *const labels[] = { "pre", "on", "post", "diff" };
	struct analysis_align_point pt = { 0 };
	double *times[] = { &pt.pre, &pt.on, &pt.post, &pt.diff };
	const char *q = *p;
	struct paste_token t;

	if (!paste_next_token(&q, end, &t) ||
	    !paste_parse_integer(&t, 1, MAX_ALIGN_BYTES, &pt.align))
		return false;
	for (size_t i = 0; i < PASTE_COUNT_OF(labels); i++)
		if (!paste_next_token(&q, end, &t) ||
		    !paste_token_is(&t, labels[i]) ||
		    !paste_next_token(&q, end, &t) ||
		    !paste_parse_time(&t, i == PASTE_COUNT_OF(labels) - 1,
				      times[i]))
			return false;
	*p = q;
	add_point(ps, &pt);
	return true;
}

/*
 * A new run's N and order: its command's, unless a separator or comment
 * just before it named them.  -O without -0 is the default; -0 $i with
 * no loop or separator naming i is unknown (0).
 */
static struct analysis_run *new_run(struct paste_parser *ps)
{
	struct analyze_result *r = ps->r;
	struct paste_command cmd = paste_run_command(&ps->loop, &ps->cmd);
	struct analysis_run *run;

	if (r->run_count == ANALYZE_MAX_RUNS) {
		r->dropped++;
		return NULL;
	}
	run = &r->runs[r->run_count++];
	memset(run, 0, sizeof(*run));
	run->nr = cmd.nr_set ? cmd.nr :
		  cmd.open_au && !cmd.nr_variable && !cmd.nr_unknown ?
		  DEFAULT_OPEN_AU_NR : 0;
	run->random = cmd.random;
	if (ps->hint.nr_set)
		run->nr = ps->hint.nr;
	if (ps->hint.mode_set)
		run->random = ps->hint.random;
	ps->hint = (struct paste_hint){ 0 };
	return run;
}

static void add_size(struct analyze_result *r, struct analysis_run *run,
		     uint64_t size, double rate)
{
	if (run->count == ANALYSIS_MAX_SIZES) {
		r->dropped++;
		return;
	}
	run->size[run->count] = size;
	run->rate[run->count++] = rate;
}

static void add_pair(struct paste_parser *ps, uint64_t size, double rate)
{
	struct analyze_result *r = ps->r;
	struct analysis_run *run = ps->run;

	end_loop_body(ps);
	if (ps->cmd.find_fat && !ps->hint.nr_set) {
		r->dropped++;
		return;
	}
	if (!run || ps->new_run || size >= run->size[run->count - 1]) {
		ps->new_run = false;
		run = ps->run = new_run(ps);
		if (!run)
			return;
	}
	add_size(r, run, size, rate);
}

/*
 * A row of the one-column-per-count layout: a size, then one rate per
 * column (a cell that is no rate, like a truncated "1.02e+0", is left
 * out).  Returns false, ending the layout, for any other line.
 */
static bool try_column_row(struct paste_parser *ps, const char *p,
			   const char *end)
{
	struct paste_columns *cols = &ps->columns;
	struct paste_token t, cells[PASTE_COLUMNS_MAX];
	size_t n = 0;
	uint64_t size;
	double rate;

	if (!paste_next_token(&p, end, &t) || !paste_parse_size(&t, &size))
		return false;
	while (paste_next_token(&p, end, &t))
		if (n++ < PASTE_COLUMNS_MAX)
			cells[n - 1] = t;
	if (n != cols->count)
		return false;
	end_loop_body(ps);
	for (size_t i = 0; i < n; i++) {
		struct analysis_run *run = cols->run[i];

		if (!cols->started) {
			ps->hint = (struct paste_hint){ .nr = cols->nr[i],
						  .nr_set = true };
			run = cols->run[i] = new_run(ps);
		}
		if (run && paste_parse_rate(&cells[i], &rate))
			add_size(ps->r, run, size, rate);
	}
	cols->started = true;
	ps->run = NULL;
	return true;
}

/*
 * "SIZE RATE" with t the size: consumes the rate and returns true.  A
 * size with several rates is a find-fat row, read and dropped.
 */
static bool try_pair(struct paste_parser *ps, const struct paste_token *t,
		     const char **p, const char *end)
{
	const char *q = *p;
	struct paste_token next;
	uint64_t size;
	double rate, more;
	bool extra = false;

	if (!paste_parse_size(t, &size) || !paste_next_token(&q, end, &next) ||
	    !paste_parse_rate(&next, &rate))
		return false;
	*p = q;
	while (paste_next_token(&q, end, &next) &&
	       paste_parse_rate(&next, &more)) {
		*p = q;
		extra = true;
	}
	if (extra)
		ps->r->dropped++;
	else
		add_pair(ps, size, rate);
	return true;
}

/* What the words of one line so far said about the next run. */
struct line_hint {
	bool prompt;			/* a comment or a shell prompt line */
	bool named;			/* it named a count */
	int order;			/* first order word: 1 linear, 2 random */
};

/* "#", "$", ">", "user@host:~$": a comment or a prompt starts the line. */
static bool is_prompt(const struct paste_token *first)
{
	char last = first->s[first->len - 1];

	return strchr("#$>", first->s[0]) || last == '$' || last == '#';
}

/*
 * A word outside a command: a loop, a count for the next run, ^C.  An
 * order word counts only on a line that names a count.
 */
static bool prose_word(struct paste_parser *ps, const struct paste_token *t,
		       const char **p, const char *end, struct line_hint *line)
{
	unsigned nr;
	int order;

	if (paste_token_is(t, "^C")) {
		ps->new_run = true;	/* an interrupted run ends here */
		return false;
	}
	if (paste_token_is(t, "for"))
		return paste_try_loop(&ps->loop, p, end);
	if (paste_hint_count(t, &nr) ||
	    (line->prompt && paste_prompt_count(t, p, end, &nr))) {
		ps->hint = (struct paste_hint){ .nr = nr, .nr_set = true };
		paste_hint_order(&ps->hint, line->order);
		ps->new_run = true;
		line->named = true;
		return true;
	}
	order = paste_order_word(t);
	if (!line->order)
		line->order = order;
	if (line->named)
		paste_hint_order(&ps->hint, order);
	return line->named && order;
}

/* ---- what the text says of the device ---- */

static bool ends_with(const struct paste_token *t, const char *name)
{
	size_t n = strlen(name);

	return t->len >= n && memcmp(t->s + t->len - n, name, n) == 0;
}

/* The value after a sysfs path: "<== VALUE", ": VALUE", "VALUE". */
static bool attribute_value(const char **p, const char *end,
			    struct paste_token *value)
{
	const char *q = *p;

	for (unsigned i = 0; i < 3 && paste_next_token(&q, end, value); i++) {
		if (paste_token_is(value, "<==") ||
		    paste_token_is(value, ":") || paste_token_is(value, "="))
			continue;
		*p = q;
		return true;
	}
	return false;
}

static void set_device(struct analyze_result *r,
		       const struct paste_token *type)
{
	if (paste_token_is(type, "SD") || paste_token_is(type, "MMC_TYPE=SD"))
		r->prior.device = ANALYSIS_DEVICE_SD;
	else if (paste_token_is(type, "MMC") ||
		 paste_token_is(type, "MMC_TYPE=MMC"))
		r->prior.device = ANALYSIS_DEVICE_EMMC;
}

/*
 * What a pasted sysfs dump or fdisk -l says: preferred_erase_size (its
 * value on the same line, as head and grep print it, or on the next, as
 * cat does), the card type, and the capacity in "N bytes".
 */
static bool try_prior(struct paste_parser *ps, const struct paste_token *t,
		      const char **p, const char *end)
{
	struct analyze_result *r = ps->r;
	struct paste_token value;
	const char *q;
	uint64_t v;

	if (ends_with(t, "preferred_erase_size") ||
	    ends_with(t, "preferred_erase_size:")) {
		ps->erase_pending = 2;
		if (attribute_value(p, end, &value) &&
		    paste_parse_integer(&value, 512, PASTE_MAX_SIZE_BYTES,
					&v)) {
			r->prior.preferred_erase = v;
			ps->erase_pending = 0;
		}
		return true;
	}
	if (ends_with(t, "/type") && attribute_value(p, end, &value)) {
		set_device(r, &value);
		return true;
	}
	if (paste_token_is(t, "MMC_TYPE=SD") ||
	    paste_token_is(t, "MMC_TYPE=MMC")) {
		set_device(r, t);
		return true;
	}
	if (ps->erase_pending &&
	    paste_parse_integer(t, 512, PASTE_MAX_SIZE_BYTES, &v)) {
		r->prior.preferred_erase = v;
		ps->erase_pending = 0;
		return true;
	}
	q = *p;
	if (paste_parse_integer(t, 64ULL << 20, PASTE_MAX_SIZE_BYTES, &v) &&
	    paste_next_token(&q, end, &value) &&
	    (paste_token_is(&value, "bytes") ||
	     paste_token_is(&value, "bytes,"))) {
		r->prior.capacity_bytes = v;
		*p = q;
		return true;
	}
	return false;
}

/* One line: returns whether it held a record or a command. */
bool paste_parse_line(struct paste_parser *ps, const char *p,
		      const char *end)
{
	bool used = false, options = ps->continued;
	struct line_hint line = { 0 };
	const char *first;
	struct paste_token t = { 0 };

	if (ps->erase_pending)
		ps->erase_pending--;
	ps->continued = false;
	if (ps->columns.count && try_column_row(ps, p, end))
		return true;
	ps->columns.count = 0;
	if (try_columns_header(ps, p, end))
		return true;
	first = p;
	if (paste_next_token(&first, end, &t))
		line.prompt = is_prompt(&t);
	while (paste_next_token(&p, end, &t)) {
		if (paste_is_flashbench(&t)) {
			start_command(ps);
			options = used = true;
		} else if (paste_token_is(&t, "align") &&
			   try_align(ps, &p, end)) {
			options = false;
			used = true;
		} else if (try_pair(ps, &t, &p, end)) {
			options = false;
			line = (struct line_hint){ 0 };
			used = true;
		} else if (try_prior(ps, &t, &p, end)) {
			used = true;
		} else if (options) {
			paste_option(&ps->cmd, &t, &p, end);
		} else if (prose_word(ps, &t, &p, end, &line)) {
			used = true;
		}
	}
	/* "flashbench -O \" goes on with its options on the next line */
	ps->continued = options && paste_token_is(&t, "\\");
	return used;
}
