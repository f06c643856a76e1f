/* The policy: what the caller wants, as plain data. */
#ifndef PROCAGE_POLICY_H
#define PROCAGE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "procage.h"

/* Where something was written in the policy's file: line 0 when it was not. */
struct policy_position {
	unsigned line, column;
};

struct policy_path_rule {
	char *path; /* absolute, as the caller spelled it */
	enum procage_access access;
	struct policy_position pos;
};

/* Room for the positions of the JSON reader's top-level keys (policy_json_key). */
#define POLICY_KEYS_MAX 20

/*
 * A class lifted for one location only ("secrets:~/.npmrc"): the path as
 * spelled (absolute, or "~/..." of the policy's home, expanded when the
 * cage is made).
 */
struct policy_path_waiver {
	int cls; /* enum class_id */
	char *path;
};

struct policy_env_var {
	char *name;
	char *value; /* NULL in the pass list */
};

struct policy_rlimit {
	bool set;
	uint64_t soft, hard;
};

/* The most ports a run publishes (procage_policy_publish). */
#define POLICY_PUBLISH_MAX 16

/* The smallest bound of a change set (procage_policy_set_changes_limit). */
#define CHANGES_LIMIT_MIN (1024 * 1024)

struct procage_policy {
	struct policy_path_rule *paths;
	size_t n_paths;
	enum procage_network network;
	struct policy_env_var *env_pass;
	size_t n_env_pass;
	struct policy_env_var *env_set;
	size_t n_env_set;
	bool private_tmp;
	bool own_proc; /* T1 with a PID namespace: the run's own /proc readable */
	enum procage_changes changes; /* where writes land (T1: an overlay per write grant) */
	uint64_t changes_limit;       /* bytes of the overlays' upper layers; 0: no bound */
	enum procage_lifetime lifetime;
	uint64_t cgroup_memory; /* 0: no limit */
	uint64_t cgroup_pids;   /* 0: no limit */
	enum procage_terminal terminal;
	struct policy_rlimit rlimits[RLIM_NLIMITS];
	/* --net loopback, tier T1: ports of the run's 127.0.0.1 relayed from the host's. */
	uint16_t publish[POLICY_PUBLISH_MAX];
	size_t n_publish;
	char **allow_hosts; /* proxy allowlist entries, NULL-terminated */
	size_t n_allow_hosts;
	char **allow_ssh; /* "host:port" reached by ssh through the proxy (docs/ssh.md) */
	size_t n_allow_ssh;
	/* --allow-ssh: a directory put first in the run's PATH (ssh, scp and sftp
	 * with procage's configuration); set on the cage's copy, not a JSON key */
	char *ssh_bin;
	procage_host_ask_fn host_ask; /* the proxy asks before other names; not a JSON key */
	void *host_ask_ctx;
	int host_ask_timeout_ms; /* 0: the proxy's default */
	enum procage_hardlinks hardlinks;
	enum procage_handoff_change handoff_change;
	char **hardlink_exempt; /* canonical subtrees, NULL-terminated */
	size_t n_hardlink_exempt;
	bool reports;
	bool explain; /* refusals observed and explained (denials.h); not a JSON key */
	char *home;     /* the home of the classes and of "~/", or NULL: $HOME */
	char *tmp_base; /* where private temporary directories go, or NULL: $TMPDIR, /tmp */
	unsigned waived_classes; /* 1 << enum class_id */
	struct policy_path_waiver *path_waivers; /* classes lifted for one location each */
	size_t n_path_waivers;
	unsigned accepted;       /* 1 << enum policy_approximation */
	/*
	 * The file the policy was read from (NULL: built by calls), and where
	 * its top-level keys (in policy_json_key order) and allow_hosts
	 * entries were written; entries added later by calls have none. An
	 * error found when the cage is made names the place (policy_locate.c).
	 */
	char *source;
	struct policy_position key_pos[POLICY_KEYS_MAX];
	struct policy_position *host_pos;
	size_t n_host_pos;
};

/*
 * Inside a proxy-only run's own network namespace the run's proxy listens
 * on 127.0.0.1 at this port; besides it only procage's resolver and
 * capture listeners (proxy/capture.h) listen there.
 */
#define POLICY_PROXY_PORT 3128

/* Approximations a caller accepts by name; see procage_policy_accept. */
enum policy_approximation {
	APPROX_SPAWN_SNAPSHOT,        /* T1 masks laid over what exists at spawn */
	APPROX_ENTRY_GRANTS,          /* T2 grants entry by entry around a denied path */
	APPROX_PROC_OTHER_PROCESSES,  /* a rule reaches other processes in /proc */
	APPROX_LISTING_SHOWS_HIDDEN_NAMES, /* T2: the broker lists a directory holding hidden names */
	APPROX_HOST_LOOPBACK,         /* T2 loopback mode: the host's loopback, its services too */
	APPROX__COUNT
};

const char *policy_approximation_name(enum policy_approximation a);

/*
 * The top-level keys the JSON reader takes, i from 0 until NULL: the
 * writer must write each of them, or a policy would not survive its
 * own JSON (a test holds the two together).
 */
const char *policy_json_key(size_t i);

/* Where the top-level key was written, or line 0. */
struct policy_position policy_key_position(const struct procage_policy *policy, const char *key);
/*
 * Where the rule that brings path into the policy was written: the rule
 * for path itself, else the grant whose tree holds it, else the "paths"
 * key; line 0 when none was written in the file.
 */
struct policy_position policy_path_position(const struct procage_policy *policy,
					    const char *path);
/* Where allow_hosts entry i was written, or line 0. */
struct policy_position policy_host_position(const struct procage_policy *policy, size_t i);
/*
 * An error found in a policy read from a file: its message begins with
 * "FILE:LINE:COLUMN: " of pos (when pos names a place and the message does
 * not begin with the file already).
 */
void policy_error_locate(const struct procage_policy *policy, struct policy_position pos,
			 struct procage_error *err);

/* The policy's home, else the calling process's $HOME (may be NULL). */
const char *policy_home(const struct procage_policy *policy);
/* A path argument of the API: a policy and an absolute path given; clears err. */
int policy_path_argument_check(const struct procage_policy *p, const char *path,
			       struct procage_error *err);

/* A deep copy, for the cage to keep; NULL when out of memory. */
struct procage_policy *policy_copy(const struct procage_policy *policy);
const char *policy_access_name(enum procage_access access);
/* The name of an RLIMIT_* ("nofile"), as the policy and --limit spell it, or "unknown". */
const char *policy_rlimit_name(int resource);

#endif
