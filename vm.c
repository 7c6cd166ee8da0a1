/*
 * vm: compiler and interpreter for test programs.  The text syntax is
 * described in README.md and flashbench(1); a program compiles into a flat
 * table of nodes (a statement and the extent of its body) and a pool of
 * expressions in postfix form.  The same interpreter plans a program (no
 * I/O: it checks every operation and finds the write range) and runs it.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfsr.h"
#include "units.h"
#include "vm.h"

#define VM_MAX_VARS 32
#define VM_MAX_DEPTH 32		/* nesting of blocks, and expression stack */
#define VM_MAX_NODES 4096
#define VM_MAX_OPERANDS 4
#define VM_MAX_REDUCERS 4	/* let a, b, c = for ... (min, avg, max) */

/* Opcode properties, indexed by the enum so their order cannot drift. */
static const struct {
	const char *name;
	unsigned operands;	/* expressions that follow the keyword */
	bool has_value;		/* counts towards its block's value */
} op_table[] = {
	[VM_READ] = { "read", 2, true },
	[VM_WRITE] = { "write", 2, true },
	[VM_DISCARD] = { "discard", 2, true },
	[VM_REPEAT] = { "repeat", 1, true },
	[VM_FOR] = { "for", 0, true },
	[VM_LET] = { "let", 0, false },
	[VM_REPORT] = { "report", 0, false },
	[VM_NEWLINE] = { "newline", 0, false },
};
_Static_assert(sizeof(op_table) / sizeof(op_table[0]) == VM_OP_COUNT,
	       "one op_table row per opcode");

static const struct {
	const char *name;
	unsigned operands;
} series_table[] = {
	[VM_SERIES_POW2] = { "pow2", 2 },
	[VM_SERIES_LINEAR] = { "linear", 3 },
	[VM_SERIES_SHUFFLE] = { "shuffle", 3 },
	[VM_SERIES_ALIGNS] = { "aligns", 3 },
	[VM_SERIES_BOUNDARIES] = { "boundaries", 4 },
};
_Static_assert(sizeof(series_table) / sizeof(series_table[0]) ==
	       VM_SERIES_COUNT, "one series_table row per series");

static const char *const reduce_names[] = {
	[VM_REDUCE_NONE] = "none", [VM_REDUCE_MIN] = "min",
	[VM_REDUCE_MAX] = "max", [VM_REDUCE_AVG] = "avg",
	[VM_REDUCE_TOTAL] = "total",
};
_Static_assert(sizeof(reduce_names) / sizeof(reduce_names[0]) ==
	       VM_REDUCE_COUNT, "one name per reducer");

static const struct {
	const char *name;
	unsigned operands;
} unit_table[] = {
	[VM_UNIT_BYTES] = { "bytes", 1 }, [VM_UNIT_SIZE] = { "size", 1 },
	[VM_UNIT_TIME] = { "time", 1 }, [VM_UNIT_RATE] = { "rate", 2 },
	[VM_UNIT_MIB] = { "mib", 1 }, [VM_UNIT_MS] = { "ms", 1 },
	[VM_UNIT_MBPS] = { "mbps", 2 }, [VM_UNIT_COUNT] = { "count", 1 },
	[VM_UNIT_LABEL] = { "label", 0 }, [VM_UNIT_BOOL] = { "bool", 1 },
};
_Static_assert(sizeof(unit_table) / sizeof(unit_table[0]) == VM_UNIT_KINDS,
	       "one unit_table row per unit");

static const char *const pattern_names[] = {
	[DEV_PATTERN_ZEROS] = "zeros", [DEV_PATTERN_ONES] = "ones",
	[DEV_PATTERN_RANDOM] = "random",
};

static const char *const style_names[] = {
	[VM_STYLE_COLUMNS] = "columns", [VM_STYLE_TABS] = "tabs",
	[VM_STYLE_SPACES] = "spaces",
};

/* Expression instructions, evaluated on a stack. */
enum insn_code {
	INSN_NUMBER,		/* push number */
	INSN_VAR,		/* push variable index */
	INSN_PARAM,		/* push parameter index */
	INSN_ADD, INSN_SUB, INSN_MUL, INSN_DIV, INSN_MOD,
	INSN_NEG,		/* negate the top */
};

struct insn {
	enum insn_code code;
	unsigned index;
	double number;
};

struct expr {
	unsigned start;		/* first instruction */
	unsigned count;
};

struct node {
	enum vm_op op;
	unsigned line, column;
	enum vm_series series;
	enum vm_reduce reduce[VM_MAX_REDUCERS];	/* of the same runs */
	unsigned reduce_count;
	enum dev_pattern pattern;
	enum vm_unit unit;
	int var;			/* bound (for, let) variable or -1 */
	int more_vars[VM_MAX_REDUCERS - 1];	/* let a, b, c = ... */
	unsigned var_count;
	unsigned operand_count;
	struct expr operands[VM_MAX_OPERANDS];
	unsigned end;			/* index of the node after the body */
	char *key, *text, *label;
};

struct vm_program {
	struct node *nodes;
	unsigned node_count, node_cap;
	struct insn *insns;
	unsigned insn_count, insn_cap;
	char *vars[VM_MAX_VARS];
	bool measured[VM_MAX_VARS];	/* value comes from a measurement */
	unsigned var_count;
	const struct vm_param *params;
	size_t param_count;
	enum vm_style style;
};

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

static void *grow(void *array, unsigned *cap, size_t item)
{
	unsigned n = *cap ? *cap * 2 : 32;
	void *bigger = realloc(array, n * item);

	if (bigger)
		*cap = n;
	return bigger;
}

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
		struct node *nodes = grow(prog->nodes, &prog->node_cap,
					  sizeof(*nodes));
		if (!nodes) {
			error_here(p, "out of memory");
			return NULL;
		}
		prog->nodes = nodes;
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
		struct insn *insns = grow(prog->insns, &prog->insn_cap,
					  sizeof(*insns));
		if (!insns) {
			error_here(p, "out of memory");
			return;
		}
		prog->insns = insns;
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
		int pattern = expect_name(p, "a pattern", pattern_names,
					  DEV_PATTERN_COUNT);
		if (pattern >= 0)
			p->program->nodes[index].pattern = pattern;
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
		reduce = expect_name(p, "a reducer", reduce_names,
				     VM_REDUCE_COUNT);
		if (reduce < 0)
			return false;
		if (list && reduce == VM_REDUCE_NONE) {
			error_here(p, "'none' cannot be one of several reducers");
			return false;
		}
		p->program->nodes[index].reduce[count++] = reduce;
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
		names[i] = series_table[i].name;
	series = expect_name(p, "a series", names, VM_SERIES_COUNT);
	if (series < 0)
		return;
	count = series_table[series].operands;
	for (unsigned i = 0; i < count; i++)
		if (!parse_operand(p, &p->program->nodes[index].operands[i],
				   false, "a series bound"))
			return;
	if (!parse_reducers(p, index))
		return;
	n = &p->program->nodes[index];
	n->var = var;
	n->series = series;
	n->operand_count = count;
	parse_block(p, index);
}

static bool starts_value_statement(const struct token *t)
{
	return token_is(t, "read") || token_is(t, "write") ||
	       token_is(t, "discard") || token_is(t, "repeat") ||
	       token_is(t, "for");
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
		if ((b->op == VM_FOR || b->op == VM_REPEAT) &&
		    b->reduce[0] == VM_REDUCE_NONE) {
			error_at(p, b->line, b->column,
				 "a loop with reducer 'none' has no value");
			return;
		}
		if (name_count > 1 && ((b->op != VM_FOR && b->op != VM_REPEAT) ||
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
		n->key = strndup(p->token.start, p->token.length);
		next_token(p);
	}
	if (p->token.kind == TOK_STRING) {
		n->text = strndup(p->token.start, p->token.length);
		if (!n->key) {
			/* the key of "min %" is "min" */
			const char *s = n->text;
			size_t len;

			while (*s && !is_ident_char(*s, true))
				s++;
			for (len = 0; is_ident_char(s[len], false); len++)
				;
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
	const char *names[VM_UNIT_KINDS];
	struct node *n = new_node(p, VM_REPORT);
	int unit;

	if (!n)
		return;
	next_token(p);
	for (int i = 0; i < VM_UNIT_KINDS; i++)
		names[i] = unit_table[i].name;
	unit = expect_name(p, "a unit", names, VM_UNIT_KINDS);
	if (unit < 0 || !parse_key(p, &p->program->nodes[index]))
		return;
	n = &p->program->nodes[index];
	n->unit = unit;
	n->end = index + 1;
	if (unit == VM_UNIT_LABEL) {
		if (p->token.kind != TOK_STRING) {
			error_here(p, "expected the label's \"text\"");
			return;
		}
		n->label = strndup(p->token.start, p->token.length);
		next_token(p);
		return;
	}
	n->operand_count = unit_table[unit].operands;
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
			   "repeat, for, let, report, newline), found %s",
			   what);
	}
}

static void parse_header(struct parser *p)
{
	if (token_is(&p->token, "format")) {
		int style;

		next_token(p);
		style = expect_name(p, "a text format", style_names,
				    VM_STYLE_COUNT);
		if (style >= 0)
			p->program->style = style;
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

/* ---- listing ---- */

/* Rebuild an expression's text from postfix, with only needed parens. */
/* Longest expression text a listing shows (programs are far shorter). */
#define EXPR_TEXT 1024

static void expr_text(const struct vm_program *prog, const struct expr *x,
		      char *out, size_t size)
{
	enum { ATOM, PRODUCT, SUM };
	char stack[VM_MAX_DEPTH + 1][EXPR_TEXT];
	int level[VM_MAX_DEPTH + 1];
	unsigned top = 0;

	for (unsigned i = 0; i < x->count && top <= VM_MAX_DEPTH; i++) {
		const struct insn *in = &prog->insns[x->start + i];
		static const char ops[] = { [INSN_ADD] = '+', [INSN_SUB] = '-',
					    [INSN_MUL] = '*', [INSN_DIV] = '/',
					    [INSN_MOD] = '%' };
		char a[EXPR_TEXT], b[EXPR_TEXT];
		int mine;

		switch (in->code) {
		case INSN_NUMBER:
			/* the lexer reads whole numbers only: no exponent */
			snprintf(stack[top], sizeof(stack[0]),
				 in->number == floor(in->number) &&
				 in->number < 1.8e19 ? "%.0f" : "%.17g",
				 in->number);
			level[top++] = ATOM;
			continue;
		case INSN_VAR:
		case INSN_PARAM:
			snprintf(stack[top], sizeof(stack[0]), "%s%s",
				 in->code == INSN_PARAM ? "$" : "",
				 in->code == INSN_PARAM ?
				 prog->params[in->index].name :
				 prog->vars[in->index]);
			level[top++] = ATOM;
			continue;
		case INSN_NEG:
			snprintf(a, sizeof(a), "%s", stack[top - 1]);
			snprintf(stack[top - 1], sizeof(stack[0]),
				 level[top - 1] == ATOM ? "-%s" : "-(%s)", a);
			level[top - 1] = ATOM;
			continue;
		default:
			break;
		}
		mine = in->code == INSN_ADD || in->code == INSN_SUB ? SUM :
		       PRODUCT;
		top--;
		/* left needs parens below its operator's level; right also
		   at the same level unless the operator associates (+, *) */
		snprintf(a, sizeof(a), level[top - 1] > mine ? "(%s)" : "%s",
			 stack[top - 1]);
		snprintf(b, sizeof(b), level[top] > mine ||
			 (level[top] == mine && in->code != INSN_ADD &&
			  in->code != INSN_MUL) ? "(%s)" : "%s", stack[top]);
		snprintf(stack[top - 1], sizeof(stack[0]), "%.*s %c %.*s",
			 EXPR_TEXT / 2 - 2, a, ops[in->code], EXPR_TEXT / 2 - 2,
			 b);
		level[top - 1] = mine;
	}
	snprintf(out, size, "%s", top ? stack[0] : "?");
}

static void list_operands(const struct vm_program *prog,
			  const struct node *n, char *line, size_t size)
{
	for (unsigned i = 0; i < n->operand_count; i++) {
		char text[EXPR_TEXT];

		expr_text(prog, &n->operands[i], text, sizeof(text));
		snprintf(line + strlen(line), size - strlen(line),
			 " %s%s%s", n->operand_count > 1 &&
			 strchr(text, ' ') ? "(" : "", text,
			 n->operand_count > 1 && strchr(text, ' ') ? ")" : "");
	}
}

static unsigned list_node(const struct vm_program *prog, unsigned index,
			  unsigned depth, void (*out)(void *, const char *),
			  void *ctx, bool inline_let);

static void list_body(const struct vm_program *prog, unsigned first,
		      unsigned end, unsigned depth,
		      void (*out)(void *, const char *), void *ctx)
{
	for (unsigned i = first; i < end; )
		i = list_node(prog, i, depth, out, ctx, false);
}

static unsigned list_node(const struct vm_program *prog, unsigned index,
			  unsigned depth, void (*out)(void *, const char *),
			  void *ctx, bool inline_let)
{
	const struct node *n = &prog->nodes[index];
	char line[4 * EXPR_TEXT];
	size_t indent = inline_let ? 0 : depth;

	memset(line, '\t', indent);
	line[indent] = '\0';
	if (inline_let)
		line[0] = '\0';
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s",
		 op_table[n->op].name);
	switch (n->op) {
	case VM_FOR:
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " %s in %s", prog->vars[n->var],
			 series_table[n->series].name);
		/* fall through */
	case VM_REPEAT:
		list_operands(prog, n, line, sizeof(line));
		for (unsigned i = 0; i < n->reduce_count; i++)
			snprintf(line + strlen(line),
				 sizeof(line) - strlen(line), "%s%s",
				 i ? ", " : n->reduce_count > 1 ? " (" : " ",
				 reduce_names[n->reduce[i]]);
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "%s {", n->reduce_count > 1 ? ")" : "");
		out(ctx, line);
		list_body(prog, index + 1, n->end, depth + 1, out, ctx);
		memset(line, '\t', depth);
		snprintf(line + depth, sizeof(line) - depth, "}");
		out(ctx, line);
		return n->end;
	case VM_LET:
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " %s", prog->vars[n->var]);
		for (unsigned i = 1; i < n->var_count; i++)
			snprintf(line + strlen(line),
				 sizeof(line) - strlen(line), ", %s",
				 prog->vars[n->more_vars[i - 1]]);
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " =");
		if (n->operand_count) {
			list_operands(prog, n, line, sizeof(line));
			break;
		}
		out(ctx, line);
		list_body(prog, index + 1, n->end, depth + 1, out, ctx);
		return n->end;
	case VM_REPORT:
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " %s %s", unit_table[n->unit].name, n->key);
		if (n->text)
			snprintf(line + strlen(line),
				 sizeof(line) - strlen(line), " \"%s\"",
				 n->text);
		if (n->label)
			snprintf(line + strlen(line),
				 sizeof(line) - strlen(line), " \"%s\"",
				 n->label);
		list_operands(prog, n, line, sizeof(line));
		break;
	case VM_WRITE:
		list_operands(prog, n, line, sizeof(line));
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " %s", pattern_names[n->pattern]);
		break;
	default:
		list_operands(prog, n, line, sizeof(line));
		break;
	}
	out(ctx, line);
	return index + 1;
}

void vm_list(const struct vm_program *program,
	     void (*line)(void *ctx, const char *text), void *ctx)
{
	char header[64];

	snprintf(header, sizeof(header), "format %s",
		 style_names[program->style]);
	line(ctx, header);
	list_body(program, 0, program->node_count, 0, line, ctx);
}

const char *vm_op_name(enum vm_op op)
{
	return op < VM_OP_COUNT ? op_table[op].name : "?";
}

const char *vm_unit_name(enum vm_unit unit)
{
	return unit < VM_UNIT_KINDS ? unit_table[unit].name : "?";
}

/* ---- interpreter ---- */

struct run {
	const struct vm_program *program;
	struct vm_exec *exec;
	struct vm_plan *plan;
	const struct dev *dev;
	bool planning;
	double vars[VM_MAX_VARS];
	struct vm_record record;
	void *read_buffer;
	void *write_buffers[DEV_PATTERN_COUNT];
	uint64_t steps;			/* loop iterations and operations */
	uint64_t step_limit;
	uint64_t done;			/* operations run so far */
	uint64_t total;			/* operations the plan counted */
	unsigned fields_planned;
	unsigned error_line;
	double loop_values[VM_MAX_REDUCERS];	/* of the last loop to end */
	bool record_failed;		/* a skipped read belongs to it */
};

static int plan_error(struct run *r, int err, const char *op,
		      uint64_t offset, uint64_t length, unsigned line)
{
	if (r->plan && !r->plan->error) {
		r->plan->error = err;
		r->plan->error_op = op;
		r->plan->error_offset = offset;
		r->plan->error_length = length;
		r->plan->error_line = line;
	}
	return err;
}

static int eval(struct run *r, const struct expr *x, double *value)
{
	double stack[VM_MAX_DEPTH + 1];
	unsigned top = 0;

	for (unsigned i = 0; i < x->count; i++) {
		const struct insn *in = &r->program->insns[x->start + i];
		double a, b;

		switch (in->code) {
		case INSN_NUMBER:
			stack[top++] = in->number;
			continue;
		case INSN_VAR:
			stack[top++] = r->vars[in->index];
			continue;
		case INSN_PARAM:
			stack[top++] = r->program->params[in->index].value;
			continue;
		case INSN_NEG:
			stack[top - 1] = -stack[top - 1];
			continue;
		default:
			break;
		}
		b = stack[--top];
		a = stack[top - 1];
		switch (in->code) {
		case INSN_ADD:
			a += b;
			break;
		case INSN_SUB:
			a -= b;
			break;
		case INSN_MUL:
			a *= b;
			break;
		case INSN_DIV:
			a = b != 0 ? a / b : NAN;
			break;
		default:
			a = b != 0 ? fmod(a, b) : NAN;
			break;
		}
		stack[top - 1] = a;
	}
	*value = top ? stack[0] : NAN;
	return 0;
}

/* An operand that must be a whole number of bytes or a count. */
static int eval_whole(struct run *r, const struct node *n, unsigned i,
		      uint64_t *value)
{
	double v;

	eval(r, &n->operands[i], &v);
	if (!isfinite(v) || v < 0 || v != floor(v) || v >= 9.0e18)
		return plan_error(r, -EDOM, op_table[n->op].name,
				  (uint64_t)(isfinite(v) && v > 0 ? v : 0), 0,
				  n->line);
	*value = (uint64_t)v;
	return 0;
}

static int count_step(struct run *r, const struct node *n)
{
	if (++r->steps > r->step_limit)
		return plan_error(r, -E2BIG, op_table[n->op].name, 0, 0,
				  n->line);
	return 0;
}

static void plan_io(struct run *r, const struct node *n, uint64_t offset,
		    uint64_t length)
{
	struct vm_plan *plan = r->plan;

	plan->operations++;
	if (length > plan->max_length)
		plan->max_length = length;
	if (n->op == VM_READ) {
		plan->reads++;
		plan->bytes_read += length;
		return;
	}
	if (n->op == VM_WRITE) {
		plan->writes++;
		plan->bytes_written += length;
		plan->patterns[n->pattern] = true;
	} else {
		plan->discards++;
	}
	if (plan->write_start == plan->write_end) {
		plan->write_start = offset;
		plan->write_end = offset + length;
	}
	if (offset < plan->write_start)
		plan->write_start = offset;
	if (offset + length > plan->write_end)
		plan->write_end = offset + length;
}

static int run_io(struct run *r, const struct node *n, double *value)
{
	uint64_t offset, length, ns = 0;
	int err;

	if (eval_whole(r, n, 0, &offset) || eval_whole(r, n, 1, &length))
		return -EDOM;
	if (r->planning) {
		err = dev_check_range(r->dev, offset, length);
		if (err)
			return plan_error(r, err, op_table[n->op].name,
					  offset, length, n->line);
		plan_io(r, n, offset, length);
		*value = 1;
		return count_step(r, n);
	}
	if (r->exec->stop && *r->exec->stop)
		return -EINTR;
	if (n->op == VM_READ)
		err = dev_read(r->exec->dev, r->read_buffer, offset, length,
			       &ns);
	else if (n->op == VM_WRITE)
		err = dev_write(r->exec->dev, r->write_buffers[n->pattern],
				offset, length, &ns);
	else
		err = dev_discard(r->exec->dev, offset, length, &ns);
	if (err == -EIO && n->op == VM_READ && r->exec->skip_read_errors) {
		/* no time: the record this read feeds is dropped */
		if (r->exec->failed_reads++ == 0)
			r->exec->first_failure = r->exec->dev->error;
		r->record_failed = true;
		*value = NAN;
		return 0;
	}
	if (err)
		return err;
	*value = (double)ns;
	if (r->exec->progress && (++r->done & 63) == 0)
		r->exec->progress(r->exec->ctx, r->done, r->total);
	return 0;
}

struct reducer {
	enum vm_reduce kind;
	double value;
	uint64_t count;
};

static void reduce_add(struct reducer *red, double v)
{
	if (isnan(v))			/* a skipped read has no time */
		return;
	if (red->count == 0)
		red->value = v;
	else if (red->kind == VM_REDUCE_MIN)
		red->value = v < red->value ? v : red->value;
	else if (red->kind == VM_REDUCE_MAX)
		red->value = v > red->value ? v : red->value;
	else
		red->value += v;
	red->count++;
}

static bool reduce_result(const struct reducer *red, double *value)
{
	if (red->kind == VM_REDUCE_NONE)
		return false;
	if (red->count == 0)
		*value = red->kind == VM_REDUCE_TOTAL ? 0 : NAN;
	else if (red->kind == VM_REDUCE_AVG)
		*value = red->value / (double)red->count;
	else
		*value = red->value;
	return true;
}

static int run_block(struct run *r, unsigned first, unsigned end,
		     bool *has_value, double *value);

/* ---- series ---- */

struct series {
	enum vm_series kind;
	uint64_t a, b, c, d;
	uint64_t i, count;
	uint64_t next_pow2, next_three;	/* ALIGNS */
	uint64_t first, span;		/* BOUNDARIES: candidate indexes */
	struct lfsr_shuffle shuffle;
};

/* How many numbers m >= 1 that are odd and not multiples of 3 are <= x. */
static uint64_t coprime6_upto(uint64_t x)
{
	return x / 6 * 2 + (x % 6 >= 1) + (x % 6 >= 5);
}

/* The t-th such number, from 0: 1, 5, 7, 11, 13, ... */
static uint64_t coprime6_at(uint64_t t)
{
	return t / 2 * 6 + (t % 2 ? 5 : 1);
}

static uint64_t highest_pow2_upto(uint64_t x)
{
	uint64_t p = 1;

	while (p <= x / 2)
		p *= 2;
	return x ? p : 0;
}

static int series_start(struct run *r, const struct node *n,
			struct series *s)
{
	uint64_t *bounds[] = { &s->a, &s->b, &s->c, &s->d };

	memset(s, 0, sizeof(*s));
	s->kind = n->series;
	for (unsigned i = 0; i < n->operand_count; i++)
		if (eval_whole(r, n, i, bounds[i]))
			return -EDOM;
	switch (s->kind) {
	case VM_SERIES_POW2:
		s->next_pow2 = s->a;
		break;
	case VM_SERIES_SHUFFLE:
		if (s->c > LFSR_MAX_SLOTS)
			return plan_error(r, -E2BIG, "shuffle", 0, s->c,
					  n->line);
		if (s->c)
			lfsr_shuffle_init(&s->shuffle, (uint32_t)s->c);
		/* fall through */
	case VM_SERIES_LINEAR:
		s->count = s->c;
		break;
	case VM_SERIES_ALIGNS:
		s->next_pow2 = highest_pow2_upto(s->a);
		s->next_three = s->c ? highest_pow2_upto(s->a / 3) * 3 : 0;
		break;
	case VM_SERIES_BOUNDARIES: {
		uint64_t align = s->a, lo = s->c, hi = s->d;

		if (align == 0 || hi <= lo)
			break;
		s->first = coprime6_upto(lo / align);
		/* m * align < hi  <=>  m <= ceil(hi / align) - 1 */
		uint64_t last = coprime6_upto((hi + align - 1) / align - 1);
		s->span = last > s->first ? last - s->first : 0;
		s->count = s->span < s->b ? s->span : s->b;
		break;
	}
	default:
		break;
	}
	return 0;
}

static bool series_next(struct series *s, double *value)
{
	uint64_t v;

	switch (s->kind) {
	case VM_SERIES_POW2:
		v = s->next_pow2;
		if (v == 0 || (s->a >= s->b ? v < s->b : v > s->b))
			return false;
		s->next_pow2 = s->a >= s->b ? v / 2 :
			       (v > UINT64_MAX / 2 ? 0 : v * 2);
		if (s->a >= s->b && v % 2)	/* odd: halving would cut */
			s->next_pow2 = 0;
		break;
	case VM_SERIES_ALIGNS:
		v = s->next_pow2 > s->next_three ? s->next_pow2 :
						   s->next_three;
		if (v == 0 || v < s->b)
			return false;
		if (v == s->next_pow2)
			s->next_pow2 /= 2;
		else
			s->next_three = s->next_three > 3 ?
					s->next_three / 2 : 0;
		break;
	case VM_SERIES_BOUNDARIES:
		if (s->i >= s->count)
			return false;
		v = s->a * coprime6_at(s->first + (s->count < s->span ?
				       s->i * s->span / s->count : s->i));
		s->i++;
		break;
	default:			/* LINEAR, SHUFFLE */
		if (s->i >= s->count)
			return false;
		v = s->kind == VM_SERIES_SHUFFLE ?
		    lfsr_shuffle_next(&s->shuffle) : s->i;
		s->i++;
		*value = (double)s->a + (double)v * (double)s->b;
		return true;
	}
	*value = (double)v;
	return true;
}

/*
 * Planning a repeat: its body does the same I/O every time (a repeat binds
 * no variable), so one run of it, counted repeats times, is the plan.
 * Bodies that report run in full, so record sizes stay checked.
 */
static int plan_repeat(struct run *r, unsigned index, uint64_t repeats,
		       bool *scaled)
{
	const struct node *n = &r->program->nodes[index];
	struct vm_plan before = *r->plan;
	uint64_t steps = r->steps;
	unsigned fields = r->fields_planned;
	bool has;
	double v;
	int err;

	*scaled = false;
	if (repeats < 2)
		return 0;
	err = run_block(r, index + 1, n->end, &has, &v);
	if (err || r->fields_planned != fields)
		return err;
	*scaled = true;
#define SCALE(field) \
	(r->plan->field += (r->plan->field - before.field) * (repeats - 1))
	SCALE(operations);
	SCALE(reads);
	SCALE(writes);
	SCALE(discards);
	SCALE(bytes_read);
	SCALE(bytes_written);
#undef SCALE
	r->steps += (r->steps - steps) * (repeats - 1) + repeats;
	if (r->steps > r->step_limit)
		return plan_error(r, -E2BIG, "repeat", 0, 0, n->line);
	return 0;
}

static int run_loop(struct run *r, unsigned index, double *value,
		    bool *has_value)
{
	const struct node *n = &r->program->nodes[index];
	struct reducer red[VM_MAX_REDUCERS];
	struct series s;
	uint64_t repeats = 0;
	bool body_has, scaled = false;
	double v, body;
	int err;

	for (unsigned i = 0; i < n->reduce_count; i++)
		red[i] = (struct reducer){ .kind = n->reduce[i] };
	if (n->op == VM_REPEAT) {
		if (eval_whole(r, n, 0, &repeats))
			return -EDOM;
		if (r->planning) {
			err = plan_repeat(r, index, repeats, &scaled);
			if (err)
				return err;
		}
	} else if (series_start(r, n, &s)) {
		return -EDOM;
	}
	for (uint64_t i = 0; !scaled; i++) {
		if (n->op == VM_REPEAT ? i >= repeats : !series_next(&s, &v))
			break;
		if (n->op == VM_FOR)
			r->vars[n->var] = v;
		err = count_step(r, n);
		if (!err)
			err = run_block(r, index + 1, n->end, &body_has,
					&body);
		if (err)
			return err;
		for (unsigned j = 0; body_has && j < n->reduce_count; j++)
			reduce_add(&red[j], body);
	}
	for (unsigned j = 0; j < n->reduce_count; j++) {
		if (scaled)		/* planning: values do not matter */
			red[j].count = 0;
		reduce_result(&red[j], &r->loop_values[j]);
	}
	*has_value = reduce_result(&red[0], value);
	return 0;
}

static int emit_record(struct run *r)
{
	int err = 0;

	if (!r->planning && r->record.count && r->record_failed)
		r->exec->dropped_records++;
	else if (!r->planning && r->record.count && r->exec->emit)
		err = r->exec->emit(r->exec->ctx, &r->record);
	r->record.count = 0;
	r->record_failed = false;
	r->fields_planned = 0;
	return err;
}

static int run_report(struct run *r, const struct node *n)
{
	struct vm_field *f;
	double a = 0, b = 0;

	if (r->planning) {
		if (++r->fields_planned > VM_MAX_FIELDS)
			return plan_error(r, -E2BIG, "report", 0, 0, n->line);
		return 0;
	}
	if (r->record.count == VM_MAX_FIELDS)
		return -E2BIG;
	f = &r->record.fields[r->record.count++];
	f->unit = n->unit;
	f->key = n->key;
	f->text = n->text;
	f->label = n->label;
	if (n->operand_count > 0)
		eval(r, &n->operands[0], &a);
	if (n->operand_count > 1)
		eval(r, &n->operands[1], &b);
	/* rates are given as bytes and nanoseconds */
	f->value = n->operand_count == 2 ? (b > 0 ? a * 1e9 / b : NAN) : a;
	return 0;
}

/* Run one statement; returns the index of the next one, or < 0. */
static long run_node(struct run *r, unsigned index, bool *has_value,
		     double *value)
{
	const struct node *n = &r->program->nodes[index];
	int err = 0;

	*has_value = false;
	switch (n->op) {
	case VM_READ:
	case VM_WRITE:
	case VM_DISCARD:
		err = run_io(r, n, value);
		*has_value = true;
		break;
	case VM_REPEAT:
	case VM_FOR:
		err = run_loop(r, index, value, has_value);
		break;
	case VM_LET: {
		bool body_has = false;
		double v = NAN;

		if (n->operand_count)
			eval(r, &n->operands[0], &v);
		else
			err = run_block(r, index + 1, n->end, &body_has, &v);
		r->vars[n->var] = v;
		/* let a, b, c = loop: its reducers' values in order */
		for (unsigned i = 1; i < n->var_count; i++)
			r->vars[n->more_vars[i - 1]] = r->loop_values[i];
		break;
	}
	case VM_REPORT:
		err = run_report(r, n);
		break;
	case VM_NEWLINE:
		err = emit_record(r);
		break;
	default:
		err = -EINVAL;
		break;
	}
	if (err) {
		if (!r->error_line)
			r->error_line = n->line;
		return err;
	}
	return n->end;
}

static int run_block(struct run *r, unsigned first, unsigned end,
		     bool *has_value, double *value)
{
	*has_value = false;
	*value = 0;
	for (unsigned i = first; i < end; ) {
		bool has;
		double v;
		long next = run_node(r, i, &has, &v);

		if (next < 0)
			return (int)next;
		if (has) {
			*has_value = true;
			*value += v;
		}
		i = (unsigned)next;
	}
	return 0;
}

static int run_program(struct run *r)
{
	bool has;
	double value;
	int err;

	r->record.style = r->program->style;
	err = run_block(r, 0, r->program->node_count, &has, &value);
	if (!err)
		err = emit_record(r);	/* a last record without newline */
	return err;
}

int vm_plan(const struct vm_program *program, const struct dev *dev,
	    uint64_t max_operations, struct vm_plan *plan)
{
	struct run r = { .program = program, .plan = plan, .dev = dev,
			 .planning = true };

	memset(plan, 0, sizeof(*plan));
	/* loops without I/O still count, so no program can spin forever */
	r.step_limit = max_operations ? max_operations * 4 : UINT64_MAX;
	run_program(&r);
	if (!plan->error && max_operations &&
	    plan->operations > max_operations)
		plan_error(&r, -E2BIG, "program", 0, 0, 0);
	return plan->error;
}

static void free_buffers(struct run *r)
{
	free(r->read_buffer);
	for (int i = 0; i < DEV_PATTERN_COUNT; i++)
		free(r->write_buffers[i]);
}

int vm_run(const struct vm_program *program, const struct vm_plan *plan,
	   struct vm_exec *exec)
{
	struct run r = { .program = program, .exec = exec, .dev = exec->dev,
			 .total = plan->operations,
			 .step_limit = UINT64_MAX };
	int err = 0;

	/* every buffer exists before the first timed operation */
	if (plan->reads)
		r.read_buffer = dev_alloc_buffer(plan->max_length,
						 DEV_PATTERN_ZEROS);
	for (int i = 0; i < DEV_PATTERN_COUNT; i++)
		if (plan->patterns[i])
			r.write_buffers[i] = dev_alloc_buffer(
				plan->max_length, (enum dev_pattern)i);
	if (plan->reads && !r.read_buffer)
		err = -ENOMEM;
	for (int i = 0; i < DEV_PATTERN_COUNT; i++)
		if (plan->patterns[i] && !r.write_buffers[i])
			err = -ENOMEM;
	if (!err)
		err = run_program(&r);
	free_buffers(&r);
	return err;
}
