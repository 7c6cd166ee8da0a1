/*
 * detected: the decisions of a --detect run, on the numbers its probes
 * measured - each alignment's line from its boundaries' reads, when the
 * read rounds may stop, the rate an open-count probe is held against,
 * whether it fell, how far write rates wander, which counts stand clear
 * of that, the smallest efficient write - and why a finding is not
 * known.  measure/detect.c runs the probes and asks; nothing here does
 * I/O.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/detected.h"
#include "lib/units.h"

#define STABLE_ROUNDS 4	/* rounds with the same answer end the reads */
#define CLEAR_NOISE_UNITS 2.0	/* a fall stands this far clear of noise */
#define MIN_WRITE_SURE 0.5	/* a program unit less sure is not one */
#define LONE_LEVEL_Z 50.0	/* see detected_drop_lone_levels */
#define SWITCH_RATIO 0.5	/* N=2 at least this fast: a switch's cost */
#define MIN_FALL_COST_NS 1e6	/* a write past the open limit costs a
				   closing erase block at least this much
				   more: its missing pages programmed or
				   its data copied, a millisecond or more on
				   any flash card; a slowdown of
				   microseconds is a cache, a file system
				   below or the scheduler */

/* ---- the read probes ---- */

static double median_of(const double *values, size_t n)
{
	double copy[DETECT_BOUNDARIES * 4];

	if (n == 0)
		return NAN;
	memcpy(copy, values, n * sizeof(*values));
	return analysis_median(copy, n);
}

void detected_point(const struct detect_boundary_times *a,
		    struct analysis_align_point *p)
{
	double diffs[DETECT_BOUNDARIES], mean = 0, var = 0;
	size_t n = a->boundaries;

	for (size_t i = 0; i < n; i++) {
		diffs[i] = a->on[i] - (a->pre[i] + a->post[i]) / 2;
		mean += diffs[i] / (double)n;
	}
	for (size_t i = 0; i < n; i++)
		var += (diffs[i] - mean) * (diffs[i] - mean);
	p->align = a->align;
	p->pre = median_of(a->pre, n);
	p->on = median_of(a->on, n);
	p->post = median_of(a->post, n);
	p->diff = median_of(diffs, n);
	/* standard error of a median, from the boundaries' spread */
	p->noise = n > 1 ? 1.2533 * sqrt(var / (double)(n - 1)) /
			   sqrt((double)n) : 0;
}

/* How sure the erase-block answer is, whether found or not visible. */
static double erase_sureness(const struct analysis_geometry *g)
{
	return g->erase.known ? g->erase.confidence :
	       g->erase_hidden ? g->hidden_confidence : 0;
}

static bool settled(const struct analysis_geometry *g)
{
	/* "not visible" is never settled at once: a weak step may yet
	   come out of the noise as the rounds sharpen the times */
	if (!g->erase.known)
		return false;
	/* a weak page signal needs more rounds: only the budget ends them */
	return g->erase.confidence >= 0.95 && g->page.confidence >= 0.9;
}

static bool same_answer(const struct analysis_geometry *a,
			const struct analysis_geometry *b)
{
	return a->erase.known == b->erase.known &&
	       a->erase_hidden == b->erase_hidden &&
	       a->erase.value == b->erase.value &&
	       a->page.known == b->page.known &&
	       a->page.value == b->page.value;
}

bool detected_reads_done(const struct analysis_geometry *before,
			 const struct analysis_geometry *now, unsigned round,
			 unsigned *same)
{
	*same = round && same_answer(before, now) ? *same + 1 : 0;
	return settled(now) ||
	       (*same >= STABLE_ROUNDS && erase_sureness(now) >= 0.95);
}

/* ---- the open-count probes ---- */

/* As openau.c holds them (is_reference), and order_cost for the first
   out-of-order run. */
double detected_reference_rate(const struct detect_runs *runs, unsigned nr,
			       bool random)
{
	bool random_fewer = false;
	double best = 0;

	for (size_t i = 0; i < runs->count; i++)
		random_fewer |= runs->run[i].random && runs->run[i].nr < nr;
	for (size_t i = 0; i < runs->count; i++) {
		const struct analysis_run *r = &runs->run[i];
		bool ref = !random ? !r->random && r->nr < nr :
			   random_fewer ? r->random && r->nr < nr :
			   !r->random && r->nr <= nr;

		if (ref && r->rate[0] > best)
			best = r->rate[0];
	}
	return best;
}

void detected_judge(const struct detect_runs *runs, size_t index,
		    struct analysis_verdict *v)
{
	analysis_open_au_verdict_below(runs->run, runs->count, index,
				       runs->erase_bytes, v);
}

bool detected_add_run(struct detect_runs *runs, unsigned nr, bool random,
		      uint64_t write_bytes, const double *rates,
		      unsigned rounds, struct analysis_verdict *v)
{
	size_t index = runs->count++;
	struct analysis_run *run = &runs->run[index];
	double copy[DETECT_OPEN_ROUNDS];

	memset(run, 0, sizeof(*run));
	run->nr = nr;
	run->random = random;
	run->count = 1;
	run->size[0] = write_bytes;
	memcpy(runs->round_rate[index], rates, rounds * sizeof(*rates));
	memcpy(copy, rates, rounds * sizeof(*rates));
	run->rate[0] = analysis_median(copy, rounds);
	runs->rounds[index] = rounds;
	detected_judge(runs, index, v);
	return v->fell;
}

void detected_set_aside(struct detect_runs *runs, bool random, unsigned nr,
			size_t before)
{
	for (size_t i = 0; i < before; i++)
		if (runs->run[i].random == random && runs->run[i].nr == nr)
			runs->run[i].nr = 0;	/* read as no N */
}

/*
 * The spread of a run's rounds, as a log ratio: of the two rounds closest
 * together, those that decide its median (the third, where there is one,
 * is the one the median leaves out).
 */
static double round_spread(const double *rates, unsigned rounds)
{
	double r[DETECT_OPEN_ROUNDS], best = INFINITY;

	memcpy(r, rates, rounds * sizeof(*r));
	for (unsigned i = 0; i + 1 < rounds; i++)
		for (unsigned j = i + 1; j < rounds; j++)
			best = fmin(best, fabs(log(r[i] / r[j])));
	return isfinite(best) ? best : 0;
}

/*
 * How far write rates that should agree wander, as a log ratio: the
 * rounds of each in-order run that held, and each such run faster than
 * the best with fewer blocks.  A fall must stand clear of it.
 */
static double write_noise(const struct detect_runs *runs)
{
	double worst = 0;

	for (size_t i = 0; i < runs->count; i++) {
		struct analysis_verdict v;

		/* out of order, cards are erratic by design: consolidations
		   come when they come */
		if (runs->run[i].random)
			continue;
		detected_judge(runs, i, &v);
		if (v.fell)
			continue;
		worst = fmax(worst, round_spread(runs->round_rate[i],
						 runs->rounds[i]));
		/* faster with more blocks is noise alone; slower may be a
		   cost of switching blocks */
		if (v.compared && v.median_ratio > 1)
			worst = fmax(worst, log(v.median_ratio));
	}
	return worst;
}

/* The run of the smallest N of one order that fell, and its verdict;
   runs->count: none fell. */
static size_t smallest_fall_run(const struct detect_runs *runs, bool random,
				struct analysis_verdict *fall)
{
	size_t found = runs->count;

	for (size_t i = 0; i < runs->count; i++) {
		struct analysis_verdict v;

		if (runs->run[i].random != random)
			continue;
		detected_judge(runs, i, &v);
		if (v.fell && (found == runs->count ||
			       runs->run[i].nr < runs->run[found].nr)) {
			found = i;
			*fall = v;
		}
	}
	return found;
}

unsigned detected_smallest_fall(const struct detect_runs *runs, bool random,
				double *ratio)
{
	struct analysis_verdict v;
	size_t i = smallest_fall_run(runs, random, &v);

	if (i == runs->count)
		return 0;
	*ratio = v.median_ratio;
	return runs->run[i].nr;
}

/*
 * What the smallest fall of one order costs each write beyond the rate it
 * fell from, in ns: a write at ratio r of the reference takes (1 - r) of
 * its time more.  0: none fell.
 */
static double fall_cost_ns(const struct detect_runs *runs, bool random)
{
	struct analysis_verdict v;
	size_t i = smallest_fall_run(runs, random, &v);

	if (i == runs->count || !(runs->run[i].rate[0] > 0))
		return 0;
	return (double)runs->run[i].size[0] * 1e9 / runs->run[i].rate[0] *
	       (1 - v.median_ratio);
}

static bool ran_order(const struct detect_runs *runs, bool random)
{
	for (size_t i = 0; i < runs->count; i++)
		if (runs->run[i].random == random)
			return true;
	return false;
}

/*
 * One order's count, as openau.c read it, kept only where its evidence
 * stands clear: the fall that decides it below the threshold by more than
 * the device's own noise, and never a search that did not fall off.
 */
static void settle_count(const struct detect_runs *runs, bool random,
			 bool bound, unsigned at_least,
			 struct analysis_finding *found, unsigned *bound_out)
{
	const char *order = random ? "out-of-order" : "open-erase-block";
	double ratio = 1, clear, cost_ns;
	unsigned fell = detected_smallest_fall(runs, random, &ratio);

	*bound_out = 0;
	if (!ran_order(runs, random)) {
		if (!found->reason[0])
			analysis_not_determined(found, "not measured");
		return;
	}
	if (!fell && bound) {
		*bound_out = at_least;
		analysis_not_determined(found, "no %s limit up to %u: every "
					"probe ran at the same rate (at least "
					"%u)", order, at_least, at_least);
		return;
	}
	if (fell && found->known && runs->unconfirmed[random ? 1 : 0]) {
		analysis_not_determined(found, "no %s limit: N=%u fell off, "
					"then held when run again on the same "
					"blocks", order, fell);
		return;
	}
	cost_ns = fall_cost_ns(runs, random);
	if (fell && found->known && cost_ns < MIN_FALL_COST_NS) {
		analysis_not_determined(found, "no %s limit: N=%u ran %.0fus "
					"slower per write than fewer blocks, "
					"less than closing an erase block "
					"costs (%.0fus at least)", order, fell,
					cost_ns / 1e3, MIN_FALL_COST_NS / 1e3);
		return;
	}
	clear = ANALYSIS_FALL_RATIO * exp(-CLEAR_NOISE_UNITS * runs->noise_log);
	if (fell && found->known && ratio >= clear) {
		analysis_not_determined(found, "no %s limit stands out of the "
					"noise: N=%u ran at %.2f of fewer "
					"blocks, within what write times "
					"varying by %.0f%% allow", order, fell,
					ratio,
					(exp(runs->noise_log) - 1) * 100);
		return;
	}
	if (!found->known && !found->reason[0])
		analysis_not_determined(found, "%s already slow at N=%u (%.2f "
					"of in order): the order, not a count, "
					"is what is slow", random ?
					"out of order" : "in order", fell,
					ratio);
}

/* The largest N of one order that ran; 0: none. */
static unsigned highest_run(const struct detect_runs *runs, bool random)
{
	unsigned nr = 0;

	for (size_t i = 0; i < runs->count; i++)
		if (runs->run[i].random == random && runs->run[i].nr > nr)
			nr = runs->run[i].nr;
	return nr;
}

void detected_open_findings(struct detect_runs *runs,
			    struct detect_findings *f)
{
	struct analysis_open open;
	double ratio;

	analysis_open_au_below(runs->run, runs->count, runs->erase_bytes,
			       &open);
	runs->noise_log = write_noise(runs);
	f->write_noise = exp(runs->noise_log) - 1;
	f->open_linear = open.linear;
	f->open_random = open.random;
	f->random_linear = open.random_linear;
	snprintf(f->random_linear_reason, sizeof(f->random_linear_reason),
		 "%s", open.random_linear.known ? "" : ran_order(runs, true) ?
		 "no out-of-order probe to hold against an in-order one" :
		 "not measured: no out-of-order probe ran");
	settle_count(runs, false, open.linear_lower_bound, open.linear_at_least,
		     &f->open_linear, &f->open_linear_at_least);
	/* out of order held up to the in-order count (N=1 alone where
	   that is 1), which it cannot exceed: that count, as sure as the
	   in-order one */
	if (f->open_linear.known &&
	    ((open.random_lower_bound &&
	      open.random_at_least == f->open_linear.value) ||
	     (!open.random.known &&
	      !detected_smallest_fall(runs, true, &ratio) &&
	      highest_run(runs, true) >= f->open_linear.value))) {
		f->open_random.known = true;
		f->open_random.value = f->open_linear.value;
		f->open_random.confidence = fmin(f->open_random.confidence,
						 f->open_linear.confidence);
		f->open_random.reason[0] = '\0';
		f->open_random_at_least = 0;
		return;
	}
	settle_count(runs, true, open.random_lower_bound, open.random_at_least,
		     &f->open_random, &f->open_random_at_least);
}

/* Fits of t = a + b * max(w, P), each size for P: the P that fits best. */
void detected_min_write(const double *w, const double *t, size_t n,
			struct analysis_finding *found)
{
	double best = INFINITY, second = INFINITY;
	uint64_t best_p = 0;

	for (size_t c = 0; c < n; c++) {
		double x[DETECT_WRITE_SIZES], err = 0, slope, intercept;

		for (size_t i = 0; i < n; i++)
			x[i] = w[i] > w[c] ? w[i] : w[c];
		if (analysis_linear_fit(x, t, n, &slope, &intercept) &&
		    c + 1 < n)
			continue;
		if (c + 1 == n) {	/* flat: every size costs the same */
			slope = 0;
			intercept = median_of(t, n);
		}
		for (size_t i = 0; i < n; i++) {
			double r = (t[i] - intercept - slope * x[i]) / t[i];

			err += r * r;
		}
		if (err < best) {
			second = best;
			best = err;
			best_p = (uint64_t)w[c];
		} else if (err < second) {
			second = err;
		}
	}
	*found = (struct analysis_finding){ .known = best_p != 0,
		.value = best_p,
		.confidence = second > 0 && isfinite(second) ?
			      1 - best / second : 0 };
	if (found->confidence < 0)
		found->confidence = 0;
	if (found->known && found->confidence < MIN_WRITE_SURE)
		analysis_not_determined(found, "no write size stands out: "
					"the times fit no program unit (best "
					"fit %.2f)", found->confidence);
}

/* A card past its limit pays a garbage collection per write, one that
   spills slows by the bytes spilled: a little is a switch's cost. */
bool detected_switch_cost(const struct detect_runs *runs)
{
	for (size_t i = 0; i < runs->count; i++) {
		struct analysis_verdict v;

		if (runs->run[i].random || runs->run[i].nr != 2)
			continue;
		detected_judge(runs, i, &v);
		return v.fell && v.median_ratio >= SWITCH_RATIO;
	}
	return false;
}

/* ---- why not ---- */

/* Lines of the read timing at multiples of size: those a level of the
   staircase from size rests on. */
static size_t level_support(const struct detect_findings *f, uint64_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < f->evidence_count; i++)
		n += f->evidence[i].align >= size &&
		     f->evidence[i].align % size == 0;
	return n;
}

/*
 * On a device with no erase-block signal, a step above the page resting
 * on one line of the timing (the largest alignment, say) is that line's
 * noise more likely than an allocation group: it needs far more than the
 * usual separation to be shown.
 */
void detected_drop_lone_levels(struct detect_findings *f)
{
	struct analysis_geometry *g = &f->geometry;
	size_t kept = 0;

	if (g->erase.known)
		return;
	for (size_t i = 0; i < g->level_count; i++) {
		const struct analysis_level *l = &g->levels[i];
		bool lone = l->kind != ANALYSIS_LEVEL_PAGE &&
			    l->kind != ANALYSIS_LEVEL_EFFECTIVE_PAGE &&
			    level_support(f, l->size) < 2 &&
			    l->z < LONE_LEVEL_Z;

		if (!lone)
			g->levels[kept++] = *l;
	}
	g->level_count = kept;
}

/* Why the read findings are not determined, where they are not. */
void detected_explain_geometry(struct detect_findings *f)
{
	struct analysis_geometry *g = &f->geometry;

	if (!g->erase.known && g->erase_hidden)
		analysis_not_determined(&g->erase, "not visible (no step "
					"where an erase block can be; "
					"confidence %.2f)",
					g->hidden_confidence);
	else if (!g->erase.known)
		analysis_not_determined(&g->erase, "no erase-block signal "
					"found (no boundary stands out of the "
					"noise)");
	if (!g->page.known)
		analysis_not_determined(&g->page, "%s", g->level_count ?
			"not visible (no step where a page can be)" :
			"no step stands clear of the noise");
	if (!g->effective_page.known)
		analysis_not_determined(&g->effective_page, "no second step "
					"just above the page");
}

/* The write findings, none measured: why. */
void detected_skip_writes(struct detect_findings *f, const char *why)
{
	analysis_not_determined(&f->open_linear, "%s", why);
	analysis_not_determined(&f->open_random, "%s", why);
	analysis_not_determined(&f->min_write, "%s", why);
	analysis_not_determined(&f->fat_area, "%s", why);
	snprintf(f->random_linear_reason, sizeof(f->random_linear_reason),
		 "%s", why);
}


/* The fastest read of the evidence, in ns; NAN: none. */
static double fastest_read_ns(const struct detect_findings *f)
{
	double fastest = NAN;

	for (size_t i = 0; i < f->evidence_count; i++)
		if (!(f->evidence[i].pre >= fastest))
			fastest = f->evidence[i].pre;
	return fastest;
}

bool detected_write_cache(struct detect_findings *f, uint64_t write_bytes,
			  double write_ns, uint64_t read_bytes)
{
	char why[ANALYSIS_REASON_BYTES], ws[UNITS_BUF], rs[UNITS_BUF];
	double read_ns = fastest_read_ns(f);

	if (!(write_ns > 0) || !(write_ns < read_ns))
		return false;
	snprintf(why, sizeof(why), "writes were absorbed by a write cache: "
		 "a %s write took %.0fus, less than a %s read (%.0fus), and "
		 "flash takes longer to program than to read",
		 units_format_exact_size(ws, write_bytes), write_ns / 1e3,
		 units_format_exact_size(rs, read_bytes), read_ns / 1e3);
	analysis_not_determined(&f->open_linear, "%s", why);
	analysis_not_determined(&f->open_random, "%s", why);
	analysis_not_determined(&f->min_write, "%s", why);
	analysis_not_determined(&f->fat_area, "%s", why);
	f->open_linear_at_least = 0;
	f->open_random_at_least = 0;
	f->random_linear.known = false;
	snprintf(f->random_linear_reason, sizeof(f->random_linear_reason),
		 "%s", why);
	return true;
}
