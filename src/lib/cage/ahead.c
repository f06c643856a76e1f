/* Work begun ahead of the cage (see ahead.h). */
#include "ahead.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

#include "host/host.h"
#include "discover/root_private.h"

static pthread_mutex_t ahead_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t ahead_thread;
static bool ahead_started;

static void *ahead_work(void *unused)
{
	(void)unused;
	/* A root caller's part first: on tier T2 its walk is the longest. */
	root_private_prepare();
	host_facts_get();
	return NULL;
}

PROCAGE_API void procage_prepare_ahead(void)
{
	sigset_t all, saved;
	pthread_mutex_lock(&ahead_lock);
	if (!ahead_started) {
		/* The caller's signal handlers stay on the caller's threads. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &saved);
		ahead_started = pthread_create(&ahead_thread, NULL, ahead_work, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
	}
	pthread_mutex_unlock(&ahead_lock);
}

void ahead_join(void)
{
	pthread_mutex_lock(&ahead_lock);
	if (ahead_started) {
		pthread_join(ahead_thread, NULL);
		ahead_started = false;
	}
	pthread_mutex_unlock(&ahead_lock);
}
