/*
 * Tier T2: a process's own /proc/self, opened for it by the supervisor.
 *
 * Landlock's rules name inodes, and the directory behind /proc/self is
 * another inode for every process, so no rule made before the run can
 * let each of its processes read its own entries and no other's
 * (docs/proc.md). The filter of such a run sends every open here; an open
 * that reads one of the caller's own entries named below is performed by
 * the supervisor and the descriptor handed over (SECCOMP_IOCTL_NOTIF_ADDFD).
 * Everything else is answered CONTINUE and judged by Landlock as before.
 *
 * Whose entries: the process of the notifying thread. Its thread group is
 * read from /proc/TID/status, its directory opened, and only then is the
 * notification checked to be still pending: a thread blocked in its call
 * cannot have been reaped, so its id, and the group the directory was
 * opened for, were the caller's throughout. A /proc/PID directory stays
 * bound to its process, so what is opened below it is that process's.
 *
 * What: plain files that describe the process itself, and the listings
 * of its own directory, fd, fdinfo and task. Never an entry that is a
 * link to something else (root, cwd, exe, fd/N, map_files, ns): the
 * supervisor is under no Landlock domain, so following one would read
 * for the caller what Landlock refuses it. Never mounts or mountinfo
 * (the host's mount table), mem or pagemap, and never a write.
 */
#include "broker.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "broker_internal.h"
#include "broker_io.h"
#include "base/small_file.h"
#include "base/syscalls.h"

/* The files a process may read of its own (and of its threads', under task/TID). */
static const char *const own_files[] = {
	"auxv",	   "cgroup",	    "cmdline",	  "comm",      "environ", "io",
	"limits",  "maps",	    "smaps",	  "smaps_rollup", "stat",  "statm",
	"status",  "schedstat",	    "oom_score",  "oom_score_adj", "personality",
};

/* Its directories it may list: the process's own, and these below it. */
static const char *const own_directories[] = { "fd", "fdinfo", "task" };

/*
 * The open flags a read of one of them may carry; any other is not ours.
 * O_LARGEFILE by the kernel's value: the C library's is 0 on x86_64, but
 * 32-bit programs pass it.
 */
#define KERNEL_O_LARGEFILE 0100000
#define OWN_OPEN_FLAGS \
	(O_CLOEXEC | O_NONBLOCK | KERNEL_O_LARGEFILE | O_NOCTTY | O_NOFOLLOW | O_DIRECTORY)

/* The caller as its thread id, its thread group and both as it numbers them. */
struct caller {
	pid_t tid, tgid;       /* the supervisor's numbers */
	long own_tid, own_tgid; /* the caller's (its PID namespace's) */
};

static long status_number(const char *text, const char *key, bool last)
{
	const char *line = strstr(text, key);
	if (!line)
		return -1;
	line += strlen(key);
	long value = -1;
	char *end = NULL;
	/* NSpid and NStgid list one number per namespace: the caller's is the last. */
	for (;;) {
		long v = strtol(line, &end, 10);
		if (end == line)
			break;
		value = v;
		line = end;
		if (!last || *line == '\n' || *line == '\0')
			break;
	}
	return value;
}

static int caller_read(pid_t tid, struct caller *c)
{
	char path[64], text[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if (small_file_read(path, text, sizeof text) <= 0)
		return -ESRCH;
	c->tid = tid;
	c->tgid = (pid_t)status_number(text, "\nTgid:", false);
	c->own_tgid = status_number(text, "\nNStgid:", true);
	c->own_tid = status_number(text, "\nNSpid:", true);
	/* A kernel without the NS lines: one namespace. */
	if (c->own_tgid < 0)
		c->own_tgid = c->tgid;
	if (c->own_tid < 0)
		c->own_tid = tid;
	return c->tgid > 0 ? 0 : -ESRCH;
}

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

bool broker_all_digits(const char *s)
{
	if (!*s || strlen(s) > 10)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

bool broker_proc_own_entry(const char *path, long own_tgid, long own_tid, char *rest,
			   size_t size, bool *thread)
{
	char copy[256], *save = NULL;
	if (strncmp(path, "/proc/", 6) != 0 || strlen(path) >= sizeof copy)
		return false;
	snprintf(copy, sizeof copy, "%s", path + 6);
	const char *names[4];
	size_t n = 0;
	for (char *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		/* No . or ..: each name is checked where it stands, never resolved. */
		if (n == sizeof names / sizeof *names || strcmp(t, ".") == 0 ||
		    strcmp(t, "..") == 0)
			return false;
		names[n++] = t;
	}
	if (n == 0)
		return false;
	size_t at = 1;
	*thread = false;
	if (strcmp(names[0], "thread-self") == 0)
		*thread = true;
	else if (broker_all_digits(names[0]) && strtol(names[0], NULL, 10) == own_tid &&
		 own_tid != own_tgid)
		*thread = true; /* a thread's own number: its thread's directory */
	else if (strcmp(names[0], "self") != 0 &&
		 !(broker_all_digits(names[0]) && strtol(names[0], NULL, 10) == own_tgid))
		return false;
	/* Below task/: a thread of the caller's process, then the same names. */
	bool task = false;
	if (!*thread && at < n && strcmp(names[at], "task") == 0 && at + 1 < n) {
		if (!broker_all_digits(names[at + 1]))
			return false;
		task = true;
		at += 2;
	}
	size_t left = n - at;
	bool ok = left == 0 ||
		  (left == 1 && in_list(names[at], own_files, sizeof own_files / sizeof *own_files)) ||
		  (left == 1 && !task && !*thread &&
		   in_list(names[at], own_directories,
			   sizeof own_directories / sizeof *own_directories)) ||
		  (left == 1 && (task || *thread) && strcmp(names[at], "fdinfo") == 0) ||
		  (left == 2 && !task && strcmp(names[at], "fdinfo") == 0 && broker_all_digits(names[at + 1]));
	if (!ok)
		return false;
	int len = snprintf(rest, size, "%s%s%s", task ? "task/" : "", task ? names[at - 1] : "",
			   task && left ? "/" : "");
	for (size_t i = at; i < n && len >= 0 && (size_t)len < size; i++)
		len += snprintf(rest + len, size - (size_t)len, "%s%s", names[i],
				i + 1 < n ? "/" : "");
	if (len < 0 || (size_t)len >= size)
		return false;
	if (len == 0)
		snprintf(rest, size, ".");
	return true;
}

/*
 * A relative path from a directory of procfs: the absolute path it names,
 * when its start is the host's /proc, the caller's process directory or
 * its thread's. False for every other start (most relative opens).
 */
static bool absolute_from(int base, const char *path, const struct caller *c, char *out,
			  size_t size)
{
	struct stat at, cand;
	bool found = false;
	if (fstat(base, &at) == 0) {
		char dir[64];
		const char *prefix = NULL;
		snprintf(dir, sizeof dir, "/proc/%d", (int)c->tgid);
		if (stat("/proc", &cand) == 0 && cand.st_dev == at.st_dev && cand.st_ino == at.st_ino)
			prefix = "";
		else if (stat(dir, &cand) == 0 && cand.st_dev == at.st_dev &&
			 cand.st_ino == at.st_ino)
			prefix = "self/";
		else if (snprintf(dir, sizeof dir, "/proc/%d/task/%d", (int)c->tgid, (int)c->tid) > 0 &&
			 stat(dir, &cand) == 0 && cand.st_dev == at.st_dev &&
			 cand.st_ino == at.st_ino)
			prefix = "thread-self/";
		if (prefix) {
			int len = snprintf(out, size, "/proc/%s%s", prefix, path);
			found = len > 0 && (size_t)len < size;
		}
	}
	return found;
}

/*
 * The directory a relative path starts from, when it is in procfs (a
 * descriptor of the broker's), else -1: most relative opens are not, and
 * cost no more than this.
 */
static int proc_base(pid_t tid, int dirfd)
{
	char link[64], target[16];
	/*
	 * The link's text first, one call: a start that is not below /proc
	 * by its name is passed over. Only a filter: what decides is the
	 * descriptor's file system and identity, below.
	 */
	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof link, "/proc/%d/cwd", (int)tid);
	else if (dirfd >= 0)
		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)tid, dirfd);
	else
		return -1;
	ssize_t n = readlink(link, target, sizeof target);
	if (n < 5 || memcmp(target, "/proc", 5) != 0 || (n > 5 && target[5] != '/'))
		return -1;
	int base = broker_base_fd(tid, dirfd);
	struct statfs fs;
	if (base >= 0 && (fstatfs(base, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC)) {
		close(base);
		base = -1;
	}
	return base < 0 ? -1 : base;
}

/* The flags and path of an open call; false when it is not one this file reads. */
static bool open_arguments(const struct seccomp_notif *n, const char *call, int *dirfd,
			   uint64_t *path, uint64_t *flags)
{
	const __u64 *a = n->data.args;
	if (strcmp(call, "open") == 0) {
		*dirfd = AT_FDCWD;
		*path = a[0];
		*flags = (uint32_t)a[1];
		return true;
	}
	*dirfd = (int)(uint32_t)a[0];
	*path = a[1];
	if (strcmp(call, "openat") == 0) {
		*flags = (uint32_t)a[2];
		return true;
	}
	if (strcmp(call, "openat2") != 0)
		return false;
	/* A larger open_how (a later kernel's), or any resolve flag: not ours. */
	struct open_how how;
	if (a[3] != sizeof how || broker_read_memory((pid_t)n->pid, a[2], &how, sizeof how) < 0 ||
	    how.resolve || how.mode)
		return false;
	*flags = how.flags;
	return true;
}

void broker_proc_self_on(struct broker *b)
{
	b->proc_self = true;
}

bool broker_proc_sent(const struct broker *b, const char *call)
{
	/* What the broker_reads variants send besides the broker's own calls. */
	static const char *const sent[] = {
		"open",	    "openat",	"openat2", "creat",    "mkdir",	    "mkdirat",
		"mknod",    "mknodat",	"unlink",  "unlinkat", "rmdir",	    "rename",
		"renameat", "renameat2", "link",    "linkat",   "symlink",  "symlinkat",
		"truncate", "truncate64",
	};
	if (!b || !(b->proc_self || b->shm || b->pty) || !call)
		return false;
	for (size_t i = 0; i < sizeof sent / sizeof *sent; i++)
		if (strcmp(call, sent[i]) == 0)
			return true;
	return false;
}

/* Open rest below the caller's process (or thread) directory. */
static int own_open(const struct caller *c, bool thread, const char *rest, int flags)
{
	char dir[64];
	if (thread)
		snprintf(dir, sizeof dir, "/proc/%d/task/%d", (int)c->tgid, (int)c->tid);
	else
		snprintf(dir, sizeof dir, "/proc/%d", (int)c->tgid);
	int base = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (base < 0)
		return -errno;
	struct open_how how = {
		.flags = (uint64_t)(flags & OWN_OPEN_FLAGS) | O_RDONLY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	int fd = sys_openat2(base, rest, &how);
	int e = errno;
	close(base);
	return fd < 0 ? -e : fd;
}

bool broker_proc_answer(struct broker *b, int listener, const struct seccomp_notif *n,
			const char *call)
{
	int dirfd = AT_FDCWD;
	uint64_t address = 0, flags = 0;
	if (!b || !call || !b->proc_self || !open_arguments(n, call, &dirfd, &address, &flags))
		return false;
	/* Reading only, with none but the harmless flags. */
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & ~(uint64_t)OWN_OPEN_FLAGS) != 0)
		return false;
	pid_t tid = (pid_t)n->pid;
	if (broker_read_string(tid, address, b->path, sizeof b->path) < 0)
		return false;
	struct caller c;
	char absolute[PATH_MAX], rest[256];
	bool thread = false;
	const char *path = b->path;
	/* The list of processes: the run's own, made for this open. */
	if (path[0] == '/' && broker_proc_run_listing(b, listener, n->id, path, (int)flags))
		return true;
	/* Cheap first: most opens name no path in /proc. */
	if (path[0] == '/' && strncmp(path, "/proc/", 6) != 0)
		return false;
	int base = path[0] == '/' ? -1 : proc_base(tid, dirfd);
	if (path[0] != '/' && base < 0)
		return false;
	bool mine = caller_read(tid, &c) == 0 &&
		    (base < 0 || absolute_from(base, path, &c, absolute, sizeof absolute));
	if (base >= 0) {
		close(base);
		path = absolute;
	}
	if (!mine)
		return false;
	/* The list of processes by a relative name: "." in /proc. */
	if (path == absolute && broker_proc_run_listing(b, listener, n->id, path, (int)flags))
		return true;
	/* Not its own: a few entries of another process of the run, or Landlock's refusal. */
	if (!broker_proc_own_entry(path, c.own_tgid, c.own_tid, rest, sizeof rest, &thread))
		return broker_proc_run_entry(b, listener, n->id, path, (int)flags);
	int fd = own_open(&c, thread, rest, (int)flags);
	broker_answer_opened(listener, n->id, fd, (flags & O_CLOEXEC) != 0);
	return true;
}
