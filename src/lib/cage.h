/* A cage: a policy checked against the host, ready to spawn. */
#ifndef PROCAGE_CAGE_H
#define PROCAGE_CAGE_H

#include <linux/filter.h>

#include "broker_zones.h"
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
	struct cage_path *sockets; /* T1: the Unix sockets left unmasked */
	size_t n_sockets;
	struct cage_path *examined; /* hidden and protected locations, for the hard-link check */
	size_t n_examined;
	struct sock_fprog seccomp;
	struct sock_fprog seccomp_unbrokered; /* the same without the broker (exec mode) */
	/* T2: where the supervisor makes the cage's new entries (broker_zones.h). */
	struct broker_zones zones;
	char *tmp_base; /* where private temporary directories are made, or NULL */
	struct allowlist *allowlist; /* network proxy: the hosts the run's proxy allows */
	struct cage_fix *fix; /* while the cage is made: what would make it enforceable */
};

/* How fit can make a refused policy enforceable on this host. */
enum cage_fix_kind {
	CAGE_FIX_NONE,      /* nothing but a different policy or host */
	CAGE_FIX_ACCEPT,    /* accept the approximation */
	CAGE_FIX_DROP_RULE, /* drop the rule for path */
	CAGE_FIX_NETWORK_OFF, /* turn the network off */
};

struct cage_fix {
	enum cage_fix_kind kind;
	int approximation; /* enum policy_approximation */
	char path[4096];
};

/* procage_cage_new, telling in *fix (when not NULL) how a refusal could be fitted. */
int cage_make(const struct procage_policy *policy, struct procage_cage **out,
	      struct cage_fix *fix, struct procage_error *err);

#endif
