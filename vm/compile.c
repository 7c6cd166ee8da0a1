/*
 * compile: program text to a compiled program.  A lexer and a
 * recursive-descent parser (expressions by precedence climbing, into
 * postfix) that check names, nesting and which values may steer I/O, and
 * report the first error with its line and column.  It does not run
 * anything: planning and running are vm.c's, listing is vm/list.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/units.h"
#include "vm/compile.h"
#include "vm/prog.h"

/* ---- lexer ---- */

enum token_kind { TOK_EOF, TOK_IDENT, TOK_NUMBER, TOK_PARAM, TOK_STRING,
		  TOK_PUNCT };

struct token {
	enum token_kind kind;
	const char *start;
	size_t length;
	unsigned line, column;
	double number;
	char punct;
};

struct parser {
	const char *text, *pos;
	unsigned line, column;
	struct token token;		/* current, not yet consumed */
	struct vm_program *program;
	struct vm_diag *diag;
	unsigned depth;
	bool failed;
};

static void error_at(struct parser *p, unsigned line, unsigned column,
		     const char *format, ...)
	__attribute__((format(printf, 4, 5)));

static void error_at(struct parser *p, unsigned line, unsigned column,
		     const char *format, ...)
{
	va_list args;

	if (p->failed)
		return;
	p->failed = true;
	p->diag->line = line;
	p->diag->column = column;
	va_start(args, format);
	vsnprintf(p->diag->message, sizeof(p->diag->message), format, args);
	va_end(args);
}

#define error_here(p, ...) \
	error_at(p, (p)->token.line, (p)->token.column, __VA_ARGS__)

static bool is_ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static void advance_char(struct parser *p)
{
	if (*p->pos == '\n') {
		p->line++;
		p->column = 1;
	} else {
		p->column++;
	}
	p->pos++;
}

static void skip_space(struct parser *p)
{
	for (;;) {
		char c = *p->pos;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			advance_char(p);
		} else if (c == '#') {
			while (*p->pos && *p->pos != '\n')
				advance_char(p);
		} else {
			return;
		}
	}
}

static void lex_number(struct parser *p, struct token *t)
{
	char buf[64];
	uint64_t value;

	while (is_ident_char(*p->pos, false))
		advance_char(p);
	t->length = (size_t)(p->pos - t->start);
	if (t->length >= sizeof(buf) ||
	    (memcpy(buf, t->start, t->length), buf[t->length] = '\0',
	     units_parse_size(buf, &value))) {
		error_at(p, t->line, t->column, "bad number '%.*s'",
			 (int)(t->length < 40 ? t->length : 40), t->start);
		return;
	}
	t->number = (double)value;
}

static void lex_string(struct parser *p, struct token *t)
{
	advance_char(p);
	while (*p->pos && *p->pos != '"' && *p->pos != '\n')
		advance_char(p);
	if (*p->pos != '"') {
		error_at(p, t->line, t->column, "unterminated string");
		return;
	}
	advance_char(p);
	t->start++;
	t->length = (size_t)(p->pos - t->start - 1);
}

static void next_token(struct parser *p)
{
	struct token *t = &p->token;

	skip_space(p);
	memset(t, 0, sizeof(*t));
	t->start = p->pos;
	t->line = p->line;
	t->column = p->column;
	if (*p->pos == '\0') {
		t->kind = TOK_EOF;
	} else if (*p->pos >= '0' && *p->pos <= '9') {
		t->kind = TOK_NUMBER;
		lex_number(p, t);
	} else if (is_ident_char(*p->pos, true) || *p->pos == '$') {
		t->kind = *p->pos == '$' ? TOK_PARAM : TOK_IDENT;
		if (t->kind == TOK_PARAM) {
			advance_char(p);
			t->start++;
		}
		while (is_ident_char(*p->pos, false))
			advance_char(p);
		t->length = (size_t)(p->pos - t->start);
		if (t->length == 0)
			error_here(p, "'$' must be followed by a name");
	} else if (*p->pos == '"') {
		t->kind = TOK_STRING;
		lex_string(p, t);
	} else if (strchr("{}()+-*/%=,", *p->pos)) {
		t->kind = TOK_PUNCT;
		t->punct = *p->pos;
		t->length = 1;
		advance_char(p);
	} else {
		error_here(p, "unexpected character '%c'", *p->pos);
		t->kind = TOK_EOF;
	}
}

static bool token_is(const struct token *t, const char *word)
{
	return t->kind == TOK_IDENT && strlen(word) == t->length &&
	       strncmp(t->start, word, t->length) == 0;
}

static bool token_is_punct(const struct token *t, char c)
{
	return t->kind == TOK_PUNCT && t->punct == c;
}

static void describe_token(const struct token *t, char *buf, size_t size)
{
	if (t->kind == TOK_EOF)
		snprintf(buf, size, "end of program");
	else
		snprintf(buf, size, "'%.*s'",
			 (int)(t->length < 40 ? t->length : 40), t->start);
}

static void expect_punct(struct parser *p, char c)
{
	char what[64];

	if (token_is_punct(&p->token, c)) {
		next_token(p);
		return;
	}
	describe_token(&p->token, what, sizeof(what));
	error_here(p, "expected '%c', found %s", c, what);
}

/* Index of word in a table of names, or -1 with an error listing them. */
static int expect_name(struct parser *p, const char *what,
		       const char *const *names, size_t count)
{
	char found[64], choices[160] = "";

	for (size_t i = 0; i < count; i++)
		if (names[i] && token_is(&p->token, names[i])) {
			next_token(p);
			return (int)i;
		}
	for (size_t i = 0; i < count; i++)
		if (names[i])
			snprintf(choices + strlen(choices),
				 sizeof(choices) - strlen(choices), "%s%s",
				 i ? ", " : "", names[i]);
	describe_token(&p->token, found, sizeof(found));
	error_here(p, "expected %s (%s), found %s", what, choices, found);
	return -1;
}

/* ---- program building ---- */

static struct node *new_node(struct parser *p, enum vm_op op)
{
	struct vm_program *prog = p->program;
	struct node *n;

	if (prog->node_count >= VM_MAX_NODES) {
		error_here(p, "program longer than %d statements",
			   VM_MAX_NODES);
		return NULL;
	}
	if (prog->node_count == prog->node_cap) {
		if (grow_array((void **)&prog->nodes, &prog->node_cap,
			       prog->node_count + 1, sizeof(*prog->nodes))) {
			error_here(p, "out of memory");
			return NULL;
		}
	}
	n = &prog->nodes[prog->node_count++];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->var = -1;
	n->line = p->token.line;
	n->column = p->token.column;
	return n;
}

static void emit_insn(struct parser *p, enum insn_code code, unsigned index,
		      double number)
{
	struct vm_program *prog = p->program;

	if (prog->insn_count == prog->insn_cap) {
		if (grow_array((void **)&prog->insns, &prog->insn_cap,
			       prog->insn_count + 1, sizeof(*prog->insns))) {
			error_here(p, "out of memory");
			return;
		}
	}
	prog->insns[prog->insn_count++] =
		(struct insn){ .code = code, .index = index, .number = number };
}

static int find_var(const struct vm_program *prog, const char *name,
		    size_t length)
{
	for (unsigned i = 0; i < prog->var_count; i++)
		if (strlen(prog->vars[i]) == length &&
		    strncmp(prog->vars[i], name, length) == 0)
			return (int)i;
	return -1;
}

/* Bind a variable name (new or existing) and record how it gets values. */
static int bind_name(struct parser *p, const struct token *name,
		     bool measured)
{
	struct vm_program *prog = p->program;
	int index;

	if (name->kind != TOK_IDENT) {
		error_at(p, name->line, name->column,
			 "expected a variable name");
		return -1;
	}
	index = find_var(prog, name->start, name->length);
	if (index < 0) {
		if (prog->var_count == VM_MAX_VARS) {
			error_at(p, name->line, name->column,
				 "more than %d variables", VM_MAX_VARS);
			return -1;
		}
		index = (int)prog->var_count;
		prog->vars[index] = strndup(name->start, name->length);
		if (!prog->vars[index]) {
			error_here(p, "out of memory");
			return -1;
		}
		prog->var_count++;
	}
	prog->measured[index] = measured;
	return index;
}

/* ---- expressions: precedence climbing into postfix ---- */

struct expr_state {
	unsigned depth;		/* stack depth reached while evaluating */
	unsigned max_depth;
	bool measured;		/* refers to a measured variable */
};

static void parse_sum(struct parser *p, struct expr_state *e);

static void push_depth(struct parser *p, struct expr_state *e)
{
	if (++e->depth > e->max_depth)
		e->max_depth = e->depth;
	if (e->depth > VM_MAX_DEPTH)
		error_here(p, "expression too deep");
}

static void parse_factor(struct parser *p, struct expr_state *e)
{
	struct token t = p->token;
	char what[64];
	int index;

	if (p->failed)
		return;
	if (token_is_punct(&t, '(')) {
		if (++p->depth > VM_MAX_DEPTH) {
			error_here(p, "expression too deep");
			return;
		}
		next_token(p);
		parse_sum(p, e);
		expect_punct(p, ')');
		p->depth--;
	} else if (token_is_punct(&t, '-')) {
		next_token(p);
		parse_factor(p, e);
		emit_insn(p, INSN_NEG, 0, 0);
	} else if (t.kind == TOK_NUMBER) {
		next_token(p);
		push_depth(p, e);
		emit_insn(p, INSN_NUMBER, 0, t.number);
	} else if (t.kind == TOK_IDENT) {
		index = find_var(p->program, t.start, t.length);
		if (index < 0) {
			error_here(p, "unknown variable '%.*s'",
				   (int)(t.length < 40 ? t.length : 40),
				   t.start);
			return;
		}
		e->measured |= p->program->measured[index];
		next_token(p);
		push_depth(p, e);
		emit_insn(p, INSN_VAR, (unsigned)index, 0);
	} else if (t.kind == TOK_PARAM) {
		const struct vm_program *prog = p->program;
		size_t i;

		for (i = 0; i < prog->param_count; i++)
			if (strlen(prog->params[i].name) == t.length &&
			    !strncmp(prog->params[i].name, t.start, t.length))
				break;
		if (i == prog->param_count) {
			error_here(p, "unknown parameter '$%.*s'",
				   (int)(t.length < 40 ? t.length : 40),
				   t.start);
			return;
		}
		next_token(p);
		push_depth(p, e);
		emit_insn(p, INSN_PARAM, (unsigned)i, 0);
	} else {
		describe_token(&t, what, sizeof(what));
		error_here(p, "expected a number, variable or $parameter, "
			   "found %s", what);
	}
}

static void parse_product(struct parser *p, struct expr_state *e)
{
	parse_factor(p, e);
	while (!p->failed && (token_is_punct(&p->token, '*') ||
			      token_is_punct(&p->token, '/') ||
			      token_is_punct(&p->token, '%'))) {
		char op = p->token.punct;

		next_token(p);
		parse_factor(p, e);
		e->depth--;
		emit_insn(p, op == '*' ? INSN_MUL : op == '/' ? INSN_DIV :
			  INSN_MOD, 0, 0);
	}
}

static void parse_sum(struct parser *p, struct expr_state *e)
{
	parse_product(p, e);
	while (!p->failed && (token_is_punct(&p->token, '+') ||
			      token_is_punct(&p->token, '-'))) {
		char op = p->token.punct;

		next_token(p);
		parse_product(p, e);
		e->depth--;
		emit_insn(p, op == '+' ? INSN_ADD : INSN_SUB, 0, 0);
	}
}

/* One operand; measured values are refused where I/O depends on them. */
static bool parse_operand(struct parser *p, struct expr *out,
			  bool allow_measured, const char *role)
{
	struct expr_state e = { 0 };
	unsigned line = p->token.line, column = p->token.column;

	out->start = p->program->insn_count;
	parse_sum(p, &e);
	out->count = p->program->insn_count - out->start;
	if (!p->failed && e.measured && !allow_measured)
		error_at(p, line, column, "%s cannot depend on a measured "
			 "value", role);
	return !p->failed;
}

/* ---- statements ---- */

static void parse_statement(struct parser *p);

static void parse_block(struct parser *p, unsigned owner)
{
	expect_punct(p, '{');
	if (++p->depth > VM_MAX_DEPTH)
		error_here(p, "blocks nested too deeply");
	while (!p->failed && !token_is_punct(&p->token, '}')) {
		if (p->token.kind == TOK_EOF) {
			error_here(p, "missing '}'");
			return;
		}
		parse_statement(p);
	}
	expect_punct(p, '}');
	p->depth--;
	if (!p->failed)
		p->program->nodes[owner].end = p->program->node_count;
}

static void parse_io(struct parser *p, enum vm_op op)
{
	unsigned index = p->program->node_count;
	struct node *n = new_node(p, op);

	if (!n)
		return;
	next_token(p);
	n->operand_count = 2;
	if (!parse_operand(p, &n->operands[0], false, "an offset") ||
	    !parse_operand(p, &n->operands[1], false, "a length"))
		return;
	n = &p->program->nodes[index];
	n->pattern = DEV_PATTERN_RANDOM;
	if (op == VM_WRITE && p->token.kind == TOK_IDENT) {
		int pattern = expect_name(p, "a pattern", vm_pattern_names,
					  DEV_PATTERN_COUNT);
		if (pattern >= 0)
			p->program->nodes[index].pattern =
				(enum dev_pattern)pattern;
	}
	p->program->nodes[index].end = index + 1;
}

/* REDUCE := NAME | "(" NAME {"," NAME} ")": several of the same runs. */
static bool parse_reducers(struct parser *p, unsigned index)
{
	bool list = token_is_punct(&p->token, '(');
	unsigned count = 0;

	if (list)
		next_token(p);
	do {
		int reduce;

		if (count && list)
			next_token(p);		/* the comma */
		if (count == VM_MAX_REDUCERS) {
			error_here(p, "more than %d reducers", VM_MAX_REDUCERS);
			return false;
		}
		reduce = expect_name(p, "a reducer", vm_reduce_names,
				     VM_REDUCE_COUNT);
		if (reduce < 0)
			return false;
		if (list && reduce == VM_REDUCE_NONE) {
			error_here(p, "'none' cannot be one of several reducers");
			return false;
		}
		p->program->nodes[index].reduce[count++] =
			(enum vm_reduce)reduce;
	} while (list && token_is_punct(&p->token, ','));
	if (list)
		expect_punct(p, ')');
	p->program->nodes[index].reduce_count = count;
	return !p->failed;
}

static void parse_repeat(struct parser *p)
{
	unsigned index = p->program->node_count;
	struct node *n = new_node(p, VM_REPEAT);

	if (!n)
		return;
	next_token(p);
	n->operand_count = 1;
	if (!parse_operand(p, &n->operands[0], false, "a repeat count") ||
	    !parse_reducers(p, index))
		return;
	parse_block(p, index);
}

/* Whether a loop's body does I/O: only I/O advances device time. */
static bool has_io(const struct vm_program *program, unsigned loop)
{
	for (unsigned i = loop + 1; i < program->nodes[loop].end; i++)
		if (program->nodes[i].op == VM_READ ||
		    program->nodes[i].op == VM_WRITE ||
		    program->nodes[i].op == VM_STAMP ||
		    program->nodes[i].op == VM_VERIFY ||
		    program->nodes[i].op == VM_DISCARD)
			return true;
	return false;
}

/*
 * "depth EXPR" after "within": up to EXPR operations of the body in
 * flight at once.  The body is then one operation, so the operations
 * of successive runs can overlap.
 */
static bool parse_depth(struct parser *p, unsigned index)
{
	if (p->program->nodes[index].op != VM_FOR_TIME) {
		error_here(p, "'depth' needs a loop bounded by time "
			   "('within' first)");
		return false;
	}
	next_token(p);
	p->program->nodes[index].has_depth = true;
	return parse_operand(p, &p->program->nodes[index].depth, false,
			     "a queue depth");
}

static void check_depth_body(struct parser *p, unsigned index)
{
	const struct node *n = &p->program->nodes[index];
	const struct node *body = &p->program->nodes[index + 1];

	if (n->end != index + 2 ||
	    (body->op != VM_READ && body->op != VM_WRITE))
		error_at(p, n->line, n->column, "a loop with a depth needs "
			 "a single read or write as its body");
}

static void parse_for(struct parser *p)
{
	unsigned index = p->program->node_count;
	struct node *n = new_node(p, VM_FOR);
	const char *names[VM_SERIES_COUNT];
	int var, series;
	unsigned count;

	if (!n)
		return;
	next_token(p);
	var = bind_name(p, &p->token, false);
	if (var < 0)
		return;
	next_token(p);
	if (!token_is(&p->token, "in")) {
		error_here(p, "expected 'in' after the loop variable");
		return;
	}
	next_token(p);
	for (int i = 0; i < VM_SERIES_COUNT; i++)
		names[i] = vm_series_table[i].name;
	series = expect_name(p, "a series", names, VM_SERIES_COUNT);
	if (series < 0)
		return;
	count = vm_series_table[series].operands;
	for (unsigned i = 0; i < count; i++)
		if (!parse_operand(p, &p->program->nodes[index].operands[i],
				   false, "a series bound"))
			return;
	/* "within DURATION": the series again and again until the time */
	if (token_is(&p->token, "within")) {
		next_token(p);
		if (!parse_operand(p, &p->program->nodes[index].operands[count],
				   false, "a duration in ns"))
			return;
		p->program->nodes[index].op = VM_FOR_TIME;
		count++;
		if (token_is(&p->token, "resume")) {
			next_token(p);
			p->program->nodes[index].resume = true;
		}
		/* "once": a fixed amount of I/O, as fio's size= is */
		if (token_is(&p->token, "once")) {
			next_token(p);
			p->program->nodes[index].once = true;
		}
	}
	if (token_is(&p->token, "depth") && !parse_depth(p, index))
		return;
	if (!parse_reducers(p, index))
		return;
	n = &p->program->nodes[index];
	n->var = var;
	n->series = (enum vm_series)series;
	n->operand_count = count;
	parse_block(p, index);
	if (!p->failed && p->program->nodes[index].op == VM_FOR_TIME &&
	    !has_io(p->program, index))
		error_at(p, n->line, n->column, "a loop bounded by time needs "
			 "a read, write or discard in its body");
	if (!p->failed && p->program->nodes[index].has_depth)
		check_depth_body(p, index);
}

static bool starts_value_statement(const struct token *t)
{
	return token_is(t, "read") || token_is(t, "write") ||
	       token_is(t, "discard") || token_is(t, "repeat") ||
	       token_is(t, "for");
}

static bool is_loop(enum vm_op op)
{
	return op == VM_FOR || op == VM_FOR_TIME || op == VM_REPEAT;
}

static void parse_let(struct parser *p)
{
	unsigned index = p->program->node_count;
	struct node *n = new_node(p, VM_LET);
	struct token names[VM_MAX_REDUCERS];
	unsigned name_count = 0;
	bool measured = true;

	if (!n)
		return;
	next_token(p);
	for (;;) {
		if (p->token.kind != TOK_IDENT) {
			error_here(p, "expected a variable name after 'let'");
			return;
		}
		if (name_count == VM_MAX_REDUCERS) {
			error_here(p, "more than %d names", VM_MAX_REDUCERS);
			return;
		}
		names[name_count++] = p->token;
		next_token(p);
		if (!token_is_punct(&p->token, ','))
			break;
		next_token(p);
	}
	expect_punct(p, '=');
	if (p->failed)
		return;
	if (starts_value_statement(&p->token)) {
		unsigned body = p->program->node_count;
		const struct node *b;

		parse_statement(p);
		if (p->failed)
			return;
		b = &p->program->nodes[body];
		if (is_loop(b->op) && b->reduce[0] == VM_REDUCE_NONE) {
			error_at(p, b->line, b->column,
				 "a loop with reducer 'none' has no value");
			return;
		}
		if (name_count > 1 && (!is_loop(b->op) ||
		    b->reduce_count != name_count)) {
			error_at(p, b->line, b->column, "%u names need a loop "
				 "with %u reducers", name_count, name_count);
			return;
		}
	} else {
		struct expr_state e = { 0 };
		struct expr *x = &p->program->nodes[index].operands[0];

		if (name_count > 1) {
			error_here(p, "several names need a loop with as many "
				   "reducers");
			return;
		}
		x->start = p->program->insn_count;
		parse_sum(p, &e);
		x->count = p->program->insn_count - x->start;
		if (p->failed)
			return;
		p->program->nodes[index].operand_count = 1;
		measured = e.measured;
	}
	/* bound after the value: "let x = x + 1" reads the old x */
	n = &p->program->nodes[index];
	n->var = bind_name(p, &names[0], measured);
	for (unsigned i = 1; i < name_count; i++)
		p->program->nodes[index].more_vars[i - 1] =
			bind_name(p, &names[i], measured);
	p->program->nodes[index].var_count = name_count;
	p->program->nodes[index].end = p->program->node_count;
}

/* KEY := IDENT [STRING] | STRING: a machine key and a text template. */
static bool parse_key(struct parser *p, struct node *n)
{
	if (p->token.kind == TOK_IDENT) {
		if (p->token.length > RECORD_KEY_MAX) {
			error_here(p, "key longer than %d characters",
				   RECORD_KEY_MAX);
			return false;
		}
		n->key = strndup(p->token.start, p->token.length);
		next_token(p);
	}
	if (p->token.kind == TOK_STRING) {
		if (p->token.length > VM_TEMPLATE_MAX) {
			error_here(p, "text longer than %d characters",
				   VM_TEMPLATE_MAX);
			return false;
		}
		n->text = strndup(p->token.start, p->token.length);
		if (!n->key) {
			/* the key of "min %" is "min" */
			const char *s = n->text;
			size_t len;

			while (*s && !is_ident_char(*s, true))
				s++;
			for (len = 0; is_ident_char(s[len], false); len++)
				;
			if (len > RECORD_KEY_MAX) {
				error_here(p, "key (the text's first word) "
					   "longer than %d characters",
					   RECORD_KEY_MAX);
				return false;
			}
			n->key = len ? strndup(s, len) : strdup("value");
		}
		next_token(p);
	}
	if (!n->key) {
		error_here(p, "expected a key (a name, a \"text\" or both)");
		return false;
	}
	return true;
}

static void parse_report(struct parser *p)
{
	unsigned index = p->program->node_count;
	const char *names[VM_UNIT_WORD_COUNT];
	struct node *n = new_node(p, VM_REPORT);
	int unit;

	if (!n)
		return;
	next_token(p);
	for (int i = 0; i < VM_UNIT_WORD_COUNT; i++)
		names[i] = vm_unit_table[i].name;
	unit = expect_name(p, "a unit", names, VM_UNIT_WORD_COUNT);
	if (unit < 0 || !parse_key(p, &p->program->nodes[index]))
		return;
	n = &p->program->nodes[index];
	n->unit_word = (enum vm_unit_word)unit;
	n->unit = vm_unit_table[unit].unit;
	/* the statement's template and display are its row of the layout */
	n->look = (struct text_look){
		.display = vm_unit_table[unit].display, .template = n->text };
	n->end = index + 1;
	if (n->unit == RECORD_LABEL) {
		if (p->token.kind != TOK_STRING) {
			error_here(p, "expected the label's \"text\"");
			return;
		}
		n->label = strndup(p->token.start, p->token.length);
		next_token(p);
		return;
	}
	n->operand_count = vm_unit_table[unit].operands;
	for (unsigned i = 0; i < n->operand_count; i++)
		if (!parse_operand(p, &p->program->nodes[index].operands[i],
				   true, "a report"))
			return;
}

static void parse_statement(struct parser *p)
{
	char what[64];

	if (token_is(&p->token, "read")) {
		parse_io(p, VM_READ);
	} else if (token_is(&p->token, "write")) {
		parse_io(p, VM_WRITE);
	} else if (token_is(&p->token, "discard")) {
		parse_io(p, VM_DISCARD);
	} else if (token_is(&p->token, "stamp")) {
		parse_io(p, VM_STAMP);
	} else if (token_is(&p->token, "verify")) {
		parse_io(p, VM_VERIFY);
	} else if (token_is(&p->token, "repeat")) {
		parse_repeat(p);
	} else if (token_is(&p->token, "for")) {
		parse_for(p);
	} else if (token_is(&p->token, "let")) {
		parse_let(p);
	} else if (token_is(&p->token, "report")) {
		parse_report(p);
	} else if (token_is(&p->token, "newline")) {
		struct node *n = new_node(p, VM_NEWLINE);

		if (n)
			n->end = p->program->node_count;
		next_token(p);
	} else {
		describe_token(&p->token, what, sizeof(what));
		error_here(p, "expected a statement (read, write, discard, "
			   "stamp, verify, repeat, for, let, report, "
			   "newline), found %s",
			   what);
	}
}

static void parse_header(struct parser *p)
{
	if (token_is(&p->token, "format")) {
		int style;

		next_token(p);
		style = expect_name(p, "a text format", vm_style_names,
				    TEXT_STYLE_COUNT);
		if (style >= 0)
			p->program->layout.style = (enum text_style)style;
	}
}

int vm_compile(const char *text, const struct vm_param *params,
	       size_t param_count, struct vm_program **program,
	       struct vm_diag *diag)
{
	struct parser p = { .text = text, .pos = text, .line = 1,
			    .column = 1, .diag = diag };

	memset(diag, 0, sizeof(*diag));
	p.program = calloc(1, sizeof(*p.program));
	if (!p.program) {
		snprintf(diag->message, sizeof(diag->message),
			 "out of memory");
		return -ENOMEM;
	}
	p.program->params = params;
	p.program->param_count = param_count;
	next_token(&p);
	parse_header(&p);
	while (!p.failed && p.token.kind != TOK_EOF) {
		if (token_is_punct(&p.token, '}')) {
			error_here(&p, "'}' without a matching '{'");
			break;
		}
		parse_statement(&p);
	}
	if (!p.failed && p.program->node_count == 0)
		error_at(&p, 1, 1, "empty program");
	if (p.failed) {
		vm_free(p.program);
		*program = NULL;
		return -EINVAL;
	}
	*program = p.program;
	return 0;
}

/* A program owns its nodes' strings, its variable names and its tables. */
void vm_free(struct vm_program *program)
{
	if (!program)
		return;
	for (unsigned i = 0; i < program->node_count; i++) {
		free(program->nodes[i].key);
		free(program->nodes[i].text);
		free(program->nodes[i].label);
	}
	for (unsigned i = 0; i < program->var_count; i++)
		free(program->vars[i]);
	free(program->nodes);
	free(program->insns);
	free(program);
}
