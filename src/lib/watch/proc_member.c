/*
 * Which processes are the run's (proc_member.h), decided by walking
 * parents up to the reaper, without ever trusting a number longer than
 * the kernel guarantees it.
 *
 * What the walk relies on:
 *
 *  - A /proc/PID directory, once open, stays bound to the process it was
 *    opened for: reading PID's status through it reads that process or
 *    fails (ESRCH) once it is reaped, never another process that got the
 *    number since.
 *  - A process's parent number cannot be given to another process while
 *    the child still names it as its parent. When a parent exits, the
 *    kernel re-parents its children (to the nearest subreaper, here the
 *    run's reaper, or to init) while it exits, before it can be reaped
 *    and its number freed. So if P's status names Q before and after
 *    /proc/Q is opened, Q had not gone through its exit's re-parenting
 *    when the second read was made, so its number was not yet free, and
 *    the /proc/Q just opened is P's parent.
 *  - The reaper's number is checked by its pidfd: a walk that reached the
 *    number, and after it the pidfd still shows the reaper alive, reached
 *    the reaper (a number is not reused while its process lives).
 *  - Each link is proved at its own moment, not all at once, and that is
 *    enough: while the reaper lives, a process is below it for its whole
 *    life or never. A child is made below its parent (or, with
 *    CLONE_PARENT, beside it), and an orphan goes to its nearest
 *    subreaper above it, which below the reaper is the reaper or one of
 *    the run's; nothing moves a process into another subtree. So "P's
 *    parent was Q" at one moment and "Q is below the reaper" at a later
 *    one make P the run's.
 *
 * Anything unexpected ends the walk with "not the run's": the callers
 * then refuse, as they do for every process outside the run.
 */
#include "proc_member.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The parent named in the status of the process open at dir, or -1. */
static pid_t parent_of(int dir)
{
	/* PPid is the seventh line: the first 512 bytes hold it on every kernel. */
	char text[512];
	int fd = openat(dir, "status", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	const char *line = strstr(text, "\nPPid:");
	if (!line)
		return -1;
	char *end = NULL;
	long ppid = strtol(line + 6, &end, 10);
	if (end == line + 6 || (*end != '\n' && *end != '\0') || ppid < 0 || ppid > 0x3fffffff)
		return -1;
	return (pid_t)ppid;
}

/* The reaper has not exited (a pidfd turns readable when its process ends). */
static bool reaper_alive(const struct proc_run_root *root)
{
	if (root->pidfd < 0)
		return false;
	struct pollfd p = {root->pidfd, POLLIN, 0};
	int n;
	while ((n = poll(&p, 1, 0)) < 0 && errno == EINTR)
		;
	return n == 0;
}

bool proc_member(int dir, const struct proc_run_root *root)
{
	if (dir < 0 || root->reaper <= 1)
		return false;
	int at = dup(dir);
	if (at < 0)
		return false;
	bool member = false;
	for (int depth = 0; depth < PROC_MEMBER_DEPTH; depth++) {
		pid_t q = parent_of(at);
		/* 0: a process with no parent here (init, or one of another namespace). */
		if (q <= 1)
			break;
		if (q == root->reaper) {
			/* Checked after the read: alive now, so it was the reaper then. */
			member = reaper_alive(root);
			break;
		}
		char path[32];
		snprintf(path, sizeof path, "/proc/%d", (int)q);
		int up = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		/*
		 * The same parent once /proc/Q is open: Q was not freed between
		 * the two reads, so the directory opened is the parent's.
		 * Another answer (the child re-parented meanwhile, or reaped):
		 * no verdict, so not the run's.
		 */
		if (up < 0 || parent_of(at) != q) {
			if (up >= 0)
				close(up);
			break;
		}
		close(at);
		at = up;
	}
	close(at);
	return member;
}
