/* The parent's side of a run: waiting, signalling, ending it. */
#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "procage.h"
#include "syscalls.h"
#include "tmpdir.h"

PROCAGE_API pid_t procage_run_pid(const struct procage_run *run)
{
	return run ? run->pid : -1;
}

PROCAGE_API const char *procage_run_tmpdir(const struct procage_run *run)
{
	return run ? run->tmpdir : NULL;
}

PROCAGE_API int procage_run_signal(struct procage_run *run, int sig, struct procage_error *err)
{
	error_clear(err);
	if (!run)
		return error_set(err, -EINVAL, "no run given");
	if (run->reaped)
		return error_set(err, -ESRCH, "the run has ended");
	if (sys_pidfd_send_signal(run->pidfd, sig, NULL, 0) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "signalling process %d",
				     run->pid);
	return 0;
}

static void run_end(struct procage_run *run)
{
	if (run->tmpdir) {
		tmpdir_remove(run->tmpdir);
		free(run->tmpdir);
		run->tmpdir = NULL;
	}
	if (run->pidfd >= 0) {
		close(run->pidfd);
		run->pidfd = -1;
	}
}

PROCAGE_API int procage_run_wait(struct procage_run *run, int *status, struct procage_error *err)
{
	error_clear(err);
	if (!run)
		return error_set(err, -EINVAL, "no run given");
	while (!run->reaped) {
		if (waitpid(run->pid, &run->status, 0) == run->pid) {
			/*
			 * A stop is only reported for a traced child: one that
			 * made us its tracer. The run is not over; it is ended.
			 */
			if (WIFSTOPPED(run->status))
				sys_pidfd_send_signal(run->pidfd, SIGKILL, NULL, 0);
			else
				run->reaped = true;
		} else if (errno != EINTR)
			return error_set_sys(err, errno, PROCAGE_STEP_NONE,
					     "waiting for process %d", run->pid);
	}
	run_end(run);
	if (status)
		*status = run->status;
	return 0;
}

PROCAGE_API void procage_run_free(struct procage_run *run)
{
	if (!run)
		return;
	if (!run->reaped) {
		sys_pidfd_send_signal(run->pidfd, SIGKILL, NULL, 0);
		procage_run_wait(run, NULL, NULL);
	}
	run_end(run);
	free(run);
}
