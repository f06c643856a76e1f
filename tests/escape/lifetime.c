/*
 * Outliving the run.
 *
 * every process a run starts dies with the run, in both lifetimes.
 * The probe leaves a process behind ("descendant MODE TOKEN": a child, an
 * orphan, one in a process group or a session of its own), which runs
 * "probe linger TOKEN"; once the run has ended, /proc is scanned from
 * outside for that command line. Without the cage the same process
 * outlives the probe (the control), and the test kills it. Persistence:
 * with HOME in the writable workspace, a user unit or an autostart entry
 * cannot be planted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"

/* ---- processes left behind, found from outside ------------------------ */

#define MAX_LEFT 32

static void token_make(char *out, size_t size, const char *what)
{
	static unsigned counter;
	snprintf(out, size, "r23-%s-%d-%u", what, (int)getpid(), ++counter);
}

/* The command line of pid, NUL-separated, with its length; false if gone. */
static bool cmdline_of(pid_t pid, char *buf, size_t size, size_t *len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	*len = (size_t)n;
	return true;
}

/* Is pid a live (not zombie) "probe linger TOKEN"? */
static bool is_lingerer(pid_t pid, const char *token)
{
	char buf[4096], path[64], stat[512];
	size_t len;
	if (!cmdline_of(pid, buf, sizeof buf, &len))
		return false;
	bool match = false;
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		if (strcmp(buf + i, "linger") == 0 && i + 7 < len &&
		    strcmp(buf + i + 7, token) == 0)
			match = true;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!match || caged_read_file(path, stat, sizeof stat) < 0)
		return false;
	const char *paren = strrchr(stat, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z';
}

/* The live processes running "linger TOKEN". */
static int lingering(const char *token, pid_t *pids, int max)
{
	int n = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d)) && n < max;) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (is_lingerer((pid_t)pid, token))
			pids[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

static int left_count(const char *token)
{
	pid_t pids[MAX_LEFT];
	return lingering(token, pids, MAX_LEFT);
}

/*
 * Kill what a control left behind: through a pidfd, after checking that
 * the process it names is still the one found, and wait for its end.
 */
static void left_kill(const char *token)
{
	pid_t pids[MAX_LEFT];
	int n = lingering(token, pids, MAX_LEFT);
	for (int i = 0; i < n; i++) {
		int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
		if (fd < 0)
			continue;
		if (is_lingerer(pids[i], token)) {
			syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
			struct pollfd p = { fd, POLLIN, 0 };
			poll(&p, 1, 5000);
		}
		close(fd);
	}
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait for every "linger TOKEN" to end: a pidfd for each one found, polled
 * until each has exited (a pidfd becomes readable then), and /proc scanned
 * again for any it may have started meanwhile. The deadline only bounds a
 * failure.
 */
static bool left_gone_within(const char *token, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		pid_t pids[MAX_LEFT];
		struct pollfd fds[MAX_LEFT];
		int n = lingering(token, pids, MAX_LEFT), open_fds = 0;
		if (n == 0)
			return true;
		for (int i = 0; i < n; i++) {
			int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
			if (fd >= 0)
				fds[open_fds++] = (struct pollfd){fd, POLLIN, 0};
		}
		for (int i = 0; i < open_fds; i++) {
			long long left = deadline - now_ms();
			while (left > 0 && poll(&fds[i], 1, (int)left) < 0 && errno == EINTR)
				left = deadline - now_ms();
			close(fds[i].fd);
		}
		if (now_ms() >= deadline)
			return left_count(token) == 0;
	}
}

static const char *lifetime_name(enum procage_lifetime l)
{
	return l == PROCAGE_LIFETIME_TREE ? "tree" : "session";
}

static bool policy_lifetime(const struct tier *t, struct caged_ws *ws, enum procage_lifetime l)
{
	struct procage_error err = { 0 };
	int rc = procage_policy_set_lifetime(ws->policy, l, &err);
	return fixture(t, rc == 0, "r23: the policy takes the lifetime %s (%s)", lifetime_name(l),
		       err.message);
}

/* Does a run have a PID namespace of its own, its reaper the first process? */
static bool run_has_pid_namespace(const struct tier *t)
{
	return tier_is_t1(t) && t->facts.pidns_private_proc;
}

static const enum procage_lifetime lifetimes[] = { PROCAGE_LIFETIME_SESSION,
						   PROCAGE_LIFETIME_TREE };

/*
 * The control of a canary leaving MODE behind: without the cage, the
 * process outlives the probe. The test then kills it.
 */
static void left_behind_control(const struct tier *t, struct caged_ws *ws, const char *mode,
				const char *what)
{
	char token[64];
	token_make(token, sizeof token, "control");
	struct caged_result r = run_uncaged(ws, NULL, "descendant", mode, token, NULL);
	check(t, did_it(&r) && left_count(token) > 0, &r,
	      "r23: control: without the cage, %s outlives the probe", what);
	left_kill(token);
}

/* A run of the probe leaving MODE behind: none of it is left once the run has ended. */
static void left_behind_dies(const struct tier *t, struct caged_ws *ws, enum procage_lifetime l,
			     const char *mode, const char *what)
{
	char token[64];
	token_make(token, sizeof token, mode);
	struct caged_result r = run_caged(ws, NULL, "descendant", mode, token, NULL);
	int left = left_count(token);
	check(t, did_it(&r) && strstr(r.out, "started") && left == 0, &r,
	      "r23 (%s lifetime): %s dies when the run's target exits (%d left)",
	      lifetime_name(l), what, left);
	left_kill(token);
}

/* ---- R-23 ------------------------------------------------------------- */

/* A run that leaves TOKEN's process behind and waits on descriptor 3. */
static struct caged_proc *start_holding(const struct tier *t, struct caged_ws *ws,
					const char *mode, const char *token, int hold[2])
{
	hold[0] = hold[1] = -1;
	if (!fixture(t, pipe2(hold, O_CLOEXEC) == 0, "r23: pipe: %s", strerror(errno)))
		return NULL;
	struct procage_fd_map map = { hold[0], 3 };
	struct caged_opts o = { .fds = &map, .n_fds = 1 };
	struct caged_proc *p =
	    start_caged(ws, &o, "descendant", mode, token, "then", "wait-on-fd", "3", NULL);
	close(hold[0]);
	hold[0] = -1;
	return p;
}

static bool started_holding(const struct tier *t, struct caged_proc *p, const char *token)
{
	bool ok = caged_proc_wait_for(p, "started", 10000);
	return fixture(t, ok && left_count(token) > 0,
		       "r23: the run is up, with the process it left behind (%s)", token);
}

void r23_descendants_die_with_the_run(const struct tier *t)
{
	char token[64];
	int hold[2];
	struct caged_ws *ws = workspace(t, "r23");
	if (!ws || cage_refused_here(t, ws, "r23"))
		goto out;
	for (size_t i = 0; i < 2; i++) {
		enum procage_lifetime l = lifetimes[i];
		if (!policy_lifetime(t, ws, l))
			break;
		left_behind_dies(t, ws, l, "child", "a child the target leaves behind");

		/* The run killed while both live: both die. */
		token_make(token, sizeof token, "killed");
		struct caged_proc *p = start_holding(t, ws, "child", token, hold);
		if (p && started_holding(t, p, token)) {
			caged_proc_kill(p);
			struct caged_result r = caged_proc_finish(p);
			int left = left_count(token);
			check(t, left == 0, &r,
			      "r23 (%s lifetime): when the run is killed, the child it started dies "
			      "too (%d left)",
			      lifetime_name(l), left);
		} else if (p) {
			caged_proc_finish(p);
		}
		if (hold[1] >= 0)
			close(hold[1]);
		left_kill(token);
	}

	/*
	 * The caller gone: a process that started the run dies; the run dies
	 * with it. (Without a private tmp: nothing would remove it.)
	 */
	token_make(token, sizeof token, "caller");
	int ready[2];
	if (!fixture(t, procage_policy_set_private_tmp(ws->policy, false, NULL) == 0 &&
			    pipe2(ready, O_CLOEXEC) == 0,
		     "r23: a policy without private tmp, a pipe"))
		goto out;
	fflush(stdout);
	pid_t caller = fork();
	if (caller == 0) {
		/* No TAP from here: this process only starts the run and waits to die. */
		close(ready[0]);
		if (pipe2(hold, O_CLOEXEC) == 0) {
			struct procage_fd_map map = { hold[0], 3 };
			struct caged_opts o = { .fds = &map, .n_fds = 1 };
			struct caged_proc *p = start_caged(ws, &o, "descendant", "child", token,
							   "then", "wait-on-fd", "3", NULL);
			if (caged_proc_wait_for(p, "started", 10000))
				(void)!write(ready[1], "r", 1);
		}
		for (;;)
			pause();
	}
	close(ready[1]);
	char c = 0;
	bool up = caller > 0 && read(ready[0], &c, 1) == 1 && left_count(token) > 0;
	close(ready[0]);
	if (fixture(t, up, "r23: a caller process started a run that left a child behind")) {
		kill(caller, SIGKILL);
		waitpid(caller, NULL, 0);
		/*
		 * Without the cage nothing ends them, so the sandbox-off run would
		 * only sit out the whole deadline, which bounds a slow kill under
		 * load in the caged runs.
		 */
		int deadline_ms = caged_sandbox_off() ? 1000 : 30000;
		int left = left_gone_within(token, deadline_ms) ? 0 : left_count(token);
		check(t, left == 0, NULL,
		      "r23: when the process that started the run dies, the run's processes die "
		      "(%d left)",
		      left);
	} else if (caller > 0) {
		kill(caller, SIGKILL);
		waitpid(caller, NULL, 0);
	}
	left_kill(token);
	left_behind_control(t, ws, "child", "a child left behind");
out:
	caged_ws_free(ws);
}

void r23_a_double_forked_descendant_dies_with_the_run(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "r23");
	if (!ws || cage_refused_here(t, ws, "r23"))
		goto out;
	for (size_t i = 0; i < 2; i++) {
		enum procage_lifetime l = lifetimes[i];
		if (!policy_lifetime(t, ws, l))
			break;
		left_behind_dies(t, ws, l, "double-fork", "a double-forked descendant");
		/*
		 * In the tree lifetime, and in a PID namespace of the run's own,
		 * it really is in a session of its own.
		 */
		bool new_session = l == PROCAGE_LIFETIME_TREE || run_has_pid_namespace(t);
		char token[64];
		token_make(token, sizeof token, "session");
		struct caged_result r = run_caged(ws, NULL, "descendant", "session", token, NULL);
		int left = left_count(token);
		bool own_session = !strstr(r.err, "setsid:");
		check(t, did_it(&r) && left == 0 && own_session == new_session, &r,
		      "r23 (%s lifetime): a double-forked descendant that %s dies with the run (%d "
		      "left)",
		      lifetime_name(l),
		      new_session ? "made a session of its own" : "tried a session of its own",
		      left);
		left_kill(token);
	}
	left_behind_control(t, ws, "session", "a double-forked descendant in a new session");
out:
	caged_ws_free(ws);
}

void r23_descendants_of_an_exited_child_die_with_the_run(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "r23");
	if (!ws || cage_refused_here(t, ws, "r23"))
		goto out;
	for (size_t i = 0; i < 2; i++) {
		enum procage_lifetime l = lifetimes[i];
		char token[64];
		int hold[2];
		if (!policy_lifetime(t, ws, l))
			break;
		/*
		 * The child exited at once; its child lives on in the run, which
		 * goes on. The probe says "started" once it has reaped that child,
		 * so the orphan has its new parent by then; no event comes to the
		 * run at that change (a subreaper or PID 1 hears of an orphan only
		 * when it dies), so what is judged is that the orphan is alive when
		 * the target is let go, and gone once the run has ended.
		 */
		token_make(token, sizeof token, "orphan");
		struct caged_proc *p = start_holding(t, ws, "double-fork", token, hold);
		bool up = p && started_holding(t, p, token);
		int alive = left_count(token);
		if (hold[1] >= 0)
			close(hold[1]); /* the target exits */
		struct caged_result r = p ? caged_proc_finish(p) : (struct caged_result){ 0 };
		int left = left_count(token);
		if (up)
			check(t, alive == 1 && did_it(&r) && left == 0, &r,
			      "r23 (%s lifetime): the orphan of an exited child lives while the run "
			      "does, and dies when it ends (%d alive before, %d left)",
			      lifetime_name(l), alive, left);
		left_kill(token);
	}
	left_behind_control(t, ws, "double-fork", "the orphan of an exited child");
out:
	caged_ws_free(ws);
}

/*
 * A new session (setsid) cannot outlive the run. In a PID namespace of the
 * run's own (tier T1) the session lifetime allows one: the reaper is the
 * namespace's first process, and its exit kills every process in it,
 * whatever session. Without that namespace (tier T2) it refuses setsid.
 */
void r23_a_new_session_ends_with_the_run(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "r23");
	struct caged_result r;
	if (!ws || cage_refused_here(t, ws, "r23"))
		goto out;
	if (run_has_pid_namespace(t)) {
		char token[64];
		token_make(token, sizeof token, "new-session");
		r = run_caged(ws, NULL, "descendant", "session", token, NULL);
		int left = left_count(token);
		check(t, did_it(&r) && !strstr(r.err, "setsid:") && left == 0, &r,
		      "r23 (session lifetime, a PID namespace of the run's own): a process of "
		      "the run makes a session of its own, and dies with the run (%d left)",
		      left);
		left_kill(token);
		left_behind_control(t, ws, "session", "a double-forked descendant in a new session");
	} else {
		r = run_caged(ws, NULL, "setsid", NULL);
		check(t, refused(&r), &r,
		      "r23 (session lifetime, no PID namespace): a process of the run cannot "
		      "make a session of its own");
	}
	if (policy_lifetime(t, ws, PROCAGE_LIFETIME_TREE)) {
		r = run_caged(ws, NULL, "setsid", NULL);
		check(t, did_it(&r), &r, "r23: control: in the tree lifetime it can");
	}
	r = run_uncaged(ws, NULL, "setsid", NULL);
	check(t, did_it(&r), &r, "r23: control: without the cage it can");
out:
	caged_ws_free(ws);
}

void r23_a_descendant_in_a_group_of_its_own_dies_with_the_run(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "r23");
	if (!ws || cage_refused_here(t, ws, "r23"))
		goto out;
	for (size_t i = 0; i < 2; i++) {
		enum procage_lifetime l = lifetimes[i];
		if (!policy_lifetime(t, ws, l))
			break;
		left_behind_dies(t, ws, l, "group", "a child in a process group of its own");
	}
	left_behind_control(t, ws, "group", "a child in a process group of its own");
out:
	caged_ws_free(ws);
}

/*
 * Persistence: with HOME (the workspace's own) writable, the locations of
 * the persistence class that exist at spawn take no new unit and no
 * change.
 */
/*
 * The system readable, the probe's directory too, and below the
 * workspace's home what writable names (NULL: the home itself).
 */
static bool home_part_writable_policy(struct caged_ws *ws, const char *const *writable)
{
	static const char *const system[] = { "/usr", "/bin", "/lib", "/lib64", "/etc" };
	char probe_dir[PATH_MAX];
	struct procage_policy *p = procage_policy_new();
	bool ok = p != NULL;
	snprintf(probe_dir, sizeof probe_dir, "%s", caged_probe_path());
	char *slash = strrchr(probe_dir, '/');
	if (slash)
		*slash = '\0';
	for (size_t i = 0; ok && i < sizeof system / sizeof *system; i++)
		if (caged_path_exists(system[i]))
			ok = procage_policy_allow(p, system[i], PROCAGE_READ, NULL) == 0;
	ok = ok && procage_policy_allow(p, probe_dir, PROCAGE_READ, NULL) == 0;
	for (size_t i = 0; ok && (writable ? writable[i] != NULL : i == 0); i++) {
		char path[PATH_MAX + 64];
		ok = snprintf(path, sizeof path, "%s%s%s", ws->home, writable ? "/" : "",
			      writable ? writable[i] : "") < (int)sizeof path &&
		     procage_policy_allow(p, path, PROCAGE_WRITE, NULL) == 0;
	}
	ok = ok && procage_policy_accept(p, "spawn-snapshot", NULL) == 0 &&
	     procage_policy_accept(p, "entry-grants", NULL) == 0;
	if (!ok) {
		procage_policy_free(p);
		return false;
	}
	procage_policy_free(ws->policy);
	ws->policy = p;
	return true;
}

static bool home_writable_policy(struct caged_ws *ws)
{
	return home_part_writable_policy(ws, NULL);
}

void r23_a_user_unit_cannot_be_planted(const struct tier *t)
{
	static const char *const dirs[] = { ".config/systemd/user/default.target.wants",
					    ".config/autostart", ".config/environment.d",
					    ".local/share/systemd/user", "projects" };
	static const struct {
		const char *path, *what;
	} plants[] = {
		{ ".config/systemd/user/r23.service", "a systemd user unit" },
		{ ".config/systemd/user/default.target.wants/r23.service", "a unit's enabling link" },
		{ ".local/share/systemd/user/r23.timer", "a systemd user timer" },
		{ ".config/autostart/r23.desktop", "an autostart entry" },
		{ ".config/environment.d/r23.conf", "a session environment file" },
		{ ".xprofile", "a change to ~/.xprofile" },
	};
	char path[PATH_MAX], home[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r23");
	if (!ws)
		goto out;
	snprintf(home, sizeof home, "%s", ws->home);
	bool made = make_dirs(home);
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		made = made && path_join(t, path, home, dirs[i]) && make_dirs(path);
	made = made && path_join(t, path, home, ".xprofile") && put_file(path, "# mine\n");
	if (!fixture(t, made, "r23: a home in the workspace, with its unit and autostart "
			      "directories") ||
	    !fixture(t, home_writable_policy(ws), "r23: a policy with the home writable") ||
	    cage_refused_here(t, ws, "r23"))
		goto out;
	for (size_t i = 0; i < sizeof plants / sizeof *plants; i++) {
		if (!path_join(t, path, home, plants[i].path))
			goto out;
		r = run_caged(ws, NULL, "write-file", path, "[Service]\nExecStart=/bin/true\n", NULL);
		check(t, refused(&r) && (caged_path_exists(path) == (i == 5)) &&
			     (i != 5 || file_is(path, "# mine\n")),
		      &r, "r23: %s cannot be planted (%s)", plants[i].what, plants[i].path);
	}
	/* (On tier T2 the home itself takes no new entry: its grants are entry by entry.) */
	if (path_join(t, path, home, "projects/notes.txt")) {
		r = run_caged(ws, NULL, "write-file", path, "notes", NULL);
		check(t, did_it(&r), &r,
		      "r23: control: the rest of the home is writable in the cage (~/projects)");
	}
	if (path_join(t, path, home, plants[0].path)) {
		r = run_uncaged(ws, NULL, "write-file", path, "[Service]\n", NULL);
		check(t, did_it(&r) && caged_path_exists(path), &r,
		      "r23: control: without the cage the unit is written");
	}
out:
	caged_ws_free(ws);
}

/*
 * The caller's $XDG_CONFIG_HOME moved into the writable workspace (a
 * dotfiles checkout): the desktop starts its autostart entries and
 * systemd its user units from there, git reads its git/config. Each is
 * kept read-only at the moved place as at ~/.config.
 */
void r23_a_moved_xdg_config_home_is_kept(const struct tier *t)
{
	static const struct {
		const char *path, *what;
	} plants[] = {
		{ "autostart/r23.desktop", "an autostart entry" },
		{ "systemd/user/r23.service", "a systemd user unit" },
		{ "git/config", "a change to git's configuration" },
	};
	char xdg[PATH_MAX], path[PATH_MAX];
	const char *before = getenv("XDG_CONFIG_HOME");
	char *saved = before ? strdup(before) : NULL;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r23");
	if (!ws || !path_join(t, xdg, ws->rw, "dotfiles/config"))
		goto out;
	bool made = path_join(t, path, xdg, "autostart") && make_dirs(path) &&
		    path_join(t, path, xdg, "systemd/user") && make_dirs(path) &&
		    path_join(t, path, xdg, "git") && make_dirs(path) &&
		    path_join(t, path, xdg, "git/config") && put_file(path, "[user]\n\tname = me\n") &&
		    path_join(t, path, xdg, "unlisted.conf") && put_file(path, "theirs");
	if (!fixture(t, made, "r23: a moved XDG_CONFIG_HOME in the workspace (%s)", xdg))
		goto out;
	setenv("XDG_CONFIG_HOME", xdg, 1);
	if (cage_refused_here(t, ws, "r23"))
		goto out;
	for (size_t i = 0; i < sizeof plants / sizeof *plants; i++) {
		if (!path_join(t, path, xdg, plants[i].path))
			goto out;
		bool existed = caged_path_exists(path);
		r = run_caged(ws, NULL, "write-file", path, "[Service]\nExecStart=/bin/true\n", NULL);
		check(t,
		      refused(&r) && caged_path_exists(path) == existed &&
			  (!existed || file_is(path, "[user]\n\tname = me\n")),
		      &r, "r23: %s cannot be planted in $XDG_CONFIG_HOME (%s)", plants[i].what,
		      plants[i].path);
	}
	if (path_join(t, path, xdg, "unlisted.conf")) {
		r = run_caged(ws, NULL, "write-file", path, "mine", NULL);
		/* An existing file: on tier T2 this directory takes no new entry (entry grants). */
		check(t, did_it(&r) && file_is(path, "mine"), &r,
		      "r23: control: the rest of the moved XDG_CONFIG_HOME is writable in the cage");
	}
	if (path_join(t, path, xdg, plants[0].path)) {
		r = run_uncaged(ws, NULL, "write-file", path, "[Desktop Entry]\n", NULL);
		check(t, did_it(&r) && caged_path_exists(path), &r,
		      "r23: control: without the cage the autostart entry is written");
	}
out:
	if (saved)
		setenv("XDG_CONFIG_HOME", saved, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
	free(saved);
	caged_ws_free(ws);
}

void r23_concurrent_runs_are_separate(const struct tier *t)
{
	enum { RUNS = 4 };
	char tokens[RUNS][64];
	int holds[RUNS][2];
	struct caged_proc *runs[RUNS] = { NULL };
	struct caged_ws *ws = workspace(t, "r23");
	bool up = true;
	if (!ws || cage_refused_here(t, ws, "r23"))
		goto out;
	for (int i = 0; i < RUNS; i++) {
		token_make(tokens[i], sizeof tokens[i], "concurrent");
		runs[i] = start_holding(t, ws, "child", tokens[i], holds[i]);
	}
	for (int i = 0; i < RUNS; i++)
		up = up && runs[i] && started_holding(t, runs[i], tokens[i]);
	if (!up)
		goto out;

	/* The first run ends (its target exits), the second is killed. */
	close(holds[0][1]);
	holds[0][1] = -1;
	struct caged_result r = caged_proc_finish(runs[0]);
	runs[0] = NULL;
	int left = left_count(tokens[0]), others = 0;
	for (int i = 1; i < RUNS; i++)
		others += left_count(tokens[i]);
	check(t, did_it(&r) && left == 0 && others == RUNS - 1, &r,
	      "r23: of %d runs at once, ending one ends its processes (%d left) and no other's "
	      "(%d of %d live on)",
	      RUNS, left, others, RUNS - 1);
	caged_proc_kill(runs[1]);
	r = caged_proc_finish(runs[1]);
	runs[1] = NULL;
	left = left_count(tokens[1]);
	others = left_count(tokens[2]) + left_count(tokens[3]);
	check(t, left == 0 && others == 2, &r,
	      "r23: killing another run ends its processes (%d left) and no other's (%d of 2 "
	      "live on)",
	      left, others);
out:
	for (int i = 0; i < RUNS; i++) {
		if (runs[i]) {
			if (holds[i][1] >= 0)
				close(holds[i][1]);
			caged_proc_finish(runs[i]);
		} else if (holds[i][1] >= 0) {
			close(holds[i][1]);
		}
		if (ws)
			left_kill(tokens[i]);
	}
	caged_ws_free(ws);
}

/* ---- R-22 -------------------------------------------------------------- */

/*
 * The planting locations missing when the run starts, inside a grant of
 * what holds them (~/.config, ~/go): a grant does not let a run make
 * them, by mkdir, by a file, by renaming a directory it made there or by
 * a link; the rest of the granted directories takes new entries.
 */
void r23_a_missing_planting_location_cannot_be_made_through_a_grant(const struct tier *t)
{
	static const char *const granted[] = { ".config", "go", NULL };
	char config[PATH_MAX], units[PATH_MAX], autostart[PATH_MAX], made[PATH_MAX],
	    gobin[PATH_MAX], settings[PATH_MAX], elsewhere[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r23");
	if (!ws)
		goto out;
	bool ok = path_join(t, config, ws->home, ".config") &&
		  path_join(t, units, config, "systemd") &&
		  path_join(t, autostart, config, "autostart") &&
		  path_join(t, made, config, "made") &&
		  path_join(t, settings, config, "other/settings") &&
		  path_join(t, gobin, ws->home, "go/bin") &&
		  path_join(t, elsewhere, ws->home, "go/elsewhere");
	char other[PATH_MAX];
	ok = ok && path_join(t, other, config, "other");
	if (!ok || !fixture(t, make_dirs(other) && put_file(settings, "x") && make_dirs(elsewhere),
			    "r23: a home with ~/.config and ~/go, no unit, autostart or go/bin") ||
	    !fixture(t, home_part_writable_policy(ws, granted),
		     "r23: a policy with ~/.config and ~/go writable") ||
	    cage_refused_here(t, ws, "r23"))
		goto out;
	r = run_caged(ws, NULL, "mkdir", units, NULL);
	check(t, refused(&r) && !caged_path_exists(units), &r,
	      "r23: a missing ~/.config/systemd cannot be made through --write ~/.config");
	r = run_caged(ws, NULL, "write-file", autostart, "x", NULL);
	check(t, refused(&r) && !caged_path_exists(autostart), &r,
	      "r23: nor ~/.config/autostart as a file");
	r = run_caged(ws, NULL, "mkdir", made, NULL);
	check(t, did_it(&r) && caged_path_exists(made), &r,
	      "r23: control: a new directory is made in the granted ~/.config");
	r = run_caged(ws, NULL, "rename", made, units, NULL);
	check(t, refused(&r) && !caged_path_exists(units), &r,
	      "r23: a directory the run made cannot be renamed to ~/.config/systemd");
	r = run_caged(ws, NULL, "symlink", elsewhere, autostart, NULL);
	check(t, refused(&r) && !caged_path_exists(autostart), &r,
	      "r23: ~/.config/autostart cannot be made a symbolic link");
	r = run_caged(ws, NULL, "mkdir", gobin, NULL);
	check(t, refused(&r) && !caged_path_exists(gobin), &r,
	      "r23: a missing ~/go/bin (a directory of the search path) cannot be made through "
	      "--write ~/go");
	r = run_caged(ws, NULL, "write-file", settings, "changed", NULL);
	check(t, did_it(&r) && file_is(settings, "changed"), &r,
	      "r23: control: an existing file of ~/.config is written");
	(void)rmdir(units); /* made above when the sandbox is off */
	r = run_uncaged(ws, NULL, "mkdir", units, NULL);
	check(t, did_it(&r) && caged_path_exists(units), &r,
	      "r23: control: without the cage ~/.config/systemd is made");
out:
	caged_ws_free(ws);
}
