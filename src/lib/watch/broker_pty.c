/*
 * Tier T2: the terminal end of a pseudo-terminal the run made.
 *
 * A run on tier T2 makes pseudo-terminals through /dev/ptmx (granted,
 * cage_dev.c), each a new pair in the host's /dev/pts, where every
 * terminal of the user is too: no rule can let it open its own pair's
 * terminal end (/dev/pts/N) and no other. So an open of /dev/pts/N comes
 * here (every open of such a run does), and the broker opens that end
 * only for a caller that holds the pair's master: it looks through the
 * caller's descriptors for one that is a master (/dev/ptmx) numbered N,
 * takes a copy of it (pidfd_getfd) and opens its peer (TIOCGPTPEER, the
 * kernel's open of the pair's own terminal end), then hands that over.
 * Any other /dev/pts entry is left to Landlock, which refuses it.
 */
#include "broker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "broker_internal.h"
#include "broker_io.h"
#include "base/syscalls.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif

/* The flags an open of a terminal end may carry (O_LARGEFILE by the kernel's value). */
#define PTY_OPEN_FLAGS (O_ACCMODE | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | 0100000)

void broker_pty_on(struct broker *b)
{
	b->pty = true;
}

/* N of "/dev/pts/N", or -1. */
static long pts_number(const char *path)
{
	const char *s = path + 9;
	if (strncmp(path, "/dev/pts/", 9) != 0 || !*s || strlen(s) > 9 ||
	    strspn(s, "0123456789") != strlen(s))
		return -1;
	return strtol(s, NULL, 10);
}

/*
 * The caller's descriptor fd, as the broker's own (-1: not taken). Never
 * reopened by its /proc link, which for /dev/ptmx would make a new pair:
 * a thread that is not its group's leader, before Linux 6.9 (no
 * PIDFD_THREAD), gets nothing.
 */
static int caller_fd(pid_t tid, int fd)
{
	int pidfd = sys_pidfd_open(tid, PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL)
		pidfd = sys_pidfd_open(tid, 0);
	if (pidfd < 0)
		return -1;
	int copy = (int)syscall(__NR_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return copy;
}

/*
 * The master numbered n among the caller's descriptors, as the broker's
 * own descriptor, or -1. A master is a descriptor of /dev/ptmx (or of
 * /dev/pts/ptmx) whose TIOCGPTN is n.
 */
static int held_master(pid_t tid, long n)
{
	char dir_path[64], link[384], target[32];
	snprintf(dir_path, sizeof dir_path, "/proc/%d/fd", (int)tid);
	DIR *dir = opendir(dir_path);
	if (!dir)
		return -1;
	int found = -1;
	for (struct dirent *e; found < 0 && (e = readdir(dir));) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(link, sizeof link, "%s/%s", dir_path, e->d_name);
		ssize_t len = readlink(link, target, sizeof target - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "/dev/ptmx") != 0 && strcmp(target, "/dev/pts/ptmx") != 0)
			continue;
		int fd = caller_fd(tid, atoi(e->d_name));
		unsigned int number = 0;
		if (fd >= 0 && ioctl(fd, TIOCGPTN, &number) == 0 && (long)number == n)
			found = fd;
		else if (fd >= 0)
			close(fd);
	}
	closedir(dir);
	return found;
}

bool broker_pty_answer(struct broker *b, int listener, const struct seccomp_notif *n,
		       const char *call)
{
	if (!b || !b->pty || !call)
		return false;
	const __u64 *a = n->data.args;
	bool plain = strcmp(call, "open") == 0;
	if (!plain && strcmp(call, "openat") != 0)
		return false;
	int flags = (int)(uint32_t)a[plain ? 1 : 2];
	if ((flags & ~PTY_OPEN_FLAGS) != 0 || (flags & O_ACCMODE) == O_ACCMODE)
		return false;
	pid_t tid = (pid_t)n->pid;
	if (broker_read_string(tid, a[plain ? 0 : 1], b->path, sizeof b->path) < 0)
		return false;
	long number = pts_number(b->path);
	if (number < 0)
		return false;
	int master = held_master(tid, number);
	if (master < 0)
		return false; /* not a pair the caller holds: Landlock refuses it */
	/* The broker never takes the terminal as its own controlling one (O_NOCTTY). */
	int fd = ioctl(master, TIOCGPTPEER,
		       (flags & (O_ACCMODE | O_NONBLOCK)) | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	close(master);
	broker_answer_opened(listener, n->id, fd, (flags & O_CLOEXEC) != 0);
	return true;
}
