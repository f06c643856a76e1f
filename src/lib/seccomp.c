/*
 * The cage's seccomp filter.
 *
 * The rules are in src/gen/seccomp_rules.c. They are turned into classic
 * BPF at build time (src/gen/seccomp_gen.c, with libseccomp), one program
 * per variant, so a cage only picks one here: building the filter with
 * libseccomp took milliseconds at every cage, and loading libseccomp cost
 * every program that links procage. The child installs it with one system
 * call, as its last step before exec.
 */
#include "seccomp.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"
#include "seccomp_programs.h"

int seccomp_program_build(const struct seccomp_options *opts, struct sock_fprog *prog,
			  struct procage_error *err)
{
	if (!opts || !prog)
		return error_set(err, -EINVAL, "seccomp filter: no options or no program");
	prog->filter = NULL;
	prog->len = 0;
#if defined(__x86_64__) || defined(__i386__)
	const struct seccomp_generated_program *g =
		&seccomp_generated_programs[seccomp_program_index(opts)];
	if (!g->filter)
		return error_set(err, -EINVAL,
				 "seccomp filter: no program combines these options (%zu)",
				 seccomp_program_index(opts));
	/* Shared and never written: the kernel copies the program it installs. */
	prog->filter = (struct sock_filter *)g->filter;
	prog->len = g->len;
	return 0;
#else
	/* The programs cover the x86 ABIs; any other audit arch is killed. */
	return error_set(err, -EOPNOTSUPP, "seccomp filter: only the x86 ABIs are supported");
#endif
}

void seccomp_program_free(struct sock_fprog *prog)
{
	if (!prog)
		return;
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

int seccomp_program_install_listener(const struct sock_fprog *prog)
{
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			  prog);
	return fd < 0 ? -errno : (int)fd;
}
