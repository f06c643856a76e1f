/*
 * The cage's seccomp programs, built with libseccomp from seccomp_rules.c.
 *
 * They cover the three x86 ABIs a 64-bit kernel runs: x86_64, x32 (same
 * audit arch, numbers with bit 30 set) and i386 (int 0x80 from any
 * process). Every argument the rules look at is 32 bits wide to the kernel
 * (an int or unsigned int, or flags it truncates to 32 bits). libseccomp
 * compares x32 and i386 arguments on their low 32 bits; on x86_64 the rules
 * either mask to the low bits or treat upper bits as an unknown value and
 * refuse.
 *
 * A refusal is SECCOMP_RET_ERRNO with the rule's errno, or, in the report
 * variant, SECCOMP_RET_USER_NOTIF for every EPERM refusal so that a
 * supervisor learns of it (clone3's ENOSYS stays: libc falls back on it).
 */
#include "seccomp_build.h"

/*
 * libseccomp's header has the same name as src/lib/seccomp.h: with
 * -Isrc/lib it would be shadowed. The build must name src/lib with
 * -iquote; fail loudly if not.
 */
#include <seccomp.h>
#ifndef SCMP_VER_MAJOR
#error "libseccomp's <seccomp.h> is shadowed by src/lib/seccomp.h: use -iquote src/lib"
#endif

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "seccomp_rules.h"

/* The ABIs the filter covers, in this order; any other audit arch kills. */
static const uint32_t filter_arches[] = { SCMP_ARCH_X86_64, SCMP_ARCH_X32, SCMP_ARCH_X86 };
#define N_ARCHES (sizeof filter_arches / sizeof filter_arches[0])

/* libseccomp API level 5: SCMP_ACT_KILL_PROCESS and SCMP_ACT_NOTIFY. */
#define SCMP_API_LEVEL 5

#define X32_SYSCALL_BIT 0x40000000u

/* On all three x86 ABIs clone takes its flags first (CLONE_BACKWARDS on
 * i386 only swaps the tls and child_tid arguments). */
#define CLONE_FLAGS_ARG 0

static const char *err_text(int rc)
{
	return strerror(rc < 0 ? -rc : rc);
}

/* What a refusal with errno err returns in this variant. */
static uint32_t refusal_action(const struct seccomp_options *opts, int err)
{
	return opts->report && err == EPERM ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(err);
}

/*
 * Refuse `name` with errno `err` when every comparison holds. The name must
 * be a real system call on at least one of the filter's ABIs: a typo or a
 * call libseccomp does not know is an error, never a rule silently dropped.
 */
static int add_rule(scmp_filter_ctx ctx, const struct seccomp_options *opts, const char *name,
		    int err, unsigned int n_cmp, const struct scmp_arg_cmp *cmp,
		    struct procage_error *perr)
{
	bool known = false;
	for (size_t i = 0; i < N_ARCHES; i++)
		known |= seccomp_syscall_resolve_name_arch(filter_arches[i], name) >= 0;
	/* libseccomp takes the native number (or its pseudo-number for a call
	 * the native ABI lacks) and translates it for each ABI. */
	int nr = seccomp_syscall_resolve_name(name);
	if (!known || nr == __NR_SCMP_ERROR)
		return error_set(perr, -EINVAL,
				 "seccomp filter: libseccomp does not know the system call %s", name);
	int rc = seccomp_rule_add_array(ctx, refusal_action(opts, err), nr, n_cmp, cmp);
	if (rc < 0)
		return error_set(perr, rc, "seccomp filter: seccomp_rule_add for %s: %s", name,
				 err_text(rc));
	return 0;
}

static int add_refused_calls(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			     struct procage_error *err)
{
	for (size_t i = 0; i < seccomp_n_refused_calls; i++) {
		const struct seccomp_refused_call *c = &seccomp_refused_calls[i];
		int rc = add_rule(ctx, opts, c->name, c->err, 0, NULL, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One rule per flag: libseccomp allows one comparison per argument. */
static int add_namespace_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			       struct procage_error *err)
{
	for (size_t i = 0; i < seccomp_n_namespace_flags; i++) {
		uint64_t flag = seccomp_namespace_flags[i];
		struct scmp_arg_cmp unshare_cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
		struct scmp_arg_cmp clone_cmp = SCMP_CMP(CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, flag,
							 flag);
		int rc = add_rule(ctx, opts, "unshare", EPERM, 1, &unshare_cmp, err);
		if (rc == 0 && flag != CLONE_NEWTIME)
			rc = add_rule(ctx, opts, "clone", EPERM, 1, &clone_cmp, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The kernel reads the ioctl command as 32 bits: compare only those, so a
 * caller setting upper bits of the register does not slip past.
 */
static int add_ioctl_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			   struct procage_error *err)
{
	for (size_t i = 0; i < seccomp_n_refused_ioctls; i++) {
		struct scmp_arg_cmp cmp =
			SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, seccomp_refused_ioctls[i]);
		int rc = add_rule(ctx, opts, "ioctl", EPERM, 1, &cmp, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Refuse personality(x) when the low 32 bits of x set a bit of
 * SECCOMP_PERSONALITY_REFUSED, unless x is the query 0xffffffff.
 *
 * libseccomp takes one comparison per argument in a rule, so "sets a
 * refused bit and is not 0xffffffff" is written as a union of masked
 * compares. Any value other than 0xffffffff has a highest clear bit z, all
 * bits above it set. For each z: when a refused bit lies above z, the whole
 * group is refused by one rule; otherwise one rule per refused bit below z.
 * That is exact: it refuses no value the condition keeps, and the reverse.
 */
static int add_personality_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
				 struct procage_error *err)
{
	const uint32_t refused = SECCOMP_PERSONALITY_REFUSED;
	for (int z = 31; z >= 0; z--) {
		uint32_t clear = 1u << z;
		uint32_t above = (uint32_t)(0xffffffffu << z) << 1; /* bits z+1..31 */
		uint32_t mask = above | clear;
		int rc = 0;
		if (above & refused) {
			struct scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, mask, above);
			rc = add_rule(ctx, opts, "personality", EPERM, 1, &cmp, err);
		}
		for (uint32_t bit = 1; rc == 0 && !(above & refused) && bit < clear; bit <<= 1) {
			if (!(bit & refused))
				continue;
			struct scmp_arg_cmp cmp =
				SCMP_A0(SCMP_CMP_MASKED_EQ, mask | bit, above | bit);
			rc = add_rule(ctx, opts, "personality", EPERM, 1, &cmp, err);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * socket(family, ...) is refused for every family but the allowed ones.
 * One comparison per argument again: refuse everything above the highest
 * allowed family (this also takes families added to the kernel later, and
 * 64-bit values with upper bits set), and each value below it that is not
 * allowed.
 */
static int add_family_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			    struct procage_error *err)
{
	int highest = 0;
	for (int family = 0; family < AF_MAX; family++)
		if (seccomp_family_allowed(family, opts->network_on))
			highest = family;
	struct scmp_arg_cmp above = SCMP_A0(SCMP_CMP_GT, (uint64_t)highest);
	int rc = add_rule(ctx, opts, "socket", EPERM, 1, &above, err);
	for (int family = 0; rc == 0 && family < highest; family++) {
		if (seccomp_family_allowed(family, opts->network_on))
			continue;
		struct scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_EQ, (uint64_t)family);
		rc = add_rule(ctx, opts, "socket", EPERM, 1, &cmp, err);
	}
	/* Only AF_UNIX makes socket pairs worth having. */
	struct scmp_arg_cmp not_unix = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
	if (rc == 0)
		rc = add_rule(ctx, opts, "socketpair", EPERM, 1, &not_unix, err);
	return rc;
}

/*
 * With the network on, IP sockets are limited to ordinary TCP, UDP and
 * ping sockets, netlink to NETLINK_ROUTE.
 */
static int add_ip_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			struct procage_error *err)
{
	static const int ip_families[] = { AF_INET, AF_INET6 };
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof ip_families / sizeof ip_families[0]; i++) {
		struct scmp_arg_cmp family = SCMP_A0(SCMP_CMP_EQ, (uint64_t)ip_families[i]);
		/* The type's low 4 bits; SOCK_NONBLOCK and SOCK_CLOEXEC live above. */
		for (size_t t = 0; rc == 0 && t < seccomp_n_refused_ip_types; t++) {
			struct scmp_arg_cmp cmp[] = {
				family, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf,
						(uint64_t)seccomp_refused_ip_types[t])
			};
			rc = add_rule(ctx, opts, "socket", EPERM, 2, cmp, err);
		}
		struct scmp_arg_cmp protocol[] = {
			family,
			SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffffffu, SECCOMP_REFUSED_IP_PROTOCOL)
		};
		if (rc == 0)
			rc = add_rule(ctx, opts, "socket", EPERM, 2, protocol, err);
	}
	struct scmp_arg_cmp netlink[] = { SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
					  SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE) };
	if (rc == 0)
		rc = add_rule(ctx, opts, "socket", EPERM, 2, netlink, err);
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

/*
 * The ABIs exactly, in filter_arches' order whatever the build machine's
 * own ABI is: seccomp_init starts with the native one.
 */
static int context_arches(scmp_filter_ctx ctx, struct procage_error *err)
{
	uint32_t native = seccomp_arch_native();
	int rc = 0;
	if (native != filter_arches[0] && (rc = seccomp_arch_remove(ctx, native)) < 0)
		return error_set(err, rc, "seccomp filter: seccomp_arch_remove(%#x): %s", native,
				 err_text(rc));
	for (size_t i = 0; i < N_ARCHES; i++) {
		if (seccomp_arch_exist(ctx, filter_arches[i]) == 0)
			continue;
		if ((rc = seccomp_arch_add(ctx, filter_arches[i])) < 0)
			return error_set(err, rc, "seccomp filter: seccomp_arch_add(%#x): %s",
					 filter_arches[i], err_text(rc));
	}
	return 0;
}

/* A denylist context covering exactly the three x86 ABIs. */
static int context_new(scmp_filter_ctx *out, struct procage_error *err)
{
	/*
	 * Tell libseccomp the kernel API the program needs instead of letting
	 * it probe the build machine's kernel: the program must not depend on
	 * where it was built (or whether seccomp(2) works there, as under
	 * valgrind).
	 */
	int rc = seccomp_api_set(SCMP_API_LEVEL);
	if (rc < 0)
		return error_set(err, rc, "seccomp filter: seccomp_api_set(%d): %s",
				 SCMP_API_LEVEL, err_text(rc));
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return error_set(err, -ENOMEM, "seccomp filter: seccomp_init failed");
	rc = context_arches(ctx, err);
	/* Anything else (another audit arch) is not a program we cage. */
	if (rc == 0)
		rc = set_attr(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS, "bad arch", err);
	/* The child sets no_new_privs itself, as a step of its own. */
	if (rc == 0)
		rc = set_attr(ctx, SCMP_FLTATR_CTL_NNP, 0, "no_new_privs", err);
	/* A binary tree over call numbers. */
	if (rc == 0)
		rc = set_attr(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2, "optimize", err);
	if (rc < 0) {
		seccomp_release(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

#define PROLOGUE_LEN (6 + seccomp_n_refused_new_calls)

/*
 * The prologue refusing seccomp_refused_new_calls on x86_64, x32 and i386,
 * then falling through to libseccomp's program, which loads what it needs
 * itself. Classic BPF jumps are relative and only forward, so instructions
 * put in front change none of libseccomp's jumps.
 */
static void write_prologue(const struct seccomp_options *opts, struct sock_filter *f)
{
	const size_t n = seccomp_n_refused_new_calls;
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
						      seccomp_refused_new_calls[j].nr,
						      (uint8_t)(n - 1 - j), j == n - 1 ? 1 : 0);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, refusal_action(opts, EPERM));
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
static int export_program(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			  struct sock_fprog *prog, struct procage_error *err)
{
	int fd = memfd_create("procage-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE,
				     "seccomp filter: memfd_create");
	int rc = seccomp_export_bpf(ctx, fd);
	struct stat st;
	if (rc < 0)
		error_set(err, rc, "seccomp filter: seccomp_export_bpf: %s", err_text(rc));
	else if (fstat(fd, &st) < 0)
		rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "seccomp filter: fstat of memfd");
	size_t size = rc < 0 ? 0 : (size_t)st.st_size, n = size / sizeof(struct sock_filter);
	if (rc == 0 && (size == 0 || size % sizeof(struct sock_filter) != 0 ||
			n + PROLOGUE_LEN > BPF_MAXINSNS))
		rc = error_set(err, -E2BIG,
			       "seccomp filter: exported program of %zu bytes does not fit in %d "
			       "instructions",
			       size, BPF_MAXINSNS);
	struct sock_filter *filter = rc < 0 ? NULL : calloc(n + PROLOGUE_LEN, sizeof *filter);
	if (rc == 0 && !filter)
		rc = error_set(err, -ENOMEM, "seccomp filter: out of memory");
	if (rc == 0) {
		write_prologue(opts, filter);
		if ((rc = read_all(fd, filter + PROLOGUE_LEN, size)) < 0)
			error_set_sys(err, -rc, PROCAGE_STEP_NONE,
				      "seccomp filter: reading the exported program");
	}
	close(fd);
	if (rc < 0) {
		free(filter);
		return rc;
	}
	prog->filter = filter;
	prog->len = (unsigned short)(n + PROLOGUE_LEN);
	return 0;
}

int seccomp_build_program(const struct seccomp_options *opts, struct sock_fprog *prog,
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
	rc = add_refused_calls(ctx, opts, err);
	if (rc == 0)
		rc = add_namespace_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_ioctl_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_personality_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_family_rules(ctx, opts, err);
	if (rc == 0 && opts->network_on)
		rc = add_ip_rules(ctx, opts, err);
	if (rc == 0)
		rc = export_program(ctx, opts, prog, err);
	seccomp_release(ctx);
	return rc;
}
