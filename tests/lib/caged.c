/*
 * The canaries' harness (see caged.h). Caged runs go through the public API
 * only, exactly as a caller would make them; uncaged runs are a plain fork
 * and exec with the same arguments, descriptors and (unfiltered)
 * environment, so that a control differs from its canary by the cage alone.
 */
#include "caged.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define CAGED_MAX_ARGS 64
#define CAGED_MAX_FDS 32
#define CAGED_DEFAULT_TIMEOUT_MS 20000

static char probe_path[PATH_MAX];
static char probe_dir[PATH_MAX];

struct caged_proc {
	struct caged_result r;
	struct procage_run *run; /* caged */
	pid_t pid;		 /* the probe's pid either way; -1 when not started */
	int out_fd, err_fd;
	size_t out_len, err_len;
	int timeout_ms;
	long long started_ms;
};

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool caged_sandbox_off(void)
{
	const char *v = getenv("PROCAGE_TEST_SANDBOX_OFF");
	return v && strcmp(v, "1") == 0;
}

static void sandbox_off_announce(void)
{
	static bool said;
	if (said)
		return;
	said = true;
	printf("# !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
	       "# !!! PROCAGE_TEST_SANDBOX_OFF=1: \"caged\" runs are NOT caged.       !!!\n"
	       "# !!! Every canary assertion is expected to FAIL in this mode; only  !!!\n"
	       "# !!! the controls should pass. This is a check of the suite itself. !!!\n"
	       "# !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n");
	fflush(stdout);
}

int caged_init(const char *argv0)
{
	char self[PATH_MAX], candidate[PATH_MAX + 16];
	const char *env = getenv("PROCAGE_PROBE");

	if (env && env[0]) {
		snprintf(candidate, sizeof candidate, "%s", env);
	} else {
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n > 0)
			self[n] = '\0';
		else if (!argv0 || !realpath(argv0, self))
			return -errno;
		snprintf(candidate, sizeof candidate, "%s/probe", dirname(self));
	}
	if (!realpath(candidate, probe_path) || access(probe_path, X_OK) != 0) {
		int e = errno;
		fprintf(stderr, "caged: no probe at %s (%s); build it or set PROCAGE_PROBE\n",
			candidate, strerror(e));
		return -e;
	}
	snprintf(self, sizeof self, "%s", probe_path);
	snprintf(probe_dir, sizeof probe_dir, "%s", dirname(self));
	return 0;
}

const char *caged_probe_path(void)
{
	return probe_path;
}

/* ---- files ------------------------------------------------------------ */

int caged_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text), done = 0;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		done += (size_t)n;
	}
	return close(fd) == 0 ? 0 : -errno;
}

int caged_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = 0;
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	return 0;
}

bool caged_path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/*
 * Empty the directory open at fd, depth first, by descriptor, never
 * following a symbolic link or crossing into another file system. The
 * probe may have taken rights away from a directory; the owner restores
 * them.
 */
static void tree_empty(int fd, dev_t dev, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno != EISDIR || depth > 64 ||
		    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) == 0)
			continue;
		int sub =
		    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/*
		 * A directory the run left without permissions (the T2 broker
		 * makes one with mode 0 for a caller that died before its umask
		 * was read): an unprivileged test cannot list it until it
		 * gives itself the right back. It is a directory (EISDIR).
		 */
		if (sub < 0 && errno == EACCES && fchmodat(dirfd(d), e->d_name, 0700, 0) == 0)
			sub = openat(dirfd(d), e->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (sub < 0)
			continue;
		if (fstat(sub, &st) != 0 || st.st_dev != dev) {
			close(sub);
			continue;
		}
		(void)fchmod(sub, 0700);
		tree_empty(sub, dev, depth + 1);
		(void)unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void caged_remove_tree(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		(void)unlink(path);
		return;
	}
	if (fstat(fd, &st) != 0) {
		close(fd);
		return;
	}
	(void)fchmod(fd, 0700);
	tree_empty(fd, st.st_dev, 0);
	if (rmdir(path) != 0)
		fprintf(stderr, "caged: could not remove %s: %s\n", path, strerror(errno));
}

/* ---- the workspace's HOME and runtime directory ----------------------- */

struct ws_env_saved {
	char *home, *runtime;
};

static void env_restore(const char *name, char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
	free(value);
}

/* HOME and XDG_RUNTIME_DIR become the workspace's until ws_env_leave. */
static void ws_env_enter(const struct caged_ws *ws, struct ws_env_saved *saved)
{
	const char *home = getenv("HOME"), *runtime = getenv("XDG_RUNTIME_DIR");
	saved->home = home ? strdup(home) : NULL;
	saved->runtime = runtime ? strdup(runtime) : NULL;
	setenv("HOME", ws->home, 1);
	setenv("XDG_RUNTIME_DIR", ws->runtime, 1);
}

static void ws_env_leave(struct ws_env_saved *saved)
{
	env_restore("HOME", saved->home);
	env_restore("XDG_RUNTIME_DIR", saved->runtime);
}

/* ---- workspace ------------------------------------------------------- */

static const char *shared_tmp(void)
{
	const char *t = getenv("TMPDIR");
	struct stat st;
	if (t && t[0] == '/' && stat(t, &st) == 0 && S_ISDIR(st.st_mode))
		return t;
	return "/tmp";
}

struct caged_ws *caged_ws_new(void)
{
	struct caged_ws *ws = calloc(1, sizeof *ws);
	if (!ws)
		return NULL;
	snprintf(ws->base, sizeof ws->base, "%s", shared_tmp());
	snprintf(ws->root, sizeof ws->root, "%.3000s/procage-canary-XXXXXX", ws->base);
	if (!mkdtemp(ws->root)) {
		fprintf(stderr, "caged: mkdtemp %s: %s\n", ws->root, strerror(errno));
		free(ws);
		return NULL;
	}
	snprintf(ws->rw, sizeof ws->rw, "%.3000s/rw", ws->root);
	snprintf(ws->ro, sizeof ws->ro, "%.3000s/ro", ws->root);
	snprintf(ws->home, sizeof ws->home, "%.3000s/home", ws->root);
	snprintf(ws->runtime, sizeof ws->runtime, "%.3000s/run", ws->root);
	if (mkdir(ws->rw, 0700) != 0 || mkdir(ws->ro, 0700) != 0 || mkdir(ws->home, 0700) != 0 ||
	    mkdir(ws->runtime, 0700) != 0) {
		fprintf(stderr, "caged: mkdir in %s: %s\n", ws->root, strerror(errno));
		goto fail;
	}
	if (caged_ws_reset_policy(ws) < 0)
		goto fail;
	return ws;
fail:
	caged_ws_free(ws);
	return NULL;
}

int caged_ws_reset_policy(struct caged_ws *ws)
{
	struct procage_error err;
	struct procage_policy *p = NULL;
	struct ws_env_saved saved;
	/* The default reads $HOME: the workspace's, never the caller's. */
	ws_env_enter(ws, &saved);
	int rc = procage_policy_new_default(ws->rw, &p, &err);
	ws_env_leave(&saved);
	if (rc == 0 && (rc = procage_policy_allow(p, ws->ro, PROCAGE_READ, &err)) == 0)
		rc = procage_policy_allow(p, probe_dir, PROCAGE_READ, &err);
	if (rc < 0) {
		fprintf(stderr, "caged: building the policy: %s\n", err.message);
		procage_policy_free(p);
		return rc;
	}
	procage_policy_free(ws->policy);
	ws->policy = p;
	return 0;
}

void caged_ws_free(struct caged_ws *ws)
{
	if (!ws)
		return;
	caged_ws_drop_cage(ws);
	procage_policy_free(ws->policy);
	caged_remove_tree(ws->root);
	free(ws);
}

int caged_ws_hold_cage(struct caged_ws *ws, char *why, size_t size)
{
	struct procage_error err;
	struct ws_env_saved saved;
	caged_ws_drop_cage(ws);
	if (caged_sandbox_off()) {
		sandbox_off_announce();
		return 0;
	}
	ws_env_enter(ws, &saved);
	int rc = procage_cage_new(ws->policy, &ws->held, &err);
	ws_env_leave(&saved);
	if (rc < 0)
		snprintf(why, size, "%s", err.message);
	return rc;
}

void caged_ws_drop_cage(struct caged_ws *ws)
{
	procage_cage_free(ws->held);
	ws->held = NULL;
}

/* ---- runs ------------------------------------------------------------ */

static const char *env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

static bool fds_map_target(const struct caged_opts *o, int target)
{
	for (size_t i = 0; o && i < o->n_fds; i++)
		if (o->fds[i].child_fd == target)
			return true;
	return false;
}

/* The caller's maps plus stdin from /dev/null and stdout/stderr to our pipes. */
static size_t fds_build(const struct caged_opts *o, int devnull, int out_w, int err_w,
			struct procage_fd_map *maps)
{
	size_t n = 0;
	for (size_t i = 0; o && i < o->n_fds && n < CAGED_MAX_FDS - 3; i++)
		maps[n++] = o->fds[i];
	if (!fds_map_target(o, 0))
		maps[n++] = (struct procage_fd_map){devnull, 0};
	if (!fds_map_target(o, 1))
		maps[n++] = (struct procage_fd_map){out_w, 1};
	if (!fds_map_target(o, 2))
		maps[n++] = (struct procage_fd_map){err_w, 2};
	return n;
}

static void not_started(struct caged_proc *p, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void not_started(struct caged_proc *p, int code, const char *fmt, ...)
{
	va_list ap;
	p->r.how = CAGED_NOT_STARTED;
	p->r.code = code;
	va_start(ap, fmt);
	vsnprintf(p->r.error, sizeof p->r.error, fmt, ap);
	va_end(ap);
}

static void spawn_caged(struct caged_proc *p, struct caged_ws *ws, const struct caged_opts *o,
			char *const *argv, const struct procage_fd_map *maps, size_t n_maps)
{
	struct procage_error err;
	struct procage_cage *cage = ws->held;
	int rc = cage ? 0 : procage_cage_new(ws->policy, &cage, &err);
	if (rc < 0) {
		p->r.cage_refused = true;
		not_started(p, rc, "cage refused: %s", err.message);
		return;
	}
	struct procage_spawn_opts so = {
	    .size = sizeof so,
	    .argv = argv,
	    .envp = o ? o->env : NULL,
	    .cwd = o && o->inherit_cwd ? NULL : ws->rw,
	    .fds = maps,
	    .n_fds = n_maps,
	    .report_json_path = o ? o->report_json_path : NULL,
	};
	int here = o && o->inherit_cwd ? open(".", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	if (here >= 0 && chdir(o->inherit_cwd) != 0) {
		close(here);
		here = -1;
		rc = -errno;
	}
	if (rc == 0)
		rc = procage_spawn(cage, &so, &p->run, &err);
	else
		snprintf(err.message, sizeof err.message, "entering %s", o->inherit_cwd);
	if (here >= 0) {
		if (fchdir(here) != 0)
			abort(); /* every later path of the suite would be wrong */
		close(here);
	}
	if (cage != ws->held)
		procage_cage_free(cage);
	if (rc < 0) {
		not_started(p, rc, "spawn failed (step %s): %s", procage_step_name(err.step),
			    err.message);
		return;
	}
	p->pid = procage_run_pid(p->run);
	const char *t = procage_run_tmpdir(p->run);
	snprintf(p->r.tmpdir, sizeof p->r.tmpdir, "%s", t ? t : "");
}

/*
 * A run that should have been caged, made without the cage
 * (PROCAGE_TEST_SANDBOX_OFF): its escapes succeed for real, so the ones
 * that would change the host's mounts (the probe mounts over /tmp,
 * unmounts, remounts) go into a mount namespace of the probe's own, with
 * nothing propagating back. A process that cannot make one (no
 * CAP_SYS_ADMIN) cannot change the host's mounts either.
 */
static void host_mounts_out_of_reach(void)
{
	if (unshare(CLONE_NEWNS) != 0) {
		if (errno == EPERM)
			return;
		_exit(126);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		_exit(126);
}

/* After fork, before exec: async-signal-safe calls only. */
static _Noreturn void uncaged_child(const char *cwd, char *const *argv, char *const *env,
				    const struct procage_fd_map *maps, size_t n_maps,
				    bool sandbox_off)
{
	int scratch[CAGED_MAX_FDS], top = 2;
	if (sandbox_off)
		host_mounts_out_of_reach();
	for (size_t i = 0; i < n_maps; i++)
		if (maps[i].child_fd > top)
			top = maps[i].child_fd;
	for (size_t i = 0; i < n_maps; i++)
		if ((scratch[i] = fcntl(maps[i].parent_fd, F_DUPFD_CLOEXEC, top + 1)) < 0)
			_exit(126);
	for (size_t i = 0; i < n_maps; i++)
		if (dup2(scratch[i], maps[i].child_fd) < 0)
			_exit(126);
	for (size_t i = 0; i < n_maps; i++)
		close(scratch[i]);
	if (chdir(cwd) != 0)
		_exit(126);
	execve(argv[0], argv, env);
	_exit(127);
}

static void spawn_uncaged(struct caged_proc *p, struct caged_ws *ws, const struct caged_opts *o,
			  char *const *argv, const struct procage_fd_map *maps, size_t n_maps,
			  bool sandbox_off)
{
	char *const *env = o && o->env ? o->env : environ;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		not_started(p, -errno, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0)
		uncaged_child(o && o->inherit_cwd ? o->inherit_cwd : ws->rw, argv, env, maps, n_maps,
			      sandbox_off);
	p->pid = pid;
	/* What the probe takes as its TMPDIR: the variable, else /tmp. */
	const char *t = env_get(env, "TMPDIR");
	snprintf(p->r.tmpdir, sizeof p->r.tmpdir, "%s", t && t[0] ? t : "/tmp");
}

static struct caged_proc *start(struct caged_ws *ws, const struct caged_opts *o, bool caged,
				const char *const *args)
{
	char *argv[CAGED_MAX_ARGS + 2];
	struct procage_fd_map maps[CAGED_MAX_FDS];
	int out[2] = {-1, -1}, err[2] = {-1, -1}, devnull = -1;
	size_t n = 0;

	struct caged_proc *p = calloc(1, sizeof *p);
	if (!p) {
		fprintf(stderr, "caged: out of memory\n");
		abort();
	}
	p->pid = -1;
	p->out_fd = p->err_fd = -1;
	p->timeout_ms = o && o->timeout_ms > 0 ? o->timeout_ms : CAGED_DEFAULT_TIMEOUT_MS;
	bool sandbox_off = caged && caged_sandbox_off();
	if (sandbox_off) {
		sandbox_off_announce();
		caged = false;
	}
	p->r.caged = caged;

	argv[n++] = probe_path;
	for (size_t i = 0; args[i] && n < CAGED_MAX_ARGS; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;

	if (!probe_path[0]) {
		not_started(p, -ENOENT, "caged_init was not called or found no probe");
		return p;
	}
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
	    (devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		not_started(p, -errno, "pipes: %s", strerror(errno));
		goto out;
	}
	size_t n_maps = fds_build(o, devnull, out[1], err[1], maps);
	struct ws_env_saved saved;
	ws_env_enter(ws, &saved);
	if (caged)
		spawn_caged(p, ws, o, argv, maps, n_maps);
	else
		spawn_uncaged(p, ws, o, argv, maps, n_maps, sandbox_off);
	ws_env_leave(&saved);
	p->started_ms = now_ms();
	if (p->r.how != CAGED_NOT_STARTED) {
		p->out_fd = out[0];
		p->err_fd = err[0];
		out[0] = err[0] = -1;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	if (devnull >= 0)
		close(devnull);
	return p;
}

/* Read what is there; false once both pipes are at EOF or the deadline passed. */
static bool pump(struct caged_proc *p, long long deadline)
{
	struct pollfd pf[2] = {{p->out_fd, POLLIN, 0}, {p->err_fd, POLLIN, 0}};
	if (p->out_fd < 0 && p->err_fd < 0)
		return false;
	long long left = deadline - now_ms();
	if (left <= 0)
		return false;
	int n = poll(pf, 2, (int)(left > 1000 ? 1000 : left));
	if (n < 0 && errno != EINTR)
		return false;
	for (int i = 0; i < 2 && n > 0; i++) {
		if (!pf[i].revents)
			continue;
		int *fd = i == 0 ? &p->out_fd : &p->err_fd;
		char *buf = i == 0 ? p->r.out : p->r.err;
		size_t size = i == 0 ? sizeof p->r.out : sizeof p->r.err;
		size_t *len = i == 0 ? &p->out_len : &p->err_len;
		char sink[4096];
		/* Once the buffer is full the rest is read and dropped. */
		bool full = *len + 1 >= size;
		ssize_t got =
		    full ? read(*fd, sink, sizeof sink) : read(*fd, buf + *len, size - 1 - *len);
		if (got > 0 && !full) {
			/* NUL bytes (as in /proc/PID/cmdline) become spaces, so text
			 * after them is still found. */
			for (char *c = buf + *len; c < buf + *len + got; c++)
				if (*c == '\0')
					*c = ' ';
			*len += (size_t)got;
			buf[*len] = '\0';
		} else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
			close(*fd);
			*fd = -1;
		}
	}
	return true;
}

static void summarize(struct caged_result *r)
{
	char how[600], first_err[160];
	const char *nl = strchr(r->err, '\n');
	snprintf(first_err, sizeof first_err, "%.*s", nl ? (int)(nl - r->err) : (int)strlen(r->err),
		 r->err);
	switch (r->how) {
	case CAGED_EXITED:
		snprintf(how, sizeof how, "exit %d", r->code);
		break;
	case CAGED_SIGNALED:
		snprintf(how, sizeof how, "killed by signal %d (%s)", r->code, strsignal(r->code));
		break;
	case CAGED_TIMED_OUT:
		snprintf(how, sizeof how, "timed out and killed");
		break;
	default:
		snprintf(how, sizeof how, "not started: %.560s", r->error);
		break;
	}
	snprintf(r->summary, sizeof r->summary, "%s%s%s%s%s", r->caged ? "" : "[uncaged] ", how,
		 first_err[0] ? " (" : "", first_err, first_err[0] ? ")" : "");
}

bool caged_proc_started(const struct caged_proc *p)
{
	return p && p->r.how != CAGED_NOT_STARTED;
}

pid_t caged_proc_pid(const struct caged_proc *p)
{
	return p ? p->pid : -1;
}

const char *caged_proc_tmpdir(const struct caged_proc *p)
{
	return p ? p->r.tmpdir : "";
}

bool caged_proc_wait_for(struct caged_proc *p, const char *text, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	if (!caged_proc_started(p))
		return false;
	while (!strstr(p->r.out, text))
		if (!pump(p, deadline))
			return strstr(p->r.out, text) != NULL;
	return true;
}

void caged_proc_kill(struct caged_proc *p)
{
	if (!caged_proc_started(p))
		return;
	if (p->run)
		procage_run_kill(p->run, NULL);
	else
		kill(p->pid, SIGKILL);
}

struct caged_result caged_proc_finish(struct caged_proc *p)
{
	struct caged_result r;
	if (caged_proc_started(p)) {
		long long deadline = p->started_ms + p->timeout_ms;
		bool timed_out = false;
		while (pump(p, deadline))
			;
		if (p->out_fd >= 0 || p->err_fd >= 0) {
			timed_out = true;
			if (p->run)
				procage_run_signal(p->run, SIGKILL, NULL);
			else
				kill(p->pid, SIGKILL);
		}
		int status = 0;
		if (p->run) {
			struct procage_error err;
			if (procage_run_wait(p->run, &status, &err) < 0)
				fprintf(stderr, "caged: waiting for the run: %s\n", err.message);
			procage_run_free(p->run);
		} else {
			while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
				;
		}
		if (p->out_fd >= 0)
			close(p->out_fd);
		if (p->err_fd >= 0)
			close(p->err_fd);
		if (timed_out) {
			p->r.how = CAGED_TIMED_OUT;
			p->r.code = SIGKILL;
		} else if (WIFEXITED(status)) {
			p->r.how = CAGED_EXITED;
			p->r.code = WEXITSTATUS(status);
		} else if (WIFSIGNALED(status)) {
			p->r.how = CAGED_SIGNALED;
			p->r.code = WTERMSIG(status);
		} else {
			/* A stopped or traced child: not an end the harness knows. */
			p->r.how = CAGED_NOT_STARTED;
			p->r.code = -ECHILD;
			snprintf(p->r.error, sizeof p->r.error, "odd wait status 0x%x", status);
		}
	}
	summarize(&p->r);
	r = p->r;
	free(p);
	return r;
}

/* ACTION ARGS... NULL into args (at most CAGED_MAX_ARGS). */
static void args_collect(const char **args, const char *action, va_list ap)
{
	size_t n = 0;
	for (const char *a = action; a && n < CAGED_MAX_ARGS; a = va_arg(ap, const char *))
		args[n++] = a;
	args[n] = NULL;
}

#define START_VARIADIC(caged)                                                                      \
	const char *args[CAGED_MAX_ARGS + 1];                                                      \
	va_list ap;                                                                                \
	va_start(ap, action);                                                                      \
	args_collect(args, action, ap);                                                            \
	va_end(ap);                                                                                \
	struct caged_proc *p = start(ws, o, caged, args)

struct caged_proc *start_caged(struct caged_ws *ws, const struct caged_opts *o, const char *action,
			       ...)
{
	START_VARIADIC(true);
	return p;
}

struct caged_proc *start_uncaged(struct caged_ws *ws, const struct caged_opts *o,
				 const char *action, ...)
{
	START_VARIADIC(false);
	return p;
}

struct caged_result run_caged(struct caged_ws *ws, const struct caged_opts *o, const char *action,
			      ...)
{
	START_VARIADIC(true);
	return caged_proc_finish(p);
}

struct caged_result run_uncaged(struct caged_ws *ws, const struct caged_opts *o, const char *action,
				...)
{
	START_VARIADIC(false);
	return caged_proc_finish(p);
}

struct caged_result run_caged_argv(struct caged_ws *ws, const struct caged_opts *o,
				   const char *const *args)
{
	return caged_proc_finish(start(ws, o, true, args));
}

struct caged_result run_uncaged_argv(struct caged_ws *ws, const struct caged_opts *o,
				     const char *const *args)
{
	return caged_proc_finish(start(ws, o, false, args));
}

bool caged_exited_with(const struct caged_result *r, int code)
{
	return r->how == CAGED_EXITED && r->code == code;
}
