/* A cage: a policy checked against the host, ready to spawn. */
#ifndef PROCAGE_CAGE_H
#define PROCAGE_CAGE_H

#include <linux/filter.h>

#include "landlock.h"
#include "paths.h"
#include "policy.h"

struct procage_cage {
	struct procage_policy *policy; /* the cage's own copy */
	int tier;
	struct landlock_config landlock;
	struct landlock_grant *grants; /* paths resolved and pinned at cage time */
	size_t n_grants;
	struct cage_path *denials; /* T1: masked at spawn; ancestors first */
	size_t n_denials;
	struct sock_fprog seccomp;
	char *tmp_base; /* where private temporary directories are made, or NULL */
};

#endif
