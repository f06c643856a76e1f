/*
 * How a run ends, whatever happens to its caller (issue: a run must never
 * outlive its caller). Judged from outside: this test is a child
 * subreaper, so every process of a run whose caller was killed comes back
 * to it (the reaper, and whatever the reaper leaves); it waits for them on
 * SIGCHLD with a deadline that only bounds a failure, and finds the
 * private temporary directories in a base directory of its own.
 *
 *  - the caller SIGKILLed at random points of procage_spawn, 1000 times,
 *    and 250 more on tier T1 with the namespaces made ahead (the maker's
 *    holder, the relay): no process and no directory is left;
 *  - the caller SIGKILLed 40 times while processes it forked (during the
 *    spawn from another thread, or after it) hold copies of its
 *    descriptors: the run's processes end all the same;
 *  - 20 spawns while another thread of the caller forks such processes:
 *    each returns, and its run is waited for;
 *  - a run nesting directories 2000 deep: its temporary directory is
 *    removed, with the caller waiting, gone, or short of descriptors;
 *  - spawns failing for want of descriptors leave no directory;
 *  - a reaper whose descriptor limit was lowered to 1 still ends the run;
 *  - a command the reaper never read does not cost the exit status;
 *  - stopping the proxy's resolver does not wait for a lookup that hangs.
 *
 * run-tests runs it on the host's tier and on T2 (without_userns).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procage.h"
#include "proxy/resolver.h"
#include "tap.h"
#include "run/tmpdir.h"

static char workspace[256], tmp_base[256];
static struct procage_cage *cage;
static int sigchld_fd = -1;
/*
 * Tier T1: the run's TMPDIR is a tmpfs over tmp_base in the run's mount
 * namespace, so "nothing left in tmp_base" means nothing was ever made on
 * the host; tier T2: the reaper made a directory there and removed it.
 */
static bool tmp_in_namespace;

static long long now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

/* The cage: default policy on the workspace, private tmp made under tmp_base. */
static struct procage_cage *cage_make(void)
{
	struct procage_policy *p = NULL;
	struct procage_cage *c = NULL;
	struct procage_error err;
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	setenv("TMPDIR", tmp_base, 1);
	if (procage_policy_new_default(workspace, &p, &err) != 0 ||
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

static int entries_in(const char *dir)
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
static void tmp_base_clean(void)
{
	DIR *d = opendir(tmp_base);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		char path[512];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", tmp_base, e->d_name);
		tmpdir_remove(path);
	}
	closedir(d);
}

/* Our children now (every process left of a run comes back to us). */
static void children_kill(void)
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
		tap_diag("left: process %ld", pid);
		kill((pid_t)pid, SIGKILL); /* our unreaped child */
	}
}

/*
 * Reap every child until none is left: true, or false when some are still
 * there at the deadline (they are then killed and reaped).
 */
static bool all_children_end(int deadline_ms)
{
	long long end = now_us() + deadline_ms * 1000LL;
	for (;;) {
		int status;
		pid_t pid;
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			;
		if (pid < 0 && errno == ECHILD)
			return true;
		long long left = (end - now_us()) / 1000;
		struct pollfd p = { sigchld_fd, POLLIN, 0 };
		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			children_kill();
			while (waitpid(-1, &status, 0) > 0)
				;
			return false;
		}
		struct signalfd_siginfo si[8];
		(void)!read(sigchld_fd, si, sizeof si);
	}
}

/* Spawn script, with out_fd (if not -1) as its stdout and err_fd (if not -1) as its stderr. */
static struct procage_run *spawn_to(const char *script, int out_fd, int err_fd,
				    struct procage_error *err)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct procage_fd_map map[2];
	size_t n = 0;
	if (out_fd >= 0)
		map[n++] = (struct procage_fd_map){ out_fd, 1 };
	if (err_fd >= 0)
		map[n++] = (struct procage_fd_map){ err_fd, 2 };
	struct procage_spawn_opts o = { .size = sizeof o, .argv = argv, .cwd = workspace,
					.fds = n ? map : NULL, .n_fds = n };
	struct procage_run *r = NULL;
	return procage_spawn(cage, &o, &r, err) == 0 ? r : NULL;
}

static struct procage_run *spawn_with(const char *script, int out_fd, struct procage_error *err)
{
	return spawn_to(script, out_fd, -1, err);
}

/* Spawn script with its stdout on a pipe and read its first line into line. */
static struct procage_run *spawn_reading(const char *script, char *line, size_t size)
{
	int out[2];
	struct procage_error err;
	line[0] = '\0';
	if (pipe2(out, O_CLOEXEC) != 0)
		return NULL;
	struct procage_run *r = spawn_with(script, out[1], &err);
	close(out[1]);
	if (!r)
		tap_diag("spawn: %s", err.message);
	ssize_t n = r ? read(out[0], line, size - 1) : 0;
	line[n > 0 ? n : 0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	close(out[0]);
	return r;
}

/* ---- the caller killed at random points of the spawn ------------------ */

/* How long a spawn takes here (the longest of a few), in microseconds. */
static long long spawn_duration(void)
{
	long long longest = 0;
	for (int i = 0; i < 5; i++) {
		struct procage_error err;
		long long start = now_us();
		struct procage_run *r = spawn_with("exec sleep 1000", -1, &err);
		long long took = now_us() - start;
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

/*
 * One try: a child calls procage_spawn and is SIGKILLed after delay_us
 * from the moment it says it starts, or, with after_return, once it says
 * the spawn returned. With ahead, the child first asks for the spawn's
 * namespaces to be made ahead (procage_prepare_ahead), so that the kill
 * falls in their making, in the relay that enters them, or later. 1 if the
 * spawn had returned by then, 0 if not; -1 if a process or a directory of
 * the run was left.
 */
static int caller_killed_once(long long delay_us, bool after_return, bool ahead)
{
	int ev[2];
	if (pipe2(ev, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct procage_error err;
		/*
		 * On tier T2 a target whose caller died mid-spawn has no
		 * supervisor: its brokered calls fail (ENOSYS) until it is
		 * killed, and what its shell and loader say of them would
		 * only fill the test's output.
		 */
		int quiet = open("/dev/null", O_WRONLY | O_CLOEXEC);
		close(ev[0]);
		(void)!write(ev[1], "a", 1);
		if (ahead)
			procage_prepare_ahead();
		if (!spawn_to("sleep 1000 & exec sleep 1000", -1, quiet, &err))
			_exit(1); /* the test reads end of file */
		(void)!write(ev[1], "s", 1);
		for (;;)
			pause();
	}
	close(ev[1]);
	char c[2];
	if (pid < 0 || read(ev[0], c, 1) != 1) {
		close(ev[0]);
		return -1;
	}
	bool started = false;
	if (after_return) {
		started = read(ev[0], c, 1) == 1;
	} else {
		/*
		 * Not a synchronisation: a spread of kill points over the whole
		 * spawn. Slept, not spun: a thousand spins took a processor
		 * from the spawn and the tests beside this one.
		 */
		struct timespec delay = { delay_us / 1000000, (delay_us % 1000000) * 1000 };
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &delay, &delay) == EINTR)
			;
	}
	kill(pid, SIGKILL);
	if (!after_return)
		started = read(ev[0], c, 1) == 1;
	close(ev[0]);
	bool ended = all_children_end(10000);
	int dirs = entries_in(tmp_base);
	if (!ended || dirs != 0) {
		tap_diag("after %lld us (%s): processes %s, %d directories left", delay_us,
			 started ? "started" : "during the spawn", ended ? "gone" : "LEFT", dirs);
		tmp_base_clean();
		return -1;
	}
	return started;
}

static void test_caller_killed(int tries, bool ahead)
{
	const char *how = ahead ? ", the namespaces made ahead" : "";
	long long d = spawn_duration();
	unsigned seed;
	if (!tap_ok(d > 0, "a spawn here takes %lld us", d))
		return;
	if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
		seed = (unsigned)now_us();
	tap_diag("kill points drawn from 0 to %lld us after the spawn starts, seed %u", d * 3 / 2,
		 seed);
	int before = 0, after = 0, left = 0;
	for (int i = 0; i < tries; i++) {
		long long delay = (long long)(rand_r(&seed) % (unsigned)(d * 3 / 2 + 1));
		/*
		 * Where the random points fall depends on how fast this machine
		 * is now (a sanitizer build's forked caller is much slower than
		 * the measure): every fourth try waits for the spawn's return
		 * itself, so that both sides are tried whatever the timing.
		 */
		int rc = caller_killed_once(delay, i % 4 == 3, ahead);
		if (rc < 0)
			left++;
		else if (rc == 1)
			after++;
		else
			before++;
	}
	tap_ok(left == 0,
	       "the caller killed at %d random points of the spawn%s: no process and no temporary "
	       "directory left (%d left)",
	       tries, how, left);
	tap_ok(before > 0 && after > 0,
	       "the kills fell both during the spawn (%d) and after it returned (%d)%s", before,
	       after, how);
}

/* ---- the caller killed while processes it forked hold its descriptors --- */

/* A process forked by the caller that holds its descriptors and waits. */
static void stray_fork(void)
{
	if (fork() == 0) {
		prctl(PR_SET_NAME, "stray", 0, 0, 0);
		for (;;)
			pause();
	}
}

/* Another thread of the caller forking strays while it spawns. */
static void *strays_beside(void *unused)
{
	(void)unused;
	for (int i = 0; i < 16; i++)
		stray_fork();
	return NULL;
}

/* How many of our children are not strays (zombies reaped first). */
static int run_processes_left(void)
{
	char path[64], buf[4096], comm[32];
	int status, left = 0;
	while (waitpid(-1, &status, WNOHANG) > 0)
		;
	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)gettid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *p = buf, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		snprintf(path, sizeof path, "/proc/%ld/comm", pid);
		int c = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t m = c >= 0 ? read(c, comm, sizeof comm - 1) : -1;
		if (c >= 0)
			close(c);
		comm[m > 0 ? m : 0] = '\0';
		if (strcmp(comm, "stray\n") != 0)
			left++;
	}
	return left;
}

/* Wait until only strays are left, within deadline_ms (a bound on a failure only). */
static bool run_processes_end(int deadline_ms)
{
	long long end = now_us() + deadline_ms * 1000LL;
	for (;;) {
		if (run_processes_left() == 0)
			return true;
		long long left = (end - now_us()) / 1000;
		struct pollfd p = { sigchld_fd, POLLIN, 0 };
		if (left <= 0 || poll(&p, 1, (int)left) == 0)
			return run_processes_left() == 0;
		struct signalfd_siginfo si[8];
		(void)!read(sigchld_fd, si, sizeof si);
	}
}

/*
 * One try: the caller forks strays after its spawn returned (they hold
 * the caller's end of the run's socket) or, from another thread, during
 * it (the exec gate's writing end too), and is SIGKILLed then. false if
 * the run's processes outlived it while the strays lived on.
 */
static bool caller_killed_beside_strays(long long delay_us, bool after_return)
{
	int ev[2];
	if (pipe2(ev, O_CLOEXEC) != 0)
		return false;
	pid_t pid = fork();
	if (pid == 0) {
		struct procage_error err;
		pthread_t beside;
		int quiet = open("/dev/null", O_WRONLY | O_CLOEXEC);
		close(ev[0]);
		if (!after_return && pthread_create(&beside, NULL, strays_beside, NULL) != 0)
			_exit(1);
		(void)!write(ev[1], "a", 1);
		struct procage_run *r = spawn_to("exec sleep 1000", -1, quiet, &err);
		if (!r)
			_exit(1); /* the test reads end of file: a failed try */
		if (after_return) {
			stray_fork();
			stray_fork();
		}
		(void)!write(ev[1], "s", 1);
		for (;;)
			pause();
	}
	close(ev[1]);
	char c;
	bool ok = pid > 0 && read(ev[0], &c, 1) == 1;
	if (ok && after_return) {
		ok = read(ev[0], &c, 1) == 1;
	} else if (ok) {
		struct timespec delay = { delay_us / 1000000, (delay_us % 1000000) * 1000 };
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &delay, &delay) == EINTR)
			;
	}
	if (pid > 0)
		kill(pid, SIGKILL);
	close(ev[0]);
	bool ended = ok && run_processes_end(10000);
	if (!ended)
		tap_diag("after %lld us%s: the run outlived its caller beside the strays", delay_us,
			 after_return ? " (the spawn returned)" : "");
	all_children_end(0); /* the strays killed and reaped */
	tmp_base_clean();
	return ended;
}

static void test_strays_keep_no_run(int tries)
{
	long long d = spawn_duration();
	unsigned seed = (unsigned)now_us();
	int outlived = 0;
	for (int i = 0; i < tries; i++) {
		long long delay = d > 0 ? (long long)(rand_r(&seed) % (unsigned)(d * 3 / 2 + 1)) : 0;
		if (!caller_killed_beside_strays(delay, i % 2 == 0))
			outlived++;
	}
	tap_ok(outlived == 0,
	       "the caller killed %d times while processes it forked held its descriptors (half "
	       "after the spawn, half during it): every run ended with it (%d outlived it)",
	       tries, outlived);
}

/*
 * The other side: a caller none kills spawns while another of its threads
 * forks strays, which hold copies of the status pipe's writing end: the
 * spawn still returns, and the run is waited for, while they live. false
 * when it did not within the deadline (a bound on a failure only).
 */
static bool spawn_returns_beside_strays(void)
{
	int ev[2];
	if (pipe2(ev, O_CLOEXEC) != 0)
		return false;
	pid_t pid = fork();
	if (pid == 0) {
		struct procage_error err;
		pthread_t beside;
		int status = -1;
		close(ev[0]);
		if (pthread_create(&beside, NULL, strays_beside, NULL) != 0)
			_exit(1);
		struct procage_run *r = spawn_with("exit 7", -1, &err);
		if (r && procage_run_wait(r, &status, &err) == 0 && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 7)
			(void)!write(ev[1], "s", 1);
		pthread_join(beside, NULL);
		for (;;)
			pause();
	}
	close(ev[1]);
	struct pollfd p = { ev[0], POLLIN, 0 };
	char c = 0;
	bool returned = pid > 0 && poll(&p, 1, 10000) == 1 && read(ev[0], &c, 1) == 1 && c == 's';
	close(ev[0]);
	if (pid > 0) {
		/* Its strays come back to us once it is gone: then they are killed and reaped. */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	all_children_end(0);
	tmp_base_clean();
	return returned;
}

static void test_spawn_beside_strays(int tries)
{
	int hung = 0;
	for (int i = 0; i < tries; i++)
		if (!spawn_returns_beside_strays())
			hung++;
	tap_ok(hung == 0,
	       "%d spawns while another thread of the caller forked processes that hold its "
	       "descriptors: each returned and its run was waited for (%d did not)",
	       tries, hung);
}

/* The highest descriptor open here, plus one. */
static int descriptors_used(void)
{
	int top = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 3;
	for (struct dirent *e; (e = readdir(d));) {
		int fd = atoi(e->d_name);
		if (fd != dirfd(d) && fd + 1 > top)
			top = fd + 1;
	}
	closedir(d);
	return top;
}

/* ---- deep temporary directories ---------------------------------------- */

/* 2000 levels of "d" in $TMPDIR (10 mkdir -p of 200), a file at the bottom. */
#define DEEP_SCRIPT                                                                               \
	"cd \"$TMPDIR\" || exit 1; p=d; i=1; while [ $i -lt 200 ]; do p=\"$p/d\"; i=$((i+1)); "  \
	"done; j=0; while [ $j -lt 10 ]; do mkdir -p \"$p\" && cd \"$p\" || exit 1; j=$((j+1)); " \
	"done; : > bottom; echo deep"

static void test_deep_tmpdir(void)
{
	char line[64];
	struct procage_error err;
	int status = -1;

	/* The caller waits. */
	struct procage_run *r = spawn_reading(DEEP_SCRIPT, line, sizeof line);
	int rc = r ? procage_run_wait(r, &status, &err) : -1;
	tap_ok(r && strstr(line, "deep") && rc == 0 && status == 0 && entries_in(tmp_base) == 0,
	       "a temporary directory 2000 deep %s (%s)",
	       tmp_in_namespace ? "leaves nothing on the host (T1: a tmpfs of the run's own)"
				: "is removed when the run ends",
	       rc == 0 ? line : err.message);
	procage_run_free(r);
	tmp_base_clean();

	/* The caller gone once the tree is made: the reaper removes it. */
	int ev[2];
	if (pipe2(ev, O_CLOEXEC) != 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		close(ev[0]);
		spawn_with(DEEP_SCRIPT "; exec sleep 1000", ev[1], &err);
		for (;;)
			pause();
	}
	close(ev[1]);
	/* The deadline only ends a failure: a target that never says "deep". */
	struct pollfd p = { ev[0], POLLIN, 0 };
	ssize_t n = poll(&p, 1, 120000) == 1 ? read(ev[0], line, sizeof line - 1) : -1;
	close(ev[0]);
	kill(pid, SIGKILL);
	bool ended = all_children_end(20000);
	tap_ok(n > 0 && ended && entries_in(tmp_base) == 0,
	       "with the caller killed, the reaper removes it too (processes %s, %d left)",
	       ended ? "gone" : "LEFT", entries_in(tmp_base));
	tmp_base_clean();

	/* A caller with few descriptors. */
	pid = fork();
	if (pid == 0) {
		struct rlimit few = { (rlim_t)descriptors_used() + 32, (rlim_t)descriptors_used() + 32 };
		setrlimit(RLIMIT_NOFILE, &few);
		struct procage_run *run = spawn_reading(DEEP_SCRIPT, line, sizeof line);
		int wait_rc = run ? procage_run_wait(run, &status, &err) : -1;
		_exit(run && wait_rc == 0 && status == 0 ? 0 : 1);
	}
	int child_status = -1;
	waitpid(pid, &child_status, 0);
	all_children_end(10000);
	tap_ok(child_status == 0 && entries_in(tmp_base) == 0,
	       "and with 32 descriptors free in the caller (exit %d, %d left)", child_status,
	       entries_in(tmp_base));
	tmp_base_clean();
}

/* Set or clear the immutable flag of path; 0 or -errno. */
static int immutable_set(const char *path, bool on)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), flags = 0, rc = 0;
	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0)
		rc = -errno;
	flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
	if (rc == 0 && ioctl(fd, FS_IOC_SETFLAGS, &flags) != 0)
		rc = -errno;
	close(fd);
	return rc;
}

/*
 * Tier T1: while the run lives and has written in its TMPDIR, the host's
 * directory under it holds nothing: there is nothing on the host to leave.
 */
static void tmp_on_host_is_nothing(void)
{
	char line[64];
	struct procage_error err = { 0 };
	int status = -1;
	struct procage_run *r = spawn_reading(
	    "mkdir \"$TMPDIR/d\" && : > \"$TMPDIR/d/f\" && echo \"ready $TMPDIR\"; exec sleep 1000",
	    line, sizeof line);
	const char *tmp = r ? procage_run_tmpdir(r) : NULL;
	bool written = r && strstr(line, "ready");
	int on_host = entries_in(tmp_base);
	char *base = realpath(tmp_base, NULL);
	tap_ok(written && tmp && base && strcmp(tmp, base) == 0 && strstr(line, base) &&
		       on_host == 0,
	       "T1: the run's TMPDIR is %s as the run sees it, and what it wrote there is not on "
	       "the host (%d entries there; the run said: %s)",
	       tmp ? tmp : "(none)", on_host, line);
	free(base);
	procage_run_kill(r, NULL);
	int rc = r ? procage_run_wait(r, &status, &err) : -1;
	tap_ok(rc == 0 && WIFSIGNALED(status) && entries_in(tmp_base) == 0,
	       "T1: killed, the run leaves nothing on the host and its wait reports no leftover: %s",
	       rc == 0 ? "ok" : err.message);
	procage_run_free(r);
	tmp_base_clean();
}

/*
 * What cannot be removed is said: a file made immutable (from outside, as
 * root) in the run's temporary directory stays, and the wait names it.
 */
static void test_tmpdir_left_is_said(void)
{
	char line[64], file[512];
	struct procage_error err = { 0 };
	int status = -1;
	if (tmp_in_namespace) {
		tmp_on_host_is_nothing();
		return;
	}
	if (geteuid() != 0) {
		tap_skip("making a file immutable needs root (CAP_LINUX_IMMUTABLE)");
		return;
	}
	struct procage_run *r =
	    spawn_reading(": > \"$TMPDIR/stays\"; echo ready; exec sleep 1000", line, sizeof line);
	const char *tmp = r ? procage_run_tmpdir(r) : NULL;
	snprintf(file, sizeof file, "%s/stays", tmp ? tmp : "");
	int set = tmp && strstr(line, "ready") ? immutable_set(file, true) : -ENOENT;
	if (set < 0) {
		tap_skip("this file system has no immutable flag here (%s)", strerror(-set));
		procage_run_free(r);
		tmp_base_clean();
		return;
	}
	procage_run_kill(r, NULL);
	int rc = procage_run_wait(r, &status, &err);
	tap_ok(rc < 0 && WIFSIGNALED(status) && strstr(err.message, "temporary directory") &&
		       strstr(err.message, tmp),
	       "a temporary directory that cannot be removed is named, the status kept: %s",
	       err.message);
	immutable_set(file, false);
	procage_run_free(r);
	tmp_base_clean();
	tap_ok(entries_in(tmp_base) == 0, "and once the flag is gone, it is removed");
}

/* Spawns failing with EMFILE at every point of the preparation: no directory left. */
static void test_spawn_out_of_descriptors(void)
{
	int failed = 0, started = 0, left = 0, used = descriptors_used();
	for (int limit = 3; limit <= used + 32; limit += limit < 64 ? 1 : 8) {
		pid_t pid = fork();
		if (pid == 0) {
			struct rlimit lim = { (rlim_t)limit, (rlim_t)limit };
			struct procage_error err;
			setrlimit(RLIMIT_NOFILE, &lim);
			struct procage_run *r = spawn_with("exit 0", -1, &err);
			if (r)
				procage_run_wait(r, NULL, NULL);
			_exit(r ? 0 : 1);
		}
		int status = -1;
		waitpid(pid, &status, 0);
		all_children_end(10000);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			started++;
		else
			failed++;
		if (entries_in(tmp_base) != 0) {
			left++;
			tmp_base_clean();
		}
	}
	tap_ok(left == 0 && failed > 0 && started > 0,
	       "spawns with limits of 3 to %d descriptors: %d failed, %d ran, %d left a directory",
	       used + 32, failed, started, left);
}

/* ---- a reaper that cannot open anything --------------------------------- */

/* The reaper's pid: its pidfd is the run's descriptor. */
static pid_t reaper_pid(const struct procage_run *r)
{
	char path[64], text[2048];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", procage_run_fd(r));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	const char *p = strstr(text, "\nPid:");
	return p ? (pid_t)strtol(p + 5, NULL, 10) : -1;
}

static void test_reaper_without_descriptors(void)
{
	char line[128];
	struct procage_error err = { 0 };
	int status = -1;
	struct procage_run *r = spawn_reading(
	    "sleep 1000 & a=$!; sleep 1000 & echo \"$a $! $$ \"; : > \"$TMPDIR/f\"; wait", line,
	    sizeof line);
	long pids[3] = { 0, 0, 0 };
	if (!r || sscanf(line, "%ld %ld %ld", &pids[0], &pids[1], &pids[2]) != 3) {
		tap_ok(false, "a run with two background processes starts (%s)", line);
		procage_run_free(r);
		return;
	}
	pid_t reaper = reaper_pid(r);
	struct rlimit one = { 1, 1 };
	int lowered = prlimit(reaper, RLIMIT_NOFILE, &one, NULL);
	/* On T1 the pids are the run's own namespace's: watch the target only. */
	int fds[3] = { -1, -1, -1 };
	fds[0] = (int)syscall(SYS_pidfd_open, procage_run_pid(r), 0);
	procage_run_kill(r, NULL);
	int rc = procage_run_wait(r, &status, &err);
	struct pollfd p = { fds[0], POLLIN, 0 };
	bool target_gone = fds[0] >= 0 && poll(&p, 1, 0) == 1;
	tap_ok(lowered == 0 && rc == 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
		       target_gone,
	       "with its descriptor limit lowered to 1, the reaper still ends the run (%s)",
	       rc == 0 ? "status SIGKILL" : err.message);
	/* Its children (the background processes) came back to it and were killed. */
	bool ended = all_children_end(0);
	tap_ok(ended, "no process of the run is left");
	tap_ok(entries_in(tmp_base) == 0, "the temporary directory is gone");
	tmp_base_clean();
	close(fds[0]);
	procage_run_free(r);
}

/* ---- a command the reaper never reads ---------------------------------- */

static void test_unread_command(void)
{
	char line[64];
	struct procage_error err = { 0 };
	int status = -1;
	struct procage_run *r = spawn_reading("echo ready; exec sleep 1000", line, sizeof line);
	if (!tap_ok(r && strstr(line, "ready"), "a run starts"))
		return;
	int run_fd = procage_run_fd(r);
	int target = (int)syscall(SYS_pidfd_open, procage_run_pid(r), 0);
	siginfo_t info;
	/* The reaper stopped (it is our child: waitid says when), a command queued. */
	syscall(SYS_pidfd_send_signal, run_fd, SIGSTOP, NULL, 0);
	int stopped = waitid(P_PIDFD, (id_t)run_fd, &info, WSTOPPED);
	int sent = procage_run_signal(r, SIGUSR1, &err);
	/* The target ends while the reaper is stopped; it then reaps it first. */
	syscall(SYS_pidfd_send_signal, target, SIGKILL, NULL, 0);
	struct pollfd p = { target, POLLIN, 0 };
	int gone = poll(&p, 1, 10000);
	syscall(SYS_pidfd_send_signal, run_fd, SIGCONT, NULL, 0);
	int rc = procage_run_wait(r, &status, &err);
	tap_ok(stopped == 0 && sent == 0 && gone == 1 && rc == 0 && WIFSIGNALED(status) &&
		       WTERMSIG(status) == SIGKILL,
	       "a command the reaper never read does not cost the exit status (%s)",
	       rc == 0 ? "status SIGKILL" : err.message);
	close(target);
	procage_run_free(r);
	all_children_end(10000);
	tmp_base_clean();
}

/* ---- a lookup that hangs --------------------------------------------- */

/* A resolver that hangs until the test lets it go: it says when it started. */
static int hang_started[2] = { -1, -1 }, hang_release[2] = { -1, -1 };

static int resolve_hanging(void *ctx, const char *name, struct dest_addr *out, size_t max)
{
	char c;
	(void)!write(hang_started[1], "s", 1);
	(void)!read(hang_release[0], &c, 1);
	return -ENOENT;
}

static void test_resolver_stop_does_not_wait(void)
{
	static const struct proxy_resolver hanging = { resolve_hanging, NULL };
	static struct resolver_job job = { .name = "hangs.example" };
	struct resolver_pool *pool = NULL;
	struct procage_error err;
	char c;
	if (pipe2(hang_started, O_CLOEXEC) != 0 || pipe2(hang_release, O_CLOEXEC) != 0 ||
	    resolver_pool_start(&hanging, 2, &pool, &err) != 0) {
		tap_ok(false, "a resolver pool starts");
		return;
	}
	struct resolver_job *j = malloc(sizeof *j);
	*j = job;
	resolver_pool_submit(pool, j);
	bool hanging_now = read(hang_started[0], &c, 1) == 1;
	/*
	 * A stop that waited for the lookup would never return (it hangs until
	 * the test lets it go, below): the alarm ends the test. Returning at all
	 * is the proof; how long it took is only reported, since a busy machine
	 * may delay a stop that does not wait.
	 */
	alarm(20);
	long long start = now_us();
	resolver_pool_stop(pool);
	long long took = now_us() - start;
	alarm(0);
	tap_ok(hanging_now, "stopping the resolver does not wait for a lookup that hangs (%lld us)",
	       took);
	/* Let it go: its worker drops the answer and frees the pool (ASan checks). */
	close(hang_release[1]);
	close(hang_started[0]);
}

int main(int argc, char **argv)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int tries = argc > 1 ? atoi(argv[1]) : 1000;
	sigset_t chld;

	snprintf(workspace, sizeof workspace, "%s/procage-unit-XXXXXX", base);
	snprintf(tmp_base, sizeof tmp_base, "%s/procage-unit-tmp-XXXXXX", base);
	if (!mkdtemp(workspace) || !mkdtemp(tmp_base))
		return 99;
	/* Every process of a run whose caller died comes back to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	sigchld_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	struct procage_host_facts f;
	procage_host_facts(&f, NULL);
	tap_diag("tier %s", f.tier == PROCAGE_TIER_T1 ? "T1" : "T2 or lower");
	cage = cage_make();
	/* A cage with private tmp on tier T1 mounts it (docs/lifetime.md). */
	tmp_in_namespace = cage && procage_cage_tier(cage) == PROCAGE_TIER_T1;
	if (tap_ok(cage != NULL, "a cage with a private temporary directory")) {
		test_resolver_stop_does_not_wait();
		test_unread_command();
		test_reaper_without_descriptors();
		test_deep_tmpdir();
		test_tmpdir_left_is_said();
		test_spawn_out_of_descriptors();
		test_caller_killed(tries, false);
		test_strays_keep_no_run(40);
		test_spawn_beside_strays(20);
		if (tmp_in_namespace)
			test_caller_killed(tries / 4, true);
	}
	procage_cage_free(cage);
	tmp_base_clean();
	rmdir(tmp_base);
	rmdir(workspace);
	return tap_done();
}
