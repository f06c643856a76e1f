/*
 * The target's side of a spawn. It is cloned by the run's reaper (reaper.c)
 * with CLONE_VM | CLONE_VFORK and so shares the caller's memory until exec:
 * it allocates nothing, formats nothing and takes no lock; every step is
 * system calls over the plan. The steps run in a fixed order, each
 * narrowing what the next may do, and seccomp comes last because its
 * filter would refuse the earlier steps' calls. A failing step writes one
 * record on the status pipe and exits; the target never runs. exec mode
 * (exec.c) runs the same steps in the calling process.
 */
#include "plan/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/securebits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kernel/landlock.h"
#include "plan/namespaces.h"
#include "hardlinks_gate.h"
#include "reaper.h"
#include "kernel/seccomp.h"
#include "base/syscalls.h"

static _Noreturn void child_fail(const struct plan *plan, int step, int err, int index)
{
	struct child_failure f = { step, err, index };
	(void)!write(plan->status_fd, &f, sizeof f);
	_exit(125);
}

/*
 * The parent blocked every signal around clone so that none of its
 * handlers runs on the shared memory. Caught signals go back to their
 * default (exec would do it too, but a signal may arrive before exec);
 * ignored ones stay ignored, as exec keeps them. Nothing stays blocked.
 */
static int step_prepare(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	sigset_t none;

	for (int sig = 1; sig < _NSIG; sig++)
		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_DFL &&
		    old.sa_handler != SIG_IGN)
			(void)sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	return sigprocmask(SIG_SETMASK, &none, NULL) == 0 ? 0 : -errno;
}

static int step_rlimits(const struct plan *plan, int *index)
{
	for (size_t i = 0; i < plan->n_rlimits; i++) {
		*index = (int)i;
		if (setrlimit(plan->rlimits[i].resource, &plan->rlimits[i].limit) != 0)
			return -errno;
	}
	return 0;
}

/*
 * The working directory is entered after the mounts, by its canonical
 * path and without following a link: one inherited from before them would
 * lie under the masks, where relative paths reach what they cover.
 */
/*
 * A change set's start mark (changes/overlays.c) is a fine stamp; a file
 * system without fine stamps may give a change made just after it the
 * coarse time of the tick before. Where the parent could not show that
 * every tree's file system already stamps at or after the mark, nothing
 * of the command runs until the coarse clock has passed it, so every
 * change the run could see is stamped later.
 */
static void step_start_mark_passed(const struct plan *plan)
{
	const struct timespec *mark = &plan->changes_started;
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 250 * 1000 };
	if (plan->n_overlays == 0 || !plan->changes_mark_wait)
		return;
	for (;;) {
		struct timespec now;
		if (syscall(SYS_clock_gettime, CLOCK_REALTIME_COARSE, &now) != 0)
			return; /* no clock: the coarse stamps cannot be compared either */
		if (now.tv_sec > mark->tv_sec ||
		    (now.tv_sec == mark->tv_sec && now.tv_nsec > mark->tv_nsec))
			return;
		syscall(SYS_nanosleep, &pause, NULL);
	}
}

/*
 * The hard-link check ran beside the setup (run/hardlinks_gate.h): nothing
 * of the command runs before its verdict, and only GATE_PASS lets it. A
 * caller that ended first wrote none, and no one is left to write it.
 */
static int step_exec_gate(const struct plan *plan)
{
	char verdict = 0;
	ssize_t n = 0;
	int rc = 0;
	if (plan->exec_gate_fd < 0)
		return 0;
	struct pollfd wait[2] = { { plan->exec_gate_fd, POLLIN, 0 },
				  { plan->caller_pidfd, POLLIN, 0 } };
	do
		rc = poll(wait, 2, -1) < 0 ? -errno : 0;
	while (rc == -EINTR);
	if (rc == 0 && wait[0].revents) {
		do
			n = read(plan->exec_gate_fd, &verdict, 1);
		while (n < 0 && errno == EINTR);
		rc = n < 0 ? -errno : 0;
	}
	close(plan->exec_gate_fd);
	if (rc == 0 && (n != 1 || verdict != GATE_PASS))
		rc = -EMLINK;
	return rc;
}

static int step_cwd(const struct plan *plan)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = sys_openat2(AT_FDCWD, plan->cwd, &how);
	if (fd < 0)
		return -errno;
	int rc = fchdir(fd) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

/*
 * Only 0, 1, 2 and the mapped descriptors survive exec. Sources are
 * first copied above every target so that a mapping cannot overwrite the
 * source of another; then everything from 3 up is marked close-on-exec,
 * which keeps the plan's own descriptors usable until exec.
 */
static int step_fds(const struct plan *plan, int *index)
{
	int scratch[PLAN_MAX_FDS];

	for (size_t i = 0; i < plan->n_fds; i++) {
		*index = (int)i;
		scratch[i] = fcntl(plan->fds[i].parent_fd, F_DUPFD_CLOEXEC, plan->fd_scratch_base);
		if (scratch[i] < 0)
			return -errno;
	}
	for (size_t i = 0; i < plan->n_fds; i++) {
		*index = (int)i;
		if (dup3(scratch[i], plan->fds[i].child_fd, 0) < 0)
			return -errno;
	}
	*index = -1;
	if (sys_close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
		return -errno;
	for (size_t i = 0; i < plan->n_fds; i++) {
		*index = (int)i;
		if (fcntl(plan->fds[i].child_fd, F_SETFD, 0) != 0)
			return -errno;
	}
	return 0;
}

/*
 * A root caller's child must be as weak as anyone's: no capability in any
 * set, and securebits locked so that exec cannot give uid 0 its
 * capabilities back.
 */
static int step_capabilities(const struct plan *plan)
{
	struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0, 0, 0 } };
	const unsigned long locked = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
				     SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
				     SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
				     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	if (plan->holds_setpcap) {
		if (prctl(PR_SET_SECUREBITS, locked, 0, 0, 0) != 0)
			return -errno;
		for (int cap = 0; cap < 64; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
				if (errno == EINVAL)
					break; /* past the kernel's last capability */
				return -errno;
			}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		return -errno;
	return syscall(SYS_capset, &header, none) == 0 ? 0 : -errno;
}

/*
 * Spawn only: the target leads a process group of its own inside the
 * reaper's session. Signals the caller forwards go to that group, as a
 * terminal's would; and as the group has a parent (the reaper) in another
 * group of the same session, it is not orphaned, so stop signals work.
 */
static int step_process_group(const struct plan *plan)
{
	if (!plan->reaper)
		return 0;
	return setpgid(0, 0) == 0 ? 0 : -errno;
}

/*
 * A reporting filter's listener goes to the caller, over the run's socket,
 * before exec; the target keeps no copy, so nothing in the cage can
 * answer its own refused calls.
 */
static int listener_hand_over(int socket, int listener)
{
	struct reaper_outgoing o;
	reaper_outgoing_fill(&o, REAPER_SECCOMP_LISTENER, 0, listener);
	/* The flags the network broker variants let through (seccomp.h). */
	int rc = sendmsg(socket, &o.mh, SECCOMP_HANDOVER_SEND_FLAGS) == (ssize_t)sizeof o.m ? 0
											  : -errno;
	close(listener);
	return rc;
}

/*
 * Close now what exec would close (everything from 3 up but the mapped
 * descriptors, the status pipe and the run's socket): the listener takes
 * the lowest free number, and under a low RLIMIT_NOFILE the caller's
 * inherited descriptors (a T2 cage pins one per grant) could leave none
 * below the limit.
 */
static void close_unneeded(const struct plan *plan)
{
	int keep[PLAN_MAX_FDS + 2];
	size_t n = 0;
	for (size_t i = 0; i < plan->n_fds; i++)
		keep[n++] = plan->fds[i].child_fd;
	keep[n++] = plan->status_fd;
	keep[n++] = plan->reaper_socket;
	for (size_t i = 1; i < n; i++) /* insertion sort: no allocation here */
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	unsigned from = 3;
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < from)
			continue;
		if ((unsigned)keep[i] > from)
			(void)sys_close_range(from, (unsigned)keep[i] - 1, 0);
		from = (unsigned)keep[i] + 1;
	}
	(void)sys_close_range(from, ~0U, 0);
}

static int step_seccomp(const struct plan *plan)
{
	if (!plan->seccomp_report)
		return seccomp_program_install(plan->seccomp);
	close_unneeded(plan);
	int listener = seccomp_program_install_listener(plan->seccomp);
	int rc = listener < 0 ? listener : listener_hand_over(plan->reaper_socket, listener);
	if (rc == 0 && plan->seccomp_after_handover)
		rc = seccomp_program_install(plan->seccomp_after_handover);
	return rc;
}

int child_steps(const struct plan *plan, struct child_failure *f)
{
	int index = -1, rc, step;

	if ((rc = step_prepare()) < 0) {
		step = PROCAGE_STEP_PREPARE;
		goto fail;
	}
	/* First: the target and everything it starts count against the run's limits. */
	if (plan->cgroup_procs_fd >= 0 && write(plan->cgroup_procs_fd, "0", 1) != 1) {
		rc = -errno;
		step = PROCAGE_STEP_CGROUP;
		goto fail;
	}
	/*
	 * In its cgroup now, the target makes it the root of a cgroup
	 * namespace: /proc/self/cgroup names "/", the root of its view.
	 */
	if (plan->cgroup_namespace && unshare(CLONE_NEWCGROUP) != 0) {
		rc = -errno;
		step = PROCAGE_STEP_CGROUP;
		goto fail;
	}
	if ((rc = step_process_group(plan)) < 0) {
		step = PROCAGE_STEP_PROCESS_GROUP;
		goto fail;
	}
	if (plan->read_only_mounts && !plan->read_only_by_reaper &&
	    (rc = namespaces_read_only_apply(plan, true, &index)) < 0) {
		/* The index names a writable tree, not one of plan->mounts. */
		index = -1;
		step = PROCAGE_STEP_MOUNTS;
		goto fail;
	}
	index = -1;
	if ((rc = step_cwd(plan)) < 0) {
		step = PROCAGE_STEP_CWD;
		goto fail;
	}
	if ((rc = step_fds(plan, &index)) < 0) {
		step = PROCAGE_STEP_FDS;
		goto fail;
	}
	if ((rc = step_capabilities(plan)) < 0) {
		step = PROCAGE_STEP_CAPABILITIES;
		goto fail;
	}
	if ((rc = step_exec_gate(plan)) < 0) {
		step = PROCAGE_STEP_PREPARE;
		goto fail;
	}
	step_start_mark_passed(plan);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		rc = -errno;
		step = PROCAGE_STEP_NO_NEW_PRIVS;
		goto fail;
	}
	if ((rc = landlock_ruleset_enforce(plan->landlock_fd)) < 0) {
		step = PROCAGE_STEP_LANDLOCK;
		goto fail;
	}
	/* Before the filter, which keeps the run from changing it. */
	if (plan->core_limit_set && setrlimit(RLIMIT_CORE, &plan->core_limit) != 0) {
		rc = -errno;
		step = PROCAGE_STEP_RLIMITS;
		index = PLAN_CORE_LIMIT_INDEX;
		goto fail;
	}
	if ((rc = step_seccomp(plan)) < 0) {
		step = PROCAGE_STEP_SECCOMP;
		goto fail;
	}
	/*
	 * The limits come last, once only the passed descriptors are left
	 * and the filter's listener has been handed over: a low
	 * RLIMIT_NOFILE would otherwise refuse the working directory's open,
	 * or the listener's descriptor, while the caller's descriptors are
	 * still inherited (close-on-exec, but open until exec). The filter
	 * allows setrlimit and prlimit64 on the caller itself.
	 */
	if ((rc = step_rlimits(plan, &index)) < 0) {
		step = PROCAGE_STEP_RLIMITS;
		goto fail;
	}
	index = -1;
	execve(plan->exec_path, plan->argv, plan->envp);
	rc = -errno;
	step = PROCAGE_STEP_EXEC;
fail:
	*f = (struct child_failure){ step, -rc, index };
	return rc;
}

int child_main(void *arg)
{
	const struct plan *plan = arg;
	struct child_failure f;

	child_steps(plan, &f);
	child_fail(plan, f.step, f.err, f.index);
}
