/*
 * ahead: a second thread for the CPU work beside a transfer.  While the
 * caller waits on the device (a write of stamps, a read), the thread
 * makes the next buffer of stamps or classifies the last one read, so
 * the CPU and the device no longer take turns.  One job at a time; a
 * job never touches the device.
 */
#ifndef FLASHBENCH_VM_AHEAD_H
#define FLASHBENCH_VM_AHEAD_H

struct ahead;

/* The thread, or NULL when none can be started (then work inline). */
struct ahead *ahead_new(void);

/* Wait for the job in hand, then stop the thread and free it. */
void ahead_free(struct ahead *a);

/* Wait for the job in hand, then hand over fn(arg); arg must live until
   the next ahead_wait. */
void ahead_give(struct ahead *a, void (*fn)(void *arg), void *arg);

/* Return once no job is in hand. */
void ahead_wait(struct ahead *a);

#endif
