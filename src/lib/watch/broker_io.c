#include "broker_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/syscalls.h"
#include "base/small_file.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif

int broker_read_memory(pid_t tid, uint64_t address, void *out, size_t size)
{
	struct iovec local = {out, size}, remote = {(void *)(uintptr_t)address, size};
	ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	return n == (ssize_t)size ? 0 : -EFAULT;
}

/*
 * Page by page: a string may end just before an unmapped page, which a
 * single read of size bytes would fail on.
 */
int broker_read_string(pid_t tid, uint64_t address, char *out, size_t size)
{
	const uint64_t page = 4096;
	size_t done = 0;
	if (!address)
		return -EFAULT;
	while (done < size) {
		size_t chunk = (size_t)(page - ((address + done) % page));
		if (chunk > size - done)
			chunk = size - done;
		struct iovec local = {out + done, chunk},
			     remote = {(void *)(uintptr_t)(address + done), chunk};
		ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return -EFAULT;
		if (memchr(out + done, '\0', (size_t)n))
			return 0;
		done += (size_t)n;
	}
	return -ENAMETOOLONG;
}

int broker_base_fd(pid_t tid, int dirfd)
{
	char path[64];
	if (dirfd == AT_FDCWD) {
		/* A magic link, followed on purpose: it is the thread's own cwd. */
		snprintf(path, sizeof path, "/proc/%d/cwd", (int)tid);
		int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (dirfd < 0)
		return -EBADF;
	int pidfd = sys_pidfd_open(tid, PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL) {
		/*
		 * Before Linux 6.9 a pidfd names a thread group leader only:
		 * the thread's descriptor through /proc instead (the same
		 * open file, reopened as a path).
		 */
		snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)tid, dirfd);
		int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (pidfd < 0)
		return -errno;
	int fd = (int)syscall(__NR_pidfd_getfd, pidfd, dirfd, 0);
	int e = errno;
	close(pidfd);
	return fd < 0 ? -e : fd;
}

int broker_dir_fd(pid_t tid, int dirfd)
{
	char path[64];
	if (dirfd == AT_FDCWD)
		return broker_base_fd(tid, dirfd);
	if (dirfd < 0)
		return -EBADF;
	/* The magic link, followed on purpose: it is the thread's own descriptor's file. */
	snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)tid, dirfd);
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd >= 0 ? fd : errno == ENOENT ? -EBADF : -errno;
}

mode_t broker_umask(pid_t tid)
{
	char path[64], text[2048];
	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if (small_file_read(path, text, sizeof text) <= 0)
		return 0777;
	const char *line = strstr(text, "\nUmask:\t");
	if (!line)
		return 0777;
	return (mode_t)strtoul(line + 8, NULL, 8) & 0777;
}

int broker_id_valid(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* A call whose thread is gone fails to send (ENOENT): nothing waits for it. */
static void send_response(int listener, struct seccomp_notif_resp *r)
{
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, r);
}

void broker_answer_continue(int listener, uint64_t id)
{
	struct seccomp_notif_resp r = {.id = id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
	send_response(listener, &r);
}

void broker_answer_result(int listener, uint64_t id, int err)
{
	struct seccomp_notif_resp r = {.id = id, .error = err ? -err : 0};
	send_response(listener, &r);
}

void broker_answer_value(int listener, uint64_t id, long value)
{
	struct seccomp_notif_resp r = {.id = id, .val = value};
	send_response(listener, &r);
}

void broker_answer_fd(int listener, uint64_t id, int fd, bool cloexec)
{
	struct seccomp_notif_addfd addfd = {
	    .id = id,
	    .flags = SECCOMP_ADDFD_FLAG_SEND,
	    .srcfd = (uint32_t)fd,
	    .newfd_flags = cloexec ? O_CLOEXEC : 0,
	};
	/* On success the kernel has answered the call with the new number. */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd) < 0 && errno != ENOENT)
		broker_answer_result(listener, id, errno == EMFILE ? EMFILE : EACCES);
	close(fd);
}

void broker_answer_opened(int listener, uint64_t id, int fd, bool cloexec)
{
	if (!broker_id_valid(listener, id)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (fd < 0)
		broker_answer_result(listener, id, -fd);
	else
		broker_answer_fd(listener, id, fd, cloexec);
}
