/* Work begun ahead of the cage (see ahead.h). */
#include "ahead.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "base/home.h"
#include "discover/root_private.h"
#include "host/host.h"
#include "paths.h"
#include "policy/classes_prepared.h"

static pthread_mutex_t ahead_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t ahead_thread, classes_thread;
static bool ahead_started, classes_started;

static void *ahead_root_private(void *unused)
{
	(void)unused;
	root_private_prepare();
	return NULL;
}

/*
 * The classes' rows under the home and the runtime directory the cage
 * will most likely be given ($HOME's, which the default policy takes);
 * a cage given others walks its own (classes_prepared.c).
 */
static void *ahead_classes(void *unused)
{
	(void)unused;
	char runtime[64];
	struct homes homes;
	homes_find(&homes, NULL);
	classes_prepare(homes.n ? homes.path[0] : NULL,
			paths_runtime_directory(runtime, sizeof runtime));
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
	if (!ahead_started && !classes_started) {
		/* The caller's signal handlers stay on the caller's threads. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &saved);
		ahead_started = pthread_create(&ahead_thread, NULL, ahead_work, NULL) == 0;
		/*
		 * Before the thread: a cage made once it has begun waits for
		 * its walk (the first thing the cage needs, so a thread of its
		 * own, not one begun by the other).
		 */
		classes_prepare_announce();
		classes_started = pthread_create(&classes_thread, NULL, ahead_classes, NULL) == 0;
		if (!classes_started)
			classes_prepare_cancel();
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
	if (classes_started) {
		pthread_join(classes_thread, NULL);
		classes_started = false;
	}
	pthread_mutex_unlock(&ahead_lock);
}
