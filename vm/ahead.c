/*
 * ahead: one worker thread, one job slot, a mutex and a condition each
 * way.  Signals stay with the caller's thread: the worker blocks every
 * one (lib/exitcode.h's among them), so a signal sets its flag where
 * the run looks for it.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "vm/ahead.h"

struct ahead {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t given, finished;
	void (*fn)(void *arg);		/* the job in hand, or NULL */
	void *arg;
	bool quit;
};

static void *work(void *ctx)
{
	struct ahead *a = ctx;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->fn && !a->quit)
			pthread_cond_wait(&a->given, &a->lock);
		if (!a->fn)
			break;
		pthread_mutex_unlock(&a->lock);
		a->fn(a->arg);
		pthread_mutex_lock(&a->lock);
		a->fn = NULL;
		pthread_cond_signal(&a->finished);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

struct ahead *ahead_new(void)
{
	struct ahead *a = calloc(1, sizeof(*a));
	sigset_t all, old;
	int err;

	if (!a)
		return NULL;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->given, NULL);
	pthread_cond_init(&a->finished, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&a->thread, NULL, work, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&a->finished);
		pthread_cond_destroy(&a->given);
		pthread_mutex_destroy(&a->lock);
		free(a);
		return NULL;
	}
	return a;
}

void ahead_wait(struct ahead *a)
{
	pthread_mutex_lock(&a->lock);
	while (a->fn)
		pthread_cond_wait(&a->finished, &a->lock);
	pthread_mutex_unlock(&a->lock);
}

void ahead_give(struct ahead *a, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&a->lock);
	while (a->fn)
		pthread_cond_wait(&a->finished, &a->lock);
	a->fn = fn;
	a->arg = arg;
	pthread_cond_signal(&a->given);
	pthread_mutex_unlock(&a->lock);
}

void ahead_free(struct ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	while (a->fn)
		pthread_cond_wait(&a->finished, &a->lock);
	a->quit = true;
	pthread_cond_signal(&a->given);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->finished);
	pthread_cond_destroy(&a->given);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
