/*
 * The proxy's hops on this host (proxy/local_hop.h): a peer at a loopback
 * address is one, in IPv4, IPv6 and IPv4 mapped in IPv6; a socket with no
 * peer, a Unix socket and a peer elsewhere are not. A local hop is given a
 * congestion control that does not pace (reno) and a bound on its unsent
 * bytes (TCP_NOTSENT_LOWAT), both read back from the socket.
 *
 * Its control: the socket on the other side of the same connection, not
 * touched, keeps the host's default.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "listeners.h"
#include "proxy/local_hop.h"
#include "tap.h"

static void congestion(int fd, char *name, size_t size)
{
	socklen_t len = (socklen_t)size - 1;
	memset(name, 0, size);
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) < 0)
		strcpy(name, "?");
}

/* Whether this process may choose reno: the administrator's list of
 * congestion controls open to every user names it, or the process is root. */
static bool reno_allowed(void)
{
	char list[256] = "";
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_allowed_congestion_control", "re");
	if (f) {
		if (!fgets(list, sizeof list, f))
			list[0] = 0;
		fclose(f);
	}
	return geteuid() == 0 || !f || strstr(list, "reno") != NULL;
}

static int notsent_lowat(int fd)
{
	int v = -1;
	socklen_t len = sizeof v;
	if (getsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &v, &len) < 0)
		return -1;
	return v;
}

static void loopback_pair(int family, const char *listen_at, const char *dial, const char *what)
{
	int fds[2];
	char before[32], after[32], other[32];
	int lowat_before;

	if (!tcp_pair(family, listen_at, dial, fds)) {
		tap_skip("%s: no connection here (%s)", what, strerror(errno));
		tap_skip("%s: no connection here", what);
		tap_skip("%s: no connection here", what);
		return;
	}
	congestion(fds[1], before, sizeof before);
	lowat_before = notsent_lowat(fds[1]);
	tap_ok(local_hop_is_loopback(fds[0]) && local_hop_is_loopback(fds[1]),
	       "%s: both ends are a local hop", what);
	local_hop_tune(fds[1]);
	congestion(fds[1], after, sizeof after);
	congestion(fds[0], other, sizeof other);
	if (!reno_allowed())
		tap_skip("%s: tcp_allowed_congestion_control leaves reno out here", what);
	else
		tap_ok(strcmp(after, "reno") == 0 && strcmp(other, before) == 0,
		       "%s: the end made unpaced uses reno (was %s, now %s), the other keeps %s",
		       what, before, after, other);
	int lowat = notsent_lowat(fds[1]);
	tap_ok(lowat > 0 && lowat < 65536 && lowat != lowat_before &&
		       notsent_lowat(fds[0]) == lowat_before,
	       "%s: the tuned end takes under 64 KiB unsent (%d, was %d), the other keeps %d", what,
	       lowat, lowat_before, notsent_lowat(fds[0]));
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	loopback_pair(AF_INET, "127.0.0.1", "127.0.0.1", "IPv4 127.0.0.1");
	loopback_pair(AF_INET6, "::1", "::1", "IPv6 ::1");
	loopback_pair(AF_INET6, "::", "::ffff:127.0.0.1", "IPv4 127.0.0.1 mapped in IPv6");

	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	tap_ok(fd >= 0 && !local_hop_is_loopback(fd), "a socket without a peer is no local hop");
	if (fd >= 0)
		close(fd);

	int un[2];
	bool paired = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, un) == 0;
	tap_ok(paired && !local_hop_is_loopback(un[0]), "a Unix socket is no loopback peer");
	if (paired) {
		close(un[0]);
		close(un[1]);
	}

	/* A peer elsewhere: a UDP socket connected to TEST-NET-1 sends nothing. */
	struct sockaddr_in far = { .sin_family = AF_INET, .sin_port = htons(9) };
	inet_pton(AF_INET, "192.0.2.1", &far.sin_addr);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&far, sizeof far) == 0)
		tap_ok(!local_hop_is_loopback(fd), "a peer at 192.0.2.1 is no local hop");
	else
		tap_skip("no route to 192.0.2.1 here (%s)", strerror(errno));
	if (fd >= 0)
		close(fd);
	return tap_done();
}
