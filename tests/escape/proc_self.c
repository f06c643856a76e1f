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
#include <stdlib.h>
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

/* ---- tier T2's listing of the run's processes (ps, top) ------------- */

#define R55_HOST_ARG "r55-argument-of-a-host-process"

/* A process of the same user outside the run, alive until *hold is closed; its pid in pid. */
static struct caged_proc *host_process(const struct tier *t, struct caged_ws *ws, int hold[2],
				       char *pid, size_t size)
{
	static char *env[] = {"PATH=/usr/bin:/bin", NULL};
	if (!fixture(t, pipe2(hold, O_CLOEXEC) == 0, "r55: pipe: %s", strerror(errno)))
		return NULL;
	struct procage_fd_map map = {hold[0], 3};
	struct caged_opts o = {.env = env, .fds = &map, .n_fds = 1};
	struct caged_proc *p =
	    start_uncaged(ws, &o, "print", R55_HOST_ARG, "then", "wait-on-fd", "3", NULL);
	close(hold[0]);
	hold[0] = -1;
	if (!fixture(t, p && caged_proc_wait_for(p, R55_HOST_ARG, 10000),
		     "r55: a process of the same user runs outside the cage")) {
		close(hold[1]);
		hold[1] = -1;
		if (p) {
			struct caged_result r = caged_proc_finish(p);
			result_diag(&r);
		}
		return NULL;
	}
	snprintf(pid, size, "%d", (int)caged_proc_pid(p));
	return p;
}

static void host_process_end(struct caged_proc *p, int hold[2])
{
	if (hold[1] >= 0)
		close(hold[1]);
	hold[1] = -1;
	if (p) {
		struct caged_result r = caged_proc_finish(p);
		if (!did_it(&r))
			result_diag(&r);
	}
}

/* Is name one of the lines of a listing? */
static bool listed(const char *listing, const char *name)
{
	size_t n = strlen(name);
	for (const char *line = listing; line && *line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (strncmp(line, name, n) == 0 && (line[n] == '\n' || line[n] == '\0'))
			return true;
	}
	return false;
}

/* Only numbers in a listing: the directories of processes, nothing else of /proc. */
static bool only_numbers(const char *listing)
{
	for (const char *c = listing; *c; c++)
		if (*c != '\n' && (*c < '0' || *c > '9'))
			return false;
	return *listing != '\0';
}

/*
 * On tier T2 an open of /proc is answered with a listing of the run's
 * processes: a process of the same user outside the run is not in it
 * (without the cage it is), and the listing holds process numbers only.
 * On tier T1 the run's own /proc holds only the run's processes too.
 */
void r55_the_listing_of_proc_shows_no_process_outside_the_run(const struct tier *t)
{
	char pid[16] = "";
	int hold[2] = {-1, -1};
	struct caged_proc *host = NULL;
	struct caged_ws *ws = workspace(t, "r55");
	if (!ws || cage_refused_here(t, ws, "r55") ||
	    !(host = host_process(t, ws, hold, pid, sizeof pid)))
		goto out;
	struct caged_result r = run_caged(ws, NULL, "list-dir", "/proc", pid, NULL);
	check(t, did_it(&r) && !listed(r.out, pid), &r,
	      "r55: the listing of /proc in the cage lacks process %s, outside the run", pid);
	if (!tier_is_t1(t)) {
		r = run_caged(ws, NULL, "list-dir", "/proc", NULL);
		check_role(t, ROLE_NEEDS_CAGE, did_it(&r) && only_numbers(r.out), &r,
			   "r55: tier T2's listing of /proc holds only the run's process numbers");
	}
	r = run_uncaged(ws, NULL, "list-dir", "/proc", pid, NULL);
	check(t, did_it(&r) && listed(r.out, pid), &r,
	      "r55: control: without the cage /proc lists process %s", pid);
out:
	host_process_end(host, hold);
	caged_ws_free(ws);
}

/* Refused, or on tier T1 (a PID namespace of the run's) not there at all. */
static bool unseen(const struct tier *t, const struct caged_result *r)
{
	if (refused(r))
		return !strstr(r->out, R55_HOST_ARG);
	return tier_is_t1(t) && r->how == CAGED_EXITED && r->code == PROBE_ERROR &&
	       (strstr(r->err, "ENOENT") || strstr(r->err, "ESRCH"));
}

/*
 * The entries the supervisor opens of the run's other processes (stat,
 * status, statm, cmdline, the same of their threads, the list of their
 * threads) are not opened for a process outside the run: its arguments,
 * which hold a secret here, stay unread.
 */
void r55_a_host_process_entries_stay_unread(const struct tier *t)
{
	char pid[16] = "", cmdline[64], status[64], stat[64], task[64], task_cmdline[96];
	int hold[2] = {-1, -1};
	struct caged_proc *host = NULL;
	struct caged_ws *ws = workspace(t, "r55");
	if (!ws || cage_refused_here(t, ws, "r55") ||
	    !(host = host_process(t, ws, hold, pid, sizeof pid)))
		goto out;
	snprintf(cmdline, sizeof cmdline, "/proc/%s/cmdline", pid);
	snprintf(status, sizeof status, "/proc/%s/status", pid);
	snprintf(stat, sizeof stat, "/proc/%s/stat", pid);
	snprintf(task, sizeof task, "/proc/%s/task", pid);
	snprintf(task_cmdline, sizeof task_cmdline, "/proc/%s/task/%s/cmdline", pid, pid);
	const char *paths[] = {cmdline, status, stat, task_cmdline};
	for (size_t i = 0; i < 4; i++) {
		struct caged_result r = run_caged(ws, NULL, "read-file", paths[i], NULL);
		check(t, unseen(t, &r), &r, "r55: %s of a process outside the run is not read",
		      paths[i]);
	}
	struct caged_result r = run_caged(ws, NULL, "list-dir", task, NULL);
	check(t, unseen(t, &r) && !strstr(r.out, pid), &r,
	      "r55: the threads of a process outside the run (%s) are not listed", task);
	r = run_uncaged(ws, NULL, "read-file", cmdline, "then", "read-file", status, "then",
			"read-file", stat, "then", "read-file", task_cmdline, "then", "list-dir", task,
			NULL);
	check(t, did_it(&r) && strstr(r.out, R55_HOST_ARG), &r,
	      "r55: control: without the cage the same user reads that process's arguments, "
	      "status, stat and its thread's arguments, and lists its threads");
out:
	host_process_end(host, hold);
	caged_ws_free(ws);
}

/*
 * Tier T2: the descriptor of the listing given for an open of /proc
 * reaches nothing: no file or directory can be made through it, and it
 * cannot be climbed out of (ENTRY/.., ENTRY/../..). Without the cage the
 * same descriptor is of the host's /proc, climbed out of to /.
 */
void r55_the_listing_descriptor_reaches_nothing(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "r55");
	if (!ws || cage_refused_here(t, ws, "r55"))
		goto out;
	if (tier_is_t1(t)) {
		skip(t, "r55: tier T1 has a /proc of the run's own, granted for reading; the "
			"supervisor makes no listing there");
		goto out;
	}
	struct caged_result r = run_caged(ws, NULL, "dir-escape", "/proc", NULL);
	check(t, refused(&r), &r,
	      "r55: through the listing's descriptor nothing is made and nothing above it opened");
	r = run_uncaged(ws, NULL, "dir-escape", "/proc", NULL);
	check(t, did_it(&r), &r,
	      "r55: control: without the cage /proc/ENTRY/../.. is opened through the descriptor");
out:
	caged_ws_free(ws);
}
