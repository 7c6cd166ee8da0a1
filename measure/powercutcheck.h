/*
 * powercutcheck: the power-cut test's I/O on the range - the old data
 * stamped and read back before the first cycle, the range read after a
 * cut and every unit classified (one class each, in powercut.h's
 * precedence), the range settled for the next cycle - and the sums over
 * cycles that the verdict line tells.  The device's announced range must
 * cover the run's (dev_allow_writes): nothing here writes outside it.
 */
#ifndef FLASHBENCH_POWERCUTCHECK_H
#define FLASHBENCH_POWERCUTCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "dev.h"
#include "measure/powercut.h"
#include "measure/powercutstate.h"

/*
 * Stamp the whole range as old data (seq 0, cycle 0), flush, read it
 * back: 0 and powercut_old(st) when every unit holds its stamp; the
 * number of units that do not (> 0: the device does not keep what is
 * written to it); a negative errno with dev->error set when an
 * operation failed.
 */
long long powercut_stamp_old(struct dev *dev, struct powercut_state *st);

/*
 * Read the range after the current cycle's cut and classify each unit
 * into *out (zeroed first; out->cycle, cut_ns, capacity_* filled here).
 * A read that fails with EIO, ENODATA or EILSEQ is retried unit by unit
 * and what still fails is unreadable; units past a shrunken device are
 * unreadable too.  0, or another negative errno (dev->error set): the
 * device went away.  Marks st->verified.
 */
int powercut_verify(struct dev *dev, struct powercut_state *st,
		    struct powercut_cycle *out);

/*
 * After powercut_verify: rewrite every unit that does not hold its
 * newest written version with that version's stamps (old data
 * re-stamped as seq 0 of this cycle), flush, and powercut_settled(st).
 * The number of units rewritten, or a negative errno with dev->error
 * set.
 */
long long powercut_settle(struct dev *dev, struct powercut_state *st);

/* Did the cycle show any fault (a fault class, capacity, read-only,
   dead)? */
bool powercut_cycle_faulty(const struct powercut_cycle *c);

/*
 * "flying", "shorn", "unserializable", "acknowledged-lost",
 * "old-damaged", "unreadable", "unflushed-lost": the log's and the
 * records' one name for each class.
 */
const char *powercut_class_name(enum powercut_class cls);

/* The class a name names, or POWERCUT_CLASSES. */
enum powercut_class powercut_class_named(const char *name);

/* Over all cycles: what the verdict line sums up. */
struct powercut_summary {
	uint32_t cycles;		/* verified */
	uint32_t with[POWERCUT_CLASSES]; /* cycles that showed each class */
	uint64_t counts[POWERCUT_CLASSES]; /* units, over all cycles */
	uint32_t ack_lost_cycles;	/* cycles with ACK_LOST or
					   UNSERIALIZABLE */
	uint64_t ack_lost_before_cut_ns; /* the longest, or
					    POWERCUT_UNKNOWN */
	uint32_t capacity_changed, read_only, dead; /* cycles */
	uint32_t faulty;		/* cycles with any fault */
};

void powercut_summary_init(struct powercut_summary *s);
void powercut_summary_add(struct powercut_summary *s,
			  const struct powercut_cycle *c);

#endif
