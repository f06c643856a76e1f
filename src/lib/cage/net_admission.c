#include "net_admission.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

void net_admission_init(struct net_admission *a)
{
	memset(a->ports, 0, sizeof a->ports);
	a->next = 0;
	pthread_mutex_init(&a->lock, NULL);
}

void net_admission_destroy(struct net_admission *a)
{
	pthread_mutex_destroy(&a->lock);
}

void net_admission_add(struct net_admission *a, uint16_t port)
{
	pthread_mutex_lock(&a->lock);
	unsigned slot = a->next;
	for (unsigned i = 0; i < NET_ADMISSION_MAX; i++)
		if (!a->ports[i]) {
			slot = i;
			break;
		}
	a->ports[slot] = port;
	a->next = (slot + 1) % NET_ADMISSION_MAX;
	pthread_mutex_unlock(&a->lock);
}

static bool take(struct net_admission *a, uint16_t port)
{
	bool found = false;
	pthread_mutex_lock(&a->lock);
	for (unsigned i = 0; i < NET_ADMISSION_MAX && !found; i++)
		if (port && a->ports[i] == port) {
			a->ports[i] = 0;
			found = true;
		}
	pthread_mutex_unlock(&a->lock);
	return found;
}

void net_admission_drop(struct net_admission *a, uint16_t port)
{
	(void)take(a, port);
}

/*
 * The peer as the kernel reports it: 127.0.0.1 (or its IPv4-mapped form)
 * at a port the broker recorded for the cage.
 */
bool net_admission_admit(void *ctx, int fd)
{
	struct sockaddr_storage peer;
	socklen_t len = sizeof peer;
	if (getpeername(fd, (struct sockaddr *)&peer, &len) != 0)
		return false;
	if (peer.ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&peer;
		return in->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
		       take(ctx, ntohs(in->sin_port));
	}
	if (peer.ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&peer;
		static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1 };
		return memcmp(in6->sin6_addr.s6_addr, mapped, 16) == 0 &&
		       take(ctx, ntohs(in6->sin6_port));
	}
	return false;
}
