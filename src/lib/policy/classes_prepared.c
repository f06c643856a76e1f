/*
 * The classes' rows walked ahead of the cage (cage/ahead.c), on a thread
 * of their own while the command reads its options and policy: some three
 * hundred lookups the cage then finds done. The walk is the one
 * classes_expand makes, for every class (the waivers are the caller's and
 * are applied when the cage takes it), and it is taken only for the same
 * home, runtime directory and environment: otherwise the cage walks as
 * before. It is one view of the tree taken moments before the cage's own
 * would have been, as the canonical memo's is.
 *
 * The walk is made in units (classes_find_unit) that the thread and the
 * cage share: a cage that arrives while it is under way takes the units
 * left instead of waiting for them, and waits only for those in hand.
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
	bool pending;   /* announced: a walk is coming */
	bool published; /* under way or done: units, home, runtime_dir and env are set */
	char *home, *runtime_dir, *env;
	struct class_finds *units; /* one per unit, in order */
	size_t n_units, next, in_hand;
	int rc;
} prepared = { .lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER };

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

/* Drop what was published; the lock is held. */
static void prepared_clear(void)
{
	for (size_t i = 0; i < prepared.n_units; i++)
		class_finds_free(&prepared.units[i]);
	free(prepared.units);
	free(prepared.home);
	free(prepared.runtime_dir);
	free(prepared.env);
	prepared.units = NULL;
	prepared.home = prepared.runtime_dir = prepared.env = NULL;
	prepared.n_units = prepared.next = prepared.in_hand = 0;
	prepared.rc = 0;
	prepared.published = false;
}

/*
 * Walk the units no one has taken, one at a time, until none is left;
 * the lock is held on entry and on return. Each unit is walked under
 * this thread's canonical memo.
 */
static void units_walk(void)
{
	canonical_memo_begin();
	while (prepared.rc == 0 && prepared.next < prepared.n_units) {
		size_t unit = prepared.next++;
		prepared.in_hand++;
		const char *home = prepared.home, *runtime_dir = prepared.runtime_dir;
		struct class_finds *slot = &prepared.units[unit];
		pthread_mutex_unlock(&prepared.lock);
		int rc = classes_find_unit(unit, 0, home, runtime_dir, slot);
		pthread_mutex_lock(&prepared.lock);
		if (rc < 0 && prepared.rc == 0)
			prepared.rc = rc;
		if (--prepared.in_hand == 0 && (prepared.rc < 0 || prepared.next == prepared.n_units))
			pthread_cond_broadcast(&prepared.done);
	}
	canonical_memo_end();
}

void classes_prepare_announce(void)
{
	pthread_mutex_lock(&prepared.lock);
	prepared.pending = true;
	pthread_mutex_unlock(&prepared.lock);
}

void classes_prepare(const char *home, const char *runtime_dir)
{
	bool failed = false;
	char *env = classes_env_signature();
	char *home_copy = dup_or_null(home, &failed);
	char *runtime_copy = dup_or_null(runtime_dir, &failed);
	size_t n = classes_unit_count();
	struct class_finds *units = calloc(n, sizeof *units);
	pthread_mutex_lock(&prepared.lock);
	/* A cage that came first walked itself: nothing is left to do. */
	if (prepared.pending && env && !failed && units) {
		prepared_clear();
		prepared.home = home_copy;
		prepared.runtime_dir = runtime_copy;
		prepared.env = env;
		prepared.units = units;
		prepared.n_units = n;
		prepared.published = true;
		home_copy = runtime_copy = env = NULL;
		units = NULL;
	}
	prepared.pending = false;
	if (prepared.published)
		units_walk();
	pthread_cond_broadcast(&prepared.done);
	pthread_mutex_unlock(&prepared.lock);
	free(units);
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

/* The published walk's units, merged in order into out; the lock is held. */
static int units_gather(struct class_finds *out)
{
	int rc = prepared.rc;
	for (size_t i = 0; rc == 0 && i < prepared.n_units; i++)
		rc = class_finds_append(out, &prepared.units[i]);
	return rc;
}

bool classes_prepared_take(const char *home, const char *runtime_dir, struct class_finds *out)
{
	char *env = classes_env_signature();
	pthread_mutex_lock(&prepared.lock);
	/*
	 * A walk announced whose thread has not begun (a thread started on
	 * an idle processor may begin a millisecond or two later) is called
	 * off, and the cage walks itself.
	 */
	prepared.pending = false;
	bool same = prepared.published && env && same_text(env, prepared.env) &&
		    same_text(home, prepared.home) && same_text(runtime_dir, prepared.runtime_dir);
	int rc = -1;
	if (same) {
		units_walk(); /* the units left, beside the thread */
		while (prepared.in_hand > 0)
			pthread_cond_wait(&prepared.done, &prepared.lock);
		rc = units_gather(out);
	} else {
		/* Taken once whatever it was: a walk in hand elsewhere ends on its own. */
		while (prepared.in_hand > 0)
			pthread_cond_wait(&prepared.done, &prepared.lock);
	}
	prepared_clear();
	pthread_mutex_unlock(&prepared.lock);
	free(env);
	if (rc != 0) {
		class_finds_free(out);
		return false;
	}
	return true;
}
