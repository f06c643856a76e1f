/*
 * The cage's seccomp rules as data: the one place they are written down.
 * seccomp_build.c and seccomp_handwritten.c turn them into BPF (at build
 * time, in the generator, and in tests/unit/test_seccomp.c, which checks
 * the generated programs against them and against a live build).
 */
#ifndef PROCAGE_SECCOMP_RULES_H
#define PROCAGE_SECCOMP_RULES_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sched.h>
#include <stdint.h>
#include <sys/personality.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* A call refused whatever its arguments, by name, with this errno. */
struct seccomp_refused_call {
	const char *name;
	int err;
};

extern const struct seccomp_refused_call seccomp_refused_calls[];
extern const size_t seccomp_n_refused_calls;

/* Calls refused, whatever their arguments, only when sessions are locked. */
extern const struct seccomp_refused_call seccomp_session_calls[];
extern const size_t seccomp_n_session_calls;

/*
 * System V IPC and POSIX message queues, refused unless the run has an IPC
 * namespace of its own (option own_ipc_namespace): otherwise their objects
 * are the host's, found by key, id or name, and guarded only by their
 * owner's mode bits.
 */
extern const struct seccomp_refused_call seccomp_host_ipc_calls[];
extern const size_t seccomp_n_host_ipc_calls;

/*
 * A refusal with this errno goes to the supervisor in the report variants
 * (SECCOMP_RET_USER_NOTIF), which answers with the same errno. Others
 * (clone3's ENOSYS) stay errno answers in every variant.
 */
static inline bool seccomp_errno_reported(int err)
{
	return err == EPERM || err == EOPNOTSUPP;
}

/*
 * Calls newer than the libseccomp the rules are built with (2.5.4), which
 * cannot name them; refused with err by the hand-written prologue. Their
 * numbers are the same on all three ABIs (shared from 424 on; x32 adds its
 * bit). err is EPERM or EOPNOTSUPP.
 */
struct seccomp_new_call {
	const char *name;
	uint32_t nr;
	int err;
};

extern const struct seccomp_new_call seccomp_refused_new_calls[];
extern const size_t seccomp_n_refused_new_calls;

/*
 * i386's direct SysV IPC calls (Linux 5.1): libseccomp 2.5 knows i386's
 * SysV IPC only through the ipc multiplexer, so these are refused by
 * number by the prologue, on i386 only and unless own_ipc_namespace.
 */
#define SECCOMP_I386_SYSV_FIRST 393 /* semget */
#define SECCOMP_I386_SYSV_LAST 402  /* msgctl */
extern const struct seccomp_new_call seccomp_i386_sysv_calls[];
extern const size_t seccomp_n_i386_sysv_calls;

/*
 * Calls aimed at a process by pid: allowed only on the caller itself,
 * spelled pid 0 (what the C library passes for getrlimit, setrlimit,
 * nice...). The filter cannot know the caller's own pid, and a pid is
 * the only name of a process that can be reused by another one, so no
 * other value is allowed. A call is refused (EPERM) when
 *   argument pid_arg is not 0 (prlimit64 too when it only reads: on x32
 *   the filter sees only the low half of its new-limit pointer), or
 *   (when self_arg >= 0) argument self_arg is not self_value: the "which"
 *   of setpriority and ioprio_set, whose other kinds name process groups
 *   and users (who 0 there is the caller's group, all its user's processes).
 * On x86_64 the comparisons take the whole 64-bit register: a value with
 * upper bits set is refused even where the kernel reads only the low 32.
 * On x32 and i386 libseccomp compares the 32 bits the kernel reads.
 */
struct seccomp_pid_call {
	const char *name;
	unsigned int pid_arg;
	int self_arg;
	uint32_t self_value;
};

extern const struct seccomp_pid_call seccomp_pid_calls[];
extern const size_t seccomp_n_pid_calls;

/*
 * chmod, fchmod, fchmodat, fchmodat2 are refused (EPERM) when the mode
 * sets one of these bits (set-user-id, set-group-id, sticky). The kernel
 * reads the mode as 16 bits, the filter tests its low 32.
 */
#define SECCOMP_MODE_REFUSED 07000u

/* Namespace flags refused in unshare, and in clone but CLONE_NEWTIME. */
extern const uint64_t seccomp_namespace_flags[];
extern const size_t seccomp_n_namespace_flags;

/* ioctl commands refused with EPERM (compared on the 32 bits the kernel reads). */
extern const uint32_t seccomp_refused_ioctls[];
extern const size_t seccomp_n_refused_ioctls;

/*
 * personality(x) is refused when the low 32 bits of x (all the kernel
 * reads) set one of these bits, unless x is the query 0xffffffff: they
 * weaken the memory layout of what runs next.
 */
#define SECCOMP_PERSONALITY_REFUSED                                                       \
	((uint32_t)(ADDR_NO_RANDOMIZE | READ_IMPLIES_EXEC | ADDR_COMPAT_LAYOUT |         \
		    MMAP_PAGE_ZERO | ADDR_LIMIT_32BIT | ADDR_LIMIT_3GB))
#define SECCOMP_PERSONALITY_QUERY 0xffffffffu

/*
 * May socket(family, ...) be called at all? AF_UNIX when unix_sockets.
 * socketpair takes AF_UNIX only, in every variant; see seccomp_pair_types.
 */
bool seccomp_family_allowed(int family, bool network_on, bool unix_sockets);

/*
 * Without unix_sockets, socketpair(AF_UNIX) may only make pairs of these
 * types (the low 4 bits of the type argument; SOCK_NONBLOCK and
 * SOCK_CLOEXEC live above). With unix_sockets, any AF_UNIX pair.
 */
extern const int seccomp_pair_types[];
extern const size_t seccomp_n_pair_types;

/*
 * With the network on, IP sockets (AF_INET, AF_INET6) may not have these
 * types (the low 4 bits of the type argument) or this protocol, and
 * netlink sockets must have protocol NETLINK_ROUTE.
 */
extern const int seccomp_refused_ip_types[];
extern const size_t seccomp_n_refused_ip_types;
#define SECCOMP_REFUSED_IP_PROTOCOL 262 /* IPPROTO_MPTCP */

/*
 * The broker variants send these calls to the supervisor whatever their
 * arguments, and open and openat (the flags in argument flags_arg) when
 * the flags hold any of seccomp_broker_open_flags (compared on the low 32
 * bits the kernel reads).
 */
extern const char *const seccomp_broker_calls[];
extern const size_t seccomp_n_broker_calls;

struct seccomp_broker_open {
	const char *name;
	unsigned int flags_arg;
};

extern const struct seccomp_broker_open seccomp_broker_opens[];
extern const size_t seccomp_n_broker_opens;
extern const uint32_t seccomp_broker_open_flags[];
extern const size_t seccomp_n_broker_open_flags;

/*
 * The metadata broker variants send these calls to the supervisor whatever
 * their arguments (chmod and its kin go through their mode blocks).
 */
extern const char *const seccomp_broker_metadata_calls[];
extern const size_t seccomp_n_broker_metadata_calls;
/* Every one of seccomp_broker_open_flags. */
static inline uint32_t seccomp_broker_open_mask(void)
{
	uint32_t mask = 0;
	for (size_t i = 0; i < seccomp_n_broker_open_flags; i++)
		mask |= seccomp_broker_open_flags[i];
	return mask;
}

/*
 * The observe variants send these calls to the supervisor whatever their
 * arguments, and open and openat too.
 */
extern const char *const seccomp_observed_calls[];
extern const size_t seccomp_n_observed_calls;

/*
 * The network broker variants send these calls to the supervisor whatever
 * their arguments, and sendto when its address argument
 * (SECCOMP_SENDTO_ADDRESS_ARG, the whole register) is not NULL: without
 * one the kernel sends to the peer a brokered connect chose.
 */
extern const char *const seccomp_net_broker_calls[];
extern const size_t seccomp_n_net_broker_calls;
#define SECCOMP_SENDTO_ADDRESS_ARG 4

/*
 * Socket options the network broker variants refuse (setsockopt(level,
 * name), compared on the 32 bits the kernel reads): a source route sends
 * a packet for a loopback destination to its first hop, anywhere.
 */
struct seccomp_socket_option {
	int level, name;
};
extern const struct seccomp_socket_option seccomp_net_refused_options[];
/* The IP protocols socket() may name in the network broker variants (0: the type's default). */
extern const int seccomp_net_broker_protocols[];
extern const size_t seccomp_n_net_broker_protocols;
extern const size_t seccomp_n_net_refused_options;

#endif
