/*
 * The proxy refuses the host's own addresses: a name on the
 * allowlist that resolves to an address of one of this host's interfaces
 * is refused like loopback, unless the allowlist names that address. The
 * test makes a network namespace of its own, gives its loopback interface
 * the address 44.1.2.3 and runs a service on it; the real network is never
 * touched.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy/allowlist.h"
#include "proxy/proxy.h"
#include "tap.h"

#define OWN_ADDRESS "44.1.2.3"

static int own_resolve(void *ctx, const char *name, struct dest_addr *out, size_t max)
{
	if (strcmp(name, "own.test") != 0 || max < 1)
		return 0;
	out->family = AF_INET;
	inet_pton(AF_INET, OWN_ADDRESS, out->bytes);
	return 1;
}
static const struct proxy_resolver own_resolver = {own_resolve, NULL};

static bool write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* A network namespace of our own: as root directly, else in a user namespace. */
static bool own_network(char *why, size_t size)
{
	if (unshare(CLONE_NEWNET) == 0)
		return true;
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
		snprintf(why, size, "no network namespace can be made here: %s", strerror(errno));
		return false;
	}
	snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
	write_file("/proc/self/setgroups", "deny");
	bool ok = write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
	ok = ok && write_file("/proc/self/gid_map", map);
	if (!ok)
		snprintf(why, size, "the user namespace's maps cannot be written");
	return ok;
}

/* lo up, and OWN_ADDRESS on it (an alias, as `ip addr add` would). */
static bool own_address(void)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok = fd >= 0;
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	ok = ok && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0;
	ifr.ifr_flags |= IFF_UP;
	ok = ok && ioctl(fd, SIOCSIFFLAGS, &ifr) == 0;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo:own");
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, OWN_ADDRESS, &sin->sin_addr);
	ok = ok && ioctl(fd, SIOCSIFADDR, &ifr) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static int listen_on(const char *address, int *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof sin;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	inet_pton(AF_INET, address, &sin.sin_addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(fd, 8) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

/* CONNECT own.test:port through the proxy; the response head in out. */
static void connect_through(int proxy_port, int port, char *out, size_t size)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons((uint16_t)proxy_port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct timeval tv = {.tv_sec = 5};
	char request[128];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	out[0] = '\0';
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	int n = snprintf(request, sizeof request,
			 "CONNECT own.test:%d HTTP/1.1\r\nHost: own.test:%d\r\n\r\n", port, port);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == 0 &&
	    write(fd, request, (size_t)n) == n) {
		ssize_t got = read(fd, out, size - 1);
		out[got > 0 ? got : 0] = '\0';
	}
	close(fd);
}

static void proxy_case(const char *const *entries, size_t n, int service_port, char *head,
		       size_t size)
{
	struct procage_error err;
	struct allowlist *list = NULL;
	struct proxy *proxy = NULL;
	int proxy_port = 0, listener = listen_on("127.0.0.1", &proxy_port);
	head[0] = '\0';
	if (listener < 0 || allowlist_new(entries, n, &list, &err) < 0 ||
	    proxy_start(listener, list, &(struct proxy_options){.resolver = &own_resolver}, &proxy,
			&err) < 0) {
		tap_diag("proxy: %s", err.message);
	} else {
		connect_through(proxy_port, service_port, head, size);
	}
	proxy_stop(proxy);
	allowlist_free(list);
	if (listener >= 0)
		close(listener);
}

int main(void)
{
	char why[128], name_entry[64], head[512], interface[24];
	int port = 0;
	if (!own_network(why, sizeof why)) {
		tap_skip("%s", why);
		return tap_done();
	}
	if (!tap_ok(own_address(), "the namespace's lo carries %s", OWN_ADDRESS))
		return tap_done();
	int service = listen_on(OWN_ADDRESS, &port);
	if (!tap_ok(service >= 0, "a service listens on %s:%d", OWN_ADDRESS, port))
		return tap_done();
	struct dest_addr own = {.family = AF_INET};
	inet_pton(AF_INET, OWN_ADDRESS, own.bytes);
	tap_ok(allowlist_host_interface(&own, interface, sizeof interface) &&
		   strncmp(interface, "lo", 2) == 0,
	       "%s is found among the host's own addresses, on lo (its label)", OWN_ADDRESS);
	struct dest_addr other = {.family = AF_INET};
	inet_pton(AF_INET, "44.1.2.4", other.bytes);
	tap_ok(!allowlist_host_interface(&other, interface, sizeof interface),
	       "a neighbouring address is not");

	snprintf(name_entry, sizeof name_entry, "own.test:%d", port);
	const char *by_name[] = {name_entry};
	proxy_case(by_name, 1, port, head, sizeof head);
	tap_ok(strncmp(head, "HTTP/1.1 403", 12) == 0 && strstr(head, "this host's own"),
	       "an allowed name resolving to the host's own address is refused: %.12s", head);
	const char *by_address[] = {name_entry, OWN_ADDRESS "/32"};
	proxy_case(by_address, 2, port, head, sizeof head);
	tap_ok(strncmp(head, "HTTP/1.1 200", 12) == 0,
	       "control: with the address on the allowlist the same request passes: %.12s", head);
	close(service);
	return tap_done();
}
