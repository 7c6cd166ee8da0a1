/*
 * powercutlog: the power-cut test's log - written event by event as the
 * run goes, each event only once it completed, and read back (replayed)
 * into the same state the run kept.  One event a line, every line ending
 * in its checksum: a torn last line is ignored, a bad line before it is
 * damage.  doc/power-cut.md holds the format.  Where the log may live
 * and who may have written it is the mode's to check (the undo file's
 * rules), before it hands a descriptor here.
 */
#ifndef FLASHBENCH_POWERCUTLOG_H
#define FLASHBENCH_POWERCUTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/powercut.h"
#include "measure/powercutstate.h"

/* The header's first word and the format's version. */
#define POWERCUT_LOG_MAGIC "flashbench-power-cut"
#define POWERCUT_LOG_VERSION 1
/* The longest line a log holds, its newline included. */
#define POWERCUT_LOG_LINE_BYTES 2048

struct powercut_log;

/*
 * A log on fd (a file opened for writing, or standard output; fd is
 * duplicated, so the caller still closes its own), its header written
 * for run and synced.  NULL with why set ("log: reason") when it cannot
 * be (errno kept).
 */
struct powercut_log *powercut_log_open(int fd, const struct powercut_run *run,
				       char *why, size_t why_size);

/*
 * One line per event, as powercutstate.h's events: the write lines are
 * only buffered (no system call, nothing that takes time to format
 * inside a timed write beyond a short snprintf); a flush, cut, verify
 * or settled line pushes every line before it out and syncs the file
 * (fsync, where the log is a file).  0, or a negative errno: the log
 * could not be written.
 */
int powercut_log_old(struct powercut_log *log);
int powercut_log_cycle(struct powercut_log *log, uint32_t cycle,
		       uint32_t first_seq);
int powercut_log_write(struct powercut_log *log, uint32_t seq,
		       uint64_t offset, uint64_t length, uint64_t t_ns);
int powercut_log_flush(struct powercut_log *log, uint32_t seq,
		       uint64_t t_ns);
int powercut_log_cut(struct powercut_log *log, const struct powercut_cut *cut);
int powercut_log_verify(struct powercut_log *log,
			const struct powercut_cycle *c);
int powercut_log_settled(struct powercut_log *log, uint32_t cycle,
			 uint64_t rewritten_units);

/* Push out and sync what is left, and close: 0, or a negative errno. */
int powercut_log_close(struct powercut_log *log);

/* What a replay refuses a log for, when the caller knows it. */
struct powercut_expect {
	const char *identity;		/* the device's now; NULL: any */
	uint64_t salt;			/* 0: any */
};

/* A log read back. */
struct powercut_replay {
	struct powercut_run run;	/* its header */
	struct powercut_state state;	/* every event applied: the state
					   at the end of the log */
	struct powercut_cycle *verified;/* its verify lines' counts, in
					   order (no examples) */
	size_t verified_n;
	unsigned lines;			/* good lines read */
	bool torn_tail;			/* a torn last line was ignored */
};

/*
 * Read the log on fd (opened by the caller, trusted as an undo file is)
 * from its start into *out.  Every line's checksum is checked; a bad last line is
 * ignored (torn_tail), a bad line before it refused.  0; -EBADMSG with
 * why set ("line N: ...") for a damaged or malformed log; -EXDEV with
 * why set for a log of another device or run than expect says; -ENOMEM;
 * another negative errno when fd cannot be read.  On success free with
 * powercut_replay_free.
 */
int powercut_log_replay(int fd, const struct powercut_expect *expect,
			struct powercut_replay *out, char *why,
			size_t why_size);
void powercut_replay_free(struct powercut_replay *r);

#endif
