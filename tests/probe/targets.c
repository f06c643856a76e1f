/*
 * The probe's actions on what Landlock does not see: a file's metadata
 * (mode bits, extended attributes, inode flags), System V IPC objects and
 * POSIX message queues, other processes named by pid, and the mount table.
 *
 * Refusals: the file errnos (EACCES, EPERM, EROFS), and EOPNOTSUPP for
 * the extended attribute calls (the cage answers them so; the run without
 * the cage shows the file system has them). For the IPC and pid actions,
 * EPERM and EACCES; ENOENT, EINVAL, ESRCH (an object or process that is
 * not there at all: another IPC or PID namespace) are errors the suite
 * judges by name.
 */
#include "probe.h"

#include <linux/fs.h>
#include <linux/ioprio.h>
#include <mqueue.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/xattr.h>

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_statmount
#define __NR_statmount 457
#endif
#ifndef __NR_listmount
#define __NR_listmount 458
#endif

static bool parse_mode(const char *s, mode_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 8);
	if (errno || end == s || *end || v > 07777)
		return false;
	*out = (mode_t)v;
	return true;
}

/* ---- mode bits ------------------------------------------------------- */

int do_chmod(char **args)
{
	mode_t mode;
	if (!parse_mode(args[1], &mode))
		return usage_error("bad octal mode", args[1]);
	if (strcmp(action_name, "chmod") == 0)
		return chmod(args[0], mode) == 0 ? PROBE_DID_IT
						 : failed(REFUSE_FILE, "chmod", args[0]);
	if (strcmp(action_name, "fchmodat2") == 0)
		return syscall(__NR_fchmodat2, AT_FDCWD, args[0], mode, 0) == 0
			   ? PROBE_DID_IT
			   : failed(REFUSE_FILE, "fchmodat2", args[0]);
	/* fchmod-ro: through a descriptor open for reading only. */
	int fd = open(args[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int rc = fchmod(fd, mode) == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, "fchmod", args[0]);
	close(fd);
	return rc;
}

/* ---- extended attributes and inode flags ------------------------------ */

static int xattr_failed(const char *what, const char *target)
{
	if (errno != EOPNOTSUPP)
		return failed(REFUSE_FILE, what, target);
	fprintf(stderr, "probe: %s %s: refused by %s: EOPNOTSUPP\n", action_name, target, what);
	return PROBE_REFUSED;
}

/* setxattr PATH NAME VALUE, fsetxattr-ro PATH NAME VALUE, removexattr PATH NAME */
int do_xattr(char **args)
{
	if (strcmp(action_name, "removexattr") == 0)
		return removexattr(args[0], args[1]) == 0 ? PROBE_DID_IT
							  : xattr_failed("removexattr", args[0]);
	if (!args[2])
		return usage_error("no value for", args[1]);
	if (strcmp(action_name, "setxattr") == 0)
		return setxattr(args[0], args[1], args[2], strlen(args[2]), 0) == 0
			   ? PROBE_DID_IT
			   : xattr_failed("setxattr", args[0]);
	int fd = open(args[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int rc = fsetxattr(fd, args[1], args[2], strlen(args[2]), 0) == 0
		     ? PROBE_DID_IT
		     : xattr_failed("fsetxattr", args[0]);
	close(fd);
	return rc;
}

/*
 * setflags-ro PATH FLAG, fssetxattr-ro PATH XFLAG: add an inode flag
 * (FS_IOC_SETFLAGS) or an extended flag (FS_IOC_FSSETXATTR) through a
 * descriptor open for reading only.
 */
int do_inode_flags(char **args)
{
	long flag;
	if (!parse_int(args[1], &flag))
		return usage_error("bad flag", args[1]);
	int fd = open(args[0], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int rc;
	if (strcmp(action_name, "setflags-ro") == 0) {
		int flags = 0;
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) {
			rc = failed(REFUSE_FILE, "ioctl(FS_IOC_GETFLAGS)", args[0]);
		} else {
			flags |= (int)flag;
			rc = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0
				 ? PROBE_DID_IT
				 : failed(REFUSE_FILE, "ioctl(FS_IOC_SETFLAGS)", args[0]);
		}
	} else {
		struct fsxattr fa;
		if (ioctl(fd, FS_IOC_FSGETXATTR, &fa) != 0) {
			rc = failed(REFUSE_FILE, "ioctl(FS_IOC_FSGETXATTR)", args[0]);
		} else {
			fa.fsx_xflags |= (unsigned)flag;
			rc = ioctl(fd, FS_IOC_FSSETXATTR, &fa) == 0
				 ? PROBE_DID_IT
				 : failed(REFUSE_FILE, "ioctl(FS_IOC_FSSETXATTR)", args[0]);
		}
	}
	close(fd);
	return rc;
}

/* ---- the mount table -------------------------------------------------- */

struct probe_mnt_id_req {
	uint32_t size, spare;
	uint64_t mnt_id, param, mnt_ns_id;
};

/* listmount: the ids of the mounts below the root; statmount: the first one's. */
int do_mount_table(char **args)
{
	uint64_t ids[512];
	struct probe_mnt_id_req req = {.size = 24, .mnt_id = ~0ull /* LSMT_ROOT */};
	long n = syscall(__NR_listmount, &req, ids, 512, 0);
	if (n < 0)
		return failed(REFUSE_SYSCALL, "listmount", "");
	if (strcmp(action_name, "statmount") == 0) {
		static uint64_t buf[1024];
		if (n < 1)
			return usage_error("no mount to", "statmount");
		req.mnt_id = ids[0];
		req.param = 0x1; /* STATMOUNT_SB_BASIC */
		if (syscall(__NR_statmount, &req, buf, sizeof buf, 0) < 0)
			return failed(REFUSE_SYSCALL, "statmount", "");
	}
	printf("%ld mounts\n", n);
	return PROBE_DID_IT;
}

/* ---- System V IPC ------------------------------------------------------ */

/* "key:K" (looked up by key) or "id:N" (used as it is). */
static int ipc_id(const char *spec, bool shm, const char **what)
{
	long v;
	if (strncmp(spec, "id:", 3) == 0 && parse_int(spec + 3, &v))
		return (int)v;
	if (strncmp(spec, "key:", 4) != 0 || !parse_int(spec + 4, &v)) {
		errno = EINVAL;
		*what = "the object (key:K or id:N)";
		return -1;
	}
	*what = shm ? "shmget" : "msgget";
	return shm ? shmget((key_t)v, 0, 0) : msgget((key_t)v, 0);
}

/* shm-read SPEC, shm-write SPEC TEXT: the segment attached, read or written. */
int do_shm(char **args)
{
	const char *what = "shmget";
	bool write = strcmp(action_name, "shm-write") == 0;
	if (write && !args[1])
		return usage_error("no text for", args[0]);
	int id = ipc_id(args[0], true, &what);
	if (id < 0)
		return failed(REFUSE_SYSCALL, what, args[0]);
	char *p = shmat(id, NULL, write ? 0 : SHM_RDONLY);
	if (p == (void *)-1)
		return failed(REFUSE_SYSCALL, "shmat", args[0]);
	if (write)
		memcpy(p, args[1], strlen(args[1]) + 1);
	else
		printf("%.*s\n", 256, p);
	shmdt(p);
	return PROBE_DID_IT;
}

/* shm-private TEXT: a segment of our own (IPC_PRIVATE), TEXT through it, removed. */
int do_shm_private(char **args)
{
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	if (id < 0)
		return failed(REFUSE_SYSCALL, "shmget(IPC_PRIVATE)", "");
	char *p = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL); /* gone with its last detach */
	if (p == (void *)-1)
		return failed(REFUSE_SYSCALL, "shmat", "");
	snprintf(p, 4096, "%s", args[0]);
	printf("%s\n", p);
	shmdt(p);
	return PROBE_DID_IT;
}

struct probe_msg {
	long type;
	char text[256];
};

/* msg-recv SPEC (without waiting), msg-send SPEC TEXT */
int do_msg(char **args)
{
	const char *what = "msgget";
	struct probe_msg m = {.type = 1};
	int id = ipc_id(args[0], false, &what);
	if (id < 0)
		return failed(REFUSE_SYSCALL, what, args[0]);
	if (strcmp(action_name, "msg-send") == 0) {
		if (!args[1])
			return usage_error("no text for", args[0]);
		snprintf(m.text, sizeof m.text, "%s", args[1]);
		return msgsnd(id, &m, strlen(m.text) + 1, IPC_NOWAIT) == 0
			   ? PROBE_DID_IT
			   : failed(REFUSE_SYSCALL, "msgsnd", args[0]);
	}
	ssize_t n = msgrcv(id, &m, sizeof m.text - 1, 0, IPC_NOWAIT);
	if (n < 0)
		return failed(REFUSE_SYSCALL, "msgrcv", args[0]);
	m.text[n] = '\0';
	printf("%s\n", m.text);
	return PROBE_DID_IT;
}

/*
 * POSIX message queues, by name: mq-recv NAME takes a message without
 * waiting and prints it, mq-unlink NAME removes the queue, mq-create NAME
 * makes a new one (O_EXCL, mode 0666) and closes it.
 */
int do_mq(char **args)
{
	const char *name = args[0];
	if (strcmp(action_name, "mq-unlink") == 0)
		return mq_unlink(name) == 0 ? PROBE_DID_IT : failed(REFUSE_SYSCALL, "mq_unlink", name);
	if (strcmp(action_name, "mq-create") == 0) {
		struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 64};
		mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0666, &attr);
		if (q == (mqd_t)-1)
			return failed(REFUSE_SYSCALL, "mq_open(O_CREAT)", name);
		mq_close(q);
		return PROBE_DID_IT;
	}
	mqd_t q = mq_open(name, O_RDONLY | O_NONBLOCK);
	if (q == (mqd_t)-1)
		return failed(REFUSE_SYSCALL, "mq_open", name);
	char text[64 + 1];
	ssize_t n = mq_receive(q, text, sizeof text - 1, NULL);
	int e = errno;
	mq_close(q);
	errno = e;
	if (n < 0)
		return failed(REFUSE_SYSCALL, "mq_receive", name);
	text[n] = '\0';
	printf("%s\n", text);
	return PROBE_DID_IT;
}

/*
 * POSIX shared memory, by name (files in /dev/shm): pshm-read NAME prints
 * what the segment holds, pshm-create NAME makes a new one (O_EXCL, 0600)
 * holding "made".
 */
int do_posix_shm(char **args)
{
	const char *name = args[0];
	char text[64 + 1] = "";
	bool create = strcmp(action_name, "pshm-create") == 0;
	int fd = shm_open(name, create ? O_CREAT | O_EXCL | O_RDWR : O_RDONLY, 0600);
	if (fd < 0)
		return failed(REFUSE_FILE, create ? "shm_open(O_CREAT)" : "shm_open", name);
	ssize_t n = create ? write(fd, "made", 4) : read(fd, text, sizeof text - 1);
	int e = errno;
	close(fd);
	errno = e;
	if (n < 0)
		return failed(REFUSE_FILE, create ? "write" : "read", name);
	if (!create)
		printf("%.*s\n", (int)n, text);
	return PROBE_DID_IT;
}

/* ---- other processes by pid ------------------------------------------- */

static bool parse_pid(const char *s, pid_t *out)
{
	long v;
	if (!parse_int(s, &v))
		return false;
	*out = (pid_t)v;
	return true;
}

/* prlimit PID RESOURCE SOFT HARD: set a limit, then print it as read back. */
int do_prlimit(char **args)
{
	pid_t pid;
	long res, soft, hard;
	if (!parse_pid(args[0], &pid) || !parse_int(args[1], &res) || !parse_int(args[2], &soft) ||
	    !parse_int(args[3], &hard))
		return usage_error("prlimit wants PID RESOURCE SOFT HARD, got", args[0]);
	struct rlimit64 lim = {(rlim64_t)soft, (rlim64_t)hard}, now;
	if (prlimit64(pid, (int)res, &lim, &now) != 0)
		return failed(REFUSE_SYSCALL, "prlimit", args[0]);
	printf("limit %ld was %llu %llu\n", res, (unsigned long long)now.rlim_cur,
	       (unsigned long long)now.rlim_max);
	return PROBE_DID_IT;
}

/*
 * core-limit SOFT HARD: set the core dump limit as a program does
 * (setrlimit, which is prlimit64 without the old value), then print it as
 * read back, and whether prlimit64 setting it and reading the old value
 * in one call worked ("prlimit refused ERRNO"). Each way a process lowers
 * its core limit to 0, where a core_pattern pipe helper runs on a crash.
 */
int do_core_limit(char **args)
{
	long soft, hard;
	if (!parse_int(args[0], &soft) || !parse_int(args[1], &hard))
		return usage_error("core-limit wants SOFT HARD, got", args[0]);
	struct rlimit want = {(rlim_t)soft, (rlim_t)hard}, now;
	struct rlimit64 want64 = {(rlim64_t)soft, (rlim64_t)hard}, old64;
	int set = setrlimit(RLIMIT_CORE, &want) == 0 ? 0 : errno;
	int both = prlimit64(0, RLIMIT_CORE, &want64, &old64) == 0 ? 0 : errno;
	if (getrlimit(RLIMIT_CORE, &now) != 0)
		return failed(REFUSE_SYSCALL, "getrlimit", "RLIMIT_CORE");
	printf("core limit %llu %llu (setrlimit %s, prlimit %s)\n",
	       (unsigned long long)now.rlim_cur, (unsigned long long)now.rlim_max,
	       set ? strerror(set) : "returned 0", both ? strerror(both) : "returned 0");
	return PROBE_DID_IT;
}

/*
 * core-limit-lowered SOFT HARD: did_it when the core dump limit, set to
 * SOFT HARD through setrlimit, reads back so; refused when it did not
 * change (for exec mode, whose output is not kept).
 */
int do_core_limit_lowered(char **args)
{
	long soft, hard;
	if (!parse_int(args[0], &soft) || !parse_int(args[1], &hard))
		return usage_error("core-limit-lowered wants SOFT HARD, got", args[0]);
	struct rlimit want = {(rlim_t)soft, (rlim_t)hard}, now;
	if (setrlimit(RLIMIT_CORE, &want) != 0 || getrlimit(RLIMIT_CORE, &now) != 0)
		return failed(REFUSE_SYSCALL, "setrlimit", "RLIMIT_CORE");
	if (now.rlim_cur != want.rlim_cur || now.rlim_max != want.rlim_max) {
		fprintf(stderr, "probe: core-limit-lowered: the limit reads back %llu %llu\n",
			(unsigned long long)now.rlim_cur, (unsigned long long)now.rlim_max);
		return PROBE_REFUSED;
	}
	return PROBE_DID_IT;
}

/* setpriority PID NICE (PRIO_PROCESS) */
int do_setpriority(char **args)
{
	pid_t pid;
	long nice_value;
	if (!parse_pid(args[0], &pid) || !parse_int(args[1], &nice_value))
		return usage_error("setpriority wants PID NICE, got", args[0]);
	if (setpriority(PRIO_PROCESS, (id_t)pid, (int)nice_value) != 0)
		return failed(REFUSE_SYSCALL, "setpriority", args[0]);
	errno = 0;
	printf("nice %d\n", getpriority(PRIO_PROCESS, (id_t)pid));
	return PROBE_DID_IT;
}

/* setaffinity PID CPU: only that CPU. */
int do_setaffinity(char **args)
{
	pid_t pid;
	long cpu;
	if (!parse_pid(args[0], &pid) || !parse_int(args[1], &cpu) || cpu < 0 || cpu >= CPU_SETSIZE)
		return usage_error("setaffinity wants PID CPU, got", args[0]);
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(pid, sizeof set, &set) != 0)
		return failed(REFUSE_SYSCALL, "sched_setaffinity", args[0]);
	printf("cpus %d\n", sched_getaffinity(pid, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1);
	return PROBE_DID_IT;
}

/* ioprio PID LEVEL: best-effort class at LEVEL (0-7), which needs no privilege. */
int do_ioprio(char **args)
{
	pid_t pid;
	long level;
	if (!parse_pid(args[0], &pid) || !parse_int(args[1], &level))
		return usage_error("ioprio wants PID LEVEL, got", args[0]);
	int prio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, (int)level);
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, pid, prio) != 0)
		return failed(REFUSE_SYSCALL, "ioprio_set", args[0]);
	printf("ioprio %ld\n", syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, pid));
	return PROBE_DID_IT;
}

/*
 * setscheduler PID [batch|other]: SCHED_BATCH (unless "other" is given:
 * SCHED_OTHER, for a target already at SCHED_BATCH); between the two no
 * privilege is needed.
 */
int do_setscheduler(char **args)
{
	pid_t pid;
	int policy = SCHED_BATCH;
	if (!parse_pid(args[0], &pid))
		return usage_error("setscheduler wants PID [batch|other], got", args[0]);
	if (args[1] && strcmp(args[1], "other") == 0)
		policy = SCHED_OTHER;
	else if (args[1] && strcmp(args[1], "batch") != 0)
		return usage_error("setscheduler wants batch or other, got", args[1]);
	struct sched_param sp = {0};
	if (sched_setscheduler(pid, policy, &sp) != 0)
		return failed(REFUSE_SYSCALL, "sched_setscheduler", args[0]);
	printf("policy %d\n", sched_getscheduler(pid));
	return PROBE_DID_IT;
}
