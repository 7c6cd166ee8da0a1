/*
 * powercut: what the power-cut test's core shares - the run (what its
 * log's header names), the classes a unit can fall in after a cut, and
 * one cycle's result.  The stamps (powercutstamp.c), the expected state
 * (powercutstate.c), the verification and settling (powercutcheck.c) and
 * the log (powercutlog.c) each have their own header; this one holds
 * only types.  doc/power-cut.md tells the classes and the log's format.
 */
#ifndef FLASHBENCH_POWERCUT_H
#define FLASHBENCH_POWERCUT_H

#include <stdbool.h>
#include <stdint.h>

/* The workload writes whole units, each unit_bytes long and aligned. */
#define POWERCUT_UNIT_BYTES 4096u
/* A stamp covers 512 bytes, or the logical block when that is larger. */
#define POWERCUT_SECTOR_BYTES 512u
/* Verifying and settling read and write in pieces of this size. */
#define POWERCUT_CHUNK_BYTES (1024u * 1024u)
/* Examples kept per class and cycle. */
#define POWERCUT_EXAMPLES 5
/* An identity string's room, the NUL included (devname.h's is smaller). */
#define POWERCUT_IDENTITY_BYTES 512
/* A time or distance nobody can know: no write of the cycle names it. */
#define POWERCUT_UNKNOWN UINT64_MAX

/*
 * One run, as its log's header says it: every stamp carries the salt,
 * so a stamp of another run reads as damaged.  Sequence number 0 is the
 * old data; the workload's writes count from 1, across every cycle.
 */
struct powercut_run {
	uint64_t salt;			/* random per run */
	uint64_t seed;			/* the workload's and the cut's */
	uint64_t device_bytes;		/* the device's size at the start */
	uint64_t offset_bytes;		/* the range: unit-aligned */
	uint64_t span_bytes;		/* a multiple of unit_bytes */
	uint32_t sector_bytes;		/* a stamp's size */
	uint32_t unit_bytes;		/* a multiple of sector_bytes */
	char identity[POWERCUT_IDENTITY_BYTES];	/* devname's identity
					   string, or "" when nothing
					   identifies the device */
};

/*
 * What a unit can be found to be after a cut.  The faults first, in the
 * precedence that gives a unit exactly one class; then what a cut may
 * do without any fault.
 */
enum powercut_class {
	POWERCUT_FLYING,	/* a sector holds this run's stamp naming
				   another offset: a write landed here */
	POWERCUT_SHORN,		/* some sectors hold the unit's newest
				   version, others do not */
	POWERCUT_UNSERIALIZABLE,/* an acknowledged version lost while a
				   write after its flush survived */
	POWERCUT_ACK_LOST,	/* an acknowledged version lost: an older
				   one reads back */
	POWERCUT_OLD_DAMAGED,	/* durable before the cut, now neither its
				   version nor an older one */
	POWERCUT_UNREADABLE,	/* a read error */
	POWERCUT_FAULTS,	/* (the number of fault classes) */
	POWERCUT_UNFLUSHED_LOST = POWERCUT_FAULTS, /* not acknowledged and
				   lost: expected, no fault */
	POWERCUT_CLASSES
};

/* One unit of a class, for the report. */
struct powercut_example {
	uint64_t offset_bytes;		/* the unit's offset on the device */
	uint32_t seq;			/* the version it should hold (for
					   flying: the stamp's) */
	uint32_t found_seq;		/* the version it holds, or
					   POWERCUT_SEQ_NONE */
	uint64_t before_cut_ns;		/* how long before the cut that
					   version's write completed, or
					   POWERCUT_UNKNOWN */
	uint64_t distance_bytes;	/* old data damaged: to the nearest
					   write in flight, else
					   POWERCUT_UNKNOWN */
	uint64_t named_bytes;		/* flying: the offset the stamp names */
};

/* A found_seq when no sector of the unit holds a stamp of this run. */
#define POWERCUT_SEQ_NONE UINT32_MAX

/*
 * One cycle's verification: counts in units, up to POWERCUT_EXAMPLES
 * examples per class (the first found, by offset).  The mode fills
 * read_only and dead itself (only it sees how the device came back).
 */
struct powercut_cycle {
	uint32_t cycle;			/* 1, 2, ... */
	uint64_t cut_ns;		/* the cut, from the cycle's start */
	uint64_t units;			/* units read */
	uint64_t intact;		/* hold their newest logged version */
	uint64_t newer;			/* hold a version the log never
					   named complete (in flight) */
	uint64_t counts[POWERCUT_CLASSES];
	unsigned examples_n[POWERCUT_CLASSES];
	struct powercut_example examples[POWERCUT_CLASSES][POWERCUT_EXAMPLES];
	/* the longest time before the cut of an acknowledged write lost
	   (ack lost or unserializable) whose time is known, else
	   POWERCUT_UNKNOWN */
	uint64_t ack_lost_before_cut_ns;
	uint64_t capacity_bytes;	/* what the device says now */
	bool capacity_changed;		/* not the run's device_bytes */
	bool read_only;			/* came back read-only (the mode's) */
	bool dead;			/* did not come back (the mode's) */
};

#endif
