/*
 * notify_bench [N]: the floor of observing a call through seccomp user
 * notification, the mechanism behind explained refusals (docs/reports.md).
 *
 * A child opens one existing file N times, three ways: with no filter;
 * under a filter that allows everything (the cost of any filter); and
 * under a filter that sends every openat to a supervisor in the parent,
 * which answers CONTINUE at once without reading anything (the
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP mode procage uses). The last minus
 * the second is the least an observed call can cost on this machine,
 * whatever the supervisor does with it: two switches between processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

static const char probe_file[] = "/etc/hostname";

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double open_loop(long n)
{
	double start = now_us();
	for (long i = 0; i < n; i++) {
		int fd = open(probe_file, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	return (now_us() - start) / (double)n;
}

static int filter_install(bool notify_openat)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 notify_openat ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof code / sizeof *code, code };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    notify_openat ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
}

static int fd_send(int sock, int fd)
{
	char buf[CMSG_SPACE(sizeof fd)], byte = 0;
	struct iovec io = { &byte, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof buf };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof fd);
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int fd_receive(int sock)
{
	char buf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec io = { &byte, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof buf };
	if (recvmsg(sock, &m, 0) != 1 || !CMSG_FIRSTHDR(&m))
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof fd);
	return fd;
}

/* Answer every notification CONTINUE until the child's filter is gone. */
static void supervise(int listener)
{
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	for (;;) {
		struct pollfd p = { listener, POLLIN, 0 };
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return;
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			return;
		struct seccomp_notif n;
		struct seccomp_notif_resp r;
		memset(&n, 0, sizeof n);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0)
			continue;
		memset(&r, 0, sizeof r);
		r.id = n.id;
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
	}
}

/* One way, in a child of its own: the per-open time in microseconds, or < 0. */
static double measure(int way, long n)
{
	int sv[2], result[2];
	double per_call = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe(result) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[1]);
		close(result[0]);
		if (way > 0) {
			int listener = filter_install(way == 2);
			if (listener < 0 || (way == 2 && fd_send(sv[0], listener) != 0))
				_exit(1);
			if (way == 2)
				close(listener);
		}
		double t = open_loop(n);
		_exit(write(result[1], &t, sizeof t) == sizeof t ? 0 : 1);
	}
	close(sv[0]);
	close(result[1]);
	if (pid > 0 && way == 2) {
		int listener = fd_receive(sv[1]);
		if (listener >= 0) {
			supervise(listener);
			close(listener);
		}
	}
	if (pid > 0 && read(result[0], &per_call, sizeof per_call) != sizeof per_call)
		per_call = -1;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	close(sv[1]);
	close(result[0]);
	return per_call;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	if (n <= 0) {
		fprintf(stderr, "usage: notify_bench [N > 0]\n");
		return 2;
	}
	double bare = measure(0, n), allowed = measure(1, n), observed = measure(2, n);
	if (bare < 0 || allowed < 0 || observed < 0) {
		fprintf(stderr, "notify_bench: a measurement failed (seccomp user notification "
				"unavailable?)\n");
		return 1;
	}
	printf("open+close of %s, %ld times: no filter %.2f us, a filter allowing it %.2f us, "
	       "observed (answered CONTINUE at once) %.2f us: %.2f us per observed call\n",
	       probe_file, n, bare, allowed, observed, observed - allowed);
	return 0;
}
