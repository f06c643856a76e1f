/*
 * How a cage's network calls are brokered (tier T2, where the run has no
 * network namespace of its own): decided when the cage is made, carried
 * out by the supervisor's network broker (watch/broker_net.h).
 */
#ifndef PROCAGE_NET_MODE_H
#define PROCAGE_NET_MODE_H

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

/* The most Unix sockets one policy grants by path on tier T2. */
#define BROKER_UNIX_GRANTS_MAX 64

#endif
