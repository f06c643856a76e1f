/*
 * The run's reaper (see reaper.h).
 *
 * It is cloned with CLONE_VM and without CLONE_VFORK: no page table is
 * copied, and it keeps running beside the caller for the whole run, on a
 * stack of its own that the caller unmaps only after reaping it. Two
 * phases:
 *
 *  1. Until the target has exec'd, the caller is blocked on the status
 *     pipe in a raw read. The reaper may then use glibc's wrappers (their
 *     errno lands in the caller's thread, which does not look at it): it
 *     writes the id maps, makes the mounts (and a
 *     /proc of its own in a PID namespace), becomes a child subreaper,
 *     leads a new session, and clones the target (CLONE_VM | CLONE_VFORK,
 *     child.c). A failing step writes its record on the status pipe.
 *
 *  2. From the moment it closes its copy of the status pipe's write end
 *     the caller runs again, so the reaper makes only raw system calls
 *     (raw_syscall.h) and reads only its own stack: it waits for the
 *     target, the caller's commands and the caller's end of the run's
 *     socket, which only the caller holds (close-on-exec): EOF there means
 *     the caller is gone. When the target ends it kills every process
 *     left, reports the target's wait status and exits. If the caller is
 *     gone it also removes the run's private temporary directory, which
 *     the caller would have removed.
 *
 * Processes are only ever signalled through a pidfd, or by pid while they
 * are the reaper's own unreaped children, whose pids cannot be reused.
 */
#include "reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "landlock.h"
#include "namespaces.h"
#include "raw_syscall.h"
#include "syscalls.h"


/* Phase 2 code: no sanitizer instrumentation, no library call. */
#define REAPER_RAW __attribute__((no_sanitize("address", "undefined"), noinline))

/* ---- phase 2: raw system calls only ------------------------------------ */

struct reaper {
	int socket;       /* the reaper's end of the run's socket */
	int status_fd;    /* closed once the target has started */
	int sigchld_fd;   /* signalfd for SIGCHLD */
	int target_pidfd;
	int proc_self_fd; /* /proc/thread-self (O_PATH), or -1 */
	int proc_fd;      /* /proc, or -1 */
	pid_t target;     /* in the reaper's PID namespace */
	pid_t self;       /* the reaper's pid in proc_fd's namespace */
	bool pid_namespace;
	char tmpdir[PATH_MAX]; /* the run's private temporary directory, or "" */
	char cgroup[PATH_MAX]; /* the run's cgroup, or "" */
	bool target_reaped;
	int target_status;
	bool caller_gone;
};

static REAPER_RAW void raw_exit(int code)
{
	for (;;)
		raw_syscall1(SYS_exit_group, code);
}

static REAPER_RAW long raw_read(int fd, void *buf, size_t len)
{
	long n;
	do
		n = raw_syscall3(SYS_read, fd, buf, len);
	while (n == -EINTR);
	return n;
}

/* "123" for n into buf (at least 12 bytes); returns the length. */
static REAPER_RAW size_t raw_format_uint(char *buf, unsigned n)
{
	char tmp[12];
	size_t len = 0, i = 0;
	do
		tmp[len++] = (char)('0' + n % 10);
	while ((n /= 10) && len < sizeof tmp);
	while (len)
		buf[i++] = tmp[--len];
	buf[i] = '\0';
	return i;
}

static REAPER_RAW void reaper_send(struct reaper *r, int kind, int value, int fd)
{
	struct reaper_message m;
	struct iovec iov;
	struct msghdr mh;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;

	if (r->caller_gone)
		return;
	m.kind = kind;
	m.value = value;
	iov.iov_base = &m;
	iov.iov_len = sizeof m;
	mh.msg_name = NULL;
	mh.msg_namelen = 0;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = NULL;
	mh.msg_controllen = 0;
	mh.msg_flags = 0;
	if (fd >= 0) {
		struct cmsghdr *c = &control.align;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		*(int *)(void *)CMSG_DATA(c) = fd;
		mh.msg_control = control.buf;
		mh.msg_controllen = sizeof control.buf;
	}
	if (raw_syscall3(SYS_sendmsg, r->socket, &mh, MSG_NOSIGNAL) < 0)
		r->caller_gone = true;
}

static REAPER_RAW void pidfd_kill(int pidfd, int sig)
{
	raw_syscall4(__NR_pidfd_send_signal, pidfd, sig, NULL, 0);
}

/* A child of ours, by pid: open a pidfd on it and signal that. */
static REAPER_RAW void child_kill(pid_t pid, int sig)
{
	long fd = raw_syscall2(__NR_pidfd_open, pid, 0);
	if (fd < 0)
		return;
	pidfd_kill((int)fd, sig);
	raw_syscall1(SYS_close, fd);
}

static REAPER_RAW int wait_status_of(const siginfo_t *info)
{
	switch (info->si_code) {
	case CLD_EXITED:
		return (info->si_status & 0xff) << 8;
	case CLD_DUMPED:
		return (info->si_status & 0x7f) | 0x80;
	default:
		return info->si_status & 0x7f;
	}
}

/*
 * Reap every child that has ended: 1 if children remain, 0 if none. A stop
 * of the target is only reported if it made us its tracer (the filter
 * refuses that); it is killed, never taken for its end.
 */
static REAPER_RAW int reap_ended(struct reaper *r)
{
	for (;;) {
		siginfo_t info;
		info.si_pid = 0;
		long rc = raw_syscall5(SYS_waitid, P_ALL, 0, &info, WEXITED | WNOHANG, NULL);
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			return 0; /* ECHILD: nothing left */
		if (info.si_pid == 0)
			return 1;
		if (info.si_pid != r->target || r->target_reaped)
			continue;
		if (info.si_code == CLD_EXITED || info.si_code == CLD_KILLED ||
		    info.si_code == CLD_DUMPED) {
			r->target_reaped = true;
			r->target_status = wait_status_of(&info);
		} else {
			pidfd_kill(r->target_pidfd, SIGKILL);
		}
	}
}

/*
 * Forward a signal as a terminal would: to the target's process group
 * (its own, which it leads), and to the target itself if it has left it.
 * Only while the target is unreaped, so its pid still names it.
 */
static REAPER_RAW void forward_signal(struct reaper *r, int sig)
{
	if (r->target_reaped || sig <= 0 || sig >= 65)
		return;
	long group = raw_syscall1(SYS_getpgid, r->target);
	long rc = raw_syscall2(SYS_kill, -r->target, sig);
	if (rc < 0 || group != r->target)
		pidfd_kill(r->target_pidfd, sig);
}

static REAPER_RAW void command_read(struct reaper *r)
{
	struct reaper_message m;
	long n = raw_syscall4(SYS_recvfrom, r->socket, &m, sizeof m, MSG_DONTWAIT);
	if (n == -EAGAIN || n == -EINTR)
		return;
	if (n <= 0) {
		/* The caller is gone: so is the run. */
		r->caller_gone = true;
		pidfd_kill(r->target_pidfd, SIGKILL);
		return;
	}
	if (n != (long)sizeof m)
		return;
	if (m.kind == REAPER_SIGNAL)
		forward_signal(r, m.value);
	else if (m.kind == REAPER_KILL)
		pidfd_kill(r->target_pidfd, SIGKILL);
}

static REAPER_RAW void signals_drain(struct reaper *r)
{
	char buf[sizeof(struct signalfd_siginfo) * 8];
	while (raw_syscall3(SYS_read, r->sigchld_fd, buf, sizeof buf) > 0)
		;
}

/* Parse the pids in text (decimal, separated by anything else) and kill each. */
static REAPER_RAW int kill_listed(const char *text, long len, unsigned *carry)
{
	int n = 0;
	for (long i = 0; i < len; i++) {
		char c = text[i];
		if (c >= '0' && c <= '9') {
			*carry = *carry * 10 + (unsigned)(c - '0');
			continue;
		}
		if (*carry) {
			child_kill((pid_t)*carry, SIGKILL);
			n++;
		}
		*carry = 0;
	}
	return n;
}

/* SIGKILL every child listed in /proc/thread-self/children; -1 if unreadable. */
static REAPER_RAW int children_kill_listed(struct reaper *r)
{
	char buf[4096];
	unsigned carry = 0;
	int n = 0;
	if (r->proc_self_fd < 0)
		r->proc_self_fd = (int)raw_syscall4(SYS_openat, AT_FDCWD, "/proc/thread-self",
						    O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (r->proc_self_fd < 0)
		return -1;
	long fd = raw_syscall4(SYS_openat, r->proc_self_fd, "children", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	for (;;) {
		long got = raw_read((int)fd, buf, sizeof buf);
		if (got <= 0)
			break;
		n += kill_listed(buf, got, &carry);
	}
	n += kill_listed(" ", 1, &carry);
	raw_syscall1(SYS_close, fd);
	return n;
}

/* The parent pid in the text of /proc/PID/stat: the field after ") S ". */
static REAPER_RAW long stat_ppid(const char *text, long len)
{
	long i = len - 1, ppid = 0;
	while (i >= 0 && text[i] != ')')
		i--;
	if (i < 0 || i + 4 >= len)
		return -1;
	for (i += 4; i < len && text[i] >= '0' && text[i] <= '9'; i++)
		ppid = ppid * 10 + (text[i] - '0');
	return ppid;
}

struct dirent64_raw {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/*
 * Without /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN): find our
 * children by their parent pid. A process whose parent is us stays ours
 * until we reap it, so its pid is safe to use.
 */
static REAPER_RAW int children_kill_scanned(struct reaper *r)
{
	char buf[4096], path[32], stat[512];
	int n = 0;
	if (r->proc_fd < 0)
		r->proc_fd = (int)raw_syscall4(SYS_openat, AT_FDCWD, "/proc",
					       O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (r->proc_fd < 0 || raw_syscall3(SYS_lseek, r->proc_fd, 0, SEEK_SET) < 0)
		return -1;
	for (;;) {
		long got = raw_syscall3(SYS_getdents64, r->proc_fd, buf, sizeof buf);
		if (got < 0)
			return -1;
		if (got == 0)
			return n;
		for (long off = 0; off < got;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(void *)(buf + off);
			off += d->reclen;
			unsigned pid = 0;
			const char *c = d->name;
			for (; *c >= '0' && *c <= '9'; c++)
				pid = pid * 10 + (unsigned)(*c - '0');
			if (*c || !pid)
				continue;
			size_t len = raw_format_uint(path, pid);
			const char suffix[] = "/stat";
			for (size_t k = 0; k < sizeof suffix; k++)
				path[len + k] = suffix[k];
			long fd = raw_syscall4(SYS_openat, r->proc_fd, path, O_RDONLY | O_CLOEXEC, 0);
			if (fd < 0)
				continue;
			long len_read = raw_read((int)fd, stat, sizeof stat);
			raw_syscall1(SYS_close, fd);
			if (len_read > 0 && stat_ppid(stat, len_read) == r->self) {
				child_kill((pid_t)pid, SIGKILL);
				n++;
			}
		}
	}
}

/*
 * Kill every process left, round by round. In a PID namespace of its own
 * the reaper is its first process: kill(-1) reaches exactly every other
 * process of the run. Elsewhere each round kills our children; their own
 * children come back to us (we are a child subreaper) and are killed in
 * the next round, until none is left.
 */
static REAPER_RAW void kill_all(struct reaper *r)
{
	for (;;) {
		int n;
		/* Mostly there is nothing left: then /proc is not even read. */
		if (!reap_ended(r))
			return;
		if (r->pid_namespace)
			n = raw_syscall2(SYS_kill, -1, SIGKILL) == 0 ? 1 : 0;
		else if ((n = children_kill_listed(r)) < 0)
			n = children_kill_scanned(r);
		if (!reap_ended(r))
			return;
		if (n > 0) {
			/* Each child listed has SIGKILL on its way: wait for one to end. */
			siginfo_t info;
			raw_syscall5(SYS_waitid, P_ALL, 0, &info, WEXITED | WNOWAIT, NULL);
			continue;
		}
		/*
		 * A child we did not see (one just handed to us), or none we can
		 * find at all (no /proc): look again shortly.
		 */
		struct timespec t = { 0, n == 0 ? 1000 * 1000 : 100 * 1000 * 1000 };
		raw_syscall2(SYS_nanosleep, &t, NULL);
	}
}

/*
 * Empty the directory open at fd: never following a symbolic link, never
 * leaving its file system, at most 32 levels deep (the stack is small).
 * Entries removed while it is read may hide others: a few passes.
 */
static REAPER_RAW void tree_empty(int fd, unsigned long long dev, int depth)
{
	char buf[1024];
	for (int pass = 0; pass < 4; pass++) {
		int removed = 0;
		if (raw_syscall3(SYS_lseek, fd, 0, SEEK_SET) < 0)
			return;
		for (;;) {
			long got = raw_syscall3(SYS_getdents64, fd, buf, sizeof buf);
			if (got <= 0)
				break;
			for (long off = 0; off < got;) {
				struct dirent64_raw *d = (struct dirent64_raw *)(void *)(buf + off);
				off += d->reclen;
				const char *name = d->name;
				if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
					continue;
				if (raw_syscall3(SYS_unlinkat, fd, name, 0) == 0) {
					removed++;
					continue;
				}
				if (depth >= 32)
					continue;
				long sub = raw_syscall4(SYS_openat, fd, name,
							O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
				if (sub < 0)
					continue;
				struct stat st;
				if (raw_syscall2(SYS_fstat, sub, &st) == 0 &&
				    (unsigned long long)st.st_dev == dev) {
					raw_syscall2(SYS_fchmod, sub, 0700);
					tree_empty((int)sub, dev, depth + 1);
				}
				raw_syscall1(SYS_close, sub);
				if (raw_syscall3(SYS_unlinkat, fd, name, AT_REMOVEDIR) == 0)
					removed++;
			}
		}
		if (!removed)
			return;
	}
}

/* The caller is gone and every process of the run too: remove the run's temporary directory. */
static REAPER_RAW void tmpdir_remove_raw(struct reaper *r)
{
	if (!r->tmpdir[0])
		return;
	long fd = raw_syscall4(SYS_openat, AT_FDCWD, r->tmpdir,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	struct stat st;
	if (raw_syscall2(SYS_fstat, fd, &st) == 0) {
		raw_syscall2(SYS_fchmod, fd, 0700);
		tree_empty((int)fd, (unsigned long long)st.st_dev, 0);
	}
	raw_syscall1(SYS_close, fd);
	raw_syscall3(SYS_unlinkat, AT_FDCWD, r->tmpdir, AT_REMOVEDIR);
}

/* Close every descriptor but the reaper's own, so it holds nothing of the caller's. */
static REAPER_RAW void close_others(struct reaper *r)
{
	int keep[5] = { r->socket, r->sigchld_fd, r->target_pidfd, r->proc_self_fd, r->proc_fd };
	int n = 5;
	/* A few elements: insertion sort. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	long from = 0;
	for (int i = 0; i < n; i++) {
		if (keep[i] < 0)
			continue;
		if (keep[i] > from)
			raw_syscall3(__NR_close_range, from, keep[i] - 1, 0);
		from = keep[i] + 1;
	}
	raw_syscall3(__NR_close_range, from, ~0U, 0);
}

static REAPER_RAW _Noreturn void reaper_supervise(struct reaper *r)
{
	reaper_send(r, REAPER_STARTED, r->target, r->target_pidfd);
	/* The caller sees EOF on the status pipe and runs again. */
	raw_syscall1(SYS_close, r->status_fd);
	r->status_fd = -1;
	close_others(r);

	while (!r->target_reaped) {
		struct pollfd p[2];
		p[0].fd = r->caller_gone ? -1 : r->socket;
		p[0].events = POLLIN;
		p[0].revents = 0;
		p[1].fd = r->sigchld_fd;
		p[1].events = POLLIN;
		p[1].revents = 0;
		long rc = raw_syscall5(SYS_ppoll, p, 2, NULL, NULL, sizeof(sigset_t));
		if (rc < 0)
			continue;
		if (p[1].revents)
			signals_drain(r);
		reap_ended(r);
		if (p[0].revents && !r->target_reaped)
			command_read(r);
	}
	kill_all(r);
	if (r->caller_gone) {
		tmpdir_remove_raw(r);
		/* Empty now: the target joined it, the reaper never did. */
		if (r->cgroup[0])
			raw_syscall3(SYS_unlinkat, AT_FDCWD, r->cgroup, AT_REMOVEDIR);
	}
	reaper_send(r, REAPER_STATUS, r->target_status, -1);
	raw_exit(0);
	__builtin_unreachable();
}

/* ---- phase 1: the caller is blocked; the reaper sets the run up ---------- */

static _Noreturn void reaper_fail(const struct plan *plan, int step, int err, int index)
{
	struct child_failure f = { step, err, index };
	raw_syscall3(SYS_write, plan->status_fd, &f, sizeof f);
	raw_exit(125);
	__builtin_unreachable();
}

/*
 * A /proc of the run's own (tier T1 with a PID namespace): only the run's
 * processes are in it. A grant on /proc itself was made on the caller's
 * /proc; the same rights go to the new one.
 */
static int proc_mount(const struct plan *plan)
{
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		return -errno;
	if (!plan->proc_rights)
		return 0;
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = landlock_ruleset_add_fd(plan->landlock_fd, fd, plan->proc_rights);
	close(fd);
	return rc;
}

/*
 * Not instrumented either: a sanitizer would prepare for the calls that do
 * not return (on a stack it does not know) and warn on the caller's stderr.
 */
__attribute__((no_sanitize("address", "undefined"))) int reaper_main(void *arg)
{
	const struct plan *plan = arg;
	struct reaper r = {
		.socket = plan->reaper_socket,
		.status_fd = plan->status_fd,
		.sigchld_fd = -1,
		.target_pidfd = -1,
		.proc_self_fd = -1,
		.proc_fd = -1,
		.pid_namespace = plan->clone_namespaces & CLONE_NEWPID,
	};
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t chld;
	int index = -1, rc;

	raw_syscall1(SYS_close, plan->caller_socket);
	/* Its command line is the caller's (shared memory); its name says what it is. */
	prctl(PR_SET_NAME, "procage-reaper", 0, 0, 0);
	/* Every signal stays blocked in the reaper; SIGCHLD is read from a signalfd. */
	if (sigaction(SIGCHLD, &dfl, NULL) != 0)
		reaper_fail(plan, PROCAGE_STEP_REAPER, errno, -1);
	/*
	 * For finding our children later: opened now where masks will be laid
	 * in our mount namespace (one may cover /proc); elsewhere only if ever
	 * needed.
	 */
	if (!r.pid_namespace)
		r.self = (pid_t)raw_syscall0(SYS_getpid);
	if (!r.pid_namespace && plan->clone_namespaces) {
		r.proc_self_fd = open("/proc/thread-self", O_PATH | O_DIRECTORY | O_CLOEXEC);
		r.proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	for (size_t i = 0; plan->tmpdir && plan->tmpdir[i] && i + 1 < sizeof r.tmpdir; i++) {
		r.tmpdir[i] = plan->tmpdir[i];
		r.tmpdir[i + 1] = '\0';
	}
	for (size_t i = 0; plan->cgroup_dir && plan->cgroup_dir[i] && i + 1 < sizeof r.cgroup; i++) {
		r.cgroup[i] = plan->cgroup_dir[i];
		r.cgroup[i + 1] = '\0';
	}
	if (plan->clone_namespaces) {
		if ((rc = namespaces_id_maps_write(&plan->id_maps)) < 0)
			reaper_fail(plan, PROCAGE_STEP_ID_MAPS, -rc, -1);
		if ((rc = namespaces_mounts_private()) < 0)
			reaper_fail(plan, PROCAGE_STEP_MOUNTS, -rc, -1);
		if (plan->private_proc && (rc = proc_mount(plan)) < 0)
			reaper_fail(plan, PROCAGE_STEP_PROC, -rc, -1);
		if ((rc = namespaces_masks_apply(plan, &index)) < 0)
			reaper_fail(plan, PROCAGE_STEP_MOUNTS, -rc, index);
	}
	/* In the run's own network namespace, the one thing it can reach. */
	if (plan->proxy_port) {
		int listener = namespaces_proxy_listener(plan->proxy_port);
		if (listener < 0)
			reaper_fail(plan, PROCAGE_STEP_PROXY, -listener, -1);
		reaper_send(&r, REAPER_PROXY_LISTENER, 0, listener);
		close(listener);
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 || setsid() < 0)
		reaper_fail(plan, PROCAGE_STEP_REAPER, errno, -1);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	r.sigchld_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r.sigchld_fd < 0)
		reaper_fail(plan, PROCAGE_STEP_REAPER, errno, -1);
	/*
	 * With a memory limit the target does not share the caller's memory
	 * even until exec: out of memory in the run's cgroup, the kernel kills
	 * every process that shares the victim's memory, and the caller must
	 * not be one of them. It gets a copy (CLONE_VFORK without CLONE_VM).
	 */
	int shared = plan->cgroup_procs_fd >= 0 ? 0 : CLONE_VM;
	r.target = clone(child_main, plan->target_stack, shared | CLONE_VFORK | CLONE_PIDFD | SIGCHLD,
			 (void *)plan, &r.target_pidfd);
	if (r.target < 0)
		reaper_fail(plan, PROCAGE_STEP_START, errno, -1);
	/* The target has exec'd or failed; from here on, raw calls only. */
	reaper_supervise(&r);
}
