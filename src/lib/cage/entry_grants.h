/* Grants entry by entry around denied paths (tier T2; on T1 around missing ones). */
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
 * A denial of a missing location narrows only write grants (it can be
 * made, not read). With masks_hold_existing (tier T1, where mounts hide
 * and protect what exists) only those narrow the grants, while every
 * denial below a zone still names one of its protected names.
 */
int entry_grants_expand(const struct cage_paths *paths, const struct cage_path *examined,
			size_t n_examined, bool masks_hold_existing, struct cage_path **out,
			size_t *n_out, struct broker_zones *zones, struct procage_error *err);

#endif
