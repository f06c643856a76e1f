/*
 * How a run ends, whatever happens to its caller (issue: a run must never
 * outlive its caller), judged from outside (tests/lib/lifetime_fixture.h):
 *
 *  - the caller SIGKILLed at random points of procage_spawn, 1000 times,
 *    and 250 more on tier T1 with the namespaces made ahead (the maker's
 *    holder, the relay): no process and no directory is left;
 *  - a run nesting directories 2000 deep: its temporary directory is
 *    removed, with the caller waiting, gone, or short of descriptors;
 *  - spawns failing for want of descriptors leave no directory;
 *  - a reaper whose descriptor limit was lowered to 1 still ends the run;
 *  - a command the reaper never read does not cost the exit status;
 *  - stopping the proxy's resolver does not wait for a lookup that hangs.
 *
 * The same beside processes the caller forked that hold its descriptors:
 * test_lifetime_strays.c. run-tests runs both on the host's tier and on
 * T2 (without_userns).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#include "lifetime_fixture.h"
#include "procage.h"
#include "proxy/resolver.h"
#include "tap.h"
#include "run/tmpdir.h"

/*
 * Tier T1: the run's TMPDIR is a tmpfs over tmp_base in the run's mount
 * namespace, so "nothing left in tmp_base" means nothing was ever made on
 * the host; tier T2: the reaper made a directory there and removed it.
 */
static bool tmp_in_namespace;

/* Spawn script with its stdout on a pipe and read its first line into line. */
static struct procage_run *spawn_reading(const char *script, char *line, size_t size)
{
	int out[2];
	struct procage_error err;
	line[0] = '\0';
	if (pipe2(out, O_CLOEXEC) != 0)
		return NULL;
	struct procage_run *r = lifetime_spawn_with(script, out[1], &err);
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
		if (!lifetime_spawn_to("sleep 1000 & exec sleep 1000", -1, quiet, &err))
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
	bool ended = lifetime_children_end(10000);
	int dirs = lifetime_entries(lifetime_tmp_base);
	if (!ended || dirs != 0) {
		tap_diag("after %lld us (%s): processes %s, %d directories left", delay_us,
			 started ? "started" : "during the spawn", ended ? "gone" : "LEFT", dirs);
		lifetime_tmp_clean();
		return -1;
	}
	return started;
}

static void test_caller_killed(int tries, bool ahead)
{
	const char *how = ahead ? ", the namespaces made ahead" : "";
	long long d = lifetime_spawn_duration();
	unsigned seed;
	if (!tap_ok(d > 0, "a spawn here takes %lld us", d))
		return;
	if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
		seed = (unsigned)lifetime_now_us();
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
	tap_ok(r && strstr(line, "deep") && rc == 0 && status == 0 && lifetime_entries(lifetime_tmp_base) == 0,
	       "a temporary directory 2000 deep %s (%s)",
	       tmp_in_namespace ? "leaves nothing on the host (T1: a tmpfs of the run's own)"
				: "is removed when the run ends",
	       rc == 0 ? line : err.message);
	procage_run_free(r);
	lifetime_tmp_clean();

	/* The caller gone once the tree is made: the reaper removes it. */
	int ev[2];
	if (pipe2(ev, O_CLOEXEC) != 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		close(ev[0]);
		lifetime_spawn_with(DEEP_SCRIPT "; exec sleep 1000", ev[1], &err);
		for (;;)
			pause();
	}
	close(ev[1]);
	/* The deadline only ends a failure: a target that never says "deep". */
	struct pollfd p = { ev[0], POLLIN, 0 };
	ssize_t n = poll(&p, 1, 120000) == 1 ? read(ev[0], line, sizeof line - 1) : -1;
	close(ev[0]);
	kill(pid, SIGKILL);
	bool ended = lifetime_children_end(20000);
	tap_ok(n > 0 && ended && lifetime_entries(lifetime_tmp_base) == 0,
	       "with the caller killed, the reaper removes it too (processes %s, %d left)",
	       ended ? "gone" : "LEFT", lifetime_entries(lifetime_tmp_base));
	lifetime_tmp_clean();

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
	lifetime_children_end(10000);
	tap_ok(child_status == 0 && lifetime_entries(lifetime_tmp_base) == 0,
	       "and with 32 descriptors free in the caller (exit %d, %d left)", child_status,
	       lifetime_entries(lifetime_tmp_base));
	lifetime_tmp_clean();
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
	int on_host = lifetime_entries(lifetime_tmp_base);
	char *base = realpath(lifetime_tmp_base, NULL);
	tap_ok(written && tmp && base && strcmp(tmp, base) == 0 && strstr(line, base) &&
		       on_host == 0,
	       "T1: the run's TMPDIR is %s as the run sees it, and what it wrote there is not on "
	       "the host (%d entries there; the run said: %s)",
	       tmp ? tmp : "(none)", on_host, line);
	free(base);
	procage_run_kill(r, NULL);
	int rc = r ? procage_run_wait(r, &status, &err) : -1;
	tap_ok(rc == 0 && WIFSIGNALED(status) && lifetime_entries(lifetime_tmp_base) == 0,
	       "T1: killed, the run leaves nothing on the host and its wait reports no leftover: %s",
	       rc == 0 ? "ok" : err.message);
	procage_run_free(r);
	lifetime_tmp_clean();
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
		lifetime_tmp_clean();
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
	lifetime_tmp_clean();
	tap_ok(lifetime_entries(lifetime_tmp_base) == 0, "and once the flag is gone, it is removed");
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
			struct procage_run *r = lifetime_spawn_with("exit 0", -1, &err);
			if (r)
				procage_run_wait(r, NULL, NULL);
			_exit(r ? 0 : 1);
		}
		int status = -1;
		waitpid(pid, &status, 0);
		lifetime_children_end(10000);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			started++;
		else
			failed++;
		if (lifetime_entries(lifetime_tmp_base) != 0) {
			left++;
			lifetime_tmp_clean();
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
	bool ended = lifetime_children_end(0);
	tap_ok(ended, "no process of the run is left");
	tap_ok(lifetime_entries(lifetime_tmp_base) == 0, "the temporary directory is gone");
	lifetime_tmp_clean();
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
	lifetime_children_end(10000);
	lifetime_tmp_clean();
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
	long long start = lifetime_now_us();
	resolver_pool_stop(pool);
	long long took = lifetime_now_us() - start;
	alarm(0);
	tap_ok(hanging_now, "stopping the resolver does not wait for a lookup that hangs (%lld us)",
	       took);
	/* Let it go: its worker drops the answer and frees the pool (ASan checks). */
	close(hang_release[1]);
	close(hang_started[0]);
}

int main(int argc, char **argv)
{
	int tries = argc > 1 ? atoi(argv[1]) : 1000;

	bool made = lifetime_begin();
	/* A cage with private tmp on tier T1 mounts it (docs/lifetime.md). */
	tmp_in_namespace = made && procage_cage_tier(lifetime_cage) == PROCAGE_TIER_T1;
	if (tap_ok(made, "a cage with a private temporary directory")) {
		test_resolver_stop_does_not_wait();
		test_unread_command();
		test_reaper_without_descriptors();
		test_deep_tmpdir();
		test_tmpdir_left_is_said();
		test_spawn_out_of_descriptors();
		test_caller_killed(tries, false);
		if (tmp_in_namespace)
			test_caller_killed(tries / 4, true);
	}
	lifetime_end();
	return tap_done();
}
