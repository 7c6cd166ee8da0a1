/*
 * unit-passes: the endurance passes' draws and state file.  Each pass
 * stamps its slices in a shuffle of them that another pass or seed
 * changes and the same seed repeats, under a salt of its own; the state
 * file reads back what was written, bit for bit, and refuses one that
 * is cut short or changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "measure/passes.h"
#include "measure/passesstate.h"
#include "unit.h"

#define SLICES 16

static int is_shuffle(const uint32_t *order, uint32_t count)
{
	unsigned char seen[SLICES] = { 0 };
	int in_order = 1;

	for (uint32_t i = 0; i < count; i++) {
		if (order[i] >= count || seen[order[i]])
			return 0;
		seen[order[i]] = 1;
		in_order &= order[i] == i;
	}
	return !in_order;
}

static void check_order(void)
{
	uint32_t a[SLICES], b[SLICES], c[SLICES], d[SLICES];

	passes_order(7, 1, a, SLICES);
	passes_order(7, 2, b, SLICES);
	passes_order(8, 1, c, SLICES);
	passes_order(7, 1, d, SLICES);
	UNIT_CHECK(is_shuffle(a, SLICES) && is_shuffle(b, SLICES) &&
		   is_shuffle(c, SLICES), "each pass's order is a shuffle of "
		   "its slices");
	UNIT_CHECK(memcmp(a, b, sizeof(a)) && memcmp(a, c, sizeof(a)),
		   "the next pass, or another seed, stamps in another order");
	UNIT_CHECK(!memcmp(a, d, sizeof(a)), "the same seed and pass repeat "
		   "the order");
	UNIT_CHECK(passes_salt(7, 1) != passes_salt(7, 2) &&
		   passes_salt(7, 1) != passes_salt(8, 1) &&
		   passes_salt(7, 1) == passes_salt(7, 1) &&
		   passes_salt(0, 0) != 0, "each pass's stamps have a salt "
		   "of their own, never 0");
}

/* A run with a pass done, a new bad range, and one in progress. */
static int make_run(struct passes_run *run)
{
	struct dev dev = { .size_bytes = 64ULL << 20,
			   .logical_block_bytes = 512 };
	int err = passes_run_init(run, &dev, "file:/tmp/a card", 0,
				  64ULL << 20, 42);

	if (err)
		return err;
	run->passes = 9;
	run->until = PASSES_UNTIL_PERCENT;
	run->until_fraction = 0.015;
	run->done = calloc(1, sizeof(*run->done));
	run->ranges = calloc(1, sizeof(*run->ranges));
	run->bad = calloc(1, sizeof(*run->bad));
	if (!run->done || !run->ranges || !run->bad)
		return -ENOMEM;
	run->done[0] = (struct passes_pass){ .pass = 1,
		.outcome = PASSES_ERRORS,
		.write_bps = { 1.0 / 3, 10e6, NAN }, .read_bps = { 2, 3, 4 },
		.bad_blocks = 8, .new_bad_blocks = 8, .total_bad_blocks = 8,
		.new_ranges = 1, .bytes_written = 1 << 20, .wall_ns = 5 };
	run->done_count = run->done_cap = 1;
	run->ranges[0] = (struct passes_range){ 1, 4, 4096, 4096 };
	run->range_count = run->range_cap = 1;
	run->bad[0] = (struct passes_extent){ 4096, 4096 };
	run->bad_count = run->bad_cap = 1;
	run->bad_blocks = 8;
	run->milestone[PASSES_AT_FIRST_ERROR] = 1;
	run->current = 2;
	run->stamped = 3;
	run->window_write_ns[5] = 123456789;
	run->carried_device_ns = 99;
	return 0;
}

static int same_run(const struct passes_run *a, const struct passes_run *b)
{
	return !strcmp(a->identity, b->identity) && a->seed == b->seed &&
	       a->passes == b->passes && a->until == b->until &&
	       a->until_fraction == b->until_fraction &&
	       a->done_count == 1 && b->done_count == 1 &&
	       a->done[0].write_bps[0] == b->done[0].write_bps[0] &&
	       isnan(b->done[0].write_bps[2]) &&
	       a->done[0].new_bad_blocks == b->done[0].new_bad_blocks &&
	       b->range_count == 1 && b->ranges[0].offset == 4096 &&
	       b->ranges[0].state == 4 && b->bad_count == 1 &&
	       b->bad_blocks == 8 && b->milestone[0] == 1 &&
	       b->current == 2 && b->stamped == 3 &&
	       b->window_write_ns[5] == 123456789 &&
	       b->carried_device_ns == 99;
}

/* Read path back into run; its error. */
static int read_back(const char *path, struct passes_run *run, char *why,
		     size_t size)
{
	int fd = open(path, O_RDONLY), err;

	if (fd < 0)
		return -errno;
	err = passes_state_read(fd, run, why, size);
	close(fd);
	return err;
}

/* The file at path with its byte at offset changed (or cut there). */
static void spoil(const char *path, long offset, int cut)
{
	FILE *f = fopen(path, "r+");
	int c;

	if (!f)
		return;
	if (cut) {
		fclose(f);
		truncate(path, offset);
		return;
	}
	fseek(f, offset, SEEK_SET);
	c = fgetc(f);
	fseek(f, offset, SEEK_SET);
	fputc(c == '1' ? '2' : '1', f);
	fclose(f);
}

static void check_state(void)
{
	char path[] = "/tmp/unit-passes.XXXXXX", why[256] = "";
	struct passes_run run, back;
	const char *failed;
	int fd = mkstemp(path);

	if (fd >= 0)
		close(fd);
	UNIT_CHECK(make_run(&run) == 0 &&
		   passes_state_write(path, &run, &failed) == 0,
		   "a run's state is written");
	UNIT_CHECK(read_back(path, &back, why, sizeof(why)) == 0 &&
		   same_run(&run, &back), "and read back as it was: %s", why);
	passes_run_free(&back);
	spoil(path, 60, 0);
	UNIT_CHECK(read_back(path, &back, why, sizeof(why)) == -EBADMSG &&
		   strstr(why, "checksum"), "a changed byte is refused: %s",
		   why);
	passes_state_write(path, &run, &failed);
	spoil(path, 200, 1);
	UNIT_CHECK(read_back(path, &back, why, sizeof(why)) == -EBADMSG,
		   "a file cut short is refused: %s", why);
	passes_run_free(&run);
	unlink(path);
}

int main(void)
{
	check_order();
	check_state();
	return UNIT_DONE();
}
