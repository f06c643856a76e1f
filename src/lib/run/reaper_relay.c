/*
 * Starting a run's reaper inside a user and a network namespace made ahead
 * of the spawn (host/ns_ahead.h), instead of having its clone make them.
 *
 * The caller's thread cannot enter a user namespace (it is one of several
 * threads), so a relay does: a process cloned with CLONE_VM and
 * CLONE_FILES, signals blocked, enters the two namespaces, then clones the
 * reaper into its remaining ones with CLONE_PARENT, which makes the reaper
 * the caller's child as before, and CLONE_PIDFD, which puts the reaper's
 * pidfd in the descriptor table it shares with the caller: no pid is ever
 * looked up, so none can have been reused. The reaper's own table is a
 * copy of that table, as when the caller clones it. The relay then exits;
 * the caller waits for that before it closes its copies of the plan's
 * descriptors, which the reaper's copy must still hold. It runs while the
 * caller makes only raw calls, as the reaper's first phase does, so it may
 * use the C library's wrappers.
 *
 * Where the user namespace cannot be entered the relay clones the reaper
 * with every namespace, as the caller would have; where the user namespace
 * was entered but the network namespace is refused, the spawn fails: the
 * run never shares a network namespace with anything.
 */
#include "reaper_relay.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/raw_syscall.h"

__attribute__((no_sanitize("address", "undefined"))) static int relay_main(void *arg)
{
	struct reaper_relay *relay = arg;
	unsigned long flags = relay->namespaces;
	struct child_failure f = { PROCAGE_STEP_REAPER, 0, -1 };

	if (setns(relay->userns_fd, CLONE_NEWUSER) == 0) {
		if (setns(relay->netns_fd, CLONE_NEWNET) != 0) {
			f.err = errno;
			goto failed;
		}
		relay->start.userns_entered = true;
		flags &= ~(unsigned long)(CLONE_NEWUSER | CLONE_NEWNET);
	}
	/* Its exit signal is the relay's (SIGCHLD), its parent the caller. */
	pid_t pid = clone(reaper_main, relay->reaper_stack,
			  CLONE_VM | CLONE_PARENT | CLONE_PIDFD | (int)flags, (void *)&relay->start,
			  &relay->reaper_pidfd);
	if (pid < 0) {
		f.err = errno;
		goto failed;
	}
	relay->reaper = pid;
	raw_syscall1(SYS_exit, 0);
	__builtin_unreachable();
failed:
	raw_syscall3(SYS_write, relay->start.plan->status_fd, &f, sizeof f);
	raw_syscall1(SYS_exit, 125);
	__builtin_unreachable();
}

/* Raw calls only: the relay has this thread's thread pointer. */
int reaper_relay_run(struct reaper_relay *relay, void *relay_stack)
{
	int relay_pidfd = -1;
	relay->reaper = -1;
	relay->reaper_pidfd = -1;
	int pid = clone(relay_main, relay_stack, CLONE_VM | CLONE_FILES | CLONE_PIDFD | SIGCHLD,
			relay, &relay_pidfd);
	if (pid < 0)
		return -errno;
	siginfo_t info;
	long rc;
	do
		rc = raw_syscall5(SYS_waitid, P_PIDFD, relay_pidfd, &info, WEXITED, NULL);
	while (rc == -EINTR);
	raw_syscall1(SYS_close, relay_pidfd);
	return 0;
}
