/* The fixture of the tests of how runs end (lifetime_fixture.h). */
#include "lifetime_fixture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/tmpdir.h"
#include "tap.h"

char lifetime_workspace[256], lifetime_tmp_base[256];
struct procage_cage *lifetime_cage;
int lifetime_sigchld_fd = -1;
long long lifetime_now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

/* The cage: default policy on the workspace, private tmp made under the base. */
static struct procage_cage *lifetime_cage_make(void)
{
	struct procage_policy *p = NULL;
	struct procage_cage *c = NULL;
	struct procage_error err;
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	setenv("TMPDIR", lifetime_tmp_base, 1);
	if (procage_policy_new_default(lifetime_workspace, &p, &err) != 0 ||
	    procage_policy_set_private_tmp(p, true, &err) != 0 || procage_cage_new(p, &c, &err) != 0)
		tap_diag("cage: %s", err.message);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	procage_policy_free(p);
	return c;
}

int lifetime_entries(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Remove whatever a failed check left in tmp_base, so the next one starts clean. */
void lifetime_tmp_clean(void)
{
	DIR *d = opendir(lifetime_tmp_base);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		char path[512];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", lifetime_tmp_base, e->d_name);
		tmpdir_remove(path);
	}
	closedir(d);
}

/* SIGKILL our children now (every process left of a run comes back to us). */
static void children_signal(bool say)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)gettid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *p = buf, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (say)
			tap_diag("left: process %ld", pid);
		kill((pid_t)pid, SIGKILL); /* our unreaped child */
	}
}

void lifetime_children_kill(void)
{
	children_signal(true);
}

void lifetime_children_reap(void)
{
	children_signal(false);
	while (waitpid(-1, NULL, 0) > 0)
		;
}

/*
 * Reap every child until none is left: true, or false when some are still
 * there at the deadline (they are then killed and reaped).
 */
bool lifetime_children_end(int deadline_ms)
{
	long long end = lifetime_now_us() + deadline_ms * 1000LL;
	for (;;) {
		int status;
		pid_t pid;
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			;
		if (pid < 0 && errno == ECHILD)
			return true;
		long long left = (end - lifetime_now_us()) / 1000;
		struct pollfd p = { lifetime_sigchld_fd, POLLIN, 0 };
		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			lifetime_children_kill();
			while (waitpid(-1, &status, 0) > 0)
				;
			return false;
		}
		struct signalfd_siginfo si[8];
		(void)!read(lifetime_sigchld_fd, si, sizeof si);
	}
}

/* Spawn script, with out_fd (if not -1) as its stdout and err_fd (if not -1) as its stderr. */
struct procage_run *lifetime_spawn_to(const char *script, int out_fd, int err_fd,
				    struct procage_error *err)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct procage_fd_map map[2];
	size_t n = 0;
	if (out_fd >= 0)
		map[n++] = (struct procage_fd_map){ out_fd, 1 };
	if (err_fd >= 0)
		map[n++] = (struct procage_fd_map){ err_fd, 2 };
	struct procage_spawn_opts o = { .size = sizeof o, .argv = argv, .cwd = lifetime_workspace,
					.fds = n ? map : NULL, .n_fds = n };
	struct procage_run *r = NULL;
	return procage_spawn(lifetime_cage, &o, &r, err) == 0 ? r : NULL;
}

struct procage_run *lifetime_spawn_with(const char *script, int out_fd, struct procage_error *err)
{
	return lifetime_spawn_to(script, out_fd, -1, err);
}

/* How long a spawn takes here (the longest of a few), in microseconds. */
long long lifetime_spawn_duration(void)
{
	long long longest = 0;
	for (int i = 0; i < 5; i++) {
		struct procage_error err;
		long long start = lifetime_now_us();
		struct procage_run *r = lifetime_spawn_with("exec sleep 1000", -1, &err);
		long long took = lifetime_now_us() - start;
		if (!r)
			return -1;
		procage_run_kill(r, NULL);
		procage_run_wait(r, NULL, NULL);
		procage_run_free(r);
		if (took > longest)
			longest = took;
	}
	return longest;
}

bool lifetime_begin(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	sigset_t chld;

	snprintf(lifetime_workspace, sizeof lifetime_workspace, "%s/procage-unit-XXXXXX", base);
	snprintf(lifetime_tmp_base, sizeof lifetime_tmp_base, "%s/procage-unit-tmp-XXXXXX", base);
	if (!mkdtemp(lifetime_workspace) || !mkdtemp(lifetime_tmp_base)) {
		tap_diag("the test's directories in %s: %s", base, strerror(errno));
		return false;
	}
	/* Every process of a run whose caller died comes back to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	lifetime_sigchld_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	struct procage_host_facts f;
	procage_host_facts(&f, NULL);
	tap_diag("tier %s", f.tier == PROCAGE_TIER_T1 ? "T1" : "T2 or lower");
	lifetime_cage = lifetime_cage_make();
	return lifetime_cage != NULL;
}

void lifetime_end(void)
{
	procage_cage_free(lifetime_cage);
	lifetime_tmp_clean();
	rmdir(lifetime_tmp_base);
	rmdir(lifetime_workspace);
}
