/*
 * exec mode: the calling process becomes the caged command. The same
 * preparation as a spawn, then the same steps in the calling process
 * itself, then exec. There is no reaper and no supervisor: the command's
 * lifetime is the caller's, and nothing is left to remove a cgroup or a
 * private temporary directory made on the host (tier T2) afterwards, so a
 * cage that needs one is refused here.
 *
 * On tier T1 the namespaces are unshared (a user namespace needs a
 * single-threaded process); a PID namespace would only hold the caller's
 * children, not the caller, so exec mode has none, and no /proc of its
 * own. Its private temporary directory (and shared memory) is a tmpfs in
 * its mount namespace, and its terminals a devpts there, as a run's: gone with the last process that holds the namespace, with
 * nothing to remove.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "cage/ahead.h"
#include "host/id_maps.h"
#include "host/ns_ahead.h"
#include "cage/cage.h"
#include "base/error.h"
#include "discover/handoff_snapshot.h"
#include "kernel/landlock.h"
#include "plan/namespaces.h"
#include "policy/policy.h"
#include "spawn.h"

/* Before anything changes in this process: what exec mode cannot do. */
static int exec_refusal(const struct procage_cage *cage, struct procage_error *err)
{
	if (cage->policy->private_tmp && !cage->tmp_mounted)
		return error_set(err, -EOPNOTSUPP,
				 "exec mode cannot give the command a private temporary directory "
				 "on tier T2: nothing would remain to remove it from the host; turn "
				 "private tmp off");
	if (cage->policy->changes == PROCAGE_CHANGES_OVERLAY)
		return error_set(err, -EOPNOTSUPP,
				 "exec mode cannot keep changes in an overlay: nothing would remain "
				 "to read the change set when the command ends; use procage run");
	if (cage->policy->cgroup_memory || cage->policy->cgroup_pids)
		return error_set(err, -EOPNOTSUPP,
				 "exec mode cannot limit the whole run with a cgroup: nothing would "
				 "remain to remove it; use resource limits (rlimits) or procage run");
	if (cage->policy->reports)
		return error_set(err, -EOPNOTSUPP,
				 "exec mode cannot report refused calls: no supervisor remains to "
				 "answer them; turn reports off or use procage run");
	if (cage->policy->network == PROCAGE_NET_PROXY)
		return error_set(err, -EOPNOTSUPP,
				 "exec mode cannot serve a proxy: no supervisor remains; use "
				 "procage run");
	if (cage->policy->n_publish)
		return error_set(err, -EOPNOTSUPP,
				 "exec mode cannot publish port %u: no process remains to relay "
				 "the host's connections; use procage run",
				 (unsigned)cage->policy->publish[0]);
	if (cage->net_broker != BROKER_NET_NONE)
		return error_set(err, -EOPNOTSUPP,
				 "exec mode cannot keep the network to loopback on tier T2: no "
				 "supervisor remains to broker the connections; use procage run");
	/* Tier T1 keeps the masks of the sockets bound at spawn there. */
	if (cage->unix_brokered && cage->tier != PROCAGE_TIER_T1)
		return error_set(err, -EOPNOTSUPP,
				 "exec mode cannot judge Unix socket connects on tier T2: no "
				 "supervisor remains to broker them; use procage run");
	if (cage->n_write_roots && !(cage->policy->accepted & (1u << APPROX_SPAWN_SNAPSHOT)))
		return error_set(err, -EOPNOTSUPP,
				 "exec mode cannot hold the locations still missing in %s: no "
				 "supervisor remains to refuse their making; accept spawn-snapshot "
				 "or use procage run",
				 cage->write_roots[0].path);
	return 0;
}

/*
 * Tier T1: the tmpfs over the temporary-directory base, after the masks
 * (one may lie below it), granted to the command in its own ruleset.
 */
static int exec_tmp_mount(struct plan *plan, const char *tmp, uint64_t rights,
			  struct child_failure *f)
{
	int mnt = namespaces_private_tmp_mount(tmp);
	if (mnt < 0) {
		f->err = -mnt;
		return mnt;
	}
	int rc = plan->landlock_per_run ? landlock_ruleset_add_fd(plan->landlock_fd, mnt, rights)
					: -EPERM;
	close(mnt);
	if (rc < 0)
		f->err = -rc;
	return rc;
}

/*
 * The namespaces, the id maps, the mounts, the tmpfs mounts and the
 * devpts, in this process.
 */
static int exec_namespaces(struct plan *plan, const struct procage_cage *cage,
			   struct child_failure *f)
{
	const char *tmp = cage->tmp_mounted ? cage->tmp_base : NULL;
	int rc;
	*f = (struct child_failure){ PROCAGE_STEP_NAMESPACES, 0, -1 };
	if (unshare((int)plan->clone_namespaces) != 0) {
		f->err = errno;
		return -errno;
	}
	f->step = PROCAGE_STEP_ID_MAPS;
	if ((rc = id_maps_write(&plan->id_maps, 0)) < 0) {
		f->err = -rc;
		return rc;
	}
	f->step = PROCAGE_STEP_MOUNTS;
	if ((rc = namespaces_mounts_apply(plan, &f->index)) < 0) {
		f->err = -rc;
		return rc;
	}
	f->step = PROCAGE_STEP_NAMESPACES;
	if (plan->loopback_up && (rc = namespaces_loopback_up()) < 0) {
		f->err = -rc;
		return rc;
	}
	f->step = PROCAGE_STEP_MOUNTS;
	if (tmp && (rc = exec_tmp_mount(plan, tmp, cage->landlock.handled_fs, f)) < 0)
		return rc;
	if (cage->shm_mount &&
	    (rc = exec_tmp_mount(plan, cage->shm_mount, cage->landlock.handled_fs, f)) < 0)
		return rc;
	if (!cage->pts_private)
		return 0;
	rc = namespaces_private_pts_lay(CAGE_PTS_DIR,
					cage->pts_private == CAGE_PTS_WITH_PTMX ? CAGE_PTMX : NULL,
					plan->landlock_per_run ? plan->landlock_fd : -1,
					cage->landlock.handled_fs);
	if (rc < 0)
		f->err = -rc;
	return rc;
}

/*
 * Tier T1 in exec mode: no broker serves the directories whose Landlock
 * grants were made entry by entry around locations still missing, so the
 * write grants are given whole again (the masks still hold what exists):
 * a missing class location can then be made, which the policy accepted as
 * spawn-snapshot (exec_refusal). The cage's own ruleset is shared by its
 * runs, so a fresh one takes the extra rules.
 */
static int exec_write_roots_whole(const struct procage_cage *cage, struct plan *plan,
				  struct procage_error *err)
{
	if (!cage->n_write_roots)
		return 0;
	if (!plan->landlock_per_run) {
		int fresh = landlock_ruleset_create(&cage->landlock, cage->grants, cage->n_grants, err);
		if (fresh < 0)
			return fresh;
		int moved = fcntl(fresh, F_DUPFD_CLOEXEC, plan->fd_scratch_base);
		close(fresh);
		if (moved < 0)
			return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
					     "making the exec mode's Landlock ruleset");
		close(plan->landlock_fd);
		plan->landlock_fd = moved;
		plan->landlock_per_run = true;
	}
	for (size_t i = 0; i < cage->n_write_roots; i++) {
		int rc = landlock_ruleset_add_fd(plan->landlock_fd, cage->write_roots[i].path_fd,
						 cage->write_roots[i].access);
		if (rc < 0)
			return error_set_sys(err, -rc, PROCAGE_STEP_PREPARE, "write rule for %s",
					     cage->write_roots[i].path);
	}
	return 0;
}

PROCAGE_API int procage_exec(const struct procage_cage *cage,
			     const struct procage_spawn_opts *opts, struct procage_error *err)
{
	struct procage_spawn_opts o;
	struct spawn_state s = { .status_read = -1, .status_write = -1, .report_fd = -1,
				 .plan = { .status_fd = -1, .landlock_fd = -1, .root_private_tree_fd = -1,
					   .cgroup_procs_fd = -1, .exec_gate_fd = -1,
					   .exec_gate_write_fd = -1, .caller_pidfd = -1 } };
	struct child_failure f;
	int rc;

	error_clear(err);
	if (!cage)
		return error_set(err, -EINVAL, "no cage given");
	handoff_snapshot_stale(cage->handoff_snapshot);
	
/*
	 * The kernel lets only a process of one thread enter new namespaces:
	 * work a caller began ahead (procage_prepare_ahead) ends here if no
	 * cage has taken it yet, and namespaces made ahead are let go.
	 */
	ahead_join();
	ns_ahead_drop();
	if ((rc = spawn_opts_copy(opts, &o, err)) < 0 || (rc = exec_refusal(cage, err)) < 0 ||
	    (rc = spawn_prepare(cage, &o, &s, err)) < 0 ||
	    (rc = exec_write_roots_whole(cage, &s.plan, err)) < 0) {
		spawn_state_release(&s);
		return rc;
	}
	/*
	 * No reaper lays the view of the run's cgroup here: the command keeps
	 * the caller's cgroup namespace, and its hierarchy stays unread.
	 */
	cgroup_views_free(&s.plan.cgroup_views);
	s.plan.cgroup_namespace = false;
	/*
	 * No supervisor remains to broker entry calls: the directories
	 * around a denial stay read-only, as entry-grants says.
	 */
	s.plan.seccomp = &cage->seccomp_unbrokered;
	s.plan.seccomp_report = false;
	s.plan.seccomp_after_handover = NULL; /* no listener is handed over */
	/* No reaper, and the caller stays in its own PID namespace. */
	s.plan.reaper = false;
	s.plan.unix_diag = false; /* no supervisor to hand it to */
	s.plan.clone_namespaces &= ~(unsigned long)CLONE_NEWPID;
	s.plan.private_proc = false;
	s.plan.proc_rights = 0;

	if (s.plan.clone_namespaces && exec_namespaces(&s.plan, cage, &f) < 0) {
		if (f.step == PROCAGE_STEP_NAMESPACES && f.err == EINVAL)
			rc = error_set_sys(err, f.err, f.step,
					   "step namespaces: exec mode on tier T1 needs a "
					   "single-threaded process to enter a user namespace");
		else
			rc = failure_to_error(&f, &s.plan, err);
	} else {
		child_steps(&s.plan, &f); /* returns only on failure */
		rc = failure_to_error(&f, &s.plan, err);
	}
	spawn_state_release(&s);
	return rc;
}
