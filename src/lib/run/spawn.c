/*
 * procage_spawn: prepare in the parent, start the run's reaper (reaper.c),
 * which starts the target, which applies the cage; learn from the status
 * pipe whether the target started. EOF on the pipe means exec succeeded
 * (the write end is close-on-exec, and the reaper closes its copy once
 * the target has started); one record means a step failed and the target
 * never ran.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cage/cage.h"
#include "changes/overlays.h"
#include "changes/spare.h"
#include "host/cgroup.h"
#include "publish.h"
#include "plan/command.h"
#include "plan/env.h"
#include "plan/tool_caches.h"
#include "base/error.h"
#include "discover/handoff_snapshot.h"
#include "discover/hardlinks.h"
#include "host/host.h"
#include "cage/own_files.h"
#include "plan/plan.h"
#include "plan/proc_masks.h"
#include "run.h"
#include "spawn.h"
#include "capture_setup.h"
#include "tmpdir.h"

extern char **environ;

static const char *const step_names[PROCAGE_STEP__COUNT] = {
	[PROCAGE_STEP_PREPARE] = "prepare",
	[PROCAGE_STEP_NAMESPACES] = "namespaces",
	[PROCAGE_STEP_CGROUP] = "cgroup",
	[PROCAGE_STEP_ID_MAPS] = "id_maps",
	[PROCAGE_STEP_MOUNTS] = "mounts",
	[PROCAGE_STEP_PROC] = "proc",
	[PROCAGE_STEP_PROXY] = "proxy",
	[PROCAGE_STEP_REAPER] = "reaper",
	[PROCAGE_STEP_START] = "start",
	[PROCAGE_STEP_PROCESS_GROUP] = "process_group",
	[PROCAGE_STEP_RLIMITS] = "rlimits",
	[PROCAGE_STEP_CWD] = "cwd",
	[PROCAGE_STEP_FDS] = "fds",
	[PROCAGE_STEP_CAPABILITIES] = "capabilities",
	[PROCAGE_STEP_NO_NEW_PRIVS] = "no_new_privs",
	[PROCAGE_STEP_LANDLOCK] = "landlock",
	[PROCAGE_STEP_SECCOMP] = "seccomp",
	[PROCAGE_STEP_EXEC] = "exec",
};

PROCAGE_API const char *procage_step_name(int step)
{
	if (step < 0 || step >= PROCAGE_STEP__COUNT || !step_names[step])
		return "unknown";
	return step_names[step];
}

int failure_to_error(const struct child_failure *f, const struct plan *plan,
		     struct procage_error *err)
{
	const char *step = procage_step_name(f->step);
	if (f->step == PROCAGE_STEP_EXEC)
		return error_set_sys(err, f->err, f->step, "exec %s%s", plan->exec_path,
				     f->err == EACCES ? " (the cage grants no execute right on "
							"it, its interpreter or a library)"
						      : "");
	if (f->step == PROCAGE_STEP_FDS && f->index >= 0)
		return error_set_sys(err, f->err, f->step, "step %s: passing descriptor %d as %d",
				     step, plan->fds[f->index].parent_fd,
				     plan->fds[f->index].child_fd);
	if (f->step == PROCAGE_STEP_RLIMITS && f->index == PLAN_CORE_LIMIT_INDEX)
		return error_set_sys(err, f->err, f->step,
				     "step %s: setting resource limit core to %llu (no core dump "
				     "leaves the run)",
				     step, (unsigned long long)plan->core_limit.rlim_cur);
	if (f->step == PROCAGE_STEP_RLIMITS && f->index >= 0)
		return error_set_sys(err, f->err, f->step, "step %s: setting resource limit %s",
				     step, policy_rlimit_name(plan->rlimits[f->index].resource));
	if (f->step == PROCAGE_STEP_MOUNTS && f->index <= PLAN_OVERLAY_INDEX(0))
		return error_set_sys(
			err, f->err, f->step, "step %s: %s%s%s", step,
			(size_t)(PLAN_OVERLAY_INDEX(0) - f->index) < plan->n_overlays
				? "the overlay over "
				: "masking the store of change sets ",
			(size_t)(PLAN_OVERLAY_INDEX(0) - f->index) < plan->n_overlays
				? plan->overlays[PLAN_OVERLAY_INDEX(0) - f->index].path
				: plan->changes_store,
			f->err == EINVAL || f->err == EPERM
				? " (an overlay in a user namespace needs Linux 5.11 or later and "
				  "an upper layer on a file system with user extended attributes; "
				  "run without --changes overlay)"
				: "");
	/*
	 * A mask's path that was there when the plan was made and gone by the
	 * mount: the host changed under the cage (-ESTALE, procage.h), which a
	 * cage made again follows.
	 */
	if (f->step == PROCAGE_STEP_MOUNTS && f->index >= 0 && f->err == ENOENT) {
		int rc = error_set(err, -ESTALE,
				   "step %s: %s was there when the run was planned and is gone now "
				   "(moved or removed); make the cage again",
				   step, plan->mounts[f->index].path);
		if (err)
			err->step = f->step;
		return rc;
	}
	if (f->step == PROCAGE_STEP_MOUNTS && f->index >= 0)
		return error_set_sys(err, f->err, f->step, "step %s: %s %s", step,
				     plan->mounts[f->index].kind == PLAN_MOUNT_READ_ONLY
					     ? "making read-only"
					     : "hiding",
				     plan->mounts[f->index].path);
	if (f->step == PROCAGE_STEP_PROC && f->index >= 0 && (size_t)f->index < proc_masks_count)
		return error_set_sys(err, f->err, f->step,
				     "step %s: %s /proc/%s in the run's own /proc (the run is not "
				     "started without it)",
				     step,
				     proc_masks[f->index].kind == PROC_MASK_READ_ONLY ? "making read-only"
										   : "hiding",
				     proc_masks[f->index].name);
	if (f->step == PROCAGE_STEP_CGROUP && f->index >= 0 &&
	    (size_t)f->index < plan->cgroup_views.n)
		return error_set_sys(err, f->err, f->step,
				     "step %s: laying the run's read-only view of its cgroup %s over "
				     "%s (the run is not started without it)",
				     step, plan->cgroup_views.views[f->index].source,
				     plan->cgroup_views.views[f->index].target);
	if (f->step == PROCAGE_STEP_CWD)
		return error_set_sys(err, f->err, f->step, "step cwd: changing to %s", plan->cwd);
	return error_set_sys(err, f->err, f->step, "step %s", step);
}

/* As the kernel bounds such structs by a page: a size beyond is a mistake, not a version. */
#define SPAWN_OPTS_MAX_SIZE 4096

int spawn_opts_copy(const struct procage_spawn_opts *opts, struct procage_spawn_opts *o,
		    struct procage_error *err)
{
	memset(o, 0, sizeof *o);
	if (!opts || opts->size < offsetof(struct procage_spawn_opts, envp))
		return error_set(err, -EINVAL, "spawn options missing or their size not set");
	/*
	 * A caller built against a newer header passes a larger struct. As
	 * the kernel's copy_struct_from_user: its extra bytes must all be
	 * zero, since a field we do not know could be one that restricts.
	 */
	if (opts->size > SPAWN_OPTS_MAX_SIZE)
		return error_set(err, -E2BIG, "spawn options of %zu bytes; at most %d",
				 opts->size, SPAWN_OPTS_MAX_SIZE);
	for (size_t i = sizeof *o; i < opts->size; i++)
		if (((const unsigned char *)opts)[i])
			return error_set(err, -E2BIG,
					 "spawn options of %zu bytes set byte %zu, beyond the %zu "
					 "this library knows (built against a newer procage.h?)",
					 opts->size, i, sizeof *o);
	memcpy(o, opts, opts->size < sizeof *o ? opts->size : sizeof *o);
	if (!o->argv || !o->argv[0])
		return error_set(err, -EINVAL, "no command given");
	if (o->n_fds && !o->fds)
		return error_set(err, -EINVAL, "%zu descriptors to pass but no map", o->n_fds);
	if (o->cwd && o->cwd[0] != '/')
		return error_set(err, -EINVAL, "working directory %s is relative", o->cwd);
	return 0;
}

/* Limits of the whole run: a cgroup of the run's own, which the target joins. */
static int spawn_cgroup(const struct procage_cage *cage, struct spawn_state *s,
			struct procage_error *err)
{
	const struct procage_policy *p = cage->policy;
	if (!p->cgroup_memory && !p->cgroup_pids)
		return 0;
	int rc = cgroup_create(host_facts_with_cgroup(), p->cgroup_memory, p->cgroup_pids,
			       &s->cgroup_dir, &s->plan.cgroup_procs_fd, err);
	s->plan.cgroup_dir = s->cgroup_dir;
	return rc;
}

void spawn_state_release(struct spawn_state *s)
{
	(void)hardlinks_gate_end(&s->gate, NULL); /* before its pipe's reading end goes */
	if (s->plan.cgroup_procs_fd >= 0)
		close(s->plan.cgroup_procs_fd);
	s->plan.cgroup_procs_fd = -1;
	if (s->cgroup_dir) {
		cgroup_remove(s->cgroup_dir);
		free(s->cgroup_dir);
		s->cgroup_dir = NULL;
	}
	plan_release(&s->plan);
	if (s->status_read >= 0)
		close(s->status_read);
	if (s->status_write >= 0)
		close(s->status_write);
	if (s->report_fd >= 0)
		close(s->report_fd);
	s->report_fd = -1;
	if (s->proxy_port && s->proxy_listener >= 0)
		close(s->proxy_listener);
	s->proxy_port = 0;
	publish_stop(s->publish);
	s->publish = NULL;
	env_free(s->env);
	free(s->exec_path);
	if (s->tmpdir) {
		tmpdir_remove(s->tmpdir);
		free(s->tmpdir);
	}
}

/* Everything a spawn needs after the hard-link check: the plan and what it names. */
static int spawn_plan_prepare(const struct procage_cage *cage, const struct procage_spawn_opts *o,
			      struct spawn_state *s, struct procage_error *err)
{
	int rc, fds[2];
	/* Tier T1 covers the base with a tmpfs of the run's own: nothing to choose. */
	if (cage->tmp_base && !cage->tmp_mounted &&
	    (rc = tmpdir_choose(cage->tmp_base, &s->tmpdir, &s->tmpdir_name, err)) < 0)
		return rc;
	const char *tmpdir = cage->tmp_mounted ? cage->tmp_base : s->tmpdir;
	if ((rc = env_build_proxy(cage->policy, o->envp ? o->envp : environ, tmpdir,
				  s->proxy_port ? s->proxy_port : POLICY_PROXY_PORT, &s->env, err)) < 0)
		return rc;
	if ((rc = tool_caches_default(cage, &s->env, tmpdir, err)) < 0)
		return rc;
	if ((rc = command_resolve(o->argv[0], env_lookup(s->env, "PATH"), o->cwd,
				  &s->exec_path, err)) < 0)
		return rc;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "creating the status pipe");
	s->status_read = fds[0];
	s->status_write = -1; /* the plan owns the write end from here */
	/* The reaper makes the temporary directory and grants it (reaper_start). */
	if ((rc = plan_build(cage, o, tmpdir, fds[1], &s->plan, err)) < 0)
		return rc;
	s->plan.exec_path = s->exec_path;
	s->plan.publish_factory = s->publish != NULL;
	s->plan.envp = s->env;
	s->plan.tmpdir = tmpdir;
	if ((rc = spawn_cgroup(cage, s, err)) < 0)
		return rc;
	/* Tier T1: the run sees its own cgroup only, read-only (cgroup_view.c). */
	if (s->plan.clone_namespaces & CLONE_NEWNS) {
		if ((rc = cgroup_views_build(s->cgroup_dir, &s->plan.cgroup_views, err)) < 0)
			return error_prefix(err, rc, "the run's view of its cgroup: ");
		s->plan.cgroup_namespace = true;
	}
	if (cage->policy->changes == PROCAGE_CHANGES_OVERLAY &&
	    (rc = changes_overlays_prepare(cage, &s->plan, s->changes_id, err)) < 0)
		return rc;
	return 0;
}

int spawn_prepare(const struct procage_cage *cage, const struct procage_spawn_opts *o,
		  struct spawn_state *s, struct procage_error *err)
{
	int rc, gate_read = -1;
	/* What retired change sets left (spare.h): removed beside the run's setup. */
	void (*beside)(void) =
		cage->policy->changes == PROCAGE_CHANGES_OVERLAY ? changes_store_trash_empty : NULL;
	if (s->gate_wanted)
		rc = hardlinks_gate_begin(cage, beside, &s->gate, &gate_read, err);
	else
		rc = cage_hardlinks_refusal(cage, err);
	if (rc < 0)
		return rc;
	/* No thread of the check's to do it meanwhile: here. */
	if (!s->gate.running && beside)
		beside();
	rc = spawn_plan_prepare(cage, o, s, err);
	if (gate_read < 0)
		return rc;
	if (rc == 0)
		return plan_exec_gate_take(&s->plan, gate_read, s->gate.write_fd, err);
	/* The check's refusal comes first, as when it ran before everything else. */
	struct procage_error gate_err;
	int gate_rc = hardlinks_gate_end(&s->gate, &gate_err);
	close(gate_read);
	if (gate_rc < 0) {
		*err = gate_err;
		return gate_rc;
	}
	return rc;
}

/*
 * Tier T2 proxy-only: the run's proxy listens on the host's loopback at a
 * port the kernel picks (no namespace of the run's own to hold 3128); the
 * broker lets the cage connect there only, and the proxy admits only the
 * connections the broker made (net_admission.h).
 */
static int proxy_listener_open(struct spawn_state *s, struct procage_error *err)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return error_set_sys(err, e, PROCAGE_STEP_PROXY,
				     "listening for the run's proxy on 127.0.0.1");
	}
	s->proxy_listener = fd;
	s->proxy_port = ntohs(a.sin_port);
	return 0;
}

/* A run of cage, or NULL: out of memory. */
static struct procage_run *run_alloc(const struct procage_cage *cage)
{
	struct procage_run *run = calloc(1, sizeof *run);
	if (run)
		run->changes_lock = -1;
	/* The run may outlive the cage: its own copy of where its TMPDIR is. */
	if (run && cage->tmp_mounted && !(run->tmpdir_inside = strdup(cage->tmp_base))) {
		free(run);
		run = NULL;
	}
	return run;
}

/* Start the run's supervision: the listeners and the report file are its own from here, also on failure. */
static int run_supervise(struct procage_run *run, const struct procage_cage *cage,
			 struct spawn_state *s, struct procage_error *err)
{
	int proxy_listener = run->reaper.proxy_listener;
	if (s->proxy_port) {
		proxy_listener = s->proxy_listener;
		s->proxy_port = 0; /* the supervision's from here */
	}
	run->reports_wanted = cage->policy->reports;
	struct supervision_capture capture = { run->reaper.capture_fds,
					       run->reaper.n_capture_fds };
	struct supervision_reaper reaper = { run->reaper.pid, run->reaper.pidfd,
					     run->reaper.unix_diag };
	run->reaper.unix_diag = -1; /* the supervision's from here */
	int rc = supervision_start(&run->supervision, cage, run->reaper.seccomp_listener,
				   proxy_listener, &capture, s->report_fd, s->plan.tmpdir, &reaper,
				   err);
	s->report_fd = -1;
	run->reaper.seccomp_listener = run->reaper.proxy_listener = -1;
	run->reaper.n_capture_fds = 0;
	return rc;
}

/*
 * What a spawn needs before its reaper: the report file, the listeners of
 * the run's proxy and published ports, the plan.
 */
static int spawn_ready(const struct procage_cage *cage, const struct procage_spawn_opts *o,
		       bool supervised, struct spawn_state *s, struct procage_error *err)
{
	int rc;
	/*
	 * The report file is opened before the child exists, so that nothing
	 * of this run can swap what its path names between the check and the
	 * open; from here it is kept by descriptor.
	 */
	if (supervised && o->report_json_path &&
	    (s->report_fd = own_files_open_report(cage, o->report_json_path, err)) < 0) {
		rc = s->report_fd;
		s->report_fd = -1;
		return rc;
	}
	if (cage->net_broker == BROKER_NET_PROXY && (rc = proxy_listener_open(s, err)) < 0)
		return rc;
	/* Before any child: a published port the host already uses refuses the run. */
	if (cage->policy->n_publish && cage->tier == PROCAGE_TIER_T1 &&
	    (rc = publish_listen(cage->policy->publish, cage->policy->n_publish, &s->publish,
				 err)) < 0)
		return rc;
	if ((rc = spawn_prepare(cage, o, s, err)) < 0)
		return rc;
	capture_plan(cage->policy, &s->plan);
	return 0;
}

/*
 * The run takes over from a spawn whose target started: the layers of a
 * bounded change set, the relay of published ports, the supervision and
 * the run's directories. On failure the run is ended and freed.
 */
static int run_take_over(struct procage_run *run, const struct procage_cage *cage,
			 struct spawn_state *s, bool supervised, struct procage_error *err)
{
	int rc;
	/* Without its layers the bounded change set would be lost: the run is ended. */
	if (s->plan.changes_limit && run->reaper.changes_layers < 0) {
		procage_run_free(run);
		(void)procage_changes_discard(s->changes_id, NULL);
		return error_set(err, -EIO, "the run's reaper did not hand over the layers of its "
					    "bounded change set");
	}
	if (s->publish) {
		int factory = run->reaper.publish_factory;
		run->reaper.publish_factory = -1;
		if (factory < 0 || (rc = publish_start(s->publish, factory, err)) < 0) {
			/* The relay owns the factory from publish_start on, failed or not. */
			if (factory < 0)
				rc = error_set(err, -EIO, "the run's reaper gave no socket factory for "
							  "the published ports");
			procage_run_free(run);
			return rc;
		}
		run->publish = s->publish;
		s->publish = NULL;
	}
	run->tmpdir = s->tmpdir;
	s->tmpdir = NULL;
	if (supervised && (rc = run_supervise(run, cage, s, err)) < 0) {
		procage_run_free(run);
		return rc;
	}
	run->cgroup_dir = s->cgroup_dir;
	s->cgroup_dir = NULL;
	return 0;
}

PROCAGE_API int procage_spawn(const struct procage_cage *cage,
			      const struct procage_spawn_opts *opts, struct procage_run **out,
			      struct procage_error *err)
{
	struct procage_spawn_opts o;
	struct spawn_state s = { .status_read = -1, .status_write = -1, .report_fd = -1,
				 .plan = { .status_fd = -1, .landlock_fd = -1, .root_private_tree_fd = -1,
					   .cgroup_procs_fd = -1, .changes_store_fd = -1,
					   .changes_lock_fd = -1,
					   .exec_gate_fd = -1, .exec_gate_write_fd = -1,
					   .caller_pidfd = -1 },
				 .gate_wanted = true };
	struct reaper_handle reaper;
	struct child_failure failure;
	int rc;

	error_clear(err);
	if (!cage || !out)
		return error_set(err, -EINVAL, "no cage or no place for the run given");
	*out = NULL;
	/* A report begun after this run starts must walk: the run may change the trees. */
	handoff_snapshot_stale(cage->handoff_snapshot);
	if ((rc = spawn_opts_copy(opts, &o, err)) < 0)
		return rc;
	struct procage_run *run = run_alloc(cage);
	if (!run)
		return error_set(err, -ENOMEM, "out of memory");
	bool supervised = cage_supervised(cage);
	if ((rc = spawn_ready(cage, &o, supervised, &s, err)) < 0)
		goto fail;

	struct reaper_start start = { .plan = &s.plan,
				      .tmp_base = cage->tmp_base,
				      .tmp_name = s.tmpdir_name,
				      .tmp_mount = cage->tmp_mounted ? cage->tmp_base : NULL,
				      .shm_mount = cage->shm_mount,
				      .pts_dir = cage->pts_private ? CAGE_PTS_DIR : NULL,
				      .pts_ptmx =
					  cage->pts_private == CAGE_PTS_WITH_PTMX ? CAGE_PTMX : NULL,
				      .tmp_rights = cage->landlock.handled_fs };
	rc = reaper_launch(&start, s.status_read, &reaper, &failure, err);
	/*
	 * The target waited for the hard-link check's verdict: a refusal is
	 * the check's to tell, whatever step the target then failed at.
	 */
	struct procage_error gate_err;
	int gate_rc = hardlinks_gate_end(&s.gate, &gate_err);
	if (rc == 1)
		rc = failure_to_error(&failure, &s.plan, err);
	if (rc < 0 && gate_rc < 0) {
		*err = gate_err;
		rc = gate_rc;
	}
	if (rc < 0)
		goto fail;
	run->reaper = reaper;
	memcpy(run->changes_id, s.changes_id, sizeof run->changes_id);
	if (s.plan.changes_store) {
		run->changes_lock = s.plan.changes_lock_fd;
		s.plan.changes_lock_fd = -1;
	}
	if (gate_rc < 0) {
		/* Cannot be (the command runs only on GATE_PASS); refused all the same. */
		procage_run_free(run);
		spawn_state_release(&s);
		*err = gate_err;
		return gate_rc;
	}
	rc = run_take_over(run, cage, &s, supervised, err);
	spawn_state_release(&s);
	if (rc == 0)
		*out = run;
	return rc;
fail:
	/* Nothing ran in it: the change set of a run that never started goes. */
	if (s.changes_id[0])
		(void)procage_changes_discard(s.changes_id, NULL);
	spawn_state_release(&s);
	free(run->tmpdir_inside);
	free(run);
	return rc;
}
