/* Kernel facts, measured once, and the tier they give. */
#ifndef PROCAGE_HOST_H
#define PROCAGE_HOST_H

#include "procage.h"

/* The facts of this process's host; measured at the first call. */
const struct procage_host_facts *host_facts_get(void);
/*
 * The same with the cgroup subtree measured too (at the first call): in
 * host_facts_get's the cgroup fields are zero.
 */
const struct procage_host_facts *host_facts_with_cgroup(void);
/* Reap the host probe's child if it is gone (host.c); never waits. */
void host_probe_reap(void);

#endif
