/*
 * Answering refused system calls (the broker's calls go to broker.c). The answer is the rule's errno (EPERM,
 * or EOPNOTSUPP for the extended attribute calls), never CONTINUE: whatever the caged process left in its memory could change
 * between our look and the kernel's, so nothing read there decides
 * anything; it is only described, marked untrusted. If this thread is gone,
 * the kernel fails the call (ENOSYS): a refused call never succeeds.
 */
#include "notify.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "broker.h"
#include "broker_meta.h"
#include "broker_net_wait.h"
#include "base/error.h"
#include "kernel/seccomp_programs.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* Read a NUL-terminated string the process points at, escaped for display. */
static void child_string(pid_t pid, uint64_t address, char *out, size_t size)
{
	char raw[256];
	struct iovec local = { raw, sizeof raw - 1 }, remote = { (void *)(uintptr_t)address,
								 sizeof raw - 1 };
	ssize_t n = address ? process_vm_readv(pid, &local, 1, &remote, 1, 0) : -1;
	if (n < 0) {
		snprintf(out, size, address ? "(unreadable)" : "NULL");
		return;
	}
	raw[n] = '\0';
	size_t o = 0;
	out[o++] = '"';
	for (size_t i = 0; raw[i] && o + 6 < size; i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	snprintf(out + o, size - o, "\" (untrusted)");
}

/*
 * The calls whose arguments name paths or file systems: which argument is
 * which string (by its name in the call's manual page) and which holds the
 * flags (-1: none). A wrong index names the wrong thing in a report, so
 * each row follows the call's signature.
 */
struct string_call {
	const char *call;
	const char *names[3];
	int strings[3]; /* argument indexes; -1 ends the list */
	int flags;
};

static const struct string_call string_calls[] = {
	/* mount(source, target, filesystemtype, mountflags, data) */
	{ "mount", { "source", "target", "type" }, { 0, 1, 2 }, 3 },
	/* umount2(target, flags), umount(target) */
	{ "umount2", { "target" }, { 0, -1 }, 1 },
	{ "umount", { "target" }, { 0, -1 }, -1 },
	/* pivot_root(new_root, put_old) */
	{ "pivot_root", { "new_root", "put_old" }, { 0, 1, -1 }, -1 },
	{ "chroot", { "path" }, { 0, -1 }, -1 },
	/* open_tree(dfd, filename, flags) */
	{ "open_tree", { "path" }, { 1, -1 }, 2 },
	/* move_mount(from_dfd, from_path, to_dfd, to_path, flags) */
	{ "move_mount", { "from", "to" }, { 1, 3, -1 }, 4 },
	/* fsopen(fsname, flags) */
	{ "fsopen", { "type" }, { 0, -1 }, 1 },
	/* mount_setattr(dfd, path, flags, attr, size) */
	{ "mount_setattr", { "path" }, { 1, -1 }, 2 },
	{ "acct", { "path" }, { 0, -1 }, -1 },
	/* swapon(path, swapflags), swapoff(path) */
	{ "swapon", { "path" }, { 0, -1 }, 1 },
	{ "swapoff", { "path" }, { 0, -1 }, -1 },
	{ "uselib", { "library" }, { 0, -1 }, -1 },
};

static const struct string_call *string_call_find(const char *call)
{
	for (size_t i = 0; i < sizeof string_calls / sizeof *string_calls; i++)
		if (strcmp(string_calls[i].call, call) == 0)
			return &string_calls[i];
	return NULL;
}

/* "name "text" (untrusted), ..., flags 0x..." within size. */
static void describe_strings(const struct seccomp_notif *n, const struct string_call *c,
			     char *out, size_t size)
{
	size_t o = 0;
	out[0] = '\0';
	for (int i = 0; i < 3 && c->strings[i] >= 0 && o < size; i++) {
		char text[120];
		child_string((pid_t)n->pid, n->data.args[c->strings[i]], text, sizeof text);
		o += (size_t)snprintf(out + o, size - o, "%s%s %s", i ? ", " : "", c->names[i],
				      text);
	}
	if (c->flags >= 0 && o < size)
		snprintf(out + o, size - o, ", flags 0x%llx",
			 (unsigned long long)n->data.args[c->flags]);
}

/*
 * The calls that change a file's metadata or name another process: the
 * path or descriptor, the mode or the attribute's name, the target pid.
 * False when call is none of them.
 */
static bool describe_target(const struct seccomp_notif *n, const char *call, char *out,
			    size_t size)
{
	const __u64 *a = n->data.args;
	char text[256];
	if (strcmp(call, "chmod") == 0 || strcmp(call, "fchmodat") == 0 ||
	    strcmp(call, "fchmodat2") == 0) {
		bool at = call[1] == 'c';
		child_string((pid_t)n->pid, a[at], text, sizeof text);
		snprintf(out, size, "%s, mode 0%llo", text, (unsigned long long)(a[at + 1] & 07777));
	} else if (strcmp(call, "fchmod") == 0) {
		snprintf(out, size, "fd %lld, mode 0%llo", (long long)(int)a[0],
			 (unsigned long long)(a[1] & 07777));
	} else if (strstr(call, "xattr")) {
		/* fsetxattr, fremovexattr: a descriptor; the *at forms: dirfd, path, flags, name. */
		bool fd = call[0] == 'f', at = strstr(call, "xattrat") != NULL;
		char name[96];
		child_string((pid_t)n->pid, a[at ? 1 : 0], text, sizeof text);
		child_string((pid_t)n->pid, a[at ? 3 : 1], name, sizeof name);
		if (fd)
			snprintf(out, size, "fd %lld, name %s", (long long)(int)a[0], name);
		else
			snprintf(out, size, "%s, name %s", text, name);
	} else if (strcmp(call, "setpriority") == 0 || strcmp(call, "ioprio_set") == 0) {
		snprintf(out, size, "which %lld, who %lld, value %lld", (long long)(int)a[0],
			 (long long)(int)a[1], (long long)(int)a[2]);
	} else if (strncmp(call, "sched_set", 9) == 0 || strcmp(call, "prlimit64") == 0 ||
		   strcmp(call, "migrate_pages") == 0 || strcmp(call, "move_pages") == 0) {
		snprintf(out, size, "pid %lld, 0x%llx, 0x%llx", (long long)(int)a[0],
			 (unsigned long long)a[1], (unsigned long long)a[2]);
	} else {
		return false;
	}
	return true;
}

static void describe(const struct seccomp_notif *n, const char *call, char *out, size_t size)
{
	const __u64 *a = n->data.args;
	const struct string_call *strings = string_call_find(call);
	if (describe_target(n, call, out, size))
		return;
	if (strings) {
		describe_strings(n, strings, out, size);
	} else if (strcmp(call, "socket") == 0 || strcmp(call, "socketcall") == 0) {
		snprintf(out, size, "family %llu, type 0x%llx, protocol %llu",
			 (unsigned long long)a[0], (unsigned long long)a[1], (unsigned long long)a[2]);
	} else if (strcmp(call, "ioctl") == 0) {
		snprintf(out, size, "fd %lld, request 0x%llx", (long long)(int)a[0],
			 (unsigned long long)(uint32_t)a[1]);
	} else if (strcmp(call, "unshare") == 0 || strcmp(call, "clone") == 0 ||
		   strcmp(call, "setns") == 0) {
		snprintf(out, size, "flags 0x%llx", (unsigned long long)a[strcmp(call, "setns") == 0]);
	} else {
		snprintf(out, size, "0x%llx, 0x%llx, 0x%llx, 0x%llx", (unsigned long long)a[0],
			 (unsigned long long)a[1], (unsigned long long)a[2],
			 (unsigned long long)a[3]);
	}
}

/*
 * Is n the broker's entry or listing call? Of the calls handed over, the
 * observe variants add the opens that neither write nor open a directory,
 * which the broker never takes (a directory's is a listing it may serve).
 */
static bool broker_takes(const struct seccomp_notif *n, const char *call)
{
	if (!notify_call_brokered(n->data.arch, n->data.nr))
		return false;
	if (strcmp(call, "open") == 0 || strcmp(call, "openat") == 0) {
		uint32_t flags = (uint32_t)n->data.args[strcmp(call, "open") == 0 ? 1 : 2];
		return (flags & (seccomp_broker_open_flag_mask | O_DIRECTORY)) != 0;
	}
	return true;
}

/*
 * An observed call the broker does not take goes on: the filter without
 * the observation allows it, and the observer only looked (observe.c).
 */
static void answer_continue(struct notify_supervisor *s, const struct seccomp_notif *n)
{
	struct seccomp_notif_resp r;
	memset(&r, 0, sizeof r);
	r.id = n->id;
	r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
}

static void answer_one(struct notify_supervisor *s)
{
	struct seccomp_notif n;
	struct seccomp_notif_resp r;
	char args[384];

	memset(&n, 0, sizeof n);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0)
		return; /* ENOENT: the caller was killed meanwhile */
	const char *call = notify_call_name(n.data.arch, n.data.nr);
	/*
	 * A read of the caller's own /proc entries, one of the run's own
	 * semaphores or terminals: served, so never explained.
	 */
	if (broker_proc_answer(s->broker, s->listener, &n, call) ||
	    broker_shm_answer(s->broker, s->listener, &n, call) ||
	    broker_pty_answer(s->broker, s->listener, &n, call))
		return;
	bool observed = s->observe.rules && observe_call_known(call) &&
			notify_call_brokered(n.data.arch, n.data.nr);
	if (observed)
		observe_judge(&s->observe, &n, call);
	if (s->broker && (broker_takes(&n, call) || broker_meta_wants(s->broker, &n, call))) {
		broker_answer(s->broker, s->listener, &n, call);
		return;
	}
	/*
	 * A call sent only for the caller's own /proc entries and the run's
	 * own semaphores, and neither: the kernel goes on with it under
	 * Landlock.
	 */
	if (observed || broker_proc_sent(s->broker, call)) {
		answer_continue(s, &n);
		return;
	}
	observe_refused(&s->observe, &n, call);
	describe(&n, call, args, sizeof args);
	/* Our reading is only reported when the caller still waits for us. */
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n.id) != 0)
		snprintf(args, sizeof args, "(the process ended before its arguments were read)");
	memset(&r, 0, sizeof r);
	r.id = n.id;
	r.error = -notify_call_errno(n.data.arch, n.data.nr);
	(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
	report_store_add(s->store, call, args, (pid_t)n.pid);
}

/* Milliseconds from now to deadline (-1: none), for poll. */
static int poll_timeout(long long deadline)
{
	if (deadline < 0)
		return -1;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	long long left = deadline - (t.tv_sec * 1000LL + t.tv_nsec / 1000000);
	return left <= 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

/*
 * The one place the thread waits: on the listener, the stop pipe and
 * the sockets of the broker's parked calls together, so that a stop is
 * seen at once whatever the cage does, and no call waits on another.
 */
static void *supervise(void *arg)
{
	struct notify_supervisor *s = arg;
	struct pollfd fds[2 + BROKER_WAITS_MAX];
	for (;;) {
		long long deadline = -1;
		fds[0] = (struct pollfd){s->listener, POLLIN, 0};
		fds[1] = (struct pollfd){s->stop_pipe[0], POLLIN, 0};
		int parked = s->broker ? broker_poll_fds(s->broker, fds + 2, &deadline) : 0;
		if (poll(fds, (nfds_t)(2 + parked), poll_timeout(deadline)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[1].revents)
			break;
		if (parked)
			broker_poll_resume(s->broker, s->listener, fds + 2, parked);
		if (fds[0].revents & POLLIN) {
			answer_one(s);
			continue;
		}
		/* POLLHUP: every process under the filter is gone. */
		if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
	}
	return NULL;
}

int notify_start(struct notify_supervisor *s, int listener, struct report_store *store,
		 struct broker *broker, const struct observe_context *observe,
		 struct procage_error *err)
{
	sigset_t all, saved;
	memset(s, 0, sizeof *s);
	if (observe)
		s->observe = *observe;
	s->listener = listener;
	s->store = store;
	s->broker = broker;
	/*
	 * A brokered call is a round trip the caller waits on: the kernel
	 * then switches straight between it and this thread instead of
	 * waking it through the scheduler (Linux 6.6; older kernels refuse
	 * the flag, and the calls only take longer).
	 */
	if (broker || s->observe.rules)
		(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			    (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	if (pipe2(s->stop_pipe, O_CLOEXEC) != 0) {
		close(listener);
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "starting the supervisor");
	}
	/* The caller's signal handlers stay on the caller's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	int rc = pthread_create(&s->thread, NULL, supervise, s);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (rc != 0) {
		close(listener);
		close(s->stop_pipe[0]);
		close(s->stop_pipe[1]);
		return error_set_sys(err, rc, PROCAGE_STEP_NONE, "starting the supervisor thread");
	}
	s->started = true;
	return 0;
}

bool notify_stop(struct notify_supervisor *s)
{
	if (!s->started)
		return true;
	(void)!write(s->stop_pipe[1], "", 1);
	/*
	 * The thread sees the stop at its next poll, and never waits
	 * elsewhere longer than a system call on the broker's own
	 * descriptors takes. Should it still not end (a kernel wait we did
	 * not foresee), it is left running with everything it uses, rather
	 * than have the run never end.
	 */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += NOTIFY_STOP_WAIT_S;
	if (pthread_timedjoin_np(s->thread, NULL, &until) != 0) {
		pthread_detach(s->thread);
		s->started = false;
		return false;
	}
	close(s->listener);
	close(s->stop_pipe[0]);
	close(s->stop_pipe[1]);
	s->started = false;
	return true;
}

static const struct seccomp_call_name *call_row(uint32_t arch, int nr)
{
	for (unsigned i = 0; i < seccomp_n_call_names; i++)
		if (seccomp_call_names[i].arch == arch && seccomp_call_names[i].nr == nr)
			return &seccomp_call_names[i];
	return NULL;
}

const char *notify_call_name(uint32_t arch, int nr)
{
	const struct seccomp_call_name *row = call_row(arch, nr);
	return row ? row->name : "unknown";
}

bool notify_call_brokered(uint32_t arch, int nr)
{
	const struct seccomp_call_name *row = call_row(arch, nr);
	return row && row->err == 0;
}

int notify_call_errno(uint32_t arch, int nr)
{
	const struct seccomp_call_name *row = call_row(arch, nr);
	/* A call the table lacks is refused all the same. */
	return row && row->err > 0 ? row->err : EPERM;
}
