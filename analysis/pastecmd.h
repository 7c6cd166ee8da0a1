/*
 * pastecmd: what pasted text says about the runs printed under it - the
 * flashbench command line (either tool's options, -0 with a number or a
 * shell variable), the shell loop around it ("for i in 1 2 3; do ...",
 * {A..B}, $(seq ...)) and the words outside commands that name a count
 * or an order ("AU=3, random", "# -0 6").  No device, no findings.
 */
#ifndef FLASHBENCH_PASTECMD_H
#define FLASHBENCH_PASTECMD_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/pastelex.h"

/* The most recent flashbench command line. */
struct paste_command {
	unsigned nr;
	bool nr_set;
	bool nr_variable;		/* -0 $i: a shell loop or script sets it */
	bool nr_unknown;		/* -0 $[...], $(...): none can tell */
	bool open_au;
	bool random;
	bool find_fat;
};

#define PASTE_LOOP_MAX_VALUES 64
#define PASTE_LOOP_MAX_COMMANDS 4

/*
 * A shell loop, "for i in 1 2 3; do flashbench -0 $i ...; done", on one
 * line or several: each run printed under it is the next command of the
 * loop body, the body's k-th pass taking the k-th value.
 */
struct paste_loop {
	unsigned values[PASTE_LOOP_MAX_VALUES];
	size_t value_count;
	struct paste_command cmds[PASTE_LOOP_MAX_COMMANDS];
	size_t cmd_count;
	bool collecting;		/* the body's commands are still coming */
	size_t runs;			/* runs started under it */
};

/*
 * What a line that is no command says about the run after it: a sweep
 * script's "======= AU=3, random access =======", or "# N=3".
 */
struct paste_hint {
	unsigned nr;
	bool nr_set;
	bool mode_set;
	bool random;
};

/* -0's argument into cmd: a count, a shell variable, or unknowable. */
bool paste_parse_nr(const struct paste_token *t, struct paste_command *cmd);

/*
 * One option word t of a command line into cmd; an argument the option
 * takes is consumed from *p.
 */
void paste_option(struct paste_command *cmd, const struct paste_token *t,
		  const char **p, const char *end);

/*
 * A command line begins, cmd the one before it: inside a loop's body it
 * is the body's next command, elsewhere it ends any loop.
 */
void paste_command_begins(struct paste_loop *loop,
			  const struct paste_command *cmd);

/* Output began, cmd the last command: the loop's body is complete. */
void paste_body_ends(struct paste_loop *loop, const struct paste_command *cmd);

/*
 * The list of "for VAR in LIST; do" with *p after "for": plain numbers,
 * {A..B} or $(seq ...).  When it held numbers, the loop goes to *out,
 * *p past "do", and it returns true.
 */
bool paste_try_loop(struct paste_loop *out, const char **p, const char *end);

/*
 * The command a new run was printed by: the loop body's next one, with
 * the loop's value for -0 $i, or last, the last command line.
 */
struct paste_command paste_run_command(struct paste_loop *loop,
				       const struct paste_command *last);

/* "AU=3,", "N=3", "nr=3", "--open-au-nr=3": the count it names. */
bool paste_hint_count(const struct paste_token *t, unsigned *nr);

/* "linear", "random", "--random" (any case, punctuated): 1, 2; else 0. */
int paste_order_word(const struct paste_token *t);

/*
 * "-0 6", "-06", "--open-au-nr 6" on a comment or prompt line that runs
 * no flashbench ("# now -0 6:"): the count, consuming its argument.
 */
bool paste_prompt_count(const struct paste_token *t, const char **p,
			const char *end, unsigned *nr);

/* An order word (paste_order_word's 1 or 2) into a hint without one. */
void paste_hint_order(struct paste_hint *hint, int order);

#endif
