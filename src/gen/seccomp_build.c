/*
 * The cage's seccomp programs, built from seccomp_rules.c: a hand-written
 * prologue, libseccomp's program, and hand-written blocks for the calls
 * whose arguments are tested bit by bit or against several values
 * (seccomp_handwritten.c), which libseccomp reaches by marker returns.
 *
 * They cover the three x86 ABIs a 64-bit kernel runs: x86_64, x32 (same
 * audit arch, numbers with bit 30 set) and i386 (int 0x80 from any
 * process). Every argument the rules look at is 32 bits wide to the kernel
 * (an int or unsigned int, or flags it truncates to 32 bits). The rules
 * either compare the low 32 bits only or, on x86_64, treat upper bits as
 * an unknown value and refuse.
 *
 * A refusal is SECCOMP_RET_ERRNO with the rule's errno, or, in the report
 * variants, SECCOMP_RET_USER_NOTIF for every EPERM refusal so that a
 * supervisor learns of it (clone3's ENOSYS stays: libc falls back on it).
 * The variants (seccomp_programs.h) differ only in the socket block, in
 * the session calls, in the refusal and in the calls sent to the broker.
 */
#include "seccomp_build.h"

/*
 * libseccomp's header has the same name as src/lib/kernel/seccomp.h: with
 * -Isrc/lib it would be shadowed. The build must name src/lib with
 * -iquote; fail loudly if not.
 */
#include <seccomp.h>
#ifndef SCMP_VER_MAJOR
#error "libseccomp's <seccomp.h> is shadowed by src/lib/kernel/seccomp.h: use -iquote src/lib"
#endif

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "seccomp_handwritten.h"
#include "seccomp_rules.h"

/* The ABIs the filter covers, in this order; any other audit arch kills. */
static const uint32_t filter_arches[] = { SCMP_ARCH_X86_64, SCMP_ARCH_X32, SCMP_ARCH_X86 };
#define N_ARCHES (sizeof filter_arches / sizeof filter_arches[0])

/* libseccomp API level 5: SCMP_ACT_KILL_PROCESS and SCMP_ACT_NOTIFY. */
#define SCMP_API_LEVEL 5

static const char *err_text(int rc)
{
	return strerror(rc < 0 ? -rc : rc);
}

/* What a refusal with errno err returns in this variant. */
static uint32_t refusal_action(const struct seccomp_options *opts, int err)
{
	return (opts->report || opts->observe) && seccomp_errno_reported(err) ? SCMP_ACT_NOTIFY
									     : SCMP_ACT_ERRNO(err);
}

/*
 * Refuse `name` with errno `err` when every comparison holds. The name must
 * be a real system call on at least one of the filter's ABIs: a typo or a
 * call libseccomp does not know is an error, never a rule silently dropped.
 */
static int add_rule_action(scmp_filter_ctx ctx, uint32_t action, const char *name,
			   unsigned int n_cmp, const struct scmp_arg_cmp *cmp,
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
	int rc = seccomp_rule_add_array(ctx, action, nr, n_cmp, cmp);
	if (rc < 0)
		return error_set(perr, rc, "seccomp filter: seccomp_rule_add for %s: %s", name,
				 err_text(rc));
	return 0;
}

static int add_rule(scmp_filter_ctx ctx, const struct seccomp_options *opts, const char *name,
		    int err, unsigned int n_cmp, const struct scmp_arg_cmp *cmp,
		    struct procage_error *perr)
{
	return add_rule_action(ctx, refusal_action(opts, err), name, n_cmp, cmp, perr);
}

/*
 * The metadata broker variants: the owner and times calls go to the
 * supervisor whatever their arguments (the chmod calls reach it through
 * their mode blocks).
 * The broker variants: the entry calls go to the supervisor whatever their
 * arguments, open and openat when a flag may write, create or truncate
 * (a rule per flag, which libseccomp ORs; the mask compares the low 32
 * bits only, all the kernel reads of the flags).
 */
static int add_broker_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			    struct procage_error *err)
{
	int rc = 0;
	for (size_t i = 0; opts->broker_metadata && rc == 0 && i < seccomp_n_broker_metadata_calls;
	     i++)
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, seccomp_broker_metadata_calls[i], 0, NULL,
				     err);
	/* Listing through the broker: opens of a directory, and openat2 (flags in memory). */
	for (size_t i = 0; opts->broker_listing && rc == 0 && i < seccomp_n_broker_opens; i++) {
		const struct seccomp_broker_open *o = &seccomp_broker_opens[i];
		struct scmp_arg_cmp cmp =
		    SCMP_CMP(o->flags_arg, SCMP_CMP_MASKED_EQ, O_DIRECTORY, O_DIRECTORY);
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, o->name, 1, &cmp, err);
	}
	if (opts->broker_listing && !opts->broker && rc == 0)
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, "openat2", 0, NULL, err);
	if (!opts->broker)
		return rc;
	for (size_t i = 0; rc == 0 && i < seccomp_n_broker_calls; i++)
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, seccomp_broker_calls[i], 0, NULL, err);
	for (size_t i = 0; rc == 0 && i < seccomp_n_broker_opens; i++) {
		const struct seccomp_broker_open *o = &seccomp_broker_opens[i];
		for (size_t f = 0; rc == 0 && f < seccomp_n_broker_open_flags; f++) {
			uint32_t flag = seccomp_broker_open_flags[f];
			struct scmp_arg_cmp cmp = SCMP_CMP(o->flags_arg, SCMP_CMP_MASKED_EQ, flag, flag);
			rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, o->name, 1, &cmp, err);
		}
	}
	return rc;
}

/*
 * The observe variants: every call that names a path to open, make,
 * remove, rename, link or truncate goes to the supervisor, which looks
 * and lets it go on. Those the broker takes already are left to it (the
 * broker's rule is the same action); open and openat without a writing
 * flag get a rule of their own.
 */
static int add_observe_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			     struct procage_error *err)
{
	int rc = 0;
	if (!opts->observe)
		return 0;
	for (size_t i = 0; rc == 0 && i < seccomp_n_observed_calls; i++)
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, seccomp_observed_calls[i], 0, NULL, err);
	for (size_t i = 0; rc == 0 && i < seccomp_n_broker_opens; i++) {
		const struct seccomp_broker_open *o = &seccomp_broker_opens[i];
		if (!opts->broker) {
			rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, o->name, 0, NULL, err);
			continue;
		}
		struct scmp_arg_cmp cmp =
			SCMP_CMP(o->flags_arg, SCMP_CMP_MASKED_EQ, seccomp_broker_open_mask(), 0);
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, o->name, 1, &cmp, err);
	}
	return rc;
}

/*
 * The variants that broker reading opens too (tier T2's /proc/self):
 * open and openat whatever their flags, openat2, and the entry calls
 * (the run's own semaphores in /dev/shm). An observe variant
 * sends them already; the broker and listing rules send some of them,
 * so only the rest get a rule here (the same action).
 */
static int add_broker_reads_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
				  struct procage_error *err)
{
	int rc = 0;
	if (!opts->broker_reads || opts->observe)
		return 0;
	for (size_t i = 0; rc == 0 && i < seccomp_n_broker_opens; i++) {
		const struct seccomp_broker_open *o = &seccomp_broker_opens[i];
		if (!opts->broker) {
			rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, o->name, 0, NULL, err);
			continue;
		}
		struct scmp_arg_cmp cmp =
			SCMP_CMP(o->flags_arg, SCMP_CMP_MASKED_EQ, seccomp_broker_open_mask(), 0);
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, o->name, 1, &cmp, err);
	}
	if (rc == 0 && !opts->broker && !opts->broker_listing)
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, "openat2", 0, NULL, err);
	/* The entry calls, for the run's own semaphores (watch/broker_shm.c). */
	for (size_t i = 0; !opts->broker && rc == 0 && i < seccomp_n_broker_calls; i++)
		if (strcmp(seccomp_broker_calls[i], "openat2") != 0 || !opts->broker_listing)
			rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, seccomp_broker_calls[i], 0, NULL,
					     err);
	return rc;
}

/*
 * The network broker variants: the address calls whatever their
 * arguments, sendto when its address pointer is not NULL (compared on the
 * whole register on x86_64: a pointer with only upper bits set is sent
 * too).
 */
static int add_net_broker_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
				struct procage_error *err)
{
	int rc = 0;
	if (!opts->net_broker)
		return 0;
	/* The child's own hand-over of the listener is the one sendmsg let through. */
	struct scmp_arg_cmp handover = SCMP_CMP(2, SCMP_CMP_NE, SECCOMP_HANDOVER_SEND_FLAGS);
	for (size_t i = 0; rc == 0 && i < seccomp_n_net_broker_calls; i++) {
		bool sendmsg = strcmp(seccomp_net_broker_calls[i], "sendmsg") == 0;
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, seccomp_net_broker_calls[i],
				     sendmsg ? 1 : 0, sendmsg ? &handover : NULL, err);
	}
	struct scmp_arg_cmp cmp = SCMP_CMP(SECCOMP_SENDTO_ADDRESS_ARG, SCMP_CMP_NE, 0);
	if (rc == 0)
		rc = add_rule_action(ctx, SCMP_ACT_NOTIFY, "sendto", 1, &cmp, err);
	for (size_t i = 0; rc == 0 && i < seccomp_n_net_refused_options; i++) {
		const struct seccomp_socket_option *o = &seccomp_net_refused_options[i];
		struct scmp_arg_cmp both[2] = {
			SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, (uint32_t)o->level),
			SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffffffu, (uint32_t)o->name),
		};
		rc = add_rule(ctx, opts, "setsockopt", EPERM, 2, both, err);
	}
	return rc;
}

static int add_calls(scmp_filter_ctx ctx, const struct seccomp_options *opts,
		     const struct seccomp_refused_call *calls, size_t n,
		     struct procage_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = add_rule(ctx, opts, calls[i].name, calls[i].err, 0, NULL, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Every variant's refused calls, setsid where sessions are locked, and
 * SysV IPC and message queues where the run shares the host's IPC
 * namespace.
 */
static int add_refused_calls(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			     struct procage_error *err)
{
	int rc = add_calls(ctx, opts, seccomp_refused_calls, seccomp_n_refused_calls, err);
	if (rc == 0 && opts->lock_sessions)
		rc = add_calls(ctx, opts, seccomp_session_calls, seccomp_n_session_calls, err);
	if (rc == 0 && !opts->own_ipc_namespace)
		rc = add_calls(ctx, opts, seccomp_host_ipc_calls, seccomp_n_host_ipc_calls, err);
	return rc;
}

/*
 * The calls aimed at a process by pid: refused unless they name the
 * caller (pid 0, and for setpriority and ioprio_set the kind "process"):
 * a rule for each, which libseccomp ORs.
 */
static int add_pid_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			 struct procage_error *err)
{
	for (size_t i = 0; i < seccomp_n_pid_calls; i++) {
		const struct seccomp_pid_call *c = &seccomp_pid_calls[i];
		struct scmp_arg_cmp pid = SCMP_CMP(c->pid_arg, SCMP_CMP_NE, 0);
		int rc = add_rule(ctx, opts, c->name, EPERM, 1, &pid, err);
		if (rc == 0 && c->self_arg >= 0) {
			struct scmp_arg_cmp kind =
				SCMP_CMP((unsigned int)c->self_arg, SCMP_CMP_NE, c->self_value);
			rc = add_rule(ctx, opts, c->name, EPERM, 1, &kind, err);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The core dump limit stays the one the plan set (plan.c,
 * plan_core_limit): a change of it succeeds and changes nothing, so that a
 * program lowering it to 0 (a sanitizer's runtime, `ulimit -c 0`) runs on;
 * prlimit64 asked for the old value in the same call is refused, since it
 * could only be answered by setting. The resource is compared on the 32
 * bits the kernel reads.
 */
static int add_core_limit_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
				struct procage_error *err)
{
	const struct scmp_arg_cmp set[] = {
		SCMP_CMP(0, SCMP_CMP_MASKED_EQ, 0xffffffffu, RLIMIT_CORE),
	};
	const struct scmp_arg_cmp set_only[] = {
		SCMP_CMP(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, RLIMIT_CORE),
		SCMP_CMP(2, SCMP_CMP_NE, 0),
		SCMP_CMP(3, SCMP_CMP_EQ, 0),
	};
	const struct scmp_arg_cmp set_and_get[] = {
		SCMP_CMP(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, RLIMIT_CORE),
		SCMP_CMP(2, SCMP_CMP_NE, 0),
		SCMP_CMP(3, SCMP_CMP_NE, 0),
	};
	int rc = add_rule_action(ctx, SCMP_ACT_ERRNO(0), "setrlimit", 1, set, err);
	if (rc == 0)
		rc = add_rule_action(ctx, SCMP_ACT_ERRNO(0), "prlimit64", 3, set_only, err);
	if (rc == 0)
		rc = add_rule(ctx, opts, "prlimit64", EPERM, 3, set_and_get, err);
	return rc;
}

/*
 * The calls whose arguments a hand-written block tests: every call of them
 * goes to the block (see seccomp_handwritten.h).
 */
static int add_handoffs(scmp_filter_ctx ctx, struct procage_error *err)
{
	for (size_t i = 0; i < seccomp_n_handoffs; i++) {
		const char *name = seccomp_handoffs[i].name;
		int rc = seccomp_rule_add(ctx, seccomp_handoffs[i].marker,
					  seccomp_syscall_resolve_name(name), 0);
		if (rc < 0)
			return error_set(err, rc, "seccomp filter: seccomp_rule_add for %s: %s",
					 name, err_text(rc));
	}
	return 0;
}

/*
 * The kernel reads the ioctl command as 32 bits: compare only those, so a
 * caller setting upper bits of the register does not slip past.
 */
/*
 * A filter of the caged process's own may not bring a listener: if the
 * supervisor's listener were ever gone while the run lives, a listener
 * inside the cage would be handed the calls our filter refuses, and could
 * let them through. More filters without one stay allowed.
 */
static int add_seccomp_rules(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			     struct procage_error *err)
{
	struct scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER,
					  SECCOMP_FILTER_FLAG_NEW_LISTENER);
	return add_rule(ctx, opts, "seccomp", EPERM, 1, &cmp, err);
}

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
	/*
	 * A binary tree over call numbers, not a list. At install the kernel
	 * runs the program for every call number to find those it can allow
	 * without running it (the seccomp cache); through a list that took
	 * ~80 000 steps, ~300 us per spawn, against ~15 000 through the tree.
	 * Allowed calls whose arguments are checked also run fewer steps.
	 */
	if (rc == 0)
		rc = set_attr(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2, "optimize", err);
	if (rc < 0) {
		seccomp_release(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
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
 * The prologue, libseccomp's program and the blocks. libseccomp 2.5
 * exports only to a file descriptor: export into a memfd and read the
 * program back.
 */
static int export_program(scmp_filter_ctx ctx, const struct seccomp_options *opts,
			  struct sock_fprog *prog, struct procage_error *err)
{
	struct sock_filter prologue[SECCOMP_PROLOGUE_MAX];
	int rc = seccomp_prologue_write(opts, prologue, err);
	if (rc < 0)
		return rc;
	size_t p = (size_t)rc;
	int fd = memfd_create("procage-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE,
				     "seccomp filter: memfd_create");
	struct stat st;
	if ((rc = seccomp_export_bpf(ctx, fd)) < 0)
		error_set(err, rc, "seccomp filter: seccomp_export_bpf: %s", err_text(rc));
	else if (fstat(fd, &st) < 0)
		rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "seccomp filter: fstat of memfd");
	size_t size = rc < 0 ? 0 : (size_t)st.st_size, n = size / sizeof(struct sock_filter);
	if (rc == 0 && (size == 0 || size % sizeof(struct sock_filter) != 0 ||
			p + n + SECCOMP_BLOCKS_MAX > BPF_MAXINSNS))
		rc = error_set(err, -E2BIG,
			       "seccomp filter: exported program of %zu bytes does not fit in %d "
			       "instructions",
			       size, BPF_MAXINSNS);
	size_t len = p + n;
	struct sock_filter *filter =
		rc < 0 ? NULL : calloc(len + SECCOMP_BLOCKS_MAX, sizeof *filter);
	if (rc == 0 && !filter)
		rc = error_set(err, -ENOMEM, "seccomp filter: out of memory");
	if (rc == 0) {
		memcpy(filter, prologue, p * sizeof *filter);
		if ((rc = read_all(fd, filter + p, size)) < 0)
			error_set_sys(err, -rc, PROCAGE_STEP_NONE,
				      "seccomp filter: reading the exported program");
		else
			rc = seccomp_blocks_link(opts, filter, p, &len, err);
	}
	close(fd);
	if (rc < 0) {
		free(filter);
		return rc;
	}
	prog->filter = filter;
	prog->len = (unsigned short)len;
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
		rc = add_handoffs(ctx, err);
	if (rc == 0)
		rc = add_ioctl_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_pid_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_core_limit_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_seccomp_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_broker_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_observe_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_broker_reads_rules(ctx, opts, err);
	if (rc == 0)
		rc = add_net_broker_rules(ctx, opts, err);
	if (rc == 0)
		rc = export_program(ctx, opts, prog, err);
	seccomp_release(ctx);
	return rc;
}
