/*
 * The simulated card behind the dev ops table, reached as "sim:SPEC":
 * each operation checked, then passed to the card's power (power.c: on
 * or off, its volatile cache), which keeps or reads back the data in the
 * fake store (fake.c, with a fake key, a power-fault key or wear= only)
 * and times it by the model (model.c) on a virtual clock; queue=
 * overlaps operations in flight.  With wear= each write first wears the
 * erase blocks it lands on, and may fail there (wear.c).  Also what the front end may ask of an open card
 * (engines/sim.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "engines/sim.h"
#include "engines/sim/card.h"
#include "engines/sim/fake.h"
#include "engines/sim/model.h"
#include "engines/sim/power.h"
#include "engines/sim/presets.h"
#include "engines/sim/spec.h"
#include "engines/sim/wear.h"

static int sim_read(struct dev *dev, void *buf, uint64_t offset,
		    uint64_t length, uint64_t *ns)
{
	struct sim_state *s = dev->backend;
	int err = sim_model_check_io(&s->p, offset, length);

	if (!err)
		err = sim_wear_alive(s);
	if (!err)
		err = sim_power_read(s, buf, offset, length, ns);
	if (!err)
		sim_wear_garble(s, buf, offset, length);
	return err;
}

static int sim_write(struct dev *dev, const void *buf, uint64_t offset,
		     uint64_t length, uint64_t *ns)
{
	struct sim_state *s = dev->backend;
	int err = sim_model_check_io(&s->p, offset, length);

	if (!err)
		err = sim_wear_write(s, offset, length);
	return err ? err : sim_power_write(s, buf, offset, length, ns);
}

/*
 * Can the card take stamps of the range without their bytes?  Its
 * blocks must be its sectors and a fake key keep its data; the write
 * cache (fake-cache=) keeps bytes, so it takes them the usual way, and
 * so does a card whose power can fail (or has), through its power.
 */
static bool stamps_kept(const struct dev *dev, const struct sim_state *s)
{
	return s->fake && sim_fake_takes_stamps(s->fake) &&
	       dev->logical_block_bytes == SIM_SECTOR && sim_power_plain(s);
}

static int sim_stamp(struct dev *dev, uint64_t offset, uint64_t length,
		     uint64_t salt, uint64_t *ns)
{
	struct sim_state *s = dev->backend;
	int err;

	if (!stamps_kept(dev, s))
		return -EOPNOTSUPP;
	err = sim_model_check_io(&s->p, offset, length);
	if (!err)
		err = sim_wear_write(s, offset, length);
	if (!err)
		err = sim_fake_stamp(s->fake, offset, length, salt);
	if (err)
		return err;
	*ns = sim_model_write(s, offset, length);
	return 0;
}

static int sim_verify_stamps(struct dev *dev, uint64_t offset,
			     uint64_t length, uint64_t salt, uint64_t *ns)
{
	struct sim_state *s = dev->backend;

	if (!stamps_kept(dev, s) || sim_model_check_io(&s->p, offset, length) ||
	    sim_wear_alive(s) || !sim_wear_clean(s, offset, length) ||
	    !sim_fake_stamped(s->fake, offset, length, salt))
		return 0;
	*ns = sim_model_read(s, offset, length);
	return 1;
}

/*
 * Whole erase blocks in the range return to the erased state (closed, at
 * no cost); partial ones are left alone.  Costs one write-lat.  A range
 * touching a bad= range fails with -EIO, like reads and writes.  The data
 * a fake key keeps itself stays; a caller's store is punched.
 */
static int sim_discard(struct dev *dev, uint64_t offset, uint64_t length,
		       uint64_t *ns)
{
	struct sim_state *s = dev->backend;
	int err = sim_model_check_io(&s->p, offset, length);

	if (!err)
		err = sim_wear_writable(s);
	return err ? err : sim_power_discard(s, offset, length, ns);
}

/* The card's power (power.c): flush=, a cut, power on again. */
static int sim_flush(struct dev *dev, uint64_t *ns)
{
	int err = sim_wear_alive(dev->backend);

	return err ? err : sim_power_flush(dev->backend, ns);
}

static int sim_power_cut_op(struct dev *dev, uint64_t after_ns)
{
	return sim_power_cut(dev->backend, after_ns);
}

static int sim_power_on_op(struct dev *dev)
{
	return sim_power_on(dev->backend);
}

static int sim_open(struct dev *dev, const char *spec, enum dev_mode mode)
{
	char *msg = dev->error.message;
	size_t size = sizeof(dev->error.message);
	struct sim_params p;
	struct sim_state *s;
	int err = sim_spec_parse(spec, &p, msg, size);

	if (err == -ENOMEM)
		snprintf(msg, size, "sim: out of memory");
	if (err == -EINVAL)
		dev->error.usage = true;
	/* every message of the card's begins "sim: ", its name for itself */
	if (err && msg[0])
		dev->error.what_at = sizeof("sim: ") - 1;
	if (err)
		return err;
	if (p.ro && mode == DEV_READ_WRITE) {
		snprintf(msg, size, "sim: card is write-protected");
		dev->error.what_at = sizeof("sim: ") - 1;
		return -EROFS;
	}
	s = sim_model_new(&p);
	if (!s)
		return -ENOMEM;
	if (sim_fake_open(&p, &s->fake) || sim_power_open(&p, &s->power) ||
	    sim_wear_open(&p, &s->wear)) {
		sim_fake_close(s->fake);
		sim_power_close(s->power);
		sim_model_free(s);
		return -ENOMEM;
	}
	if (s->wear)	/* a wearing card keeps its data: s->fake is there */
		sim_fake_garbled_by(s->fake, sim_wear_garbled_bytes, s->wear);
	dev->backend = s;
	dev->size_bytes = p.size_bytes;
	dev->logical_block_bytes = SIM_SECTOR;
	if (s->fake)	/* a fake card holds its real blocks' bytes */
		dev->caps |= DEV_CAP_KEEPS_DATA;
	dev->fd = -1;
	return 0;
}

static void sim_close(struct dev *dev)
{
	struct sim_state *s = dev->backend;

	if (s) {
		sim_fake_close(s->fake);
		sim_power_close(s->power);
		sim_wear_close(s->wear);
	}
	sim_model_free(s);
	dev->backend = NULL;
	free(dev->async);
	dev->async = NULL;
}

/* --- queue=: operations in flight overlap --------------------------- */

/*
 * The card serves up to queue= operations at once, each taking the time
 * the single-operation model gives it, in submission order on the first
 * free one of min(depth, queue) lanes.  The host keeps depth in flight:
 * operation i is submitted when operation i - depth completes.  So at
 * depth d <= queue, d equal operations take the time of one; beyond
 * queue the extra ones wait in the card and go no faster.  Times are the
 * model's, relative to the batch's first submission.
 */
struct sim_queue {
	uint64_t lane_free_ns[DEV_MAX_DEPTH];
	uint64_t window_ns[DEV_MAX_DEPTH];	/* by i % depth: when the
						   slot op i took frees */
};

static int sim_async_setup(struct dev *dev, unsigned depth,
			   enum dev_engine forced)
{
	(void)forced;			/* the card has one engine: itself */
	if (!dev->async)
		dev->async = calloc(1, sizeof(struct sim_queue));
	if (!dev->async)
		return -ENOMEM;
	dev->depth = depth;
	dev->engine = DEV_ENGINE_SIM;
	return 0;
}

static unsigned sim_lanes(const struct sim_state *s, unsigned depth)
{
	uint64_t queue = s->p.queue ? s->p.queue : 1;

	return queue < depth ? (unsigned)queue : depth;
}

static unsigned first_free_lane(const struct sim_queue *q, unsigned lanes)
{
	unsigned best = 0;

	for (unsigned i = 1; i < lanes; i++)
		if (q->lane_free_ns[i] < q->lane_free_ns[best])
			best = i;
	return best;
}

/* One operation's service time from the single-operation model. */
static int sim_service(struct dev *dev, enum dev_io_kind kind,
		       const struct dev_io *io, uint64_t *ns)
{
	return kind == DEV_IO_WRITE ?
	       sim_write(dev, io->buf, io->offset, io->length, ns) :
	       sim_read(dev, io->buf, io->offset, io->length, ns);
}

static int sim_batch(struct dev *dev, struct dev_batch *b)
{
	struct sim_queue *q = dev->async;
	unsigned lanes = sim_lanes(dev->backend, b->depth);
	uint64_t end_ns = 0;

	memset(q->lane_free_ns, 0, sizeof(q->lane_free_ns));
	for (unsigned i = 0; i < b->count; i++) {
		struct dev_io *io = &b->ios[i];
		uint64_t submit_ns = i < b->depth ? 0 :
				     q->window_ns[i % b->depth];
		uint64_t service_ns, start_ns;
		unsigned lane;
		int err;

		if (i && (submit_ns >= b->budget_ns || (b->stop && *b->stop)))
			break;
		err = sim_service(dev, b->kind, io, &service_ns);
		b->done = i + 1;
		if (err) {
			io->ns = DEV_IO_NO_TIME;
			b->failed = i;
			b->elapsed_ns = end_ns;
			return err;
		}
		lane = first_free_lane(q, lanes);
		start_ns = q->lane_free_ns[lane] > submit_ns ?
			   q->lane_free_ns[lane] : submit_ns;
		q->lane_free_ns[lane] = start_ns + service_ns;
		q->window_ns[i % b->depth] = start_ns + service_ns;
		io->ns = start_ns + service_ns - submit_ns;
		if (start_ns + service_ns > end_ns)
			end_ns = start_ns + service_ns;
	}
	b->elapsed_ns = end_ns;
	return 0;
}

const struct dev_ops dev_sim_ops = {
	.name = "sim",
	.caps = DEV_CAP_MODEL_TIME,
	.open = sim_open,
	.read = sim_read,
	.write = sim_write,
	.discard = sim_discard,
	.close = sim_close,
	.async_setup = sim_async_setup,
	.batch = sim_batch,
	.stamp = sim_stamp,
	.verify_stamps = sim_verify_stamps,
	.flush = sim_flush,
	.power_cut = sim_power_cut_op,
	.power_on = sim_power_on_op,
};

/* --- for the front end ---------------------------------------------- */

int sim_geometry(const struct dev *dev, struct sim_geometry *g)
{
	const struct sim_state *s = dev->backend;

	if (dev->ops != &dev_sim_ops || !s)
		return -EINVAL;
	*g = (struct sim_geometry){
		.size_bytes = s->p.size_bytes,
		.erase_bytes = s->p.erase_bytes,
		.page_bytes = s->p.page_bytes,
		.prog_bytes = s->p.prog_bytes,
		.open = (uint32_t)s->p.open,
		.open_random = (uint32_t)s->p.open_random,
		.fat = (uint32_t)s->p.fat,
	};
	return 0;
}

/* Does a write where a fake puts it land on the flash? */
static bool fate_keeps(enum sim_fake_fate fate)
{
	return fate == SIM_FAKE_REAL || fate == SIM_FAKE_ALIASED;
}

int sim_wear_block(const struct dev *dev, uint64_t offset,
		   struct sim_wear_block *out)
{
	const struct sim_state *s = dev->backend;
	uint64_t real;

	if (dev->ops != &dev_sim_ops || !s || !s->wear)
		return -EINVAL;
	if (offset >= s->p.size_bytes ||
	    !fate_keeps(sim_fake_place(s->fake, offset, &real)))
		return -ERANGE;
	return sim_wear_at(s->wear, real, out);
}

int sim_stats(const struct dev *dev, struct sim_stats *out)
{
	const struct sim_state *s = dev->backend;

	if (dev->ops != &dev_sim_ops || !s)
		return -EINVAL;
	*out = s->stats;
	if (s->fake)
		sim_fake_held(s->fake, out);
	sim_wear_stats(s->wear, out);
	/* the volatile cache is the card's RAM, as fake-cache= is */
	out->held_bytes += sim_power_held(s->power);
	return 0;
}

int sim_idle(struct dev *dev, uint64_t ns)
{
	struct sim_state *s = dev->backend;

	if (dev->ops != &dev_sim_ops || !s)
		return -EINVAL;
	sim_model_idle(s, ns);
	return 0;
}

const char *sim_preset(size_t i, const char **description)
{
	const struct sim_preset *preset = sim_preset_at(i);

	if (!preset)
		return NULL;
	if (description)
		*description = preset->description;
	return preset->name;
}

int sim_list_presets(FILE *out)
{
	const struct sim_preset *preset;

	for (size_t i = 0; (preset = sim_preset_at(i)); i++)
		fprintf(out, "  %-15s %s\n", preset->name,
			preset->description);
	return 0;
}

enum sim_fake_fate sim_fake_resolve(const struct dev *dev, uint64_t offset,
				    uint64_t *real_offset)
{
	const struct sim_state *s = dev->backend;

	if (dev->ops != &dev_sim_ops || !s || !s->fake) {
		*real_offset = offset;
		return SIM_FAKE_REAL;
	}
	return sim_fake_place(s->fake, offset, real_offset);
}

bool sim_keeps_data(const struct dev *dev)
{
	const struct sim_state *s = dev->backend;

	return dev->ops == &dev_sim_ops && s && s->fake;
}

int sim_keep_data_in(struct dev *dev, const struct sim_data_ops *ops,
		     void *ctx)
{
	struct sim_state *s = dev->backend;

	if (!sim_keeps_data(dev))
		return -EINVAL;
	sim_fake_keep_in(s->fake, ops, ctx);
	return 0;
}
