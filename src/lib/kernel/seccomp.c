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
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/error.h"
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

#define HANDOVER_X32_SENDMSG (0x40000000u | 518u) /* __X32_SYSCALL_BIT | x32's sendmsg */
#define HANDOVER_X86_64_SENDMSG 46u
#define HANDOVER_I386_SENDMSG 370u
#define HANDOVER_LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
/* The flags argument's low 32 bits (little-endian): a compare on them covers the whole register's. */
#define HANDOVER_FLAGS_LOW offsetof(struct seccomp_data, args[2])

static const struct sock_filter handover_closed[] = {
	HANDOVER_LOAD(arch),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
	HANDOVER_LOAD(nr),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HANDOVER_X86_64_SENDMSG, 6, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HANDOVER_X32_SENDMSG, 5, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 2),
	HANDOVER_LOAD(nr),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HANDOVER_I386_SENDMSG, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, HANDOVER_FLAGS_LOW),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_HANDOVER_SEND_FLAGS, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

/* Read-only: the kernel copies the program it installs. */
const struct sock_fprog seccomp_handover_closed = {
	.len = sizeof handover_closed / sizeof *handover_closed,
	.filter = (struct sock_filter *)handover_closed,
};

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
