/*
 * Unit tests of which processes tier T2's supervisor counts as the run's
 * (watch/proc_member.c): the descendants of a child subreaper standing in
 * for the run's reaper, also once orphaned and re-parented to it, and
 * neither the reaper itself, nor this test, nor init, nor anything once
 * the reaper has exited. The listing and the broker at work are tested by
 * tests/escape/proc_self.c and tests/e2e/proc_tools.t.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "watch/proc_member.h"

static bool member(pid_t pid, const struct proc_run_root *root)
{
	char path[32];
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	int dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return false;
	bool m = proc_member(dir, root);
	close(dir);
	return m;
}

/* Block until the hold pipe's write end is closed everywhere. */
static void hold_on(int fd)
{
	char c;
	while (read(fd, &c, 1) > 0 || errno == EINTR)
		;
}

/*
 * The stand-in reaper: a subreaper whose child (the middle) has a child
 * (the leaf). The leaf reports both numbers on report; the middle exits
 * when its own pipe is closed, and the reaper reaps it and says so.
 */
static void reaper(int hold, int report, int middle_end)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid_t middle = fork();
	if (middle == 0) {
		pid_t leaf = fork();
		if (leaf == 0) {
			int pids[2] = {getpid(), getppid()};
			if (write(report, pids, sizeof pids) != sizeof pids)
				_exit(1);
			hold_on(hold);
			_exit(0);
		}
		hold_on(middle_end);
		_exit(0);
	}
	close(middle_end);
	int status;
	while (waitpid(middle, &status, 0) < 0 && errno == EINTR)
		;
	char reaped = 'r';
	if (write(report, &reaped, 1) != 1)
		_exit(1);
	hold_on(hold);
	_exit(0);
}

static void test_membership(void)
{
	int hold[2], report[2], middle_end[2];
	if (pipe2(hold, O_CLOEXEC) || pipe(report) || pipe2(middle_end, O_CLOEXEC)) {
		tap_ok(false, "pipes: %s", strerror(errno));
		return;
	}
	pid_t r = fork();
	if (r == 0) {
		close(hold[1]);
		close(report[0]);
		close(middle_end[1]);
		reaper(hold[0], report[1], middle_end[0]);
	}
	close(hold[0]);
	close(report[1]);
	close(middle_end[0]);
	int pids[2] = {0, 0};
	bool up = read(report[0], pids, sizeof pids) == sizeof pids;
	tap_ok(up, "the stand-in reaper's child and grandchild run");
	int pidfd = (int)syscall(SYS_pidfd_open, r, 0);
	struct proc_run_root root = {r, pidfd};
	pid_t leaf = pids[0], middle = pids[1];
	int middle_pidfd = (int)syscall(SYS_pidfd_open, middle, 0);

	tap_ok(up && member(middle, &root), "the reaper's child is the run's");
	tap_ok(up && member(leaf, &root), "its grandchild is the run's");
	tap_ok(!member(r, &root), "the reaper itself is not");
	tap_ok(!member(getpid(), &root), "this test, the reaper's parent, is not");
	tap_ok(!member(1, &root), "init is not");
	struct proc_run_root none = {r, -1};
	tap_ok(!member(leaf, &none), "without a pidfd of the reaper nothing is");

	/* The middle exits: the leaf is re-parented to the reaper, still the run's. */
	close(middle_end[1]);
	char reaped = 0;
	tap_ok(read(report[0], &reaped, 1) == 1 && reaped == 'r', "the middle process is reaped");
	tap_ok(member(leaf, &root), "an orphan re-parented to the reaper is still the run's");
	/*
	 * The walk reaches the reaper's number, but the pidfd given for it
	 * says its process has exited (the middle's, standing in for a
	 * reaper whose number was reused): not the run's.
	 */
	struct proc_run_root stale = {r, middle_pidfd};
	tap_ok(middle_pidfd >= 0 && !member(leaf, &stale),
	       "a reaper's number whose pidfd shows an exited process counts for nothing");

	/* The reaper killed: its number no longer counts, whatever its descendants say. */
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	int status;
	siginfo_t info;
	while (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	tap_ok(!member(leaf, &root), "once the reaper has exited, nothing is the run's");
	close(hold[1]);
	while (waitpid(r, &status, 0) < 0 && errno == EINTR)
		;
	/* The leaf, now init's (or a subreaper's above this test), ends on the hold pipe's end. */
	close(pidfd);
	if (middle_pidfd >= 0)
		close(middle_pidfd);
	close(report[0]);
}

int main(void)
{
	test_membership();
	return tap_done();
}
