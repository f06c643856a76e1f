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
 * functions accept NULL.
 *
 * Memory. What the library hands out is freed by the library: handles by
 * their own free function, lists of strings by procage_strings_free, and
 * plain blocks (procage_policy_to_json's text, procage_run_reports' array)
 * by procage_free. Never pass them to another allocator's free().
 *
 * Threads. A policy is plain data: concurrent calls that only read it
 * (procage_cage_new, procage_policy_fit, procage_policy_to_json) are safe,
 * a setter needs the caller's lock. A cage is never changed after
 * procage_cage_new: any number of threads may spawn from one cage at once,
 * and a run does not need its cage (the cage may be freed while its runs
 * live). One run is used by one thread at a time.
 * The library starts these threads, each with every signal blocked, and
 * joins them when the run ends (in procage_run_wait or procage_run_free):
 *   - with violation reports on (procage_policy_set_reports), one per run
 *     that answers the seccomp filter's notifications;
 *   - with the network PROCAGE_NET_PROXY, one per run serving the run's
 *     proxy and four that resolve host names for it.
 *
 * Processes and signals. Each run has a reaper (see struct procage_run),
 * a child process of the caller: when it exits the caller gets one SIGCHLD.
 * A caller that reaps any child (wait(), waitpid(-1, ...), SIGCHLD set to
 * SIG_IGN) may reap it before the library does; the run's status comes
 * through the reaper's socket, not its exit status, but such a caller must
 * not take it for a child of its own. procage_spawn blocks every signal in the
 * calling thread from the reaper's start until the target has started
 * (the reaper and the target begin on the caller's memory), then restores
 * the mask. The first procage_host_facts (also made by procage_cage_new)
 * starts short-lived child processes to measure the kernel and reaps them,
 * as procage_cage_new does on tier T2 to ask whether a hard resource limit
 * above the caller's may be set.
 *
 * Environment. The library reads the calling process's environment:
 *   HOME             the home of the hard-deny classes and "~/" in JSON
 *                    policy paths, unless procage_policy_set_home gives one;
 *                    the default policy's readable home and the check that
 *                    its working directory does not contain it
 *   XDG_RUNTIME_DIR  where the user's service sockets are (service-handoff)
 *   TMPDIR           where private temporary directories are made (else
 *                    /tmp), unless procage_policy_set_tmp_base gives a base
 *   PROCAGE_CGROUP_PARENT  the cgroup v2 directory under which runs' cgroups
 *                    are made, instead of the one found
 *   environ          the child's environment, filtered, when the spawn options
 *                    give none; PATH of the child's environment finds argv[0]
 *
 * Descriptors. A cage holds one descriptor per location it grants (on tier
 * T2 a grant around a denied path becomes one per entry) and one for its
 * Landlock ruleset, until procage_cage_free. A run holds a few (its reaper's pidfd, socket and
 * stacks), closed when it is waited for; a proxy-only run also uses six per
 * proxied connection at once, out of the calling process's RLIMIT_NOFILE:
 * the library does not raise that limit, which is the whole process's
 * (procage run raises its soft limit to the hard one, and gives the
 * command the limit it had).
 *
 * Versions. procage_version() is the library's version; PROCAGE_VERSION the
 * header's. Structs the library fills that may grow are passed with their
 * size (procage_host_facts, procage_run_reports: in C the macros pass it);
 * struct procage_spawn_opts carries its size, and bytes of a newer, larger
 * struct that this library does not know must be zero (else -E2BIG, as the
 * kernel's copy_struct_from_user). struct procage_error keeps its size:
 * later fields come out of its reserved room. Enumerations are passed as
 * int, so a value a binding makes up is refused (-EINVAL), never undefined.
 */
#ifndef PROCAGE_H
#define PROCAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PROCAGE_BUILDING)
#define PROCAGE_API __attribute__((visibility("default")))
#else
#define PROCAGE_API
#endif

/*
 * A result that must not be dropped (an allocation, or a check whose
 * failure leaves nothing made), and arguments that must not be NULL. The
 * library itself still checks them and returns -EINVAL, so the compiler
 * is not told while it builds the library (it could drop the checks);
 * a caller that means to pass NULL anyway, as a test of those checks,
 * defines PROCAGE_NO_NONNULL.
 */
#define PROCAGE_MUST_USE __attribute__((warn_unused_result))
#if defined(PROCAGE_BUILDING) || defined(PROCAGE_NO_NONNULL)
#define PROCAGE_NONNULL(...)
#else
#define PROCAGE_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
#endif

#define PROCAGE_VERSION "0.1.0"

/* The library's version ("0.1.0"), which may be newer than PROCAGE_VERSION. */
PROCAGE_API const char *procage_version(void);

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

/* Its size never changes: later fields take the reserved room. */
struct procage_error {
	int code;          /* negative errno; 0 when nothing failed */
	int sys_errno;     /* the errno of the failing system call, or 0 */
	int step;          /* enum procage_step, PROCAGE_STEP_NONE outside a spawn */
	int reserved[5];   /* zero */
	char message[512]; /* names the path, host, capability or step; UTF-8 */
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
				* proxy of the run's own (tier T2: every connect
				* brokered to it) */
	PROCAGE_NET_LOOPBACK = 3, /* loopback only (127.0.0.0/8, ::1): on tier T1 the run's
				   * own; on tier T2 the host's, with the approximation
				   * host-loopback accepted (docs/policy.md) */
};

struct procage_policy;

/* An empty policy (nothing granted, network off, private tmp on), or NULL out of memory. */
PROCAGE_API struct procage_policy *procage_policy_new(void) PROCAGE_MUST_USE;
/* The same in the style of every other constructor: 0 or -ENOMEM, *out set. */
PROCAGE_API int procage_policy_create(struct procage_policy **out, struct procage_error *err)
	PROCAGE_MUST_USE PROCAGE_NONNULL(1);
PROCAGE_API void procage_policy_free(struct procage_policy *policy);

/*
 * The embedded default: the system directories readable, `workdir`
 * writable, network off, a private temporary directory.
 * Escape classes (THREAT_MODEL.md).
 */
PROCAGE_API int procage_policy_new_default(const char *workdir, struct procage_policy **out,
					   struct procage_error *err) PROCAGE_MUST_USE
	PROCAGE_NONNULL(2);

/*
 * path must be absolute and exist; it is resolved when the cage is made.
 * Reading a path the policy already lets be written is covered (0, no
 * new rule); any other second rule for the same path is a conflict.
 * Escape classes; CONNECT.
 */
PROCAGE_API int procage_policy_allow(struct procage_policy *policy, const char *path,
				     int access, struct procage_error *err) PROCAGE_NONNULL(1, 2);
/* The access (enum procage_access) of the rule for exactly path, or -ENOENT. */
PROCAGE_API int procage_policy_access(const struct procage_policy *policy, const char *path);
/* mode: enum procage_network. Escape classes. */
PROCAGE_API int procage_policy_set_network(struct procage_policy *policy, int mode,
					   struct procage_error *err) PROCAGE_NONNULL(1);
/* The policy's network mode (enum procage_network), or -EINVAL. */
PROCAGE_API int procage_policy_network(const struct procage_policy *policy);
/*
 * With PROCAGE_NET_PROXY: a host the run may reach, "github.com",
 * "*.npmjs.org" (names below it), "registry.example:8443", "localhost" or
 * "localhost:3000" (the name and both loopback addresses), an address
 * "192.0.2.7" or "127.0.0.1:8080" or "[::1]:8080", or an address range
 * "10.1.2.0/24", "[fd00::]/64" (docs/proxy.md). Checked at once; an entry
 * already allowed is not added again.
 */
PROCAGE_API int procage_policy_allow_host(struct procage_policy *policy, const char *entry,
					  struct procage_error *err) PROCAGE_NONNULL(1, 2);
/*
 * With PROCAGE_NET_LOOPBACK on tier T1: make the run's listener on
 * 127.0.0.1:port (in its own network namespace) reachable from the host
 * at 127.0.0.1:port, and nothing else of the run. The caller's process
 * listens there while the run lives and relays each connection into the
 * run's namespace. A port out of 1..65535 or given twice is refused here;
 * another network mode, tier T2, or a port already in use on the host
 * is refused before the run starts (docs/policy.md, publish). At most 16.
 */
PROCAGE_API int procage_policy_publish(struct procage_policy *policy, long port,
				       struct procage_error *err) PROCAGE_NONNULL(1);
/*
 * With PROCAGE_NET_PROXY: let ssh (and git over ssh) reach "host" or
 * "host:port" (22 when none is given) through the run's proxy. The cage
 * gives the run an ssh configuration (GIT_SSH_COMMAND, PROCAGE_SSH_CONFIG)
 * whose host keys are the caller's known_hosts lines for these hosts only,
 * checked strictly, and, when SSH_AUTH_SOCK is set, an agent socket that
 * relays to the caller's agent only what authenticates to these hosts
 * (docs/ssh.md). Needs PROCAGE_NET_PROXY: the cage is refused otherwise.
 * Escape class: R-53.
 */
PROCAGE_API int procage_policy_allow_ssh(struct procage_policy *policy, const char *entry,
					 struct procage_error *err) PROCAGE_NONNULL(1, 2);
/*
 * With PROCAGE_NET_PROXY: ask before a host the allowlist does not name,
 * instead of refusing it. A request for such a name (CONNECT or plain
 * HTTP, at any port the list does not give it) is held, and ask is called
 * with the name (lower case, never an address) and the port, on a thread
 * of the calling process made for that question, never in the cage; it
 * returns an enum procage_host_answer. Requests for the same name and
 * port while a question is open wait for that one answer; requests for
 * other hosts go on meanwhile. An approved name is still resolved and
 * each of its addresses checked like a listed name's (docs/proxy.md): an
 * answer never opens a loopback, private or host address. An address
 * written in a request is never asked about.
 *
 * ask may be called for several hosts at once and must be thread-safe.
 * It has timeout_ms (0 takes 60 s) to answer; an answer after it, or any
 * other value, is a deny. The end of the run (procage_run_wait, _free)
 * waits for calls under way to return. ask NULL: nothing is asked (the
 * default). Not written to JSON. Escape class: R-35.
 */
enum procage_host_answer {
	PROCAGE_HOST_DENY = 0,
	PROCAGE_HOST_ONCE = 1, /* the requests waiting for this answer */
	PROCAGE_HOST_RUN = 2,  /* this name and port for the rest of the run */
};
typedef int (*procage_host_ask_fn)(void *ctx, const char *host, int port, int timeout_ms);
PROCAGE_API int procage_policy_set_host_ask(struct procage_policy *policy,
					    procage_host_ask_fn ask, void *ctx, int timeout_ms,
					    struct procage_error *err) PROCAGE_NONNULL(1);
/* Pass a variable the secret filter would otherwise drop. Escape class: R-24. */
PROCAGE_API int procage_policy_env_pass(struct procage_policy *policy, const char *name,
					struct procage_error *err) PROCAGE_NONNULL(1, 2);
/* Set a variable in the child's environment (never filtered). Escape class: R-24. */
PROCAGE_API int procage_policy_env_set(struct procage_policy *policy, const char *name,
				       const char *value, struct procage_error *err)
	PROCAGE_NONNULL(1, 2, 3);
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
/* lifetime: enum procage_lifetime. */
PROCAGE_API int procage_policy_set_lifetime(struct procage_policy *policy, int lifetime,
					    struct procage_error *err) PROCAGE_NONNULL(1);
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
/* terminal: enum procage_terminal. */
PROCAGE_API int procage_policy_set_terminal(struct procage_policy *policy, int terminal,
					    struct procage_error *err) PROCAGE_NONNULL(1);
/*
 * On by default: each run gets a temporary directory of its own as TMPDIR.
 * on: non-zero for on. Escape class: R-10.
 */
PROCAGE_API int procage_policy_set_private_tmp(struct procage_policy *policy, int on,
					       struct procage_error *err) PROCAGE_NONNULL(1);
/*
 * On by default: where the run has a PID namespace of its own (tier T1,
 * procage_spawn), its own /proc, which shows only the run's processes, is
 * readable, for a root caller too: the files there only root may read
 * or write are masked, and a run whose masks cannot be laid is refused.
 * On tier T2 the host's /proc stays hidden but for a few system-wide
 * files (cpuinfo, meminfo, stat, loadavg, ...), and the supervisor opens
 * each process's own /proc/self entries and, for ps and top, a listing of
 * the run's processes and a few of their entries (docs/proc.md, R-55); in
 * exec mode it stays hidden. on: non-zero for on.
 */
PROCAGE_API int procage_policy_set_own_proc(struct procage_policy *policy, int on,
					    struct procage_error *err) PROCAGE_NONNULL(1);
/*
 * Where the run's writes land. IN_PLACE (the default): in the granted
 * trees themselves. OVERLAY (tier T1 only; procage_cage_new refuses it on
 * T2, which has no mount namespace): each write grant on a directory is an
 * overlay in the run's mount namespace, the host tree its read-only lower
 * layer and the upper layer in a store of procage's own
 * ($XDG_STATE_HOME/procage/changes/ID, else ~/.local/state/...), which no
 * grant may reach and the run cannot see. What the run changed is a change
 * set (procage_run_changes_id), applied to the host tree by
 * procage_changes_apply. See docs/changes.md.
 */
enum procage_changes {
	PROCAGE_CHANGES_IN_PLACE = 0,
	PROCAGE_CHANGES_OVERLAY = 1,
};
/* changes: enum procage_changes. */
PROCAGE_API int procage_policy_set_changes(struct procage_policy *policy, int changes,
					   struct procage_error *err) PROCAGE_NONNULL(1);
/*
 * With changes as an overlay: the bytes the run's change set may hold,
 * all its upper layers together (0: no bound, the default). The upper
 * layers are then a tmpfs of that size, in memory (and swap) while the
 * run lasts and counted against its memory limit; each file, directory or
 * link counts as at least 4 KiB. A write past it fails with ENOSPC in the
 * run. When the run ends the change set is copied into the store, and is
 * then like any other. The overlay is the one the run's user namespace
 * makes, for root too: a directory renamed is a removal and an addition.
 * At least 1 MiB; procage_cage_new refuses a bound without the overlay.
 */
PROCAGE_API int procage_policy_set_changes_limit(struct procage_policy *policy, uint64_t bytes,
						 struct procage_error *err) PROCAGE_NONNULL(1);
/*
 * The home directory whose secrets, startup files and the like the
 * hard-deny classes cover, and that "~/" in a JSON policy names, instead
 * of the calling process's $HOME (a harness running for another user, or
 * with a HOME of its own). The temporary-directory base: where each run's
 * private temporary directory is made (tier T2), or what each run's tmpfs
 * covers in its mount namespace (tier T1), instead of $TMPDIR or /tmp
 * (T1: then /var/tmp); no grant may reach it, and on T1 it may hold none. Either must be an absolute path to an existing
 * directory; NULL goes back to the environment. (procage_policy_new_default
 * still grants reading $HOME: build the policy with the setters to grant
 * another.) Escape classes: every class under the home; R-10.
 */
PROCAGE_API int procage_policy_set_home(struct procage_policy *policy, const char *home,
					struct procage_error *err) PROCAGE_NONNULL(1);
PROCAGE_API int procage_policy_set_tmp_base(struct procage_policy *policy, const char *base,
					    struct procage_error *err) PROCAGE_NONNULL(1);

/*
 * resource is RLIMIT_*; the child's soft and hard limits. Escape classes:
 * none (denial of service beyond these limits is out of scope).
 */
PROCAGE_API int procage_policy_set_rlimit(struct procage_policy *policy, int resource,
					  uint64_t soft, uint64_t hard, struct procage_error *err)
	PROCAGE_NONNULL(1);
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
 *   "listing-shows-hidden-names"  tier T2, procage run: a directory that
 *                           entry grants leave unlistable because a hidden
 *                           path lies below it (the home) is opened for
 *                           listing by the supervisor's broker: the names
 *                           of its hidden entries become visible, never
 *                           what they hold. Without it such a directory
 *                           cannot be listed (nothing is refused). The
 *                           default policy accepts it.
 * Without the acceptance the cage is refused, naming the approximation.
 * Escape classes: spawn-snapshot; entry-grants R-07,
 * proc-other-processes R-25; listing-shows-hidden-names R-45.
 */
PROCAGE_API int procage_policy_accept(struct procage_policy *policy, const char *approximation,
				      struct procage_error *err) PROCAGE_NONNULL(1, 2);
/*
 * Waive a hard-deny class by name: "secrets", "trust-handoff",
 * "persistence", "service-handoff", "container-engines", "process-access",
 * "workspace-config" (docs/classes.md lists what each covers).
 * "CLASS:PATH" ("secrets:~/.npmrc") lifts the class for that one location
 * only: PATH (absolute, or ~/ of the policy's home) must be, when the cage
 * is made, a location the class denies on this host, spelled without a
 * symbolic link; the cage is refused otherwise, and the class's other
 * locations keep their denial.
 * Escape classes: trust-handoff R-07, persistence R-23, process-access
 * R-25, service-handoff and container-engines R-34, workspace-config R-48;
 * secrets: every class.
 */
PROCAGE_API int procage_policy_waive(struct procage_policy *policy, const char *class_name,
				     struct procage_error *err) PROCAGE_NONNULL(1, 2);

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
/* mode: enum procage_hardlinks. Escape class: R-08. */
PROCAGE_API int procage_policy_set_hardlinks(struct procage_policy *policy, int mode,
					     struct procage_error *err) PROCAGE_NONNULL(1);
/*
 * What a run that changed what git on the host trusts (new repositories or
 * gitfiles, rewritten gitfiles, absent locations made: see
 * procage_handoff_end) does: reported (the default; procage run names the
 * changes on stderr), or also failed (procage run exits 123). Escape
 * class: R-07.
 */
enum procage_handoff_change {
	PROCAGE_HANDOFF_CHANGE_REPORT = 0,
	PROCAGE_HANDOFF_CHANGE_FAIL = 1,
};
/* mode: enum procage_handoff_change. */
PROCAGE_API int procage_policy_set_handoff_change(struct procage_policy *policy, int mode,
						  struct procage_error *err) PROCAGE_NONNULL(1);

/*
 * A subtree never rewritten in place (a store such as .git/objects) whose
 * protected files are not examined; hidden files are examined everywhere.
 * Escape class: R-08 (an exempt subtree is an open variant).
 */
PROCAGE_API int procage_policy_exempt_hardlinks(struct procage_policy *policy, const char *path,
						struct procage_error *err) PROCAGE_NONNULL(1, 2);

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
/* limit: enum procage_cgroup_limit. */
PROCAGE_API int procage_policy_set_cgroup_limit(struct procage_policy *policy, int limit,
						uint64_t value, struct procage_error *err)
	PROCAGE_NONNULL(1);

/*
 * The limit the policy sets for resource: 0 and its values, -ENOENT when
 * it sets none (the child keeps the caller's), -EINVAL for no policy or an
 * unknown resource.
 */
PROCAGE_API int procage_policy_get_rlimit(const struct procage_policy *policy, int resource,
					  uint64_t *soft, uint64_t *hard);

/* The RLIMIT_* number of a name ("nofile", "as", "cpu", ...), or -EINVAL. */
PROCAGE_API int procage_rlimit_from_name(const char *name);

/*
 * Read a policy from a JSON file (schema: docs/policy.md). Errors name the
 * file, line and column. A path starting with "~/" is taken from $HOME of
 * the calling process.
 */
PROCAGE_API int procage_policy_from_json_file(const char *path, struct procage_policy **out,
					      struct procage_error *err) PROCAGE_MUST_USE
	PROCAGE_NONNULL(1, 2);
/* The same from text; name is what errors call it. */
PROCAGE_API int procage_policy_from_json_text(const char *text, const char *name,
					      struct procage_policy **out,
					      struct procage_error *err) PROCAGE_MUST_USE
	PROCAGE_NONNULL(1, 3);

/*
 * The policy as JSON text in the schema procage_policy_from_json_* reads,
 * every key written, so that reading it back gives the same policy; *out is
 * allocated (procage_free).
 */
PROCAGE_API int procage_policy_to_json(const struct procage_policy *policy, char **out,
				       struct procage_error *err) PROCAGE_MUST_USE
	PROCAGE_NONNULL(1, 2);

/*
 * Fit a policy to this host: the nearest policy a cage can enforce here,
 * with every change made, each saying what changed and the capability
 * that was missing (a NULL-terminated list; procage_strings_free). An
 * approximation the tier needs is accepted; a rule the tier cannot hold is
 * dropped. On tier T2 the list also names each directory whose new entries
 * the supervisor's broker makes (the policy itself is unchanged by those).
 * A policy that is wrong, rather than beyond this host, is an error as for
 * procage_cage_new.
 */
PROCAGE_API int procage_policy_fit(const struct procage_policy *policy,
				   struct procage_policy **fitted, char ***changes,
				   struct procage_error *err) PROCAGE_MUST_USE
	PROCAGE_NONNULL(1, 2, 3);
PROCAGE_API void procage_strings_free(char **strings);
/*
 * What each path rule resolves to where that differs from its spelling,
 * one line a rule ("--write /w/ws/out -> /root (through the link
 * /w/ws/out)"), read from the file system now: a NULL-terminated list,
 * empty when every rule names its target itself; procage_strings_free.
 * A rule that does not resolve is left out (procage_cage_new names it).
 * Escape class: R-02.
 */
PROCAGE_API int procage_policy_resolutions(const struct procage_policy *policy, char ***lines,
					   struct procage_error *err) PROCAGE_MUST_USE
	PROCAGE_NONNULL(1, 2);
/*
 * Free memory the library handed out as a plain block (the text of
 * procage_policy_to_json, the array of procage_run_reports). NULL is
 * accepted. Use it rather than free(): a binding may load another C library.
 */
PROCAGE_API void procage_free(void *memory);

/* ---- handoff audit ---------------------------------------------------- */

/*
 * What a run wrote that something outside the cage may later run or trust
 * begin before the spawn, end after the wait. The findings list,
 * one line each, the trust-handoff and persistence locations under the
 * policy's writable trees (hooks and config of every repository found as
 * a cage finds them, new ones included: two directory levels below each
 * writable tree, docs/classes.md; startup files, units) that were created,
 * changed or removed, symbolic links with their target.
 */
struct procage_cage;
struct procage_audit;
PROCAGE_API int procage_audit_begin(const struct procage_cage *cage, struct procage_audit **out,
				    struct procage_error *err) PROCAGE_MUST_USE
	PROCAGE_NONNULL(1, 2);
PROCAGE_API int procage_audit_end(struct procage_audit *audit, char ***findings,
				  struct procage_error *err) PROCAGE_MUST_USE PROCAGE_NONNULL(1, 2);
PROCAGE_API void procage_audit_free(struct procage_audit *audit);

/* ---- trust-handoff report ----------------------------------------------- */

/*
 * What a run did that a later git on the host trusts and that no mask
 * could prevent: begin before the spawn, end after the wait. The
 * findings, one line each (procage_strings_free), name every repository
 * and gitfile new within the discovery bound, every gitfile rewritten,
 * every location git reads or runs that was absent when the run began
 * and exists now (a commondir, config.worktree, an include target, a
 * core.hooksPath directory), every directory of a work tree from which
 * git's discovery now leads to another git directory than before the run
 * (a .git, a gitfile or a bare layout made there: recorded by identity
 * from each writable tree's root, each work tree found and the caller's
 * working directory, and checked for each place a .git or a store
 * appeared), and what procage_handoff_add_run adds. Empty when nothing changed, and always empty
 * when the trust-handoff class is waived. It costs what the cage's own
 * repository discovery costs: no walk of the whole tree.
 */
struct procage_handoff;
PROCAGE_API int procage_handoff_begin(const struct procage_cage *cage,
				      struct procage_handoff **out, struct procage_error *err)
	PROCAGE_MUST_USE PROCAGE_NONNULL(1, 2);
PROCAGE_API int procage_handoff_end(struct procage_handoff *handoff, char ***findings,
				    struct procage_error *err) PROCAGE_MUST_USE PROCAGE_NONNULL(1, 2);
PROCAGE_API void procage_handoff_free(struct procage_handoff *handoff);
/*
 * Adds what run (of the same cage, ended, explain on) was seen making or
 * writing where git runs or reads, at any depth: each git directory whose
 * hooks or config it wrote, or that it made. procage_handoff_end names
 * those that still exist and that its bounded discovery does not find (a
 * repository deeper than the bound: protected by nothing during the run).
 * Call it before procage_handoff_end; a run without explain adds nothing.
 */
struct procage_run;
PROCAGE_API int procage_handoff_add_run(struct procage_handoff *handoff,
					const struct procage_run *run, struct procage_error *err)
	PROCAGE_MUST_USE PROCAGE_NONNULL(1);
/* The cage's mode (enum procage_handoff_change), from its policy. */
PROCAGE_API int procage_cage_handoff_change(const struct procage_cage *cage);

/* ---- violation reports --------------------------------------------- */

/*
 * Reports cover the system calls the seccomp filter refuses, exactly: the
 * filter hands each to a supervisor in the calling process, which answers
 * EPERM and records it. Denials by Landlock (files, TCP ports, signals)
 * are not seen and not reported. Arguments were read from the caged
 * process's memory: text it chose, marked "(untrusted)".
 */
/* A time of CLOCK_REALTIME: seconds and nanoseconds since the epoch. */
struct procage_time {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct procage_report {
	char call[32];   /* the system call's name */
	char args[384];  /* its arguments, as read */
	int32_t pid;     /* the calling process, in the caller's PID namespace (0: unknown) */
	uint32_t reserved; /* zero */
	uint64_t count;  /* how often this call with these arguments was refused */
	struct procage_time first, last;
};

/*
 * A write grant's directory that does not exist yet (a cache such as
 * ~/.npm): made now, mode 0700, owned by the calling process's user, then
 * granted for writing like procage_policy_allow(policy, path,
 * PROCAGE_WRITE). Made only when its parent exists (no chain of
 * directories), its last component is a plain name (not ".", "..", nor
 * ".git"), and it is neither inside nor above a location of a hard-deny
 * class the policy does not waive, by the class lists' own spelling (so a
 * missing ~/.config/autostart is never made); otherwise refused, naming
 * the path and why. An existing directory is simply granted. With
 * check_only, the checks are made and nothing is made or granted: 0 when
 * the directory exists, 1 when it would be made. Escape classes: R-07,
 * R-23 (a location the classes hold is never made writable this way).
 */
PROCAGE_API int procage_policy_allow_new_directory(struct procage_policy *policy,
						   const char *path, int check_only,
						   struct procage_error *err) PROCAGE_NONNULL(1, 2);

/*
 * A tool's cache (~/.cache/pip): procage_policy_allow_new_directory, but
 * its missing parents are made too (mode 0700, owned by the calling
 * process's user, never granted) when they lie inside the policy's home
 * (else $HOME) and that home is owned by the calling user; elsewhere the
 * parent must exist. No directory is made at or inside a location of a
 * hard-deny class the policy does not waive, nor at or inside a directory
 * of $PATH; a parent may lie above a class location (~/.cache above
 * ~/.cache/huggingface/token), the cache itself may not. Nothing is made
 * unless every directory passes. With check_only: 0 when the directory
 * exists, 1 when it would be made. Escape classes.
 */
PROCAGE_API int procage_policy_allow_cache_directory(struct procage_policy *policy,
						     const char *path, int check_only,
						     struct procage_error *err) PROCAGE_NONNULL(1, 2);

/*
 * Profiles: policy fragments for common tools (npm, pip, cargo...),
 * shipped as NAME.profile files of "KEY VALUE" lines: read, write,
 * write-new, cache (procage_policy_allow_cache_directory), allow-host, env
 * (procage_policy_env_pass), setenv (NAME=VALUE); '#' starts a comment,
 * "~/" is $HOME. The directory is found next to the file that holds this
 * library's code (the procage command, or libprocage.so, as the kernel
 * maps it): its ../share/procage/profiles, or, in a build
 * directory of procage's source tree, ../profiles; never the working
 * directory nor anywhere else a run could write, since a profile widens
 * the cage. A NAME is lower-case letters, digits, '-' and '_'.
 *
 * procage_profiles_dir: that directory's real path, or -ENOENT.
 * procage_profile_read: calls add for each line in order, with "~/"
 * expanded; a nonzero return from add stops the reading and is returned,
 * with the message naming the file and line. Errors: a bad NAME, no such
 * profile, a line of an unknown KEY, each named.
 * procage_policy_apply_profile: each line as the policy call its KEY
 * names, on policy (a write-new or cache directory is made now, as those
 * calls make it). Escape classes: those of the calls a line makes.
 */
typedef int (*procage_profile_line_fn)(void *ctx, const char *key, const char *value,
				       struct procage_error *err);
PROCAGE_API int procage_profiles_dir(char *out, size_t size, struct procage_error *err)
	PROCAGE_NONNULL(1);
PROCAGE_API int procage_profile_read(const char *name, procage_profile_line_fn add, void *ctx,
				     struct procage_error *err) PROCAGE_NONNULL(1, 2);
PROCAGE_API int procage_policy_apply_profile(struct procage_policy *policy, const char *name,
					     struct procage_error *err) PROCAGE_NONNULL(1, 2);

/*
 * Off by default: refused calls are refused by the filter itself.
 * Escape class: R-32.
 */
PROCAGE_API int procage_policy_set_reports(struct procage_policy *policy, int on,
					   struct procage_error *err) PROCAGE_NONNULL(1);

/*
 * Off by default. On: the run's calls that name a path (opening, making,
 * removing, renaming, linking, truncating, executing) are shown to the
 * supervisor, which judges each against the cage's rules and keeps the
 * distinct ones the rules refuse, with the rule or class and the flag that
 * would allow it (procage_run_denials); refused IP sockets and the proxy's
 * refusals too; and what it lets go by where git runs or reads, for
 * procage_handoff_add_run. The observation grants nothing: the call then goes on as
 * without it, and Landlock, the masks and the filter decide. Exec mode
 * (procage_exec) has no supervisor and does not observe, nor does a host
 * without seccomp user notification.
 */
PROCAGE_API int procage_policy_set_explain(struct procage_policy *policy, int on,
					   struct procage_error *err) PROCAGE_NONNULL(1);

/*
 * The refusals a run with explain on met, one line each ("write
 * /home/u/.npm/x: not granted (add --write ~/.npm)"), names escaped: a
 * NULL-terminated list (procage_strings_free), or NULL in *lines when
 * there were none. At most 64 distinct ones, then a line counting the
 * rest.
 */
struct procage_run;
PROCAGE_API int procage_run_denials(const struct procage_run *run, char ***lines,
				    struct procage_error *err) PROCAGE_NONNULL(2);

/*
 * The reports of a run so far (all of them once it has ended): *n of them,
 * in an array the caller frees with procage_free. Empty when the policy has
 * reports off. procage_run_reports_sized lays the array out with
 * report_size bytes per report (the caller's sizeof(struct procage_report),
 * at least this first version's): fields the library does not know are
 * zero, fields the caller does not know are left out. In C the macro
 * procage_run_reports passes it.
 */
struct procage_run;
PROCAGE_API int procage_run_reports_sized(const struct procage_run *run, size_t report_size,
					  struct procage_report **out, size_t *n,
					  struct procage_error *err) PROCAGE_MUST_USE
	PROCAGE_NONNULL(1, 3, 4);
/* The same for this first version's size. */
PROCAGE_API int procage_run_reports(const struct procage_run *run, struct procage_report **out,
				    size_t *n, struct procage_error *err);
#ifndef PROCAGE_BUILDING
#define procage_run_reports(run, out, n, err)                                                  \
	procage_run_reports_sized((run), sizeof **(out), (out), (n), (err))
#endif

/*
 * What `procage learn` makes of one line of procage_run_denials: whether it
 * is a host the run's proxy refused, and then the --allow-host entry that
 * grants it (in entry, what procage_policy_allow_host accepts) or, when the
 * host is not one to learn without asking (a loopback, private or other
 * special address, one of this host's own, "localhost", a subject that does
 * not read back as a host), a line for the caller saying why, with the
 * flag to give (in note). The subject is read back with the proxy's own
 * parser, so a host the cage spelled with escapes or control bytes is
 * never learned.
 */
enum procage_learned_host {
	PROCAGE_LEARNED_NONE = 0,   /* not a proxy refusal */
	PROCAGE_LEARNED_GRANT = 1,  /* entry is the --allow-host to add */
	PROCAGE_LEARNED_REVIEW = 2, /* left to the caller: note says why */
};
PROCAGE_API enum procage_learned_host procage_learn_host(const char *denial_line, char *entry,
							 size_t entry_size, char *note,
							 size_t note_size) PROCAGE_NONNULL(1, 2, 4);

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

/*
 * Measured once per process, then returned from memory. size is the
 * caller's sizeof(struct procage_host_facts), at least this first
 * version's: fields the library does not know are zero, fields the caller
 * does not know are left out. In C the macro procage_host_facts passes it.
 */
PROCAGE_API int procage_host_facts_sized(struct procage_host_facts *out, size_t size,
					 struct procage_error *err) PROCAGE_NONNULL(1);
/* The same for this first version's size. */
PROCAGE_API int procage_host_facts(struct procage_host_facts *out, struct procage_error *err);
#ifndef PROCAGE_BUILDING
#define procage_host_facts(out, err) procage_host_facts_sized((out), sizeof *(out), (err))
#endif
PROCAGE_API const char *procage_tier_name(int tier);
/*
 * Why this host is tier T2 and what would give it tier T1 (AppArmor's
 * restriction of user namespaces and the profile that lifts it, a sysctl
 * that switches them off, a container's seccomp filter, ...), as one
 * sentence in buf. Returns the text's length (like snprintf: it may be
 * longer than size - 1), 0 on a host that is not tier T2.
 */
PROCAGE_API size_t procage_host_tier_hint(char *buf, size_t size);

/* ---- cage ------------------------------------------------------------ */

struct procage_cage;

/*
 * Begin, on threads of the library's own, the work the next
 * procage_cage_new needs of this host: its facts (a probe that makes
 * namespaces, a few milliseconds) and, for a root caller, what hiding the
 * root-only files of /etc takes; and the user and network namespaces of
 * the next tier T1 spawn (making a network namespace is the dearest step
 * of a spawn). A front end calls it as soon as it knows it will make a
 * cage, and reads its policy meanwhile. The first cage made afterwards
 * takes the result, and the first spawn whose run has a network namespace
 * of its own the namespaces (each once, in this process only: a run never
 * shares them); later ones do the work themselves. A caller that spawns
 * again and again may call it again after each spawn: the next spawn's
 * namespaces are then made while the command runs. Optional: without it a
 * cage and a spawn do the same work when they are made. The threads are
 * gone once procage_exec begins (a process of one thread only may enter
 * new namespaces).
 */
PROCAGE_API void procage_prepare_ahead(void);


/*
 * Check a policy against the host: resolve every path, decide how each
 * construct is enforced, refuse what cannot be. The cage keeps its own copy;
 * the policy may be changed or freed afterwards. For a policy read from
 * JSON, a refusal of something the file says begins "NAME:LINE:COLUMN: "
 * of where it says it, as the reader's own errors do.
 */
PROCAGE_API int procage_cage_new(const struct procage_policy *policy, struct procage_cage **out,
				 struct procage_error *err) PROCAGE_MUST_USE PROCAGE_NONNULL(1, 2);
PROCAGE_API void procage_cage_free(struct procage_cage *cage);
/* The tier the cage is enforced with. */
PROCAGE_API int procage_cage_tier(const struct procage_cage *cage);
/*
 * Run the hard-link check now: *findings is a NULL-terminated list of
 * messages, each naming a file (procage_strings_free); empty when clean.
 */
PROCAGE_API int procage_cage_hardlinks(const struct procage_cage *cage, char ***findings,
				       struct procage_error *err) PROCAGE_MUST_USE
	PROCAGE_NONNULL(1, 2);
/* The cage's hard-link check mode (enum procage_hardlinks), from its policy. */
PROCAGE_API int procage_cage_hardlink_mode(const struct procage_cage *cage);
/*
 * Does a write grant of the cage hold the directory dir_fd (any descriptor
 * of it, O_PATH will do)? Judged by device and inode up through "..", so
 * every spelling and bind mount of a granted tree counts. 1 with the
 * grant's path in grant (when not NULL), 0 when none does, or -EINVAL.
 * A file procage reads or writes for the caller there may have been
 * prepared by a run.
 */
PROCAGE_API int procage_cage_write_grant_of(const struct procage_cage *cage, int dir_fd,
					    char *grant, size_t size) PROCAGE_NONNULL(1);

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
	/*
	 * Descriptors the child gets, each at its child_fd. 0, 1 and 2 are the
	 * caller's own unless mapped here: a map to 0, 1 or 2 gives the child
	 * that descriptor as its standard input, output or error (a pipe's end,
	 * say). Every other descriptor of the caller is closed in the child.
	 */
	const struct procage_fd_map *fds;
	size_t n_fds;
	/*
	 * With reports on: JSON lines written here, one per distinct report
	 * as it comes ({"call","args","pid","first"}), each once; then, when
	 * the run ends, {"end":true,"refused":N,"counts":[...]} with how
	 * often each was made, in the order of the lines.
	 */
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

/*
 * -ESTALE: the host has changed since the cage was made in a way it
 * cannot follow (tier T1: a denied location inside a grant is gone, or
 * has become a symbolic link, so no mask can hold it); nothing ran, and
 * a cage made again sees the tree as it is now.
 */
PROCAGE_API int procage_spawn(const struct procage_cage *cage,
			      const struct procage_spawn_opts *opts, struct procage_run **out,
			      struct procage_error *err) PROCAGE_MUST_USE PROCAGE_NONNULL(1, 2, 3);
/* The target's pid, in the caller's PID namespace. */
PROCAGE_API int32_t procage_run_pid(const struct procage_run *run);
/*
 * The run's private temporary directory (its TMPDIR), or NULL. Tier T2: a
 * directory on the host, removed when the run ends. Tier T1: the path of
 * the run's own tmpfs as the run sees it; the host's directory at that
 * path is not it (docs/lifetime.md).
 */
PROCAGE_API const char *procage_run_tmpdir(const struct procage_run *run);
/*
 * A run of a policy with changes as an overlay (procage_policy_set_changes):
 * the ID of its change set in the store, which procage_changes_apply
 * takes; NULL for any other run. Owned by the run.
 */
PROCAGE_API const char *procage_run_changes_id(const struct procage_run *run);

/*
 * Change sets (changes as an overlay), kept in the store until applied
 * or discarded. Their IDs, oldest first by name (NULL when none;
 * procage_strings_free).
 */
PROCAGE_API int procage_changes_list(char ***ids, struct procage_error *err);
/*
 * One line per change of set id ("added PATH (N bytes)", "modified PATH
 * (OLD -> NEW bytes[, mode OLD -> NEW])", "removed PATH (N bytes)",
 * "added link PATH (-> TARGET)", "directory PATH", "renamed OLD ->
 * NEW"...), followed by
 * "(held back: WHY)" where --apply safe would hold it back.
 */
PROCAGE_API int procage_changes_show(const char *id, char ***lines, struct procage_error *err);
/*
 * The same changes, one entry each for programs to read:
 * "KIND\tSIZE\tHELD\tPATH", KIND a word of procage_changes_show's lines
 * ("added", "modified", "removed", "added link", "changed link",
 * "directory", "added directory", "renamed": a directory or file moved
 * to PATH),
 * SIZE the bytes the change set holds
 * for it (a link: its target's length; -1 for a removal or a directory),
 * HELD why --apply safe would hold it back (tabs made spaces) or empty,
 * PATH the host path, last so that it may hold any byte but NUL.
 * procage_strings_free.
 */
PROCAGE_API int procage_changes_entries(const char *id, char ***entries,
					struct procage_error *err);
/*
 * The renames among them (root's overlays only): for each, its old host
 * path then its new one, in turn, in *paths (an empty list when none;
 * procage_strings_free). The new path is the one procage_changes_entries
 * gives with KIND "renamed".
 */
PROCAGE_API int procage_changes_renames(const char *id, char ***paths, struct procage_error *err);
/*
 * A unified diff of set id against the host trees, only below the
 * absolute host paths given (n_paths 0: everything), in *text
 * (procage_free; "" when nothing differs). Each changed text file against
 * the host's, an added one from /dev/null, a removed one to /dev/null; a
 * binary file, or one over 8 MiB, on a line "Binary files A and B differ"
 * or "Files A and B differ (...)"; a mode change on a line "mode PATH:
 * OLD -> NEW"; a link on a line "link PATH: OLD -> NEW", "new link PATH
 * -> TARGET" or "removed link PATH (was -> TARGET)". Names holding a
 * control byte are quoted and escaped; file content is as it is. Reads
 * the host tree without following a link in it.
 */
PROCAGE_API int procage_changes_diff(const char *id, const char *const *paths, size_t n_paths,
				     char **text, struct procage_error *err);
/*
 * How a change set is applied to the host trees. SAFE: ordinary changes;
 * held back (and named) what a host program would run or trust: the
 * classes' locations, a git directory's files but objects, refs, logs,
 * index, HEAD, ORIG_HEAD, COMMIT_EDITMSG and packed-refs (its config
 * judged by content), a new repository, a link leaving the tree, an
 * executable new or changed in a directory of $PATH, set-id bits. ALL:
 * everything (set-id bits never). NONE: nothing; the set is kept.
 */
enum procage_apply_rule {
	PROCAGE_APPLY_SAFE = 0,
	PROCAGE_APPLY_ALL = 1,
	PROCAGE_APPLY_NONE = 2,
};
/*
 * Apply set id by rule (enum procage_apply_rule), only below the absolute
 * host paths given (n_paths 0: everything). Every directory of the host
 * is opened without following a link; each file is written under a
 * temporary name and renamed into place. *lines: what was held back or
 * not applied, and why (NULL: nothing). *kept (when not NULL): 1 when the
 * set remains in the store with what was not applied, 0 when it was
 * applied whole and removed. -EBUSY while the set's run has not ended
 * (procage_run_wait) or another apply or discard works on it: nothing is
 * applied. A set is shown (procage_changes_show, _entries, _diff) while
 * its run goes on.
 */
PROCAGE_API int procage_changes_apply(const char *id, int rule, const char *const *paths,
				      size_t n_paths, char ***lines, int *kept,
				      struct procage_error *err);
/* Remove set id from the store, applying nothing; -EBUSY as for apply. */
PROCAGE_API int procage_changes_discard(const char *id, struct procage_error *err);
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
 * procage_run_wait returns at once. Owned by the run: the caller never
 * closes it, and procage_run_wait (or _wait_for, once the run has ended)
 * and procage_run_free close it; after that this returns -1. Remove it
 * from an epoll set before the wait.
 */
PROCAGE_API int procage_run_fd(const struct procage_run *run);
/*
 * Wait for the run to end; status is the target's, in waitpid() form. The
 * private temporary directory is then removed, and the descriptor of
 * procage_run_fd closed. A target that stops under ptrace is killed, never
 * taken for ended.
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
 * What it needs: a process whose other threads may be abandoned (on T1 it
 * must have none); descriptors to keep given in opts->fds (0, 1 and 2 are
 * kept; every other is closed); no private temporary directory and no
 * cgroup limit in the cage's policy. It resets every signal handler and
 * the signal mask, and the command keeps the process's pid, session and
 * terminal.
 *
 * Returns only on failure. When err->step is PROCAGE_STEP_NONE or
 * PROCAGE_STEP_NAMESPACES nothing in the process has changed. At any other
 * step it is partly caged (signal handlers reset, namespaces entered,
 * limits, descriptors or privileges changed) and should _exit at once, as
 * procage exec does: status 125, or 126 and 127 when exec itself failed.
 */
PROCAGE_API int procage_exec(const struct procage_cage *cage,
			     const struct procage_spawn_opts *opts, struct procage_error *err)
	PROCAGE_NONNULL(1, 2);

#ifdef __cplusplus
}
#endif
#endif
