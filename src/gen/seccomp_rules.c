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
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <linux/ioprio.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <netinet/in.h>
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
	/*
	 * Extended attributes: Landlock (ABI 7) does not check them, so a
	 * cage could set them (ACLs included: system.posix_acl_access) on
	 * any file it can open, outside its write grants too. EOPNOTSUPP,
	 * the answer of a file system without them, is what copying tools
	 * take in their stride: cp -p and cp -a set an ACL through
	 * fsetxattr on every file they copy, fail on EPERM, and fall back
	 * on fchmod on EOPNOTSUPP. Reading them (getxattr, listxattr) stays.
	 */
	{ "setxattr", EOPNOTSUPP },
	{ "lsetxattr", EOPNOTSUPP },
	{ "fsetxattr", EOPNOTSUPP },
	{ "removexattr", EOPNOTSUPP },
	{ "lremovexattr", EOPNOTSUPP },
	{ "fremovexattr", EOPNOTSUPP },
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
	/* The mount table of the run, masks included: which class locations
	 * exist on the host (Linux 6.8). /proc/self/mountinfo is a file,
	 * which Landlock judges. */
	{ "statmount", 457, EPERM },
	{ "listmount", 458, EPERM },
	/* The *at forms of setxattr and removexattr (Linux 6.13); see above. */
	{ "setxattrat", 463, EOPNOTSUPP },
	{ "removexattrat", 466, EOPNOTSUPP },
	{ "open_tree_attr", 467, EPERM }, /* open_tree with mount attributes (Linux 6.15) */
	/* Inode flags by path, as FS_IOC_FSSETXATTR (Linux 6.17). */
	{ "file_setattr", 469, EPERM },
};
const size_t seccomp_n_refused_new_calls = N_ELEMS(seccomp_refused_new_calls);

const struct seccomp_refused_call seccomp_host_ipc_calls[] = {
	{ "shmget", EPERM },   { "shmat", EPERM },   { "shmdt", EPERM },
	{ "shmctl", EPERM },   { "semget", EPERM },  { "semop", EPERM },
	{ "semtimedop", EPERM }, { "semtimedop_time64", EPERM }, { "semctl", EPERM },
	{ "msgget", EPERM },   { "msgsnd", EPERM },  { "msgrcv", EPERM },
	{ "msgctl", EPERM },
	/* i386's multiplexer carries every SysV call in its first argument. */
	{ "ipc", EPERM },
	/*
	 * POSIX message queues live in the IPC namespace too. Landlock judges
	 * the open of one and nothing else: mq_unlink removed a host queue,
	 * and mq_open with O_CREAT made one before its open was refused.
	 */
	{ "mq_open", EPERM },	{ "mq_unlink", EPERM }, { "mq_timedsend", EPERM },
	{ "mq_timedsend_time64", EPERM }, { "mq_timedreceive", EPERM },
	{ "mq_timedreceive_time64", EPERM }, { "mq_notify", EPERM }, { "mq_getsetattr", EPERM },
};
const size_t seccomp_n_host_ipc_calls = N_ELEMS(seccomp_host_ipc_calls);

const struct seccomp_new_call seccomp_i386_sysv_calls[] = {
	{ "semget", 393, EPERM }, { "semctl", 394, EPERM }, { "shmget", 395, EPERM },
	{ "shmctl", 396, EPERM }, { "shmat", 397, EPERM },  { "shmdt", 398, EPERM },
	{ "msgget", 399, EPERM }, { "msgsnd", 400, EPERM }, { "msgrcv", 401, EPERM },
	{ "msgctl", 402, EPERM },
};
const size_t seccomp_n_i386_sysv_calls = N_ELEMS(seccomp_i386_sysv_calls);
_Static_assert(N_ELEMS(seccomp_i386_sysv_calls) ==
		       SECCOMP_I386_SYSV_LAST - SECCOMP_I386_SYSV_FIRST + 1,
	       "the prologue refuses the whole range");

/*
 * Without them a cage changed other processes of its user on tier T2 and
 * in exec mode: prlimit(RLIMIT_FSIZE) killed one at its next write, a
 * file limit of 1 left the reaper unable to clean up, and the scheduling
 * calls changed priorities and CPUs outside. In a PID namespace the
 * run's reaper (its PID 1) is in reach the same way. The get forms
 * (getpriority, sched_get*, ioprio_get)
 * stay, but for prlimit64, which reads and sets in one call: they show
 * what /proc/PID/stat and /proc/PID/limits show.
 */
const struct seccomp_pid_call seccomp_pid_calls[] = {
	{ "prlimit64", 0, -1, 0 },
	{ "setpriority", 1, 0, PRIO_PROCESS },
	{ "ioprio_set", 1, 0, IOPRIO_WHO_PROCESS },
	{ "sched_setscheduler", 0, -1, 0 },
	{ "sched_setparam", 0, -1, 0 },
	{ "sched_setaffinity", 0, -1, 0 },
	{ "sched_setattr", 0, -1, 0 },
	/* Moving another process's memory between NUMA nodes. */
	{ "migrate_pages", 0, -1, 0 },
	{ "move_pages", 0, -1, 0 },
	/* Where another process keeps its robust futex list: an address of its
	 * memory layout. */
	{ "get_robust_list", 0, -1, 0 },
};
const size_t seccomp_n_pid_calls = N_ELEMS(seccomp_pid_calls);

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

/*
 * TIOCSTI pushes input into the terminal, TIOCLINUX can paste a selection:
 * both type commands into the user's shell outside. The others set inode
 * flags (immutable, append-only, no-dump...; a root caller's cage could
 * make any file immutable), the inode's generation, or turn fs-verity on
 * (the file is read-only for ever), and fscrypt's policy and keys:
 * Landlock does not check them, and the descriptor may be open for
 * reading only. The 32-bit spellings are what
 * i386 and x32 programs send.
 */
const uint32_t seccomp_refused_ioctls[] = {
	TIOCSTI,
	TIOCLINUX,
	FS_IOC_SETFLAGS,
	FS_IOC32_SETFLAGS,
	FS_IOC_FSSETXATTR,
	FS_IOC_SETVERSION,
	FS_IOC32_SETVERSION,
	FS_IOC_ENABLE_VERITY,
	/*
	 * fscrypt: an encryption policy on an empty directory the user owns,
	 * anywhere; keys added to or removed from a file system, which locks
	 * the user's encrypted directories in every session.
	 */
	FS_IOC_SET_ENCRYPTION_POLICY,
	FS_IOC_ADD_ENCRYPTION_KEY,
	FS_IOC_REMOVE_ENCRYPTION_KEY,
	FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS,
};
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

/*
 * The broker (tier T2, a write grant with a denial below it): Landlock
 * can grant a directory only as a whole, so the directories around a
 * denial are granted reading only, and making an entry in them needs the
 * supervisor. Every call that makes, removes, renames or links an entry
 * goes to it; it performs those aimed at such a directory and lets the
 * others through to Landlock (src/lib/watch/broker.c). openat2 passes its flags
 * in memory, out of the filter's reach: all of it goes. truncate64 is
 * i386's.
 */
const char *const seccomp_broker_calls[] = {
	"creat",  "openat2",  "mkdir",	   "mkdirat", "mknod",	  "mknodat",
	"unlink", "unlinkat", "rmdir",	   "rename",  "renameat", "renameat2",
	"link",	  "linkat",   "symlink",   "symlinkat", "truncate", "truncate64",
};
const size_t seccomp_n_broker_calls = N_ELEMS(seccomp_broker_calls);

/* open and openat go only when they may write, create or truncate. */
const struct seccomp_broker_open seccomp_broker_opens[] = {
	{ "open", 1 },
	{ "openat", 2 },
};
const size_t seccomp_n_broker_opens = N_ELEMS(seccomp_broker_opens);

/*
 * The network broker (loopback networking on tier T2): every call that
 * sets where a socket sends or what it listens on. listen goes too: on a
 * socket never bound it would bind every interface. sendmsg and sendmmsg
 * carry their address in memory, out of the filter's reach: all of them
 * go. sendto goes when it names an address (see seccomp_build.c).
 */
const char *const seccomp_net_broker_calls[] = {
	"connect", "bind", "listen", "sendmsg", "sendmmsg",
};
const size_t seccomp_n_net_broker_calls = N_ELEMS(seccomp_net_broker_calls);

/*
 * IPv4 options (a loose or strict source route among them) and IPv6
 * routing headers, set on the socket: the kernel then sends a packet
 * whose destination is 127.0.0.1 or ::1 to the route's first hop. The
 * RFC 2292 spellings set the same sticky options.
 */
const struct seccomp_socket_option seccomp_net_refused_options[] = {
	{ IPPROTO_IP, IP_OPTIONS },
	{ IPPROTO_IPV6, IPV6_RTHDR },
	{ IPPROTO_IPV6, 5 /* IPV6_2292RTHDR */ },
	{ IPPROTO_IPV6, 6 /* IPV6_2292PKTOPTIONS */ },
};
const size_t seccomp_n_net_refused_options = N_ELEMS(seccomp_net_refused_options);

const int seccomp_net_broker_protocols[] = { 0, IPPROTO_TCP, IPPROTO_UDP };
const size_t seccomp_n_net_broker_protocols = N_ELEMS(seccomp_net_broker_protocols);

/* O_TMPFILE needs O_WRONLY or O_RDWR, so it is among them too. */
const uint32_t seccomp_broker_open_flags[] = { O_CREAT, O_WRONLY, O_RDWR, O_TRUNC };
const size_t seccomp_n_broker_open_flags = N_ELEMS(seccomp_broker_open_flags);

/*
 * The metadata broker (tier T2): Landlock (ABI 7) judges no change of an
 * inode's owner or times, so these go to the supervisor whatever their
 * arguments, which performs them only on inodes inside the write grants
 * (src/lib/watch/broker_meta.c). chmod and its kin go there too, through their
 * mode blocks (seccomp_handwritten.c), once the set-id and sticky bits are
 * refused. The 16-bit chown calls and the *32 and time64 forms are i386's.
 */
const char *const seccomp_broker_metadata_calls[] = {
	"chown",   "fchown",	"lchown",    "fchownat",  "chown32",	"fchown32",
	"lchown32", "utime",	"utimes",    "futimesat", "utimensat", "utimensat_time64",
};
const size_t seccomp_n_broker_metadata_calls = N_ELEMS(seccomp_broker_metadata_calls);

/*
 * The broker's calls. Not execve: the run's first exec is made before the
 * supervisor starts answering (a notification then would never be
 * answered), and Landlock's EXECUTE denials are rare beside the rest.
 */
const char *const seccomp_observed_calls[] = {
	"creat",  "openat2",  "mkdir",	   "mkdirat", "mknod",	  "mknodat",
	"unlink", "unlinkat", "rmdir",	   "rename",  "renameat", "renameat2",
	"link",	  "linkat",   "symlink",   "symlinkat", "truncate", "truncate64",
};
const size_t seccomp_n_observed_calls = N_ELEMS(seccomp_observed_calls);
