/*
 * The caller's side of a run: waiting, signalling and ending it, all
 * through the run's reaper (reaper.c), which owns the processes.
 */
#include "run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "changes/layers.h"
#include "host/cgroup.h"
#include "base/error.h"
#include "procage.h"
#include "publish.h"
#include "tmpdir.h"
#include "watch/handoff.h"

PROCAGE_API pid_t procage_run_pid(const struct procage_run *run)
{
	return run ? run->reaper.target : -1;
}

PROCAGE_API const char *procage_run_tmpdir(const struct procage_run *run)
{
	if (!run)
		return NULL;
	return run->tmpdir_inside ? run->tmpdir_inside : run->tmpdir;
}

PROCAGE_API const char *procage_run_changes_id(const struct procage_run *run)
{
	return run && run->changes_id[0] ? run->changes_id : NULL;
}

PROCAGE_API int procage_run_fd(const struct procage_run *run)
{
	return run ? run->reaper.pidfd : -1;
}

static int run_command(struct procage_run *run, enum reaper_message_kind kind, int value,
		       const char *what, struct procage_error *err)
{
	error_clear(err);
	if (!run)
		return error_set(err, -EINVAL, "no run given");
	if (run->ended)
		return error_set(err, -ESRCH, "%s: the run has ended", what);
	int rc = reaper_command(&run->reaper, kind, value);
	if (rc == -ESRCH)
		return error_set(err, rc, "%s: the run has ended", what);
	if (rc < 0)
		return error_set(err, rc, "%s: the run's reaper is not reading", what);
	return 0;
}

PROCAGE_API int procage_run_signal(struct procage_run *run, int sig, struct procage_error *err)
{
	if (sig <= 0 || sig >= 65) {
		error_clear(err);
		return error_set(err, -EINVAL, "signal %d is not a signal", sig);
	}
	return run_command(run, REAPER_SIGNAL, sig, "signalling the run", err);
}

PROCAGE_API int procage_run_kill(struct procage_run *run, struct procage_error *err)
{
	return run_command(run, REAPER_KILL, 0, "killing the run", err);
}

/*
 * Wait for the reaper to exit, then take its report (queued before it
 * exited) and reap it. Its pidfd says when, not the end of file on the
 * run's socket: a process another of our threads forked while the
 * reaper's end was still ours holds a copy of it as long as it lives.
 */
static int run_finish(struct procage_run *run, struct procage_error *err)
{
	int status = 0, left = 0, kept = 0;
	struct pollfd ended = { run->reaper.pidfd, POLLIN, 0 };
	while (ended.fd >= 0 && poll(&ended, 1, -1) < 0 && errno == EINTR)
		;
	int rc = reaper_status_read(&run->reaper, ended.fd >= 0, &status);
	bool lost = run->reaper.lost;
	int layers = run->reaper.changes_layers;
	struct procage_error keep_err;
	run->reaper.changes_layers = -1;
	/* The run is gone: nothing more to relay to. */
	publish_stop(run->publish);
	run->publish = NULL;
	reaper_handle_release(&run->reaper);
	/* Every process of the run is gone: nothing more to answer or serve. */
	supervision_stop(&run->supervision);
	/* Nothing writes the bounded change set's layers any more: into the store. */
	if (layers >= 0) {
		kept = changes_layers_keep(run->changes_id, layers, &keep_err);
		close(layers);
		if (kept < 0)
			run->changes_id[0] = '\0';
	}
	/* The change set is whole in the store: apply may take it. */
	if (run->changes_lock >= 0) {
		close(run->changes_lock);
		run->changes_lock = -1;
	}
	/* The reaper removed it; what it could not, the caller tries again. */
	if (run->tmpdir && !lost) {
		left = tmpdir_remove(run->tmpdir);
		if (left == 0) {
			free(run->tmpdir);
			run->tmpdir = NULL;
		}
	}
	if (run->cgroup_dir && !lost) {
		cgroup_remove(run->cgroup_dir);
		free(run->cgroup_dir);
		run->cgroup_dir = NULL;
	}
	run->ended = true;
	if (run->supervision.abandoned) {
		run->status = rc < 0 ? W_EXITCODE(125, 0) : status;
		return error_set(err, -ETIMEDOUT,
				 "the run ended, but its supervisor did not stop within %d s; its "
				 "thread is left running, and its reports may be incomplete",
				 NOTIFY_STOP_WAIT_S);
	}
	if (rc < 0) {
		run->status = W_EXITCODE(125, 0);
		return error_set(err, -ECHILD,
				 "the run's reaper ended without reporting (killed from outside?); "
				 "processes of the run may be left");
	}
	if (lost) {
		run->status = W_EXITCODE(125, 0);
		return error_set(err, -ESRCH,
				 "the run's reaper could not see or end every process of the run "
				 "(no /proc, or no descriptor left to read it); processes of the run "
				 "may be left, and its temporary directory %s",
				 run->tmpdir ? run->tmpdir : "(none)");
	}
	run->status = status;
	if (kept < 0) {
		if (err)
			*err = keep_err;
		return kept;
	}
	if (left < 0)
		return error_set(err, left,
				 "the run ended (status %d) but its temporary directory %s could not be "
				 "removed entirely: %s",
				 status, run->tmpdir, strerror(-left));
	return 0;
}

PROCAGE_API int procage_run_wait_for(struct procage_run *run, int timeout_ms, int *status,
				     struct procage_error *err)
{
	error_clear(err);
	if (!run)
		return error_set(err, -EINVAL, "no run given");
	if (!run->ended) {
		struct timespec start;
		clock_gettime(CLOCK_MONOTONIC, &start);
		for (;;) {
			int left = -1;
			if (timeout_ms >= 0) {
				struct timespec now;
				clock_gettime(CLOCK_MONOTONIC, &now);
				long long spent = (now.tv_sec - start.tv_sec) * 1000LL +
						  (now.tv_nsec - start.tv_nsec) / 1000000;
				left = spent >= timeout_ms ? 0 : (int)(timeout_ms - spent);
			}
			struct pollfd p = { run->reaper.pidfd, POLLIN, 0 };
			int n = poll(&p, 1, left);
			if (n > 0)
				break;
			if (n == 0)
				return error_set(err, -ETIMEDOUT, "the run has not ended within %d ms",
						 timeout_ms);
			if (errno != EINTR)
				return error_set_sys(err, errno, PROCAGE_STEP_NONE,
						     "waiting for the run");
		}
		int rc = run_finish(run, err);
		if (rc < 0) {
			if (status)
				*status = run->status;
			return rc;
		}
	}
	if (status)
		*status = run->status;
	return 0;
}

PROCAGE_API int procage_run_wait(struct procage_run *run, int *status, struct procage_error *err)
{
	return procage_run_wait_for(run, -1, status, err);
}

PROCAGE_API void procage_run_free(struct procage_run *run)
{
	if (!run)
		return;
	if (!run->ended) {
		reaper_command(&run->reaper, REAPER_KILL, 0);
		run_finish(run, NULL);
	}
	supervision_release(&run->supervision);
	/* A supervisor left running still uses the run's memory: kept. */
	if (run->supervision.abandoned)
		return;
	free(run->tmpdir);
	free(run->tmpdir_inside);
	free(run->cgroup_dir);
	free(run);
}

PROCAGE_API int procage_run_reports(const struct procage_run *run, struct procage_report **out,
				    size_t *n, struct procage_error *err)
{
	error_clear(err);
	if (!run || !out || !n)
		return error_set(err, -EINVAL, "no run or no place for the reports given");
	if (!run->supervision.reports_on || !run->reports_wanted) {
		*out = calloc(1, sizeof **out);
		*n = 0;
		return *out ? 0 : error_set(err, -ENOMEM, "out of memory");
	}
	/* The store is only read here; its lock is the store's own. */
	int rc = report_store_snapshot((struct report_store *)&run->supervision.reports, out, n);
	return rc < 0 ? error_set(err, rc, "out of memory") : 0;
}

PROCAGE_API int procage_run_denials(const struct procage_run *run, char ***lines,
				    struct procage_error *err)
{
	error_clear(err);
	*lines = NULL;
	if (!run)
		return error_set(err, -EINVAL, "no run given");
	if (!run->supervision.reports_on || !run->supervision.denial_rules)
		return 0;
	/* The store is only read here; its lock is the store's own. */
	int rc = denial_store_lines((struct denial_store *)&run->supervision.denials, lines);
	return rc < 0 ? error_set(err, rc, "out of memory") : 0;
}

PROCAGE_API int procage_handoff_add_run(struct procage_handoff *h, const struct procage_run *run,
					struct procage_error *err)
{
	error_clear(err);
	if (!h || !run)
		return error_set(err, -EINVAL, "no report or no run given");
	if (!run->supervision.reports_on || !run->supervision.denial_rules)
		return 0;
	return handoff_add_observed(h, &run->supervision.handoff_observed, err);
}
