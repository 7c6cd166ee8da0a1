/*
 * list: a compiled program printed back as text, one statement a line,
 * with only the parentheses an expression needs, so that a listing
 * compiles again to the same program.  It neither parses nor runs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vm/list.h"
#include "vm/prog.h"

/* Longest expression text a listing shows (programs are far shorter). */
#define EXPR_TEXT 1024

/* Rebuild an expression's text from postfix, with only needed parens. */
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

/* Operands [first, end) of n, each in parentheses when it has spaces. */
static void list_operands(const struct vm_program *prog,
			  const struct node *n, unsigned first, unsigned end,
			  char *line, size_t size)
{
	for (unsigned i = first; i < end; i++) {
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

/* " depth EXPR", in parentheses when it has spaces */
static void list_depth(const struct vm_program *prog, const struct node *n,
		       char *line, size_t size)
{
	char text[EXPR_TEXT];

	expr_text(prog, &n->depth, text, sizeof(text));
	snprintf(line + strlen(line), size - strlen(line), " depth %s%s%s",
		 strchr(text, ' ') ? "(" : "", text,
		 strchr(text, ' ') ? ")" : "");
}

/* A loop's head: "for VAR in SERIES ...", "repeat N", its reductions. */
static void list_loop_head(const struct vm_program *prog,
			   const struct node *n, char *line, size_t size)
{
	if (n->op == VM_FOR || n->op == VM_FOR_TIME)
		snprintf(line + strlen(line), size - strlen(line),
			 " %s in %s", prog->vars[n->var],
			 vm_series_table[n->series].name);
	list_operands(prog, n, 0, n->operand_count -
		      (n->op == VM_FOR_TIME), line, size);
	if (n->op == VM_FOR_TIME) {
		snprintf(line + strlen(line), size - strlen(line), " within");
		list_operands(prog, n, n->operand_count - 1,
			      n->operand_count, line, size);
		if (n->resume)
			snprintf(line + strlen(line), size - strlen(line),
				 " resume");
		if (n->once)
			snprintf(line + strlen(line), size - strlen(line),
				 " once");
		if (n->has_depth)
			list_depth(prog, n, line, size);
	}
	for (unsigned i = 0; i < n->reduce_count; i++)
		snprintf(line + strlen(line), size - strlen(line), "%s%s",
			 i ? ", " : n->reduce_count > 1 ? " (" : " ",
			 vm_reduce_names[n->reduce[i]]);
	snprintf(line + strlen(line), size - strlen(line), "%s {",
		 n->reduce_count > 1 ? ")" : "");
}

/* "let A, B =" and its value, if it has one (else a block follows). */
static void list_let_head(const struct vm_program *prog,
			  const struct node *n, char *line, size_t size)
{
	snprintf(line + strlen(line), size - strlen(line), " %s",
		 prog->vars[n->var]);
	for (unsigned i = 1; i < n->var_count; i++)
		snprintf(line + strlen(line), size - strlen(line), ", %s",
			 prog->vars[n->more_vars[i - 1]]);
	snprintf(line + strlen(line), size - strlen(line), " =");
	list_operands(prog, n, 0, n->operand_count, line, size);
}

/* A statement that is one line: its words after the op's name. */
static void list_simple(const struct vm_program *prog, const struct node *n,
			char *line, size_t size)
{
	if (n->op == VM_REPORT) {
		snprintf(line + strlen(line), size - strlen(line), " %s %s",
			 vm_unit_table[n->unit_word].name, n->key);
		if (n->text)
			snprintf(line + strlen(line), size - strlen(line),
				 " \"%s\"", n->text);
		if (n->label)
			snprintf(line + strlen(line), size - strlen(line),
				 " \"%s\"", n->label);
	}
	list_operands(prog, n, 0, n->operand_count, line, size);
	if (n->op == VM_WRITE)
		snprintf(line + strlen(line), size - strlen(line), " %s",
			 vm_pattern_names[n->pattern]);
}

/*
 * Node index as lines, depth tabs in (none when inline_let: the value
 * of a let); returns the index of the node after it and its body.
 */
static unsigned list_node(const struct vm_program *prog, unsigned index,
			  unsigned depth, void (*out)(void *, const char *),
			  void *ctx, bool inline_let)
{
	const struct node *n = &prog->nodes[index];
	char line[4 * EXPR_TEXT];
	size_t indent = inline_let ? 0 : depth;
	bool block;

	memset(line, '\t', indent);
	line[indent] = '\0';
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s",
		 vm_op_table[n->op].name);
	block = n->op == VM_FOR || n->op == VM_FOR_TIME ||
		n->op == VM_REPEAT || (n->op == VM_LET && !n->operand_count);
	if (n->op == VM_LET)
		list_let_head(prog, n, line, sizeof(line));
	else if (block)
		list_loop_head(prog, n, line, sizeof(line));
	else
		list_simple(prog, n, line, sizeof(line));
	out(ctx, line);
	if (!block)
		return index + 1;
	list_body(prog, index + 1, n->end, depth + 1, out, ctx);
	if (n->op != VM_LET) {
		memset(line, '\t', depth);
		snprintf(line + depth, sizeof(line) - depth, "}");
		out(ctx, line);
	}
	return n->end;
}

void vm_list(const struct vm_program *program,
	     void (*line)(void *ctx, const char *text), void *ctx)
{
	char header[64];

	snprintf(header, sizeof(header), "format %s",
		 vm_style_names[program->layout.style]);
	line(ctx, header);
	list_body(program, 0, program->node_count, 0, line, ctx);
}
