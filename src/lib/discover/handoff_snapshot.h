/*
 * The end-of-run trust-handoff report's snapshot of a cage's discovery:
 * what the cage found (repositories.h), kept for the report of its first
 * run, which then need not walk the trees again before the run. Valid for
 * the trees and home it was found with, and only until a run of the cage
 * starts (spawn marks it taken): a run may change what a later walk finds.
 */
#ifndef PROCAGE_HANDOFF_SNAPSHOT_H
#define PROCAGE_HANDOFF_SNAPSHOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "repositories.h"

struct handoff_snapshot {
	atomic_bool taken;
	char **trees; /* canonical writable trees, as given to repositories_find */
	size_t n_trees;
	char *home; /* or NULL */
	struct repositories found;
};

/* A snapshot of *found (moved into it, *found left empty), or NULL: out of memory. */
struct handoff_snapshot *handoff_snapshot_make(const char *const *trees, size_t n_trees,
					       const char *home, struct repositories *found);
void handoff_snapshot_free(struct handoff_snapshot *s);

/* From now on a run of the cage may change the trees: the snapshot is stale. */
static inline void handoff_snapshot_stale(struct handoff_snapshot *s)
{
	if (s)
		atomic_store(&s->taken, true);
}

#endif
