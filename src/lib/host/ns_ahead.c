/* The namespaces made ahead of a spawn (ns_ahead.h). */
#include "ns_ahead.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "ns_holder.h"

/* Written before the thread starts, read without the lock: a process forked
 * since sees another pid and never waits on a thread it does not have. */
static pid_t maker_process;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t maker;
static bool making; /* the thread is started and not yet joined */
static struct {
	int userns_fd, netns_fd;
	struct id_maps maps;
} made = { -1, -1, { "", "", 0, 0 } };

static void *pair_make(void *unused)
{
	(void)unused;
	struct id_maps maps;
	struct ns_holder holder;
	int userns = -1, netns = -1;
	id_maps_own(&maps);
	if (ns_holder_start(CLONE_NEWUSER | CLONE_NEWNET, &holder) < 0)
		return NULL;
	/* From outside, as the reaper writes its own from inside. */
	if (id_maps_write(&maps, holder.pid) == 0) {
		userns = ns_holder_open(&holder, "user");
		netns = ns_holder_open(&holder, "net");
	}
	ns_holder_end(&holder);
	pthread_mutex_lock(&lock);
	if (userns >= 0 && netns >= 0 && made.userns_fd < 0) {
		made.userns_fd = userns;
		made.netns_fd = netns;
		made.maps = maps;
		userns = netns = -1;
	}
	pthread_mutex_unlock(&lock);
	if (userns >= 0)
		close(userns);
	if (netns >= 0)
		close(netns);
	return NULL;
}

void ns_ahead_begin(void)
{
	sigset_t all, saved;
	pthread_mutex_lock(&lock);
	if (!making && made.userns_fd < 0) {
		maker_process = getpid();
		/* The caller's handlers stay on its threads; the holder inherits none. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &saved);
		making = pthread_create(&maker, NULL, pair_make, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
	}
	pthread_mutex_unlock(&lock);
}

/* Wait for the maker, if it runs; false in a process forked since. */
static bool maker_join(void)
{
	if (maker_process != getpid())
		return false;
	pthread_mutex_lock(&lock);
	/* The maker publishes under the lock: it is waited for without it. */
	bool join = making;
	pthread_t thread = maker;
	making = false;
	pthread_mutex_unlock(&lock);
	if (join)
		pthread_join(thread, NULL);
	return true;
}

bool ns_ahead_ready(void)
{
	if (!maker_join())
		return false;
	pthread_mutex_lock(&lock);
	bool ready = made.userns_fd >= 0;
	pthread_mutex_unlock(&lock);
	return ready;
}

bool ns_ahead_take(const struct id_maps *maps, struct ns_ahead_pair *pair)
{
	bool taken = false;
	if (!maker_join())
		return false;
	pthread_mutex_lock(&lock);
	if (made.userns_fd >= 0) {
		taken = !maps || (strcmp(made.maps.uid_map, maps->uid_map) == 0 &&
				  strcmp(made.maps.gid_map, maps->gid_map) == 0);
		if (taken) {
			pair->userns_fd = made.userns_fd;
			pair->netns_fd = made.netns_fd;
		} else {
			close(made.userns_fd);
			close(made.netns_fd);
		}
		made.userns_fd = made.netns_fd = -1;
	}
	pthread_mutex_unlock(&lock);
	return taken;
}

void ns_ahead_drop(void)
{
	struct ns_ahead_pair pair;
	if (ns_ahead_take(NULL, &pair)) {
		close(pair.userns_fd);
		close(pair.netns_fd);
	}
}
