/*
 * Part of the seccomp unit test (see test_seccomp.c): the rules Landlock
 * cannot stand in for, checked in the BPF simulator on every variant and
 * ABI. File metadata (set-id and sticky modes, extended attributes, inode
 * flags), System V IPC outside an IPC namespace of the run's own, and the
 * calls that name another process by pid.
 */
#include "seccomp_sim.h"
#include "watch/notify.h"
#include "seccomp_rules.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/ioprio.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/resource.h>

/* Numbers libseccomp 2.5 cannot name; the same on all three ABIs. */
#define NR_STATMOUNT 457
#define NR_LISTMOUNT 458
#define NR_SETXATTRAT 463
#define NR_GETXATTRAT 464
#define NR_LISTXATTRAT 465
#define NR_REMOVEXATTRAT 466
#define NR_FILE_GETATTR 468
#define NR_FILE_SETATTR 469

static bool variant_own_ipc(int v)
{
	return seccomp_program_options((size_t)v).own_ipc_namespace;
}

/* A call by number on one ABI (x32 bit added), against want as mapped. */
static void expect_nr(int v, const struct abi *abi, long nr, const char *name,
		      const uint64_t args[6], uint32_t want, const char *what)
{
	long n = nr | (abi->x32 ? X32_SYSCALL_BIT : 0);
	want = variant_answer(v, want);
	uint32_t got = run_nr(&progs[v], abi->audit_arch, n, args);
	sim_ok(got == want, "%s, %s: %s (%ld) %s (got %#x, want %#x)", variant_name(v), abi->name,
	       name, n, what, got, want);
}

/* Where the mode is in each chmod variant. */
static const struct {
	const char *name;
	int mode_arg;
} chmods[] = {{"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}};

/* A chmod the filter lets through: allowed, or the metadata broker's to judge. */
static uint32_t chmod_passed(int v)
{
	return seccomp_program_options((size_t)v).broker_metadata ? SECCOMP_RET_USER_NOTIF
								   : SECCOMP_RET_ALLOW;
}

static uint64_t mode_args(int mode_arg, uint64_t mode, uint64_t out[6])
{
	memset(out, 0, 6 * sizeof *out);
	out[mode_arg] = mode;
	return mode;
}

/* Every mode of 12 bits, plus bits above that the kernel drops. */
static void check_modes_exact(int v, const struct abi *abi)
{
	for (size_t c = 0; c < N_ELEMS(chmods); c++) {
		long nr = abi_nr(abi, chmods[c].name);
		if (nr < 0)
			continue;
		unsigned mismatches = 0, first = 0;
		for (uint64_t mode = 0; mode <= 07777; mode++) {
			uint64_t args[6];
			/* Bits above 16 and the upper half: the kernel reads a umode_t. */
			uint64_t extra = (mode & 1) ? 0x10000 : (mode & 2) ? 0xab00000000ull : 0;
			if (abi->audit_arch != AUDIT_ARCH_X86_64 && extra > 0xffffffffu)
				extra = 0;
			mode_args(chmods[c].mode_arg, mode | extra, args);
			uint32_t want = variant_answer(
			    v, mode & SECCOMP_MODE_REFUSED ? RET_EPERM : chmod_passed(v));
			if (run_nr(&progs[v], abi->audit_arch, nr, args) != want && !mismatches++)
				first = (unsigned)mode;
		}
		sim_ok(mismatches == 0,
		       "%s, %s: %s refuses exactly the modes with set-id or sticky bits, over "
		       "all 4096 (%u wrong, first 0%o)",
		       variant_name(v), abi->name, chmods[c].name, mismatches, first);
	}
}

static void check_metadata(int v, const struct abi *abi)
{
	uint64_t args[6];
	for (size_t c = 0; c < N_ELEMS(chmods); c++) {
		int a = chmods[c].mode_arg;
		mode_args(a, 0755, args);
		expect(v, abi, chmods[c].name, args, chmod_passed(v), "(0755) allowed or brokered");
		mode_args(a, 0100, args);
		expect(v, abi, chmods[c].name, args, chmod_passed(v), "(u+x) allowed or brokered");
		mode_args(a, 04755, args);
		expect(v, abi, chmods[c].name, args, RET_EPERM, "(04755, set-user-id) refused");
		mode_args(a, 02755, args);
		expect(v, abi, chmods[c].name, args, RET_EPERM, "(02755, set-group-id) refused");
		mode_args(a, 01777, args);
		expect(v, abi, chmods[c].name, args, RET_EPERM, "(01777, sticky) refused");
	}
	/* Owner and times: Landlock's (nothing) or the metadata broker's. */
	static const char *const owner_times[] = {
	    "chown",	"fchown", "lchown",    "fchownat",  "chown32",   "fchown32",
	    "lchown32", "utime",  "utimes",    "futimesat", "utimensat", "utimensat_time64"};
	for (size_t i = 0; i < N_ELEMS(owner_times); i++)
		expect(v, abi, owner_times[i], ARGS(0, 0, 0, 0), chmod_passed(v),
		       "allowed or brokered");
	static const char *const xattr_sets[] = {"setxattr",	"lsetxattr",	"fsetxattr",
						 "removexattr", "lremovexattr", "fremovexattr"};
	for (size_t i = 0; i < N_ELEMS(xattr_sets); i++)
		expect(v, abi, xattr_sets[i], ARGS(0), RET_EOPNOTSUPP, "refused (EOPNOTSUPP)");
	static const char *const xattr_reads[] = {"getxattr",  "lgetxattr",  "fgetxattr",
						  "listxattr", "llistxattr", "flistxattr"};
	for (size_t i = 0; i < N_ELEMS(xattr_reads); i++)
		expect(v, abi, xattr_reads[i], ARGS(0), SECCOMP_RET_ALLOW, "(reading) allowed");
	expect_nr(v, abi, NR_SETXATTRAT, "setxattrat", ARGS(0), RET_EOPNOTSUPP,
		  "refused (EOPNOTSUPP)");
	expect_nr(v, abi, NR_REMOVEXATTRAT, "removexattrat", ARGS(0), RET_EOPNOTSUPP,
		  "refused (EOPNOTSUPP)");
	expect_nr(v, abi, NR_GETXATTRAT, "getxattrat", ARGS(0), SECCOMP_RET_ALLOW, "allowed");
	expect_nr(v, abi, NR_LISTXATTRAT, "listxattrat", ARGS(0), SECCOMP_RET_ALLOW, "allowed");
	expect_nr(v, abi, NR_FILE_SETATTR, "file_setattr", ARGS(0), RET_EPERM, "refused");
	expect_nr(v, abi, NR_FILE_GETATTR, "file_getattr", ARGS(0), SECCOMP_RET_ALLOW, "allowed");
	expect_nr(v, abi, NR_STATMOUNT, "statmount", ARGS(0), RET_EPERM, "refused");
	expect_nr(v, abi, NR_LISTMOUNT, "listmount", ARGS(0), RET_EPERM, "refused");

	static const struct {
		uint32_t cmd;
		const char *what;
	} flag_ioctls[] = {
	    {FS_IOC_SETFLAGS, "FS_IOC_SETFLAGS"},
	    {FS_IOC32_SETFLAGS, "FS_IOC32_SETFLAGS"},
	    {FS_IOC_FSSETXATTR, "FS_IOC_FSSETXATTR"},
	    {FS_IOC_SETVERSION, "FS_IOC_SETVERSION"},
	};
	for (size_t i = 0; i < N_ELEMS(flag_ioctls); i++) {
		char what[64];
		snprintf(what, sizeof what, "(%s) refused", flag_ioctls[i].what);
		expect(v, abi, "ioctl", ARGS(3, flag_ioctls[i].cmd), RET_EPERM, what);
		snprintf(what, sizeof what, "(%s | upper bits) refused", flag_ioctls[i].what);
		expect(v, abi, "ioctl", ARGS(3, flag_ioctls[i].cmd | 0x700000000ull), RET_EPERM,
		       what);
	}
	expect(v, abi, "ioctl", ARGS(3, FS_IOC_GETFLAGS), SECCOMP_RET_ALLOW,
	       "(FS_IOC_GETFLAGS) allowed");
	expect(v, abi, "ioctl", ARGS(3, FS_IOC_FSGETXATTR), SECCOMP_RET_ALLOW,
	       "(FS_IOC_FSGETXATTR) allowed");
}

/* The fullest variant a cage can ask for. */
static int last_variant(void)
{
	int last = 0;
	for_each_variant(v)
		last = v;
	return last;
}

void test_metadata(void)
{
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			check_metadata(v, &abis[a]);
			/* Exact over every mode on the default and the fullest variant. */
			if (v == 0 || v == last_variant())
				check_modes_exact(v, &abis[a]);
		}
}

static const char *const sysv_calls[] = {
    "shmget",	  "shmat",  "shmdt",  "shmctl", "semget", "semop", "semctl",
    "semtimedop", "msgget", "msgsnd", "msgrcv", "msgctl", "ipc",   "semtimedop_time64",
    /* POSIX message queues: the same namespace */
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedsend_time64", "mq_timedreceive",
    "mq_timedreceive_time64", "mq_notify", "mq_getsetattr"};

void test_sysv_ipc(void)
{
	for_each_variant(v) {
		uint32_t want = variant_own_ipc(v) ? SECCOMP_RET_ALLOW : RET_EPERM;
		const char *what = variant_own_ipc(v) ? "allowed (an IPC namespace of its own)"
						      : "refused (the host's IPC namespace)";
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			const struct abi *abi = &abis[a];
			for (size_t i = 0; i < N_ELEMS(sysv_calls); i++) {
				expect(v, abi, sysv_calls[i], ARGS(IPC_PRIVATE, 4096, 0600), want,
				       what);
			}
			/*
			 * i386's direct calls, which libseccomp names only through
			 * ipc: refused by number there; x86_64 and x32 have no such
			 * numbers (the kernel answers ENOSYS), and they are left alone.
			 */
			for (size_t i = 0; i < seccomp_n_i386_sysv_calls; i++) {
				const struct seccomp_new_call *c = &seccomp_i386_sysv_calls[i];
				bool i386 = abi->audit_arch == AUDIT_ARCH_I386;
				expect_nr(v, abi, c->nr, c->name, ARGS(0),
					  i386 ? want : SECCOMP_RET_ALLOW,
					  i386 ? what : "(not a call here) left to the kernel");
			}
		}
	}
	sim_ok(seccomp_n_i386_sysv_calls == 10 && seccomp_i386_sysv_calls[0].nr == 393 &&
		   seccomp_i386_sysv_calls[9].nr == 402,
	       "i386's direct SysV calls are 393 (semget) to 402 (msgctl)");
}

/* Each call aimed at a process by pid: pid 0 allowed, any other refused. */
static void check_pid_call(int v, const struct abi *abi, const struct seccomp_pid_call *c)
{
	static const uint64_t others[] = {1, 2, 4242, 0xffffffffull /* -1 */,
					  0x100000000ull /* 0 to the kernel, upper bits */};
	/* x32's filter compares the 32 bits the kernel reads: that is pid 0. */
	bool wide = abi->audit_arch == AUDIT_ARCH_X86_64 && !abi->x32;
	uint64_t args[6] = {0};
	/* The caller, named the way the C library names it. */
	if (c->self_arg >= 0)
		args[c->self_arg] = c->self_value;
	if (strcmp(c->name, "prlimit64") == 0)
		args[2] = 0x7ffc0000; /* a new limit */
	expect(v, abi, c->name, args, SECCOMP_RET_ALLOW, "(the caller, pid 0) allowed");
	for (size_t i = 0; i < N_ELEMS(others); i++) {
		if (!wide && others[i] > 0xffffffffu)
			continue; /* i386 and x32: the 32 bits the kernel reads */
		args[c->pid_arg] = others[i];
		char what[80];
		snprintf(what, sizeof what, "(pid %#llx) refused", (unsigned long long)others[i]);
		expect(v, abi, c->name, args, RET_EPERM, what);
	}
	args[c->pid_arg] = 0;
	if (c->self_arg >= 0) {
		for (uint64_t kind = 0; kind < 4; kind++) {
			if (kind == c->self_value)
				continue;
			args[c->self_arg] = kind;
			char what[80];
			snprintf(what, sizeof what, "(kind %llu, who 0: a group or a user) refused",
				 (unsigned long long)kind);
			expect(v, abi, c->name, args, RET_EPERM, what);
		}
	}
}

void test_pid_targets(void)
{
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			const struct abi *abi = &abis[a];
			for (size_t i = 0; i < seccomp_n_pid_calls; i++)
				check_pid_call(v, abi, &seccomp_pid_calls[i]);
			/* glibc's nice and setrlimit, and the get forms of any process. */
			expect(v, abi, "setpriority", ARGS(PRIO_PROCESS, 0, 5), SECCOMP_RET_ALLOW,
			       "(nice: PRIO_PROCESS, 0) allowed");
			expect(v, abi, "prlimit64", ARGS(0, RLIMIT_NOFILE, 0x7ffc0000, 0),
			       SECCOMP_RET_ALLOW, "(setrlimit: pid 0) allowed");
			expect(v, abi, "getpriority", ARGS(PRIO_PROCESS, 4242), SECCOMP_RET_ALLOW,
			       "(another process) allowed");
			expect(v, abi, "sched_getaffinity", ARGS(4242, 128, 0x7ffc0000),
			       SECCOMP_RET_ALLOW, "(another process) allowed");
			expect(v, abi, "ioprio_get", ARGS(IOPRIO_WHO_PROCESS, 4242),
			       SECCOMP_RET_ALLOW, "(another process) allowed");
		}
	static const char *const must[] = {
	    "prlimit64",      "setpriority",	   "ioprio_set",   "sched_setscheduler",
	    "sched_setparam", "sched_setaffinity", "sched_setattr"};
	for (size_t i = 0; i < N_ELEMS(must); i++) {
		bool found = false;
		for (size_t j = 0; j < seccomp_n_pid_calls; j++)
			found |= strcmp(seccomp_pid_calls[j].name, must[i]) == 0;
		sim_ok(found, "the rules limit %s to the caller", must[i]);
	}
}

/* What a supervisor names, and answers, for the new refusals. */
void test_report_names(void)
{
	static const struct {
		uint32_t arch;
		int nr;
		const char *name;
		int err;
	} rows[] = {
		{ AUDIT_ARCH_X86_64, 90, "chmod", EPERM },
		{ AUDIT_ARCH_X86_64, 268, "fchmodat", EPERM },
		{ AUDIT_ARCH_X86_64, 452, "fchmodat2", EPERM },
		{ AUDIT_ARCH_X86_64, 190, "fsetxattr", EOPNOTSUPP },
		{ AUDIT_ARCH_X86_64, NR_SETXATTRAT, "setxattrat", EOPNOTSUPP },
		{ AUDIT_ARCH_X86_64, NR_LISTMOUNT, "listmount", EPERM },
		{ AUDIT_ARCH_X86_64, NR_FILE_SETATTR, "file_setattr", EPERM },
		{ AUDIT_ARCH_X86_64, 302, "prlimit64", EPERM },
		{ AUDIT_ARCH_X86_64, 29, "shmget", EPERM },
		{ AUDIT_ARCH_X86_64, (int)(X32_SYSCALL_BIT | 29), "shmget", EPERM },
		{ AUDIT_ARCH_I386, 117, "ipc", EPERM },
		{ AUDIT_ARCH_I386, 395, "shmget", EPERM },
		{ AUDIT_ARCH_I386, 228, "fsetxattr", EOPNOTSUPP },
	};
	for (size_t i = 0; i < N_ELEMS(rows); i++) {
		const char *name = notify_call_name(rows[i].arch, rows[i].nr);
		int err = notify_call_errno(rows[i].arch, rows[i].nr);
		sim_ok(strcmp(name, rows[i].name) == 0 && err == rows[i].err,
		       "a report names %#x/%d %s (got %s) and answers %s (got %s)", rows[i].arch,
		       rows[i].nr, rows[i].name, name, strerror(rows[i].err), strerror(err));
	}
}
