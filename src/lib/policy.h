/* The policy: what the caller wants, as plain data. */
#ifndef PROCAGE_POLICY_H
#define PROCAGE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "procage.h"

struct policy_path_rule {
	char *path; /* absolute, as the caller spelled it */
	enum procage_access access;
};

struct policy_env_var {
	char *name;
	char *value; /* NULL in the pass list */
};

struct policy_rlimit {
	bool set;
	uint64_t soft, hard;
};

struct procage_policy {
	struct policy_path_rule *paths;
	size_t n_paths;
	enum procage_network network;
	struct policy_env_var *env_pass;
	size_t n_env_pass;
	struct policy_env_var *env_set;
	size_t n_env_set;
	bool private_tmp;
	enum procage_lifetime lifetime;
	uint64_t cgroup_memory; /* 0: no limit */
	uint64_t cgroup_pids;   /* 0: no limit */
	enum procage_terminal terminal;
	struct policy_rlimit rlimits[RLIM_NLIMITS];
	char **allow_hosts; /* proxy allowlist entries, NULL-terminated */
	size_t n_allow_hosts;
	enum procage_hardlinks hardlinks;
	enum procage_handoff_change handoff_change;
	char **hardlink_exempt; /* canonical subtrees, NULL-terminated */
	size_t n_hardlink_exempt;
	bool reports;
	char *home;     /* the home of the classes and of "~/", or NULL: $HOME */
	char *tmp_base; /* where private temporary directories go, or NULL: $TMPDIR, /tmp */
	unsigned waived_classes; /* 1 << enum class_id */
	unsigned accepted;       /* 1 << enum policy_approximation */
};

/*
 * Inside a proxy-only run's own network namespace the run's proxy listens
 * on 127.0.0.1 at this port; nothing else listens there.
 */
#define POLICY_PROXY_PORT 3128

/* Approximations a caller accepts by name; see procage_policy_accept. */
enum policy_approximation {
	APPROX_SPAWN_SNAPSHOT,        /* T1 masks laid over what exists at spawn */
	APPROX_ENTRY_GRANTS,          /* T2 grants entry by entry around a denied path */
	APPROX_PROC_OTHER_PROCESSES,  /* a rule reaches other processes in /proc */
	APPROX__COUNT
};

const char *policy_approximation_name(enum policy_approximation a);

/*
 * The top-level keys the JSON reader takes, i from 0 until NULL: the
 * writer must write each of them, or a policy would not survive its
 * own JSON (a test holds the two together).
 */
const char *policy_json_key(size_t i);

/* The policy's home, else the calling process's $HOME (may be NULL). */
const char *policy_home(const struct procage_policy *policy);

/* A deep copy, for the cage to keep; NULL when out of memory. */
struct procage_policy *policy_copy(const struct procage_policy *policy);
const char *policy_access_name(enum procage_access access);
/* The name of an RLIMIT_* ("nofile"), as the policy and --limit spell it, or "unknown". */
const char *policy_rlimit_name(int resource);

#endif
