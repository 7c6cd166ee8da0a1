/*
 * vm: the interpreter for compiled test programs.  The same walk over the
 * node table plans a program (no I/O: it checks every operation and
 * finds the write range) and runs it, handing out result records.  The
 * text syntax is described in README.md and flashbench(1); compiling is
 * vm/compile.c's, listing vm/list.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist.h"
#include "lib/lfsr.h"
#include "vm/ahead.h"
#include "vm/stamp.h"
#include "vm/prog.h"

struct run;

/* A stamp fill or a classification handed to the second thread. */
struct ahead_job {
	struct run *r;
	void *buf;
	uint64_t offset, length;
};

struct run {
	const struct vm_program *program;
	struct vm_exec *exec;
	struct vm_plan *plan;
	const struct dev *dev;
	bool planning;
	double vars[VM_MAX_VARS];
	struct record record;
	void *read_buffer;
	void *write_buffers[DEV_PATTERN_COUNT];
	void *stamp_buffer;		/* refilled before each stamp */
	uint64_t steps;			/* loop iterations and operations */
	uint64_t step_limit;
	uint64_t done;			/* operations run so far */
	uint64_t total;			/* operations the plan counted */
	unsigned fields_planned;
	unsigned error_line;
	double loop_values[VM_MAX_REDUCERS];	/* of the last loop to end */
	bool record_failed;		/* a skipped read belongs to it */
	/* percentile reducers: a histogram per loop node that has them,
	   allocated before the run (a loop never runs inside itself) */
	struct hist **hists;
	uint64_t timed_done_ns;		/* device time of all I/O so far */
	uint64_t timed_total_ns;	/* the plan's sum of timed bounds */
	uint64_t deadline_ns;		/* of the innermost running timed
					   loop; UINT64_MAX outside them */
	struct resumed *resumed;	/* per node, for "resume" loops */
	unsigned timed_depth;		/* planning: timed loops entered */
	uint64_t next_progress_ns;
	bool interrupted;		/* a timed loop ended on *stop */
	struct dev_io *ios;		/* a batch of a loop with a depth */
	/* exec->overlap: stamps made and reads classified by a second
	   thread while the device works on the transfer before */
	struct ahead *ahead;
	struct ahead_job job;		/* the job in its hands */
	void *spare_stamps;		/* the next stamps, being made */
	uint64_t spare_offset, spare_length;	/* what they will be */
	void *spare_read;		/* the read before, being checked */
};

/* Operations a loop with a depth hands the device at a time. */
#define VM_BATCH_OPS 4096

/* Device time between progress calls of a time-bounded loop. */
#define TIMED_PROGRESS_NS 10000000ULL
/* Runs in a row without device time (skipped reads) a timed loop takes */
#define VM_MAX_IDLE_RUNS 64

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

/* Offsets, lengths and counts stay below this: a sum of two still fits
   64 bits, and a double holds the value on the way */
#define VM_MAX_WHOLE 9.0e18
#define VM_STR(x) #x
#define VM_XSTR(x) VM_STR(x)

/* What is wrong with v as an offset, length or count; NULL: nothing. */
static const char *whole_problem(double v)
{
	if (isnan(v))
		return "undefined (as after a division by zero)";
	if (v < 0)
		return "negative";
	if (v >= VM_MAX_WHOLE)
		return "too large (9e18 or more)";
	return v != floor(v) ? "fractional" : NULL;
}

/* The statements whose two operands are an offset and a length. */
static bool is_io(const struct node *n)
{
	return n->op <= VM_VERIFY;
}

/* What operand i of n is called in a plan error; *index for a series. */
static const char *operand_name(const struct node *n, unsigned i,
				unsigned *index)
{
	*index = 0;
	if (is_io(n))
		return i ? "length" : "offset";
	if (n->op == VM_REPEAT)
		return "count";
	if (n->op == VM_FOR_TIME && i + 1 == n->operand_count)
		return "time";
	*index = i + 1;
	return vm_series_table[n->series].name;
}

/* -EDOM: operand came to v, which is why; an I/O's whole step kept. */
static int plan_bad_value(struct run *r, const struct node *n,
			  const char *operand, unsigned index, double v,
			  const char *why)
{
	struct vm_plan *plan = r->plan;

	if (!plan || plan->error)
		return -EDOM;
	plan_error(r, -EDOM, vm_op_table[n->op].name, 0, 0, n->line);
	plan->error_operand = operand;
	plan->error_operand_index = index;
	plan->error_why = why;
	plan->error_values[0] = v;
	plan->error_value_count = 1;
	if (is_io(n)) {
		eval(r, &n->operands[0], &plan->error_values[0]);
		eval(r, &n->operands[1], &plan->error_values[1]);
		plan->error_value_count = 2;
	}
	return -EDOM;
}

/* An operand that must be a whole number of bytes or a count. */
static int eval_whole(struct run *r, const struct node *n, unsigned i,
		      uint64_t *value)
{
	const char *why, *operand;
	unsigned index;
	double v;

	eval(r, &n->operands[i], &v);
	why = whole_problem(v);
	if (why) {
		operand = operand_name(n, i, &index);
		return plan_bad_value(r, n, operand, index, v, why);
	}
	*value = (uint64_t)v;
	return 0;
}

static int count_step(struct run *r, const struct node *n)
{
	if (++r->steps > r->step_limit)
		return plan_error(r, -E2BIG, vm_op_table[n->op].name, 0, 0,
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
	if (n->op == VM_READ || n->op == VM_VERIFY) {
		plan->reads++;
		plan->bytes_read += length;
		return;
	}
	if (n->op == VM_WRITE || n->op == VM_STAMP) {
		plan->writes++;
		plan->bytes_written += length;
		if (n->op == VM_STAMP)
			plan->stamps = true;
		else
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

/* Hand each block of [offset, offset + length) to the check callback. */
static void check_blocks(struct run *r, const unsigned char *buf,
			 uint64_t offset, uint64_t length, int failed_state)
{
	uint32_t lbs = r->dev->logical_block_bytes;

	if (!r->exec->check)
		return;
	if (failed_state == STAMP_INTACT && r->exec->check_intact) {
		r->exec->check_intact(r->exec->ctx, offset,
				      length - length % lbs);
		return;
	}
	for (uint64_t done = 0; done + lbs <= length; done += lbs) {
		uint64_t named = offset + done;
		int state = failed_state;

		if (state < 0)
			state = (int)stamp_classify(buf + done, offset + done,
						    lbs, r->exec->salt, &named);
		r->exec->check(r->exec->ctx, offset + done, state, named,
			       failed_state < 0 ? buf + done : NULL);
	}
}

static void fill_job(void *arg)
{
	const struct ahead_job *j = arg;

	stamp_fill(j->buf, j->offset, j->length,
		   j->r->dev->logical_block_bytes, j->r->exec->salt);
}

static void check_job(void *arg)
{
	const struct ahead_job *j = arg;

	check_blocks(j->r, j->buf, j->offset, j->length, -1);
}

/* The second thread's job done: check calls stay in order. */
static void settle(struct run *r)
{
	if (r->ahead)
		ahead_wait(r->ahead);
}

static void swap_buffers(void **a, void **b)
{
	void *t = *a;

	*a = *b;
	*b = t;
}

static void give(struct run *r, void (*fn)(void *arg), void *buf,
		 uint64_t offset, uint64_t length)
{
	r->job = (struct ahead_job){ r, buf, offset, length };
	ahead_give(r->ahead, fn, &r->job);
}

/*
 * The stamps of [offset, offset + length) in r->stamp_buffer: made
 * beside the write before when it foresaw them (transfers follow each
 * other), and the ones after these begun while these are written.
 */
static void stamps_for(struct run *r, uint64_t offset, uint64_t length)
{
	settle(r);
	if (r->ahead && r->spare_offset == offset &&
	    r->spare_length == length)
		swap_buffers(&r->stamp_buffer, &r->spare_stamps);
	else
		stamp_fill(r->stamp_buffer, offset, length,
			   r->dev->logical_block_bytes, r->exec->salt);
	r->spare_length = 0;
	if (!r->ahead)
		return;
	r->spare_offset = offset + length;
	r->spare_length = length;
	give(r, fill_job, r->spare_stamps, offset + length, length);
}

/* A verify's read: its blocks classified beside the next transfer. */
static int read_verify(struct run *r, uint64_t offset, uint64_t length,
		       uint64_t *ns)
{
	void *buf = r->read_buffer;
	int err = dev_read(r->exec->dev, buf, offset, length, ns);

	settle(r);
	if (err == -EIO)
		check_blocks(r, buf, offset, length, STAMP_READ_ERROR);
	if (err || r->exec->check_failed_only)
		return err;
	if (!r->ahead) {
		check_blocks(r, buf, offset, length, -1);
		return 0;
	}
	swap_buffers(&r->read_buffer, &r->spare_read);
	give(r, check_job, buf, offset, length);
	return 0;
}

/*
 * stamp and verify: the stamps are made before the timed write, the
 * classification after the timed read.  An I/O error is a finding here,
 * not the end of the run: past a fake card's capacity it is the answer.
 */
static int run_stamp_verify(struct run *r, const struct node *n,
			    uint64_t offset, uint64_t length, uint64_t *ns)
{
	struct dev *dev = r->exec->dev;
	int err;

	if (n->op == VM_STAMP) {
		/* a backend that keeps stamps as what names them makes none */
		err = dev_stamp(dev, offset, length, r->exec->salt, ns);
		if (err == -EOPNOTSUPP) {
			stamps_for(r, offset, length);
			err = dev_write(dev, r->stamp_buffer, offset, length,
					ns);
		}
		if (err == -EIO) {
			settle(r);
			check_blocks(r, NULL, offset, length,
				     STAMP_WRITE_ERROR);
		}
	} else if (dev_verify_stamps(dev, offset, length, r->exec->salt,
				     ns)) {
		settle(r);
		if (!r->exec->check_failed_only)
			check_blocks(r, NULL, offset, length, STAMP_INTACT);
		return 0;
	} else {
		err = read_verify(r, offset, length, ns);
	}
	if (err == -EIO) {
		*ns = 0;
		return 0;
	}
	return err;
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
			return plan_error(r, err, vm_op_table[n->op].name,
					  offset, length, n->line);
		plan_io(r, n, offset, length);
		*value = 1;
		return count_step(r, n);
	}
	if (r->exec->stop && *r->exec->stop)
		return -EINTR;
	if (n->op == VM_STAMP || n->op == VM_VERIFY)
		err = run_stamp_verify(r, n, offset, length, &ns);
	else if (n->op == VM_READ)
		err = dev_read(r->exec->dev, r->read_buffer, offset, length,
			       &ns);
	else if (n->op == VM_WRITE)
		err = dev_write(r->exec->dev, r->write_buffers[n->pattern],
				offset, length, &ns);
	else
		err = dev_discard(r->exec->dev, offset, length, &ns);
	if (err == -EIO && n->op == VM_READ && r->exec->skip_read_errors) {
		/* no time: the record this read feeds is dropped, except
		   in a timed loop, which just goes on */
		if (r->exec->failed_reads++ == 0)
			r->exec->first_failure = r->exec->dev->error;
		if (r->deadline_ns == UINT64_MAX)
			r->record_failed = true;
		*value = NAN;
		return 0;
	}
	if (err)
		return err;
	r->timed_done_ns += ns;
	*value = (double)ns;
	if (r->exec->on_progress && !r->timed_total_ns && (++r->done & 63) == 0)
		r->exec->on_progress(r->exec->ctx, r->done, r->total);
	return 0;
}

struct reducer {
	enum vm_reduce kind;
	double value;
	uint64_t count;
	const struct hist *hist;	/* P50, P99: the loop's samples */
};

static bool is_percentile(enum vm_reduce kind)
{
	return kind == VM_REDUCE_P50 || kind == VM_REDUCE_P99;
}

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
	if (red->kind == VM_REDUCE_RUNS)
		*value = (double)red->count;
	else if (red->count == 0)
		*value = red->kind == VM_REDUCE_TOTAL ? 0 : NAN;
	else if (is_percentile(red->kind))
		*value = red->hist ? (double)hist_percentile(red->hist,
			 red->kind == VM_REDUCE_P50 ? 50 : 99) : NAN;
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
	struct lfsr_permute permute;
};

/* Where a "resume" loop's series stopped. */
struct resumed {
	bool valid;
	struct series s;
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
	for (unsigned i = 0; i < vm_series_table[n->series].operands; i++)
		if (eval_whole(r, n, i, bounds[i]))
			return -EDOM;
	switch (s->kind) {
	case VM_SERIES_POW2:
		s->next_pow2 = s->a;
		break;
	case VM_SERIES_SHUFFLE:
	case VM_SERIES_PERMUTE:
		if (s->c > LFSR_MAX_SLOTS)
			return plan_error(r, -E2BIG,
					  vm_series_table[s->kind].name, 0,
					  s->c, n->line);
		if (s->c && s->kind == VM_SERIES_SHUFFLE)
			lfsr_shuffle_init(&s->shuffle, (uint32_t)s->c);
		else if (s->c)
			lfsr_permute_init(&s->permute, (uint32_t)s->c);
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
	default:			/* LINEAR, SHUFFLE, PERMUTE */
		if (s->i >= s->count)
			return false;
		v = s->kind == VM_SERIES_SHUFFLE ?
		    lfsr_shuffle_next(&s->shuffle) :
		    s->kind == VM_SERIES_PERMUTE ?
		    lfsr_permute_next(&s->permute) : s->i;
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

/*
 * One run of a loop's body, its variable bound to v; the value goes to
 * the reducers and the loop's histogram.  *timed: the run's value counts
 * as device time (a skipped read has none).
 */
static int loop_run(struct run *r, unsigned index, double v,
		    struct reducer *red, struct hist *hist, double *body,
		    bool *timed)
{
	const struct node *n = &r->program->nodes[index];
	bool has;
	int err;

	if (n->op != VM_REPEAT)
		r->vars[n->var] = v;
	err = count_step(r, n);
	if (!err)
		err = run_block(r, index + 1, n->end, &has, body);
	if (err)
		return err;
	for (unsigned j = 0; has && j < n->reduce_count; j++)
		reduce_add(&red[j], *body);
	*timed = has && !isnan(*body);
	if (hist && *timed)
		hist_add(hist, *body > 0 ? (uint64_t)*body : 0);
	return 0;
}

/* A loop's depth: 1 without one; a whole number 1..DEV_MAX_DEPTH. */
static int loop_depth(struct run *r, const struct node *n, unsigned *depth)
{
	double v;

	*depth = 1;
	if (!n->has_depth)
		return 0;
	eval(r, &n->depth, &v);
	if (isnan(v) || v < 1 || v > DEV_MAX_DEPTH || v != floor(v))
		return plan_bad_value(r, n, "depth", 0, v, isnan(v) ?
				      whole_problem(v) : "out of range (1 to "
				      VM_XSTR(DEV_MAX_DEPTH) ")");
	*depth = (unsigned)v;
	return 0;
}

static int plan_depth(struct run *r, const struct node *n)
{
	unsigned depth;
	int err = loop_depth(r, n, &depth);

	if (!err && depth > r->plan->max_depth)
		r->plan->max_depth = depth;
	return err;
}

/*
 * Planning a loop bounded by time: how often it runs is the device's
 * business, so the body is planned at the series' lowest and highest
 * value (offsets grow with the variable in every built-in program; a
 * shuffle or a permutation visits the same slots as linear).  Other series are small and
 * planned whole.
 */
static int plan_timed(struct run *r, unsigned index, struct reducer *red)
{
	const struct node *n = &r->program->nodes[index];
	uint64_t bound_ns;
	struct series s;
	bool timed;
	double v, body;
	int err = 0;

	if (eval_whole(r, n, n->operand_count - 1, &bound_ns) ||
	    series_start(r, n, &s) || plan_depth(r, n))
		return -EDOM;
	/* a loop inside a timed loop takes the outer one's time */
	if (r->timed_depth++ == 0)
		r->plan->timed_ns += bound_ns;
	if (n->series == VM_SERIES_LINEAR || n->series == VM_SERIES_SHUFFLE ||
	    n->series == VM_SERIES_PERMUTE) {
		double ends[2] = { (double)s.a, (double)s.a +
				   (double)(s.count - 1) * (double)s.b };

		for (unsigned i = 0; !err && i < s.count && i < 2; i++)
			err = loop_run(r, index, ends[i], red, NULL, &body,
				       &timed);
	} else {
		while (!err && series_next(&s, &v))
			err = loop_run(r, index, v, red, NULL, &body, &timed);
	}
	r->timed_depth--;
	return err;
}

static bool timed_stopped(struct run *r)
{
	if (r->exec->stop && *r->exec->stop)
		r->interrupted = true;
	return r->interrupted;
}

static void timed_progress(struct run *r)
{
	if (!r->exec->on_progress || r->timed_done_ns < r->next_progress_ns)
		return;
	r->next_progress_ns = r->timed_done_ns + TIMED_PROGRESS_NS;
	r->exec->on_progress(r->exec->ctx, r->timed_done_ns / 1000000,
			  r->timed_total_ns / 1000000);
}

/* ---- loops with a depth: batches of operations in flight ---- */

/*
 * The series' next value, from its start again at its end (unless it
 * has no values: *any says whether the last pass had one, or the loop
 * walks it once).
 */
static bool next_value(struct run *r, const struct node *n,
		       struct series *s, bool *any, double *v)
{
	while (!series_next(s, v)) {
		if (!*any || n->once || series_start(r, n, s))
			return false;
		*any = false;
	}
	*any = true;
	return true;
}

/* The next batch's operations, from the series; *count of them. */
static int gather(struct run *r, unsigned index, struct series *s,
		  unsigned *count)
{
	const struct node *n = &r->program->nodes[index];
	const struct node *io = &r->program->nodes[index + 1];
	void *buf = io->op == VM_WRITE ? r->write_buffers[io->pattern] :
			      r->read_buffer;
	bool any = true;
	double v;

	for (*count = 0; *count < VM_BATCH_OPS; ++*count) {
		struct dev_io *op = &r->ios[*count];

		if (!next_value(r, n, s, &any, &v))
			break;
		r->vars[n->var] = v;
		if (eval_whole(r, io, 0, &op->offset) ||
		    eval_whole(r, io, 1, &op->length))
			return -EDOM;
		op->buf = buf;
	}
	return 0;
}

/* Where the series stands after the batch's first done operations. */
static void replay(struct run *r, unsigned index, struct series *s,
		   unsigned done)
{
	const struct node *n = &r->program->nodes[index];
	bool any = true;
	double v;

	for (unsigned i = 0; i < done && next_value(r, n, s, &any, &v); i++)
		;
}

/*
 * A batch's values: each operation's latency to the reducers and the
 * histogram, except total, which takes the batch's device time (the
 * operations overlap).  Failed reads a scatter-like test may skip are
 * counted; any other failure is the run's.
 */
static int take_batch(struct run *r, const struct node *n,
		      const struct dev_batch *b, struct reducer *red,
		      struct hist *hist, int err)
{
	uint64_t failed = 0;

	for (unsigned i = 0; i < b->done; i++) {
		double ns = (double)b->ios[i].ns;

		if (b->ios[i].ns == DEV_IO_NO_TIME) {
			failed++;
			continue;
		}
		for (unsigned j = 0; j < n->reduce_count; j++)
			if (red[j].kind != VM_REDUCE_TOTAL)
				reduce_add(&red[j], ns);
		if (hist)
			hist_add(hist, b->ios[i].ns);
	}
	for (unsigned j = 0; j < n->reduce_count; j++)
		if (red[j].kind == VM_REDUCE_TOTAL && b->done > failed)
			reduce_add(&red[j], (double)b->elapsed_ns);
	if (err != -EIO || b->kind != DEV_IO_READ ||
	    !r->exec->skip_read_errors)
		return err;
	if (r->exec->failed_reads == 0)
		r->exec->first_failure = r->exec->dev->error;
	r->exec->failed_reads += failed ? failed : 1;
	return 0;
}

/*
 * run_timed for a loop with a depth above 1: batches of the body's
 * operations, each with up to depth in flight and the time left as its
 * budget, until the bound.  Its device time is the batches' (first
 * submission to last completion), not the sum of latencies.
 */
static int run_queued(struct run *r, unsigned index, struct series *s,
		      unsigned depth, struct reducer *red, struct hist *hist)
{
	const struct node *n = &r->program->nodes[index];
	enum dev_io_kind kind = r->program->nodes[index + 1].op == VM_WRITE ?
				DEV_IO_WRITE : DEV_IO_READ;
	unsigned idle = 0;

	while (r->timed_done_ns < r->deadline_ns && !timed_stopped(r)) {
		struct series before = *s;
		struct dev_batch b = { .kind = kind, .ios = r->ios,
				       .depth = depth, .stop = r->exec->stop,
				       .budget_ns = r->deadline_ns -
						    r->timed_done_ns };
		int err = gather(r, index, s, &b.count);

		if (err || b.count == 0)
			return err;
		err = take_batch(r, n, &b, red, hist,
				 dev_batch(r->exec->dev, &b));
		if (b.done < b.count) {
			*s = before;
			replay(r, index, s, b.done);
		}
		r->timed_done_ns += b.elapsed_ns;
		timed_progress(r);
		if (err)
			return err;
		if (b.elapsed_ns)
			idle = 0;
		else if (++idle > VM_MAX_IDLE_RUNS)
			return -EIO;
	}
	return 0;
}

/*
 * Running it: the series over and over until the I/O inside took the
 * bound, or the bound of a timed loop around it is reached.  A stop
 * signal ends the loop, not the program, so what was measured is still
 * reported (vm_run then returns -EINTR).  Runs without device time
 * (skipped reads) do not count; too many in a row end the run with the
 * last read's error, and a run without any I/O ends the loop (time would
 * never pass).  A "resume" loop goes on with its series where it left
 * it.
 */
static int run_timed(struct run *r, unsigned index, struct reducer *red,
		     struct hist *hist)
{
	const struct node *n = &r->program->nodes[index];
	struct resumed *saved = n->resume ? &r->resumed[index] : NULL;
	uint64_t bound_ns, outer_ns = r->deadline_ns, before_ns, failed;
	struct series s;
	unsigned idle = 0, depth = 1;
	bool any = true, timed;
	double v, body;
	int err = 0;

	if (eval_whole(r, n, n->operand_count - 1, &bound_ns))
		return -EDOM;
	r->deadline_ns = bound_ns < outer_ns - r->timed_done_ns ?
			 r->timed_done_ns + bound_ns : outer_ns;
	if (saved && saved->valid)
		s = saved->s;
	else if (series_start(r, n, &s))
		err = -EDOM;
	if (!err && loop_depth(r, n, &depth))
		err = -EDOM;
	if (!err && depth > 1)
		err = run_queued(r, index, &s, depth, red, hist);
	while (!err && depth == 1 && r->timed_done_ns < r->deadline_ns &&
	       !timed_stopped(r)) {
		if (!series_next(&s, &v)) {
			/* the end of the series: once more from the start,
			   unless it has no values at all or is walked once */
			if (!any || n->once || series_start(r, n, &s))
				break;
			any = false;
			continue;
		}
		any = true;
		before_ns = r->timed_done_ns;
		failed = r->exec->failed_reads;
		err = loop_run(r, index, v, red, hist, &body, &timed);
		if (err == VM_ENOUGH) {
			err = 0;	/* the sink has what it needs */
			break;
		}
		if (err || r->timed_done_ns != before_ns)
			idle = 0;
		else if (r->exec->failed_reads == failed)
			break;		/* no I/O at all: time cannot pass */
		else if (++idle > VM_MAX_IDLE_RUNS)
			err = -EIO;
		timed_progress(r);
	}
	if (saved)
		*saved = (struct resumed){ true, s };
	r->deadline_ns = outer_ns;
	return err;
}

static int run_loop(struct run *r, unsigned index, double *value,
		    bool *has_value)
{
	const struct node *n = &r->program->nodes[index];
	struct reducer red[VM_MAX_REDUCERS];
	struct hist *hist = r->hists ? r->hists[index] : NULL;
	struct series s;
	uint64_t repeats = 0;
	bool timed, scaled = false;
	double v = 0, body;
	int err = 0;

	if (hist)
		hist_clear(hist);
	for (unsigned i = 0; i < n->reduce_count; i++)
		red[i] = (struct reducer){ .kind = n->reduce[i],
					   .hist = hist };
	if (n->op == VM_FOR_TIME) {
		err = r->planning ? plan_timed(r, index, red) :
				    run_timed(r, index, red, hist);
		scaled = true;
	} else if (n->op == VM_REPEAT) {
		if (eval_whole(r, n, 0, &repeats))
			return -EDOM;
		if (r->planning)
			err = plan_repeat(r, index, repeats, &scaled);
	} else if (series_start(r, n, &s)) {
		return -EDOM;
	}
	for (uint64_t i = 0; !err && !scaled; i++) {
		if (n->op == VM_REPEAT ? i >= repeats : !series_next(&s, &v))
			break;
		err = loop_run(r, index, v, red, hist, &body, &timed);
	}
	if (err)
		return err;
	for (unsigned j = 0; j < n->reduce_count; j++) {
		if (scaled && r->planning)	/* values do not matter */
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
	else if (!r->planning && r->record.count)
		err = record_emit(&r->exec->sink, &r->record);
	r->record.count = 0;
	r->record_failed = false;
	r->fields_planned = 0;
	return err;
}

static int run_report(struct run *r, const struct node *n)
{
	struct record_field *f;
	double a = 0, b = 0;

	if (r->planning) {
		if (++r->fields_planned > RECORD_MAX_FIELDS)
			return plan_error(r, -EMSGSIZE, "report", 0, 0,
					  n->line);
		return 0;
	}
	if (r->record.count == RECORD_MAX_FIELDS)
		return -EMSGSIZE;
	f = &r->record.fields[r->record.count++];
	f->unit = n->unit;
	f->key = n->key;
	f->look = &n->look;
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
	case VM_STAMP:
	case VM_VERIFY:
		err = run_io(r, n, value);
		*has_value = true;
		break;
	case VM_REPEAT:
	case VM_FOR:
	case VM_FOR_TIME:
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
	return (long)n->end;
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

	r->record.layout = &r->program->layout;
	err = run_block(r, 0, r->program->node_count, &has, &value);
	if (!err)
		err = emit_record(r);	/* a last record without newline */
	return err;
}

int vm_plan(const struct vm_program *program, const struct dev *dev,
	    uint64_t max_operations, struct vm_plan *plan)
{
	struct run r = { .program = program, .plan = plan, .dev = dev,
			 .planning = true, .deadline_ns = UINT64_MAX };

	memset(plan, 0, sizeof(*plan));
	plan->max_depth = 1;
	/* loops without I/O still count, so no program can spin forever */
	r.step_limit = max_operations ? max_operations * 4 : UINT64_MAX;
	run_program(&r);
	if (!plan->error && max_operations &&
	    plan->operations > max_operations)
		plan_error(&r, -E2BIG, "program", 0, 0, 0);
	return plan->error;
}

void vm_keep_free(struct vm_keep *keep)
{
	for (int i = 0; i < 2; i++) {
		free(keep->read[i]);
		free(keep->stamps[i]);
	}
	*keep = (struct vm_keep){ 0 };
}

/* A buffer and its spare of length at least, kept or made anew. */
static int kept_pair(void *pair[2], uint64_t *bytes, uint64_t length)
{
	if (pair[0] && pair[1] && *bytes >= length)
		return 0;
	for (int i = 0; i < 2; i++) {
		free(pair[i]);
		pair[i] = dev_alloc_buffer(length, DEV_PATTERN_ZEROS);
	}
	*bytes = length;
	return pair[0] && pair[1] ? 0 : -ENOMEM;
}

/* exec->keep: the run's read and stamp buffers, and their spares. */
static int take_kept(struct run *r, const struct vm_plan *plan)
{
	struct vm_keep *k = r->exec->keep;

	if (plan->reads && kept_pair(k->read, &k->read_bytes,
				     plan->max_length))
		return -ENOMEM;
	if (plan->stamps && kept_pair(k->stamps, &k->stamps_bytes,
				      plan->max_length))
		return -ENOMEM;
	if (plan->reads) {
		r->read_buffer = k->read[0];
		r->spare_read = k->read[1];
	}
	if (plan->stamps) {
		r->stamp_buffer = k->stamps[0];
		r->spare_stamps = k->stamps[1];
	}
	return 0;
}

static void free_buffers(struct run *r)
{
	struct vm_keep *k = r->exec->keep;

	ahead_free(r->ahead);		/* its job done first */
	if (k && r->read_buffer) {	/* (swapped in the run, maybe) */
		k->read[0] = r->read_buffer;
		k->read[1] = r->spare_read;
		r->read_buffer = r->spare_read = NULL;
	}
	if (k && r->stamp_buffer) {
		k->stamps[0] = r->stamp_buffer;
		k->stamps[1] = r->spare_stamps;
		r->stamp_buffer = r->spare_stamps = NULL;
	}
	free(r->spare_stamps);
	free(r->spare_read);
	free(r->read_buffer);
	free(r->stamp_buffer);
	for (int i = 0; i < DEV_PATTERN_COUNT; i++)
		free(r->write_buffers[i]);
	for (unsigned i = 0; r->hists && i < r->program->node_count; i++)
		free(r->hists[i]);
	free(r->hists);
	free(r->resumed);
	free(r->ios);
}

/* The batch table, and the buffers offered to the engine to register. */
static int alloc_batch(struct run *r, const struct vm_plan *plan)
{
	void *bufs[1 + DEV_PATTERN_COUNT] = { r->read_buffer };
	uint64_t lengths[1 + DEV_PATTERN_COUNT];

	r->ios = calloc(VM_BATCH_OPS, sizeof(*r->ios));
	if (!r->ios)
		return -ENOMEM;
	for (int i = 0; i < DEV_PATTERN_COUNT; i++)
		bufs[1 + i] = r->write_buffers[i];
	for (int i = 0; i <= DEV_PATTERN_COUNT; i++)
		lengths[i] = bufs[i] ? plan->max_length : 0;
	dev_async_buffers(r->exec->dev, bufs, lengths,
			  1 + DEV_PATTERN_COUNT);
	return 0;
}

static bool wants_hist(const struct node *n)
{
	for (unsigned i = 0; i < n->reduce_count; i++)
		if (is_percentile(n->reduce[i]))
			return true;
	return false;
}

/* A histogram for each loop with percentiles, touched before timing. */
static int alloc_hists(struct run *r)
{
	const struct vm_program *program = r->program;

	for (unsigned i = 0; i < program->node_count; i++) {
		if (!wants_hist(&program->nodes[i]))
			continue;
		if (!r->hists)
			r->hists = calloc(program->node_count,
					  sizeof(*r->hists));
		if (!r->hists)
			return -ENOMEM;
		r->hists[i] = malloc(sizeof(*r->hists[i]));
		if (!r->hists[i])
			return -ENOMEM;
		hist_clear(r->hists[i]);
	}
	for (unsigned i = 0; i < program->node_count && !r->resumed; i++)
		if (program->nodes[i].resume) {
			r->resumed = calloc(program->node_count,
					    sizeof(*r->resumed));
			if (!r->resumed)
				return -ENOMEM;
		}
	return 0;
}

/*
 * exec->overlap: the second thread and a spare of each buffer it
 * works on; without them the work is done inline, as it is the same.
 */
static void start_ahead(struct run *r, const struct vm_plan *plan)
{
	if (plan->stamps && !r->spare_stamps)
		r->spare_stamps = dev_alloc_buffer(plan->max_length,
						   DEV_PATTERN_ZEROS);
	if (plan->reads && !r->spare_read)
		r->spare_read = dev_alloc_buffer(plan->max_length,
						 DEV_PATTERN_ZEROS);
	if ((plan->stamps && !r->spare_stamps) ||
	    (plan->reads && !r->spare_read))
		return;
	r->ahead = ahead_new();
}

int vm_run(const struct vm_program *program, const struct vm_plan *plan,
	   struct vm_exec *exec)
{
	struct run r = { .program = program, .exec = exec, .dev = exec->dev,
			 .total = plan->operations,
			 .timed_total_ns = plan->timed_ns,
			 .deadline_ns = UINT64_MAX,
			 .step_limit = UINT64_MAX };
	int err = 0;

	/* every buffer exists before the first timed operation */
	if (exec->keep)
		err = take_kept(&r, plan);
	else if (plan->reads)
		r.read_buffer = dev_alloc_buffer(plan->max_length,
						 DEV_PATTERN_ZEROS);
	for (int i = 0; i < DEV_PATTERN_COUNT; i++)
		if (plan->patterns[i])
			r.write_buffers[i] = dev_alloc_buffer(
				plan->max_length, (enum dev_pattern)i);
	if (plan->stamps && !exec->keep)
		r.stamp_buffer = dev_alloc_buffer(plan->max_length,
						  DEV_PATTERN_ZEROS);
	if ((plan->reads && !r.read_buffer) ||
	    (plan->stamps && !r.stamp_buffer))
		err = -ENOMEM;
	for (int i = 0; i < DEV_PATTERN_COUNT; i++)
		if (plan->patterns[i] && !r.write_buffers[i])
			err = -ENOMEM;
	if (!err)
		err = alloc_hists(&r);
	if (!err && exec->overlap)
		start_ahead(&r, plan);
	if (!err && plan->max_depth > 1)
		err = alloc_batch(&r, plan);
	if (!err)
		err = run_program(&r);
	free_buffers(&r);
	/* enough outside any timed loop: the program ends there */
	if (err == VM_ENOUGH)
		err = 0;
	/* a timed loop cut short by a signal: the records are partial */
	return !err && r.interrupted ? -EINTR : err;
}
