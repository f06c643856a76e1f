/*
 * procage: run a command in a cage.
 *
 * Lifecycle:
 *
 *   struct procage_error err;
 *   struct procage_policy *p = procage_policy_new();
 *   procage_policy_allow(p, "/usr", PROCAGE_READ, &err);
 *   procage_policy_allow(p, workspace, PROCAGE_WRITE, &err);
 *
 *   struct procage_cage *c;
 *   procage_cage_new(p, &c, &err);        // the policy checked against this host
 *
 *   struct procage_run *r;
 *   procage_spawn(c, &(struct procage_spawn_opts){
 *           .size = sizeof(struct procage_spawn_opts), .argv = argv }, &r, &err);
 *   int status;
 *   procage_run_wait(r, &status, &err);   // a waitpid() status: WIFEXITED, ...
 *   procage_run_free(r);
 *   procage_cage_free(c);
 *   procage_policy_free(p);
 *
 * A policy is plain data: building one never touches the kernel, and every
 * setter checks its argument at once. A cage is a policy checked against the
 * measured host; a construct the host cannot enforce makes procage_cage_new
 * fail with an error naming the missing capability. Every spawn of a cage
 * applies the whole sandbox in the child before exec; if any step fails the
 * target never runs and the error names the step and the errno.
 *
 * Every function that can fail returns 0 or a negative errno and, when err is
 * not NULL, fills it. The library never prints, exits or aborts. Free
 * functions accept NULL. Handles are not shared between threads without the
 * caller's own locking.
 */
#ifndef PROCAGE_H
#define PROCAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PROCAGE_BUILDING)
#define PROCAGE_API __attribute__((visibility("default")))
#else
#define PROCAGE_API
#endif

#define PROCAGE_VERSION "0.1.0"

/* Steps of a spawn, in the order the child runs them. */
enum procage_step {
	PROCAGE_STEP_NONE = -1, /* the error happened outside a spawn */
	PROCAGE_STEP_PREPARE = 0,
	PROCAGE_STEP_NAMESPACES,    /* exec mode: unshare the namespaces */
	PROCAGE_STEP_CGROUP,        /* the run's reaper joins the run's cgroup */
	PROCAGE_STEP_ID_MAPS,
	PROCAGE_STEP_MOUNTS,
	PROCAGE_STEP_PROC,          /* a /proc of the run's own (PID namespace) */
	PROCAGE_STEP_PROXY,         /* a proxy-only run's loopback and proxy listener */
	PROCAGE_STEP_REAPER,        /* the reaper: child subreaper, a new session */
	PROCAGE_STEP_START,         /* the reaper starts the target */
	PROCAGE_STEP_PROCESS_GROUP, /* the target leads a process group */
	PROCAGE_STEP_RLIMITS,
	PROCAGE_STEP_CWD,
	PROCAGE_STEP_FDS,
	PROCAGE_STEP_CAPABILITIES,
	PROCAGE_STEP_NO_NEW_PRIVS,
	PROCAGE_STEP_LANDLOCK,
	PROCAGE_STEP_SECCOMP,
	PROCAGE_STEP_EXEC,
	PROCAGE_STEP__COUNT
};

struct procage_error {
	int code;          /* negative errno; 0 when nothing failed */
	int sys_errno;     /* the errno of the failing system call, or 0 */
	int step;          /* enum procage_step, PROCAGE_STEP_NONE outside a spawn */
	char message[512]; /* names the path, host, capability or step */
};

/* The name of a step ("landlock", "exec", ...), or "unknown". */
PROCAGE_API const char *procage_step_name(int step);

/* ---- policy ---------------------------------------------------------- */

enum procage_access {
	PROCAGE_READ = 1,    /* read and execute */
	PROCAGE_WRITE = 2,   /* read, execute, create, change and remove */
	PROCAGE_PROTECT = 3, /* read-only, also inside a writable tree */
	PROCAGE_HIDE = 4,    /* no access at all, also inside a granted tree */
	PROCAGE_CONNECT = 5, /* connect to the Unix socket at this path (tier T1) */
};

enum procage_network {
	PROCAGE_NET_OFF = 0,   /* no IP socket reaches anything */
	PROCAGE_NET_ON = 1,    /* the host's network, as the user has it */
	PROCAGE_NET_PROXY = 2, /* only the hosts of procage_policy_allow_host, through a
				* proxy of the run's own (tier T1) */
};

struct procage_policy;

PROCAGE_API struct procage_policy *procage_policy_new(void);
PROCAGE_API void procage_policy_free(struct procage_policy *policy);

/*
 * The embedded default: the system directories readable, `workdir`
 * writable, network off, a private temporary directory.
 * Escape classes (THREAT_MODEL.md).
 */
PROCAGE_API int procage_policy_new_default(const char *workdir, struct procage_policy **out,
					   struct procage_error *err);

/*
 * path must be absolute and exist; it is resolved when the cage is made.
 * Escape classes; CONNECT.
 */
PROCAGE_API int procage_policy_allow(struct procage_policy *policy, const char *path,
				     enum procage_access access, struct procage_error *err);
/* Escape classes. */
PROCAGE_API int procage_policy_set_network(struct procage_policy *policy,
					   enum procage_network mode, struct procage_error *err);
/*
 * With PROCAGE_NET_PROXY: a host the run may reach, "github.com",
 * "*.npmjs.org" (names below it), "registry.example:8443", or an address
 * range "10.1.2.0/24", "[fd00::]/64" (docs/proxy.md). Checked at once.
 */
PROCAGE_API int procage_policy_allow_host(struct procage_policy *policy, const char *entry,
					  struct procage_error *err);
/* Pass a variable the secret filter would otherwise drop. Escape class: R-24. */
PROCAGE_API int procage_policy_env_pass(struct procage_policy *policy, const char *name,
					struct procage_error *err);
/* Set a variable in the child's environment (never filtered). Escape class: R-24. */
PROCAGE_API int procage_policy_env_set(struct procage_policy *policy, const char *name,
				       const char *value, struct procage_error *err);
/*
 * Which processes a run may leave behind: none, in either lifetime. When
 * the run's target ends every process left of the run is killed.
 *   SESSION (default)  every process of the run stays in the run's
 *                      session: setsid is refused.
 *   TREE               setsid is allowed; a descendant in a session of its
 *                      own still dies with the run (the run's reaper is a
 *                      child subreaper, so orphans come back to it).
 */
enum procage_lifetime {
	PROCAGE_LIFETIME_SESSION = 0,
	PROCAGE_LIFETIME_TREE = 1,
};
PROCAGE_API int procage_policy_set_lifetime(struct procage_policy *policy,
					    enum procage_lifetime lifetime,
					    struct procage_error *err);
/*
 * The command's terminal.
 *   INHERIT (default)  it shares the caller's descriptors, and so a
 *                      terminal among them, outside the caller's session:
 *                      it cannot push input into it (TIOCSTI, TIOCLINUX
 *                      refused) and gets no signal from it (procage run
 *                      passes them on).
 *   NEW_PTY            a pseudo-terminal of the run's own: not supported;
 *                      procage_cage_new refuses it (-EOPNOTSUPP).
 */
enum procage_terminal {
	PROCAGE_TERMINAL_INHERIT = 0,
	PROCAGE_TERMINAL_NEW_PTY = 1,
};
PROCAGE_API int procage_policy_set_terminal(struct procage_policy *policy,
					    enum procage_terminal terminal,
					    struct procage_error *err);
/*
 * On by default: each run gets a temporary directory of its own as TMPDIR.
 * Escape class: R-10.
 */
PROCAGE_API int procage_policy_set_private_tmp(struct procage_policy *policy, bool on,
					       struct procage_error *err);
/*
 * resource is RLIMIT_*; the child's soft and hard limits. Escape classes:
 * none (denial of service beyond these limits is out of scope).
 */
PROCAGE_API int procage_policy_set_rlimit(struct procage_policy *policy, int resource,
					  uint64_t soft, uint64_t hard, struct procage_error *err);
/*
 * Accept an approximation by name, where the host cannot enforce a
 * construct exactly:
 *   "spawn-snapshot"        tier T1: masks over denied paths inside granted
 *                           trees are laid over what exists at spawn; a
 *                           denied location created later is not masked.
 *   "entry-grants"          tier T2: a grant reaching a denied path becomes
 *                           grants on each entry around it; the directories
 *                           on the way lose listing (for hidden paths) or the
 *                           creation of new entries (for protected ones), and
 *                           entries created later are not granted.
 *   "proc-other-processes"  a rule reaches /proc: other processes' arguments
 *                           become readable (not their environment).
 * Without the acceptance the cage is refused, naming the approximation.
 * Escape classes: spawn-snapshot; entry-grants R-07,
 * proc-other-processes R-25.
 */
PROCAGE_API int procage_policy_accept(struct procage_policy *policy, const char *approximation,
				      struct procage_error *err);
/*
 * Waive a hard-deny class by name: "secrets", "trust-handoff",
 * "persistence", "service-handoff", "container-engines", "process-access"
 * (docs/classes.md lists what each covers).
 * Escape classes: trust-handoff R-07, persistence R-23, process-access
 * R-25, service-handoff and container-engines R-34; secrets: every class.
 */
PROCAGE_API int procage_policy_waive(struct procage_policy *policy, const char *class_name,
				     struct procage_error *err);

/*
 * Before every spawn, the hidden and protected locations (the policy's and
 * the classes') are examined for files with a name elsewhere: a hard link
 * made before the run. By default such a file refuses the spawn,
 * naming it; in report mode the spawn goes ahead and procage_cage_hardlinks
 * lists them. A location that has become a symbolic link refuses too.
 */
enum procage_hardlinks {
	PROCAGE_HARDLINKS_REFUSE = 0,
	PROCAGE_HARDLINKS_REPORT = 1,
};
/* Escape class: R-08. */
PROCAGE_API int procage_policy_set_hardlinks(struct procage_policy *policy,
					     enum procage_hardlinks mode,
					     struct procage_error *err);
/*
 * A subtree never rewritten in place (a store such as .git/objects) whose
 * protected files are not examined; hidden files are examined everywhere.
 * Escape class: R-08 (an exempt subtree is an open variant).
 */
PROCAGE_API int procage_policy_exempt_hardlinks(struct procage_policy *policy, const char *path,
						struct procage_error *err);

/*
 * Limits of the whole run, every process of it together, through a cgroup
 * v2 of the run's own (where the host has a delegated subtree; see
 * procage_host_facts). A cage whose policy sets one on a host that cannot
 * give it is refused, naming what is missing. 0 removes the limit.
 *   MEMORY  bytes of memory (memory.max; no swap beyond it); out of memory,
 *           the whole run is ended
 *   PIDS    processes and threads of the run at once (pids.max)
 */
enum procage_cgroup_limit {
	PROCAGE_CGROUP_MEMORY = 1,
	PROCAGE_CGROUP_PIDS = 2,
};
PROCAGE_API int procage_policy_set_cgroup_limit(struct procage_policy *policy,
						enum procage_cgroup_limit limit, uint64_t value,
						struct procage_error *err);

/* The RLIMIT_* number of a name ("nofile", "as", "cpu", ...), or -EINVAL. */
PROCAGE_API int procage_rlimit_from_name(const char *name);

/*
 * Read a policy from a JSON file (schema: docs/policy.md). Errors name the
 * file, line and column. A path starting with "~/" is taken from $HOME of
 * the calling process.
 */
PROCAGE_API int procage_policy_from_json_file(const char *path, struct procage_policy **out,
					      struct procage_error *err);
/* The same from text; name is what errors call it. */
PROCAGE_API int procage_policy_from_json_text(const char *text, const char *name,
					      struct procage_policy **out,
					      struct procage_error *err);

/*
 * The policy as JSON text in the schema procage_policy_from_json_* reads;
 * *out is allocated (free()).
 */
PROCAGE_API int procage_policy_to_json(const struct procage_policy *policy, char **out,
				       struct procage_error *err);

/*
 * Fit a policy to this host: the nearest policy a cage can enforce here,
 * with every change made, each saying what changed and the capability
 * that was missing (a NULL-terminated list; procage_strings_free). An
 * approximation the tier needs is accepted; a rule the tier cannot hold is
 * dropped. A policy that is wrong, rather than beyond this host, is an
 * error as for procage_cage_new.
 */
PROCAGE_API int procage_policy_fit(const struct procage_policy *policy,
				   struct procage_policy **fitted, char ***changes,
				   struct procage_error *err);
PROCAGE_API void procage_strings_free(char **strings);

/* ---- handoff audit ---------------------------------------------------- */

/*
 * What a run wrote that something outside the cage may later run or trust
 * begin before the spawn, end after the wait. The findings list,
 * one line each, the trust-handoff and persistence locations under the
 * policy's writable trees (hooks and config of every repository, nested
 * ones and new ones included; startup files, units) that were created,
 * changed or removed, symbolic links with their target.
 */
struct procage_cage;
struct procage_audit;
PROCAGE_API int procage_audit_begin(const struct procage_cage *cage, struct procage_audit **out,
				    struct procage_error *err);
PROCAGE_API int procage_audit_end(struct procage_audit *audit, char ***findings,
				  struct procage_error *err);
PROCAGE_API void procage_audit_free(struct procage_audit *audit);

/* ---- violation reports --------------------------------------------- */

/*
 * Reports cover the system calls the seccomp filter refuses, exactly: the
 * filter hands each to a supervisor in the calling process, which answers
 * EPERM and records it. Denials by Landlock (files, TCP ports, signals)
 * are not seen and not reported. Arguments were read from the caged
 * process's memory: text it chose, marked "(untrusted)".
 */
struct procage_report {
	char call[32];   /* the system call's name */
	char args[384];  /* its arguments, as read */
	pid_t pid;       /* the calling process, in the caller's PID namespace (0: unknown) */
	uint64_t count;  /* how often this call with these arguments was refused */
	struct timespec first, last; /* CLOCK_REALTIME */
};

/*
 * Off by default: refused calls are refused by the filter itself.
 * Escape class: R-32.
 */
PROCAGE_API int procage_policy_set_reports(struct procage_policy *policy, bool on,
					   struct procage_error *err);

/*
 * The reports of a run so far (all of them once it has ended): a copy the
 * caller frees with free(). Empty when the policy has reports off.
 */
struct procage_run;
PROCAGE_API int procage_run_reports(const struct procage_run *run, struct procage_report **out,
				    size_t *n, struct procage_error *err);

/* ---- host facts ------------------------------------------------------ */

enum procage_tier {
	PROCAGE_TIER_UNSUPPORTED = 0,
	PROCAGE_TIER_T1 = 1, /* user, mount and network namespaces, Landlock, seccomp */
	PROCAGE_TIER_T2 = 2, /* Landlock and seccomp only */
};

struct procage_host_facts {
	int landlock_abi;        /* 0: Landlock unavailable */
	int landlock_errno;      /* why it is unavailable (EOPNOTSUPP: not enabled, ENOSYS: not built) */
	bool landlock_in_lsm_list; /* "landlock" appears in /sys/kernel/security/lsm */
	bool seccomp_filter;     /* SECCOMP_SET_MODE_FILTER available */
	bool seccomp_user_notif; /* SECCOMP_RET_USER_NOTIF available */
	bool userns_create;      /* an unprivileged-style user namespace can be made */
	bool userns_mount;       /* ... and can mount inside it */
	int userns_errno;        /* the errno that stopped either, or 0 */
	bool apparmor_restricts_userns; /* kernel.apparmor_restrict_unprivileged_userns=1 */
	int tier;                /* enum procage_tier */
	char kernel_release[65];
	/*
	 * Tier T1: a run can have a PID namespace whose /proc (mounted in its
	 * mount namespace) shows only its own processes; where not, the run's
	 * session and its reaper (a child subreaper) alone find its processes.
	 */
	bool pidns_private_proc;
	int pidns_errno;         /* why not, or 0 */
	/*
	 * Memory and process limits of a whole run (cgroup v2): a delegated
	 * subtree where runs' cgroups can be made, with the controllers it
	 * enables for them; cgroup_why says what is missing, if anything.
	 */
	bool cgroup_memory;
	bool cgroup_pids;
	char cgroup_base[256];
	char cgroup_why[256];
};

/* Measured once per process, then returned from memory. */
PROCAGE_API int procage_host_facts(struct procage_host_facts *out, struct procage_error *err);
PROCAGE_API const char *procage_tier_name(int tier);

/* ---- cage ------------------------------------------------------------ */

struct procage_cage;

/*
 * Check a policy against the host: resolve every path, decide how each
 * construct is enforced, refuse what cannot be. The cage keeps its own copy;
 * the policy may be changed or freed afterwards.
 */
PROCAGE_API int procage_cage_new(const struct procage_policy *policy, struct procage_cage **out,
				 struct procage_error *err);
PROCAGE_API void procage_cage_free(struct procage_cage *cage);
/* The tier the cage is enforced with. */
PROCAGE_API int procage_cage_tier(const struct procage_cage *cage);
/*
 * Run the hard-link check now: *findings is a NULL-terminated list of
 * messages, each naming a file (procage_strings_free); empty when clean.
 */
PROCAGE_API int procage_cage_hardlinks(const struct procage_cage *cage, char ***findings,
				       struct procage_error *err);
/* The cage's hard-link check mode, from its policy. */
PROCAGE_API enum procage_hardlinks procage_cage_hardlink_mode(const struct procage_cage *cage);
/*
 * Does a write grant of the cage hold the directory dir_fd (any descriptor
 * of it, O_PATH will do)? Judged by device and inode up through "..", so
 * every spelling and bind mount of a granted tree counts. 1 with the
 * grant's path in grant (when not NULL), 0 when none does, or -EINVAL.
 * A file procage reads or writes for the caller there may have been
 * prepared by a run.
 */
PROCAGE_API int procage_cage_write_grant_of(const struct procage_cage *cage, int dir_fd,
					    char *grant, size_t size);

/* ---- spawn and run --------------------------------------------------- */

struct procage_fd_map {
	int parent_fd; /* a descriptor of the caller */
	int child_fd;  /* the number it has in the child */
};

struct procage_spawn_opts {
	size_t size;              /* sizeof(struct procage_spawn_opts) */
	char *const *argv;        /* argv[0] is looked up in PATH when it has no '/' */
	char *const *envp;        /* base environment before filtering; NULL: environ */
	const char *cwd;          /* NULL: the caller's working directory */
	const struct procage_fd_map *fds; /* besides 0, 1 and 2, which are inherited */
	size_t n_fds;
	/* With reports on: JSON lines of the reports written here as they come. */
	const char *report_json_path;
};

/*
 * A run. Each run has a small reaper of its own between the caller and
 * the target: it leads a new session (the target and every descendant
 * are in it) as a child subreaper, and when the target ends, or the run
 * is killed, or the calling process is gone, it kills every process left
 * of the run (orphans come back to it), then reports. On tier T1, where
 * the host allows it, the run also has a PID namespace of its own, whose
 * /proc shows only its processes.
 */
struct procage_run;

PROCAGE_API int procage_spawn(const struct procage_cage *cage,
			      const struct procage_spawn_opts *opts, struct procage_run **out,
			      struct procage_error *err);
/* The target's pid, in the caller's PID namespace. */
PROCAGE_API pid_t procage_run_pid(const struct procage_run *run);
/* The run's private temporary directory, or NULL. */
PROCAGE_API const char *procage_run_tmpdir(const struct procage_run *run);
/*
 * Send a signal to the run, as a terminal would: to the target's process
 * group (and to the target, should it have left it). -ESRCH once the
 * target has ended.
 */
PROCAGE_API int procage_run_signal(struct procage_run *run, int sig, struct procage_error *err);
/* End the run now: the target and every other process of the run get SIGKILL. */
PROCAGE_API int procage_run_kill(struct procage_run *run, struct procage_error *err);
/*
 * A descriptor that becomes readable (poll, epoll) when the run has ended:
 * the target and every other process of the run are gone, and
 * procage_run_wait returns at once. Owned by the run.
 */
PROCAGE_API int procage_run_fd(const struct procage_run *run);
/*
 * Wait for the run to end; status is the target's, in waitpid() form. The
 * private temporary directory is then removed. A target that stops under
 * ptrace is killed, never taken for ended.
 */
PROCAGE_API int procage_run_wait(struct procage_run *run, int *status,
				 struct procage_error *err);
/* The same for at most timeout_ms (-1: no limit): -ETIMEDOUT if it has not ended. */
PROCAGE_API int procage_run_wait_for(struct procage_run *run, int timeout_ms, int *status,
				     struct procage_error *err);
/* Ends a run that was not waited for (as procage_run_kill), and waits. */
PROCAGE_API void procage_run_free(struct procage_run *run);

/*
 * exec mode: the calling process becomes the caged command, with the
 * same steps as a spawn, in this process, then exec. There is no reaper:
 * the command's lifetime is the caller's, and a cage with a private
 * temporary directory or cgroup limits is refused (nothing would remain to
 * remove them). On tier T1 the process must be single-threaded (it enters
 * a user namespace) and gets no PID namespace of its own.
 *
 * Returns only on failure. When err->step is PROCAGE_STEP_NONE or
 * PROCAGE_STEP_NAMESPACES nothing in the process has changed. At any other
 * step it is partly caged (signal handlers reset, namespaces entered,
 * limits, descriptors or privileges changed) and should _exit at once, as
 * procage exec does: status 125, or 126 and 127 when exec itself failed.
 */
PROCAGE_API int procage_exec(const struct procage_cage *cage,
			     const struct procage_spawn_opts *opts, struct procage_error *err);

#ifdef __cplusplus
}
#endif
#endif
