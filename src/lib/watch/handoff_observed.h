/*
 * The git directories a run was seen making or writing where git runs or
 * reads (its hooks, its config, the directory itself), at any depth.
 *
 * Repository discovery is bounded (repositories.h): a repository deeper
 * than the bound is neither protected nor found by the end-of-run walk.
 * The observer (observe.c) sees every call of a run with explain on that
 * names a path, so it can see such writes where no walk reaches: each
 * change the rules let go by is handed here, and the git directory it
 * touches is kept, for the trust-handoff report to name the ones its walk
 * did not find (handoff.c).
 *
 * A git directory is one named ".git" (a work tree's, or a gitfile), or one
 * git would take for a store (HEAD, with objects and refs or a commondir).
 * What a rename moves is kept under both names, so that moving a
 * repository after writing it (or trying to) hides nothing. Bounded: past
 * HANDOFF_OBSERVED_KEPT git directories only a count of changes grows.
 */
#ifndef PROCAGE_HANDOFF_OBSERVED_H
#define PROCAGE_HANDOFF_OBSERVED_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cage/denials.h"

#define HANDOFF_OBSERVED_KEPT 32

struct handoff_observed {
	pthread_mutex_t lock;
	char *gitdirs[HANDOFF_OBSERVED_KEPT]; /* canonical */
	size_t n;
	uint64_t more; /* changes seen past the bound, in git directories not kept */
	/*
	 * Calls that may change a file which the supervisor could not look
	 * at: their process may not be read (made non-dumpable, or running
	 * a file it may not read; tier T2, a caller other than root).
	 */
	uint64_t unseen;
};

void handoff_observed_init(struct handoff_observed *o);
void handoff_observed_destroy(struct handoff_observed *o);
/*
 * op (DENIAL_CREATE or DENIAL_WRITE; others are ignored) on path
 * (absolute, canonical as far as it exists), which existed before the call
 * or not, was let go by the rules.
 */
void handoff_observed_change(struct handoff_observed *o, enum denial_op op, const char *path,
			     bool existed);
/* A call that may change a file was let go by unseen (its process could not be read). */
void handoff_observed_unseen(struct handoff_observed *o);
/* A rename of from to to was let go by: what is kept below from is kept below to too. */
void handoff_observed_rename(struct handoff_observed *o, const char *from, const char *to);
/*
 * The git directories kept, copied: a NULL-terminated list in *out
 * (procage_strings_free), the count not kept in *more and the unseen
 * calls in *unseen. -ENOMEM.
 */
int handoff_observed_list(struct handoff_observed *o, char ***out, uint64_t *more,
			  uint64_t *unseen);

#endif
