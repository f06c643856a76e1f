/* Work begun ahead of the cage (see ahead.h). */
#include "ahead.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "host/host.h"
#include "discover/root_private.h"
#include "host/ns_ahead.h"

static pthread_mutex_t ahead_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t ahead_thread;
static bool ahead_started;

static void *ahead_root_private(void *unused)
{
	(void)unused;
	root_private_prepare();
	return NULL;
}

/*
 * The two parts side by side: each mostly waits on the kernel (a user
 * namespace made and torn down, a walk of /etc), and the cage needs both
 * at once (the /etc copy is chosen as the host's paths are resolved).
 */
static void *ahead_work(void *unused)
{
	(void)unused;
	pthread_t root_part;
	bool beside = geteuid() == 0 &&
		      pthread_create(&root_part, NULL, ahead_root_private, NULL) == 0;
	if (!beside)
		root_private_prepare(); /* nothing to do unless root; else here, first */
	host_facts_get();
	if (beside)
		pthread_join(root_part, NULL);
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
	/*
	 * The next spawn's user and network namespaces, on a thread of their
	 * own (the spawn waits for them, not the cage); one pair at most.
	 */
	ns_ahead_begin();
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
