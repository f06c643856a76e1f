/* Tier T2: grants entry by entry around denied paths. */
#ifndef PROCAGE_ENTRY_GRANTS_H
#define PROCAGE_ENTRY_GRANTS_H

#include "broker_zones.h"
#include "paths.h"

/*
 * Landlock only adds rights down a tree, so a denial inside a grant is
 * enforced by granting each entry around it instead of the tree: *out gets
 * the grants that give the same access everywhere except at the denials.
 * A directory holding a hidden path below gets no rule itself (it cannot be
 * listed); one holding only read-only paths below is granted reading (no
 * new entries can be made in it). Entries made later are not granted.
 * zones (when not NULL) gets the directories of write grants so narrowed,
 * with the names the denials below them start with: the broker's zones.
 */
int entry_grants_expand(const struct cage_paths *paths, const struct cage_path *examined,
			size_t n_examined, struct cage_path **out, size_t *n_out,
			struct broker_zones *zones, struct procage_error *err);

#endif
