/*
 * without_userns COMMAND [ARGS]...: run COMMAND where user namespaces cannot
 * be made, as container engines' default seccomp profiles do, so that the
 * escape suite measures and exercises tier T2 for real rather than by a flag.
 *
 * The filter refuses with EPERM unshare, clone and setns when their flags
 * ask for a user namespace (setns with type 0 too, since it may be one),
 * and clone3 outright with ENOSYS, because its flags sit in memory a filter
 * cannot read (callers then fall back to clone, which the filter can). It
 * covers the x86_64, x32 and i386 system call ABIs. no_new_privs is set
 * first, which an unprivileged filter needs; everything below inherits
 * both.
 *
 * Exit: 125 when the filter cannot be installed, 127 when COMMAND cannot be
 * run, otherwise COMMAND's own status.
 */
#include <errno.h>
#include <sched.h>
/*
 * libseccomp's header; src/lib/kernel/seccomp.h has the same name, so the build
 * must not put src/lib on the <> search path (use -iquote).
 */
#include <seccomp.h>
#ifndef SCMP_VER_MAJOR
#error "libseccomp's <seccomp.h> is shadowed by src/lib/kernel/seccomp.h: use -iquote src/lib"
#endif
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int add_arch(scmp_filter_ctx ctx, uint32_t arch)
{
	int rc = seccomp_arch_add(ctx, arch);
	return rc == -EEXIST ? 0 : rc;
}

static int filter_install(const char **failed_at)
{
	const scmp_datum_t user = CLONE_NEWUSER;
	int rc;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		*failed_at = "seccomp_init";
		return -ENOMEM;
	}
	/* Rules added after the architectures apply to every one of them. */
	if (seccomp_arch_native() == SCMP_ARCH_X86_64) {
		*failed_at = "adding the x86 and x32 ABIs";
		if ((rc = add_arch(ctx, SCMP_ARCH_X86)) < 0 ||
		    (rc = add_arch(ctx, SCMP_ARCH_X32)) < 0)
			goto out;
	}
	*failed_at = "the unshare rule";
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
				   SCMP_A0(SCMP_CMP_MASKED_EQ, user, user))) < 0)
		goto out;
	*failed_at = "the clone rule";
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				   SCMP_A0(SCMP_CMP_MASKED_EQ, user, user))) < 0)
		goto out;
	*failed_at = "the setns rules";
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 1,
				   SCMP_A1(SCMP_CMP_MASKED_EQ, user, user))) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 1,
				   SCMP_A1(SCMP_CMP_EQ, 0))) < 0)
		goto out;
	*failed_at = "the clone3 rule";
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0)) < 0)
		goto out;
	*failed_at = "no_new_privs";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		rc = -errno;
		goto out;
	}
	*failed_at = "loading the filter";
	rc = seccomp_load(ctx);
out:
	seccomp_release(ctx);
	return rc;
}

int main(int argc, char **argv)
{
	const char *failed_at = "";
	if (argc < 2) {
		fprintf(stderr, "usage: without_userns COMMAND [ARGS]...\n"
				"runs COMMAND where no user namespace can be made (tier T2)\n");
		return 125;
	}
	int rc = filter_install(&failed_at);
	if (rc < 0) {
		fprintf(stderr, "without_userns: %s: %s\n", failed_at, strerror(-rc));
		return 125;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "without_userns: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
