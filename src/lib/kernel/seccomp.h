/*
 * The cage's seccomp filter: a classic BPF program made at build time
 * (src/gen), picked by the cage in the parent, installed by the child as
 * its last step before exec. It covers the x86_64, x32 and i386 system
 * call ABIs.
 */
#ifndef PROCAGE_SECCOMP_H
#define PROCAGE_SECCOMP_H

#include <linux/filter.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "procage.h"

struct seccomp_options {
	/* IP sockets (TCP, UDP) and NETLINK_ROUTE may be created. */
	bool network_on;
	/*
	 * socket(AF_UNIX) may be called. Below Landlock ABI 9 nothing stops
	 * a connect() to any pathname or abstract socket the child can name,
	 * so a cage reaches no daemon only if it cannot make one; the cage
	 * allows it where every other socket is masked (tier T1, sockets
	 * named by the policy). socketpair(AF_UNIX) is allowed either way,
	 * but without this option only for SOCK_STREAM and SOCK_SEQPACKET
	 * pairs: a datagram pair could send to any datagram socket it names.
	 */
	bool unix_sockets;
	/* setsid is refused: every process of the run stays in its session. */
	bool lock_sessions;
	/*
	 * Refusals that are EPERM or EOPNOTSUPP become
	 * SECCOMP_RET_USER_NOTIF, for a supervisor to report and answer with
	 * the same errno (clone3 keeps ENOSYS). Installed without a
	 * listener, the kernel answers those calls ENOSYS.
	 */
	bool report;
	/*
	 * System V IPC allowed: the run has an IPC namespace of its own
	 * (tier T1), so the only objects it reaches are its own. Without
	 * it, the SysV calls are refused.
	 */
	bool own_ipc_namespace;
	/*
	 * The calls that make, remove, rename or link entries, and opens for
	 * writing, go to the supervisor (SECCOMP_RET_USER_NOTIF), whose
	 * broker performs those aimed at a directory Landlock cannot grant
	 * (watch/broker.c). Installed without a listener, the kernel
	 * answers them ENOSYS: only a supervised run gets this variant.
	 */
	bool broker;
	/*
	 * chmod (once its set-id and sticky bits are refused), chown and
	 * utimes calls go to the supervisor, whose broker performs them only
	 * on inodes inside the write grants (watch/broker_meta.c): tier T2,
	 * where Landlock judges none of them. Only a supervised run.
	 */
	bool broker_metadata;
	/*
	 * open and openat with O_DIRECTORY, and openat2, go to the
	 * supervisor, whose broker serves a listing of the directories the
	 * policy lets it list (listing-shows-hidden-names) and answers
	 * CONTINUE for the others. Only a supervised run.
	 */
	bool broker_listing;
	/*
	 * Every open and openat, whatever its flags, openat2 and the entry
	 * calls go to the supervisor, whose broker opens the caller's own
	 * /proc/self files for it (watch/broker_proc.c) and makes the run's
	 * own semaphores in /dev/shm (watch/broker_shm.c), and answers
	 * CONTINUE for the others: tier T2, where Landlock can name no
	 * process's own /proc entries. Only a supervised run.
	 */
	bool broker_reads;
	/*
	 * The calls that name a path for opening, making, removing,
	 * renaming, linking or truncating go to the supervisor, which only
	 * looks at them to explain a refusal afterwards and lets them go on
	 * (CONTINUE): Landlock, the masks and the rest of the filter still
	 * decide. Refusals are handed over as in the report variants, so
	 * that a refused socket is explained too. Installed without a
	 * listener, the kernel answers them ENOSYS.
	 */
	bool observe;
	/*
	 * The calls that name a destination or a local address (connect,
	 * bind, listen, sendmsg, sendmmsg, and sendto with an address) go to
	 * the supervisor, whose broker judges the address on its own copy and
	 * performs the call on the caller's socket (watch/broker_net.c):
	 * loopback networking without a network namespace (tier T2).
	 */
	bool net_broker;
};

/*
 * The flags of the one sendmsg the network broker variants let through
 * unbrokered: the child's, handing the listener over after the filter is
 * installed (no supervisor could answer it before). MSG_PROBE makes an IP
 * send send nothing (UDP, ping) and TCP ignores a message's address
 * without MSG_FASTOPEN, so the cage gains nothing by these flags; Unix
 * sockets ignore MSG_PROBE. Compared on the whole register.
 */
#ifndef MSG_PROBE
#define MSG_PROBE 0x10 /* the kernel's name; glibc's is MSG_PROXY */
#endif
#define SECCOMP_HANDOVER_SEND_FLAGS (MSG_NOSIGNAL | MSG_PROBE)

/*
 * The filter for these options, in prog. Release it with
 * seccomp_program_free; the instructions are shared and read-only.
 */
int seccomp_program_build(const struct seccomp_options *opts, struct sock_fprog *prog,
			  struct procage_error *err);
void seccomp_program_free(struct sock_fprog *prog);

/*
 * Installed over the filter once the hand-over is made, where the filter
 * let it through (the network broker variants): it refuses (EPERM) every
 * sendmsg with the hand-over's flags from then on, on the three x86 ABIs.
 * A stacked filter's ERRNO outranks the first one's ALLOW; without it, a
 * Unix datagram sent so (Unix sockets ignore MSG_PROBE) reached any
 * socket by path past the broker. No program sends with those flags.
 */
extern const struct sock_fprog seccomp_handover_closed;

/*
 * Child side, system calls only: install prog on the calling thread.
 * Needs no_new_privs set first. Returns 0 or a negative errno.
 */
int seccomp_program_install(const struct sock_fprog *prog);
/*
 * The same for a report variant: returns the listener the supervisor
 * answers on (close-on-exec), or a negative errno.
 */
int seccomp_program_install_listener(const struct sock_fprog *prog);

#endif
