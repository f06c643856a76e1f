/*
 * procage_spawn: prepare in the parent, clone, let the child apply the
 * cage, and learn from the status pipe whether the target started. EOF on
 * the pipe means exec succeeded (the write end is close-on-exec); one
 * record means a step failed and the target never ran.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cage.h"
#include "command.h"
#include "env.h"
#include "error.h"
#include "hardlinks.h"
#include "plan.h"
#include "run.h"
#include "tmpdir.h"

extern char **environ;

/* The child runs on this stack until exec; it needs little. */
#define CHILD_STACK_SIZE (256 * 1024)

static const char *const step_names[PROCAGE_STEP__COUNT] = {
	[PROCAGE_STEP_PREPARE] = "prepare",
	[PROCAGE_STEP_ID_MAPS] = "id_maps",
	[PROCAGE_STEP_MOUNTS] = "mounts",
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

/*
 * Clone the child sharing our memory, suspended until it execs or exits
 * (the cheapest way to start a process). Our signal handlers must not run
 * in it, so every signal is blocked across the clone. On tier T1 the
 * namespaces are made by clone itself: a child sharing our memory could
 * not unshare a user namespace.
 */
static pid_t clone_child(struct plan *plan, int *pidfd)
{
	sigset_t all, saved;
	void *stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pid_t pid = clone(child_main, (char *)stack + CHILD_STACK_SIZE,
			  CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD | plan->clone_namespaces, plan,
			  pidfd);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	munmap(stack, CHILD_STACK_SIZE);
	errno = e;
	return pid;
}

static int failure_to_error(const struct child_failure *f, const struct plan *plan,
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
	if (f->step == PROCAGE_STEP_RLIMITS && f->index >= 0)
		return error_set_sys(err, f->err, f->step, "step %s: setting resource limit %d",
				     step, plan->rlimits[f->index].resource);
	if (f->step == PROCAGE_STEP_MOUNTS && f->index >= 0)
		return error_set_sys(err, f->err, f->step, "step %s: %s %s", step,
				     plan->mounts[f->index].kind == PLAN_MOUNT_READ_ONLY
					     ? "making read-only"
					     : "hiding",
				     plan->mounts[f->index].path);
	if (f->step == PROCAGE_STEP_CWD)
		return error_set_sys(err, f->err, f->step, "step cwd: changing to %s", plan->cwd);
	return error_set_sys(err, f->err, f->step, "step %s", step);
}

/* 0 when exec succeeded, else the failure as an error. */
static int status_pipe_read(int fd, const struct plan *plan, struct procage_error *err)
{
	struct child_failure f;
	ssize_t n;
	do
		n = read(fd, &f, sizeof f);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 0;
	if (n != sizeof f)
		return error_set(err, -EIO, "the child's status record was cut short (%zd bytes)",
				 n);
	return failure_to_error(&f, plan, err);
}

static int spawn_opts_copy(const struct procage_spawn_opts *opts, struct procage_spawn_opts *o,
			   struct procage_error *err)
{
	memset(o, 0, sizeof *o);
	if (!opts || opts->size < offsetof(struct procage_spawn_opts, envp))
		return error_set(err, -EINVAL, "spawn options missing or their size not set");
	memcpy(o, opts, opts->size < sizeof *o ? opts->size : sizeof *o);
	if (!o->argv || !o->argv[0])
		return error_set(err, -EINVAL, "no command given");
	if (o->n_fds && !o->fds)
		return error_set(err, -EINVAL, "%zu descriptors to pass but no map", o->n_fds);
	if (o->cwd && o->cwd[0] != '/')
		return error_set(err, -EINVAL, "working directory %s is relative", o->cwd);
	return 0;
}

/* Everything a spawn owns until it hands over to the run. */
struct spawn_state {
	char *tmpdir;
	char **env;
	char *exec_path;
	int status_read;
	int status_write;
	struct plan plan;
};

static void spawn_state_release(struct spawn_state *s)
{
	plan_release(&s->plan);
	if (s->status_read >= 0)
		close(s->status_read);
	if (s->status_write >= 0)
		close(s->status_write);
	env_free(s->env);
	free(s->exec_path);
	if (s->tmpdir) {
		tmpdir_remove(s->tmpdir);
		free(s->tmpdir);
	}
}

static int spawn_prepare(const struct procage_cage *cage, const struct procage_spawn_opts *o,
			 struct spawn_state *s, struct procage_error *err)
{
	int rc, fds[2];
	if ((rc = hardlinks_refusal(cage, err)) < 0)
		return rc;
	if (cage->tmp_base && (rc = tmpdir_create(cage->tmp_base, &s->tmpdir, err)) < 0)
		return rc;
	if ((rc = env_build(cage->policy, o->envp ? o->envp : environ, s->tmpdir, &s->env,
			    err)) < 0)
		return rc;
	if ((rc = command_resolve(o->argv[0], env_lookup(s->env, "PATH"), o->cwd,
				  &s->exec_path, err)) < 0)
		return rc;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "creating the status pipe");
	s->status_read = fds[0];
	s->status_write = -1; /* the plan owns the write end from here */
	if ((rc = plan_build(cage, o, s->tmpdir, fds[1], &s->plan, err)) < 0)
		return rc;
	s->plan.exec_path = s->exec_path;
	s->plan.envp = s->env;
	return 0;
}

PROCAGE_API int procage_spawn(const struct procage_cage *cage,
			      const struct procage_spawn_opts *opts, struct procage_run **out,
			      struct procage_error *err)
{
	struct procage_spawn_opts o;
	struct spawn_state s = { .status_read = -1, .status_write = -1,
				 .plan = { .status_fd = -1, .landlock_fd = -1 } };
	int rc, pidfd = -1;

	error_clear(err);
	if (!cage || !out)
		return error_set(err, -EINVAL, "no cage or no place for the run given");
	*out = NULL;
	if ((rc = spawn_opts_copy(opts, &o, err)) < 0)
		return rc;
	struct procage_run *run = calloc(1, sizeof *run);
	if (!run)
		return error_set(err, -ENOMEM, "out of memory");
	if ((rc = spawn_prepare(cage, &o, &s, err)) < 0)
		goto fail;

	pid_t pid = clone_child(&s.plan, &pidfd);
	if (pid < 0) {
		rc = error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "starting the child");
		goto fail;
	}
	plan_close_fds(&s.plan); /* closes our copy of the write end */
	rc = status_pipe_read(s.status_read, &s.plan, err);
	if (rc < 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(pidfd);
		goto fail;
	}
	run->pid = pid;
	run->pidfd = pidfd;
	run->tmpdir = s.tmpdir;
	s.tmpdir = NULL;
	spawn_state_release(&s);
	*out = run;
	return 0;
fail:
	spawn_state_release(&s);
	free(run);
	return rc;
}
