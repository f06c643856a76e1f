/*
 * Part of the seccomp unit test (see test_seccomp.c): the programs on the
 * real kernel. Each attempt runs in a forked child that installs the
 * filter, beside a control child without it, so a check cannot pass with
 * the filter switched off; the x32 and i386 entries are tried as well.
 */
#include "seccomp_sim.h"
#include "kernel/seccomp.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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
		/*
		 * A kernel or hypervisor without i386 entry answers int 0x80
		 * with SIGSEGV: the child must die of it, not exit with a
		 * sanitizer's status, which would read as an errno.
		 */
		signal(SIGSEGV, SIG_DFL);
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

/*
 * The same for several attempts in one child, in order, so a program is
 * installed once for all of them (a fork per attempt made this test slow,
 * and many times slower under the sanitizers). got[i] is attempt i's errno,
 * or -1 for those the child did not report (it failed to set up or died).
 */
static void run_attempts(const struct sock_fprog *prog, const enum attempt *what, size_t n,
			 int *got)
{
	unsigned char results[16];
	for (size_t i = 0; i < n; i++)
		got[i] = -1;
	int fds[2];
	if (n > sizeof results || pipe(fds) < 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_program_install(prog) < 0)
			_exit(201);
		for (size_t i = 0; i < n; i++)
			results[i] = (unsigned char)attempt(what[i]);
		_exit(write(fds[1], results, n) == (ssize_t)n ? 0 : 202);
	}
	close(fds[1]);
	ssize_t r = -1;
	if (pid > 0) {
		do
			r = read(fds[0], results, n);
		while (r < 0 && errno == EINTR);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
	for (ssize_t i = 0; i < r; i++)
		got[i] = results[i];
}

#define V_DEFAULT 0 /* network and Unix sockets off, sessions free: the default cage */
#define V_UNIX SECCOMP_PROGRAM_UNIX_SOCKETS
#define V_LOCKED SECCOMP_PROGRAM_LOCK_SESSIONS

void test_kernel(void)
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
			sim_ok(filtered == 0, "kernel: %s under the filter still works: %s", name,
			       got);
			continue;
		}
		int control = run_child(NULL, checks[i].what, &sig_control);
		if (control < 0) {
			sim_skip("%s: the control child failed (signal %d%s), nothing to compare",
				 name, sig_control,
				 checks[i].what == TRY_UNSHARE_USERNS_I386 && sig_control == SIGSEGV
					 ? ": this machine runs no i386 call from a 64-bit process"
					 : "");
			continue;
		}
		if (control == want) {
			sim_skip("%s: the kernel alone answers %s here, so the filter "
				 "cannot be told apart",
				 name, strerror(want));
			continue;
		}
		sim_ok(true, "control: %s without the filter: %s", name,
		       control ? strerror(control) : "succeeds");
		sim_ok(filtered == want, "kernel: %s under the filter: %s (want %s)", name, got,
		       strerror(want));
	}
	/* The ones the test rests on: each works without the filter. */
	static const enum attempt controls[] = { TRY_SOCKET_INET, TRY_SOCKET_UNIX,
						 TRY_SOCKETPAIR_DGRAM, TRY_SOCKETPAIR_DGRAM_FLAGS,
						 TRY_SETSID };
	for (size_t i = 0; i < N_ELEMS(controls); i++) {
		int sig;
		sim_ok(run_child(NULL, controls[i], &sig) == 0,
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
void test_kernel_variants(void)
{
	/* setsid last: the attempts before it run in the child's own session. */
	static const enum attempt tried[] = { TRY_SOCKET_INET,       TRY_UNSHARE_USERNS,
					      TRY_CLONE3,            TRY_SOCKET_UNIX,
					      TRY_SOCKETPAIR_DGRAM,  TRY_SOCKETPAIR_DGRAM_FLAGS,
					      TRY_SOCKETPAIR_STREAM, TRY_SOCKETPAIR_SEQPACKET,
					      TRY_SETSID };
	int got[N_ELEMS(tried)];
	for_each_variant(v) {
		if (v == 0)
			continue; /* test_kernel checks the first */
		/* The observe variants hand refusals over as the report ones do. */
		bool report = seccomp_program_options((size_t)v).report ||
			      seccomp_program_options((size_t)v).observe;
		run_attempts(&progs[v], tried, N_ELEMS(tried), got);
		for (size_t i = 0; i < N_ELEMS(tried); i++) {
			enum attempt a = tried[i];
			bool refused = a == TRY_SOCKET_INET ? !variant_net(v)
				       : a == TRY_UNSHARE_USERNS ? true
				       : a == TRY_SETSID ? variant_locked(v)
				       : a == TRY_SOCKET_UNIX || a == TRY_SOCKETPAIR_DGRAM ||
						       a == TRY_SOCKETPAIR_DGRAM_FLAGS
					       ? !variant_unix(v)
					       : false;
			/* clone3 is answered ENOSYS in every variant, so callers fall back. */
			int want = a == TRY_CLONE3 ? ENOSYS : !refused ? 0 : report ? ENOSYS : EPERM;
			sim_ok(got[i] == want, "kernel, %s: %s: %s (want %s)", variant_name(v),
			       attempt_names[a],
			       got[i] < 0 ? "child failed" : got[i] ? strerror(got[i]) : "succeeds",
			       want ? strerror(want) : "succeeds");
		}
	}
}
