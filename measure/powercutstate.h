/*
 * powercutstate: what the range should hold, event by event.  Per unit
 * the newest version written (a completed write's sequence number, 0 for
 * old data) and the newest acknowledged (covered by a completed flush);
 * per cycle its writes and flushes, and the write the cut tore.  The live
 * run and a log's replay feed it the same events, so both judge alike.
 * A few bytes per unit: a 64 MiB span is 16384 units.
 */
#ifndef FLASHBENCH_POWERCUTSTATE_H
#define FLASHBENCH_POWERCUTSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/powercut.h"

/* One completed write of the current cycle (or the one the cut tore). */
struct powercut_write {
	uint32_t seq;
	uint64_t offset_bytes;		/* on the device */
	uint64_t length_bytes;
	uint64_t t_ns;			/* completion, from the cycle's start */
};

/* One completed flush of the current cycle. */
struct powercut_flush {
	uint32_t seq;			/* the highest seq it covers */
	uint64_t t_ns;
};

/* The cut as the run saw it. */
struct powercut_cut {
	uint32_t cycle;
	uint64_t t_ns;			/* from the cycle's start */
	int errnum;			/* what showed it: EIO, ENODEV... */
	bool torn;			/* a write was in flight: */
	struct powercut_write write;	/* that write, t_ns its start */
};

/*
 * Where a run stands.  The mode reads the fields; only the functions
 * below change them.
 */
struct powercut_state {
	struct powercut_run run;
	size_t units;			/* span / unit_bytes */
	uint32_t *written;		/* per unit: newest completed seq */
	uint32_t *acked;		/* per unit: newest acknowledged seq */
	uint32_t *found;		/* per unit: the last verification's
					   seq read back (POWERCUT_SEQ_NONE:
					   anything else) - for settling */
	unsigned char *verdict;		/* per unit: the last verification's
					   class, or POWERCUT_CLASSES when the
					   unit holds its newest version */
	bool old_stamped;		/* the old data is there */
	uint32_t cycle;			/* the current cycle; 0 before one */
	uint32_t next_seq;		/* the next write's sequence number */
	uint32_t cycle_first_seq;	/* the current cycle's first */
	uint32_t flushed_seq;		/* covered by the latest flush */
	struct powercut_write *writes;	/* the current cycle's, by seq */
	size_t writes_n, writes_room;
	struct powercut_flush *flushes;	/* the current cycle's, in order */
	size_t flushes_n, flushes_room;
	bool cut_seen;			/* the current cycle was cut */
	struct powercut_cut cut;
	bool verified;			/* and verified */
	bool settled;			/* and settled */
	void *buf;			/* POWERCUT_CHUNK_BYTES, aligned for
					   direct I/O: verify's and settle's */
	/*
	 * Optional, set by the caller: told after each chunk that
	 * powercut_stamp_old, powercut_verify and powercut_settle
	 * (powercutcheck.h) move, done_bytes of total_bytes, for a
	 * progress line on a slow card.
	 */
	void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
	void *progress_ctx;
};

/*
 * A state for run (offset, span, unit and sector sizes already checked:
 * the span a whole number of units, units of whole sectors): every unit
 * old data not yet stamped.  0, or -ENOMEM; -EINVAL for a run that does
 * not hold together.
 */
int powercut_state_init(struct powercut_state *st,
			const struct powercut_run *run);
void powercut_state_free(struct powercut_state *st);

/* The unit holding byte offset (on the device) of the range. */
uint64_t powercut_unit_of(const struct powercut_state *st, uint64_t offset);

/* The old data was stamped, flushed and read back (every unit seq 0). */
void powercut_old(struct powercut_state *st);

/*
 * Cycle cycle begins (cycle numbers count up from 1) with first_seq as
 * its first write's sequence number (at least next_seq: a write the
 * previous cut tore may have used next_seq).  -EINVAL when the cycle
 * or seq runs backwards, or the previous cycle was cut but not settled.
 */
int powercut_cycle_begin(struct powercut_state *st, uint32_t cycle,
			 uint32_t first_seq);

/*
 * A write completed: seq (the next one, st->next_seq or above), its
 * range (unit-aligned, inside the span), its completion time.  0, -EINVAL
 * for a write out of order or out of the range, -ENOMEM.
 */
int powercut_wrote(struct powercut_state *st, uint32_t seq,
		   uint64_t offset, uint64_t length, uint64_t t_ns);

/*
 * A flush completed, covering every write up to seq: those units are
 * acknowledged.  0, -EINVAL for a seq beyond the writes or backwards,
 * -ENOMEM.
 */
int powercut_flushed(struct powercut_state *st, uint32_t seq, uint64_t t_ns);

/*
 * The cut: no write or flush completes after it in this cycle.  A torn
 * write's seq moves next_seq past it.  -EINVAL when the cycle is not
 * the current one or was already cut.
 */
int powercut_cut(struct powercut_state *st, const struct powercut_cut *cut);

/* The current cycle was verified (powercut_verify, or its log line). */
void powercut_mark_verified(struct powercut_state *st);

/*
 * The range was settled (powercut_settle, or its log line read back):
 * every unit holds its newest written version, acknowledged.
 */
void powercut_settled(struct powercut_state *st);

/* The current cycle's write seq, or NULL when it is not one of them. */
const struct powercut_write *powercut_write_of(const struct powercut_state *st,
					       uint32_t seq);

/*
 * The seq of the flush that acknowledged seq in the current cycle (the
 * first completed flush covering it); 0 when seq came before the cycle
 * (the settle's flush acknowledged it); POWERCUT_SEQ_NONE when no
 * flush covered it.
 */
uint32_t powercut_acked_by(const struct powercut_state *st, uint32_t seq);

/*
 * Do two states say the same?  (Replay's test: what the log rebuilt
 * against what the run kept.)  The last verification's scratch and the
 * buffer are not compared.
 */
bool powercut_state_equal(const struct powercut_state *a,
			  const struct powercut_state *b);

#endif
