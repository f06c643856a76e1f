/*
 * Building a spawn's plan in the parent: descriptor numbers settled, limits
 * converted, the Landlock ruleset created and filled, the capability
 * question answered, so the child has nothing left to decide.
 */
#include "plan.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cage/cage.h"
#include "base/error.h"
#include "base/syscalls.h"
#include "host/host.h"
#include "host/id_maps.h"
#include "kernel/landlock.h"
#include "namespaces.h"
#include "discover/root_private.h"
#include "kernel/seccomp.h"

static int fd_map_check(const struct procage_spawn_opts *opts, int *max_target,
			struct procage_error *err)
{
	*max_target = 2;
	if (opts->n_fds > PLAN_MAX_FDS)
		return error_set(err, -EINVAL, "%zu descriptors to pass; at most %d", opts->n_fds,
				 PLAN_MAX_FDS);
	for (size_t i = 0; i < opts->n_fds; i++) {
		const struct procage_fd_map *m = &opts->fds[i];
		if (m->child_fd < 0 || m->child_fd > 1 << 20)
			return error_set(err, -EBADF, "descriptor map %zu: child number %d is out "
						      "of range", i, m->child_fd);
		if (fcntl(m->parent_fd, F_GETFD) < 0)
			return error_set_sys(err, errno, PROCAGE_STEP_NONE,
					     "descriptor map %zu: parent descriptor %d", i,
					     m->parent_fd);
		for (size_t j = 0; j < i; j++)
			if (opts->fds[j].child_fd == m->child_fd)
				return error_set(err, -EINVAL,
						 "descriptor maps %zu and %zu both give child "
						 "descriptor %d", j, i, m->child_fd);
		if (m->child_fd > *max_target)
			*max_target = m->child_fd;
	}
	return 0;
}

/* Move fd to the lowest free number at or above base (close-on-exec). */
static int fd_move_above(int fd, int base)
{
	if (fd >= base)
		return fd;
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, base);
	int e = errno;
	close(fd);
	errno = e;
	return moved;
}

static bool caller_holds_setpcap(void)
{
	struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	if (syscall(SYS_capget, &header, data) != 0)
		return false;
	return data[CAP_TO_INDEX(CAP_SETPCAP)].effective & CAP_TO_MASK(CAP_SETPCAP);
}

/*
 * The rights on the run's own /proc: a grant on /proc itself was made on
 * the caller's /proc, and the new one gets the same; own_proc adds
 * reading, as the run's /proc holds only its own processes (never for a
 * root caller: cage.c). (A grant above /proc covers the new one by path.)
 */
static uint64_t proc_grant_rights(const struct procage_cage *cage)
{
	uint64_t rights = 0;
	if (cage->own_proc)
		rights = landlock_fs_rights_read() & cage->landlock.handled_fs;
	for (size_t i = 0; i < cage->n_grants; i++)
		if (strcmp(cage->grants[i].path, "/proc") == 0)
			rights |= cage->grants[i].access;
	return rights;
}

/*
 * The ruleset the target enforces. The cage's own, made once, when the run
 * needs no rule of its own: the child only enforces it, and nothing is
 * ever added to it. A run whose private temporary directory or /proc is
 * granted at spawn (by the reaper, which makes them) gets a ruleset of its
 * own, since a ruleset cannot be copied and rules added to the cage's
 * would reach every later run.
 */
static int plan_ruleset(const struct procage_cage *cage, struct plan *plan,
			struct procage_error *err)
{
	plan->landlock_per_run = cage->landlock_fd < 0;
	/* The cage decided (cage_run_rules_needed); a run that disagrees is a mistake. */
	if (!plan->landlock_per_run && (cage->tmp_base || plan->proc_rights))
		return error_set(err, -EINVAL, "the cage's ruleset would take rules of one run");
	if (plan->landlock_per_run)
		return landlock_ruleset_create(&cage->landlock, cage->grants, cage->n_grants, err);
	int fd = fcntl(cage->landlock_fd, F_DUPFD_CLOEXEC, plan->fd_scratch_base);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
				     "taking the cage's Landlock ruleset");
	return fd;
}

/*
 * The run's own id-mapped /etc, when the cage chose it over the walk: a
 * spawn that cannot make it fails rather than show the real one.
 */
static int plan_root_private_tree(const struct procage_cage *cage, struct plan *plan,
				  struct procage_error *err)
{
	if (cage->root_private_userns_fd < 0)
		return 0;
	int tree = root_private_tree_open(cage->root_private_userns_fd);
	if (tree < 0)
		return error_set_sys(err, -tree, PROCAGE_STEP_PREPARE,
				     "making the id-mapped copy of " ROOT_PRIVATE_TREE
				     " that hides its root-only files");
	plan->root_private_tree_fd = fd_move_above(tree, plan->fd_scratch_base);
	if (plan->root_private_tree_fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
				     "moving the plan's descriptors");
	return 0;
}

/*
 * No core dump leaves the run unless the policy asks for one. A
 * core_pattern that pipes to a helper (systemd-coredump, apport) has the
 * kernel run it as root outside every namespace, on the run's memory and
 * its /proc, whatever RLIMIT_CORE is but 1: the kernel's "none" for a
 * pipe, and for a file less than any core. So the run's limit is 1 (a
 * policy's 0 too), and the filter keeps it from changing it
 * (seccomp_build.c). Where the caller's own hard limit is 0, 1 cannot be
 * set: 0 stays (THREAT_MODEL.md R-47).
 */
static void plan_core_limit(const struct procage_cage *cage, struct plan *plan)
{
	const struct policy_rlimit *l = &cage->policy->rlimits[RLIMIT_CORE];
	struct rlimit now;
	if (l->set && l->soft > 0) {
		plan->core_limit = (struct rlimit){ (rlim_t)l->soft, (rlim_t)l->hard };
		plan->core_limit_set = true;
	} else if (getrlimit(RLIMIT_CORE, &now) == 0 && now.rlim_max >= 1) {
		plan->core_limit = (struct rlimit){ 1, 1 };
		plan->core_limit_set = true;
	}
}

int plan_build(const struct procage_cage *cage, const struct procage_spawn_opts *opts,
	       const char *tmpdir, int status_fd, struct plan *plan, struct procage_error *err)
{
	int max_target, rc;

	memset(plan, 0, sizeof *plan);
	plan->landlock_fd = plan->root_private_tree_fd = -1;
	plan->reaper_socket = plan->caller_socket = plan->cgroup_procs_fd = -1;
	plan->exec_gate_fd = plan->exec_gate_write_fd = plan->caller_pidfd = -1;
	plan->status_fd = status_fd; /* ours from here: closed on failure */
	if ((rc = fd_map_check(opts, &max_target, err)) < 0) {
		plan_release(plan);
		return rc;
	}
	plan->fd_scratch_base = max_target + 1;
	plan->fds = opts->fds;
	plan->n_fds = opts->n_fds;
	if ((rc = plan_cwd_resolve(opts->cwd, plan, err)) < 0) {
		plan_release(plan);
		return rc;
	}
	plan->argv = opts->argv;
	plan->seccomp = &cage->seccomp;
	plan->holds_setpcap = caller_holds_setpcap();
	plan->seccomp_report = cage_supervisor_notified(cage);
	plan->seccomp_after_handover =
		plan->seccomp_report && cage->seccomp_handover_open ? &seccomp_handover_closed : NULL;
	/* Tier T2 has no namespace for it: the caller's process listens (spawn.c). */
	plan->proxy_port = cage->policy->network == PROCAGE_NET_PROXY &&
				   cage->tier == PROCAGE_TIER_T1
			       ? POLICY_PROXY_PORT
			       : 0;
	if (cage->tier == PROCAGE_TIER_T1) {
		plan->clone_namespaces = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC;
		/* A network namespace of its own has nothing to reach. */
		if (cage->policy->network != PROCAGE_NET_ON)
			plan->clone_namespaces |= CLONE_NEWNET;
		/* The loopback mode's loopback is the run's own. */
		plan->loopback_up = cage->policy->network == PROCAGE_NET_LOOPBACK;
		plan->unix_diag = cage->unix_brokered && (plan->clone_namespaces & CLONE_NEWNET);
		/*
		 * A PID namespace of its own, whose first process is the run's
		 * reaper: its exit ends every process of the run, and a /proc
		 * mounted there shows only them.
		 */
		if (cage_pid_namespace(cage)) {
			plan->clone_namespaces |= CLONE_NEWPID;
			plan->private_proc = true;
			plan->proc_rights = proc_grant_rights(cage);
		}
		id_maps_own(&plan->id_maps);
		if ((rc = plan_mounts_build(cage, tmpdir, plan, err)) < 0 ||
		    (rc = plan_root_private_tree(cage, plan, err)) < 0) {
			plan_release(plan);
			return rc;
		}
	}

	for (int r = 0; r < RLIM_NLIMITS; r++) {
		const struct policy_rlimit *l = &cage->policy->rlimits[r];
		if (!l->set || r == RLIMIT_CORE)
			continue;
		plan->rlimits[plan->n_rlimits++] = (struct plan_rlimit){
			r, { (rlim_t)l->soft, (rlim_t)l->hard }
		};
	}
	plan_core_limit(cage, plan);

	/* The ruleset and the status pipe must survive the descriptor step. */
	int ruleset = plan_ruleset(cage, plan, err);
	if (ruleset < 0) {
		plan_release(plan);
		return ruleset;
	}
	plan->landlock_fd = fd_move_above(ruleset, plan->fd_scratch_base);
	plan->status_fd = fd_move_above(status_fd, plan->fd_scratch_base);
	/* Close-on-exec, as every pidfd. */
	int caller = sys_pidfd_open(getpid(), 0);
	plan->caller_pidfd = caller < 0 ? -1 : fd_move_above(caller, plan->fd_scratch_base);
	if (plan->landlock_fd < 0 || plan->status_fd < 0 || plan->caller_pidfd < 0) {
		rc = error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "moving the plan's descriptors");
		plan_release(plan);
		return rc;
	}
	/* The scratch copies go above the plan's own descriptors. */
	int highest = plan->landlock_fd > plan->status_fd ? plan->landlock_fd : plan->status_fd;
	if (plan->caller_pidfd > highest)
		highest = plan->caller_pidfd;
	if (plan->root_private_tree_fd > highest)
		highest = plan->root_private_tree_fd;
	plan->fd_scratch_base = highest + 1;
	return 0;
}

int plan_exec_gate_take(struct plan *plan, int read_fd, int write_fd, struct procage_error *err)
{
	plan->exec_gate_write_fd = write_fd;
	plan->exec_gate_fd = fd_move_above(read_fd, plan->fd_scratch_base);
	if (plan->exec_gate_fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
				     "moving the hard-link check's pipe");
	plan->fd_scratch_base = plan->exec_gate_fd + 1;
	return 0;
}

void plan_close_fds(struct plan *plan)
{
	if (plan->exec_gate_fd >= 0)
		close(plan->exec_gate_fd);
	if (plan->caller_pidfd >= 0)
		close(plan->caller_pidfd);
	plan->exec_gate_fd = plan->caller_pidfd = -1;
	if (plan->landlock_fd >= 0)
		close(plan->landlock_fd);
	if (plan->status_fd >= 0)
		close(plan->status_fd);
	if (plan->root_private_tree_fd >= 0)
		close(plan->root_private_tree_fd);
	plan->landlock_fd = plan->status_fd = plan->root_private_tree_fd = -1;
	/* Only a plan with overlays has opened these (a zeroed plan holds none). */
	for (size_t i = 0; plan->overlays && i < plan->n_overlays; i++) {
		struct plan_overlay *o = &plan->overlays[i];
		int *fds[] = { &o->lower_fd, &o->upper_fd, &o->work_fd, &o->mnt_fd };
		for (size_t k = 0; k < 4; k++)
			if (*fds[k] >= 0)
				close(*fds[k]);
		o->lower_fd = o->upper_fd = o->work_fd = o->mnt_fd = -1;
	}
	if (plan->changes_store && plan->changes_store_fd >= 0)
		close(plan->changes_store_fd);
	if (plan->changes_store && plan->changes_lock_fd >= 0)
		close(plan->changes_lock_fd);
	plan->changes_store_fd = plan->changes_lock_fd = -1;
}

void plan_release(struct plan *plan)
{
	plan_close_fds(plan);
	free((struct plan_mount *)plan->mounts);
	plan->mounts = NULL;
	procage_strings_free(plan->owned_paths);
	plan->owned_paths = NULL;
	plan->n_mounts = 0;
	free(plan->writable);
	plan->writable = NULL;
	plan->n_writable = 0;
	free((char *)plan->cwd);
	plan->cwd = NULL;
	for (size_t i = 0; plan->overlays && i < plan->n_overlays; i++) {
		free(plan->overlays[i].upper_path);
		free(plan->overlays[i].work_path);
	}
	free(plan->overlays);
	plan->overlays = NULL;
	plan->n_overlays = 0;
	free(plan->changes_store);
	plan->changes_store = NULL;
	cgroup_views_free(&plan->cgroup_views);
}
