/*
 * The cage's seccomp filter, checked three ways: the programs generated at
 * build time are compared with what libseccomp builds from the rules now
 * (a stale generated file fails here); they are run in a BPF simulator for
 * each x86 ABI (x86_64, x32, i386) and each variant (network on or off,
 * refusals as errno or reported, socket(AF_UNIX) allowed or not, setsid
 * refused or not, entry calls sent to the broker or not); and they are
 * installed in forked children on the real kernel, each beside a control
 * child without the filter, so the test cannot pass with the filter
 * switched off.
 *
 * This file holds what the parts share (the programs, the ABIs, one call
 * checked in the simulator), the build and the calls refused or allowed
 * by name, by flag and by personality; the other parts are
 * seccomp_sockets.c (socket and socketpair), seccomp_targets.c (metadata,
 * SysV IPC, calls aimed at other processes), seccomp_broker.c (the broker
 * variants) and seccomp_kernel.c (the real kernel).
 */
#include "bpf_sim.h"
#include "base/error.h"
#include "seccomp_sim.h"
#include "kernel/seccomp.h"
#include "seccomp_build.h"
#include "kernel/seccomp_programs.h"
#include "seccomp_rules.h"
#include "tap.h"

/* libseccomp, for the call numbers of each ABI; see src/lib/kernel/seccomp.c. */
#include <seccomp.h>
#ifndef SCMP_VER_MAJOR
#error "libseccomp's <seccomp.h> is shadowed by src/lib/kernel/seccomp.h: use -iquote src/lib"
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

const struct abi abis[3] = {
	{ "x86_64", AUDIT_ARCH_X86_64, SCMP_ARCH_X86_64, false },
	{ "x32", AUDIT_ARCH_X86_64, SCMP_ARCH_X32, true },
	{ "i386", AUDIT_ARCH_I386, SCMP_ARCH_X86, false },
};

/*
 * Calls the filter must refuse, checked apart from the rule table (which
 * the test also walks) so that a line lost from the table is noticed.
 */
static const char *const must_refuse[] = {
	"io_uring_setup", "ptrace", "process_vm_readv", "bpf", "keyctl", "mount", "umount2",
	"move_mount", "open_tree", "fsopen", "setns", "open_by_handle_at", "init_module",
	"kexec_load", "socketcall", "clone3",
};

#define PERSONALITY_REFUSED SECCOMP_PERSONALITY_REFUSED

/* The programs under test, by seccomp_program_index (its bits are in
 * seccomp_programs.h). */
struct sock_fprog progs[N_VARIANTS];
/* Which of them bpf_sim_check accepted whole (test_build): run without checking again. */
static bool progs_sound[N_VARIANTS];

_Static_assert(N_VARIANTS == 2048, "eleven options: an index for each combination");

/*
 * The simulator's checks run by the hundred thousand (every call, ABI and
 * combination of options): a passing one is counted, a failing one is
 * printed with everything it checked. Each part then prints one line with
 * its count (section), which fails if the part checked nothing.
 */
static unsigned long quiet_passed;

bool sim_ok(bool ok, const char *fmt, ...)
{
	if (ok) {
		quiet_passed++;
		return true;
	}
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return tap_ok(false, "%s", text);
}

static void section(void (*part)(void), const char *name)
{
	unsigned long before = quiet_passed;
	int printed = tap_count;
	part();
	tap_ok(quiet_passed > before || tap_count > printed,
	       "%s: %lu checks passed (each failure above on its own line)", name,
	       quiet_passed - before);
}

void sim_skip(const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	tap_skip("%s", text);
}

void sim_diag(const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	tap_diag("%s", text);
}

bool variant_net(int v)
{
	return seccomp_program_options((size_t)v).network_on;
}

bool variant_unix(int v)
{
	return seccomp_program_options((size_t)v).unix_sockets;
}

bool variant_locked(int v)
{
	return seccomp_program_options((size_t)v).lock_sessions;
}

const char *variant_name(int v)
{
	static char names[N_VARIANTS][128];
	if (!names[v][0]) {
		struct seccomp_options o = seccomp_program_options((size_t)v);
		snprintf(names[v], sizeof names[v], "[%d] net %s, unix %s, sessions %s%s%s%s%s%s%s%s%s", v,
			 o.network_on ? "on" : "off", o.unix_sockets ? "on" : "off",
			 o.lock_sessions ? "locked" : "free", o.report ? ", report" : "",
			 o.own_ipc_namespace ? ", own IPC" : "", o.broker ? ", broker" : "",
			 o.broker_metadata ? ", metadata" : "",
			 o.broker_listing ? ", listing" : "", o.observe ? ", observe" : "",
			 o.net_broker ? ", net broker" : "", o.broker_reads ? ", reads" : "");
	}
	return names[v];
}

/*
 * The answer a variant gives where the errno variant answers want: the
 * report variants notify instead of EPERM and EOPNOTSUPP, and keep every
 * other answer.
 */
uint32_t variant_answer(int v, uint32_t want)
{
	struct seccomp_options o = seccomp_program_options((size_t)v);
	if ((o.report || o.observe) && (want == RET_EPERM || want == RET_EOPNOTSUPP))
		return SECCOMP_RET_USER_NOTIF;
	return want;
}

uint32_t variant_answer_call(int v, const char *name, uint32_t want)
{
	bool observed = strcmp(name, "open") == 0 || strcmp(name, "openat") == 0;
	for (size_t i = 0; i < seccomp_n_observed_calls; i++)
		observed |= strcmp(name, seccomp_observed_calls[i]) == 0;
	if (observed && want == SECCOMP_RET_ALLOW && seccomp_program_options((size_t)v).observe)
		return SECCOMP_RET_USER_NOTIF;
	/* The reading-opens variants (tier T2's /proc/self) send every open, and the entry calls. */
	bool an_open = strcmp(name, "open") == 0 || strcmp(name, "openat") == 0 ||
		       strcmp(name, "openat2") == 0;
	for (size_t i = 0; i < seccomp_n_broker_calls; i++)
		an_open |= strcmp(name, seccomp_broker_calls[i]) == 0;
	if (an_open && want == SECCOMP_RET_ALLOW && seccomp_program_options((size_t)v).broker_reads)
		return SECCOMP_RET_USER_NOTIF;
	return variant_answer(v, want);
}

long abi_nr(const struct abi *abi, const char *name)
{
	/*
	 * libseccomp names i386's socket calls by socketcall's sub-call
	 * numbers; the kernel has had direct numbers for them since 4.3, and
	 * those are what the filter checks.
	 */
	if (abi->audit_arch == AUDIT_ARCH_I386 && strcmp(name, "socket") == 0)
		return 359;
	if (abi->audit_arch == AUDIT_ARCH_I386 && strcmp(name, "socketpair") == 0)
		return 360;
	int nr = seccomp_syscall_resolve_name_arch(abi->scmp_arch, name);
	if (nr < 0)
		return -1;
	return abi->x32 ? (long)((uint32_t)nr | X32_SYSCALL_BIT) : nr;
}

uint32_t run_nr(const struct sock_fprog *prog, uint32_t arch, long nr,
		       const uint64_t args[6])
{
	struct seccomp_data data = { .nr = (int)nr, .arch = arch, .instruction_pointer = 0x1000 };
	memcpy(data.args, args, sizeof data.args);
	uint32_t action;
	const char *why;
	uintptr_t at = (uintptr_t)prog, first = (uintptr_t)progs;
	bool sound = at >= first && at < first + sizeof progs && progs_sound[prog - progs];
	int rc = sound ? bpf_sim_run_checked(prog->filter, prog->len, &data, &action, &why)
		       : bpf_sim_run(prog->filter, prog->len, &data, &action, &why);
	if (rc < 0) {
		tap_diag("simulator: %s", why);
		return 0xffffffffu;
	}
	return action;
}

/*
 * Check one call on one ABI; a call the ABI does not have is only noted
 * (the kernel answers ENOSYS without the filter's help).
 */
void expect(int v, const struct abi *abi, const char *name, const uint64_t args[6],
	    uint32_t want, const char *what)
{
	long nr = abi_nr(abi, name);
	if (nr < 0) {
		if (v == 0)
			tap_diag("%s has no %s", abi->name, name);
		return;
	}
	want = variant_answer_call(v, name, want);
	uint32_t got = run_nr(&progs[v], abi->audit_arch, nr, args);
	sim_ok(got == want, "%s, %s: %s %s (got %#x, want %#x)", variant_name(v), abi->name,
	       name, what, got, want);
}


/*
 * The generated program must be what libseccomp builds from the rules in
 * this tree: otherwise the library carries a stale filter.
 */
static void compare_with_live_build(int v)
{
	struct procage_error err = { 0 };
	struct seccomp_options opts = seccomp_program_options((size_t)v);
	struct sock_fprog live = { 0, NULL };
	int rc = seccomp_build_program(&opts, &live, &err);
	sim_ok(rc == 0, "%s: libseccomp builds the program live (%s)", variant_name(v),
	       rc == 0 ? "ok" : err.message);
	size_t differ = live.len;
	for (size_t i = 0; rc == 0 && i < live.len && i < progs[v].len; i++)
		if (memcmp(&live.filter[i], &progs[v].filter[i], sizeof live.filter[i]) != 0) {
			differ = i;
			break;
		}
	sim_ok(rc == 0 && live.len == progs[v].len && differ == live.len,
	       "%s: the generated program is the live one (%u and %u instructions, first "
	       "difference at %zu); if not, make did not run the generator again",
	       variant_name(v), progs[v].len, live.len, differ);
	free(live.filter);
}

static void test_build(void)
{
	int n_programs = 0;
	for (int v = 0; v < N_VARIANTS; v++) {
		struct procage_error err = { 0 };
		struct seccomp_options opts = seccomp_program_options((size_t)v);
		sim_ok(seccomp_program_index(&opts) == (size_t)v,
		       "%s: its options index the same program", variant_name(v));
		int rc = seccomp_program_build(&opts, &progs[v], &err);
		if (!seccomp_program_exists((size_t)v)) {
			/* A combination no cage asks for: refused, never a wrong program. */
			sim_ok(rc == -EINVAL && !progs[v].filter && err.message[0],
			       "%s: no program, refused (rc %d: %s)", variant_name(v), rc,
			       err.message);
			continue;
		}
		n_programs++;
		sim_ok(rc == 0 && progs[v].filter && progs[v].len > 0,
		       "build %s: rc %d, %u instructions %s", variant_name(v), rc, progs[v].len,
		       err.message);
		const char *why = "no program";
		bool sound = progs[v].filter &&
			     bpf_sim_check(progs[v].filter, progs[v].len, &why) == 0;
		progs_sound[v] = sound;
		sim_ok(sound, "%s: the program passes the checks seccomp makes (%s)",
		       variant_name(v), sound ? "ok" : why);
		if (progs[v].filter)
			compare_with_live_build(v);
	}
	tap_ok(n_programs > 0 && n_programs < N_VARIANTS, "%d of the %d combinations have a program",
	       n_programs, N_VARIANTS);
	struct procage_error err = { 0 };
	struct sock_fprog none;
	int rc = seccomp_program_build(NULL, &none, &err);
	tap_ok(rc == -EINVAL && err.code == -EINVAL && err.message[0],
	       "no options: -EINVAL with a message (%s)", err.message);
	struct sock_fprog other;
	rc = seccomp_program_build(&(struct seccomp_options){ 0 }, &other, NULL);
	tap_ok(rc == 0, "build without an error structure: rc %d", rc);
	tap_ok(rc == 0 && other.filter == progs[0].filter,
	       "options left zero pick program 0: network, Unix sockets off, sessions free");
	seccomp_program_free(&other);
	tap_ok(other.filter == NULL && other.len == 0, "seccomp_program_free zeroes the program");
	seccomp_program_free(NULL);
}

static bool in_rule_table(const char *name)
{
	for (size_t i = 0; i < seccomp_n_refused_calls; i++)
		if (strcmp(seccomp_refused_calls[i].name, name) == 0)
			return true;
	return false;
}

static void test_refused_calls(void)
{
	for (size_t i = 0; i < N_ELEMS(must_refuse); i++)
		tap_ok(in_rule_table(must_refuse[i]), "the rules refuse %s", must_refuse[i]);
	tap_ok(seccomp_n_session_calls == 1 &&
		       strcmp(seccomp_session_calls[0].name, "setsid") == 0 &&
		       seccomp_session_calls[0].err == EPERM && !in_rule_table("setsid"),
	       "locked sessions refuse setsid with EPERM, and only they do");
	for_each_variant(v) {
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			const struct abi *abi = &abis[a];
			for (size_t i = 0; i < seccomp_n_refused_calls; i++) {
				const struct seccomp_refused_call *c = &seccomp_refused_calls[i];
				char what[40];
				snprintf(what, sizeof what, "refused with %s", strerror(c->err));
				expect(v, abi, c->name, ARGS(0), SECCOMP_RET_ERRNO | (uint32_t)c->err,
				       what);
			}
			for (size_t i = 0; i < seccomp_n_session_calls; i++) {
				const struct seccomp_refused_call *c = &seccomp_session_calls[i];
				bool refused = variant_locked(v);
				expect(v, abi, c->name, ARGS(0),
				       refused ? SECCOMP_RET_ERRNO | (uint32_t)c->err
					       : SECCOMP_RET_ALLOW,
				       refused ? "refused (sessions locked)"
					       : "allowed (sessions free)");
			}
			expect(v, abi, "clone3", ARGS(0), RET_ENOSYS, "answered ENOSYS");
			for (size_t i = 0; i < seccomp_n_refused_new_calls; i++) {
				const struct seccomp_new_call *c = &seccomp_refused_new_calls[i];
				long nr = c->nr | (abi->x32 ? X32_SYSCALL_BIT : 0);
				uint32_t got = run_nr(&progs[v], abi->audit_arch, nr, ARGS(0));
				uint32_t want = variant_answer(
					v, SECCOMP_RET_ERRNO | (uint32_t)c->err);
				sim_ok(got == want,
				       "%s, %s: %s (%ld, unknown to libseccomp) refused with %s "
				       "(got %#x)",
				       variant_name(v), abi->name, c->name, nr, strerror(c->err), got);
			}
			long nr = NR_OPEN_TREE_ATTR | (abi->x32 ? X32_SYSCALL_BIT : 0);
			sim_ok(run_nr(&progs[v], abi->audit_arch, nr, ARGS(0)) ==
				       variant_answer(v, RET_EPERM),
			       "%s, %s: open_tree_attr refused", variant_name(v), abi->name);
		}
	}
}

static void test_allowed_calls(void)
{
	const uint64_t pthread_flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
				       CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
				       CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	for_each_variant(v) {
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			const struct abi *abi = &abis[a];
			expect(v, abi, "read", ARGS(0, 0, 1), SECCOMP_RET_ALLOW, "allowed");
			expect(v, abi, "write", ARGS(1, 0, 1), SECCOMP_RET_ALLOW, "allowed");
			expect(v, abi, "openat", ARGS(-100, 0, 0), SECCOMP_RET_ALLOW, "allowed");
			expect(v, abi, "execve", ARGS(0), SECCOMP_RET_ALLOW, "allowed");
			expect(v, abi, "getpid", ARGS(0), SECCOMP_RET_ALLOW, "allowed");
			expect(v, abi, "clone", ARGS(SIGCHLD), SECCOMP_RET_ALLOW,
			       "(fork) allowed");
			expect(v, abi, "clone", ARGS(pthread_flags), SECCOMP_RET_ALLOW,
			       "(thread) allowed");
			expect(v, abi, "unshare", ARGS(CLONE_FILES), SECCOMP_RET_ALLOW,
			       "(CLONE_FILES) allowed");
			expect(v, abi, "unshare", ARGS(CLONE_FS), SECCOMP_RET_ALLOW,
			       "(CLONE_FS) allowed");
			expect(v, abi, "unshare", ARGS(CLONE_SYSVSEM), SECCOMP_RET_ALLOW,
			       "(CLONE_SYSVSEM) allowed");
			uint32_t unix_socket = variant_unix(v) ? SECCOMP_RET_ALLOW : RET_EPERM;
			const char *unix_what = variant_unix(v) ? "allowed (unix on)"
								: "refused (unix off)";
			expect(v, abi, "socket", ARGS(AF_UNIX, SOCK_STREAM), unix_socket, unix_what);
			expect(v, abi, "socket", ARGS(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC),
			       unix_socket, unix_what);
			expect(v, abi, "socketpair", ARGS(AF_UNIX, SOCK_STREAM), SECCOMP_RET_ALLOW,
			       "(AF_UNIX, SOCK_STREAM) allowed");
			expect(v, abi, "socketpair", ARGS(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC),
			       SECCOMP_RET_ALLOW,
			       "(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC) allowed");
			/* A datagram pair could send to any datagram socket it names. */
			expect(v, abi, "socketpair", ARGS(AF_UNIX, SOCK_DGRAM), unix_socket,
			       variant_unix(v) ? "(AF_UNIX, SOCK_DGRAM) allowed (unix on)"
					       : "(AF_UNIX, SOCK_DGRAM) refused (unix off)");
			expect(v, abi, "socketpair",
			       ARGS(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC), unix_socket,
			       variant_unix(v) ? "(AF_UNIX, SOCK_DGRAM | flags) allowed (unix on)"
					       : "(AF_UNIX, SOCK_DGRAM | flags) refused (unix off)");
			expect(v, abi, "socketpair", ARGS(AF_INET, SOCK_STREAM), RET_EPERM,
			       "(AF_INET) refused");
			/* The other calls of session and process group stay. */
			expect(v, abi, "setpgid", ARGS(0, 0), SECCOMP_RET_ALLOW, "allowed");
			expect(v, abi, "getsid", ARGS(0), SECCOMP_RET_ALLOW, "allowed");
			expect(v, abi, "ioctl", ARGS(0, TCGETS), SECCOMP_RET_ALLOW,
			       "(TCGETS) allowed");
			expect(v, abi, "ioctl", ARGS(0, FIONREAD), SECCOMP_RET_ALLOW,
			       "(FIONREAD) allowed");
			expect(v, abi, "seccomp", ARGS(0), SECCOMP_RET_ALLOW, "allowed");
		}
	}
}

static void check_namespaces_and_ioctl(int v, const struct abi *abi)
{
	for (size_t i = 0; i < seccomp_n_namespace_flags; i++) {
		uint64_t flag = seccomp_namespace_flags[i];
		char what[80];
		snprintf(what, sizeof what, "(%#llx) refused", (unsigned long long)flag);
		expect(v, abi, "unshare", ARGS(flag), RET_EPERM, what);
		expect(v, abi, "unshare", ARGS(flag | CLONE_FILES | CLONE_FS), RET_EPERM, what);
		/* clone cannot carry CLONE_NEWTIME: its bit is the exit signal's. */
		if (flag == CLONE_NEWTIME)
			continue;
		snprintf(what, sizeof what, "(%#llx|SIGCHLD) refused", (unsigned long long)flag);
		expect(v, abi, "clone", ARGS(flag | SIGCHLD), RET_EPERM, what);
	}
	for (size_t i = 0; i < seccomp_n_refused_ioctls; i++) {
		char what[60];
		snprintf(what, sizeof what, "(%#x) refused", seccomp_refused_ioctls[i]);
		expect(v, abi, "ioctl", ARGS(0, seccomp_refused_ioctls[i]), RET_EPERM, what);
	}
	expect(v, abi, "ioctl", ARGS(0, TIOCSTI), RET_EPERM, "(TIOCSTI) refused");
	expect(v, abi, "ioctl", ARGS(0, TIOCLINUX), RET_EPERM, "(TIOCLINUX) refused");
	/* The kernel reads the command as 32 bits: upper bits change nothing. */
	expect(v, abi, "ioctl", ARGS(0, TIOCSTI | 0xdead00000000ull), RET_EPERM,
	       "(TIOCSTI | 0xdead00000000) refused");
	expect(v, abi, "ioctl", ARGS(0, TIOCLINUX | 0xffffffff00000000ull), RET_EPERM,
	       "(TIOCLINUX | upper bits) refused");
	/* A filter of the cage's own may not bring a listener. */
	expect(v, abi, "seccomp", ARGS(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER),
	       RET_EPERM, "(NEW_LISTENER) refused");
	expect(v, abi, "seccomp",
	       ARGS(SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC_ESRCH),
	       RET_EPERM, "(NEW_LISTENER | TSYNC_ESRCH) refused");
	expect(v, abi, "seccomp", ARGS(SECCOMP_SET_MODE_FILTER, 0), SECCOMP_RET_ALLOW,
	       "(a filter without a listener) allowed");
}

static void test_namespaces_and_ioctl(void)
{
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++)
			check_namespaces_and_ioctl(v, &abis[a]);
}

static bool personality_refused(uint32_t v)
{
	return (v & PERSONALITY_REFUSED) && v != SECCOMP_PERSONALITY_QUERY;
}

/* A fixed pseudo-random sequence (a 32-bit xorshift). */
static uint32_t next_random(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* Exactness over many values: ones minus a bit, single bits, random. */
static void check_personality_exact(int v, const struct abi *abi)
{
	long nr = abi_nr(abi, "personality");
	uint32_t state = 0x2545f491u, bad = 0, mismatches = 0;
	for (int i = 0; i < 20000; i++) {
		uint32_t x = i < 32 ? ~(1u << i) : i < 64 ? 1u << (i - 32) : next_random(&state);
		if (i % 3 == 0 && i >= 64)
			x |= PERSONALITY_REFUSED & next_random(&state);
		uint32_t want = variant_answer(v, personality_refused(x) ? RET_EPERM
									 : SECCOMP_RET_ALLOW);
		/* x86_64 and x32 registers may carry upper bits the kernel drops. */
		uint64_t arg = x | (abi->audit_arch == AUDIT_ARCH_X86_64 && (i & 1)
					    ? 0xabcd00000000ull
					    : 0);
		if (run_nr(&progs[v], abi->audit_arch, nr, ARGS(arg)) != want) {
			if (!mismatches++)
				bad = x;
		}
	}
	tap_ok(mismatches == 0,
	       "%s, %s: personality refused exactly when a refused bit is set and the value "
	       "is not 0xffffffff (%u mismatches, first %#x)",
	       variant_name(v), abi->name, mismatches, bad);
}

static void check_personality(int v, const struct abi *abi)
{
	static const uint32_t kept[] = { 0xffffffffu, PER_LINUX, PER_LINUX32,
					 PER_LINUX | UNAME26, PER_LINUX32 | UNAME26 };
	for (size_t i = 0; i < N_ELEMS(kept); i++) {
		char what[40];
		snprintf(what, sizeof what, "(%#x) allowed", kept[i]);
		expect(v, abi, "personality", ARGS(kept[i]), SECCOMP_RET_ALLOW, what);
	}
	for (uint32_t bit = 1; bit; bit <<= 1) {
		if (!(bit & PERSONALITY_REFUSED))
			continue;
		char what[40];
		snprintf(what, sizeof what, "(%#x) refused", bit | PER_LINUX32);
		expect(v, abi, "personality", ARGS(bit | PER_LINUX32), RET_EPERM, what);
	}
	expect(v, abi, "personality", ARGS(0x80000000u | ADDR_NO_RANDOMIZE), RET_EPERM,
	       "(junk top bit | ADDR_NO_RANDOMIZE) refused");
	check_personality_exact(v, abi);
}

static void test_personality(void)
{
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++)
			check_personality(v, &abis[a]);
}

static void test_bad_arch(void)
{
	static const uint32_t other_arches[] = { AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM, 0,
						 AUDIT_ARCH_X86_64 ^ 1 };
	for_each_variant(v)
		for (size_t i = 0; i < N_ELEMS(other_arches); i++)
			for (long nr = 0; nr < 500; nr += 59) {
				uint32_t got = run_nr(&progs[v], other_arches[i], nr, ARGS(0));
				sim_ok(got == SECCOMP_RET_KILL_PROCESS,
				       "%s: arch %#x, call %ld kills the process (got %#x)",
				       variant_name(v), other_arches[i], nr, got);
			}
}

/*
 * Under valgrind, which does not implement seccomp(2), only the simulated
 * checks mean something (the live build tells libseccomp the API level it
 * needs instead of probing): skip the checks on the real kernel.
 */
static bool seccomp_syscall_works(void)
{
	uint32_t action = SECCOMP_RET_KILL_PROCESS;
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0)
		return true;
	tap_diag("seccomp(2) is not available to this process (%s): the real-kernel checks "
		 "are skipped",
		 strerror(errno));
	return false;
}

int main(void)
{
	bool kernel_checks = seccomp_syscall_works();
	section(test_build, "building every combination");
	bool built = true;
	for_each_variant(v)
		built &= progs[v].filter != NULL;
	if (!built) {
		tap_diag("no filter was built; nothing more to check");
		return tap_done();
	}
	section(test_refused_calls, "refused calls");
	section(test_allowed_calls, "allowed calls");
	section(test_namespaces_and_ioctl, "namespaces and ioctl");
	section(test_personality, "personality");
	section(test_socket_matrix, "socket matrix");
	section(test_socket_cases, "socket cases");
	section(test_bad_arch, "foreign architectures");
	section(test_metadata, "metadata calls");
	section(test_sysv_ipc, "SysV IPC");
	section(test_pid_targets, "calls aimed at other processes");
	section(test_report_names, "report names");
	section(test_broker_calls, "brokered calls");
	section(test_net_broker_calls, "brokered network calls");
	section(test_handover_closed, "the hand-over's closing filter");
	if (kernel_checks) {
		section(test_kernel, "the real kernel");
		section(test_kernel_variants, "the real kernel, per combination");
	} else {
		tap_skip("checks on the real kernel: seccomp(2) is not available here");
	}
	for_each_variant(v) {
		progs_sound[v] = false;
		seccomp_program_free(&progs[v]);
	}
	return tap_done();
}
