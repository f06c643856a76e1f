/*
 * The classes' rows walked ahead of the cage (cage/ahead.c), on a thread
 * of their own while the command reads its options and policy: some three
 * hundred lookups the cage then finds done. The walk is the one
 * classes_expand makes, for every class (the waivers are the caller's and
 * are applied when the cage takes it), and it is taken only for the same
 * home, runtime directory and environment: otherwise the cage walks as
 * before. It is one view of the tree taken moments before the cage's own
 * would have been, as the canonical memo's is.
 */
#include "classes_prepared.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/canonical.h"
#include "classes_finds.h"

static struct {
	pthread_mutex_t lock;
	pthread_cond_t done;
	bool pending; /* announced: a walk is coming */
	bool started; /* and under way: a cage waits for it */
	bool ready;
	char *home, *runtime_dir, *env;
	struct class_finds found;
} prepared = {.lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static bool same_text(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

static char *dup_or_null(const char *text, bool *failed)
{
	char *copy = text ? strdup(text) : NULL;
	*failed |= text && !copy;
	return copy;
}

void classes_prepare_announce(void)
{
	pthread_mutex_lock(&prepared.lock);
	prepared.pending = true;
	pthread_mutex_unlock(&prepared.lock);
}

void classes_prepare(const char *home, const char *runtime_dir)
{
	/* A cage that came first walked itself: nothing is left to do. */
	pthread_mutex_lock(&prepared.lock);
	bool wanted = prepared.pending;
	prepared.started = wanted;
	pthread_mutex_unlock(&prepared.lock);
	if (!wanted)
		return;
	struct class_finds found = {0};
	bool failed = false;
	char *env = classes_env_signature();
	char *home_copy = dup_or_null(home, &failed);
	char *runtime_copy = dup_or_null(runtime_dir, &failed);
	if (env && !failed) {
		canonical_memo_begin();
		failed = classes_find_all(0, home, runtime_dir, &found) < 0;
		canonical_memo_end();
	}
	pthread_mutex_lock(&prepared.lock);
	if (env && !failed && !prepared.ready) {
		prepared.home = home_copy;
		prepared.runtime_dir = runtime_copy;
		prepared.env = env;
		prepared.found = found;
		prepared.ready = true;
		home_copy = runtime_copy = env = NULL;
		found = (struct class_finds){0};
	}
	prepared.pending = prepared.started = false;
	pthread_cond_broadcast(&prepared.done);
	pthread_mutex_unlock(&prepared.lock);
	class_finds_free(&found);
	free(env);
	free(home_copy);
	free(runtime_copy);
}

void classes_prepare_cancel(void)
{
	pthread_mutex_lock(&prepared.lock);
	prepared.pending = false;
	pthread_cond_broadcast(&prepared.done);
	pthread_mutex_unlock(&prepared.lock);
}

bool classes_prepared_take(const char *home, const char *runtime_dir, struct class_finds *out)
{
	pthread_mutex_lock(&prepared.lock);
	/*
	 * A walk under way is waited for: it is further along than a new one.
	 * One whose thread has not begun (a thread started on an idle
	 * processor may begin a millisecond or two later) is called off, and
	 * the cage walks itself.
	 */
	if (prepared.pending && !prepared.started)
		prepared.pending = false;
	while (prepared.pending)
		pthread_cond_wait(&prepared.done, &prepared.lock);
	bool ready = prepared.ready;
	char *taken_home = prepared.home, *taken_runtime = prepared.runtime_dir,
	     *taken_env = prepared.env;
	struct class_finds found = prepared.found;
	prepared.ready = false;
	prepared.home = prepared.runtime_dir = prepared.env = NULL;
	prepared.found = (struct class_finds){0};
	pthread_mutex_unlock(&prepared.lock);
	if (!ready)
		return false;
	char *env = classes_env_signature();
	bool same = env && same_text(env, taken_env) && same_text(home, taken_home) &&
		    same_text(runtime_dir, taken_runtime);
	if (same)
		*out = found;
	else
		class_finds_free(&found);
	free(env);
	free(taken_home);
	free(taken_runtime);
	free(taken_env);
	return same;
}
