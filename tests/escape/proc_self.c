/*
 * A process's own /proc entries. On tier T2 the supervisor opens
 * some of them for the caller, outside Landlock's domain; none of the
 * ways through them may reach what Landlock refuses the caller: the
 * links root, cwd and fd/N, the same below task/TID and thread-self, a
 * relative name from a descriptor of /proc/self, a climb with "..", or
 * another process's entries. On tier T1 the run's own /proc answers the
 * same, under Landlock. Each refusal has its control: the same read
 * succeeding without the cage, and the caller's own plain entries read
 * in the cage.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

#define R51_SECRET "r55-secret-content"

/* The canary, then its control: the same probe call without the cage. */
static void refused_caged_read_uncaged(const struct tier *t, struct caged_ws *ws,
				       const char *what, const char *const argv[])
{
	struct caged_result r = run_caged_argv(ws, NULL, argv);
	check(t, refused(&r) && !strstr(r.out, R51_SECRET), &r, "r55: %s is refused", what);
	r = run_uncaged_argv(ws, NULL, argv);
	check(t, did_it(&r) && strstr(r.out, R51_SECRET), &r,
	      "r55: control: without the cage %s reads the file", what);
}

void r55_own_proc_entries_reach_nothing_landlock_refuses(const struct tier *t)
{
	char hidden[PATH_MAX], hidden_dir[PATH_MAX], in_dir[PATH_MAX], via_root[PATH_MAX + 32],
	    task_root[PATH_MAX + 32], relative_root[PATH_MAX + 32];
	struct caged_ws *ws = workspace(t, "r55");
	if (!ws || cage_refused_here(t, ws, "r55"))
		goto out;
	/* The workspace's root is granted nothing: out of the cage's reach. */
	if (!path_join(t, hidden, ws->root, "r55-hidden") ||
	    !path_join(t, hidden_dir, ws->root, "r55-dir") ||
	    !path_join(t, in_dir, hidden_dir, "secret") ||
	    !fixture(t, put_file(hidden, R51_SECRET) && put_file(in_dir, R51_SECRET),
		     "r55: hidden files are written"))
		goto out;
	snprintf(via_root, sizeof via_root, "/proc/self/root%s", hidden);
	snprintf(task_root, sizeof task_root, "root%s", hidden);
	snprintf(relative_root, sizeof relative_root, "root%s", hidden);

	refused_caged_read_uncaged(t, ws, "/proc/self/root/<hidden file>",
				   (const char *[]){"read-file", via_root, NULL});
	snprintf(via_root, sizeof via_root, "/proc/thread-self/root%s", hidden);
	refused_caged_read_uncaged(t, ws, "/proc/thread-self/root/<hidden file>",
				   (const char *[]){"read-file", via_root, NULL});
	refused_caged_read_uncaged(t, ws, "/proc/self/task/TID/root/<hidden file>",
				   (const char *[]){"read-own-task", task_root, NULL});
	refused_caged_read_uncaged(t, ws, "/proc/self/cwd/secret with a hidden cwd",
				   (const char *[]){"chdir-read", hidden_dir, "/proc/self/cwd/secret",
					      NULL});
	refused_caged_read_uncaged(t, ws, "/proc/self/fd/N of an O_PATH descriptor of a hidden file",
				   (const char *[]){"read-via-fd", hidden, NULL});
	refused_caged_read_uncaged(t, ws, "root/<hidden file> relative to a descriptor of /proc/self",
				   (const char *[]){"read-at", "/proc/self", relative_root, NULL});
	snprintf(via_root, sizeof via_root, "/proc/self/../self/root%s", hidden);
	refused_caged_read_uncaged(t, ws, "/proc/self/../self/root/<hidden file>",
				   (const char *[]){"read-file", via_root, NULL});

	/* The caller's own plain entries are read in the cage, on either tier. */
	struct caged_result r = run_caged(ws, NULL, "read-file", "/proc/self/status", NULL);
	check(t, did_it(&r) && strstr(r.out, "Name:"), &r,
	      "r55: control: in the cage the probe reads its own /proc/self/status");
	r = run_caged(ws, NULL, "read-at", "/proc/self", "stat", NULL);
	check(t, did_it(&r), &r,
	      "r55: control: in the cage stat is read relative to a descriptor of /proc/self");
	r = run_caged(ws, NULL, "read-own-task", "status", NULL);
	check(t, did_it(&r) && strstr(r.out, "Name:"), &r,
	      "r55: control: in the cage the probe reads its own thread's status");
out:
	caged_ws_free(ws);
}

void r55_no_other_process_and_no_write_through_own_proc(const struct tier *t)
{
	char climb[96], relative[64];
	struct caged_ws *ws = workspace(t, "r55");
	if (!ws || cage_refused_here(t, ws, "r55"))
		goto out;
	/* This test's process: of the same user, outside the cage. */
	snprintf(climb, sizeof climb, "/proc/self/../%d/environ", (int)getpid());
	snprintf(relative, sizeof relative, "../%d/environ", (int)getpid());

	struct caged_result r = run_caged(ws, NULL, "read-file", climb, NULL);
	check(t, refused(&r) || (r.how == CAGED_EXITED && r.code == PROBE_ERROR && tier_is_t1(t)),
	      &r, "r55: /proc/self/../PID/environ of a process outside is not read");
	r = run_caged(ws, NULL, "read-at", "/proc/self", relative, NULL);
	check(t, refused(&r) || (r.how == CAGED_EXITED && r.code == PROBE_ERROR && tier_is_t1(t)),
	      &r, "r55: ../PID/environ relative to /proc/self is not read");
	r = run_uncaged(ws, NULL, "read-file", climb, "then", "read-at", "/proc/self", relative,
			NULL);
	check(t, did_it(&r), &r,
	      "r55: control: without the cage the same user reads that environment both ways");

	r = run_caged(ws, NULL, "open-write", "/proc/self/comm", NULL);
	check(t, refused(&r), &r, "r55: the probe's own /proc/self/comm is not opened for writing");
	r = run_uncaged(ws, NULL, "open-write", "/proc/self/comm", NULL);
	check(t, did_it(&r), &r, "r55: control: without the cage it is");
out:
	caged_ws_free(ws);
}
