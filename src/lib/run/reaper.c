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
 *  2. From the moment it writes the started byte on the status pipe and
 *     closes its copy of the write end, the caller runs again, so the
 *     reaper makes only raw system calls (raw_syscall.h) and reads only
 *     its own stack: it waits for the target, the caller's commands, and
 *     the caller's end: EOF on the run's socket (close-on-exec in the
 *     caller) or the caller's pidfd readable, which a process the caller
 *     forked with a copy of the socket's end cannot delay. When the
 *     target ends it kills every process left, reports the target's wait
 *     status and exits. If the caller is
 *     gone it also removes the run's private temporary directory, which
 *     the caller would have removed.
 *
 * Processes are only ever signalled through a pidfd, or by pid while they
 * are the reaper's own unreaped children, whose pids cannot be reused.
 */
#include "reaper.h"
#include "capture_setup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <linux/netlink.h>
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

#include "base/error.h"
#include "host/id_maps.h"
#include "kernel/landlock.h"
#include "plan/cgroup_view.h"
#include "plan/namespaces.h"
#include "plan/proc_masks.h"
#include "base/raw_syscall.h"
#include "reaper_raw.h"
#include "base/syscalls.h"

/* ---- phase 2: raw system calls only (reaper_raw.h) ---------------------- */

static REAPER_RAW void raw_exit(int code)
{
	for (;;)
		raw_syscall1(SYS_exit_group, code);
}

/* The caller is gone: so is the run. */
static REAPER_RAW void caller_lost(struct reaper *r)
{
	r->caller_gone = true;
	if (r->target_pidfd >= 0)
		reaper_pidfd_kill(r->target_pidfd, SIGKILL);
}

/* Written out field by field: a raw function may not call memset or memcpy. */
REAPER_RAW void reaper_outgoing_fill(struct reaper_outgoing *o, int kind, int value, int fd)
{
	o->m.kind = kind;
	o->m.value = value;
	o->iov.iov_base = &o->m;
	o->iov.iov_len = sizeof o->m;
	o->mh.msg_name = NULL;
	o->mh.msg_namelen = 0;
	o->mh.msg_iov = &o->iov;
	o->mh.msg_iovlen = 1;
	o->mh.msg_control = NULL;
	o->mh.msg_controllen = 0;
	o->mh.msg_flags = 0;
	if (fd >= 0) {
		struct cmsghdr *c = &o->control.align;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		*(int *)(void *)CMSG_DATA(c) = fd;
		o->mh.msg_control = o->control.buf;
		o->mh.msg_controllen = sizeof o->control.buf;
	}
}

static REAPER_RAW void reaper_send(struct reaper *r, int kind, int value, int fd)
{
	struct reaper_outgoing o;
	if (r->caller_gone)
		return;
	reaper_outgoing_fill(&o, kind, value, fd);
	/* A caller that cannot be told is gone (or about to be): the run ends. */
	if (raw_syscall3(SYS_sendmsg, r->socket, &o.mh, MSG_NOSIGNAL) < 0)
		caller_lost(r);
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
		reaper_pidfd_kill(r->target_pidfd, sig);
}

static REAPER_RAW void command_read(struct reaper *r)
{
	struct reaper_message m;
	long n = raw_syscall4(SYS_recvfrom, r->socket, &m, sizeof m, MSG_DONTWAIT);
	if (n == -EAGAIN || n == -EINTR)
		return;
	if (n <= 0) {
		caller_lost(r);
		return;
	}
	if (n != (long)sizeof m)
		return;
	if (m.kind == REAPER_SIGNAL)
		forward_signal(r, m.value);
	else if (m.kind == REAPER_KILL)
		reaper_pidfd_kill(r->target_pidfd, SIGKILL);
}

/*
 * The relay asks for a socket of the run's network namespace: one TCP
 * socket, unconnected, per request, or the errno that refused it. The
 * caller's end closed: no more requests.
 */
static REAPER_RAW void factory_serve(struct reaper *r)
{
	struct reaper_message m;
	struct reaper_outgoing o;
	long n = raw_syscall4(SYS_recvfrom, r->factory_fd, &m, sizeof m, MSG_DONTWAIT);
	if (n == -EAGAIN || n == -EINTR)
		return;
	if (n <= 0) {
		raw_syscall1(SYS_close, r->factory_fd);
		r->factory_fd = -1;
		return;
	}
	if (n != (long)sizeof m || m.kind != REAPER_PUBLISH_SOCKET)
		return;
	long fd = raw_syscall3(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	reaper_outgoing_fill(&o, REAPER_PUBLISH_SOCKET, fd < 0 ? (int)fd : 0, fd < 0 ? -1 : (int)fd);
	raw_syscall3(SYS_sendmsg, r->factory_fd, &o.mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (fd >= 0)
		raw_syscall1(SYS_close, fd);
}

static REAPER_RAW void signals_drain(struct reaper *r)
{
	char buf[sizeof(struct signalfd_siginfo) * 8];
	while (raw_syscall3(SYS_read, r->sigchld_fd, buf, sizeof buf) > 0)
		;
}

/*
 * Commands the caller sent that the reaper will not read: read them now.
 * A socket closed with unread data makes the caller's next receive fail
 * with ECONNRESET, which would hide the report that follows.
 */
static REAPER_RAW void commands_discard(struct reaper *r)
{
	struct reaper_message m;
	for (int i = 0; i < 4096 && !r->caller_gone; i++)
		if (raw_syscall4(SYS_recvfrom, r->socket, &m, sizeof m, MSG_DONTWAIT) <= 0)
			break;
}

/* Every process of the run has ended: remove the run's temporary directory. */
static REAPER_RAW void tmpdir_remove_raw(struct reaper *r)
{
	if (r->tmpdir_fd < 0)
		return;
	struct stat st;
	int rc = -EBADF;
	if (raw_syscall2(SYS_fstat, r->tmpdir_fd, &st) == 0)
		rc = tree_empty_raw(r->tmpdir_fd, (unsigned long long)st.st_dev);
	raw_syscall1(SYS_close, r->tmpdir_fd);
	r->tmpdir_fd = -1;
	if (rc == 0)
		rc = (int)raw_syscall3(SYS_unlinkat, r->tmp_base_fd, r->tmpdir_name, AT_REMOVEDIR);
	r->tmpdir_left = rc;
}

/* Close every descriptor but the reaper's own, so it holds nothing of the caller's. */
static REAPER_RAW void close_others(struct reaper *r)
{
	int keep[] = { r->socket,	  r->sigchld_fd,     r->target_pidfd, r->children_fd,
		       r->proc_fd,	  r->cgroup_kill_fd, r->tmp_base_fd,  r->tmpdir_fd,
		       r->cgroup_parent_fd, r->factory_fd,   r->caller_pidfd };
	const int n = (int)(sizeof keep / sizeof *keep);
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
	/*
	 * The caller runs again on this byte (plan.h); after a step's failure
	 * record it is never read.
	 */
	const char started = STATUS_STARTED;
	raw_syscall3(SYS_write, r->status_fd, &started, 1);
	raw_syscall1(SYS_close, r->status_fd);
	r->status_fd = -1;
	close_others(r);
	/* Gone before it could be told (or even during the setup): no run. */
	if (r->caller_gone)
		reaper_pidfd_kill(r->target_pidfd, SIGKILL);

	while (!r->target_reaped) {
		struct pollfd p[4];
		p[0].fd = r->caller_gone ? -1 : r->socket;
		p[0].events = POLLIN;
		p[0].revents = 0;
		p[1].fd = r->sigchld_fd;
		p[1].events = POLLIN;
		p[1].revents = 0;
		p[2].fd = r->factory_fd;
		p[2].events = POLLIN;
		p[2].revents = 0;
		/* The caller ended, whoever else holds its end of the socket. */
		p[3].fd = r->caller_gone ? -1 : r->caller_pidfd;
		p[3].events = POLLIN;
		p[3].revents = 0;
		long rc = raw_syscall5(SYS_ppoll, p, 4, NULL, NULL, sizeof(sigset_t));
		if (rc == -EINTR)
			continue;
		if (rc < 0) {
			/*
			 * The run lowered our descriptor limit below what poll
			 * takes (EINVAL): look at both every 20 ms instead.
			 */
			struct timespec t = { 0, 20 * 1000 * 1000 };
			raw_syscall2(SYS_nanosleep, &t, NULL);
			p[0].revents = p[1].revents = POLLIN;
			p[2].revents = r->factory_fd >= 0 ? POLLIN : 0;
			/* One descriptor is under any limit: the caller's pidfd asked alone. */
			struct timespec now = { 0, 0 };
			if (r->caller_gone ||
			    raw_syscall5(SYS_ppoll, &p[3], 1, &now, NULL, sizeof(sigset_t)) != 1)
				p[3].revents = 0;
		}
		if (p[3].revents && !r->caller_gone)
			caller_lost(r);
		if (p[2].revents && r->factory_fd >= 0)
			factory_serve(r);
		if (p[1].revents)
			signals_drain(r);
		reaper_reap_ended(r);
		if (p[0].revents && !r->target_reaped && !r->caller_gone)
			command_read(r);
	}
	reaper_kill_all(r);
	if (!r->lost)
		tmpdir_remove_raw(r);
	/* Empty now: the target joined it, the reaper never did. */
	if (r->caller_gone && r->cgroup_parent_fd >= 0 && !r->lost)
		raw_syscall3(SYS_unlinkat, r->cgroup_parent_fd, r->cgroup_name, AT_REMOVEDIR);
	commands_discard(r);
	if (r->lost)
		reaper_send(r, REAPER_LOST, 0, -1);
	if (r->tmpdir_left)
		reaper_send(r, REAPER_TMPDIR_LEFT, r->tmpdir_left, -1);
	reaper_send(r, REAPER_STATUS, r->target_status, -1);
	raw_exit(0);
	__builtin_unreachable();
}

/* ---- phase 1: the caller is blocked; the reaper sets the run up ---------- */

/* A step failed: nothing of the run is left, and the caller reads why. */
static _Noreturn void reaper_fail(const struct reaper_start *start, struct reaper *r, int step,
				  int err, int index)
{
	struct child_failure f = { step, err, index };
	if (r->tmpdir_fd >= 0)
		tmpdir_remove_raw(r);
	raw_syscall3(SYS_write, start->plan->status_fd, &f, sizeof f);
	raw_exit(125);
	__builtin_unreachable();
}

/*
 * A rule of this run's own. Never on the cage's ruleset, which every later
 * run of the cage enforces: the plan gives a ruleset per run when it
 * expects one (plan_ruleset), and anything else is a mistake refused here.
 */
static int run_rule_add(const struct plan *plan, int path_fd, uint64_t rights)
{
	if (!plan->landlock_per_run)
		return -EPERM;
	return landlock_ruleset_add_fd(plan->landlock_fd, path_fd, rights);
}

/*
 * A /proc of the run's own (tier T1 with a PID namespace): only the run's
 * processes are in it, and what in it is the host's and no process of the
 * run should read or write is masked (plan/proc_masks.c) before anything
 * grants it; a mask that cannot be laid fails the run, *index naming it.
 * A grant on /proc itself was made on the caller's /proc; the same rights
 * go to the new one.
 */
static int proc_mount(const struct plan *plan, int mask_source, int *index)
{
	*index = -1;
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		return -errno;
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = proc_masks_apply(fd, mask_source, index);
	if (rc == 0 && plan->proc_rights)
		rc = run_rule_add(plan, fd, plan->proc_rights);
	close(fd);
	return rc;
}

/*
 * The run's private temporary directory is made here, by the reaper, and
 * removed by it whatever happens: a caller killed at any moment of the
 * spawn leaves none behind (before the reaper exists there is none, after
 * it the reaper removes it). Made once the id maps are written (its owner
 * is the caller) and before the mounts (opened on the host's tree); the
 * target is granted it here, as the caller grants the rest.
 */
static int tmpdir_make(const struct reaper_start *start, struct reaper *r)
{
	struct stat st;
	size_t i = 0;
	for (; start->tmp_name[i] && i < NAME_MAX; i++)
		r->tmpdir_name[i] = start->tmp_name[i];
	r->tmpdir_name[i] = '\0';
	r->tmp_base_fd = open(start->tmp_base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->tmp_base_fd < 0 || mkdirat(r->tmp_base_fd, r->tmpdir_name, 0700) != 0)
		return -errno;
	r->tmpdir_fd = openat(r->tmp_base_fd, r->tmpdir_name,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->tmpdir_fd < 0) {
		int e = errno;
		unlinkat(r->tmp_base_fd, r->tmpdir_name, AT_REMOVEDIR);
		return -e;
	}
	if (fstat(r->tmpdir_fd, &st) != 0)
		return -errno;
	return run_rule_add(start->plan, r->tmpdir_fd, start->tmp_rights);
}

/*
 * What ending the run needs, opened while the target does not run yet
 * (it may lower the reaper's descriptor limit later), and where masks
 * will be laid in our mount namespace (one may cover /proc).
 */
static void kill_means_open(const struct plan *plan, struct reaper *r)
{
	if (!r->pid_namespace) {
		r->self = (pid_t)raw_syscall0(SYS_getpid);
		r->children_fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
		r->proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	for (size_t i = 0; plan->cgroup_dir && plan->cgroup_dir[i] && i + 1 < sizeof r->cgroup; i++) {
		r->cgroup[i] = plan->cgroup_dir[i];
		r->cgroup[i + 1] = '\0';
	}
	if (r->cgroup[0]) {
		char path[PATH_MAX + 16];
		snprintf(path, sizeof path, "%s/cgroup.kill", r->cgroup);
		r->cgroup_kill_fd = open(path, O_WRONLY | O_CLOEXEC);
		char *slash = strrchr(r->cgroup, '/');
		if (slash && slash != r->cgroup) {
			*slash = '\0';
			r->cgroup_parent_fd = open(r->cgroup, O_PATH | O_DIRECTORY | O_CLOEXEC);
			*slash = '/';
			r->cgroup_name = slash + 1;
		}
	}
}

/*
 * Tier T1, changes as an overlay: each overlay over its grant, granted
 * the grant's rights on its own root (Landlock's rule on the tree below
 * does not reach into the overlay), then the store masked. Before the
 * masks, which then lie over what the overlays show. A bounded change
 * set's upper layers lie in a tmpfs made here, in the run's user
 * namespace, and handed to the caller, which copies them into the store
 * when the run ends; none of the run's processes keeps a descriptor of it.
 */
static int overlays_lay(const struct plan *plan, struct reaper *r, int *index)
{
	int layers = -1, rc = 0;
	*index = PLAN_OVERLAY_INDEX(0);
	if (plan->changes_limit && (layers = plan_changes_layers_make(plan->changes_limit)) < 0)
		return layers;
	for (size_t i = 0; rc == 0 && i < plan->n_overlays; i++) {
		*index = PLAN_OVERLAY_INDEX(i);
		int mnt = plan_overlay_mount(&plan->overlays[i], layers, i);
		if (mnt < 0) {
			rc = mnt;
			break;
		}
		rc = run_rule_add(plan, mnt, plan->overlays[i].rights);
		close(mnt);
	}
	if (layers >= 0) {
		if (rc == 0)
			reaper_send(r, REAPER_CHANGES_LAYERS, 0, layers);
		close(layers);
	}
	if (rc < 0)
		return rc;
	*index = PLAN_OVERLAY_INDEX(plan->n_overlays);
	return plan_changes_store_mask(plan->changes_store, plan->changes_store_fd);
}

/*
 * Tier T1: the run's private temporary directory (and shared memory), a
 * tmpfs laid over path after the masks (one may lie below it), granted
 * here as the caller grants the rest. It lives as long as the run's mount
 * namespace: nothing is left to remove, whatever ends the run.
 */
static int tmp_mount_make(const struct reaper_start *start, const char *path)
{
	int mnt = namespaces_private_tmp_mount(path);
	if (mnt < 0)
		return mnt;
	int rc = run_rule_add(start->plan, mnt, start->tmp_rights);
	close(mnt);
	return rc;
}

/* Has the caller ended, or closed its end of the run's socket? */
static bool caller_closed(const struct reaper *r)
{
	struct pollfd p[2] = { { r->socket, POLLIN, 0 }, { r->caller_pidfd, POLLIN, 0 } };
	return poll(p, 2, 0) > 0 && ((p[0].revents & (POLLHUP | POLLERR)) || p[1].revents);
}

/* Transparent egress: the run's resolver files and the sockets the proxy serves. */
static void capture_setup(const struct reaper_start *start, struct reaper *r)
{
	int fds[PLAN_CAPTURE_PORTS + 1], rc;
	size_t n = 0;

	/*
	 * Without its files the run keeps the host's resolver, which its
	 * namespace cannot reach: programs that ignore the proxy settings
	 * then find no name, as without capture, and the rest is unchanged.
	 */
	(void)capture_files_lay();
	if ((rc = capture_sockets_make(start->plan, fds, &n)) < 0)
		reaper_fail(start, r, PROCAGE_STEP_PROXY, -rc, -1);
	for (size_t i = 0; i < n; i++) {
		reaper_send(r, REAPER_CAPTURE_SOCKET, 0, fds[i]);
		close(fds[i]);
	}
}

/* Namespaces, the temporary directory, mounts, the proxy's listener. */
static void reaper_setup(const struct reaper_start *start, struct reaper *r)
{
	const struct plan *plan = start->plan;
	int index = -1, rc;

	if (plan->clone_namespaces && !start->userns_entered &&
	    (rc = id_maps_write(&plan->id_maps, 0)) < 0)
		reaper_fail(start, r, PROCAGE_STEP_ID_MAPS, -rc, -1);
	if (start->tmp_name && (rc = tmpdir_make(start, r)) < 0)
		reaper_fail(start, r, PROCAGE_STEP_PREPARE, -rc, -1);
	kill_means_open(plan, r);
	if (plan->clone_namespaces) {
		if ((rc = namespaces_mounts_private()) < 0 ||
		    (rc = namespaces_root_private_attach(plan)) < 0)
			reaper_fail(start, r, PROCAGE_STEP_MOUNTS, -rc, -1);
		if (plan->changes_store && (rc = overlays_lay(plan, r, &index)) < 0)
			reaper_fail(start, r, PROCAGE_STEP_MOUNTS, -rc, index);
		if ((plan->private_proc || plan->n_mounts || plan->cgroup_views.n) &&
		    (r->mask_source = namespaces_mask_source_create()) < 0)
			reaper_fail(start, r, PROCAGE_STEP_MOUNTS, -r->mask_source, -1);
		if (plan->private_proc && (rc = proc_mount(plan, r->mask_source, &index)) < 0)
			reaper_fail(start, r, PROCAGE_STEP_PROC, -rc, index);
		if ((rc = namespaces_masks_apply(plan, r->mask_source, &index)) < 0)
			reaper_fail(start, r, PROCAGE_STEP_MOUNTS, -rc, index);
		if ((rc = cgroup_views_lay(&plan->cgroup_views, r->mask_source,
					   plan->landlock_per_run ? plan->landlock_fd : -1,
					   (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR) &
						   start->tmp_rights,
					   &index)) < 0)
			reaper_fail(start, r, PROCAGE_STEP_CGROUP, -rc, index);
		if ((start->tmp_mount && (rc = tmp_mount_make(start, start->tmp_mount)) < 0) ||
		    (start->shm_mount && (rc = tmp_mount_make(start, start->shm_mount)) < 0) ||
		    (start->pts_dir &&
		     (rc = namespaces_private_pts_lay(
			      start->pts_dir, start->pts_ptmx,
			      plan->landlock_per_run ? plan->landlock_fd : -1, start->tmp_rights)) < 0))
			reaper_fail(start, r, PROCAGE_STEP_MOUNTS, -rc, -1);
		/*
		 * Last, once nothing more is mounted. A run with a cgroup keeps
		 * a writable view here to remove its directory should the caller
		 * be gone: its target makes its own read-only copy (child.c).
		 */
		if (plan->read_only_mounts && !plan->cgroup_dir) {
			if ((rc = namespaces_read_only_apply(plan, false, &index)) < 0)
				reaper_fail(start, r, PROCAGE_STEP_MOUNTS, -rc, -1);
			start->plan->read_only_by_reaper = true;
		}
	}
	if (plan->loopback_up && (rc = namespaces_loopback_up()) < 0)
		reaper_fail(start, r, PROCAGE_STEP_NAMESPACES, -rc, -1);
	/*
	 * Made here, in the run's own network namespace: the broker lists
	 * through it the sockets the run bound itself (broker_unix.c).
	 */
	if (plan->unix_diag) {
		int diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
		if (diag < 0)
			reaper_fail(start, r, PROCAGE_STEP_NAMESPACES, errno, -1);
		reaper_send(r, REAPER_UNIX_DIAG, 0, diag);
		close(diag);
	}
	/*
	 * Published ports: the caller's relay connects into this namespace
	 * with sockets made here, one per connection (publish.c).
	 */
	if (plan->publish_factory) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
			reaper_fail(start, r, PROCAGE_STEP_NAMESPACES, errno, -1);
		reaper_send(r, REAPER_PUBLISH_FACTORY, 0, sv[0]);
		close(sv[0]);
		r->factory_fd = sv[1];
	}
	/* In the run's own network namespace, the one thing it can reach. */
	if (plan->proxy_port) {
		int listener = namespaces_proxy_listener(plan->proxy_port);
		if (listener < 0)
			reaper_fail(start, r, PROCAGE_STEP_PROXY, -listener, -1);
		reaper_send(r, REAPER_PROXY_LISTENER, 0, listener);
		close(listener);
	}
	if (plan->capture)
		capture_setup(start, r);
}

/*
 * Not instrumented either: a sanitizer would prepare for the calls that do
 * not return (on a stack it does not know) and warn on the caller's stderr.
 *
 * /proc/PID/cmdline of the reaper shows the caller's command line: it
 * reads the memory it shares with the caller, which PR_SET_MM would change
 * for the caller too (and needs CAP_SYS_RESOURCE). Its name (comm) says
 * what it is; docs/lifetime.md says the rest.
 */
__attribute__((no_sanitize("address", "undefined"))) int reaper_main(void *arg)
{
	const struct reaper_start *start = arg;
	const struct plan *plan = start->plan;
	struct reaper r = {
		.socket = plan->reaper_socket,
		.caller_pidfd = plan->caller_pidfd,
		.status_fd = plan->status_fd,
		.sigchld_fd = -1,
		.target_pidfd = -1,
		.children_fd = -1,
		.proc_fd = -1,
		.cgroup_kill_fd = -1,
		.cgroup_parent_fd = -1,
		.factory_fd = -1,
		.tmp_base_fd = -1,
		.tmpdir_fd = -1,
		.mask_source = -1,
		.pid_namespace = plan->clone_namespaces & CLONE_NEWPID,
	};
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t chld;

	raw_syscall1(SYS_close, plan->caller_socket);
	/*
	 * The hard-link check's verdict is the caller's to write: with no
	 * copy of its end here, nor in the target cloned next, a caller that
	 * dies first leaves the target end of file, never a wait forever.
	 * The number is the caller's end until the spawn returns, so it is
	 * that end's copy that goes.
	 */
	if (plan->exec_gate_write_fd >= 0)
		raw_syscall1(SYS_close, plan->exec_gate_write_fd);
	prctl(PR_SET_NAME, "procage-reaper", 0, 0, 0);
	/* Every signal stays blocked in the reaper; SIGCHLD is read from a signalfd. */
	if (sigaction(SIGCHLD, &dfl, NULL) != 0)
		reaper_fail(start, &r, PROCAGE_STEP_REAPER, errno, -1);
	reaper_setup(start, &r);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 || setsid() < 0)
		reaper_fail(start, &r, PROCAGE_STEP_REAPER, errno, -1);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	r.sigchld_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r.sigchld_fd < 0)
		reaper_fail(start, &r, PROCAGE_STEP_REAPER, errno, -1);
	/* The caller died during the setup: the target never starts. */
	if (caller_closed(&r))
		reaper_fail(start, &r, PROCAGE_STEP_REAPER, EPIPE, -1);
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
		reaper_fail(start, &r, PROCAGE_STEP_START, errno, -1);
	/*
	 * The target has exec'd or failed; from here on, raw calls only.
	 * Closing the masks' source unmounts it, which waits for a grace
	 * period of the kernel's: here the target no longer waits for it.
	 */
	if (r.mask_source >= 0)
		raw_syscall1(SYS_close, r.mask_source);
	r.mask_source = -1;
	reaper_supervise(&r);
}
