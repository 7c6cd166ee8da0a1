/*
 * prog: the shape of a compiled program, shared by the compiler
 * (vm/compile.c), the listing (vm/list.c) and the interpreter (vm.c): a
 * flat table of nodes (a statement and the extent of its body), a pool of
 * expressions in postfix form, the opcodes and the words of the
 * language.  Callers outside the VM see only vm.h, vm/compile.h and
 * vm/list.h.
 */
#ifndef FLASHBENCH_VMPROG_H
#define FLASHBENCH_VMPROG_H

#include <stdbool.h>
#include <stddef.h>

#include "vm.h"
#include "vm/layout.h"

/* Opcodes: one per statement of the program text. */
enum vm_op {
	VM_READ,	/* read LEN bytes at OFFSET; value: its time in ns */
	VM_WRITE,	/* write LEN bytes of PATTERN at OFFSET; value: ns */
	VM_DISCARD,	/* discard LEN bytes at OFFSET; value: ns */
	VM_STAMP,	/* write self-naming blocks (stamp.h) at OFFSET; ns */
	VM_VERIFY,	/* read LEN at OFFSET, classify each block; ns */
	VM_REPEAT,	/* run BODY COUNT times; value: REDUCE of the runs */
	VM_FOR,		/* run BODY with VAR bound to each value of SERIES */
	VM_FOR_TIME,	/* VM_FOR, SERIES over and over, until BODY's I/O
			   took DURATION ns of device time */
	VM_LET,		/* VAR = EXPR, or VAR = value of one statement */
	VM_REPORT,	/* add a field (UNIT, KEY, operands) to the record */
	VM_NEWLINE,	/* hand the record out and start a new one */
	VM_OP_COUNT
};

/* Value series a for loop walks; operands in the comment. */
enum vm_series {
	VM_SERIES_POW2,		/* FROM TO: halve (or double) FROM to TO */
	VM_SERIES_LINEAR,	/* START STEP COUNT: START + i * STEP */
	VM_SERIES_SHUFFLE,	/* START STEP COUNT: same slots, LFSR order */
	VM_SERIES_ALIGNS,	/* FROM TO THREES: 2^n and, if THREES, 3 x 2^n,
				   descending from FROM to TO */
	VM_SERIES_BOUNDARIES,	/* ALIGN COUNT LO HI: up to COUNT multiples
				   ALIGN x m in (LO, HI), m odd and not a
				   multiple of 3, spread evenly */
	VM_SERIES_PERMUTE,	/* START STEP COUNT: same slots, an order
				   with no relation from one to the next */
	VM_SERIES_COUNT
};

/* How the values of repeated runs combine into one. */
enum vm_reduce {
	VM_REDUCE_NONE,		/* no value */
	VM_REDUCE_MIN,
	VM_REDUCE_MAX,
	VM_REDUCE_AVG,
	VM_REDUCE_TOTAL,
	VM_REDUCE_RUNS,		/* how many runs had a value */
	VM_REDUCE_P50,		/* median, from a fixed histogram (1.6%) */
	VM_REDUCE_P99,		/* 99th percentile, the same way */
	VM_REDUCE_COUNT
};

#define VM_MAX_VARS 32
#define VM_MAX_DEPTH 32		/* nesting of blocks, and expression stack */
#define VM_MAX_NODES 4096
#define VM_MAX_OPERANDS 5	/* a series' 4 and a time bound */
#define VM_MAX_REDUCERS 6	/* let a, b, c = for ... (min, avg, max) */

/* Opcode properties, indexed by enum vm_op. */
struct vm_op_info {
	const char *name;
	unsigned operands;	/* expressions that follow the keyword */
	bool has_value;		/* counts towards its block's value */
};

/* A keyword and the expressions that follow it (series). */
struct vm_word {
	const char *name;
	unsigned operands;
};

/*
 * The unit words of report statements.  Each names a base unit, which
 * the record carries, and how the text format shows it, which goes into
 * the program's layout: "mib" is bytes shown as MiB.
 */
enum vm_unit_word {
	VM_WORD_BYTES, VM_WORD_SIZE, VM_WORD_TIME, VM_WORD_RATE,
	VM_WORD_MIB, VM_WORD_MS, VM_WORD_MBPS, VM_WORD_COUNT,
	VM_WORD_LABEL, VM_WORD_BOOL,
	VM_UNIT_WORD_COUNT
};

struct vm_unit_info {
	const char *name;
	unsigned operands;	/* rates: bytes and ns */
	enum record_unit unit;
	enum text_display display;
};

/* The language's words, each table indexed by its enum (vm/prog.c). */
extern const struct vm_op_info vm_op_table[];		/* enum vm_op */
extern const struct vm_word vm_series_table[];		/* enum vm_series */
extern const struct vm_unit_info vm_unit_table[];	/* vm_unit_word */
extern const char *const vm_reduce_names[];		/* enum vm_reduce */
extern const char *const vm_pattern_names[];		/* enum dev_pattern */
extern const char *const vm_style_names[];		/* text_style */

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
	enum vm_unit_word unit_word;	/* VM_REPORT: as written */
	enum record_unit unit;		/* VM_REPORT: its base unit */
	struct text_look look;		/* VM_REPORT: its row of the layout */
	int var;			/* bound (for, let) variable or -1 */
	int more_vars[VM_MAX_REDUCERS - 1];	/* let a, b, c = ... */
	unsigned var_count;
	unsigned operand_count;
	struct expr operands[VM_MAX_OPERANDS];
	bool resume;			/* VM_FOR_TIME: the series goes on
					   where this loop left it last time */
	bool once;			/* VM_FOR_TIME: the series walked at
					   most once, never from its start
					   again */
	bool has_depth;			/* VM_FOR_TIME: "depth EXPR", its
					   body one read or write */
	struct expr depth;		/* operations kept in flight */
	unsigned end;			/* index of the node after the body */
	char *key, *text, *label;
};

struct vm_program {
	struct node *nodes;
	unsigned node_count;
	size_t node_cap;
	struct insn *insns;
	unsigned insn_count;
	size_t insn_cap;
	char *vars[VM_MAX_VARS];
	bool measured[VM_MAX_VARS];	/* value comes from a measurement */
	unsigned var_count;
	const struct vm_param *params;
	size_t param_count;
	/* how the text format shows the records; each report statement's
	   node holds its look */
	struct text_layout layout;
};

#endif
