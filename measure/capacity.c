/*
 * capacity: the search for the end of a card's real capacity.
 *
 * Rounds, not one bisection step at a time: each round stamps up to
 * PROBES_PER_ROUND blocks spread evenly over the range [lo, hi) where the
 * end can still be, writes a flush area of more than --cache-limit from
 * offset 0 so no write cache still holds the probes, reads them back in
 * pseudo-random order and reads the first bytes of the device where a
 * wrapping card puts the first probe past its end.  The next range lies
 * between the last good probe and the first bad one, 255 times narrower;
 * a few rounds reach the logical block.  The offsets of a round depend on
 * what the last one read, so the program (programs.c, "capacity-check")
 * is planned and run once per round with new parameters; the VM stays
 * free of data-dependent control flow.
 *
 * A probe is good when it reads back its own stamp and no block with a
 * lower offset shares its storage.  Stamps name their offsets: a block
 * that reads back another's stamp shares storage with it, and of blocks
 * that share storage only the lowest is real (a wrapping card aliases
 * high offsets onto low ones).  The sharing is followed through chains
 * (a union-find over the offsets seen), so a probe stays bad even when a
 * third write overwrote the block both landed on.  The salt changes every
 * round, so a stamp left by an earlier round reads as old data.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/units.h"
#include "measure/capacity.h"
#include "measure/undo/restore.h"
#include "measure/undo/write.h"
#include "vm/programs.h"
#include "vm/stamp.h"
#include "vm.h"
#include "vm/compile.h"

#define PROBES_PER_ROUND 256
#define MAX_ROUNDS 16		/* 255^16 blocks: more than any device */
/* the salts a run can stamp with: its rounds, and the cache round after
   the round number it skips */
#define ROUND_SALTS (MAX_ROUNDS + 2)
_Static_assert(ROUND_SALTS <= UNDO_MAX_SALTS, "the undo file names them");
_Static_assert(PROBES_PER_ROUND >= 3, "a step, and the last block");
#define CHUNK_BYTES (1024 * 1024)	/* flush and scan transfers */

struct probe {
	uint64_t offset;
	int state;		/* enum stamp_state of its read-back */
	uint64_t named;		/* the offset its stamp named, or shares with */
	bool write_failed;
	bool old_data;		/* STAMP_OTHER, and what it held before */
	bool bad;
};

struct edge {
	uint64_t a, b;		/* a read back b's stamp */
};

struct search {
	struct dev *dev;
	const struct capacity_options *opt;
	struct capacity_result *result;
	uint32_t lbs;
	uint64_t flush_bytes;
	uint64_t lo, hi;		/* the end of the real capacity */
	uint64_t end;			/* the last whole block's end */
	struct probe probes[PROBES_PER_ROUND];
	size_t count;
	unsigned char *saved;		/* the probes' old contents */
	unsigned char *chunk;		/* for saving the flush area */
	struct edge *edges;
	size_t edge_count, edge_cap, edge_alloc;
	uint64_t salt;
	unsigned round;
	struct program_params params;	/* the rounds' programs' */
	struct undo undo;
	int boundary_state;		/* why the first bad probe was bad */
	bool aliased;			/* some bad probe shared storage */
	bool bad_below_good;		/* round 1: good probes past a bad one */
	/* the cache round: verifies of its probe so far */
	unsigned cache_reads;
	int cache_last_intact;
	bool cache_lost;
};

static uint64_t flush_bytes_for(uint64_t cache_limit_bytes)
{
	return units_round_up(cache_limit_bytes + cache_limit_bytes / 4,
			      CHUNK_BYTES);
}

uint64_t capacity_min_device_bytes(uint64_t cache_limit_bytes)
{
	return 2 * flush_bytes_for(cache_limit_bytes) + 2 * CHUNK_BYTES;
}

uint64_t capacity_max_write_bytes(uint64_t device_bytes, uint32_t lbs,
				  uint64_t cache_limit_bytes)
{
	uint64_t flush = flush_bytes_for(cache_limit_bytes);
	uint64_t blocks = device_bytes / lbs, rounds = 1;

	/* each round leaves a range no wider than its step: a 255th */
	for (uint64_t left = blocks; left > PROBES_PER_ROUND;
	     left = (left + PROBES_PER_ROUND - 2) / (PROBES_PER_ROUND - 1))
		rounds++;
	/* and the cache pass: two blocks and a flush */
	return rounds * (flush + (uint64_t)PROBES_PER_ROUND * lbs) + flush +
	       2 * (uint64_t)lbs;
}

/* The salt of round's stamps, from the run's. */
static uint64_t salt_of_round(uint64_t run_salt, unsigned round)
{
	uint64_t z = run_salt + 0x9e3779b97f4a7c15ULL * (round + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t round_salt(const struct search *s)
{
	return salt_of_round(s->salt, s->round);
}

/* ---- one round ---- */

static struct probe *find_probe(struct search *s, uint64_t offset)
{
	size_t lo = 0, hi = s->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->probes[mid].offset == offset)
			return &s->probes[mid];
		if (s->probes[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* vm_exec.check for a round: keep what each probe and alias showed. */
static void round_check(void *ctx, uint64_t offset, int state,
			uint64_t named, const void *block)
{
	struct search *s = ctx;
	struct probe *p = find_probe(s, offset);

	if (state == STAMP_ALIAS && s->edge_count < s->edge_cap)
		s->edges[s->edge_count++] = (struct edge){ offset, named };
	if (!p)
		return;
	if (state == STAMP_WRITE_ERROR) {
		p->write_failed = true;
		return;
	}
	p->state = state;
	p->named = named;
	p->old_data = state == STAMP_OTHER && block &&
		      memcmp(block, s->saved + (size_t)(p - s->probes) *
			     s->lbs, s->lbs) == 0;
}

/*
 * Probes over [lo, hi): every block when there are few, else every
 * step from lo, step a 255th of the range (rounded up), and always the
 * last block, so no gap between probes is wider than a step.
 */
static uint64_t place_probes(struct search *s)
{
	uint64_t blocks = (s->hi - s->lo) / s->lbs, step_blocks, gap;
	uint64_t last = s->hi - s->lbs;
	size_t n;

	if (blocks <= PROBES_PER_ROUND) {
		step_blocks = 1;
		n = (size_t)blocks - 1;
	} else {
		step_blocks = (blocks + PROBES_PER_ROUND - 2) /
			      (PROBES_PER_ROUND - 1);
		n = (size_t)((blocks - 1) / step_blocks) + 1;
		if ((n - 1) * step_blocks == blocks - 1)
			n--;		/* that one is the last block */
	}
	for (size_t i = 0; i < n; i++)
		s->probes[i] = (struct probe){
			.offset = s->lo + i * step_blocks * s->lbs };
	s->probes[n] = (struct probe){ .offset = last };
	s->count = n + 1;
	s->params.slot[PARAM_PROBE_LO].value = (double)s->lo;
	s->params.slot[PARAM_PROBE_STEP].value =
		(double)(step_blocks * s->lbs);
	s->params.slot[PARAM_PROBES].value = (double)n;
	s->params.slot[PARAM_PROBE_LAST].value = (double)last;
	/* the widest gap between a good probe and the next one */
	gap = n ? last - s->probes[n - 1].offset : s->lbs;
	return step_blocks * s->lbs > gap ? step_blocks * s->lbs : gap;
}

/*
 * The first probe past the real capacity R of a wrapping card lands at
 * its offset mod R, which is less than the gap to the good probe before
 * it: reading that much from offset 0 finds it.
 */
static void set_scan(struct search *s, uint64_t gap)
{
	uint64_t scan = units_round_up(gap + s->lbs, CHUNK_BYTES), cap;

	if (scan > s->dev->size_bytes / CHUNK_BYTES * CHUNK_BYTES)
		scan = s->dev->size_bytes / CHUNK_BYTES * CHUNK_BYTES;
	s->params.slot[PARAM_SCAN].value = (double)scan;
	cap = s->count + scan / s->lbs;		/* may pass 2^32 */
	s->edge_cap = cap < s->edge_alloc ? (size_t)cap : s->edge_alloc;
}

/*
 * A probe that cannot be read holds nothing to put back (past the end of
 * a card that fails there, say): it is probed unsaved, and its saved
 * copy is zeros, so it never reads as its old data.
 */
static int save_probe(struct search *s, size_t i)
{
	unsigned char *copy = s->saved + i * s->lbs;
	int err = undo_save(&s->undo, s->dev, s->probes[i].offset, s->lbs,
			    copy);

	if (err == -EIO)
		memset(copy, 0, s->lbs);
	return err == -EIO ? 0 : err;
}

static int save_blocks(struct search *s)
{
	int err = 0;

	for (size_t i = 0; !err && i < s->count; i++)
		err = save_probe(s, i);
	/* the flush area once: its first contents are what is restored */
	for (uint64_t at = 0; !err && s->round == 0 && at < s->flush_bytes;
	     at += CHUNK_BYTES)
		err = undo_save(&s->undo, s->dev, at, CHUNK_BYTES, s->chunk);
	return err ? err : undo_sync(&s->undo);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t node_of(const uint64_t *nodes, size_t count, uint64_t offset)
{
	const uint64_t *hit = bsearch(&offset, nodes, count, sizeof(*nodes),
				      compare_u64);

	return hit ? (size_t)(hit - nodes) : count;
}

static size_t root_of(size_t *parent, size_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

/*
 * Which probes share storage with a lower offset: the offsets the alias
 * reads name, joined into classes whose root is their lowest offset
 * (nodes are sorted, so the lower index wins a union).
 */
static int mark_aliases(struct search *s)
{
	size_t count = 0, n = 2 * s->edge_count;
	uint64_t *nodes = malloc((n ? n : 1) * sizeof(*nodes));
	size_t *parent = malloc((n ? n : 1) * sizeof(*parent));

	if (!nodes || !parent) {
		free(nodes);
		free(parent);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->edge_count; i++) {
		nodes[2 * i] = s->edges[i].a;
		nodes[2 * i + 1] = s->edges[i].b;
	}
	qsort(nodes, n, sizeof(*nodes), compare_u64);
	for (size_t i = 0; i < n; i++)
		if (!count || nodes[count - 1] != nodes[i])
			nodes[count++] = nodes[i];
	for (size_t i = 0; i < count; i++)
		parent[i] = i;
	for (size_t i = 0; i < s->edge_count; i++) {
		size_t a = root_of(parent, node_of(nodes, count,
						   s->edges[i].a));
		size_t b = root_of(parent, node_of(nodes, count,
						   s->edges[i].b));

		parent[a > b ? a : b] = a < b ? a : b;
	}
	for (size_t i = 0; i < s->count; i++) {
		struct probe *p = &s->probes[i];
		size_t at = node_of(nodes, count, p->offset);

		if (at < count && nodes[root_of(parent, at)] < p->offset) {
			p->bad = true;
			p->state = STAMP_ALIAS;
			p->named = nodes[root_of(parent, at)];
		}
	}
	free(nodes);
	free(parent);
	return 0;
}

static int judge_probes(struct search *s)
{
	int err = mark_aliases(s);

	for (size_t i = 0; i < s->count; i++) {
		struct probe *p = &s->probes[i];

		if (p->write_failed || (p->state != STAMP_INTACT &&
					p->state != STAMP_ALIAS))
			p->bad = true;
		/* an intact probe that another offset's stamp landed on is
		   still good: the alias is the other one */
		if (!p->bad && p->state == STAMP_ALIAS)
			p->state = STAMP_INTACT;
	}
	return err;
}

/* ---- the evidence ---- */

static const char *probe_result(const struct probe *p)
{
	if (p->write_failed)
		return stamp_state_name(STAMP_WRITE_ERROR);
	if (p->old_data)
		return "old-data";
	return stamp_state_name((enum stamp_state)p->state);
}

/* A probe to the sink, as the round's evidence. */
static int emit_probe(struct search *s, const struct probe *p)
{
	const struct capacity_sink *sink = &s->opt->sink;
	struct capacity_probe out = {
		.round = s->round + 1, .offset_bytes = p->offset,
		.result = probe_result(p),
		.shares_storage = p->bad && p->state == STAMP_ALIAS,
		.named_offset_bytes = p->named, .good = !p->bad,
	};

	return sink->probe ? sink->probe(sink->ctx, &out) : 0;
}

/* ---- the search ---- */

/* The round's evidence: the probes either side of the edge, or all. */
static int emit_evidence(struct search *s, size_t first_bad)
{
	int err = 0;

	for (size_t i = 0; s->opt->every_probe && i < s->count && !err; i++)
		err = emit_probe(s, &s->probes[i]);
	if (s->opt->every_probe)
		return err;
	if (first_bad > 0)
		err = emit_probe(s, &s->probes[first_bad - 1]);
	if (!err && first_bad < s->count)
		err = emit_probe(s, &s->probes[first_bad]);
	return err;
}

/* Narrow [lo, hi) to the last good probe and the first bad one. */
static int narrow(struct search *s)
{
	size_t first_bad = s->count;

	for (size_t i = 0; i < s->count && first_bad == s->count; i++)
		if (s->probes[i].bad)
			first_bad = i;
	for (size_t i = first_bad + 1; s->round == 0 && i < s->count; i++)
		if (!s->probes[i].bad)
			s->bad_below_good = true;
	if (first_bad == s->count) {
		s->lo = s->hi;
		return emit_evidence(s, first_bad);
	}
	s->hi = s->probes[first_bad].offset;
	if (first_bad > 0)
		s->lo = s->probes[first_bad - 1].offset + s->lbs;
	if (first_bad == 0 && s->round == 0)
		s->lo = s->hi = 0;	/* the end is inside the flush area */
	s->boundary_state = s->probes[first_bad].write_failed ?
			    STAMP_WRITE_ERROR : s->probes[first_bad].state;
	if (s->probes[first_bad].state == STAMP_ALIAS)
		s->aliased = true;
	return emit_evidence(s, first_bad);
}

static int run_round(struct search *s, struct vm_program *program)
{
	struct vm_exec exec = { .dev = s->dev, .ctx = s, .check = round_check,
				.stop = s->opt->stop, .salt = round_salt(s) };
	struct vm_plan plan;
	int err;

	set_scan(s, place_probes(s));
	s->edge_count = 0;
	err = vm_plan(program, s->dev, 0, &plan) ? -ERANGE : 0;
	if (!err)
		err = save_blocks(s);
	if (!err && s->opt->stop && *s->opt->stop)
		err = -EINTR;
	if (!err)
		err = vm_run(program, &plan, &exec);
	if (!err)
		err = judge_probes(s);
	if (!err)
		err = narrow(s);
	if (!err && s->opt->out)
		fflush(s->opt->out);
	return err;
}

/* ---- the write cache ---- */

static void cache_check(void *ctx, uint64_t offset, int state,
			uint64_t named, const void *block)
{
	struct search *s = ctx;

	(void)named;
	(void)block;
	if (offset != s->probes[0].offset || state == STAMP_WRITE_ERROR)
		return;
	if (state == STAMP_INTACT && !s->cache_lost)
		s->cache_last_intact = (int)s->cache_reads;
	else
		s->cache_lost = true;
	s->cache_reads++;
}

/*
 * A block past the end, stamped, then read back after each chunk of the
 * flush: it reads back as long as a cache holds it.  On a wrapping card
 * the block it aliases is stamped too, so the storage under it no longer
 * holds its stamp.  Placed a flush area above the end, so its alias lies
 * clear of the flush (when the device has room).
 */
static int measure_cache(struct search *s, struct vm_program *program)
{
	uint64_t usable = s->lo, probe = usable + s->flush_bytes;
	struct vm_exec exec = { .dev = s->dev, .ctx = s, .check = cache_check,
				.stop = s->opt->stop };
	struct vm_plan plan;
	int err;

	s->round++;
	exec.salt = round_salt(s);
	if (probe + s->lbs > s->end)
		probe = usable;
	s->probes[0] = (struct probe){ .offset = probe };
	s->probes[1] = (struct probe){ .offset = probe % usable };
	s->count = 2;
	s->cache_last_intact = -1;
	s->params.slot[PARAM_PROBE_LAST].value = (double)probe;
	s->params.slot[PARAM_PROBE_LO].value = (double)(probe % usable);
	err = vm_plan(program, s->dev, 0, &plan) ? -ERANGE : 0;
	for (size_t i = 0; !err && i < 2; i++)
		err = save_probe(s, i);
	if (!err)
		err = undo_sync(&s->undo);
	if (!err)
		err = vm_run(program, &plan, &exec);
	/* intact throughout: that block keeps data, nothing was measured */
	if (!err && s->cache_last_intact >= 0 &&
	    (uint64_t)s->cache_last_intact < s->flush_bytes / CHUNK_BYTES)
		s->result->cache_bytes = (double)(s->cache_last_intact + 1) *
					 CHUNK_BYTES;
	return err;
}

/* ---- the verdict ---- */

static const char *fake_kind(const struct search *s)
{
	if (s->aliased)
		return "wraparound";
	if (s->boundary_state == STAMP_READ_ERROR ||
	    s->boundary_state == STAMP_WRITE_ERROR)
		return "io-error";
	return "limbo";
}

static void set_verdict(struct search *s)
{
	struct capacity_result *r = s->result;

	r->usable_bytes = s->lo;
	r->announced_bytes = s->dev->size_bytes;
	if (s->lo == s->end) {
		r->verdict = "genuine";
		return;
	}
	if (s->bad_below_good && !s->aliased) {
		r->verdict = "damaged";	/* bad areas, not a fake size */
		return;
	}
	r->verdict = "fake";
	r->fake_kind = fake_kind(s);
}

/* A fake's end is a clean edge: a cache round can measure past it. */
static bool clean_edge(const struct search *s)
{
	return s->lo == s->hi && s->hi < s->end && s->lo &&
	       !(s->bad_below_good && !s->aliased);
}

/* ---- setting up, and putting everything back ---- */

static int setup(struct search *s)
{
	s->lbs = s->dev->logical_block_bytes;
	s->flush_bytes = flush_bytes_for(s->opt->cache_limit_bytes);
	s->lo = s->flush_bytes;
	s->end = s->dev->size_bytes / s->lbs * s->lbs;
	s->hi = s->end;
	s->salt = stamp_new_salt();
	program_params_init(&s->params);
	s->params.slot[PARAM_SIZE].value = (double)s->dev->size_bytes;
	s->params.slot[PARAM_LBS].value = s->lbs;
	s->params.slot[PARAM_FLUSH].value = (double)s->flush_bytes;
	s->params.slot[PARAM_CHUNK].value = CHUNK_BYTES;
	s->saved = dev_alloc_buffer((uint64_t)PROBES_PER_ROUND * s->lbs,
				    DEV_PATTERN_ZEROS);
	s->chunk = dev_alloc_buffer(CHUNK_BYTES, DEV_PATTERN_ZEROS);
	/*
	 * A block reads back another offset's stamp only where a write of
	 * this round landed: a probe or a flush block, each on at most a
	 * few of the offsets read (a scan shorter than the real capacity
	 * sees each storage block once).  Four per written block is room
	 * enough, and bounded on a huge card; aliases past it go uncounted.
	 */
	s->edge_alloc = 4 * (PROBES_PER_ROUND +
			     (size_t)(s->flush_bytes / s->lbs));
	s->edges = malloc(s->edge_alloc * sizeof(*s->edges));
	return s->saved && s->chunk && s->edges ? 0 : -ENOMEM;
}

static int search(struct search *s)
{
	struct vm_program *rounds = NULL, *cache = NULL;
	int err = programs_compile("capacity-check", &s->params,
				   &rounds);

	if (!err)
		err = programs_compile("capacity-cache", &s->params, &cache);
	while (!err && s->lo < s->hi && s->round < MAX_ROUNDS) {
		err = run_round(s, rounds);
		if (!err && s->opt->stop && *s->opt->stop)
			err = -EINTR;
		s->round++;
		s->result->rounds = s->round;
	}
	if (!err && clean_edge(s))
		err = measure_cache(s, cache);
	vm_free(rounds);
	vm_free(cache);
	return err;
}

/* The undo file, naming every salt a round of the run can stamp with. */
static int create_undo(struct search *s)
{
	uint64_t salts[ROUND_SALTS];

	for (unsigned round = 0; round < ROUND_SALTS; round++)
		salts[round] = salt_of_round(s->salt, round);
	return undo_create(&s->undo, s->opt->undo_path, s->dev, salts,
			   ROUND_SALTS);
}

/*
 * Put every block back and check those that can hold data (below
 * verify_below); flush the device, and only then forget the undo file.
 * With the verdict known, its usable size goes into the file first: a
 * --restore after a crash compares no block past it either (a mark
 * that cannot be written costs only that).
 */
static int restore(struct search *s, uint64_t verify_below, bool known,
		   char *why, size_t size)
{
	struct capacity_result *r = s->result;
	char what[160];
	int err = 0;

	if (known && s->undo.records)
		undo_mark_usable(&s->undo, verify_below);
	/* read back through the descriptor written, never the name again */
	if (s->undo.records)
		err = undo_restore(s->undo.fd, s->dev, verify_below,
				   &r->restore, what, sizeof(what));
	undo_close(&s->undo);
	if (err && what[0])
		snprintf(why, size, "the undo file %s: %s", s->opt->undo_path,
			 what);
	r->bytes_restored = r->restore.bytes_restored;
	r->restored = !err && r->restore.blocks_differing == 0 &&
		      r->restore.damaged_count == 0;
	if (!err)
		err = dev_flush(s->dev);
	if (!err && r->restored)
		unlink(s->opt->undo_path);
	return err;
}

/* A failure of the undo file itself: which file, what, and why. */
static void undo_failure(const struct undo *u, char *undo_error, size_t size)
{
	if (u->failed)
		snprintf(undo_error, size, "the undo file %s: %s: %s",
			 u->path, u->failed, strerror(u->failed_errno));
}

int capacity_run(struct dev *dev, const struct capacity_options *options,
		 struct capacity_result *result, char *undo_error,
		 size_t size)
{
	struct search *s = calloc(1, sizeof(*s));
	int err, restore_err;

	*result = (struct capacity_result){ .device_path = dev->path,
					    .cache_bytes = NAN };
	undo_error[0] = '\0';
	if (!s)
		return -ENOMEM;
	*s = (struct search){ .dev = dev, .opt = options, .result = result,
			      .undo = { .fd = -1 } };
	err = setup(s);
	if (!err)
		err = create_undo(s);
	if (!err)
		err = search(s);
	undo_failure(&s->undo, undo_error, size);
	result->bytes_written = dev->stats.bytes_written;
	if (!err)
		set_verdict(s);
	/* whatever happened, once the undo file exists it is applied;
	   interrupted, every block is checked */
	restore_err = s->undo.fd >= 0 ?
		      restore(s, err ? dev->size_bytes : result->usable_bytes,
			      !err, undo_error, size) : 0;
	result->device_time_ns = dev->stats.time_ns;
	if (!err && !restore_err && options->sink.verdict)
		err = options->sink.verdict(options->sink.ctx, result);
	/* what was not put back goes on record too, not only on stderr */
	if (!err && !restore_err && s->undo.records && !result->restored &&
	    options->sink.restore)
		err = options->sink.restore(options->sink.ctx,
					    &result->restore);
	free(s->saved);
	free(s->chunk);
	free(s->edges);
	free(s);
	/* a failed restore outranks everything, an interrupt included */
	return restore_err ? restore_err : err;
}
