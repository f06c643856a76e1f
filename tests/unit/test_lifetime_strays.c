/*
 * A run's lifetime beside processes its caller forked without exec (a
 * harness's fork-based worker pool, say), which hold copies of every
 * descriptor the caller had when they were made: the run socket's end,
 * the status pipe's and the exec gate's writing ends. Judged from outside
 * (tests/lib/lifetime_fixture.h):
 *
 *  - the caller SIGKILLed 40 times while such processes (forked during the
 *    spawn from another thread, or after it) live: the run's processes end
 *    all the same;
 *  - 20 spawns while another thread of the caller forks such processes:
 *    each returns, and its run is waited for.
 *
 * run-tests runs it on the host's tier and on T2 (without_userns).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lifetime_fixture.h"
#include "procage.h"
#include "tap.h"

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
	long long end = lifetime_now_us() + deadline_ms * 1000LL;
	for (;;) {
		if (run_processes_left() == 0)
			return true;
		long long left = (end - lifetime_now_us()) / 1000;
		struct pollfd p = { lifetime_sigchld_fd, POLLIN, 0 };
		if (left <= 0 || poll(&p, 1, (int)left) == 0)
			return run_processes_left() == 0;
		struct signalfd_siginfo si[8];
		(void)!read(lifetime_sigchld_fd, si, sizeof si);
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
		struct procage_run *r = lifetime_spawn_to("exec sleep 1000", -1, quiet, &err);
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
	lifetime_children_reap(); /* the strays */
	lifetime_tmp_clean();
	return ended;
}

static void test_strays_keep_no_run(int tries)
{
	long long d = lifetime_spawn_duration();
	unsigned seed = (unsigned)lifetime_now_us();
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
		struct procage_run *r = lifetime_spawn_with("exit 7", -1, &err);
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
	lifetime_children_reap();
	lifetime_tmp_clean();
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

int main(void)
{
	if (tap_ok(lifetime_begin(), "a cage with a private temporary directory")) {
		test_strays_keep_no_run(40);
		test_spawn_beside_strays(20);
	}
	lifetime_end();
	return tap_done();
}
