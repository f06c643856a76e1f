/*
 * Unit tests: the holder of namespaces being set up (host/ns_holder.c),
 * which the namespaces made ahead and a root caller's private user
 * namespace use.
 *
 * It shares the maker's descriptor table, so a pipe end the maker closes
 * is closed at once for its reader while the holder still lives. (A holder
 * with a copy of the table kept a run's exec gate open after its caller
 * was killed mid-spawn, and the run's reaper and target waited on each
 * other for good.) It takes no signal but SIGKILL, ends when asked, and
 * dies with the process that made it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/syscalls.h"
#include "host/host.h"
#include "host/ns_holder.h"
#include "tap.h"

/* Has the process behind pidfd ended, within ms (only a failure waits that long)? */
static bool ended_within(int pidfd, int ms)
{
	struct pollfd p = { pidfd, POLLIN, 0 };
	int n;
	while ((n = poll(&p, 1, ms)) < 0 && errno == EINTR)
		;
	return n == 1;
}

static void makes_a_namespace_of_its_own(void)
{
	struct ns_holder h;
	char ours[64] = "", its[64] = "", path[64];
	int rc = ns_holder_start(CLONE_NEWUSER, &h);
	if (!tap_ok(rc == 0, "a holder starts in a new user namespace (%s)", strerror(-rc)))
		return;
	int fd = ns_holder_open(&h, "user");
	(void)!readlink("/proc/self/ns/user", ours, sizeof ours - 1);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	(void)!readlink(path, its, sizeof its - 1);
	tap_ok(fd >= 0 && strncmp(its, "user:[", 6) == 0 && strcmp(its, ours) != 0,
	       "its namespace is opened, and is not ours (%s, ours %s)", its, ours);
	if (fd >= 0)
		close(fd);
	ns_holder_end(&h);
}

static void holds_no_copy_of_a_descriptor(void)
{
	int p[2];
	struct ns_holder h;
	if (pipe2(p, O_CLOEXEC) != 0 || ns_holder_start(CLONE_NEWUSER, &h) != 0) {
		tap_ok(false, "a pipe and a holder");
		return;
	}
	int pidfd = sys_pidfd_open(h.pid, 0);
	close(p[1]);
	struct pollfd r = { p[0], POLLIN, 0 };
	tap_ok(poll(&r, 1, 0) == 1 && (r.revents & POLLHUP),
	       "a pipe end its maker closes is closed for the reader while the holder lives");
	tap_ok(pidfd >= 0 && !ended_within(pidfd, 0), "(the holder was still there)");
	kill(h.pid, SIGTERM);
	kill(h.pid, SIGINT);
	tap_ok(pidfd >= 0 && !ended_within(pidfd, 0), "it takes no signal but SIGKILL");
	ns_holder_end(&h);
	tap_ok(pidfd >= 0 && ended_within(pidfd, 0), "it is gone once ended");
	tap_ok(h.pidfd < 0 && h.stack == NULL, "and nothing of it is held");
	if (pidfd >= 0)
		close(pidfd);
	close(p[0]);
}

/* The process that made it killed: the holder goes too, whatever it held. */
static void dies_with_its_maker(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		tap_ok(false, "a pipe, and the test a subreaper");
		return;
	}
	pid_t maker = fork();
	if (maker == 0) {
		struct ns_holder h;
		pid_t pid = ns_holder_start(CLONE_NEWUSER, &h) == 0 ? h.pid : -1;
		(void)!write(p[1], &pid, sizeof pid);
		for (;;)
			pause();
	}
	close(p[1]);
	pid_t holder = -1;
	(void)!read(p[0], &holder, sizeof holder);
	close(p[0]);
	int pidfd = holder > 0 ? sys_pidfd_open(holder, 0) : -1;
	tap_ok(pidfd >= 0, "a holder made in a child (%d)", (int)holder);
	kill(maker, SIGKILL);
	waitpid(maker, NULL, 0);
	/* The deadline only bounds a failure. */
	bool ended = pidfd >= 0 && ended_within(pidfd, 10000);
	tap_ok(ended, "the child killed, its holder ends with it");
	if (pidfd >= 0) {
		siginfo_t info;
		/* Reparented to us: reaped here, or killed and reaped should it live on. */
		if (!ended)
			sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
		waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | __WALL);
		close(pidfd);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

int main(void)
{
	if (host_facts_get()->tier != PROCAGE_TIER_T1) {
		tap_skip("user namespaces are refused here (tier T2): no holder is made");
		return tap_done();
	}
	makes_a_namespace_of_its_own();
	holds_no_copy_of_a_descriptor();
	dies_with_its_maker();
	return tap_done();
}
