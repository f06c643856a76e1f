/*
 * The cage's seccomp rules. A denylist: everything is allowed except what
 * is below. Landlock decides what files the child may reach; these rules
 * take away the kernel interfaces that would let it step around Landlock
 * or the namespaces (mounts, new namespaces, ptrace, io_uring, raw
 * sockets...), and the ones no sandboxed program needs (modules, kexec,
 * setting the clock...).
 */
#include "seccomp_rules.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Names absent on one ABI (umount and socketcall exist only on i386,
 * kexec_file_load not there) are left out of that ABI's part by libseccomp.
 */
const struct seccomp_refused_call seccomp_refused_calls[] = {
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
const size_t seccomp_n_refused_calls = N_ELEMS(seccomp_refused_calls);

/*
 * In the session lifetime a run finds the processes it must kill by
 * session: one that calls setsid leaves it and outlives the run.
 */
const struct seccomp_refused_call seccomp_session_calls[] = {
	{ "setsid", EPERM },
};
const size_t seccomp_n_session_calls = N_ELEMS(seccomp_session_calls);

const struct seccomp_new_call seccomp_refused_new_calls[] = {
	{ "open_tree_attr", 467 }, /* open_tree with mount attributes (Linux 6.15) */
};
const size_t seccomp_n_refused_new_calls = N_ELEMS(seccomp_refused_new_calls);

/*
 * CLONE_NEWTIME shares its bit with the exit signal field of clone
 * (CSIGNAL), which clone cannot use to make a time namespace; it is
 * refused for unshare only.
 */
const uint64_t seccomp_namespace_flags[] = {
	CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWNET,	 CLONE_NEWPID,
	CLONE_NEWUTS,  CLONE_NEWIPC, CLONE_NEWCGROUP, CLONE_NEWTIME,
};
const size_t seccomp_n_namespace_flags = N_ELEMS(seccomp_namespace_flags);

/* TIOCSTI pushes input into the terminal, TIOCLINUX can paste a selection:
 * both type commands into the user's shell outside. */
const uint32_t seccomp_refused_ioctls[] = { TIOCSTI, TIOCLINUX };
const size_t seccomp_n_refused_ioctls = N_ELEMS(seccomp_refused_ioctls);

bool seccomp_family_allowed(int family, bool network_on, bool unix_sockets)
{
	/*
	 * Below Landlock ABI 9 a Unix socket can connect to any pathname or
	 * abstract socket it can name: only a cage that masks every other
	 * socket (tier T1) may make one.
	 */
	if (family == AF_UNIX)
		return unix_sockets;
	/* NETLINK_ROUTE only: glibc's getaddrinfo and if_nameindex read the
	 * interface list through it. */
	return network_on && (family == AF_INET || family == AF_INET6 || family == AF_NETLINK);
}

/*
 * A stream or seqpacket pair is connected to itself from the start and can
 * connect nowhere else. A datagram pair can: like any Unix datagram socket
 * it may connect() or sendto() a pathname or abstract datagram socket it
 * can name (the journal, /dev/log, a NOTIFY_SOCKET), which Landlock below
 * ABI 9 does not check. Where socket(AF_UNIX) is refused, so is that.
 */
const int seccomp_pair_types[] = { SOCK_STREAM, SOCK_SEQPACKET };
const size_t seccomp_n_pair_types = N_ELEMS(seccomp_pair_types);

/* SOCK_PACKET with AF_INET is the kernel's old spelling of AF_PACKET. MPTCP
 * (SECCOMP_REFUSED_IP_PROTOCOL) is a separate transport with its own,
 * younger code. */
const int seccomp_refused_ip_types[] = { SOCK_RAW, SOCK_PACKET };
const size_t seccomp_n_refused_ip_types = N_ELEMS(seccomp_refused_ip_types);
