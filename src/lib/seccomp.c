/*
 * The cage's seccomp filter.
 *
 * A denylist: everything is allowed except the calls below. Landlock decides
 * what files the child may reach; this filter takes away the kernel
 * interfaces that would let it step around Landlock or the namespaces
 * (mounts, new namespaces, ptrace, io_uring, raw sockets...), and the ones
 * no sandboxed program needs (modules, kexec, setting the clock...).
 *
 * The filter is built with libseccomp in the parent, exported as classic BPF
 * into memory, and installed by the child with one system call. It covers
 * the three x86 ABIs a 64-bit kernel runs: x86_64, x32 (same audit arch,
 * numbers with bit 30 set) and i386 (int 0x80 from any process).
 *
 * Every argument the rules look at is 32 bits wide to the kernel (an int or
 * unsigned int, or flags it truncates to 32 bits). libseccomp compares x32
 * and i386 arguments on their low 32 bits; on x86_64 the rules either mask
 * to the low bits or treat upper bits as an unknown value and refuse.
 */
#include "seccomp.h"

/*
 * libseccomp's header has the same name as ours: with -Isrc/lib it would be
 * shadowed. The build must name src/lib with -iquote; fail loudly if not.
 */
#include <seccomp.h>
#ifndef SCMP_VER_MAJOR
#error "libseccomp's <seccomp.h> is shadowed by src/lib/seccomp.h: use -iquote src/lib"
#endif

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* The ABIs the filter covers; any other audit arch kills the process. */
static const uint32_t filter_arches[] = { SCMP_ARCH_X86_64, SCMP_ARCH_X32, SCMP_ARCH_X86 };

struct refused_call {
	const char *name;
	int err;
};

/*
 * Calls refused whatever their arguments. Names absent on one ABI (umount
 * and socketcall exist only on i386, kexec_file_load not there) are left out
 * of that ABI's part by libseccomp.
 */
static const struct refused_call refused_calls[] = {
	/* io_uring runs file and network operations seccomp never sees. */
	{ "io_uring_setup", EPERM },
	{ "io_uring_enter", EPERM },
	{ "io_uring_register", EPERM },
	/* Reaching into other processes. */
	{ "ptrace", EPERM },
	{ "process_vm_readv", EPERM },
	{ "process_vm_writev", EPERM },
	{ "kcmp", EPERM },
	{ "pidfd_getfd", EPERM },
	{ "process_madvise", EPERM },
	/* Large kernel attack surface no sandboxed program needs. */
	{ "bpf", EPERM },
	{ "perf_event_open", EPERM },
	{ "userfaultfd", EPERM },
	/* The keyring is shared by the user's sessions, outside the cage. */
	{ "keyctl", EPERM },
	{ "add_key", EPERM },
	{ "request_key", EPERM },
	/* Changing the running kernel. */
	{ "kexec_load", EPERM },
	{ "kexec_file_load", EPERM },
	{ "init_module", EPERM },
	{ "finit_module", EPERM },
	{ "delete_module", EPERM },
	/* The mount API: in a user namespace it could undo the cage's masks. */
	{ "mount", EPERM },
	{ "umount", EPERM },
	{ "umount2", EPERM },
	{ "pivot_root", EPERM },
	{ "move_mount", EPERM },
	{ "open_tree", EPERM },
	{ "fsopen", EPERM },
	{ "fsconfig", EPERM },
	{ "fsmount", EPERM },
	{ "fspick", EPERM },
	{ "mount_setattr", EPERM },
	{ "chroot", EPERM },
	/* Joining another namespace; creating one is handled by flag below. */
	{ "setns", EPERM },
	/* Opens a file by handle, bypassing the path walk Landlock checks. */
	{ "open_by_handle_at", EPERM },
	/* Host administration. */
	{ "acct", EPERM },
	{ "swapon", EPERM },
	{ "swapoff", EPERM },
	{ "reboot", EPERM },
	{ "quotactl", EPERM },
	{ "quotactl_fd", EPERM },
	{ "syslog", EPERM },
	{ "vhangup", EPERM },
	{ "iopl", EPERM },
	{ "ioperm", EPERM },
	{ "lookup_dcookie", EPERM },
	{ "uselib", EPERM },
	{ "nfsservctl", EPERM },
	{ "fanotify_init", EPERM },
	/* Setting the clock (stime and the *64 calls are i386's). */
	{ "settimeofday", EPERM },
	{ "stime", EPERM },
	{ "clock_settime", EPERM },
	{ "clock_settime64", EPERM },
	{ "adjtimex", EPERM },
	{ "clock_adjtime", EPERM },
	{ "clock_adjtime64", EPERM },
	/*
	 * i386 multiplexes every socket call through socketcall with its
	 * arguments in memory, where BPF cannot read them: the socket family
	 * rules could not hold, so socketcall is refused as a whole. The
	 * direct i386 socket calls (socket, socketpair...) stay, under the
	 * same argument rules as the other ABIs.
	 */
	{ "socketcall", EPERM },
	/* clone3 passes its flags in memory; ENOSYS makes libc use clone. */
	{ "clone3", ENOSYS },
};

/*
 * Calls newer than the libseccomp this was written against (2.5.4), which
 * cannot name them. Their numbers are the same on all three ABIs (the
 * numbering is shared from 424 on); the filter gets a short prologue that
 * refuses them before libseccomp's part runs.
 */
static const struct {
	const char *name;
	uint32_t nr;
} refused_new_calls[] = {
	{ "open_tree_attr", 467 }, /* open_tree with mount attributes (Linux 6.15) */
};

#define X32_SYSCALL_BIT 0x40000000u

/*
 * Namespace flags refused in clone and unshare. CLONE_NEWTIME shares its
 * bit with the exit signal field of clone (CSIGNAL), which clone cannot
 * use to make a time namespace; it is refused for unshare only.
 */
static const uint64_t namespace_flags[] = {
	CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWNET,	 CLONE_NEWPID,
	CLONE_NEWUTS,  CLONE_NEWIPC, CLONE_NEWCGROUP, CLONE_NEWTIME,
};

/* On all three x86 ABIs clone takes its flags first (CLONE_BACKWARDS on
 * i386 only swaps the tls and child_tid arguments). */
#define CLONE_FLAGS_ARG 0

/* Personality bits that weaken the memory layout of what runs next. */
#define PERSONALITY_REFUSED                                                               \
	((uint32_t)(ADDR_NO_RANDOMIZE | READ_IMPLIES_EXEC | ADDR_COMPAT_LAYOUT |         \
		    MMAP_PAGE_ZERO | ADDR_LIMIT_32BIT | ADDR_LIMIT_3GB))

static const char *err_text(int rc)
{
	return strerror(rc < 0 ? -rc : rc);
}

/*
 * Refuse `name` with errno `err` when every comparison holds. The name must
 * be a real system call on at least one of the filter's ABIs: a typo or a
 * call libseccomp does not know is an error, never a rule silently dropped.
 */
static int add_rule(scmp_filter_ctx ctx, const char *name, int err, unsigned int n_cmp,
		    const struct scmp_arg_cmp *cmp, struct procage_error *perr)
{
	bool known = false;
	for (size_t i = 0; i < sizeof filter_arches / sizeof filter_arches[0]; i++)
		known |= seccomp_syscall_resolve_name_arch(filter_arches[i], name) >= 0;
	int nr = seccomp_syscall_resolve_name(name);
	if (!known || nr == __NR_SCMP_ERROR)
		return error_set(perr, -EINVAL,
				 "seccomp filter: libseccomp does not know the system call %s", name);
	int rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(err), nr, n_cmp, cmp);
	if (rc < 0)
		return error_set(perr, rc, "seccomp filter: seccomp_rule_add for %s: %s", name,
				 err_text(rc));
	return 0;
}

static int add_refused_calls(scmp_filter_ctx ctx, struct procage_error *err)
{
	for (size_t i = 0; i < sizeof refused_calls / sizeof refused_calls[0]; i++) {
		int rc = add_rule(ctx, refused_calls[i].name, refused_calls[i].err, 0, NULL, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One rule per flag: libseccomp allows one comparison per argument. */
static int add_namespace_rules(scmp_filter_ctx ctx, struct procage_error *err)
{
	for (size_t i = 0; i < sizeof namespace_flags / sizeof namespace_flags[0]; i++) {
		uint64_t flag = namespace_flags[i];
		struct scmp_arg_cmp unshare_cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
		struct scmp_arg_cmp clone_cmp = SCMP_CMP(CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, flag,
							 flag);
		int rc = add_rule(ctx, "unshare", EPERM, 1, &unshare_cmp, err);
		if (rc == 0 && flag != CLONE_NEWTIME)
			rc = add_rule(ctx, "clone", EPERM, 1, &clone_cmp, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The kernel reads the ioctl command as 32 bits: compare only those, so a
 * caller setting upper bits of the register does not slip past.
 */
static int add_ioctl_rules(scmp_filter_ctx ctx, struct procage_error *err)
{
	/* TIOCSTI pushes input into the terminal, TIOCLINUX can paste a
	 * selection: both type commands into the user's shell outside. */
	static const uint64_t refused[] = { TIOCSTI, TIOCLINUX };
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		struct scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, refused[i]);
		int rc = add_rule(ctx, "ioctl", EPERM, 1, &cmp, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Refuse personality(x) when the low 32 bits of x (all the kernel reads)
 * set a bit of PERSONALITY_REFUSED, unless x is the query 0xffffffff.
 *
 * libseccomp takes one comparison per argument in a rule, so "sets a
 * refused bit and is not 0xffffffff" is written as a union of masked
 * compares. Any value other than 0xffffffff has a highest clear bit z, all
 * bits above it set. For each z: when a refused bit lies above z, the whole
 * group is refused by one rule; otherwise one rule per refused bit below z.
 * That is exact: it refuses no value the condition keeps, and the reverse.
 */
static int add_personality_rules(scmp_filter_ctx ctx, struct procage_error *err)
{
	for (int z = 31; z >= 0; z--) {
		uint32_t clear = 1u << z;
		uint32_t above = (uint32_t)(0xffffffffu << z) << 1; /* bits z+1..31 */
		uint32_t mask = above | clear;
		int rc = 0;
		if (above & PERSONALITY_REFUSED) {
			struct scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, mask, above);
			rc = add_rule(ctx, "personality", EPERM, 1, &cmp, err);
		}
		for (uint32_t bit = 1; rc == 0 && !(above & PERSONALITY_REFUSED) && bit < clear;
		     bit <<= 1) {
			if (!(bit & PERSONALITY_REFUSED))
				continue;
			struct scmp_arg_cmp cmp =
				SCMP_A0(SCMP_CMP_MASKED_EQ, mask | bit, above | bit);
			rc = add_rule(ctx, "personality", EPERM, 1, &cmp, err);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool family_allowed(int family, bool network_on)
{
	if (family == AF_UNIX)
		return true;
	/* NETLINK_ROUTE only (see add_ip_rules): glibc's getaddrinfo and
	 * if_nameindex read the interface list through it. */
	return network_on && (family == AF_INET || family == AF_INET6 || family == AF_NETLINK);
}

/*
 * socket(family, ...) is refused for every family but the allowed ones.
 * One comparison per argument again: refuse everything above the highest
 * allowed family (this also takes families added to the kernel later, and
 * 64-bit values with upper bits set), and each value below it that is not
 * allowed.
 */
static int add_family_rules(scmp_filter_ctx ctx, bool network_on, struct procage_error *err)
{
	int highest = 0;
	for (int family = 0; family < AF_MAX; family++)
		if (family_allowed(family, network_on))
			highest = family;
	struct scmp_arg_cmp above = SCMP_A0(SCMP_CMP_GT, (uint64_t)highest);
	int rc = add_rule(ctx, "socket", EPERM, 1, &above, err);
	for (int family = 0; rc == 0 && family < highest; family++) {
		if (family_allowed(family, network_on))
			continue;
		struct scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_EQ, (uint64_t)family);
		rc = add_rule(ctx, "socket", EPERM, 1, &cmp, err);
	}
	/* Only AF_UNIX makes socket pairs worth having. */
	struct scmp_arg_cmp not_unix = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
	if (rc == 0)
		rc = add_rule(ctx, "socketpair", EPERM, 1, &not_unix, err);
	return rc;
}

/*
 * With the network on, IP sockets are limited to ordinary TCP, UDP and
 * ping sockets, netlink to NETLINK_ROUTE.
 */
static int add_ip_rules(scmp_filter_ctx ctx, struct procage_error *err)
{
	static const int ip_families[] = { AF_INET, AF_INET6 };
	/* The type's low 4 bits; SOCK_NONBLOCK and SOCK_CLOEXEC live above.
	 * SOCK_PACKET with AF_INET is the kernel's old spelling of AF_PACKET. */
	static const uint64_t refused_types[] = { SOCK_RAW, SOCK_PACKET };
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof ip_families / sizeof ip_families[0]; i++) {
		struct scmp_arg_cmp family = SCMP_A0(SCMP_CMP_EQ, (uint64_t)ip_families[i]);
		for (size_t t = 0; rc == 0 && t < sizeof refused_types / sizeof refused_types[0];
		     t++) {
			struct scmp_arg_cmp cmp[] = {
				family, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, refused_types[t])
			};
			rc = add_rule(ctx, "socket", EPERM, 2, cmp, err);
		}
		/* MPTCP: a separate transport with its own, younger code. */
		struct scmp_arg_cmp mptcp[] = {
			family, SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffffffu, IPPROTO_MPTCP)
		};
		if (rc == 0)
			rc = add_rule(ctx, "socket", EPERM, 2, mptcp, err);
	}
	struct scmp_arg_cmp netlink[] = { SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
					  SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE) };
	if (rc == 0)
		rc = add_rule(ctx, "socket", EPERM, 2, netlink, err);
	return rc;
}

static int set_attr(scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t value,
		    const char *what, struct procage_error *err)
{
	int rc = seccomp_attr_set(ctx, attr, value);
	if (rc < 0)
		return error_set(err, rc, "seccomp filter: seccomp_attr_set(%s): %s", what,
				 err_text(rc));
	return 0;
}

/* A denylist context covering exactly the three x86 ABIs. */
static int context_new(scmp_filter_ctx *out, struct procage_error *err)
{
	uint32_t native = seccomp_arch_native();
	bool native_covered = false;
	for (size_t i = 0; i < sizeof filter_arches / sizeof filter_arches[0]; i++)
		native_covered |= native == filter_arches[i];
	if (!native_covered)
		return error_set(err, -EOPNOTSUPP,
				 "seccomp filter: only the x86 ABIs are supported (native arch %#x)",
				 native);
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return error_set(err, -ENOMEM, "seccomp filter: seccomp_init failed");
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof filter_arches / sizeof filter_arches[0]; i++) {
		if (seccomp_arch_exist(ctx, filter_arches[i]) == 0)
			continue;
		rc = seccomp_arch_add(ctx, filter_arches[i]);
		if (rc < 0)
			error_set(err, rc, "seccomp filter: seccomp_arch_add(%#x): %s",
				  filter_arches[i], err_text(rc));
	}
	/* Anything else (another audit arch) is not a program we cage. */
	if (rc == 0)
		rc = set_attr(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS, "bad arch", err);
	/* The child sets no_new_privs itself, as a step of its own. */
	if (rc == 0)
		rc = set_attr(ctx, SCMP_FLTATR_CTL_NNP, 0, "no_new_privs", err);
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
	/* A binary tree over call numbers; only speed depends on it, so a
	 * library that refuses the attribute is not an error. */
	if (rc == 0)
		(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
#endif
	if (rc < 0) {
		seccomp_release(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

#define N_NEW_CALLS (sizeof refused_new_calls / sizeof refused_new_calls[0])
#define PROLOGUE_LEN (6 + N_NEW_CALLS)

/*
 * The prologue refusing refused_new_calls on x86_64, x32 and i386, then
 * falling through to libseccomp's program, which loads what it needs
 * itself. Classic BPF jumps are relative and only forward, so instructions
 * put in front change none of libseccomp's jumps.
 */
static void write_prologue(struct sock_filter *f)
{
	const size_t n = N_NEW_CALLS;
	size_t i = 0;
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	/* Neither x86_64 nor i386: straight to libseccomp's part. */
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0,
					      (uint8_t)(n + 3));
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	/* An x32 number is the shared number with the x32 bit set. */
	f[i++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_SYSCALL_BIT);
	for (size_t j = 0; j < n; j++)
		f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      refused_new_calls[j].nr,
						      (uint8_t)(n - 1 - j), j == n - 1 ? 1 : 0);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
}

/* Read the whole of fd (at most size bytes) from its start. */
static int read_all(int fd, void *buf, size_t size)
{
	size_t done = 0;
	while (done < size) {
		ssize_t got = pread(fd, (char *)buf + done, size - done, (off_t)done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		done += (size_t)got;
	}
	return 0;
}

/*
 * libseccomp 2.5 exports only to a file descriptor: export into a memfd and
 * read the program back, after the prologue.
 */
static int export_program(scmp_filter_ctx ctx, struct sock_fprog *prog,
			  struct procage_error *err)
{
	int fd = memfd_create("procage-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE,
				     "seccomp filter: memfd_create");
	int rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0) {
		close(fd);
		return error_set(err, rc, "seccomp filter: seccomp_export_bpf: %s", err_text(rc));
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "seccomp filter: fstat of memfd");
		close(fd);
		return rc;
	}
	size_t size = (size_t)st.st_size, n = size / sizeof(struct sock_filter);
	if (size == 0 || size % sizeof(struct sock_filter) != 0 ||
	    n + PROLOGUE_LEN > BPF_MAXINSNS) {
		close(fd);
		return error_set(err, -E2BIG,
				 "seccomp filter: exported program of %zu bytes does not fit "
				 "in %d instructions",
				 size, BPF_MAXINSNS);
	}
	struct sock_filter *filter = calloc(n + PROLOGUE_LEN, sizeof *filter);
	if (!filter) {
		close(fd);
		return error_set(err, -ENOMEM, "seccomp filter: out of memory");
	}
	write_prologue(filter);
	rc = read_all(fd, filter + PROLOGUE_LEN, size);
	close(fd);
	if (rc < 0) {
		free(filter);
		return error_set_sys(err, -rc, PROCAGE_STEP_NONE,
				     "seccomp filter: reading the exported program");
	}
	prog->filter = filter;
	prog->len = (unsigned short)(n + PROLOGUE_LEN);
	return 0;
}

int seccomp_program_build(const struct seccomp_options *opts, struct sock_fprog *prog,
			  struct procage_error *err)
{
	if (!opts || !prog)
		return error_set(err, -EINVAL, "seccomp filter: no options or no program");
	prog->filter = NULL;
	prog->len = 0;
	scmp_filter_ctx ctx = NULL;
	int rc = context_new(&ctx, err);
	if (rc < 0)
		return rc;
	rc = add_refused_calls(ctx, err);
	if (rc == 0)
		rc = add_namespace_rules(ctx, err);
	if (rc == 0)
		rc = add_ioctl_rules(ctx, err);
	if (rc == 0)
		rc = add_personality_rules(ctx, err);
	if (rc == 0)
		rc = add_family_rules(ctx, opts->network_on, err);
	if (rc == 0 && opts->network_on)
		rc = add_ip_rules(ctx, err);
	if (rc == 0)
		rc = export_program(ctx, prog, err);
	seccomp_release(ctx);
	return rc;
}

void seccomp_program_free(struct sock_fprog *prog)
{
	if (!prog)
		return;
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}

/*
 * Runs in the child between fork and exec: one system call, nothing else
 * (no allocation, no lock). glibc's syscall() only sets errno.
 */
int seccomp_program_install(const struct sock_fprog *prog)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) == 0)
		return 0;
	return -errno;
}
