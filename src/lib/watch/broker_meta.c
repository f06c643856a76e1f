/*
 * The metadata broker's calls (broker_meta.h). For each: the path and
 * the structures it points at are copied once; the target is opened by
 * the broker (O_PATH; from the caller's cwd or dirfd, its own descriptor
 * through pidfd_getfd; magic links refused, but /proc/self/fd/N and
 * /proc/thread-self/fd/N, which are read as the caller's descriptor N);
 * the inode so pinned is judged (broker_meta_judge.c) and, when inside
 * the write grants, changed through that same descriptor. It is never
 * answered CONTINUE: the kernel would read the path again, and nothing
 * but the broker judges it.
 *
 * A final symbolic link is followed where the call follows it, and its
 * target is what is judged: a link in a write grant to ~/.bashrc changes
 * nothing. A call the broker cannot judge (memory it cannot read, a file
 * with no name it can check) is refused with EPERM, as is one outside the
 * write grants, whether or not its target exists there.
 *
 * The caged process holds no capability (child.c drops them all), so the
 * broker, which may, checks what the kernel would check for it: chmod,
 * chown and explicit times only by the owner, chown only to the caller's
 * own uid (or -1) and to one of its groups (or -1), times set to now by
 * the owner or by one the mode lets write.
 */
#include "broker_meta_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "broker_internal.h"
#include "broker_io.h"
#include "base/syscalls.h"

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

enum meta_kind { META_CHMOD, META_CHOWN, META_TIMES };
enum meta_times { TIMES_NONE, TIMES_UTIMBUF, TIMES_TIMEVAL, TIMES_TIMESPEC, TIMES_TIMESPEC64 };

/*
 * Arguments by index (-1: absent). A call with a path and no dirfd starts
 * from the cwd; one with neither path nor dirfd names its target by fd.
 * follow: the final link is followed unless flags say AT_SYMLINK_NOFOLLOW.
 */
struct meta_call {
	const char *name;
	enum meta_kind kind;
	int dirfd, path, fd, a, b, flags;
	bool follow;
	enum meta_times times;
};

/* clang-format off */
static const struct meta_call meta_calls[] = {
	{ "chmod", META_CHMOD, -1, 0, -1, 1, -1, -1, true, TIMES_NONE },
	{ "fchmod", META_CHMOD, -1, -1, 0, 1, -1, -1, true, TIMES_NONE },
	{ "fchmodat", META_CHMOD, 0, 1, -1, 2, -1, -1, true, TIMES_NONE },
	{ "fchmodat2", META_CHMOD, 0, 1, -1, 2, -1, 3, true, TIMES_NONE },
	{ "chown", META_CHOWN, -1, 0, -1, 1, 2, -1, true, TIMES_NONE },
	{ "chown32", META_CHOWN, -1, 0, -1, 1, 2, -1, true, TIMES_NONE },
	{ "lchown", META_CHOWN, -1, 0, -1, 1, 2, -1, false, TIMES_NONE },
	{ "lchown32", META_CHOWN, -1, 0, -1, 1, 2, -1, false, TIMES_NONE },
	{ "fchown", META_CHOWN, -1, -1, 0, 1, 2, -1, true, TIMES_NONE },
	{ "fchown32", META_CHOWN, -1, -1, 0, 1, 2, -1, true, TIMES_NONE },
	{ "fchownat", META_CHOWN, 0, 1, -1, 2, 3, 4, true, TIMES_NONE },
	{ "utime", META_TIMES, -1, 0, -1, 1, -1, -1, true, TIMES_UTIMBUF },
	{ "utimes", META_TIMES, -1, 0, -1, 1, -1, -1, true, TIMES_TIMEVAL },
	{ "futimesat", META_TIMES, 0, 1, -1, 2, -1, -1, true, TIMES_TIMEVAL },
	{ "utimensat", META_TIMES, 0, 1, -1, 2, -1, 3, true, TIMES_TIMESPEC },
	{ "utimensat_time64", META_TIMES, 0, 1, -1, 2, -1, 3, true, TIMES_TIMESPEC64 },
};
/* clang-format on */

static const struct meta_call *meta_find(const char *name)
{
	for (size_t i = 0; i < sizeof meta_calls / sizeof *meta_calls; i++)
		if (strcmp(meta_calls[i].name, name) == 0)
			return &meta_calls[i];
	return NULL;
}

bool broker_meta_call(const char *call)
{
	return meta_find(call) != NULL;
}

bool broker_meta_wants(const struct broker *b, const struct seccomp_notif *n, const char *call)
{
	const struct meta_call *c = meta_find(call);
	if (!b || !b->meta || !c)
		return false;
	return c->kind != META_CHMOD || ((uint32_t)n->data.args[c->a] & 07000u) == 0;
}

/* What one call comes to, on the broker's copies. */
struct meta_request {
	const struct meta_call *call;
	const struct seccomp_notif *n;
	pid_t tid;
	int flags;
	bool follow, by_fd, plain_fd; /* plain_fd: fchmod, fchown, futimens: no O_PATH */
	int fd_number;		      /* by_fd: the caller's descriptor */
	char path[PATH_MAX];
	mode_t mode;
	uint32_t uid, gid; /* (uint32_t)-1: unchanged */
	struct timespec times[2];
	bool times_now; /* no explicit time: set to now, or left */
};

static int arg_int(const struct seccomp_notif *n, int index)
{
	return (int)(uint32_t)n->data.args[index];
}

static bool arch_i386(const struct meta_request *rq)
{
	return rq->n->data.arch == AUDIT_ARCH_I386;
}

/* i386's chown, lchown and fchown take 16-bit ids; 0xffff is -1. */
static uint32_t id_arg(const struct meta_request *rq, int index)
{
	uint32_t v = (uint32_t)rq->n->data.args[index];
	bool id16 = arch_i386(rq) && !strstr(rq->call->name, "32") &&
		    strcmp(rq->call->name, "fchownat") != 0;
	if (!id16)
		return v;
	v &= 0xffffu;
	return v == 0xffffu ? (uint32_t)-1 : v;
}

/* Two (seconds, fraction) pairs of width bytes each at address. */
static int read_pairs(const struct meta_request *rq, uint64_t address, size_t width, int64_t out[4])
{
	unsigned char raw[32];
	if (broker_read_memory(rq->tid, address, raw, 4 * width) < 0)
		return -EFAULT;
	for (int i = 0; i < 4; i++) {
		if (width == 8) {
			int64_t v;
			memcpy(&v, raw + 8 * i, 8);
			out[i] = v;
		} else {
			int32_t v;
			memcpy(&v, raw + 4 * i, 4);
			out[i] = v;
		}
	}
	return 0;
}

static int read_times(struct meta_request *rq)
{
	uint64_t address = rq->n->data.args[rq->call->a];
	enum meta_times kind = rq->call->times;
	int64_t v[4];
	rq->times_now = true;
	if (!address) {
		rq->times[0] = rq->times[1] = (struct timespec){0, UTIME_NOW};
		return 0;
	}
	size_t width = kind == TIMES_TIMESPEC64 || !arch_i386(rq) ? 8 : 4;
	if (kind == TIMES_UTIMBUF) {
		int64_t t[2];
		unsigned char raw[16];
		if (broker_read_memory(rq->tid, address, raw, 2 * width) < 0)
			return -EFAULT;
		for (int i = 0; i < 2; i++) {
			int32_t v32;
			if (width == 8) {
				memcpy(&t[i], raw + 8 * i, 8);
			} else {
				memcpy(&v32, raw + 4 * i, 4);
				t[i] = v32;
			}
			rq->times[i] = (struct timespec){(time_t)t[i], 0};
		}
		rq->times_now = false;
		return 0;
	}
	if (read_pairs(rq, address, width, v) < 0)
		return -EFAULT;
	for (int i = 0; i < 2; i++) {
		int64_t fraction = v[2 * i + 1];
		if (kind == TIMES_TIMEVAL) {
			if (fraction < 0 || fraction >= 1000000)
				return -EINVAL;
			fraction *= 1000;
		}
		rq->times[i] = (struct timespec){(time_t)v[2 * i], (long)fraction};
		if (fraction != UTIME_NOW && fraction != UTIME_OMIT)
			rq->times_now = false;
	}
	return 0;
}

/* "/proc/self/fd/N" or "/proc/thread-self/fd/N": the caller's descriptor N. */
static bool proc_fd_path(const char *path, int *fd)
{
	const char *rest;
	if (strncmp(path, "/proc/self/fd/", 14) == 0)
		rest = path + 14;
	else if (strncmp(path, "/proc/thread-self/fd/", 21) == 0)
		rest = path + 21;
	else
		return false;
	char *end;
	errno = 0;
	long v = strtol(rest, &end, 10);
	if (errno || end == rest || *end || v < 0 || v > INT32_MAX || rest[0] < '0' ||
	    rest[0] > '9')
		return false;
	*fd = (int)v;
	return true;
}

/* Copy the call's arguments. 0, or a negative errno to answer. */
static int meta_read(struct meta_request *rq)
{
	const struct meta_call *c = rq->call;
	const struct seccomp_notif *n = rq->n;
	int allowed = AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH;
	rq->flags = c->flags >= 0 ? arg_int(n, c->flags) : 0;
	if (strcmp(c->name, "fchmodat2") == 0 || strcmp(c->name, "fchownat") == 0 ||
	    c->kind == META_TIMES) {
		if (rq->flags & ~allowed)
			return -EINVAL;
	}
	rq->follow = c->follow && !(rq->flags & AT_SYMLINK_NOFOLLOW);
	if (c->kind == META_CHMOD)
		rq->mode = (mode_t)arg_int(n, c->a) & 07777;
	if (c->kind == META_CHOWN) {
		rq->uid = id_arg(rq, c->a);
		rq->gid = id_arg(rq, c->b);
	}
	if (c->kind == META_TIMES) {
		int rc = read_times(rq);
		if (rc < 0)
			return rc;
	}
	if (c->path < 0 || (c->kind == META_TIMES && c->dirfd >= 0 && !n->data.args[c->path])) {
		/* fchmod, fchown; futimens and futimesat(fd, NULL, ...). */
		rq->by_fd = rq->plain_fd = true;
		rq->fd_number = arg_int(n, c->fd >= 0 ? c->fd : c->dirfd);
		if (c->path >= 0 && rq->flags)
			return -EINVAL;
		return rq->fd_number == AT_FDCWD ? -EFAULT : 0;
	}
	int rc = broker_read_string(rq->tid, n->data.args[c->path], rq->path, sizeof rq->path);
	if (rc < 0)
		return rc;
	if (rq->path[0] == '\0') {
		if (!(rq->flags & AT_EMPTY_PATH) || c->dirfd < 0)
			return -ENOENT;
		rq->by_fd = true;
		rq->fd_number = arg_int(n, c->dirfd);
		return 0;
	}
	if (proc_fd_path(rq->path, &rq->fd_number))
		rq->by_fd = true;
	return 0;
}

/* Is the caller's descriptor number an O_PATH one? From /proc/TID/fdinfo/N. */
static bool caller_fd_is_path_only(pid_t tid, int number)
{
	char path[64], text[512];
	snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)tid, number);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* unknown: taken as the weakest kind */
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return true;
	text[n] = '\0';
	const char *flags = strstr(text, "flags:");
	return !flags || (strtoul(flags + 6, NULL, 8) & O_PATH);
}

/*
 * The caller's descriptor number as the broker's own (the same open
 * file); *path_only says whether it was opened O_PATH.
 */
static int take_fd(pid_t tid, int number, bool *path_only)
{
	if (number < 0)
		return -EBADF;
	int pidfd = sys_pidfd_open(tid, PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL) {
		/*
		 * Before Linux 6.9 a pidfd names a thread group leader only:
		 * the inode through the thread's magic link, followed on
		 * purpose (it is the caller's own), and its flags from fdinfo.
		 */
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)tid, number);
		int fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT ? -EBADF : -EPERM;
		*path_only = caller_fd_is_path_only(tid, number);
		return fd;
	}
	if (pidfd < 0)
		return -errno;
	int fd = (int)syscall(__NR_pidfd_getfd, pidfd, number, 0);
	int e = errno;
	close(pidfd);
	if (fd < 0)
		return -e;
	*path_only = (fcntl(fd, F_GETFL) & O_PATH) != 0;
	return fd;
}

/*
 * The target, pinned: the caller's descriptor, or the path opened from
 * the caller's directory. A path that does not resolve is answered with
 * the kernel's errno only where the directory it names is inside the
 * write grants: elsewhere EPERM, so that the broker, which sees more
 * than the cage, tells nothing of what exists there.
 */
static int meta_target(const struct broker_meta *m, struct meta_request *rq, struct stat *st)
{
	if (rq->by_fd) {
		bool path_only = false;
		/* An empty path from AT_FDCWD names the working directory itself. */
		int fd = rq->fd_number == AT_FDCWD && !rq->plain_fd
			     ? broker_base_fd(rq->tid, AT_FDCWD)
			     : take_fd(rq->tid, rq->fd_number, &path_only);
		if (fd < 0)
			return fd;
		/* fchmod, fchown and futimens take no O_PATH descriptor. */
		if (rq->plain_fd && path_only) {
			close(fd);
			return -EBADF;
		}
		if (fstat(fd, st) != 0) {
			close(fd);
			return -EPERM;
		}
		return fd;
	}
	int base = AT_FDCWD;
	if (rq->path[0] != '/') {
		const struct meta_call *c = rq->call;
		base = broker_base_fd(rq->tid, c->dirfd >= 0 ? arg_int(rq->n, c->dirfd) : AT_FDCWD);
		if (base < 0)
			return base == -EBADF || base == -ENOTDIR ? base : -EPERM;
	}
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (rq->follow ? 0 : O_NOFOLLOW),
			       .resolve = RESOLVE_NO_MAGICLINKS};
	int fd = sys_openat2(base, rq->path, &how);
	int e = errno;
	if (fd >= 0 && fstat(fd, st) != 0) {
		close(fd);
		fd = -1;
		e = EPERM;
	}
	if (fd < 0) {
		/* Is the directory the path names inside the write grants? */
		char *slash = strrchr(rq->path, '/');
		struct stat dir_st;
		how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
		int dir = -1;
		if (slash)
			*slash = '\0';
		if (slash != rq->path)
			dir = sys_openat2(base, slash ? rq->path : ".", &how);
		else
			dir = sys_openat2(AT_FDCWD, "/", &how);
		bool told = dir >= 0 && fstat(dir, &dir_st) == 0 &&
			    broker_meta_writable(m, dir, &dir_st) && e != ELOOP;
		if (dir >= 0)
			close(dir);
		fd = told ? -e : -EPERM;
	}
	if (base >= 0)
		close(base);
	return fd;
}

/* The caller's file system ids and groups, from /proc/TID/status. */
struct caller_ids {
	uint32_t fsuid, fsgid;
	uint32_t groups[256];
	size_t n_groups;
};

/* The fourth number of a "Uid:" or "Gid:" line: the file system id. */
static bool status_fs_id(const char *text, const char *key, uint32_t *out)
{
	const char *line = strstr(text, key);
	if (!line)
		return false;
	const char *p = line + strlen(key);
	unsigned long v = 0;
	for (int i = 0; i < 4; i++) {
		char *end;
		v = strtoul(p, &end, 10);
		if (end == p)
			return false;
		p = end;
	}
	*out = (uint32_t)v;
	return true;
}

static int caller_ids_read(pid_t tid, struct caller_ids *ids)
{
	char path[64], text[8192];
	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EPERM;
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return -EPERM;
	text[n] = '\0';
	if (!status_fs_id(text, "\nUid:", &ids->fsuid) ||
	    !status_fs_id(text, "\nGid:", &ids->fsgid))
		return -EPERM;
	const char *g = strstr(text, "\nGroups:");
	ids->n_groups = 0;
	if (g) {
		const char *p = g + 8;
		while (ids->n_groups < sizeof ids->groups / sizeof *ids->groups) {
			char *end;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p < '0' || *p > '9')
				break;
			ids->groups[ids->n_groups++] = (uint32_t)strtoul(p, &end, 10);
			p = end;
		}
	}
	return 0;
}

static bool caller_in_group(const struct caller_ids *ids, uint32_t gid)
{
	if (ids->fsgid == gid)
		return true;
	for (size_t i = 0; i < ids->n_groups; i++)
		if (ids->groups[i] == gid)
			return true;
	return false;
}

/* May the caller, with no capability, make this change to st? 0 or -EPERM. */
static int meta_permitted(const struct meta_request *rq, const struct caller_ids *ids,
			  const struct stat *st)
{
	bool owner = st->st_uid == ids->fsuid;
	bool device = S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode);
	switch (rq->call->kind) {
	case META_CHMOD:
		/* A device node is the host's, whatever grant reaches it. */
		return owner && !device ? 0 : -EPERM;
	case META_CHOWN:
		if (!owner || device)
			return -EPERM;
		if (rq->uid != (uint32_t)-1 && rq->uid != ids->fsuid)
			return -EPERM;
		if (rq->gid != (uint32_t)-1 && !caller_in_group(ids, rq->gid))
			return -EPERM;
		return 0;
	case META_TIMES:
		if (owner)
			return 0;
		if (!rq->times_now)
			return -EPERM;
		mode_t bit = caller_in_group(ids, st->st_gid) ? S_IWGRP : S_IWOTH;
		return (st->st_mode & bit) ? 0 : -EACCES;
	}
	return -EPERM;
}

/* Change the pinned inode fd itself (AT_EMPTY_PATH: a link too). */
static int meta_perform(const struct meta_request *rq, int fd, const struct stat *st)
{
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	switch (rq->call->kind) {
	case META_CHMOD:
		/* Linux cannot change a link's mode. */
		if (S_ISLNK(st->st_mode))
			return -EOPNOTSUPP;
		if (syscall(__NR_fchmodat2, fd, "", rq->mode, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != ENOSYS && errno != EINVAL)
			return -errno;
		/* Before Linux 6.6: through the descriptor's own magic link. */
		return chmod(self, rq->mode) == 0 ? 0 : -errno;
	case META_CHOWN:
		return fchownat(fd, "", rq->uid, rq->gid, AT_EMPTY_PATH) == 0 ? 0 : -errno;
	case META_TIMES:
		if (utimensat(fd, "", rq->times, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != EINVAL || S_ISLNK(st->st_mode))
			return -errno;
		return utimensat(AT_FDCWD, self, rq->times, 0) == 0 ? 0 : -errno;
	}
	return -EPERM;
}

static int meta_do(struct broker *b, int listener, struct meta_request *rq)
{
	struct stat st;
	struct caller_ids ids;
	int rc = meta_read(rq);
	if (rc < 0)
		return rc;
	int fd = meta_target(b->meta, rq, &st);
	if (fd < 0)
		return fd;
	if (!broker_meta_writable(b->meta, fd, &st))
		rc = -EPERM;
	if (rc == 0)
		rc = caller_ids_read(rq->tid, &ids);
	/* Its thread gone, the ids read may be another process's: nothing is done. */
	if (rc == 0 && !broker_id_valid(listener, rq->n->id))
		rc = -ESRCH;
	if (rc == 0)
		rc = meta_permitted(rq, &ids, &st);
	if (rc == 0)
		rc = meta_perform(rq, fd, &st);
	close(fd);
	return rc;
}

void broker_meta_answer(struct broker *b, int listener, const struct seccomp_notif *n,
			const char *call)
{
	struct meta_request rq = {.call = meta_find(call), .n = n, .tid = (pid_t)n->pid};
	int rc = b->meta && rq.call ? meta_do(b, listener, &rq) : -EPERM;
	if (!broker_id_valid(listener, n->id))
		return;
	/* Never CONTINUE: a metadata call is performed here or refused. */
	broker_answer_result(listener, n->id, rc < 0 ? -rc : 0);
}
