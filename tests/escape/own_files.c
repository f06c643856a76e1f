/*
 * procage's own files. What a run leaves in its write grants is
 * there for the next run: a symbolic link where the caller's report file
 * goes, an old file of the same name, a hard link. procage writes its
 * report file through none of them: it follows no link, and inside a write
 * grant it writes only a file it creates. Judged from outside: the home's
 * ~/.bashrc, where every planted name points, keeps its content.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"

static const char bashrc_text[] = "# r44: the user's own startup file\n";

/*
 * One run of the probe with reports on and the report file at json_path,
 * through the public API (the workspace's runs take no report file).
 * Sandbox off: the probe runs uncaged and no report file is involved.
 */
static struct caged_result report_run(struct caged_ws *ws, const char *json_path)
{
	struct caged_result r;
	struct procage_error err;
	struct procage_run *run = NULL;
	memset(&r, 0, sizeof r);
	if (caged_sandbox_off())
		return run_caged(ws, NULL, "print", "r44: ran", NULL);
	r.caged = true;
	caged_ws_drop_cage(ws);
	char why[600];
	if (procage_policy_set_reports(ws->policy, true, &err) < 0 ||
	    caged_ws_hold_cage(ws, why, sizeof why) < 0) {
		r.how = CAGED_NOT_STARTED;
		r.cage_refused = true;
		snprintf(r.summary, sizeof r.summary, "cage refused: %s", why);
		return r;
	}
	char *argv[] = {(char *)caged_probe_path(), "print", "r44: ran", NULL};
	char home[PATH_MAX + 8];
	snprintf(home, sizeof home, "HOME=%s", ws->home);
	char *env[] = {"PATH=/usr/bin:/bin", home, NULL};
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct procage_fd_map maps[] = {{null, 0}, {null, 1}, {null, 2}};
	struct procage_spawn_opts so = {.size = sizeof so,
					.argv = argv,
					.envp = env,
					.cwd = ws->rw,
					.fds = maps,
					.n_fds = 3,
					.report_json_path = json_path};
	int rc = procage_spawn(ws->held, &so, &run, &err);
	close(null);
	if (rc < 0) {
		r.how = CAGED_NOT_STARTED;
		snprintf(r.error, sizeof r.error, "%s", err.message);
		snprintf(r.summary, sizeof r.summary, "not started: %.700s", err.message);
		return r;
	}
	int status = 0;
	if (procage_run_wait(run, &status, &err) < 0)
		diag("waiting for the run: %s", err.message);
	procage_run_free(run);
	r.how = WIFEXITED(status) ? CAGED_EXITED : CAGED_SIGNALED;
	r.code = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
	snprintf(r.summary, sizeof r.summary, "%s %d", WIFEXITED(status) ? "exit" : "signal",
		 r.code);
	return r;
}

static bool refused_naming(const struct caged_result *r, const char *why)
{
	return r->how == CAGED_NOT_STARTED && !r->cage_refused && strstr(r->error, why);
}

void r44_report_files_follow_no_link_a_run_planted(const struct tier *t)
{
	char bashrc[PATH_MAX], planted[PATH_MAX], dir_link[PATH_MAX], through[PATH_MAX],
	    old[PATH_MAX], fresh[PATH_MAX], outside[PATH_MAX], second[PATH_MAX];
	struct caged_ws *ws = workspace(t, "r44");
	if (!ws || cage_refused_here(t, ws, "r44"))
		goto out;
	if (!path_join(t, bashrc, ws->home, ".bashrc") ||
	    !path_join(t, planted, ws->rw, "r.jsonl") || !path_join(t, dir_link, ws->rw, "logs") ||
	    !path_join(t, through, ws->rw, "logs/.bashrc") ||
	    !path_join(t, old, ws->rw, "old.jsonl") || !path_join(t, fresh, ws->rw, "new.jsonl") ||
	    !path_join(t, outside, ws->root, "reports.jsonl") ||
	    !path_join(t, second, ws->rw, "second-name.jsonl"))
		goto out;
	/* What an earlier run of the same workspace could have left. */
	if (!fixture(t, put_file(bashrc, bashrc_text), "r44: ~/.bashrc written") ||
	    !fixture(t, symlink(bashrc, planted) == 0, "r44: a link to ~/.bashrc planted") ||
	    !fixture(t, symlink(ws->home, dir_link) == 0, "r44: a link to the home planted") ||
	    !fixture(t, put_file(old, "r44: left by a run\n"), "r44: an old file left") ||
	    !fixture(t, put_file(outside, ""), "r44: a report file outside the grants made"))
		goto out;

	struct caged_result r = report_run(ws, planted);
	check(t, refused_naming(&r, "symbolic link") && file_is(bashrc, bashrc_text), &r,
	      "r44: a report file that is a planted link to ~/.bashrc is refused before any child "
	      "runs, and ~/.bashrc is unchanged");
	r = report_run(ws, through);
	check(t, refused_naming(&r, "symbolic link") && file_is(bashrc, bashrc_text), &r,
	      "r44: a report file below a planted link to the home is refused, and ~/.bashrc is "
	      "unchanged");
	r = report_run(ws, old);
	check(t,
	      refused_naming(&r, "already exists inside the write grant") &&
		  file_is(old, "r44: left by a run\n"),
	      &r, "r44: an existing file inside a write grant is refused as a report file");
	if (fixture(t, link(outside, second) == 0, "r44: a second name of a report file made")) {
		r = report_run(ws, outside);
		check(t, refused_naming(&r, "names (hard links)"), &r,
		      "r44: a report file with a second name is refused");
		(void)unlink(second);
	}

	char text[4096] = "";
	r = report_run(ws, fresh);
	/* The report file is the library's: without the cage nothing writes it. */
	check_role(t, ROLE_NEEDS_CAGE, did_it(&r) && caged_read_file(fresh, text, sizeof text) == 0,
		   &r, "r44: control: a new report file in the workspace is created and written");
	r = report_run(ws, outside);
	check(t, did_it(&r), &r,
	      "r44: control: an existing report file outside the write grants is appended to");
out:
	caged_ws_free(ws);
}
