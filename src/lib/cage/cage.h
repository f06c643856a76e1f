/* A cage: a policy checked against the host, ready to spawn. */
#ifndef PROCAGE_CAGE_H
#define PROCAGE_CAGE_H

#include <linux/filter.h>
#include <stdbool.h>

#include "net_mode.h"
#include "broker_zones.h"
#include "denials.h"
#include "kernel/landlock.h"
#include "masks.h"
#include "paths.h"
#include "policy/policy.h"

/* Where POSIX shared memory and semaphores live (glibc's shm_open, sem_open). */
#define CAGE_SHM_DIR "/dev/shm"
/* Where pseudo-terminals are made (openpty) and live. */
#define CAGE_PTMX "/dev/ptmx"
#define CAGE_PTS_DIR "/dev/pts"

/* Tier T1: a devpts instance of the run's own (cage_choose_pts). */
enum cage_pts {
	CAGE_PTS_HOST,      /* none: the host's /dev/pts, granted or not */
	CAGE_PTS_ONLY,      /* over /dev/pts; /dev/ptmx is a link into it */
	CAGE_PTS_WITH_PTMX, /* over /dev/pts, and its ptmx over /dev/ptmx */
};

struct procage_cage {
	struct procage_policy *policy; /* the cage's own copy */
	int tier;
	struct landlock_config landlock;
	struct landlock_grant *grants; /* paths resolved and pinned at cage time */
	size_t n_grants;
	struct cage_path *denials; /* T1: masked at spawn; ancestors first */
	size_t n_denials;
	struct cage_masks masks; /* T1: the paths of the denials' masks and pins, the writable trees */
	/*
	 * T1: the write grants as written, when Landlock's are made entry by
	 * entry around missing locations: they stay writable mounts, so that
	 * the broker can act through the run's own descriptors there, and
	 * exec mode, which has no broker, grants them whole (spawn-snapshot).
	 */
	struct landlock_grant *write_roots;
	size_t n_write_roots;
	/* Every tier: the canonical paths the policy grants for writing, as written. */
	char **write_rules;
	size_t n_write_rules;
	struct cage_path *sockets; /* the Unix sockets granted (T1: left unmasked) */
	size_t n_sockets;
	struct cage_path *examined; /* hidden and protected locations, for the hard-link check */
	size_t n_examined;
	struct sock_fprog seccomp;
	struct sock_fprog seccomp_unbrokered; /* the same without the broker (exec mode) */
	/*
	 * seccomp lets the listener hand-over's sendmsg through unbrokered
	 * (the network broker variants): the child stacks
	 * seccomp_handover_closed once it is made.
	 */
	bool seccomp_handover_open;
	/* Where the supervisor makes the cage's new entries (broker_zones.h). */
	struct broker_zones zones;
	/* T2: chmod, chown and utimes go to the supervisor's broker (broker_meta.h). */
	bool broker_metadata;
	/*
	 * T2 with own_proc: every open goes to the supervisor, whose broker
	 * opens the caller's own /proc/self files for it (broker_proc.c).
	 */
	bool broker_proc_self;
	/*
	 * T2 with a private temporary directory: the run's own semaphores
	 * are made in /dev/shm by the broker (broker_shm.c).
	 */
	bool broker_shm;
	/* T2: /dev/ptmx granted, the broker opens a held master's terminal end. */
	bool broker_pty;
	/*
	 * T2: the directories entry grants leave unlistable (a hidden path
	 * below), when listing-shows-hidden-names is not accepted: how many,
	 * and the first, for fit to say so. (Accepted, they are in zones.)
	 */
	size_t n_unlistable;
	char *unlistable_first;
	/* T2 loopback mode: the network calls go to the broker (broker_net.h). */
	enum broker_net_mode net_broker;
	/*
	 * Unix connects by path go to the broker (broker_unix.c): T2 with
	 * --socket, and T1 with --socket unless the network is on (procage
	 * run; exec mode keeps T1's masks alone).
	 */
	bool unix_brokered;
	/*
	 * Private temporary directories, or NULL for none. Tier T2: where
	 * each run's directory is made on the host. Tier T1: the directory a
	 * tmpfs of the run's own is mounted over, in the run's mount
	 * namespace (nothing is made on the host); it is the run's TMPDIR.
	 */
	char *tmp_base;
	bool tmp_mounted; /* tier T1: tmp_base is covered by a tmpfs per run */
	/*
	 * Tier T1 with tmp_mounted: the host's POSIX shared memory directory
	 * (/dev/shm, canonical), covered by a tmpfs of the run's own too; or
	 * NULL (cage_choose_shm).
	 */
	char *shm_mount;
	enum cage_pts pts_private;
	bool own_proc;    /* tier T1, not a root caller: the run's own /proc readable */
	/*
	 * The Landlock ruleset of the cage's grants, made once, or -1 when
	 * its runs need rules of their own (cage_run_rules_needed): then
	 * each spawn builds a ruleset of its run's.
	 */
	int landlock_fd;
	/*
	 * A root caller's T1 cage: the user namespace of the id-mapped /etc
	 * each run sees instead of the walk for root-only files
	 * (root_private.h); -1 when the walk was made.
	 */
	int root_private_userns_fd;
	struct allowlist *allowlist; /* network proxy: the hosts the run's proxy allows */
	struct ssh_setup *ssh;       /* --allow-ssh: the ssh directory, shared with the runs */
	struct handoff_snapshot *handoff_snapshot; /* the discovery, for the first run's report */
	struct cage_fix *fix; /* while the cage is made: what would make it enforceable */
	/* The policy's explain option: the rules its refusals are judged by; or NULL. */
	struct denial_rules *denial_rules;
	/* Decided once, by cage_supervision_decide: see cage_supervised. */
	bool supervised;
	bool supervisor_notified;
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

struct cage_path;
struct cage_paths;
/*
 * Pin grant's path and append it to list (cage_grants.c): opened without
 * following any link, so a component swapped for a symbolic link since it
 * was resolved cannot carry the grant elsewhere (ELOOP). An entry a
 * listing gave that is gone by now is skipped (nothing is granted), one
 * held whole as no directory that has become one is refused (ESTALE).
 */
int cage_grant_append(struct procage_cage *c, const struct cage_path *grant,
		      struct landlock_grant **list, size_t *n, struct procage_error *err);
/* The same, to the cage's own grants. */
int cage_add_grant(struct procage_cage *c, const struct cage_path *grant,
		   struct procage_error *err);
void cage_grants_free(struct landlock_grant *list, size_t n);
/*
 * Tier T2, where process-access hides /proc: the machine's own files of it
 * granted for reading (proc_system.c, docs/proc.md).
 */
int cage_proc_system_grants(struct procage_cage *c, const struct cage_paths *paths,
			    struct procage_error *err);
/* Tier T1: keep the write grants as written (c->write_roots). */
int cage_write_roots_keep(struct procage_cage *c, const struct cage_paths *paths,
			  struct procage_error *err);

/* Do the cage's runs need the supervisor's broker (entries or metadata)? */
static inline bool cage_brokered(const struct procage_cage *c)
{
	return c->zones.n > 0 || c->zones.n_listing > 0 || c->broker_metadata ||
	       c->net_broker != BROKER_NET_NONE || c->unix_brokered;
}

/*
 * Does a supervisor run beside each of the cage's runs: reports, the
 * broker, explained refusals, or the run's proxy? The spawn starts one
 * exactly when this says so.
 */
static inline bool cage_supervised(const struct procage_cage *c)
{
	return c->supervised;
}

/*
 * Does the cage's filter send calls to that supervisor (reports, the
 * broker, explained refusals): the run hands it the filter's listener.
 * A supervised run may have none to hand (a T1 proxy-only run).
 */
static inline bool cage_supervisor_notified(const struct procage_cage *c)
{
	return c->supervisor_notified;
}

/*
 * Does each run of the cage get a PID namespace of its own, its reaper
 * the first process (tier T1, where the host allows it; not exec mode)?
 */
bool cage_pid_namespace(const struct procage_cage *c);
/*
 * Do the cage's runs get Landlock rules of their own at spawn (their
 * private temporary directory, their own /proc granted again)?
 */
bool cage_run_rules_needed(const struct procage_cage *c);
/*
 * Where the runs' private temporary directories go (c->tmp_base, and
 * c->tmp_mounted on tier T1): the policy's base, else $TMPDIR, /tmp (and
 * /var/tmp on T1), the first no grant makes reachable; refused when none
 * can (cage_tmp.c).
 */
int cage_choose_tmp_base(struct procage_cage *c, struct procage_error *err);
/*
 * --allow-ssh (cage_ssh.c): with hosts to reach, make the ssh directory
 * and a copy of policy (*extended) that grants it; neither without.
 */
struct ssh_setup;
int cage_ssh_prepare(const struct procage_policy *policy, struct procage_policy **extended,
		     struct ssh_setup **out, struct procage_error *err);
/* Has the caller accepted approximation a by name? */
bool cage_accepted(const struct procage_cage *c, enum policy_approximation a);
/* A construct this tier can only hold through an approximation not accepted: the fix to offer. */
void cage_fix_set(const struct procage_cage *c, enum cage_fix_kind kind, int approximation,
		  const char *path);
/* The network modes and published ports, checked and prepared (cage_network.c). */
int cage_network_prepare(struct procage_cage *c, struct policy_position *where,
			 struct procage_error *err);
/* The granted path that contains path (itself included), or NULL. */
const char *cage_grant_containing(const struct procage_cage *c, const char *path);
/* A granted path that path contains (itself excluded), or NULL. */
const char *cage_grant_within(const struct procage_cage *c, const char *path);
/* Does a write rule of c's policy hold path (canonical)? Masks inside it aside. */
bool cage_grant_writes(const struct procage_cage *c, const char *path);
/*
 * Tier T1, private temporary directory mounted: c->shm_mount, the host's
 * shared memory directory the run gets its own of, unless a grant reaches
 * into or holds it (cage_dev.c).
 */
int cage_choose_shm(struct procage_cage *c, struct procage_error *err);
/*
 * Tier T2: may the broker make the run's own semaphores in the host's
 * /dev/shm? A private temporary directory, and no grant at, in or around it.
 */
bool cage_shm_brokerable(const struct procage_cage *c);
/*
 * Tier T2 with a supervisor: /dev/ptmx granted, the run's own terminal
 * ends opened by the broker (c->broker_pty). 0 or a negative errno.
 */
int cage_pty_grants(struct procage_cage *c, struct procage_error *err);
/* Tier T1: c->pts_private, unless a grant reaches /dev/pts or /dev/ptmx (cage_dev.c). */
void cage_choose_pts(struct procage_cage *c);

/*
 * The seccomp programs of the cage's runs (c->seccomp, and
 * c->seccomp_unbrokered for exec mode), once its broker is decided
 * (cage_filter.c).
 */
int cage_filters_build(struct procage_cage *c, struct procage_error *err);
/* c->supervised and c->supervisor_notified, once everything they follow from is decided. */
void cage_supervision_decide(struct procage_cage *c);

/* procage_cage_new, telling in *fix (when not NULL) how a refusal could be fitted. */
int cage_make(const struct procage_policy *policy, struct procage_cage **out,
	      struct cage_fix *fix, struct procage_error *err);

/* Refuse a spawn of cage when its policy does and the check finds something. */
int cage_hardlinks_refusal(const struct procage_cage *cage, struct procage_error *err);

#endif
