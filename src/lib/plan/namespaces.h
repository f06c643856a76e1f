/* Tier T1: the run's user, mount, network and PID namespaces. */
#ifndef PROCAGE_NAMESPACES_H
#define PROCAGE_NAMESPACES_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

/*
 * Child side, system calls only: make every mount private, then apply the
 * plan's mounts in order. *index names the mount that failed.
 */
int namespaces_mounts_apply(const struct plan *plan, int *index);
/*
 * Attach the detached mount tree over the open target; target is closed
 * here. 0 or a negative errno.
 */
int namespaces_attach(int tree, int target);
/*
 * A copy of name in from (a directory or mount descriptor), read-only,
 * without set-id, devices or execution, attached over the open target;
 * target is closed here. 0 or a negative errno.
 */
int namespaces_attach_read_only_copy(int from, const char *name, int target);
/* The same in two parts, for a /proc of the run's own between them. */
int namespaces_mounts_private(void);
int namespaces_masks_apply(const struct plan *plan, int mask_source, int *index);
/*
 * System calls only: the source of every hiding mask, a detached read-only
 * tmpfs holding "d", a directory, and "f", a file, neither with any
 * permission bit. Its descriptor, or a negative errno. One serves every
 * mask of a run. Closing it unmounts it, and the kernel then waits for
 * a grace period of its own (RCU), a millisecond or more on a small
 * virtual machine: the reaper closes it once the target is running.
 */
int namespaces_mask_source_create(void);
/*
 * A new tmpfs, detached: size and mode as tmpfs takes them ("16k",
 * "0700"), nr_inodes too unless NULL, mounted with attrs (MOUNT_ATTR_*).
 * Its descriptor, or a negative errno.
 */
int namespaces_tmpfs_make(const char *size, const char *nr_inodes, const char *mode,
			  unsigned attrs);
/* A root caller's run: its id-mapped /etc over /etc (before the masks). */
int namespaces_root_private_attach(const struct plan *plan);

/*
 * The limits of a run's private temporary directory on tier T1, a tmpfs
 * (docs/lifetime.md): half the memory, a million files or directories.
 * Its pages are the memory of the process that writes them, so a memory
 * limit of the run counts them.
 */
#define NAMESPACES_TMP_SIZE "50%"
#define NAMESPACES_TMP_INODES "1048576"

/*
 * Reaper side (T1), system calls only: a fresh tmpfs, readable by its
 * owner only, laid over path in the run's mount namespace. Returns its
 * mount's descriptor (for the Landlock rule that grants it) or a negative
 * errno; the host's directory is neither changed nor reachable through it.
 */
int namespaces_private_tmp_mount(const char *path);

/*
 * Reaper or exec side (T1), system calls only: a devpts instance of the
 * run's own over pts_dir, and when ptmx is not NULL its ptmx over ptmx,
 * granted in ruleset_fd (of the rights handled) to read, write and steer.
 * A devpts that cannot be laid leaves the host's /dev/pts, which no rule
 * grants: the run cannot make terminals and reaches none of the user's,
 * so that is not an error. 0 or a negative errno (-EPERM: no ruleset).
 */
int namespaces_private_pts_lay(const char *pts_dir, const char *ptmx, int ruleset_fd,
			       uint64_t handled);

/*
 * System calls only (T1): every mount read-only but the plan's writable
 * trees, in a new mount namespace of the caller's own when own_namespace
 * (the target, when its reaper must keep a writable view), else in the
 * current one (the reaper, before it starts the target). *index names the
 * writable tree that failed, or is -1.
 */
int namespaces_read_only_apply(const struct plan *plan, bool own_namespace, int *index);

/*
 * Child side, in its own network namespace: loopback up, and a listening
 * TCP socket on 127.0.0.1:port returned (or a negative errno).
 */
int namespaces_proxy_listener(uint16_t port);
/* Child side, in its own network namespace: bring lo up. 0 or a negative errno. */
int namespaces_loopback_up(void);

#endif
