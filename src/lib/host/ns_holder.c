/* The holder of namespaces being set up (ns_holder.h). */
#include "ns_holder.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/raw_syscall.h"
#include "base/syscalls.h"

#define HOLDER_STACK_SIZE (64 * 1024)

/*
 * It shares our memory and our thread pointer: raw calls only, and no
 * sanitizer, whose state is ours. Should its maker's thread be gone before
 * it could ask for the death signal, its parent is another: it leaves.
 */
__attribute__((no_sanitize("address", "undefined"))) static int holder_main(void *arg)
{
	const pid_t *maker = arg;
	raw_syscall2(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
	if (raw_syscall0(SYS_getppid) != *maker)
		raw_syscall1(SYS_exit, 0);
	/* Every signal is blocked: only SIGKILL ends the wait. */
	while (raw_syscall5(SYS_ppoll, NULL, 0, NULL, NULL, sizeof(sigset_t)) != -EFAULT)
		;
	raw_syscall1(SYS_exit, 0);
	return 0;
}

int ns_holder_start(unsigned long namespaces, struct ns_holder *h)
{
	sigset_t all, saved;

	*h = (struct ns_holder){ .maker = getpid(), .pid = -1, .pidfd = -1, .stack = NULL };
	void *stack = mmap(NULL, HOLDER_STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	/*
	 * No handler of ours may run on its stack: it is made with every
	 * signal blocked. No exit signal either: only a wait that names it
	 * (__WALL) sees it end, never the caller's wait(-1) or SIGCHLD.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pid_t pid = clone(holder_main, (char *)stack + HOLDER_STACK_SIZE,
			  CLONE_VM | CLONE_FILES | CLONE_PIDFD | (int)namespaces, &h->maker, &h->pidfd);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (pid < 0) {
		munmap(stack, HOLDER_STACK_SIZE);
		h->pidfd = -1;
		return -e;
	}
	h->pid = pid;
	h->stack = stack;
	return 0;
}

int ns_holder_open(const struct ns_holder *h, const char *name)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)h->pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

void ns_holder_end(struct ns_holder *h)
{
	if (h->pidfd >= 0) {
		siginfo_t info;
		sys_pidfd_send_signal(h->pidfd, SIGKILL, NULL, 0);
		while (waitid(P_PIDFD, (id_t)h->pidfd, &info, WEXITED | __WALL) < 0 &&
		       errno == EINTR)
			;
		close(h->pidfd);
	}
	/* The holder is gone: no one runs on its stack. */
	if (h->stack)
		munmap(h->stack, HOLDER_STACK_SIZE);
	*h = (struct ns_holder){ .maker = h->maker, .pid = -1, .pidfd = -1, .stack = NULL };
}
