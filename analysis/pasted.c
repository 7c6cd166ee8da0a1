/*
 * pasted: saved align and open-AU output back into numbers, judged by
 * analysis/findings.c and reported.  The parser takes text as people paste it:
 * prompts, prose, folded lines, escape junk, either tool's spelling.
 * Nothing here measures or touches a device.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/pasted.h"
#include "lib/readfile.h"
#include "lib/units.h"

/* Sizes a parsed record may carry; anything outside is junk. */
#define MAX_SIZE_BYTES (1ULL << 50)
#define MAX_ALIGN_BYTES (1ULL << 62)
#define MAX_RATE 1e12			/* bytes per second */
#define MAX_TIME_NS 1e15
#define MAX_NR 1000000
#define DEFAULT_OPEN_AU_NR 2		/* -O without -0, in both tools */
#define MAX_DIGITS 18

struct unit {
	const char *name;
	double scale;
};

static const struct unit time_units[] = {
	{ "ns", 1 },
	{ "us", 1e3 },
	{ "\xc2\xb5s", 1e3 },		/* micro sign */
	{ "\xce\xbcs", 1e3 },		/* Greek mu */
	{ "\xb5s", 1e3 },		/* Latin-1 micro sign */
	{ "\xc3\x82\xc2\xb5s", 1e3 },	/* UTF-8 read as Latin-1 and back */
	{ "ms", 1e6 },
	{ "s", 1e9 },
};

static const struct unit size_units[] = {
	{ "B", 1 },
	{ "KiB", 1024.0 },
	{ "MiB", 1024.0 * 1024 },
	{ "GiB", 1024.0 * 1024 * 1024 },
	{ "TiB", 1024.0 * 1024 * 1024 * 1024 },
};

static const struct unit rate_units[] = {
	{ "B/s", 1 },
	{ "K/s", 1e3 },
	{ "k/s", 1e3 },
	{ "M/s", 1e6 },
	{ "G/s", 1e9 },
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

struct token {
	const char *s;
	size_t len;
};

/* The most recent flashbench command line. */
struct command {
	unsigned nr;
	bool nr_set;
	bool nr_variable;		/* -0 $i: a shell loop or script sets it */
	bool nr_unknown;		/* -0 $[...], $(...): none can tell */
	bool open_au;
	bool random;
	bool find_fat;
};

#define LOOP_MAX_VALUES 64
#define LOOP_MAX_COMMANDS 4
#define COLUMNS_MAX 16

/*
 * A shell loop, "for i in 1 2 3; do flashbench -0 $i ...; done", on one
 * line or several: each run printed under it is the next command of the
 * loop body, the body's k-th pass taking the k-th value.
 */
struct loop {
	unsigned values[LOOP_MAX_VALUES];
	size_t value_count;
	struct command cmds[LOOP_MAX_COMMANDS];
	size_t cmd_count;
	bool collecting;		/* the body's commands are still coming */
	size_t runs;			/* runs started under it */
};

/*
 * What a line that is no command says about the run after it: a sweep
 * script's "======= AU=3, random access =======", or "# N=3".
 */
struct hint {
	unsigned nr;
	bool nr_set;
	bool mode_set;
	bool random;
};

/*
 * The early layout with one column per count ("1 AU  2 AU  ...") and
 * one row per block size: the count of each column, its run.
 */
struct columns {
	unsigned nr[COLUMNS_MAX];
	size_t count;
	struct analysis_run *run[COLUMNS_MAX];
	bool started;			/* rows have begun filling runs */
};

struct parser {
	struct analyze_result *r;
	struct command cmd;
	struct loop loop;
	struct hint hint;
	struct columns columns;
	bool new_run;			/* a command since the last pair */
	bool new_table;			/* a command since the last align line */
	bool table_open;
	bool continued;			/* a command line ended in "\" */
	unsigned table;
	struct analysis_run *run;	/* being filled, or NULL */
	unsigned erase_pending;		/* lines a sysfs value may still come */
};

/* ---- cleaning and tokens ---- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Length of a CSI sequence's parameters and final byte at s, or 0. */
static size_t csi_length(const char *s, const char *end)
{
	const char *p = s;

	while (p < end && ((*p >= '0' && *p <= '9') || *p == ';' ||
			   *p == '?'))
		p++;
	if (p < end && *p >= '@' && *p <= '~')
		return (size_t)(p - s) + 1;
	return 0;
}

/*
 * Copy text without terminal escapes (real ones, or pasted as "^[[A"),
 * with carriage returns, form feeds and no-break spaces as spaces.
 */
static size_t clean_text(char *dst, const char *src, size_t len)
{
	const char *end = src + len;
	size_t n = 0, skip;

	while (src < end) {
		if (*src == '\x1b' && src + 1 < end) {
			skip = src[1] == '[' ? csi_length(src + 2, end) : 0;
			src += skip ? 2 + skip : 2;
		} else if (*src == '^' && src + 1 < end && src[1] == '[') {
			skip = src + 2 < end && src[2] == '[' ?
				csi_length(src + 3, end) : 0;
			if (skip)
				src += 3 + skip;
			else
				src += src + 2 < end ? 3 : 2;
		} else if ((unsigned char)*src == 0xc2 && src + 1 < end &&
			   (unsigned char)src[1] == 0xa0) {
			dst[n++] = ' ';
			dst[n++] = ' ';
			src += 2;
		} else if (*src == '\r' || *src == '\f' || *src == '\v' ||
			   *src == '\0') {
			dst[n++] = ' ';
			src++;
		} else {
			dst[n++] = *src++;
		}
	}
	return n;
}

static bool next_token(const char **p, const char *end, struct token *t)
{
	const char *s = *p;

	while (s < end && is_space(*s))
		s++;
	if (s == end) {
		*p = s;
		return false;
	}
	t->s = s;
	while (s < end && !is_space(*s))
		s++;
	t->len = (size_t)(s - t->s);
	*p = s;
	return true;
}

static bool token_is(const struct token *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

/* "flashbench", "./flashbench", "/usr/bin/flashbench" */
static bool is_flashbench(const struct token *t)
{
	static const char name[] = "flashbench";
	size_t n = sizeof(name) - 1;

	if (t->len < n || memcmp(t->s + t->len - n, name, n))
		return false;
	return t->len == n || t->s[t->len - n - 1] == '/';
}

/* ---- numbers ---- */

/*
 * A decimal number at the start of s: [-]DIGITS[.DIGITS], at most
 * MAX_DIGITS digits on each side.  Sets *used to its length.
 */
static bool parse_decimal(const char *s, size_t len, bool sign, double *value,
			  size_t *used)
{
	size_t i = 0, digits = 0, fraction = 0;
	double v = 0, scale = 0.1;
	bool negative = false;

	if (sign && i < len && s[i] == '-') {
		negative = true;
		i++;
	}
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		v = v * 10 + (s[i] - '0');
	if (digits == 0 || digits > MAX_DIGITS)
		return false;
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9';
		     i++, fraction++) {
			v += (s[i] - '0') * scale;
			scale /= 10;
		}
		if (fraction == 0 || fraction > MAX_DIGITS)
			return false;
	}
	*value = negative ? -v : v;
	*used = i;
	return true;
}

/* A number followed directly by one of the units: the value in base units. */
static bool parse_with_unit(const struct token *t, const struct unit *units,
			    size_t count, bool sign, bool bare, double *value)
{
	size_t used, rest;
	double v;

	if (!parse_decimal(t->s, t->len, sign, &v, &used))
		return false;
	rest = t->len - used;
	if (rest == 0 && bare) {
		*value = v;
		return true;
	}
	for (size_t i = 0; i < count; i++)
		if (strlen(units[i].name) == rest &&
		    memcmp(t->s + used, units[i].name, rest) == 0) {
			*value = v * units[i].scale;
			return true;
		}
	return false;
}

/*
 * A time in ns.  The diff may be negative, and bare or with a lone "n":
 * the original prints it into 8 bytes, so "-412331ns" loses its unit or
 * part of it ("-412331", "-49389n"), and what is left counts in ns.
 */
static bool parse_time(const struct token *t, bool diff, double *ns)
{
	struct token cut = *t;

	if (diff && cut.len > 1 && cut.s[cut.len - 1] == 'n' &&
	    cut.s[cut.len - 2] >= '0' && cut.s[cut.len - 2] <= '9')
		cut.len--;
	if (!parse_with_unit(&cut, time_units, COUNT_OF(time_units), diff,
			     diff, ns))
		return false;
	return fabs(*ns) <= MAX_TIME_NS;
}

static bool parse_size(const struct token *t, uint64_t *bytes)
{
	double v;

	if (!parse_with_unit(t, size_units, COUNT_OF(size_units), false,
			     false, &v) || v < 1 || v > (double)MAX_SIZE_BYTES)
		return false;
	*bytes = (uint64_t)(v + 0.5);
	return true;
}

static bool parse_rate(const struct token *t, double *bytes_per_s)
{
	return parse_with_unit(t, rate_units, COUNT_OF(rate_units), false,
			       false, bytes_per_s) && *bytes_per_s <= MAX_RATE;
}

/* Plain digits in [min, max]. */
static bool parse_integer(const struct token *t, uint64_t min, uint64_t max,
			  uint64_t *value)
{
	uint64_t v = 0;

	if (t->len == 0 || t->len > MAX_DIGITS)
		return false;
	for (size_t i = 0; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(t->s[i] - '0');
	}
	if (v < min || v > max)
		return false;
	*value = v;
	return true;
}

/* "$i", "${i}", "$i;": a shell variable, set by a loop around it. */
static bool is_variable(const struct token *t)
{
	return t->len > 1 && t->s[0] == '$' && t->s[1] != '[' &&
	       t->s[1] != '(';
}

static bool parse_nr(const struct token *t, struct command *cmd)
{
	uint64_t v;

	if (is_variable(t)) {
		cmd->nr_variable = true;
		return true;
	}
	if (t->len > 1 && t->s[0] == '$') {
		cmd->nr_unknown = true;
		return true;
	}
	if (!parse_integer(t, 1, MAX_NR, &v))
		return false;
	cmd->nr = (unsigned)v;
	cmd->nr_set = true;
	return true;
}

/* ---- command lines ---- */

/* Long options of either tool that take their argument as the next word. */
static const char *const long_with_arg[] = {
	"--blocksize", "--erasesize", "--count", "--out", "--offset",
	"--fat-nr", "--scatter-order", "--scatter-span", "--interval-order",
	"--program", "--format", "--sysfs-root",
};

static void long_option(struct parser *ps, const struct token *t,
			const char **p, const char *end)
{
	static const char nr[] = "--open-au-nr";
	size_t n = sizeof(nr) - 1;
	struct token arg;

	if (t->len > n && memcmp(t->s, nr, n) == 0 && t->s[n] == '=') {
		arg = (struct token){ t->s + n + 1, t->len - n - 1 };
		parse_nr(&arg, &ps->cmd);
	} else if (token_is(t, nr)) {
		const char *q = *p;

		if (next_token(&q, end, &arg) && parse_nr(&arg, &ps->cmd))
			*p = q;
	} else if (token_is(t, "--random")) {
		ps->cmd.random = true;
	} else if (token_is(t, "--open-au")) {
		ps->cmd.open_au = true;
	} else if (token_is(t, "--find-fat")) {
		ps->cmd.find_fat = true;
	} else {
		for (size_t i = 0; i < COUNT_OF(long_with_arg); i++)
			if (token_is(t, long_with_arg[i]))
				next_token(p, end, &arg);
	}
}

/* A cluster of short options: "-O", "-Or", "-0", "-06", "-b 512". */
static void short_options(struct parser *ps, const struct token *t,
			  const char **p, const char *end)
{
	for (size_t i = 1; i < t->len; i++) {
		struct token arg = { t->s + i + 1, t->len - i - 1 };
		char c = t->s[i];

		switch (c) {
		case 'r': ps->cmd.random = true; continue;
		case 'O': ps->cmd.open_au = true; continue;
		case 'f': ps->cmd.find_fat = true; continue;
		case 'a': case 'A': case 's': case 'i': case 'v': continue;
		case '0': case 'b': case 'e': case 'c': case 'o':
			break;
		default:
			return;
		}
		if (arg.len == 0) {
			const char *q = *p;

			if (!next_token(&q, end, &arg))
				return;
			if (c != '0' || parse_nr(&arg, &ps->cmd))
				*p = q;
		} else if (c == '0') {
			parse_nr(&arg, &ps->cmd);
		}
		return;
	}
}

static void option(struct parser *ps, const struct token *t, const char **p,
		   const char *end)
{
	if (t->len > 2 && t->s[0] == '-' && t->s[1] == '-')
		long_option(ps, t, p, end);
	else if (t->len > 1 && t->s[0] == '-')
		short_options(ps, t, p, end);
}

/*
 * A command begins: inside a loop's body it is the body's next command,
 * elsewhere it ends any loop.
 */
static void start_command(struct parser *ps)
{
	struct loop *loop = &ps->loop;

	if (loop->collecting) {
		if (loop->cmd_count)
			loop->cmds[loop->cmd_count - 1] = ps->cmd;
		if (loop->cmd_count < LOOP_MAX_COMMANDS)
			loop->cmd_count++;
	} else {
		memset(loop, 0, sizeof(*loop));
	}
	ps->cmd = (struct command){ 0 };
	ps->new_run = true;
	ps->new_table = true;
	ps->r->commands++;
}

/* Output began: the loop's body is complete (or it had no commands). */
static void end_loop_body(struct parser *ps)
{
	struct loop *loop = &ps->loop;

	if (!loop->collecting)
		return;
	loop->collecting = false;
	if (loop->cmd_count)
		loop->cmds[loop->cmd_count - 1] = ps->cmd;
	else
		memset(loop, 0, sizeof(*loop));
}

/* ---- shell loops ---- */

/* A token without the shell punctuation around a value: "7);" -> "7". */
static struct token strip_punct(const struct token *t)
{
	struct token s = *t;

	while (s.len && strchr(";)`", s.s[s.len - 1]))
		s.len--;
	while (s.len && strchr("(`", s.s[0])) {
		s.s++;
		s.len--;
	}
	return s;
}

static void loop_add(struct loop *loop, uint64_t value)
{
	if (loop->value_count < LOOP_MAX_VALUES)
		loop->values[loop->value_count++] = (unsigned)value;
}

/* "{1..8}": each value of the range. */
static bool loop_range(struct loop *loop, const struct token *t)
{
	const char *dots = t->len > 2 ? memchr(t->s, '.', t->len) : NULL;
	struct token first, last;
	uint64_t from, to;

	if (!dots || t->s[0] != '{' || t->s[t->len - 1] != '}' ||
	    dots + 1 >= t->s + t->len || dots[1] != '.')
		return false;
	first = (struct token){ t->s + 1, (size_t)(dots - t->s - 1) };
	last = (struct token){ dots + 2, (size_t)(t->s + t->len - dots - 3) };
	if (!parse_integer(&first, 1, MAX_NR, &from) ||
	    !parse_integer(&last, from, MAX_NR, &to))
		return false;
	for (uint64_t v = from; v <= to && v < from + LOOP_MAX_VALUES; v++)
		loop_add(loop, v);
	return true;
}

/* "seq LAST", "seq FIRST LAST", "seq FIRST STEP LAST". */
static void loop_seq(struct loop *loop, const uint64_t *arg, size_t n)
{
	uint64_t first = n > 1 ? arg[0] : 1, last = arg[n - 1];
	uint64_t step = n > 2 ? arg[1] : 1;

	for (uint64_t v = first; v <= last && step; v += step)
		loop_add(loop, v);
}

/*
 * The list of "for VAR in LIST; do" with p after "for": plain numbers,
 * {A..B} or $(seq ...).  Consumes it up to "do" and returns true when it
 * held numbers.
 */
static bool try_loop(struct parser *ps, const char **p, const char *end)
{
	struct loop loop = { .collecting = true };
	uint64_t seq_arg[3], v;
	size_t seq_args = 0;
	bool seq = false, last = false;
	const char *q = *p;
	struct token t, word;

	if (!next_token(&q, end, &t) || !next_token(&q, end, &t) ||
	    !token_is(&t, "in"))
		return false;
	while (!last && next_token(&q, end, &t) && !token_is(&t, "do")) {
		last = t.s[t.len - 1] == ';';
		word = strip_punct(&t);
		if (token_is(&t, "$(seq") || token_is(&t, "`seq"))
			seq = true;
		else if (seq && parse_integer(&word, 1, MAX_NR, &v) &&
			 seq_args < 3)
			seq_arg[seq_args++] = v;
		else if (!seq && parse_integer(&word, 1, MAX_NR, &v))
			loop_add(&loop, v);
		else if (!seq && !loop_range(&loop, &word) && word.len)
			return false;
	}
	if (seq && seq_args)
		loop_seq(&loop, seq_arg, seq_args);
	if (!loop.value_count)
		return false;
	ps->loop = loop;
	*p = q;
	return true;
}

/* ---- hints: sweep separators and comments ---- */

static bool prefix_is(const struct token *t, const char *prefix, size_t *len)
{
	size_t n = strlen(prefix);

	if (t->len < n || strncasecmp(t->s, prefix, n))
		return false;
	*len = n;
	return true;
}

/* "AU=3,", "N=3", "nr=3", "--open-au-nr=3": the count it names. */
static bool hint_count(const struct token *t, unsigned *nr)
{
	static const char *const names[] = { "au=", "n=", "nr=",
					     "open-au-nr=" };
	struct token rest = *t, digits;
	uint64_t v;
	size_t n;

	while (rest.len && rest.s[0] == '-') {
		rest.s++;
		rest.len--;
	}
	for (size_t i = 0; i < COUNT_OF(names); i++) {
		if (!prefix_is(&rest, names[i], &n))
			continue;
		digits = (struct token){ rest.s + n, rest.len - n };
		while (digits.len && strchr(",:;)", digits.s[digits.len - 1]))
			digits.len--;
		if (!parse_integer(&digits, 1, MAX_NR, &v))
			return false;
		*nr = (unsigned)v;
		return true;
	}
	return false;
}

/* "linear", "random", "--random" (any case, punctuated): 1, 2; else 0. */
static int order_word(const struct token *t)
{
	struct token w = strip_punct(t);

	while (w.len && w.s[0] == '-') {
		w.s++;
		w.len--;
	}
	while (w.len && strchr(",:", w.s[w.len - 1]))
		w.len--;
	if (w.len == 6 && strncasecmp(w.s, "linear", 6) == 0)
		return 1;
	if (w.len == 6 && strncasecmp(w.s, "random", 6) == 0)
		return 2;
	return 0;
}

/* ---- the early layout: one column per count ---- */

/* "1 AU  2 AU  3 AU ...": at least two columns. */
static bool try_columns_header(struct parser *ps, const char *p,
			       const char *end)
{
	struct columns cols = { 0 };
	struct token t, unit;
	uint64_t v;

	while (next_token(&p, end, &t)) {
		if (!parse_integer(&t, 1, MAX_NR, &v) ||
		    !next_token(&p, end, &unit) ||
		    !(token_is(&unit, "AU") || token_is(&unit, "AUs")) ||
		    cols.count == COLUMNS_MAX)
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

static bool align_seen(const struct parser *ps, uint64_t align)
{
	const struct analyze_result *r = ps->r;

	for (size_t i = 0; i < r->point_count; i++)
		if (r->point_table[i] == ps->table &&
		    r->points[i].align == align)
			return true;
	return false;
}

static void add_point(struct parser *ps, const struct analysis_align_point *pt)
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
static bool try_align(struct parser *ps, const char **p, const char *end)
{
	static const char *const labels[] = { "pre", "on", "post", "diff" };
	struct analysis_align_point pt = { 0 };
	double *times[] = { &pt.pre, &pt.on, &pt.post, &pt.diff };
	const char *q = *p;
	struct token t;

	if (!next_token(&q, end, &t) ||
	    !parse_integer(&t, 1, MAX_ALIGN_BYTES, &pt.align))
		return false;
	for (size_t i = 0; i < COUNT_OF(labels); i++)
		if (!next_token(&q, end, &t) || !token_is(&t, labels[i]) ||
		    !next_token(&q, end, &t) ||
		    !parse_time(&t, i == COUNT_OF(labels) - 1, times[i]))
			return false;
	*p = q;
	add_point(ps, &pt);
	return true;
}

/*
 * The command a new run was printed by: the loop body's next one, with
 * the loop's value for -0 $i, or the last command line.
 */
static struct command run_command(struct parser *ps)
{
	struct loop *loop = &ps->loop;
	struct command cmd = ps->cmd;
	size_t pass;

	if (!loop->cmd_count)
		return cmd;
	pass = loop->runs / loop->cmd_count;
	cmd = loop->cmds[loop->runs % loop->cmd_count];
	loop->runs++;
	if (cmd.nr_variable && !cmd.nr_set && pass < loop->value_count) {
		cmd.nr = loop->values[pass];
		cmd.nr_set = true;
	}
	return cmd;
}

/*
 * A new run's N and order: its command's, unless a separator or comment
 * just before it named them.  -O without -0 is the default; -0 $i with
 * no loop or separator naming i is unknown (0).
 */
static struct analysis_run *new_run(struct parser *ps)
{
	struct analyze_result *r = ps->r;
	struct command cmd = run_command(ps);
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
	ps->hint = (struct hint){ 0 };
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

static void add_pair(struct parser *ps, uint64_t size, double rate)
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
static bool try_column_row(struct parser *ps, const char *p, const char *end)
{
	struct columns *cols = &ps->columns;
	struct token t, cells[COLUMNS_MAX];
	size_t n = 0;
	uint64_t size;
	double rate;

	if (!next_token(&p, end, &t) || !parse_size(&t, &size))
		return false;
	while (next_token(&p, end, &t))
		if (n++ < COLUMNS_MAX)
			cells[n - 1] = t;
	if (n != cols->count)
		return false;
	end_loop_body(ps);
	for (size_t i = 0; i < n; i++) {
		struct analysis_run *run = cols->run[i];

		if (!cols->started) {
			ps->hint = (struct hint){ .nr = cols->nr[i],
						  .nr_set = true };
			run = cols->run[i] = new_run(ps);
		}
		if (run && parse_rate(&cells[i], &rate))
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
static bool try_pair(struct parser *ps, const struct token *t, const char **p,
		     const char *end)
{
	const char *q = *p;
	struct token next;
	uint64_t size;
	double rate, more;
	bool extra = false;

	if (!parse_size(t, &size) || !next_token(&q, end, &next) ||
	    !parse_rate(&next, &rate))
		return false;
	*p = q;
	while (next_token(&q, end, &next) && parse_rate(&next, &more)) {
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
static bool is_prompt(const struct token *first)
{
	char last = first->s[first->len - 1];

	return strchr("#$>", first->s[0]) || last == '$' || last == '#';
}

/*
 * "-0 6", "-06", "--open-au-nr 6" on a comment or prompt line that runs
 * no flashbench ("# now -0 6:"): the count, consuming its argument.
 */
static bool prompt_count(const struct token *t, const char **p,
			 const char *end, unsigned *nr)
{
	bool attached = t->len > 2 && t->s[0] == '-' && t->s[1] == '0';
	struct command cmd = { 0 };
	struct token arg;
	const char *q = *p;

	if (attached)
		arg = (struct token){ t->s + 2, t->len - 2 };
	else if (!(token_is(t, "-0") || token_is(t, "--open-au-nr")) ||
		 !next_token(&q, end, &arg))
		return false;
	while (arg.len && strchr(",:;)", arg.s[arg.len - 1]))
		arg.len--;
	if (!parse_nr(&arg, &cmd) || !cmd.nr_set)
		return false;
	if (!attached)
		*p = q;
	*nr = cmd.nr;
	return true;
}

static void hint_order(struct hint *hint, int order)
{
	if (order && !hint->mode_set) {
		hint->mode_set = true;
		hint->random = order == 2;
	}
}

/*
 * A word outside a command: a loop, a count for the next run, ^C.  An
 * order word counts only on a line that names a count.
 */
static bool prose_word(struct parser *ps, const struct token *t,
		       const char **p, const char *end, struct line_hint *line)
{
	unsigned nr;
	int order;

	if (token_is(t, "^C")) {
		ps->new_run = true;	/* an interrupted run ends here */
		return false;
	}
	if (token_is(t, "for"))
		return try_loop(ps, p, end);
	if (hint_count(t, &nr) ||
	    (line->prompt && prompt_count(t, p, end, &nr))) {
		ps->hint = (struct hint){ .nr = nr, .nr_set = true };
		hint_order(&ps->hint, line->order);
		ps->new_run = true;
		line->named = true;
		return true;
	}
	order = order_word(t);
	if (!line->order)
		line->order = order;
	if (line->named)
		hint_order(&ps->hint, order);
	return line->named && order;
}

/* ---- what the text says of the device ---- */

static bool ends_with(const struct token *t, const char *name)
{
	size_t n = strlen(name);

	return t->len >= n && memcmp(t->s + t->len - n, name, n) == 0;
}

/* The value after a sysfs path: "<== VALUE", ": VALUE", "VALUE". */
static bool attribute_value(const char **p, const char *end,
			    struct token *value)
{
	const char *q = *p;

	for (unsigned i = 0; i < 3 && next_token(&q, end, value); i++) {
		if (token_is(value, "<==") || token_is(value, ":") ||
		    token_is(value, "="))
			continue;
		*p = q;
		return true;
	}
	return false;
}

static void set_device(struct analyze_result *r, const struct token *type)
{
	if (token_is(type, "SD") || token_is(type, "MMC_TYPE=SD"))
		r->prior.device = ANALYSIS_DEVICE_SD;
	else if (token_is(type, "MMC") || token_is(type, "MMC_TYPE=MMC"))
		r->prior.device = ANALYSIS_DEVICE_EMMC;
}

/*
 * What a pasted sysfs dump or fdisk -l says: preferred_erase_size (its
 * value on the same line, as head and grep print it, or on the next, as
 * cat does), the card type, and the capacity in "N bytes".
 */
static bool try_prior(struct parser *ps, const struct token *t,
		      const char **p, const char *end)
{
	struct analyze_result *r = ps->r;
	struct token value;
	const char *q;
	uint64_t v;

	if (ends_with(t, "preferred_erase_size") ||
	    ends_with(t, "preferred_erase_size:")) {
		ps->erase_pending = 2;
		if (attribute_value(p, end, &value) &&
		    parse_integer(&value, 512, MAX_SIZE_BYTES, &v)) {
			r->prior.preferred_erase = v;
			ps->erase_pending = 0;
		}
		return true;
	}
	if (ends_with(t, "/type") && attribute_value(p, end, &value)) {
		set_device(r, &value);
		return true;
	}
	if (token_is(t, "MMC_TYPE=SD") || token_is(t, "MMC_TYPE=MMC")) {
		set_device(r, t);
		return true;
	}
	if (ps->erase_pending && parse_integer(t, 512, MAX_SIZE_BYTES, &v)) {
		r->prior.preferred_erase = v;
		ps->erase_pending = 0;
		return true;
	}
	q = *p;
	if (parse_integer(t, 64ULL << 20, MAX_SIZE_BYTES, &v) &&
	    next_token(&q, end, &value) && (token_is(&value, "bytes") ||
					   token_is(&value, "bytes,"))) {
		r->prior.capacity_bytes = v;
		*p = q;
		return true;
	}
	return false;
}

/* One line: returns whether it held a record or a command. */
static bool parse_line(struct parser *ps, const char *p, const char *end)
{
	bool used = false, options = ps->continued;
	struct line_hint line = { 0 };
	const char *first;
	struct token t = { 0 };

	if (ps->erase_pending)
		ps->erase_pending--;
	ps->continued = false;
	if (ps->columns.count && try_column_row(ps, p, end))
		return true;
	ps->columns.count = 0;
	if (try_columns_header(ps, p, end))
		return true;
	first = p;
	if (next_token(&first, end, &t))
		line.prompt = is_prompt(&t);
	while (next_token(&p, end, &t)) {
		if (is_flashbench(&t)) {
			start_command(ps);
			options = used = true;
		} else if (token_is(&t, "align") && try_align(ps, &p, end)) {
			options = false;
			used = true;
		} else if (try_pair(ps, &t, &p, end)) {
			options = false;
			line = (struct line_hint){ 0 };
			used = true;
		} else if (try_prior(ps, &t, &p, end)) {
			used = true;
		} else if (options) {
			option(ps, &t, &p, end);
		} else if (prose_word(ps, &t, &p, end, &line)) {
			used = true;
		}
	}
	/* "flashbench -O \" goes on with its options on the next line */
	ps->continued = options && token_is(&t, "\\");
	return used;
}

/* ---- why a line was ignored ---- */

/* Words a record begins with, to tell a misspelling of one. */
static const char *const keywords[] = { "align", "pre", "on", "post",
					"diff", "flashbench" };

/*
 * One edit apart (a letter changed, added, dropped, or two swapped):
 * "aling", "algn", "allign" for align.
 */
static bool one_edit(const struct token *t, const char *word)
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
static bool unknown_unit(const struct token *t)
{
	double v, ns;
	uint64_t bytes;
	size_t used;

	if (!parse_decimal(t->s, t->len, true, &v, &used) || used == t->len)
		return false;
	return !parse_time(t, true, &ns) && !parse_size(t, &bytes) &&
	       !parse_rate(t, &v);
}

/* Why a line that is not blank held nothing: into why. */
static void diagnose(const char *p, const char *end, char *why, size_t size)
{
	bool align = false, numbers = false;
	struct token t;

	while (next_token(&p, end, &t)) {
		for (size_t i = 0; i < COUNT_OF(keywords); i++)
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
		align |= token_is(&t, "align");
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
	while (p < end && is_space(*p))
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
		if (!is_space(*p))
			return false;
	return true;
}

/* Parse len bytes into r, adding to what it holds; context starts afresh. */
static int parse_text(struct analyze_result *r, const char *text, size_t len)
{
	struct parser ps = { .r = r };
	char *clean = malloc(len + 1);
	const char *p, *end;
	size_t n, line = 0;

	if (!clean)
		return -ENOMEM;
	n = clean_text(clean, text, len);
	for (p = clean, end = clean + n; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		r->lines++;
		line++;
		if (!parse_line(&ps, p, eol) && !blank(p, eol))
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
