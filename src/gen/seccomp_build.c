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
