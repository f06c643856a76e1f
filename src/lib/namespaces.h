/* Tier T1: the run's user, mount, network and PID namespaces. */
#ifndef PROCAGE_NAMESPACES_H
#define PROCAGE_NAMESPACES_H

#include <stdint.h>

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
/* The same in two parts, for a /proc of the run's own between them. */
int namespaces_mounts_private(void);
int namespaces_masks_apply(const struct plan *plan, int *index);

/*
 * Child side, system calls only (T1): in a mount namespace of its own,
 * every mount read-only but the plan's writable trees. *index names the
 * writable tree that failed, or is -1.
 */
int namespaces_read_only_apply(const struct plan *plan, int *index);

/*
 * Child side, in its own network namespace: loopback up, and a listening
 * TCP socket on 127.0.0.1:port returned (or a negative errno).
 */
int namespaces_proxy_listener(uint16_t port);

#endif
