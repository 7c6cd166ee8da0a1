/*
 * pastecmd: command lines, shell loops and the words around them, as
 * pasted.  Both tools' options are known well enough to skip their
 * arguments; only -0, -O, -r and -f say anything about a run.  A loop's
 * body is collected until its output begins, then each run printed takes
 * the body's next command and the loop's value for its pass.
 */
#include <string.h>
#include <strings.h>

#include "analysis/pastecmd.h"

/* "$i", "${i}", "$i;": a shell variable, set by a loop around it. */
static bool is_variable(const struct paste_token *t)
{
	return t->len > 1 && t->s[0] == '$' && t->s[1] != '[' &&
	       t->s[1] != '(';
}

bool paste_parse_nr(const struct paste_token *t, struct paste_command *cmd)
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
	if (!paste_parse_integer(t, 1, PASTE_MAX_NR, &v))
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

static void long_option(struct paste_command *cmd,
			const struct paste_token *t, const char **p,
			const char *end)
{
	static const char nr[] = "--open-au-nr";
	size_t n = sizeof(nr) - 1;
	struct paste_token arg;

	if (t->len > n && memcmp(t->s, nr, n) == 0 && t->s[n] == '=') {
		arg = (struct paste_token){ t->s + n + 1, t->len - n - 1 };
		paste_parse_nr(&arg, cmd);
	} else if (paste_token_is(t, nr)) {
		const char *q = *p;

		if (paste_next_token(&q, end, &arg) &&
		    paste_parse_nr(&arg, cmd))
			*p = q;
	} else if (paste_token_is(t, "--random")) {
		cmd->random = true;
	} else if (paste_token_is(t, "--open-au")) {
		cmd->open_au = true;
	} else if (paste_token_is(t, "--find-fat")) {
		cmd->find_fat = true;
	} else {
		for (size_t i = 0; i < PASTE_COUNT_OF(long_with_arg); i++)
			if (paste_token_is(t, long_with_arg[i]))
				paste_next_token(p, end, &arg);
	}
}

/* A cluster of short options: "-O", "-Or", "-0", "-06", "-b 512". */
static void short_options(struct paste_command *cmd,
			  const struct paste_token *t, const char **p,
			  const char *end)
{
	for (size_t i = 1; i < t->len; i++) {
		struct paste_token arg = { t->s + i + 1, t->len - i - 1 };
		char c = t->s[i];

		switch (c) {
		case 'r': cmd->random = true; continue;
		case 'O': cmd->open_au = true; continue;
		case 'f': cmd->find_fat = true; continue;
		case 'a': case 'A': case 's': case 'i': case 'v': continue;
		case '0': case 'b': case 'e': case 'c': case 'o':
			break;
		default:
			return;
		}
		if (arg.len == 0) {
			const char *q = *p;

			if (!paste_next_token(&q, end, &arg))
				return;
			if (c != '0' || paste_parse_nr(&arg, cmd))
				*p = q;
		} else if (c == '0') {
			paste_parse_nr(&arg, cmd);
		}
		return;
	}
}

void paste_option(struct paste_command *cmd, const struct paste_token *t,
		  const char **p, const char *end)
{
	if (t->len > 2 && t->s[0] == '-' && t->s[1] == '-')
		long_option(cmd, t, p, end);
	else if (t->len > 1 && t->s[0] == '-')
		short_options(cmd, t, p, end);
}

void paste_command_begins(struct paste_loop *loop,
			  const struct paste_command *cmd)
{
	if (loop->collecting) {
		if (loop->cmd_count)
			loop->cmds[loop->cmd_count - 1] = *cmd;
		if (loop->cmd_count < PASTE_LOOP_MAX_COMMANDS)
			loop->cmd_count++;
	} else {
		memset(loop, 0, sizeof(*loop));
	}
}

void paste_body_ends(struct paste_loop *loop, const struct paste_command *cmd)
{
	if (!loop->collecting)
		return;
	loop->collecting = false;
	if (loop->cmd_count)
		loop->cmds[loop->cmd_count - 1] = *cmd;
	else
		memset(loop, 0, sizeof(*loop));
}

struct paste_command paste_run_command(struct paste_loop *loop,
				       const struct paste_command *last)
{
	struct paste_command cmd = *last;
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

/* ---- shell loops ---- */

/* A token without the shell punctuation around a value: "7);" -> "7". */
static struct paste_token strip_punct(const struct paste_token *t)
{
	struct paste_token s = *t;

	while (s.len && strchr(";)`", s.s[s.len - 1]))
		s.len--;
	while (s.len && strchr("(`", s.s[0])) {
		s.s++;
		s.len--;
	}
	return s;
}

static void loop_add(struct paste_loop *loop, uint64_t value)
{
	if (loop->value_count < PASTE_LOOP_MAX_VALUES)
		loop->values[loop->value_count++] = (unsigned)value;
}

/* "{1..8}": each value of the range. */
static bool loop_range(struct paste_loop *loop, const struct paste_token *t)
{
	const char *dots = t->len > 2 ? memchr(t->s, '.', t->len) : NULL;
	struct paste_token first, last;
	uint64_t from, to;

	if (!dots || t->s[0] != '{' || t->s[t->len - 1] != '}' ||
	    dots + 1 >= t->s + t->len || dots[1] != '.')
		return false;
	first = (struct paste_token){ t->s + 1, (size_t)(dots - t->s - 1) };
	last = (struct paste_token){ dots + 2,
				     (size_t)(t->s + t->len - dots - 3) };
	if (!paste_parse_integer(&first, 1, PASTE_MAX_NR, &from) ||
	    !paste_parse_integer(&last, from, PASTE_MAX_NR, &to))
		return false;
	for (uint64_t v = from; v <= to && v < from + PASTE_LOOP_MAX_VALUES;
	     v++)
		loop_add(loop, v);
	return true;
}

/* "seq LAST", "seq FIRST LAST", "seq FIRST STEP LAST". */
static void loop_seq(struct paste_loop *loop, const uint64_t *arg, size_t n)
{
	uint64_t first = n > 1 ? arg[0] : 1, last = arg[n - 1];
	uint64_t step = n > 2 ? arg[1] : 1;

	for (uint64_t v = first; v <= last && step; v += step)
		loop_add(loop, v);
}

bool paste_try_loop(struct paste_loop *out, const char **p, const char *end)
{
	struct paste_loop loop = { .collecting = true };
	uint64_t seq_arg[3], v;
	size_t seq_args = 0;
	bool seq = false, last = false;
	const char *q = *p;
	struct paste_token t, word;

	if (!paste_next_token(&q, end, &t) || !paste_next_token(&q, end, &t) ||
	    !paste_token_is(&t, "in"))
		return false;
	while (!last && paste_next_token(&q, end, &t) &&
	       !paste_token_is(&t, "do")) {
		last = t.s[t.len - 1] == ';';
		word = strip_punct(&t);
		if (paste_token_is(&t, "$(seq") || paste_token_is(&t, "`seq"))
			seq = true;
		else if (seq && seq_args < 3 &&
			 paste_parse_integer(&word, 1, PASTE_MAX_NR, &v))
			seq_arg[seq_args++] = v;
		else if (!seq &&
			 paste_parse_integer(&word, 1, PASTE_MAX_NR, &v))
			loop_add(&loop, v);
		else if (!seq && !loop_range(&loop, &word) && word.len)
			return false;
	}
	if (seq && seq_args)
		loop_seq(&loop, seq_arg, seq_args);
	if (!loop.value_count)
		return false;
	*out = loop;
	*p = q;
	return true;
}

/* ---- hints: sweep separators and comments ---- */

static bool prefix_is(const struct paste_token *t, const char *prefix,
		      size_t *len)
{
	size_t n = strlen(prefix);

	if (t->len < n || strncasecmp(t->s, prefix, n))
		return false;
	*len = n;
	return true;
}

/* "AU=3,", "N=3", "nr=3", "--open-au-nr=3": the count it names. */
bool paste_hint_count(const struct paste_token *t, unsigned *nr)
{
	static const char *const names[] = { "au=", "n=", "nr=",
					     "open-au-nr=" };
	struct paste_token rest = *t, digits;
	uint64_t v;
	size_t n;

	while (rest.len && rest.s[0] == '-') {
		rest.s++;
		rest.len--;
	}
	for (size_t i = 0; i < PASTE_COUNT_OF(names); i++) {
		if (!prefix_is(&rest, names[i], &n))
			continue;
		digits = (struct paste_token){ rest.s + n, rest.len - n };
		while (digits.len && strchr(",:;)", digits.s[digits.len - 1]))
			digits.len--;
		if (!paste_parse_integer(&digits, 1, PASTE_MAX_NR, &v))
			return false;
		*nr = (unsigned)v;
		return true;
	}
	return false;
}

/* "linear", "random", "--random" (any case, punctuated): 1, 2; else 0. */
int paste_order_word(const struct paste_token *t)
{
	struct paste_token w = strip_punct(t);

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

bool paste_prompt_count(const struct paste_token *t, const char **p,
			const char *end, unsigned *nr)
{
	bool attached = t->len > 2 && t->s[0] == '-' && t->s[1] == '0';
	struct paste_command cmd = { 0 };
	struct paste_token arg;
	const char *q = *p;

	if (attached)
		arg = (struct paste_token){ t->s + 2, t->len - 2 };
	else if (!(paste_token_is(t, "-0") ||
		   paste_token_is(t, "--open-au-nr")) ||
		 !paste_next_token(&q, end, &arg))
		return false;
	while (arg.len && strchr(",:;)", arg.s[arg.len - 1]))
		arg.len--;
	if (!paste_parse_nr(&arg, &cmd) || !cmd.nr_set)
		return false;
	if (!attached)
		*p = q;
	*nr = cmd.nr;
	return true;
}

void paste_hint_order(struct paste_hint *hint, int order)
{
	if (order && !hint->mode_set) {
		hint->mode_set = true;
		hint->random = order == 2;
	}
}

