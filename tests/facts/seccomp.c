/*
 * The seccomp listener (KF-L15): it cannot be reopened through /proc, the
 * kernel itself hands it to whoever may ptrace its holder, and procage's
 * own filter refuses pidfd_getfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "facts.h"
#include "procage.h"
#include "kernel/seccomp.h"
#include "base/syscalls.h"

#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* ---- KF-L15: the seccomp listener ---------------------------------------- */

/* A filter that hands acct(2), which nothing here calls, to a listener. */
static int listener_install(void)
{
#ifdef NATIVE_AUDIT_ARCH
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_acct, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof f / sizeof *f, f};
	if (!no_new_privs())
		return -1;
	int fd = (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
			      SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	int e = errno;
	if (fd < 0)
		note("a seccomp filter with a listener: %s", en(e));
	errno = e;
	return fd;
#else
	note("this test knows no audit architecture for this machine");
	errno = ENOSYS;
	return -1;
#endif
}

/* A live listener answers ENOENT for an id it never issued. */
static int listener_answer(int fd)
{
	uint64_t id = 0x6b66;
	return ERR(ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id));
}

enum outcome kf_l15_reopen(void)
{
	char path[64], target[128] = "";
	int fd = listener_install();
	if (fd < 0)
		return errno == EINVAL || errno == ENOSYS ? CANNOT : BROKEN;
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	int live = listener_answer(fd);
	int rw = ERR(open(path, O_RDWR | O_CLOEXEC));
	int ro = ERR(open(path, O_RDONLY | O_CLOEXEC));
	note("a listener (%s, fd %d; asked about an unknown id it answers %s): open(%s, "
	     "O_RDWR): %s; open(O_RDONLY): %s",
	     target, fd, en(live), path, en(rw), en(ro));
	if (live != ENOENT)
		return BROKEN;
	return rw != 0 && ro != 0 ? HOLDS : CHANGED;
}

/*
 * The kernel side of pidfd_getfd: a process allowed to ptrace the holder
 * (here its parent) gets a working copy of the listener. The cage cannot
 * count on the kernel for this, so its filter refuses pidfd_getfd.
 */
enum outcome kf_l15_getfd(void)
{
	int ready[2], hold[2];
	if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(hold, O_CLOEXEC) != 0) {
		note("pipe: %s", en(errno));
		return BROKEN;
	}
	pid_t holder = fork();
	if (holder == 0) {
		char c;
		alarm(20);
		close(ready[0]);
		close(hold[1]);
		int fd = listener_install();
		int msg[2] = {fd, fd < 0 ? errno : 0};
		(void)!write(ready[1], msg, sizeof msg);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	int msg[2] = {-1, EIO};
	enum outcome o = BROKEN;
	if (holder < 0 || read(ready[0], msg, sizeof msg) != sizeof msg || msg[0] < 0) {
		note("the holder's listener: %s", en(holder < 0 ? errno : msg[1]));
		o = msg[1] == EINVAL || msg[1] == ENOSYS ? CANNOT : BROKEN;
	} else {
		int pidfd = sys_pidfd_open(holder, 0);
		int got = pidfd < 0 ? -1 : (int)syscall(__NR_pidfd_getfd, pidfd, msg[0], 0);
		int e = got < 0 ? errno : 0;
		int live = got >= 0 ? listener_answer(got) : 0;
		note("its parent (same uid, may ptrace it) took the holder's listener fd %d with "
		     "pidfd_getfd: %s%s",
		     msg[0], pidfd < 0 ? "pidfd_open failed: " : "", en(e));
		if (got >= 0)
			note("; the copy answers as a listener (%s)", en(live));
		o = got >= 0 && live == ENOENT ? HOLDS : pidfd < 0 ? BROKEN : CHANGED;
		if (got >= 0)
			close(got);
		if (pidfd >= 0)
			close(pidfd);
	}
	close(hold[1]);
	close(ready[0]);
	if (holder > 0)
		waitpid(holder, NULL, 0);
	return o;
}

/* procage's own filter, as a cage installs it, refuses pidfd_getfd. */
enum outcome kf_l15_our_filter(void)
{
	struct seccomp_options opts;
	struct sock_fprog prog;
	struct procage_error err;
	int hold[2];
	memset(&opts, 0, sizeof opts);
	if (seccomp_program_build(&opts, &prog, &err) < 0) {
		note("procage's filter: %s", err.message);
		return BROKEN;
	}
	if (pipe2(hold, O_CLOEXEC) != 0)
		return BROKEN;
	pid_t other = fork();
	if (other == 0) {
		char c;
		alarm(20);
		close(hold[1]);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	int pidfd = other > 0 ? sys_pidfd_open(other, 0) : -1;
	int before = (int)syscall(__NR_pidfd_getfd, pidfd, hold[0], 0);
	int eb = before < 0 ? errno : 0;
	if (before >= 0)
		close(before);
	int inst = no_new_privs() ? seccomp_program_install(&prog) : -EPERM;
	int after = inst == 0 ? (int)syscall(__NR_pidfd_getfd, pidfd, hold[0], 0) : -1;
	int ea = after < 0 ? errno : 0;
	if (after >= 0)
		close(after);
	close(hold[1]);
	if (other > 0)
		waitpid(other, NULL, 0);
	seccomp_program_free(&prog);
	note("pidfd_getfd of a child's descriptor: %s before procage's filter (installed: %s), "
	     "%s under it",
	     en(eb), en(-inst), inst == 0 ? en(ea) : "not tried");
	if (pidfd < 0 || eb != 0 || inst != 0)
		return BROKEN;
	return ea == EPERM ? HOLDS : CHANGED;
}
