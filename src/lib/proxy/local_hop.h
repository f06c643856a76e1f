/*
 * The proxy's hops that never leave this host: every client connection
 * (the listeners are procage's own, on loopback or in the run's network
 * namespace, where lo is the only link) and an upstream connection to a
 * loopback address (a listed local service).
 *
 * Such a hop goes through no queue that congestion control could spare, so
 * it gets one that does not pace: where the host's default is BBR (which
 * paces in TCP itself when the device has no fq queue, as lo has none), a
 * proxied bulk transfer was held back by two paced hops in a row.
 *
 * And the proxy queues little on it beyond what the peer's window lets
 * through (TCP_NOTSENT_LOWAT), keeping the rest in its pipe: bytes queued
 * in the socket are sent when the peer's acknowledgement opens the window,
 * in the peer's own time on lo: a client reading a bulk transfer as fast
 * as it could spent about half as much processor time again sending the
 * proxy's bytes to itself, and it is the busiest of the parties.
 */
#ifndef PROCAGE_PROXY_LOCAL_HOP_H
#define PROCAGE_PROXY_LOCAL_HOP_H

#include <stdbool.h>

/* Whether the connected socket fd's peer is a loopback address (IPv4,
 * IPv6, or IPv4 mapped in IPv6). */
bool local_hop_is_loopback(int fd);
/* Make fd, a connected TCP socket whose peer is on this host, a local
 * hop: a congestion control that does not pace, and little queued unsent.
 * Where the host refuses either, fd stays as it was: slower, no less
 * correct. */
void local_hop_tune(int fd);

#endif
