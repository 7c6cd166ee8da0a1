/*
 * passesstate: the state file of --passes (passesstate.h).  Each line is
 * a key and its words; numbers are decimal, rates "%.17g" ("-" for
 * none), so what is read back is what was written, bit for bit.  The
 * last line is "sum" and the FNV-1a hash of every byte before it: a
 * file cut short, or changed, is refused whole.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/readfile.h"
#include "measure/passesstate.h"
#include "measure/surfacecut.h"
#include "measure/undo/write.h"
#include "vm/stamp.h"

#define MAGIC "flashbench-passes 1"
#define MAX_WORDS 24

static const char *const until_names[] = {
	[PASSES_UNTIL_NONE] = "none",
	[PASSES_UNTIL_FIRST_ERROR] = "first-error",
	[PASSES_UNTIL_PERCENT] = "percent",
	[PASSES_UNTIL_READ_ONLY] = "read-only",
};

/* The ends a state file keeps: the others leave the run to go on. */
static bool kept_end(enum passes_end end)
{
	return end == PASSES_GOING || end == PASSES_ALL_DONE ||
	       end == PASSES_UNTIL_REACHED || end == PASSES_READ_ONLY;
}

/* ---- writing ---- */

static void put_rate(FILE *f, double bps)
{
	if (isfinite(bps))
		fprintf(f, " %.17g", bps);
	else
		fputs(" -", f);
}

static void put_pass(FILE *f, const struct passes_pass *p)
{
	fprintf(f, "pass %" PRIu32 " %s", p->pass,
		passes_outcome_name(p->outcome));
	for (int i = 0; i < 3; i++)
		put_rate(f, p->write_bps[i]);
	for (int i = 0; i < 3; i++)
		put_rate(f, p->read_bps[i]);
	fprintf(f, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu32 "\n", p->bad_blocks, p->new_bad_blocks,
		p->total_bad_blocks, p->write_errors, p->read_errors,
		p->new_ranges, p->bytes_written, p->bytes_read,
		p->device_time_ns, p->wall_ns, p->slices_stamped);
}

static void put_head(FILE *f, const struct passes_run *run)
{
	enum passes_end end = kept_end(run->ended) ? run->ended : PASSES_GOING;

	fprintf(f, MAGIC "\nidentity %s\nsize_bytes %" PRIu64 "\n"
		"block_bytes %" PRIu32 "\nrange %" PRIu64 " %" PRIu64 "\n"
		"seed %" PRIu64 "\npasses %" PRIu64 "\nuntil %s %.17g\n"
		"windows %" PRIu32 "\nend %s\nmilestones", run->identity,
		run->size_bytes, run->block_bytes, run->start, run->end,
		run->seed, run->passes, until_names[run->until],
		run->until_fraction, run->window_count,
		passes_end_name(end));
	for (int m = 0; m < PASSES_MILESTONES; m++)
		fprintf(f, " %" PRIu32, run->milestone[m]);
	fputc('\n', f);
}

static void put_current(FILE *f, const struct passes_run *run)
{
	if (!run->current)
		return;
	fprintf(f, "current %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 "\n", run->current, run->stamped,
		run->carried_device_ns, run->carried_wall_ns,
		run->carried_written, run->carried_read);
	for (uint32_t i = 0; i < run->window_count; i++)
		if (run->window_write_ns[i])
			fprintf(f, "write_ns %" PRIu32 " %" PRIu64 "\n", i,
				run->window_write_ns[i]);
}

/* The whole file's text, in *text (free it); its length, or 0. */
static size_t state_text(const struct passes_run *run, char **text)
{
	size_t length = 0;
	FILE *f = open_memstream(text, &length);

	if (!f)
		return 0;
	put_head(f, run);
	for (size_t i = 0; i < run->done_count; i++)
		put_pass(f, &run->done[i]);
	for (size_t i = 0; i < run->range_count; i++)
		fprintf(f, "new %" PRIu32 " %d %" PRIu64 " %" PRIu64 "\n",
			run->ranges[i].pass, run->ranges[i].state,
			run->ranges[i].offset, run->ranges[i].length);
	for (size_t i = 0; i < run->bad_count; i++)
		fprintf(f, "bad %" PRIu64 " %" PRIu64 "\n", run->bad[i].offset,
			run->bad[i].length);
	put_current(f, run);
	fflush(f);
	fprintf(f, "sum %016" PRIx64 "\n",
		stamp_hash(STAMP_FNV_BASIS, *text, length));
	if (ferror(f) | fclose(f))
		return 0;
	return length;
}

int passes_state_write(const char *path, const struct passes_run *run,
		       const char **failed)
{
	char *text = NULL;
	size_t length = state_text(run, &text);
	int err;

	*failed = "write";
	if (!length) {
		free(text);
		return -ENOMEM;
	}
	err = undo_write_whole(path, text, length, failed);
	free(text);
	return err;
}

/* ---- reading ---- */

/* A line cut into words: words[0] its key. */
struct line {
	char *words[MAX_WORDS];
	unsigned count;
	char rest[PASSES_IDENTITY_BYTES];	/* after the key, as it is */
	unsigned number;		/* from 1, for messages */
};

struct reader {
	struct passes_run *run;
	char *why;
	size_t size;
	bool have[8];			/* the head's lines, each once */
};

static int damaged(struct reader *rd, const struct line *l,
		   const char *what)
{
	snprintf(rd->why, rd->size, "damaged: line %u: %s", l->number, what);
	return -EBADMSG;
}

static bool word_u64(const char *word, uint64_t *value)
{
	char *end;

	if (!word || word[0] < '0' || word[0] > '9')
		return false;
	errno = 0;
	*value = strtoull(word, &end, 10);
	return !*end && errno == 0;
}

static bool word_u32(const char *word, uint32_t *value)
{
	uint64_t v;

	if (!word_u64(word, &v) || v > UINT32_MAX)
		return false;
	*value = (uint32_t)v;
	return true;
}

static bool word_rate(const char *word, double *value)
{
	char *end;

	if (word && !strcmp(word, "-")) {
		*value = NAN;
		return true;
	}
	if (!word || !word[0])
		return false;
	*value = strtod(word, &end);
	return !*end && isfinite(*value) && *value >= 0;
}

static int name_index(const char *const *names, size_t count,
		      const char *word)
{
	for (size_t i = 0; word && i < count; i++)
		if (names[i] && !strcmp(names[i], word))
			return (int)i;
	return -1;
}

#define NAME_INDEX(names, word) \
	name_index(names, sizeof(names) / sizeof(names[0]), word)

/* The end a name gives, of those a state file keeps; -1: none. */
static int end_index(const char *word)
{
	for (int e = 0; word && e < PASSES_END_COUNT; e++)
		if (kept_end((enum passes_end)e) &&
		    !strcmp(passes_end_name((enum passes_end)e), word))
			return e;
	return -1;
}

static int outcome_index(const char *word)
{
	for (int o = 0; word && o < PASSES_OUTCOME_COUNT; o++)
		if (!strcmp(passes_outcome_name((enum passes_outcome)o), word))
			return o;
	return -1;
}

static int read_until(struct reader *rd, const struct line *l)
{
	struct passes_run *run = rd->run;
	int until = NAME_INDEX(until_names, l->words[1]);
	char *end = NULL;

	if (l->count != 3 || until < 0)
		return damaged(rd, l, "until");
	run->until = (enum passes_until)until;
	run->until_fraction = strtod(l->words[2], &end);
	if (*end || !(run->until_fraction >= 0 && run->until_fraction <= 1))
		return damaged(rd, l, "until");
	return 0;
}

static int read_milestones(struct reader *rd, const struct line *l)
{
	if (l->count != 1 + PASSES_MILESTONES)
		return damaged(rd, l, "milestones");
	for (int m = 0; m < PASSES_MILESTONES; m++)
		if (!word_u32(l->words[1 + m], &rd->run->milestone[m]))
			return damaged(rd, l, "milestones");
	return 0;
}

/* A line of the head: the run's own figures, each once. */
static int read_head(struct reader *rd, const struct line *l, int key)
{
	struct passes_run *run = rd->run;
	int end;

	if (rd->have[key])
		return damaged(rd, l, "a line given twice");
	rd->have[key] = true;
	switch (key) {
	case 0:
		snprintf(run->identity, sizeof(run->identity), "%s", l->rest);
		return 0;
	case 1:
		return l->count == 2 && word_u64(l->words[1], &run->size_bytes) ?
		       0 : damaged(rd, l, "size_bytes");
	case 2:
		return l->count == 2 && word_u32(l->words[1],
						 &run->block_bytes) &&
		       run->block_bytes ? 0 : damaged(rd, l, "block_bytes");
	case 3:
		return l->count == 3 && word_u64(l->words[1], &run->start) &&
		       word_u64(l->words[2], &run->end) ? 0 :
		       damaged(rd, l, "range");
	case 4:
		return l->count == 2 && word_u64(l->words[1], &run->seed) ?
		       0 : damaged(rd, l, "seed");
	case 5:
		return l->count == 2 && word_u64(l->words[1], &run->passes) &&
		       run->passes <= PASSES_MAX ? 0 : damaged(rd, l, "passes");
	case 6:
		return l->count == 2 && word_u32(l->words[1],
						 &run->window_count) ? 0 :
		       damaged(rd, l, "windows");
	default:
		end = end_index(l->words[1]);
		if (l->count != 2 || end < 0)
			return damaged(rd, l, "end");
		run->ended = (enum passes_end)end;
		return 0;
	}
}

static int read_pass(struct reader *rd, const struct line *l)
{
	struct passes_run *run = rd->run;
	struct passes_pass p = { 0 };
	uint64_t *counts[] = { &p.bad_blocks, &p.new_bad_blocks,
		&p.total_bad_blocks, &p.write_errors, &p.read_errors,
		&p.new_ranges, &p.bytes_written, &p.bytes_read,
		&p.device_time_ns, &p.wall_ns };
	int outcome = outcome_index(l->words[2]);
	bool ok = l->count == 20 && word_u32(l->words[1], &p.pass) &&
		  outcome >= 0 && word_u32(l->words[19], &p.slices_stamped);

	for (int i = 0; ok && i < 3; i++)
		ok = word_rate(l->words[3 + i], &p.write_bps[i]) &&
		     word_rate(l->words[6 + i], &p.read_bps[i]);
	for (int i = 0; ok && i < 10; i++)
		ok = word_u64(l->words[9 + i], counts[i]);
	if (!ok || p.pass != run->done_count + 1)
		return damaged(rd, l, "a pass");
	p.outcome = (enum passes_outcome)outcome;
	if (grow_array((void **)&run->done, &run->done_cap,
		       run->done_count + 1, sizeof(*run->done)))
		return -ENOMEM;
	run->done[run->done_count++] = p;
	return 0;
}

static int read_range(struct reader *rd, const struct line *l)
{
	struct passes_run *run = rd->run;
	struct passes_range g;
	uint64_t state;

	if (l->count != 5 || !word_u32(l->words[1], &g.pass) ||
	    !word_u64(l->words[2], &state) || state > SURFACE_OLD_DATA ||
	    !word_u64(l->words[3], &g.offset) ||
	    !word_u64(l->words[4], &g.length) || !g.pass ||
	    g.pass > run->done_count)
		return damaged(rd, l, "a new bad range");
	g.state = (int)state;
	if (grow_array((void **)&run->ranges, &run->range_cap,
		       run->range_count + 1, sizeof(*run->ranges)))
		return -ENOMEM;
	run->ranges[run->range_count++] = g;
	return 0;
}

static int read_bad(struct reader *rd, const struct line *l)
{
	struct passes_run *run = rd->run;
	struct passes_extent e;
	const struct passes_extent *last = run->bad_count ?
					   &run->bad[run->bad_count - 1] : NULL;

	if (l->count != 3 || !word_u64(l->words[1], &e.offset) ||
	    !word_u64(l->words[2], &e.length) || !e.length ||
	    e.offset < run->start || e.length > run->end - e.offset ||
	    (last && e.offset <= last->offset + last->length))
		return damaged(rd, l, "a bad range");
	if (grow_array((void **)&run->bad, &run->bad_cap, run->bad_count + 1,
		       sizeof(*run->bad)))
		return -ENOMEM;
	run->bad[run->bad_count++] = e;
	run->bad_blocks += e.length / run->block_bytes;
	return 0;
}

static int read_current(struct reader *rd, const struct line *l)
{
	struct passes_run *run = rd->run;

	if (l->count != 7 || run->current ||
	    !word_u32(l->words[1], &run->current) ||
	    !word_u32(l->words[2], &run->stamped) ||
	    !word_u64(l->words[3], &run->carried_device_ns) ||
	    !word_u64(l->words[4], &run->carried_wall_ns) ||
	    !word_u64(l->words[5], &run->carried_written) ||
	    !word_u64(l->words[6], &run->carried_read) ||
	    run->current != run->done_count + 1 ||
	    run->stamped > passes_slices(run))
		return damaged(rd, l, "the pass in progress");
	return 0;
}

static int read_write_ns(struct reader *rd, const struct line *l)
{
	struct passes_run *run = rd->run;
	uint32_t index;
	uint64_t ns;

	if (l->count != 3 || !run->current ||
	    !word_u32(l->words[1], &index) || !word_u64(l->words[2], &ns) ||
	    index >= run->window_count)
		return damaged(rd, l, "a window's write time");
	run->window_write_ns[index] = ns;
	return 0;
}

static const char *const head_keys[] = {
	"identity", "size_bytes", "block_bytes", "range", "seed", "passes",
	"windows", "end",
};

/* The head is whole and fits: then the windows' times have room. */
static int check_head(struct reader *rd, const struct line *l)
{
	struct passes_run *run = rd->run;

	for (size_t k = 0; k < sizeof(head_keys) / sizeof(head_keys[0]); k++)
		if (!rd->have[k])
			return damaged(rd, l, "the run's head is not whole");
	if (run->start >= run->end || run->end > run->size_bytes ||
	    run->start % run->block_bytes || run->end % run->block_bytes ||
	    run->window_count != surface_window_count(run->end - run->start,
						      run->block_bytes))
		return damaged(rd, l, "the range does not fit the device");
	if (!run->window_write_ns) {
		run->window_write_ns = calloc(run->window_count,
					      sizeof(uint64_t));
		if (!run->window_write_ns)
			return -ENOMEM;
	}
	return 0;
}

static int read_line(struct reader *rd, struct line *l)
{
	int key = NAME_INDEX(head_keys, l->words[0]);
	int err;

	if (!strcmp(l->words[0], "until"))
		return read_until(rd, l);
	if (!strcmp(l->words[0], "milestones"))
		return read_milestones(rd, l);
	if (key >= 0)
		return read_head(rd, l, key);
	err = check_head(rd, l);
	if (err)
		return err;
	if (!strcmp(l->words[0], "pass"))
		return read_pass(rd, l);
	if (!strcmp(l->words[0], "new"))
		return read_range(rd, l);
	if (!strcmp(l->words[0], "bad"))
		return read_bad(rd, l);
	if (!strcmp(l->words[0], "current"))
		return read_current(rd, l);
	if (!strcmp(l->words[0], "write_ns"))
		return read_write_ns(rd, l);
	return damaged(rd, l, "an unknown line");
}

/* Cut text (one line, its newline gone) into words in place. */
static void split(char *text, struct line *l)
{
	const char *space = strchr(text, ' ');

	l->count = 0;
	snprintf(l->rest, sizeof(l->rest), "%s", space ? space + 1 : "");
	for (char *w = strtok(text, " "); w && l->count < MAX_WORDS;
	     w = strtok(NULL, " "))
		l->words[l->count++] = w;
}

/* The text's checksum line, checked and cut off; false: damaged. */
static bool check_sum(char *text, size_t length)
{
	char *last;
	uint64_t sum;

	if (length < 2 || text[length - 1] != '\n')
		return false;
	text[length - 1] = '\0';
	last = strrchr(text, '\n');
	if (!last || strncmp(last + 1, "sum ", 4) ||
	    strlen(last + 5) != 16)
		return false;
	sum = strtoull(last + 5, NULL, 16);
	last[1] = '\0';
	return sum == stamp_hash(STAMP_FNV_BASIS, text,
				 (size_t)(last + 1 - text));
}

static int parse(struct reader *rd, char *text)
{
	struct line l = { .number = 1 };
	char *next;
	int err = 0;

	next = strchr(text, '\n');
	*next = '\0';
	if (strcmp(text, MAGIC))
		return damaged(rd, &l, "not a flashbench --passes state file");
	for (text = next + 1; !err && *text; text = next + 1) {
		next = strchr(text, '\n');
		*next = '\0';
		l.number++;
		split(text, &l);
		err = l.count ? read_line(rd, &l) : damaged(rd, &l, "empty");
	}
	if (!err)
		err = check_head(rd, &l);
	return err;
}

int passes_state_read(int fd, struct passes_run *run, char *why,
		      size_t size)
{
	struct reader rd = { .run = run, .why = why, .size = size };
	int copy = dup(fd);
	FILE *f = copy >= 0 ? fdopen(copy, "r") : NULL;
	char *text = NULL;
	size_t length = 0;
	int err;

	memset(run, 0, sizeof(*run));
	if (!f) {
		if (copy >= 0)
			close(copy);
		snprintf(why, size, "%s", strerror(errno));
		return -EIO;
	}
	err = readfile_stream(f, PASSES_STATE_MAX_BYTES, &text, &length);
	fclose(f);
	if (err) {
		snprintf(why, size, "%s", strerror(-err));
		free(text);
		return err == -ENOMEM ? err : -EIO;
	}
	err = check_sum(text, length) ? parse(&rd, text) :
	      (snprintf(why, size, "damaged: its checksum does not match "
			"(cut short or changed)"), -EBADMSG);
	free(text);
	if (err)
		passes_run_free(run);
	return err;
}
