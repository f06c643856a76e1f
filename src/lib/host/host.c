/*
 * Host facts: what the running kernel offers, measured rather than assumed.
 * A user namespace is only counted for tier T1 when a mount inside it works,
 * since some distributions let the namespace be made but deny it the
 * capabilities to mount.
 */
#include "host.h"
#include "id_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "base/error.h"
#include "base/syscalls.h"
#include "base/small_file.h"

static int landlock_abi_measure(int *why)
{
	int abi = sys_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	*why = abi < 0 ? errno : 0;
	return abi < 0 ? 0 : abi;
}

static bool file_contains_word(const char *path, const char *word)
{
	char buf[512];
	if (small_file_read(path, buf, sizeof buf) <= 0)
		return false;
	size_t len = strlen(word);
	for (char *p = buf; (p = strstr(p, word)); p += len) {
		bool starts = p == buf || p[-1] == ',' || p[-1] == '=' || p[-1] == ' ';
		bool ends = p[len] == ',' || p[len] == '\0' || p[len] == '\n' || p[len] == ' ';
		if (starts && ends)
			return true;
	}
	return false;
}

static bool seccomp_filter_available(void)
{
	/* EFAULT means the kernel looked at the (NULL) program: the mode exists. */
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL) < 0 && errno == EFAULT;
}

static bool seccomp_user_notif_available(void)
{
	uint32_t action = SECCOMP_RET_USER_NOTIF;
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

/* What the probe found. */
enum { PROBE_OK = 0, PROBE_NO_USERNS = 1, PROBE_NO_MOUNT = 2 };

/*
 * The probe's id map lines, formatted before the clone, and its result,
 * which the child writes straight into the parent's memory (CLONE_VM).
 */
struct userns_probe {
	struct id_maps maps;
	int code, err;
	char *pid_stack;   /* the PID namespace probe's stack */
	bool private_proc; /* a PID namespace with a /proc of its own was made */
	int pid_err;
};

/* The probe child's stack: it makes a few system calls and exits. */
#define PROBE_STACK_SIZE (64 * 1024)

static bool write_file(const char *path, const char *text, int len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok = write(fd, text, (size_t)len) == len;
	close(fd);
	return ok;
}

/*
 * The first process of a new PID namespace, inside the probe's user and
 * mount namespaces: mount a /proc there, which must show this namespace
 * (we are its process 1). Some hosts refuse it (a /proc with parts masked
 * by the container engine is "too revealing" to mount again).
 */
static int pidns_probe_child(void *arg)
{
	struct userns_probe *p = arg;
	char self[16];
	ssize_t n;
	p->pid_err = 0;
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
		p->pid_err = errno;
		return 0;
	}
	n = readlink("/proc/self", self, sizeof self - 1);
	p->private_proc = n == 1 && self[0] == '1';
	if (!p->private_proc)
		p->pid_err = n < 0 ? errno : EXDEV;
	return 0;
}

static void pidns_measure(struct userns_probe *p)
{
	p->pid_err = EIO;
	pid_t pid = clone(pidns_probe_child, p->pid_stack, CLONE_NEWPID | CLONE_VM | CLONE_VFORK | SIGCHLD,
			  p);
	if (pid < 0) {
		p->pid_err = errno;
		return;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * Runs in a child sharing our memory, system calls only: make a user and
 * mount namespace, map ourselves, and mount a tmpfs; then try a PID
 * namespace with a /proc of its own. The result goes into *p, for the
 * parent to read once the child is gone.
 */
static int userns_probe_child(void *arg)
{
	struct userns_probe *p = arg;

	p->code = PROBE_NO_USERNS;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		goto out;
	(void)write_file("/proc/self/setgroups", "deny", 4);
	if (!write_file("/proc/self/uid_map", p->maps.uid_map, p->maps.uid_map_len) ||
	    !write_file("/proc/self/gid_map", p->maps.gid_map, p->maps.gid_map_len))
		goto out;
	p->code = PROBE_NO_MOUNT;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("procage-probe", "/", "tmpfs", 0, "size=4k") != 0)
		goto out;
	p->code = PROBE_OK;
	pidns_measure(p);
out:
	p->err = p->code == PROBE_OK ? 0 : errno;
	/* Returning ends the child (clone's wrapper calls exit). Not _exit:
	 * under ASan a no-return call on this stack prints a warning. */
	return 0;
}

/*
 * The probe child, once its results are in: its exit tears its user and
 * mount namespaces down, which takes milliseconds (the copy of the host's
 * mount table, an RCU grace period) that nothing here needs to wait for.
 * It exits with no signal (a "clone" child, which wait(-1) and SIGCHLD
 * handlers of the caller do not see) and is reaped by host_probe_reap
 * later, or by init when this process ends first.
 */
static atomic_int probe_pid;

void host_probe_reap(void)
{
	int pid = atomic_load(&probe_pid);
	if (pid <= 0)
		return;
	pid_t got = waitpid(pid, NULL, __WCLONE | WNOHANG);
	if (got == pid || (got < 0 && errno == ECHILD))
		atomic_compare_exchange_strong(&probe_pid, &pid, 0);
}

/*
 * The probe runs in a child cloned with CLONE_VM | CLONE_VFORK, as spawns
 * are: fork copied the page tables of the whole process for a child that
 * makes five system calls. Every signal is blocked across the clone so
 * that none of our handlers runs in the child, on our memory. The vfork
 * ends when the child has left our memory (its exit releases it before
 * its namespaces go): its results are complete and its stack free.
 */
static void userns_measure(struct procage_host_facts *f)
{
	struct userns_probe p = { .code = PROBE_NO_USERNS, .err = EIO, .pid_err = EIO };
	sigset_t all, saved;

	id_maps_own(&p.maps);
	void *stack = mmap(NULL, PROBE_STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		f->userns_errno = errno;
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	p.pid_stack = (char *)stack + PROBE_STACK_SIZE / 2;
	pid_t pid = clone(userns_probe_child, (char *)stack + PROBE_STACK_SIZE,
			  CLONE_VM | CLONE_VFORK, &p);
	int clone_errno = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (pid > 0)
		atomic_store(&probe_pid, pid);
	else
		p.err = clone_errno;
	munmap(stack, PROBE_STACK_SIZE);
	f->userns_create = p.code != PROBE_NO_USERNS;
	f->userns_mount = p.code == PROBE_OK;
	f->userns_errno = p.err;
	f->pidns_private_proc = f->userns_mount && p.private_proc;
	f->pidns_errno = f->pidns_private_proc ? 0 : f->userns_mount ? p.pid_err : p.err;
}

static void host_measure(struct procage_host_facts *f)
{
	struct utsname u;

	memset(f, 0, sizeof *f);
	if (uname(&u) == 0)
		snprintf(f->kernel_release, sizeof f->kernel_release, "%s", u.release);
	f->landlock_abi = landlock_abi_measure(&f->landlock_errno);
	f->landlock_in_lsm_list = file_contains_word("/sys/kernel/security/lsm", "landlock");
	f->seccomp_filter = seccomp_filter_available();
	f->seccomp_user_notif = f->seccomp_filter && seccomp_user_notif_available();
	f->apparmor_restricts_userns =
		file_contains_word("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1");
	userns_measure(f);

	if (f->landlock_abi < 1 || !f->seccomp_filter)
		f->tier = PROCAGE_TIER_UNSUPPORTED;
	else if (f->userns_mount)
		f->tier = PROCAGE_TIER_T1;
	else
		f->tier = PROCAGE_TIER_T2;
}

static struct procage_host_facts measured;
static atomic_bool measured_done;
/*
 * Held while measuring: a second thread asking meanwhile (a command's
 * work begun ahead, ahead.h) sleeps until the facts are in, rather than
 * spin beside the probe's child on a machine with few processors.
 */
static pthread_mutex_t measuring = PTHREAD_MUTEX_INITIALIZER;

const struct procage_host_facts *host_facts_get(void)
{
	host_probe_reap();
	if (!atomic_load(&measured_done)) {
		pthread_mutex_lock(&measuring);
		if (!atomic_load(&measured_done)) {
			host_measure(&measured);
			atomic_store(&measured_done, true);
		}
		pthread_mutex_unlock(&measuring);
	}
	return &measured;
}

/*
 * The cgroup subtree is looked for only when something needs it (a policy
 * with limits of the whole run, fit, the facts handed out): reading the
 * mount table and the cgroup files took a third of the probe's time, and
 * most runs set no such limit. Until then the cgroup fields stay zero,
 * which reads as "no subtree": a reader that forgot this function
 * refuses limits rather than run without them.
 */
static atomic_bool cgroup_done;

const struct procage_host_facts *host_facts_with_cgroup(void)
{
	const struct procage_host_facts *f = host_facts_get();
	if (!atomic_load(&cgroup_done)) {
		pthread_mutex_lock(&measuring);
		if (!atomic_load(&cgroup_done)) {
			cgroup_measure(&measured);
			atomic_store(&cgroup_done, true);
		}
		pthread_mutex_unlock(&measuring);
	}
	return f;
}

PROCAGE_API int procage_host_facts(struct procage_host_facts *out, struct procage_error *err)
{
	error_clear(err);
	if (!out)
		return error_set(err, -EINVAL, "no place for the host facts given");
	*out = *host_facts_with_cgroup();
	return 0;
}

PROCAGE_API const char *procage_tier_name(int tier)
{
	switch (tier) {
	case PROCAGE_TIER_T1:
		return "T1";
	case PROCAGE_TIER_T2:
		return "T2";
	default:
		return "unsupported";
	}
}
