/*
 * The cage's seccomp rules as data: the one place they are written down.
 * seccomp_build.c and seccomp_handwritten.c turn them into BPF (at build
 * time, in the generator, and in tests/unit/test_seccomp.c, which checks
 * the generated programs against them and against a live build).
 */
#ifndef PROCAGE_SECCOMP_RULES_H
#define PROCAGE_SECCOMP_RULES_H

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
 * Calls newer than the libseccomp the rules are built with (2.5.4), which
 * cannot name them; refused with EPERM by a hand-written block. Their
 * numbers are the same on all three ABIs (shared from 424 on; x32 adds its
 * bit).
 */
struct seccomp_new_call {
	const char *name;
	uint32_t nr;
};

extern const struct seccomp_new_call seccomp_refused_new_calls[];
extern const size_t seccomp_n_refused_new_calls;

/* Namespace flags refused in unshare, and in clone but CLONE_NEWTIME. */
extern const uint64_t seccomp_namespace_flags[];
extern const size_t seccomp_n_namespace_flags;

/* ioctl commands refused (compared on the 32 bits the kernel reads). */
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

#endif
