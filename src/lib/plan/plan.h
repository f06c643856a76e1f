/*
 * The plan of one spawn: everything the child needs, built in the parent,
 * so that between clone and exec the child only makes system calls.
 */
#ifndef PROCAGE_PLAN_H
#define PROCAGE_PLAN_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "procage.h"
#include "cgroup_view.h"
#include "host/id_maps.h"

/* The most descriptors a spawn maps besides 0, 1 and 2. */
#define PLAN_MAX_FDS 128
/* The ports a proxy-only run on T1 captures at most (transparent egress). */
#define PLAN_CAPTURE_PORTS 16

/* The failure index of the core limit, set apart from the other limits. */
#define PLAN_CORE_LIMIT_INDEX RLIM_NLIMITS

struct plan_rlimit {
	int resource;
	struct rlimit limit;
};

/* A mount the child makes in its own mount namespace (tier T1). */
enum plan_mount_kind {
	PLAN_MOUNT_PIN,       /* a bind of the path over itself: it cannot be renamed */
	PLAN_MOUNT_READ_ONLY, /* a read-only bind of the path over itself */
	PLAN_MOUNT_HIDE_DIR,  /* an empty, unreadable, read-only directory over it */
	PLAN_MOUNT_HIDE_FILE, /* an empty, unreadable, read-only file over it */
};

struct plan_mount {
	enum plan_mount_kind kind;
	const char *path; /* canonical; must not have changed into a symlink */
	/*
	 * A socket bound when the plan was made, masked because the cage
	 * names others: one gone by the time the mask is laid (its listener
	 * closed) is passed over.
	 */
	bool bound_socket;
};

/*
 * Tier T1: a tree that stays writable when every other mount is made
 * read-only. The child fills the descriptors (the plan's memory is its
 * scratch space: it allocates nothing).
 */
struct plan_writable {
	const char *path; /* canonical, the outermost of nested write grants */
	int target_fd;    /* O_PATH of the path, before the mounts turn read-only */
	int tree_fd;      /* a detached writable copy of the tree, moved back on top */
};

/*
 * Tier T1, changes as an overlay: one write grant's tree seen through an
 * overlay whose upper layer lies in procage's store (src/lib/changes/).
 * The parent opens every descriptor; the reaper mounts and grants it.
 */
struct plan_overlay {
	const char *path; /* canonical: the grant, the overlay's lower layer */
	int lower_fd;     /* O_PATH of path, opened without following a link */
	int upper_fd;     /* the store's upper and work directories */
	int work_fd;
	/*
	 * Their paths (owned): a layer must be a mount of the namespace that
	 * makes the overlay, so the reaper opens them again there, checked to
	 * be the inodes pinned by the descriptors.
	 */
	char *upper_path, *work_path;
	uint64_t rights; /* the grant's Landlock rights, given to the overlay's root */
	/*
	 * The overlay made by the caller, detached (plan_overlay_premount),
	 * or -1: the reaper then makes it in the run's user namespace.
	 */
	int mnt_fd;
};

/* A failure index of the mounts step naming overlay i rather than a mask. */
#define PLAN_OVERLAY_INDEX(i) (-2 - (int)(i))

struct plan {
	int status_fd;   /* write end of the close-on-exec status pipe */
	int landlock_fd; /* the filled ruleset */
	/*
	 * landlock_fd is the run's own, to which the reaper adds the run's
	 * temporary directory and /proc; else a copy of the cage's
	 * descriptor, to which nothing may be added.
	 */
	bool landlock_per_run;
	const struct sock_fprog *seccomp;
	/* Installed over it once the listener is handed over, or NULL (seccomp.h). */
	const struct sock_fprog *seccomp_after_handover;
	const char *cwd; /* canonical; entered after the mounts, never inherited */
	const char *exec_path;
	char *const *argv;
	char *const *envp;
	struct plan_rlimit rlimits[RLIM_NLIMITS];
	size_t n_rlimits;
	/*
	 * Set before the filter, which keeps it from changing (plan.c,
	 * plan_core_limit); a failure to set it is reported with the index
	 * PLAN_CORE_LIMIT_INDEX.
	 */
	struct rlimit core_limit;
	bool core_limit_set;
	const struct procage_fd_map *fds;
	size_t n_fds;
	int fd_scratch_base;  /* above every target and every plan descriptor */
	bool holds_setpcap;   /* the caller may change securebits and the bounding set */
	/* Tier T1: namespaces made by clone, then id maps and mounts. */
	unsigned long clone_namespaces; /* CLONE_NEW* flags, 0 on tier T2 */
	struct id_maps id_maps; /* formatted in the parent */
	/*
	 * A root caller's run: a detached id-mapped copy of /etc, attached
	 * over it before the masks (root_private.h); -1 for none.
	 */
	int root_private_tree_fd;
	const struct plan_mount *mounts; /* ancestors before descendants */
	size_t n_mounts;
	char **owned_paths; /* mount paths the plan made (NULL-terminated), owned */
	/*
	 * Everything but the write grants read-only (T1), so that no
	 * metadata call (chmod, chown, utimes, xattrs) reaches a file
	 * outside them: Landlock does not judge those calls.
	 */
	bool read_only_mounts;
	/*
	 * The reaper made them read-only in the run's mount namespace, which
	 * the target shares: it has nothing left to write there (its
	 * temporary directory is a tmpfs, and no cgroup directory is left
	 * for it to remove). Else the target does it in a mount namespace of
	 * its own, a copy of the reaper's.
	 */
	bool read_only_by_reaper;
	struct plan_writable *writable;
	size_t n_writable;
	/* Laid before the masks, which then cover what lies inside them. */
	struct plan_overlay *overlays;
	size_t n_overlays;
	char *changes_store;  /* the store of change sets (owned), masked; or NULL */
	int changes_store_fd; /* its directory, opened by the parent */
	int changes_lock_fd;  /* the run's claim on its change set (changes_set_claim) */
	struct timespec changes_started; /* the start mark of the change set (overlays.c) */
	/*
	 * Must the target wait for the coarse clock to pass the mark? Not
	 * when every tree's file system already stamps at or after it
	 * (overlays.c, stamps_reach_mark).
	 */
	bool changes_mark_wait;
	/*
	 * Bytes the upper layers may hold, or 0: then they lie in a tmpfs
	 * of that size which the reaper makes (plan_changes_layers_make)
	 * and hands to the caller, who copies the change set into the store
	 * when the run ends (changes/layers.c).
	 */
	uint64_t changes_limit;
	/*
	 * The run's reaper (spawn only; exec mode has none). It is cloned
	 * with clone_namespaces, makes the id maps and mounts, joins the
	 * run's cgroup, leads a session as a child subreaper and starts the
	 * target on target_stack.
	 */
	bool reaper;
	int reaper_socket;    /* the reaper's end of the run's socket */
	bool seccomp_report;  /* hand the filter's listener to the caller */
	uint16_t proxy_port;  /* a proxy-only run: its listener's port, or 0 */
	bool loopback_up;     /* a loopback run on T1: lo up in its network namespace */
	/*
	 * T1 with Unix sockets judged by the broker: the reaper hands over a
	 * sock_diag socket of the run's network namespace (REAPER_UNIX_DIAG).
	 */
	bool unix_diag;
	bool publish_factory; /* ports published: the reaper hands out sockets of the namespace */
	/* A proxy-only run on T1: transparent egress (proxy/capture.h) at these ports. */
	bool capture;
	uint16_t capture_ports[PLAN_CAPTURE_PORTS];
	size_t n_capture_ports;
	int caller_socket;    /* the caller's end: the reaper closes its copy */
	/*
	 * The hard-link check's verdict (run/hardlinks_gate.h): the target
	 * reads one byte here before it restricts itself, or -1: no wait.
	 * The reaper closes its copy of the writing end, exec_gate_write_fd,
	 * before it starts the target: should the caller die before the
	 * verdict, its end goes with it and the target reads end of file,
	 * or sees caller_pidfd readable: a copy of that end in a process
	 * the caller's other threads forked meanwhile keeps no run waiting.
	 */
	int exec_gate_fd;
	int exec_gate_write_fd;
	/*
	 * A pidfd of the caller's process, readable once it has ended. The
	 * reaper watches it beside its end of the run's socket, whose
	 * caller's end a process forked by another of the caller's threads
	 * may hold a copy of: the run never outlives its caller for that.
	 */
	int caller_pidfd;
	int cgroup_procs_fd;  /* cgroup.procs of the run's cgroup (the target joins), or -1 */
	bool private_proc;    /* a PID namespace: mount a /proc of its own */
	uint64_t proc_rights; /* Landlock rights of a grant on /proc itself, or 0 */
	void *target_stack;   /* the top of the target's stack */
	const char *tmpdir;   /* the run's private temporary directory, or NULL */
	const char *cgroup_dir; /* the run's cgroup, or NULL */
	/*
	 * Tier T1: the run's read-only view of its cgroup, laid by the
	 * reaper, and a cgroup namespace the target enters once it is in its
	 * cgroup (cgroup_view.h).
	 */
	struct cgroup_views cgroup_views;
	bool cgroup_namespace;
};

/*
 * What the reaper writes on the status pipe once the target has exec'd,
 * one byte, after which it closes its end. The caller takes that byte, not
 * the end of file, for the start: a process another thread of the caller
 * forked meanwhile holds a copy of the writing end for as long as it lives.
 */
#define STATUS_STARTED 's'

/* What the child writes on the status pipe when a step fails. */
struct child_failure {
	int32_t step; /* enum procage_step */
	int32_t err;  /* errno */
	int32_t index; /* which descriptor or limit, or -1 */
};

/* The target's entry point (for clone): runs the steps, then exec. */
int child_main(void *plan);
/*
 * The target's steps from the signal reset to exec, in the calling
 * process: returns only when one fails, with the failure in *f.
 */
int child_steps(const struct plan *plan, struct child_failure *f);


struct procage_cage;

/*
 * Fill plan for one spawn of cage (the parent's side). Descriptors the
 * plan owns (the ruleset and status_fd) are moved above every mapped
 * target. tmpdir, when not NULL, is the run's temporary directory, which
 * the reaper makes and grants before the target starts: on tier T1 it
 * stays writable when everything else turns read-only. The plan owns
 * status_fd from the call on; on failure nothing stays open.
 */
int plan_build(const struct procage_cage *cage, const struct procage_spawn_opts *opts,
	       const char *tmpdir, int status_fd, struct plan *plan, struct procage_error *err);
/*
 * The target waits on read_fd for the hard-link check's verdict, written
 * at write_fd, which stays the caller's until the spawn returns (the
 * reaper closes its copy). The plan owns read_fd from the call on, and
 * moves it above the descriptors the target maps.
 */
int plan_exec_gate_take(struct plan *plan, int read_fd, int write_fd, struct procage_error *err);
/* Tier T1: the plan's mounts, from the cage's denials and sockets. */
int plan_mounts_build(const struct procage_cage *cage, const char *tmpdir, struct plan *plan,
		      struct procage_error *err);
/* The working directory the child enters, canonical (opts->cwd or ours); owned by the plan. */
int plan_cwd_resolve(const char *cwd, struct plan *plan, struct procage_error *err);
/*
 * Tier T1: mount overlay o over its path in the calling process's mount
 * namespace (overlay_mount.c): the mount's descriptor, or a negative errno.
 * Its layers are the store's, or with layers >= 0 (a bounded change set)
 * the directories INDEX/upper and INDEX/work made in that tmpfs.
 */
int plan_overlay_mount(const struct plan_overlay *o, int layers, size_t index);
/*
 * A bounded change set's tmpfs, detached: bytes in size, an inode for
 * each 4 KiB of it (at least 1024), mode 0700. Its descriptor, or a
 * negative errno.
 */
int plan_changes_layers_make(uint64_t bytes);
/*
 * The overlay o made here, before the run's namespaces exist, with
 * redirects (a renamed directory is recorded as one), when the caller may
 * (CAP_SYS_ADMIN of the initial user namespace): a detached mount in
 * o->mnt_fd, or a negative errno and none.
 */
int plan_overlay_premount(struct plan_overlay *o);
/* Lay an empty, read-only directory over the store of change sets (store_fd pins it). */
int plan_changes_store_mask(const char *store, int store_fd);
/* Close the plan's descriptors (our end of the status pipe among them). */
void plan_close_fds(struct plan *plan);
/* Close and free everything the plan owns. */
void plan_release(struct plan *plan);

#endif
