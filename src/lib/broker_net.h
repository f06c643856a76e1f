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

enum broker_net_mode {
	BROKER_NET_NONE = 0,
	/* Destinations and local addresses in 127.0.0.0/8 or ::1 only. */
	BROKER_NET_LOOPBACK,
	/*
	 * The run's proxy only (tier T2): TCP connect to 127.0.0.1 at its
	 * port, nothing bound, no datagram sent anywhere.
	 */
	BROKER_NET_PROXY,
};

struct net_admission;

struct broker_net_config {
	enum broker_net_mode mode;
	uint16_t proxy_port;		 /* BROKER_NET_PROXY: the proxy's port on 127.0.0.1 */
	struct net_admission *admission; /* BROKER_NET_PROXY: the ports the proxy admits */
};

/* Is call (by name) one of the network broker's? */
bool broker_net_handles(const char *call);

/*
 * Answer the pending notification n (a call broker_net_handles) on
 * listener, under mode. Uses scratch, room for the call's copies.
 */
struct broker_net_scratch;
void broker_net_answer(const struct broker_net_config *net, struct broker_net_scratch *scratch,
		       int listener, const struct seccomp_notif *n, const char *call);
struct broker_net_scratch *broker_net_scratch_new(void);

/*
 * Is the address a loopback one: 127.0.0.0/8, ::1, or ::ffff:127.x.y.z
 * (an IPv4-mapped address is judged as the IPv4 address it is)? len is
 * the length the caller gave.
 */
bool broker_net_is_loopback(const struct sockaddr_storage *a, socklen_t len);

#endif
