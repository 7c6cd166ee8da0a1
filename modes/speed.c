/*
 * speed: -t, --write-speed, --iops and --class-check, each a timed VM
 * program whose records measure/speed.c sums into rates, IOPS and SD
 * speed classes; the write tests write only above the write floor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "identity/hostq.h"
#include "identity/info.h"
#include "identity/infosysfs.h"
#include "lib/die.h"
#include "lib/lfsr.h"
#include "lib/units.h"
#include "measure/writerange.h"
#include "measure/speed.h"
#include "records/speed.h"
#include "modes/speed.h"
#include "modes/run.h"
#include "vm/compile.h"
#include "modes/sinks.h"

/* The speed tests' names in reports, by enum value. */
static const char *const speed_tests[] = {
	[SPEED_READ] = "read-speed", [SPEED_WRITE] = "write-speed",
	[SPEED_IOPS] = "iops", [SPEED_CLASS] = "class-check",
};

/*
 * The JSON parameters of a speed test: its options, as for every built-in
 * test, with the values the run used (-t's and --iops' own -b default,
 * the span that fit, the queue depth that ran).
 */
static void speed_params(struct config *cfg, uint64_t block, uint64_t span,
			 unsigned iodepth, struct render_meta *meta)
{
	size_t count;

	if (cfg->speed == SPEED_READ || cfg->speed == SPEED_IOPS)
		cfg->blocksize = block;
	if (cfg->speed != SPEED_READ)
		cfg->span = span;
	count = mode_set_option_json_params(cfg);
	/* what ran: at depth 1 when no engine could queue */
	for (size_t i = 0; i < count; i++)
		if (strcmp(cfg->json_params[i].name, "iodepth") == 0)
			cfg->json_params[i].value = iodepth;
	meta->params = cfg->json_params;
	meta->param_flags = cfg->json_flags;
	meta->param_count = count;
}

/* -t and --iops take -b, each with its own default; the rest erase blocks */
static uint64_t speed_block(const struct config *cfg)
{
	int test = cfg->speed == SPEED_READ ? 't' : OPT_IOPS;

	if (cfg->speed != SPEED_READ && cfg->speed != SPEED_IOPS)
		return cfg->erasesize;
	return mode_option_given(cfg, 'b') ? cfg->blocksize :
	       mode_option_default(test);
}

/* How many blocks of block_bytes a speed test walks from its offset. */
static uint64_t speed_slots(const struct config *cfg, const struct dev *dev,
			    uint64_t block, uint64_t start, uint64_t end)
{
	uint64_t slots;

	if (cfg->speed == SPEED_READ)
		return (dev->size_bytes - cfg->offset) / block;
	if (cfg->speed == SPEED_WRITE)
		return (end - start) / cfg->erasesize;
	/* random I/O: as many as an LFSR shuffle visits */
	slots = (end - start) / block;
	return slots > LFSR_MAX_SLOTS ? LFSR_MAX_SLOTS : slots;
}

/*
 * The Raspberry Pi test's file: its 256 MiB, or what the range holds
 * of whole 4 MiB blocks; its random I/O runs 10 s each, as the Pi's
 * does, or a shorter --time (a quick run stays quick).
 */
static uint64_t pi_file_bytes(uint64_t start, uint64_t end)
{
	uint64_t bytes = end - start < SPEED_PI_FILE_BYTES ? end - start :
			 SPEED_PI_FILE_BYTES;

	return bytes - bytes % SPEED_PI_BLOCK_BYTES;
}

uint64_t mode_pi_time_ns(const struct config *cfg)
{
	return mode_option_given(cfg, OPT_TIME) &&
	       cfg->time_ns < SPEED_PI_RANDOM_NS ? cfg->time_ns :
	       SPEED_PI_RANDOM_NS;
}

static void set_speed_params(struct config *cfg, const struct dev *dev,
			     struct program_params *params, uint64_t block,
			     uint64_t start, uint64_t end)
{
	struct vm_param *p = params->slot;

	mode_set_params(cfg, dev, params);
	p[PARAM_BLOCKSIZE].value = (double)block;
	p[PARAM_OFFSET].value = (double)(cfg->speed == SPEED_READ ?
					 cfg->offset : start);
	p[PARAM_SPAN].value = (double)(end - start);
	p[PARAM_TIME].value = (double)cfg->time_ns;
	p[PARAM_WINDOWS].value = (double)speed_windows(cfg->time_ns);
	p[PARAM_SLOTS].value = (double)speed_slots(cfg, dev, block, start,
						   end);
	p[PARAM_WRITES].value = !cfg->read_only;
	p[PARAM_PI_BYTES].value = (double)pi_file_bytes(start, end);
	p[PARAM_PI_TIME].value = (double)mode_pi_time_ns(cfg);
}

/* A speed program's run: its records go to speed.c, progress to sinks. */
struct speed_run {
	struct sinks *sinks;
	struct speed_results results;
	uint64_t max_chunks;		/* sequential writes, one pass */
	uint64_t span_bytes;		/* over the range they may write */
	uint64_t room_bytes;		/* from its start to the device end */
	uint64_t pi_file_bytes;		/* --class-check's Pi test */
};

static int collect_speed(void *ctx, const struct record *record)
{
	struct speed_run *run = ctx;

	return speed_collect(&run->results, record);
}

static void speed_progress(void *ctx, uint64_t done_ms, uint64_t total_ms)
{
	struct speed_run *run = ctx;

	mode_show_progress(run->sinks, done_ms, total_ms);
}

/* The test's records, from what the program measured. */
static int emit_speed(const struct config *cfg, struct speed_run *run,
		      uint64_t block, uint64_t failed_reads,
		      const struct info_card *card, bool host_node)
{
	struct speed_exec x = { .sink = { mode_emit_to_sinks, run->sinks },
				.failed_reads = failed_reads,
				.span_bytes = run->span_bytes,
				.room_bytes = run->room_bytes,
				.pi_file_bytes = run->pi_file_bytes,
				.pi_random_ns = mode_pi_time_ns(cfg) };
	const struct info_card *claimed = card && card->has_speed ? card :
					  NULL;
	struct hostq q;
	int err;

	/* a real device's results carry its host link */
	if (card && card->link.bus != LINK_BUS_NONE)
		x.link = &card->link;

	switch (cfg->speed) {
	case SPEED_READ:
		return speed_emit_rate(&x, &run->results, false, block);
	case SPEED_WRITE:
		return speed_emit_rate(&x, &run->results, true, block);
	case SPEED_IOPS:
		return speed_emit_iops(&x, &run->results);
	default:
		break;
	}
	err = speed_emit_classes(&x, &run->results, claimed);
	if (!err && host_node)
		hostq_read(cfg->device, cfg->sysfs_root, &q);
	if (!err)
		err = speed_emit_host_queue(&x, host_node ? &q : NULL);
	return err ? err : speed_emit_pi(&x, &run->results,
					 host_node ? &q : NULL);
}

/*
 * The usage checks, which exit before anything is allocated: the write
 * range [*start, *end) above the write floor, and the block size, which
 * is returned.
 */
static uint64_t speed_check(const struct config *cfg, const struct dev *dev,
			    uint64_t *start, uint64_t *end)
{
	char floor[UNITS_BUF];
	uint64_t block;

	mode_check_alignment(cfg, dev);
	if (cfg->speed != SPEED_READ &&
	    speed_write_range(dev, cfg->erasesize, cfg->span, start, end))
		usage_error("%s: no whole %llu-byte erase block fits above "
			    "%s on %s", cfg->test_option,
			    (unsigned long long)cfg->erasesize,
			    units_format_exact_size(floor,
						    MEASURE_WRITE_FLOOR_BYTES),
			    dev->path);
	block = speed_block(cfg);
	if (cfg->speed == SPEED_IOPS && block > *end - *start)
		usage_error("--iops: --blocksize %llu is larger than the %llu "
			    "bytes it may use on %s",
			    (unsigned long long)block,
			    (unsigned long long)(*end - *start), dev->path);
	if (cfg->speed == SPEED_READ &&
	    (cfg->offset >= dev->size_bytes ||
	     block > dev->size_bytes - cfg->offset))
		usage_error("%s: --offset %llu plus a %llu-byte block is past "
			    "the end of %s", cfg->test_option,
			    (unsigned long long)cfg->offset,
			    (unsigned long long)block, dev->path);
	return block;
}

/*
 * What sysfs says of the card, read before timing starts: its claims
 * and its host link.  NULL for a device sysfs does not know; free().
 */
static struct info_card *speed_read_card(const struct config *cfg,
					 const struct dev *dev)
{
	const struct info_device idev = { .path = cfg->device,
		.size_bytes = dev->size_bytes,
		.logical_block_bytes = dev->logical_block_bytes,
		.simulated = !dev_has(dev, DEV_CAP_HOST_NODE),
		.debugfs_root = cfg->debugfs_root };
	struct info_card *card = calloc(1, sizeof(*card));
	char why[MESSAGE_BYTES];

	if (!card)
		runtime_error("out of memory");
	if (!idev.simulated &&
	    info_read_card(&idev, cfg->sysfs_root, card, why,
			   sizeof(why)) == 0)
		return card;
	free(card);
	return NULL;
}

/* The timed part: the program's run, its records into run->results. */
static int speed_measure(const struct config *cfg, struct dev *dev,
			 const struct vm_program *program,
			 const struct vm_plan *plan, bool skips_bad,
			 struct speed_run *run, struct vm_exec *exec)
{
	int err;

	if (speed_results_init(&run->results, cfg->time_ns, run->max_chunks))
		runtime_error("out of memory");
	mode_prepare_timing(cfg);
	*exec = (struct vm_exec){ .dev = dev,
				  .sink = { collect_speed, run },
				  .on_progress = speed_progress, .ctx = run,
				  .stop = cfg->stop,
				  .skip_read_errors = skips_bad };
	err = vm_run(program, plan, exec);
	progress_end(&run->sinks->progress);
	speed_results_end(&run->results);
	speed_results_ran_at(&run->results, dev->depth);
	return err;
}

/* What the run's range holds: the chunks, the Pi test's file. */
static void size_run(const struct config *cfg, const struct dev *dev,
		     struct speed_run *run, uint64_t start, uint64_t end)
{
	run->span_bytes = end - start;
	run->room_bytes = dev->size_bytes - start;
	if (cfg->speed == SPEED_WRITE || cfg->speed == SPEED_CLASS)
		run->max_chunks = cfg->read_only ? 0 :
				  (end - start) / cfg->erasesize;
	if (cfg->speed == SPEED_CLASS)
		run->pi_file_bytes = pi_file_bytes(start, end);
}

/*
 * --write-speed's announcement ends with what the range means in
 * bytes: each block written at most once, until the rate settles after
 * a fall or --time ends.  NULL for the other tests.
 */
static const char *most_written(const struct config *cfg, uint64_t start,
				uint64_t end, char *buf, size_t size)
{
	char bytes[UNITS_BUF], time[UNITS_BUF];

	if (cfg->speed != SPEED_WRITE)
		return NULL;
	snprintf(buf, size, "at most %llu bytes (%s) of them, each once, in "
		 "at most %s of device time", (unsigned long long)(end - start),
		 units_format_exact_size(bytes, end - start),
		 units_format_time(time, (double)cfg->time_ns));
	return buf;
}

int mode_speed(struct config *cfg)
{
	/* the speed tests are built-in programs the mode chooses */
	const struct program_def *test = programs_find(speed_tests[cfg->speed]);
	struct render_meta meta = { .test = test->name };
	uint64_t start = 0, end = 0, block;
	struct program_params params;
	struct vm_program *program;
	struct info_card *card;
	struct speed_run run;
	char most[MESSAGE_BYTES];
	struct vm_exec exec;
	struct vm_plan plan;
	struct sinks sinks;
	struct dev dev;
	char *text;
	int err;

	/* plan on a read-only open: nothing can be written by mistake */
	mode_open_device(cfg, &dev, DEV_READ_ONLY);
	block = speed_check(cfg, &dev, &start, &end);
	set_speed_params(cfg, &dev, &params, cfg->speed == SPEED_CLASS ?
			 SPEED_IO_BYTES : block, start, end);
	program = mode_plan_program(cfg, test, &params, &dev,
				    cfg->test_option,
				    most_written(cfg, start, end, most,
						 sizeof(most)), &plan, &text);
	run = (struct speed_run){ .sinks = &sinks };
	size_run(cfg, &dev, &run, start, end);
	card = speed_read_card(cfg, &dev);
	if (cfg->speed == SPEED_CLASS) {
		/* JSON: "classes", keyed by class name, beside "results" */
		meta.index_member = "classes";
		meta.index_key = "class";
	}
	speed_params(cfg, block, end - start,
		     dev.depth < cfg->iodepth ? dev.depth : (unsigned)cfg->iodepth,
		     &meta);
	meta.engine = dev_engine_name(dev.engine);
	mode_output_open(cfg, &dev, &meta, &sinks);
	err = speed_measure(cfg, &dev, program, &plan, test->skips_bad, &run,
			    &exec);
	if (!err || err == -EINTR) {
		int emitted = emit_speed(cfg, &run, block, exec.failed_reads,
					 card, dev_has(&dev, DEV_CAP_HOST_NODE));

		if (emitted)
			err = emitted;
	}
	speed_results_free(&run.results);
	vm_free(program);
	free(card);
	mode_output_close(cfg, &sinks, &dev, err);
	if (exec.failed_reads)
		mode_report_skipped(meta.test, exec.failed_reads, exec.failed_reads,
			       &exec.first_failure);
	return mode_end_run(cfg, &dev, err, "interrupted; results are incomplete");
}
