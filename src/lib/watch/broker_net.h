/*
 * The network broker (loopback networking on tier T2, where the run has
 * no network namespace of its own): the calls that set where a socket
 * sends or what it listens on reach the supervisor, which copies the
 * address once, judges the copy, and performs the call itself on the
 * caller's own socket (taken with pidfd_getfd), answering its result. It
 * never answers CONTINUE for an IP socket: another thread of the cage
 * could rewrite the address between the judgment and the kernel's read.
 */
#ifndef PROCAGE_BROKER_NET_H
#define PROCAGE_BROKER_NET_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "cage/net_mode.h"
#include "kernel/landlock.h"

struct net_admission;

/* Tier T1 proxy: the run's proxy and the ports transparent egress captures. */
#define BROKER_OWN_TCP_PORTS_MAX (1 + LANDLOCK_MORE_PORTS)


/* A granted socket file, by identity: what a path must resolve to. */
struct broker_unix_grant {
	dev_t dev;
	ino_t ino;
};

struct broker_net_config {
	enum broker_net_mode mode;
	/*
	 * With --socket (tier T2, and T1 unless the network is on): Unix
	 * sockets connect (and send) by path only to the files in
	 * unix_grants, judged by the broker (broker_unix.c); on T2 bind by
	 * path is refused.
	 */
	bool unix_paths;
	/*
	 * Tier T1 unless the network is on: the run has a network
	 * namespace of its own, whose sockets only the run makes. There a
	 * connect by path also reaches a socket file bound in it, found
	 * through own_netns_diag (a sock_diag socket made there, the
	 * broker's to close); an abstract name is the run's own; a bind is
	 * the kernel's, under Landlock. With own_netns_ip (loopback, proxy),
	 * an IP socket's calls are performed as asked: that namespace holds
	 * only the run's own loopback (and, proxy, procage's listeners).
	 * Only on sockets made there, never on one handed in from another
	 * namespace. With own_netns_tcp_ports (proxy), TCP keeps Landlock's
	 * rules there: a connect to those ports only, no bind, no address
	 * on a send (TCP Fast Open).
	 */
	bool own_netns;
	bool own_netns_ip;
	int own_netns_diag;
	uint64_t own_netns_cookie; /* SO_NETNS_COOKIE of that namespace */
	size_t n_own_netns_tcp_ports; /* 0: TCP unlimited */
	uint16_t own_netns_tcp_ports[BROKER_OWN_TCP_PORTS_MAX];
	size_t n_unix_grants;
	struct broker_unix_grant unix_grants[BROKER_UNIX_GRANTS_MAX];
	uint16_t proxy_port;		 /* BROKER_NET_PROXY: the proxy's port on 127.0.0.1 */
	struct net_admission *admission; /* BROKER_NET_PROXY: the ports the proxy admits */
	/* BROKER_NET_PROXY: connections around the proxy are explained here; or NULL. */
	struct denial_store *denials;
};

/* Is call (by name) one of the network broker's? */
bool broker_net_handles(const char *call);

/*
 * Answer the pending notification n (a call broker_net_handles) on
 * listener, under mode. Uses scratch, room for the call's copies; a
 * call that has to wait is parked in waits (broker_net_wait.h).
 */
struct broker_net_scratch;
struct broker_waits;
void broker_net_answer(const struct broker_net_config *net, struct broker_net_scratch *scratch,
		       struct broker_waits *waits, int listener, const struct seccomp_notif *n,
		       const char *call);
struct broker_net_scratch *broker_net_scratch_new(void);

/*
 * Is the address a loopback one: 127.0.0.0/8, ::1, or ::ffff:127.x.y.z
 * (an IPv4-mapped address is judged as the IPv4 address it is)? len is
 * the length the caller gave.
 */
bool broker_net_is_loopback(const struct sockaddr_storage *a, socklen_t len);

/*
 * Unix sockets by path (broker_unix.c). The address (len bytes) a connect
 * or send of thread tid on sock (the broker's copy of its socket) names,
 * judged: 0 with *out (an address "/proc/self/fd/N" of the broker's own
 * O_PATH descriptor *held of the socket file, to be closed after the
 * call; or, on tier T1, the abstract name as given, *held -1) filled, or
 * a negative errno: -ECONNREFUSED for a path that is not a granted socket
 * (nor, on T1, one of the run's own), -EACCES for an abstract name (on
 * T1, one asked of a socket of another network namespace than the run's).
 */
struct sockaddr_un;
int broker_unix_target(const struct broker_net_config *net, pid_t tid, int sock,
		       const struct sockaddr_storage *addr, socklen_t len, struct sockaddr_un *out,
		       socklen_t *out_len, int *held);
/*
 * Tier T1: is sock in the run's own network namespace? A socket handed in
 * from outside (a granted service may pass descriptors) is not, and its
 * abstract names are the host's.
 */
bool broker_unix_run_socket(const struct broker_net_config *net, int sock);
/* The socket file at path (no link followed), added to net's grants when it is one. */
int broker_unix_grant_add(struct broker_net_config *net, const char *path);

#endif
