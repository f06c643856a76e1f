/*
 * Hops of the proxy that stay on this host. See local_hop.h.
 */
#include "local_hop.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Reno is built into every kernel and allowed to unprivileged sockets
 * unless tcp_allowed_congestion_control leaves it out; on a hop without
 * loss it only ever opens its window, and it never paces.
 */
#define LOCAL_HOP_CONGESTION "reno"
/*
 * Unsent bytes the socket takes before it says it is full: under one
 * segment of lo (64 KiB), so that a peer's acknowledgement sends at most
 * about one segment of the proxy's, and the proxy, woken when fewer than
 * half are left, sends the rest of what the window allows itself.
 */
#define LOCAL_HOP_NOTSENT_LOWAT (32 * 1024)

bool local_hop_is_loopback(int fd)
{
	struct sockaddr_storage peer;
	socklen_t len = sizeof peer;

	if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0)
		return false;
	if (peer.ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&peer;
		return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	}
	if (peer.ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)&peer)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

void local_hop_tune(int fd)
{
	int lowat = LOCAL_HOP_NOTSENT_LOWAT;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, LOCAL_HOP_CONGESTION,
			 strlen(LOCAL_HOP_CONGESTION));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof lowat);
}
