/* Tier T1: the child's user, mount and network namespaces. */
#ifndef PROCAGE_NAMESPACES_H
#define PROCAGE_NAMESPACES_H

#include "plan.h"

/* Parent side: map the caller's uid and gid to themselves. */
void namespaces_id_maps_format(struct plan_id_maps *maps);

/* Child side, system calls only: deny setgroups, write the id maps. */
int namespaces_id_maps_write(const struct plan_id_maps *maps);

/*
 * Child side, system calls only: make every mount private, then apply the
 * plan's mounts in order. *index names the mount that failed.
 */
int namespaces_mounts_apply(const struct plan *plan, int *index);

#endif
