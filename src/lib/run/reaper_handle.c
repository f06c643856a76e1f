/*
 * The caller's side of a run's reaper: mapping its stacks, starting it,
 * learning whether the target started, reading its final report, and
 * sending it commands. The reaper itself is in reaper.c.
 */
#include "reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/raw_syscall.h"
#include "base/syscalls.h"
#include "base/small_file.h"
#include "host/ns_ahead.h"
#include "reaper_relay.h"

/* Each of the reaper and the target runs on a stack of this size. */
#define REAPER_STACK_SIZE (256 * 1024)
/* The relay (reaper_relay.h) makes two calls and a clone. */
#define RELAY_STACK_SIZE (64 * 1024)


static void stacks_release(struct reaper_handle *h)
{
	if (h->stacks)
		munmap(h->stacks, h->stacks_size);
	h->stacks = NULL;
}

void reaper_handle_release(struct reaper_handle *h)
{
	if (h->socket >= 0)
		close(h->socket); /* if the run still lives, the reaper ends it */
	h->socket = -1;
	if (h->proxy_listener >= 0)
		close(h->proxy_listener);
	if (h->seccomp_listener >= 0)
		close(h->seccomp_listener);
	if (h->publish_factory >= 0)
		close(h->publish_factory);
	if (h->changes_layers >= 0)
		close(h->changes_layers);
	if (h->unix_diag >= 0)
		close(h->unix_diag);
	h->proxy_listener = h->seccomp_listener = h->publish_factory = h->changes_layers = -1;
	h->unix_diag = -1;
	while (h->n_capture_fds)
		close(h->capture_fds[--h->n_capture_fds]);
	if (h->pidfd >= 0) {
		siginfo_t info;
		while (waitid(P_PIDFD, (id_t)h->pidfd, &info, WEXITED) < 0 && errno == EINTR)
			;
		close(h->pidfd);
	}
	h->pidfd = -1;
	stacks_release(h);
}

/* The pid a pidfd names, in our PID namespace (its fdinfo's "Pid:" line). */
static pid_t pidfd_pid(int pidfd)
{
	char path[64], text[1024];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
	if (small_file_read(path, text, sizeof text) <= 0)
		return -1;
	const char *p = strstr(text, "\nPid:");
	return p ? (pid_t)strtol(p + 5, NULL, 10) : -1;
}

/* The reaper's first message: the target's pid, and its pidfd. */
static int started_read(struct reaper_handle *h, bool pid_namespace, struct procage_error *err)
{
	struct reaper_message m;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { &m, sizeof m };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			     .msg_controllen = sizeof control.buf };
	ssize_t n;
	int fd;
	/* Listeners handed over before the start come first, in order. */
	for (;;) {
		mh.msg_controllen = sizeof control.buf;
		do
			n = recvmsg(h->socket, &mh, MSG_CMSG_CLOEXEC);
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof m)
			return error_set(err, -EIO,
					 "the run's reaper did not report the start (%zd bytes)", n);
		fd = -1;
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof fd);
		if (m.kind == REAPER_CAPTURE_SOCKET && fd >= 0 &&
		    h->n_capture_fds < sizeof h->capture_fds / sizeof *h->capture_fds) {
			h->capture_fds[h->n_capture_fds++] = fd;
			continue;
		}
		int *slot = m.kind == REAPER_PROXY_LISTENER	? &h->proxy_listener
			    : m.kind == REAPER_SECCOMP_LISTENER ? &h->seccomp_listener
			    : m.kind == REAPER_PUBLISH_FACTORY	? &h->publish_factory
			    : m.kind == REAPER_CHANGES_LAYERS	? &h->changes_layers
			    : m.kind == REAPER_UNIX_DIAG	? &h->unix_diag
								: NULL;
		if (!slot)
			break;
		if (*slot >= 0 || fd < 0) {
			if (fd >= 0)
				close(fd);
			return error_set(err, -EIO, "the run handed over an unexpected listener");
		}
		*slot = fd;
	}
	if (m.kind != REAPER_STARTED) {
		if (fd >= 0)
			close(fd);
		return error_set(err, -EIO, "the run's reaper did not report the start");
	}
	h->target = pid_namespace ? (fd >= 0 ? pidfd_pid(fd) : -1) : m.value;
	if (fd >= 0)
		close(fd);
	return 0;
}

/* The run's socket: the caller's end in h and the plan, the reaper's in the plan. */
static int run_socket_make(struct plan *plan, struct reaper_handle *h, struct procage_error *err)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		plan->caller_socket = plan->reaper_socket = -1;
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "creating the run's socket");
	}
	h->socket = sv[0];
	plan->reaper = true;
	plan->caller_socket = sv[0];
	plan->reaper_socket = sv[1];
	return 0;
}

/*
 * [guard][reaper's stack][guard][target's stack], in h, and with a relay
 * [guard][relay's stack] after them; the target's top in the plan.
 */
static int stacks_map(struct plan *plan, struct reaper_handle *h, size_t page, bool relay,
		      struct procage_error *err)
{
	const size_t two = 2 * (page + REAPER_STACK_SIZE);
	h->stacks_size = two + (relay ? page + RELAY_STACK_SIZE : 0);
	h->stacks = mmap(NULL, h->stacks_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (h->stacks == MAP_FAILED) {
		h->stacks = NULL;
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "mapping the run's stacks");
	}
	char *base = h->stacks;
	if (mprotect(base, page, PROT_NONE) != 0 ||
	    mprotect(base + page + REAPER_STACK_SIZE, page, PROT_NONE) != 0 ||
	    (relay && mprotect(base + two, page, PROT_NONE) != 0))
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "guarding the run's stacks");
	plan->target_stack = base + two;
	return 0;
}

/*
 * What the status pipe says: a step's failure record (its size), the
 * started byte (1), or 0 when the reaper ended with neither (its start
 * then fails to be read). Not the end of file: a process another of our
 * threads forked since holds a copy of the writing end as long as it
 * lives; the reaper's pidfd says when it ended instead. Raw calls only:
 * the reaper runs on our memory.
 */
static long status_wait(int status_read, int reaper_pidfd, struct child_failure *failure)
{
	struct pollfd p[2];
	for (;;) {
		p[0].fd = status_read;
		p[0].events = POLLIN;
		p[0].revents = 0;
		p[1].fd = reaper_pidfd;
		p[1].events = POLLIN;
		p[1].revents = 0;
		long rc = raw_syscall5(SYS_ppoll, p, 2, NULL, NULL, sizeof(sigset_t));
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			return rc;
		if (!p[0].revents) {
			/* The reaper ended: what it wrote, if anything, came first. */
			struct timespec now = { 0, 0 };
			p[1].fd = -1;
			if (raw_syscall5(SYS_ppoll, p, 1, &now, NULL, sizeof(sigset_t)) != 1)
				return 0;
		}
		long n = raw_syscall3(SYS_read, status_read, failure, sizeof *failure);
		if (n != -EINTR)
			return n;
	}
}

int reaper_launch(const struct reaper_start *start, int status_read, struct reaper_handle *h,
		  struct child_failure *failure, struct procage_error *err)
{
	struct plan *plan = start->plan;
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int rc = 0;
	sigset_t all, saved;

	*h = (struct reaper_handle){ .pid = -1, .pidfd = -1, .socket = -1, .target = -1,
				     .proxy_listener = -1, .seccomp_listener = -1,
				     .publish_factory = -1, .changes_layers = -1, .unix_diag = -1 };
	/* A user and network namespace made ahead for this spawn: a relay enters them. */
	const unsigned long ahead = CLONE_NEWUSER | CLONE_NEWNET;
	struct ns_ahead_pair pair = { -1, -1 };
	bool relay = (plan->clone_namespaces & ahead) == ahead &&
		     ns_ahead_take(&plan->id_maps, &pair);
	struct reaper_relay relayed = { .start = *start, .namespaces = plan->clone_namespaces,
					.userns_fd = pair.userns_fd, .netns_fd = pair.netns_fd };
	if ((rc = run_socket_make(plan, h, err)) < 0 ||
	    (rc = stacks_map(plan, h, page, relay, err)) < 0)
		goto out;
	char *base = h->stacks;
	relayed.reaper_stack = base + page + REAPER_STACK_SIZE;

	/*
	 * Our signal handlers must not run in the reaper or the target, on our
	 * memory: every signal is blocked across the clone, and stays blocked
	 * until the target has started.
	 */
	int saved_errno = errno;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	int e = 0;
	if (relay) {
		e = -reaper_relay_run(&relayed, base + h->stacks_size);
		h->pid = relayed.reaper;
		h->pidfd = relayed.reaper_pidfd;
	} else {
		h->pid = clone(reaper_main, base + page + REAPER_STACK_SIZE,
			       CLONE_VM | CLONE_PIDFD | SIGCHLD | (int)plan->clone_namespaces,
			       (void *)start, &h->pidfd);
		e = h->pid < 0 ? errno : 0;
	}
	if (e) {
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
		h->pidfd = -1;
		rc = error_set_sys(err, e, PROCAGE_STEP_PREPARE, "starting the run's reaper");
		goto out;
	}
	/*
	 * The reaper and the target run on our memory with this thread's
	 * thread pointer until the status pipe says the target started: raw
	 * calls only, no errno, no library.
	 */
	raw_syscall1(SYS_close, plan->reaper_socket);
	raw_syscall1(SYS_close, plan->status_fd);
	if (plan->cgroup_procs_fd >= 0)
		raw_syscall1(SYS_close, plan->cgroup_procs_fd);
	long n = status_wait(status_read, h->pidfd, failure);
	errno = saved_errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	plan->reaper_socket = plan->status_fd = plan->cgroup_procs_fd = -1;
	if (relay && h->pid < 0 && h->pidfd >= 0)
		h->pid = pidfd_pid(h->pidfd); /* the relay was killed before it could say */

	if (n == 0 || n == 1) {
		rc = started_read(h, plan->clone_namespaces & CLONE_NEWPID, err);
	} else if (n == (long)sizeof *failure) {
		rc = 1;
	} else {
		rc = error_set(err, n < 0 ? (int)n : -EIO,
			       "the run's status record was cut short (%ld)", n);
	}
out:
	if (plan->reaper_socket >= 0)
		close(plan->reaper_socket); /* the reaper never started */
	plan->reaper_socket = -1;
	if (relay) {
		close(pair.userns_fd);
		close(pair.netns_fd);
	}
	if (rc != 0)
		reaper_handle_release(h);
	plan->caller_socket = -1;
	return rc;
}

int reaper_status_read(struct reaper_handle *h, bool nonblocking, int *status)
{
	for (;;) {
		struct reaper_message m;
		ssize_t n = recv(h->socket, &m, sizeof m, nonblocking ? MSG_DONTWAIT : 0);
		/*
		 * ECONNRESET: the reaper ended with commands of ours unread. It
		 * is reported once, before the messages still queued.
		 */
		if (n < 0 && (errno == EINTR || errno == ECONNRESET))
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -EAGAIN;
		if (n <= 0)
			return -ECHILD;
		if (n != (ssize_t)sizeof m)
			continue;
		if (m.kind == REAPER_LOST)
			h->lost = true;
		else if (m.kind == REAPER_TMPDIR_LEFT)
			h->tmpdir_left = m.value;
		else if (m.kind == REAPER_STATUS) {
			*status = m.value;
			return 0;
		}
	}
}

int reaper_command(struct reaper_handle *h, enum reaper_message_kind kind, int value)
{
	struct reaper_message m = { kind, value };
	if (h->socket < 0)
		return -ESRCH;
	ssize_t n;
	do
		n = send(h->socket, &m, sizeof m, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof m)
		return 0;
	return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? -EAGAIN : -ESRCH;
}
