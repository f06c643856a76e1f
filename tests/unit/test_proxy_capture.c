/*
 * Transparent egress (proxy/capture.h) without a namespace: the resolver
 * on a datagram socket of 127.0.0.1 and capture listeners on the host's
 * own 127.100.0.1 and 127.100.0.2 (loopback: the whole of 127/8 is), at
 * the echo server's port, beside the fixture's proxy and allowlist.
 */
#include "proxy_fixture.h"

#include "proxy/capture.h"

static int dns_fd_client = -1, dns_port;

/* One query (type qtype) for name; the answer's bytes, or -1 after IO_TIMEOUT_S. */
static int dns_ask(const char *name, uint16_t qtype, uint16_t id, unsigned char *answer,
		   size_t size)
{
	unsigned char q[300] = {(unsigned char)(id >> 8), (unsigned char)id, 0x01, 0x00, 0, 1};
	size_t n = 12;
	for (const char *p = name; *p;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		q[n++] = (unsigned char)len;
		memcpy(q + n, p, len);
		n += len;
		p += len + (dot ? 1 : 0);
	}
	q[n++] = 0;
	q[n++] = (unsigned char)(qtype >> 8), q[n++] = (unsigned char)qtype;
	q[n++] = 0, q[n++] = 1;
	if (send(dns_fd_client, q, n, 0) != (ssize_t)n)
		return -1;
	struct pollfd p = {dns_fd_client, POLLIN, 0};
	if (poll(&p, 1, IO_TIMEOUT_S * 1000) != 1)
		return -1;
	return (int)recv(dns_fd_client, answer, size, 0);
}

static int rcode(const unsigned char *a)
{
	return a[3] & 0xf;
}

static int ancount(const unsigned char *a)
{
	return a[6] << 8 | a[7];
}

static int reports_naming(const char *canonical)
{
	int n = 0;
	pthread_mutex_lock(&log_lock);
	for (int i = 0; i < n_reports; i++)
		n += strcmp(reports[i].canonical, canonical) == 0;
	pthread_mutex_unlock(&log_lock);
	return n;
}

static int socket_at(int type, const char *addr, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	inet_pton(AF_INET, addr, &a.sin_addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 16) != 0)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int connect_at(const char *addr, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	inet_pton(AF_INET, addr, &a.sin_addr);
	if (fd < 0)
		return -1;
	set_timeouts(fd);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Connected, then ended by the other side without a byte (a refusal). */
static bool refused_at(const char *addr, int port)
{
	char c;
	int fd = connect_at(addr, port);
	if (fd < 0)
		return true;
	(void)!send(fd, "x", 1, MSG_NOSIGNAL);
	ssize_t n = recv(fd, &c, 1, 0);
	close(fd);
	return n <= 0;
}

static void test_ports(void)
{
	const char *entries[] = {"a.test",   "b.test:8443", "*.c.test:8443", "10.0.0.0/8",
				 "[::1]:99", "d.test:3128", "e.test:8080"};
	uint16_t ports[4];
	size_t n = capture_ports(entries, 7, 3128, ports, 4);
	tap_ok(n == 4 && ports[0] == 443 && ports[1] == 80 && ports[2] == 8443 && ports[3] == 8080,
	       "captured ports: 443, 80, each name entry's own, never the proxy's, at most max");
}

static void test_resolver(void)
{
	unsigned char a[1500];
	int n = dns_ask("allowed.test", 1, 1, a, sizeof a);
	tap_ok(n >= 16 && rcode(a) == 0 && ancount(a) == 1 && a[n - 4] == 127 && a[n - 3] == 100 &&
		   a[n - 2] == 0 && a[n - 1] == 1,
	       "an allowed name gets the first stand-in address, 127.100.0.1");
	n = dns_ask("ALLOWED.test", 1, 2, a, sizeof a);
	tap_ok(n >= 16 && ancount(a) == 1 && a[n - 1] == 1,
	       "the same name in capitals: the same one");
	n = dns_ask("allowed.test", 28, 3, a, sizeof a);
	tap_ok(n > 0 && rcode(a) == 0 && ancount(a) == 0, "AAAA: no error, no record");
	n = dns_ask("other.test", 1, 4, a, sizeof a);
	tap_ok(n > 0 && rcode(a) == 3 && ancount(a) == 0, "a name not allowed: NXDOMAIN");
	n = dns_ask("other.test", 28, 5, a, sizeof a);
	tap_ok(n > 0 && rcode(a) == 3 && reports_naming("other.test") == 1,
	       "reported once, whatever the lookups");
	struct logged l = last_report();
	tap_ok(l.status == 403 && strstr(l.reason, "ignores the proxy settings"),
	       "the report says why (%s)", l.reason);
	n = dns_ask("127.0.0.1", 1, 6, a, sizeof a);
	tap_ok(n > 0 && rcode(a) == 3, "an address spelled as a name: NXDOMAIN");
	n = dns_ask("inward.test", 1, 7, a, sizeof a);
	tap_ok(n >= 16 && ancount(a) == 1 && a[n - 1] == 2, "another allowed name: 127.100.0.2");

	/* An answer is never answered; a compressed question is malformed. */
	unsigned char bad[] = {0, 9, 0x81, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 0x0c, 0, 1, 0, 1};
	(void)!send(dns_fd_client, bad, sizeof bad, 0);
	bad[2] = 0x01;
	(void)!send(dns_fd_client, bad, sizeof bad, 0);
	struct pollfd p = {dns_fd_client, POLLIN, 0};
	n = poll(&p, 1, IO_TIMEOUT_S * 1000) == 1 ? (int)recv(dns_fd_client, a, sizeof a, 0) : -1;
	tap_ok(n >= 12 && a[1] == 9 && (a[2] & 0x80) && rcode(a) == 1,
	       "a packet with QR set gets nothing; a compression pointer gets FORMERR");
	unsigned char nul[] = { 0, 10, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 14, 'a', 'l', 'l', 'o',
				'w', 'e', 'd', '.', 't', 'e', 's', 't', 0, 'x', 0, 0, 1, 0, 1 };
	(void)!send(dns_fd_client, nul, sizeof nul, 0);
	n = poll(&p, 1, IO_TIMEOUT_S * 1000) == 1 ? (int)recv(dns_fd_client, a, sizeof a, 0) : -1;
	tap_ok(n >= 12 && a[1] == 10 && rcode(a) == 1 && ancount(a) == 0,
	       "a label holding a dot and a NUL gets FORMERR, not allowed.test's address");
}

static void test_connections(int listener_port)
{
	int before = reports_naming("");
	tap_ok(refused_at("127.100.0.3", listener_port) && reports_naming("") == before + 1,
	       "a stand-in never handed out: refused and reported");
	int fd = connect_at("127.100.0.1", listener_port);
	char buf[8] = "";
	bool echoed = fd >= 0 && send_str(fd, "hello") && recv_exact(fd, buf, 5) &&
		      memcmp(buf, "hello", 5) == 0;
	if (fd >= 0)
		close(fd);
	tap_ok(echoed, "allowed.test's stand-in at its port reaches the echo server");
	tap_ok(refused_at("127.100.0.2", listener_port),
	       "inward.test's stand-in: the name resolves inward, refused");
	struct logged l = last_report();
	tap_ok(strstr(l.reason, "loopback address") != NULL, "as the proxy refuses it (%s)",
	       l.reason);
}

int main(void)
{
	struct fixture f;
	struct capture *capture = NULL;
	struct procage_error err;

	signal(SIGPIPE, SIG_IGN);
	test_ports();
	if (!tap_ok(servers_start(), "loopback upstream servers started"))
		return tap_done();
	int fds[3] = {socket_at(SOCK_DGRAM, "127.0.0.1", 0),
		      socket_at(SOCK_STREAM, "127.100.0.1", echo.port),
		      socket_at(SOCK_STREAM, "127.100.0.2", echo.port)};
	int extra = socket_at(SOCK_STREAM, "127.100.0.3", echo.port);
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	if (!tap_ok(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0 && extra >= 0 &&
			getsockname(fds[0], (struct sockaddr *)&a, &len) == 0,
		    "resolver socket and capture listeners on 127.100.0.1-3"))
		return tap_done();
	dns_port = ntohs(a.sin_port);
	dns_fd_client = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!tap_ok(dns_fd_client >= 0 && connect(dns_fd_client, (struct sockaddr *)&a, len) == 0,
		    "a client of the resolver"))
		return tap_done();
	int all[4] = {fds[0], fds[1], fds[2], extra};
	if (!tap_ok(capture_new(all, 4, &capture, &err) == 0, "capture_new") ||
	    !tap_ok(fixture_start(&f, (struct proxy_options){.capture = capture}),
		    "proxy started with the capture"))
		return tap_done();
	test_resolver();
	test_connections(echo.port);
	fixture_stop(&f);
	capture_free(capture);
	close(dns_fd_client);
	servers_stop();
	return tap_done();
}
