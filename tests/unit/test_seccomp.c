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
 */
#include "bpf_sim.h"
#include "error.h"
#include "seccomp_sim.h"
#include "seccomp.h"
#include "seccomp_build.h"
#include "seccomp_programs.h"
#include "seccomp_rules.h"
#include "tap.h"

/* libseccomp, for the call numbers of each ABI; see src/lib/seccomp.c. */
#include <seccomp.h>
#ifndef SCMP_VER_MAJOR
#error "libseccomp's <seccomp.h> is shadowed by src/lib/seccomp.h: use -iquote src/lib"
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

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#define NR_OPEN_TREE_ATTR 467 /* the same on all three ABIs; libseccomp 2.5 lacks it */

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

_Static_assert(N_VARIANTS == 1024, "ten options: an index for each combination");

bool sim_ok(bool ok, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return tap_ok(ok, "%s", text);
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

static bool variant_net(int v)
{
	return seccomp_program_options((size_t)v).network_on;
}

static bool variant_unix(int v)
{
	return seccomp_program_options((size_t)v).unix_sockets;
}

static bool variant_locked(int v)
{
	return seccomp_program_options((size_t)v).lock_sessions;
}

const char *variant_name(int v)
{
	static char names[N_VARIANTS][128];
	if (!names[v][0]) {
		struct seccomp_options o = seccomp_program_options((size_t)v);
		snprintf(names[v], sizeof names[v], "[%d] net %s, unix %s, sessions %s%s%s%s%s%s%s%s", v,
			 o.network_on ? "on" : "off", o.unix_sockets ? "on" : "off",
			 o.lock_sessions ? "locked" : "free", o.report ? ", report" : "",
			 o.own_ipc_namespace ? ", own IPC" : "", o.broker ? ", broker" : "",
			 o.broker_metadata ? ", metadata" : "",
			 o.broker_listing ? ", listing" : "", o.observe ? ", observe" : "",
			 o.net_broker ? ", net broker" : "");
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
	if (bpf_sim_run(prog->filter, prog->len, &data, &action, &why) < 0) {
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
	tap_ok(got == want, "%s, %s: %s %s (got %#x, want %#x)", variant_name(v), abi->name,
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
	tap_ok(rc == 0, "%s: libseccomp builds the program live (%s)", variant_name(v),
	       rc == 0 ? "ok" : err.message);
	size_t differ = live.len;
	for (size_t i = 0; rc == 0 && i < live.len && i < progs[v].len; i++)
		if (memcmp(&live.filter[i], &progs[v].filter[i], sizeof live.filter[i]) != 0) {
			differ = i;
			break;
		}
	tap_ok(rc == 0 && live.len == progs[v].len && differ == live.len,
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
		tap_ok(seccomp_program_index(&opts) == (size_t)v,
		       "%s: its options index the same program", variant_name(v));
		int rc = seccomp_program_build(&opts, &progs[v], &err);
		if (!seccomp_program_exists((size_t)v)) {
			/* A combination no cage asks for: refused, never a wrong program. */
			tap_ok(rc == -EINVAL && !progs[v].filter && err.message[0],
			       "%s: no program, refused (rc %d: %s)", variant_name(v), rc,
			       err.message);
			continue;
		}
		n_programs++;
		tap_ok(rc == 0 && progs[v].filter && progs[v].len > 0,
		       "build %s: rc %d, %u instructions %s", variant_name(v), rc, progs[v].len,
		       err.message);
		const char *why = "no program";
		bool sound = progs[v].filter &&
			     bpf_sim_check(progs[v].filter, progs[v].len, &why) == 0;
		tap_ok(sound, "%s: the program passes the checks seccomp makes (%s)",
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
				tap_ok(got == want,
				       "%s, %s: %s (%ld, unknown to libseccomp) refused with %s "
				       "(got %#x)",
				       variant_name(v), abi->name, c->name, nr, strerror(c->err), got);
			}
			long nr = NR_OPEN_TREE_ATTR | (abi->x32 ? X32_SYSCALL_BIT : 0);
			tap_ok(run_nr(&progs[v], abi->audit_arch, nr, ARGS(0)) ==
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

/* What the filter should answer for socket(family, type, protocol). */
static bool socket_refused(uint32_t family, uint32_t type, uint32_t protocol, bool net_on,
			   bool unix_on, bool net_broker)
{
	if (family == AF_UNIX)
		return !unix_on;
	if (!net_on)
		return true;
	if (family == AF_NETLINK)
		return protocol != NETLINK_ROUTE;
	if (family != AF_INET && family != AF_INET6)
		return true;
	if ((type & 0xf) == SOCK_RAW || (type & 0xf) == SOCK_PACKET)
		return true;
	/* The network broker judges TCP and UDP only (SCTP connects through options). */
	if (net_broker)
		return protocol != 0 && protocol != IPPROTO_TCP && protocol != IPPROTO_UDP;
	return protocol == IPPROTO_MPTCP;
}

static void check_socket_matrix(int v, const struct abi *abi)
{
	static const uint32_t extra_families[] = { 255, 0xffff, 0x7fffffff, 0x80000000u,
						   0xffffffffu };
	static const uint32_t types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW,
					  SOCK_SEQPACKET, SOCK_PACKET, SOCK_RDM };
	static const uint32_t type_flags[] = { 0, SOCK_NONBLOCK, SOCK_CLOEXEC };
	static const uint32_t protocols[] = { 0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP,
					      IPPROTO_RAW, IPPROTO_MPTCP, NETLINK_SOCK_DIAG,
					      NETLINK_XFRM, NETLINK_AUDIT, NETLINK_KOBJECT_UEVENT,
					      0x10000106 };
	long nr = abi_nr(abi, "socket");
	unsigned runs = 0, mismatches = 0;
	char first[96] = "";
	for (uint32_t f = 0; f < AF_MAX + 20 + N_ELEMS(extra_families); f++) {
		uint32_t family = f < AF_MAX + 20 ? f : extra_families[f - AF_MAX - 20];
		for (size_t t = 0; t < N_ELEMS(types) * N_ELEMS(type_flags); t++) {
			uint32_t type = types[t / N_ELEMS(type_flags)] |
					type_flags[t % N_ELEMS(type_flags)];
			for (size_t p = 0; p < N_ELEMS(protocols); p++) {
				bool refused = socket_refused(
				    family, type, protocols[p], variant_net(v), variant_unix(v),
				    seccomp_program_options((size_t)v).net_broker);
				uint32_t want = variant_answer(v, refused ? RET_EPERM
									  : SECCOMP_RET_ALLOW);
				uint32_t got = run_nr(&progs[v], abi->audit_arch, nr,
						      ARGS(family, type, protocols[p]));
				runs++;
				if (got != want && !mismatches++)
					snprintf(first, sizeof first, "(%#x, %#x, %#x) got %#x",
						 family, type, protocols[p], got);
			}
		}
	}
	tap_ok(mismatches == 0,
	       "%s, %s: socket family/type/protocol matrix, %u cases, %u mismatches %s",
	       variant_name(v), abi->name, runs, mismatches, first);
}

/*
 * What the filter should answer for socketpair(family, type, ...): AF_UNIX
 * only; with Unix sockets off, only stream and seqpacket pairs (the low 4
 * bits of the type; the flags above do not matter), never datagram ones.
 */
static bool socketpair_refused(uint32_t family, uint32_t type, bool unix_on)
{
	if (family != AF_UNIX)
		return true;
	if (unix_on)
		return false;
	return (type & 0xf) != SOCK_STREAM && (type & 0xf) != SOCK_SEQPACKET;
}

static void check_socketpair_matrix(int v, const struct abi *abi)
{
	static const uint32_t extra_families[] = { 255, 0xffff, 0x80000000u | AF_UNIX,
						   0xffffffffu };
	/* Above the low 4 bits: the two flags, and bits the kernel refuses
	 * (EINVAL) that the filter must not read as another type either. */
	static const uint32_t type_flags[] = { 0,
					       SOCK_NONBLOCK,
					       SOCK_CLOEXEC,
					       SOCK_NONBLOCK | SOCK_CLOEXEC,
					       0x10,
					       0x80000000u | SOCK_CLOEXEC };
	long nr = abi_nr(abi, "socketpair");
	unsigned runs = 0, mismatches = 0;
	char first[96] = "";
	for (uint32_t f = 0; f < AF_MAX + 20 + N_ELEMS(extra_families); f++) {
		uint32_t family = f < AF_MAX + 20 ? f : extra_families[f - AF_MAX - 20];
		for (size_t t = 0; t < 16 * N_ELEMS(type_flags); t++) {
			uint32_t type = (uint32_t)(t / N_ELEMS(type_flags)) |
					type_flags[t % N_ELEMS(type_flags)];
			for (uint32_t protocol = 0; protocol < 2; protocol++) {
				bool refused = socketpair_refused(family, type, variant_unix(v));
				uint32_t want = variant_answer(v, refused ? RET_EPERM
									  : SECCOMP_RET_ALLOW);
				uint32_t got = run_nr(&progs[v], abi->audit_arch, nr,
						      ARGS(family, type, protocol));
				runs++;
				if (got != want && !mismatches++)
					snprintf(first, sizeof first, "(%#x, %#x, %u) got %#x",
						 family, type, protocol, got);
			}
		}
	}
	tap_ok(mismatches == 0,
	       "%s, %s: socketpair family/type matrix, %u cases, %u mismatches %s",
	       variant_name(v), abi->name, runs, mismatches, first);
}

static void test_socket_matrix(void)
{
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			check_socket_matrix(v, &abis[a]);
			check_socketpair_matrix(v, &abis[a]);
		}
}

/*
 * 64-bit registers: the kernel reads family, type and protocol as int.
 * Upper bits on a family make it unknown to the filter: refused. On type
 * and protocol the filter compares only the low bits, as the kernel does.
 */
static void check_socket_upper_bits(int v)
{
	const struct abi *x86_64 = &abis[0];
	expect(v, x86_64, "socket", ARGS(0x100000000ull | AF_UNIX, SOCK_STREAM), RET_EPERM,
	       "(AF_UNIX | 1 << 32) refused");
	expect(v, x86_64, "socket", ARGS(0x100000000ull | AF_PACKET, SOCK_RAW), RET_EPERM,
	       "(AF_PACKET | 1 << 32) refused");
	expect(v, x86_64, "socketpair", ARGS(0x100000000ull | AF_UNIX, SOCK_STREAM), RET_EPERM,
	       "(AF_UNIX | 1 << 32) refused");
	expect(v, x86_64, "socketpair", ARGS(AF_UNIX, 0xffffffff00000000ull | SOCK_STREAM),
	       SECCOMP_RET_ALLOW, "(AF_UNIX, SOCK_STREAM | upper bits) allowed");
	expect(v, x86_64, "socketpair", ARGS(AF_UNIX, 0x100000000ull | SOCK_SEQPACKET),
	       SECCOMP_RET_ALLOW, "(AF_UNIX, SOCK_SEQPACKET | 1 << 32) allowed");
	/* Upper bits do not turn a datagram pair into another type. */
	expect(v, x86_64, "socketpair", ARGS(AF_UNIX, 0xffffffff00000000ull | SOCK_DGRAM),
	       variant_unix(v) ? SECCOMP_RET_ALLOW : RET_EPERM,
	       variant_unix(v) ? "(AF_UNIX, SOCK_DGRAM | upper bits) allowed (unix on)"
			       : "(AF_UNIX, SOCK_DGRAM | upper bits) refused (unix off)");
	expect(v, x86_64, "socketpair", ARGS(AF_UNIX, (uint64_t)SOCK_STREAM << 32 | SOCK_DGRAM),
	       variant_unix(v) ? SECCOMP_RET_ALLOW : RET_EPERM,
	       variant_unix(v) ? "(AF_UNIX, SOCK_DGRAM | SOCK_STREAM << 32) allowed (unix on)"
			       : "(AF_UNIX, SOCK_DGRAM | SOCK_STREAM << 32) refused (unix off)");
	/* On i386 every socket call through socketcall is refused. */
	expect(v, &abis[2], "socketcall", ARGS(1 /* SYS_SOCKET */), RET_EPERM,
	       "(SYS_SOCKET) refused");
	expect(v, &abis[2], "socketcall", ARGS(8 /* SYS_SOCKETPAIR */), RET_EPERM,
	       "(SYS_SOCKETPAIR) refused");
	expect(v, &abis[2], "socketcall", ARGS(3 /* SYS_CONNECT */), RET_EPERM,
	       "(SYS_CONNECT) refused");
	if (!variant_net(v))
		return;
	expect(v, x86_64, "socket", ARGS(AF_INET, 0xffffffff00000000ull | SOCK_RAW), RET_EPERM,
	       "(AF_INET, SOCK_RAW | upper bits) refused");
	expect(v, x86_64, "socket", ARGS(AF_INET, SOCK_STREAM, 0x700000000ull | IPPROTO_MPTCP),
	       RET_EPERM, "(AF_INET, mptcp | upper bits) refused");
	expect(v, x86_64, "socket", ARGS(AF_NETLINK, SOCK_RAW, 0x100000000ull), RET_EPERM,
	       "(AF_NETLINK, upper bits) refused");
}

static void test_socket_cases(void)
{
	static const struct {
		const char *what;
		uint64_t family, type, protocol;
		uint32_t want_off, want_on;
	} cases[] = {
		{ "AF_INET stream", AF_INET, SOCK_STREAM, 0, RET_EPERM, SECCOMP_RET_ALLOW },
		{ "AF_INET6 dgram", AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0, RET_EPERM,
		  SECCOMP_RET_ALLOW },
		{ "AF_INET ping", AF_INET, SOCK_DGRAM, IPPROTO_ICMP, RET_EPERM, SECCOMP_RET_ALLOW },
		{ "AF_INET raw", AF_INET, SOCK_RAW, IPPROTO_RAW, RET_EPERM, RET_EPERM },
		{ "AF_INET6 raw|cloexec", AF_INET6, SOCK_RAW | SOCK_CLOEXEC, 0, RET_EPERM,
		  RET_EPERM },
		{ "AF_INET raw|nonblock", AF_INET, SOCK_RAW | SOCK_NONBLOCK, 1, RET_EPERM,
		  RET_EPERM },
		{ "AF_INET SOCK_PACKET", AF_INET, SOCK_PACKET, 0, RET_EPERM, RET_EPERM },
		{ "AF_INET mptcp", AF_INET, SOCK_STREAM, IPPROTO_MPTCP, RET_EPERM, RET_EPERM },
		{ "AF_INET6 mptcp", AF_INET6, SOCK_STREAM, IPPROTO_MPTCP, RET_EPERM, RET_EPERM },
		{ "netlink route", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, RET_EPERM,
		  SECCOMP_RET_ALLOW },
		{ "netlink audit", AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, RET_EPERM, RET_EPERM },
		{ "netlink uevent", AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT, RET_EPERM,
		  RET_EPERM },
		{ "netlink sock_diag", AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG, RET_EPERM,
		  RET_EPERM },
		{ "netlink xfrm", AF_NETLINK, SOCK_RAW, NETLINK_XFRM, RET_EPERM, RET_EPERM },
		{ "AF_PACKET", AF_PACKET, SOCK_RAW, 0x300, RET_EPERM, RET_EPERM },
		{ "AF_VSOCK", AF_VSOCK, SOCK_STREAM, 0, RET_EPERM, RET_EPERM },
		{ "AF_BLUETOOTH", AF_BLUETOOTH, SOCK_RAW, 0, RET_EPERM, RET_EPERM },
		{ "AF_ALG", AF_ALG, SOCK_SEQPACKET, 0, RET_EPERM, RET_EPERM },
		{ "AF_XDP", AF_XDP, SOCK_RAW, 0, RET_EPERM, RET_EPERM },
		{ "AF_KEY", AF_KEY, SOCK_RAW, 2, RET_EPERM, RET_EPERM },
		{ "AF_UNSPEC", AF_UNSPEC, SOCK_STREAM, 0, RET_EPERM, RET_EPERM },
		{ "AF_MAX", AF_MAX, SOCK_STREAM, 0, RET_EPERM, RET_EPERM },
		{ "AF_MAX + 1", AF_MAX + 1, SOCK_STREAM, 0, RET_EPERM, RET_EPERM },
	};
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			for (size_t i = 0; i < N_ELEMS(cases); i++) {
				uint32_t want = variant_net(v) ? cases[i].want_on : cases[i].want_off;
				/* Ping sockets: not a transport the network broker judges. */
				if (seccomp_program_options((size_t)v).net_broker &&
				    cases[i].protocol == IPPROTO_ICMP)
					want = RET_EPERM;
				expect(v, &abis[a], "socket",
				       ARGS(cases[i].family, cases[i].type, cases[i].protocol), want,
				       cases[i].what);
			}
			/* AF_UNIX follows unix_sockets alone, whatever the network. */
			expect(v, &abis[a], "socket", ARGS(AF_UNIX, SOCK_SEQPACKET, 0),
			       variant_unix(v) ? SECCOMP_RET_ALLOW : RET_EPERM,
			       variant_unix(v) ? "AF_UNIX allowed" : "AF_UNIX refused");
		}
	for_each_variant(v)
		check_socket_upper_bits(v);
}

static void test_bad_arch(void)
{
	static const uint32_t other_arches[] = { AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM, 0,
						 AUDIT_ARCH_X86_64 ^ 1 };
	for_each_variant(v)
		for (size_t i = 0; i < N_ELEMS(other_arches); i++)
			for (long nr = 0; nr < 500; nr += 59) {
				uint32_t got = run_nr(&progs[v], other_arches[i], nr, ARGS(0));
				tap_ok(got == SECCOMP_RET_KILL_PROCESS,
				       "%s: arch %#x, call %ld kills the process (got %#x)",
				       variant_name(v), other_arches[i], nr, got);
			}
}

/* ---- on the real kernel ------------------------------------------------ */

/* An i386 call from this 64-bit process (needs IA-32 emulation). */
static long int80_call1(long nr, long arg)
{
	long ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(arg)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

enum attempt {
	TRY_UNSHARE_USERNS,
	TRY_IO_URING,
	TRY_SOCKET_INET,
	TRY_OPEN_TREE_ATTR,
	TRY_UNSHARE_USERNS_X32,
	TRY_UNSHARE_USERNS_I386,
	TRY_CLONE3,
	TRY_SOCKET_UNIX,
	TRY_UNSHARE_FILES,
	TRY_PERSONALITY_NO_ASLR,
	TRY_PERSONALITY_QUERY,
	TRY_TIOCSTI_UPPER_BITS,
	TRY_SOCKETPAIR_DGRAM,
	TRY_SOCKETPAIR_DGRAM_FLAGS,
	TRY_SOCKETPAIR_STREAM,
	TRY_SOCKETPAIR_SEQPACKET,
	TRY_SETSID,
	TRY__COUNT
};

static const char *const attempt_names[] = {
	[TRY_UNSHARE_USERNS] = "unshare(CLONE_NEWUSER)",
	[TRY_IO_URING] = "io_uring_setup",
	[TRY_SOCKET_INET] = "socket(AF_INET, SOCK_STREAM)",
	[TRY_OPEN_TREE_ATTR] = "open_tree_attr",
	[TRY_UNSHARE_USERNS_X32] = "x32 unshare(CLONE_NEWUSER)",
	[TRY_UNSHARE_USERNS_I386] = "i386 unshare(CLONE_NEWUSER) through int 0x80",
	[TRY_CLONE3] = "clone3",
	[TRY_SOCKET_UNIX] = "socket(AF_UNIX, SOCK_STREAM)",
	[TRY_UNSHARE_FILES] = "unshare(CLONE_FILES)",
	[TRY_PERSONALITY_NO_ASLR] = "personality(ADDR_NO_RANDOMIZE)",
	[TRY_PERSONALITY_QUERY] = "personality(0xffffffff)",
	[TRY_TIOCSTI_UPPER_BITS] = "ioctl(pipe, TIOCSTI | 0xdead00000000)",
	[TRY_SOCKETPAIR_DGRAM] = "socketpair(AF_UNIX, SOCK_DGRAM) and a datagram through it",
	[TRY_SOCKETPAIR_DGRAM_FLAGS] = "socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | "
				       "SOCK_CLOEXEC)",
	[TRY_SOCKETPAIR_STREAM] = "socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC) and a byte "
				  "through it",
	[TRY_SOCKETPAIR_SEQPACKET] = "socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK) and a "
				     "packet through it",
	[TRY_SETSID] = "setsid",
};

/* A pair of this type, and one byte from one end to the other: 0 or an errno. */
static int pair_round_trip(int type)
{
	int sv[2];
	char c = 'x';
	if (socketpair(AF_UNIX, type, 0, sv) < 0)
		return errno;
	if (write(sv[0], &c, 1) != 1 || read(sv[1], &c, 1) != 1 || c != 'x')
		return 253;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

/* In the child: the errno the attempt ends with, 0 if it succeeded. */
static int attempt(enum attempt what)
{
	long rc;
	char params[256] = { 0 }; /* a zeroed struct io_uring_params and room */
	switch (what) {
	case TRY_UNSHARE_USERNS:
		rc = unshare(CLONE_NEWUSER);
		break;
	case TRY_IO_URING:
		rc = syscall(__NR_io_uring_setup, 1, params);
		break;
	case TRY_SOCKET_INET:
		rc = socket(AF_INET, SOCK_STREAM, 0);
		break;
	case TRY_OPEN_TREE_ATTR:
		rc = syscall(NR_OPEN_TREE_ATTR, -1, "", 0, NULL, 0);
		break;
	case TRY_UNSHARE_USERNS_X32:
		rc = syscall(abi_nr(&abis[1], "unshare"), CLONE_NEWUSER);
		break;
	case TRY_UNSHARE_USERNS_I386: {
		long r = int80_call1(abi_nr(&abis[2], "unshare"), CLONE_NEWUSER);
		return r < 0 ? (int)-r : 0;
	}
	case TRY_CLONE3:
		rc = syscall(__NR_clone3, NULL, 0);
		break;
	case TRY_SOCKET_UNIX:
		rc = socket(AF_UNIX, SOCK_STREAM, 0);
		break;
	case TRY_UNSHARE_FILES:
		rc = unshare(CLONE_FILES);
		break;
	case TRY_PERSONALITY_NO_ASLR:
		rc = personality(PER_LINUX | ADDR_NO_RANDOMIZE);
		break;
	case TRY_PERSONALITY_QUERY:
		rc = personality(0xffffffff);
		break;
	case TRY_TIOCSTI_UPPER_BITS: {
		/* A pipe, never a terminal: without the filter this is ENOTTY. */
		int fds[2];
		char c = 'x';
		if (pipe(fds) < 0)
			return 254;
		rc = syscall(SYS_ioctl, fds[0], TIOCSTI | 0xdead00000000ull, &c);
		break;
	}
	case TRY_SOCKETPAIR_DGRAM:
		return pair_round_trip(SOCK_DGRAM);
	case TRY_SOCKETPAIR_DGRAM_FLAGS: {
		int sv[2];
		rc = socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv);
		break;
	}
	case TRY_SOCKETPAIR_STREAM:
		return pair_round_trip(SOCK_STREAM | SOCK_CLOEXEC);
	case TRY_SOCKETPAIR_SEQPACKET:
		return pair_round_trip(SOCK_SEQPACKET | SOCK_NONBLOCK);
	case TRY_SETSID:
		/* A forked child leads no process group: without the filter it works. */
		rc = setsid();
		break;
	default:
		return 255;
	}
	return rc < 0 ? errno : 0;
}

/*
 * Fork; the child installs the filter (or not), attempts the call and
 * exits with its errno. Returns that errno, or -1 if the child failed to
 * set up (200: no_new_privs, 201: install) or died of a signal.
 */
static int run_child(const struct sock_fprog *prog, enum attempt what, int *signal)
{
	*signal = 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (prog) {
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
				_exit(200);
			if (seccomp_program_install(prog) < 0)
				_exit(201);
		}
		_exit(attempt(what));
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status)) {
		*signal = WTERMSIG(status);
		return -1;
	}
	return WEXITSTATUS(status);
}

#define V_DEFAULT 0 /* network and Unix sockets off, sessions free: the default cage */
#define V_UNIX SECCOMP_PROGRAM_UNIX_SOCKETS
#define V_LOCKED SECCOMP_PROGRAM_LOCK_SESSIONS

static void test_kernel(void)
{
	static const struct {
		enum attempt what;
		int variant;
		int want; /* under the filter */
	} checks[] = {
		{ TRY_UNSHARE_USERNS, V_DEFAULT, EPERM },
		{ TRY_IO_URING, V_DEFAULT, EPERM },
		{ TRY_SOCKET_INET, V_DEFAULT, EPERM },
		{ TRY_OPEN_TREE_ATTR, V_DEFAULT, EPERM },
		{ TRY_UNSHARE_USERNS_X32, V_DEFAULT, EPERM },
		{ TRY_UNSHARE_USERNS_I386, V_DEFAULT, EPERM },
		{ TRY_CLONE3, V_DEFAULT, ENOSYS },
		{ TRY_SOCKET_UNIX, V_DEFAULT, EPERM },
		{ TRY_SOCKET_UNIX, V_UNIX, 0 },
		/* A datagram pair could send to the journal, /dev/log...: refused
		 * unless Unix sockets are; stream and seqpacket pairs stay. */
		{ TRY_SOCKETPAIR_DGRAM, V_DEFAULT, EPERM },
		{ TRY_SOCKETPAIR_DGRAM_FLAGS, V_DEFAULT, EPERM },
		{ TRY_SOCKETPAIR_DGRAM, V_UNIX, 0 },
		{ TRY_SOCKETPAIR_STREAM, V_DEFAULT, 0 },
		{ TRY_SOCKETPAIR_SEQPACKET, V_DEFAULT, 0 },
		{ TRY_SETSID, V_DEFAULT, 0 },
		{ TRY_SETSID, V_LOCKED, EPERM },
		{ TRY_UNSHARE_FILES, V_DEFAULT, 0 },
		{ TRY_PERSONALITY_NO_ASLR, V_DEFAULT, EPERM },
		{ TRY_PERSONALITY_QUERY, V_DEFAULT, 0 },
		{ TRY_TIOCSTI_UPPER_BITS, V_DEFAULT, EPERM },
	};
	_Static_assert(N_ELEMS(attempt_names) == TRY__COUNT, "every attempt has a name");
	for (size_t i = 0; i < N_ELEMS(checks); i++) {
		char name[160];
		snprintf(name, sizeof name, "%s (%s)", attempt_names[checks[i].what],
			 variant_name(checks[i].variant));
		int want = checks[i].want, sig_control, sig_filtered;
		int filtered = run_child(&progs[checks[i].variant], checks[i].what, &sig_filtered);
		const char *got = filtered < 0 ? "child failed" : filtered ? strerror(filtered)
									     : "succeeds";
		if (want == 0) {
			tap_ok(filtered == 0, "kernel: %s under the filter still works: %s", name,
			       got);
			continue;
		}
		int control = run_child(NULL, checks[i].what, &sig_control);
		if (control < 0) {
			tap_skip("%s: the control child failed (signal %d), nothing to compare",
				 name, sig_control);
			continue;
		}
		if (control == want) {
			tap_skip("%s: the kernel alone answers %s here, so the filter "
				 "cannot be told apart",
				 name, strerror(want));
			continue;
		}
		tap_ok(true, "control: %s without the filter: %s", name,
		       control ? strerror(control) : "succeeds");
		tap_ok(filtered == want, "kernel: %s under the filter: %s (want %s)", name, got,
		       strerror(want));
	}
	/* The ones the test rests on: each works without the filter. */
	static const enum attempt controls[] = { TRY_SOCKET_INET, TRY_SOCKET_UNIX,
						 TRY_SOCKETPAIR_DGRAM, TRY_SOCKETPAIR_DGRAM_FLAGS,
						 TRY_SETSID };
	for (size_t i = 0; i < N_ELEMS(controls); i++) {
		int sig;
		tap_ok(run_child(NULL, controls[i], &sig) == 0,
		       "control: %s succeeds without the filter", attempt_names[controls[i]]);
	}
}

/*
 * The other variants on the kernel: with the network on, an IPv4 socket
 * works; with Unix sockets on, an AF_UNIX one and a datagram pair; stream
 * and seqpacket pairs always;
 * setsid unless sessions are locked. The report variants install (the
 * kernel accepts USER_NOTIF) and, with no listener attached, the kernel
 * answers a refused call ENOSYS.
 */
static void test_kernel_variants(void)
{
	int sig, got;
	for_each_variant(v) {
		if (v == 0)
			continue; /* test_kernel checks the first */
		/* The observe variants hand refusals over as the report ones do. */
		bool report = seccomp_program_options((size_t)v).report ||
			      seccomp_program_options((size_t)v).observe;
		got = run_child(&progs[v], TRY_SOCKET_INET, &sig);
		int want = variant_net(v) ? 0 : report ? ENOSYS : EPERM;
		tap_ok(got == want, "kernel, %s: socket(AF_INET): %s (want %s)", variant_name(v),
		       got < 0 ? "child failed" : got ? strerror(got) : "succeeds",
		       want ? strerror(want) : "succeeds");
		got = run_child(&progs[v], TRY_UNSHARE_USERNS, &sig);
		want = report ? ENOSYS : EPERM;
		tap_ok(got == want, "kernel, %s: unshare(CLONE_NEWUSER): %s (want %s)",
		       variant_name(v), got < 0 ? "child failed" : strerror(got), strerror(want));
		got = run_child(&progs[v], TRY_CLONE3, &sig);
		tap_ok(got == ENOSYS, "kernel, %s: clone3: %s (want ENOSYS)", variant_name(v),
		       got < 0 ? "child failed" : got ? strerror(got) : "succeeds");
		static const enum attempt per_option[] = { TRY_SOCKET_UNIX, TRY_SOCKETPAIR_DGRAM,
							   TRY_SOCKETPAIR_DGRAM_FLAGS,
							   TRY_SOCKETPAIR_STREAM,
							   TRY_SOCKETPAIR_SEQPACKET,
							   TRY_SETSID };
		for (size_t i = 0; i < N_ELEMS(per_option); i++) {
			enum attempt a = per_option[i];
			bool refused = a == TRY_SETSID ? variant_locked(v)
				       : a == TRY_SOCKET_UNIX || a == TRY_SOCKETPAIR_DGRAM ||
						       a == TRY_SOCKETPAIR_DGRAM_FLAGS
					       ? !variant_unix(v)
					       : false;
			want = !refused ? 0 : report ? ENOSYS : EPERM;
			got = run_child(&progs[v], a, &sig);
			tap_ok(got == want, "kernel, %s: %s: %s (want %s)", variant_name(v),
			       attempt_names[a],
			       got < 0 ? "child failed" : got ? strerror(got) : "succeeds",
			       want ? strerror(want) : "succeeds");
		}
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
	test_build();
	bool built = true;
	for_each_variant(v)
		built &= progs[v].filter != NULL;
	if (!built) {
		tap_diag("no filter was built; nothing more to check");
		return tap_done();
	}
	test_refused_calls();
	test_allowed_calls();
	test_namespaces_and_ioctl();
	test_personality();
	test_socket_matrix();
	test_socket_cases();
	test_bad_arch();
	test_metadata();
	test_sysv_ipc();
	test_pid_targets();
	test_report_names();
	test_broker_calls();
	test_net_broker_calls();
	if (kernel_checks) {
		test_kernel();
		test_kernel_variants();
	} else {
		tap_skip("checks on the real kernel: seccomp(2) is not available here");
	}
	for_each_variant(v)
		seccomp_program_free(&progs[v]);
	return tap_done();
}
