/* Memory and process limits of a whole run through cgroup v2 (cgroup.c). */
#ifndef PROCAGE_CGROUP_H
#define PROCAGE_CGROUP_H

#include <stdint.h>

#include "procage.h"

/* Find the delegated subtree runs' cgroups go in: the cgroup_* host facts. */
void cgroup_measure(struct procage_host_facts *facts);

/*
 * Make a run's cgroup under facts->cgroup_base with these limits (0: none),
 * and open its cgroup.procs for the target to join. *dir is allocated.
 */
int cgroup_create(const struct procage_host_facts *facts, uint64_t memory, uint64_t pids,
		  char **dir, int *procs_fd, struct procage_error *err);
/* Remove a run's cgroup once every process of it has ended. */
void cgroup_remove(const char *dir);

#endif
