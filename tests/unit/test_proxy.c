/*
 * The proxy on loopback (see proxy_fixture.h for the servers, resolver and
 * allowlist): CONNECT tunnels both ways and passes bytes sent with the head,
 * every IPv4 spelling reaches the address it is, refusals are 403s (or 400
 * for HTTP it does not read, 502 for an upstream it cannot reach, never a
 * 200) with a reason and a report naming the host as written,
 * absolute-form requests are rewritten to origin-form with hop-by-hop
 * headers dropped, half-close passes through, and IPv6 upstreams.
 * Load and bad clients: test_proxy_load.c.
 */
#include "proxy_fixture.h"

/* ---- tunnels ---------------------------------------------------------------------- */

static void test_connect(const struct fixture *f)
{
	char head[256], buf[64];
	int status, calls = __atomic_load_n(&resolve_calls_allowed, __ATOMIC_SEQ_CST);

	tap_ok(echo_round_trip(f, 5), "CONNECT to an allowed name tunnels bytes both ways");
	tap_ok(__atomic_load_n(&resolve_calls_allowed, __ATOMIC_SEQ_CST) == calls + 1,
	       "the name was resolved once for the request");
	tap_ok(echo_round_trip(f, 3 << 20), "3 MiB each way through one tunnel, intact");

	/* Bytes that follow the head in the same packet are not lost. */
	int n = snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\n\r\nearly", echo.port);
	int fd = proxy_request(f, head, (size_t)n, &status, NULL, 0);
	tap_ok(status == 200 && recv_exact(fd, buf, 5) && memcmp(buf, "early", 5) == 0,
	       "bytes sent with the CONNECT head reach the upstream");
	close(fd);

	/* Every IPv4 notation reaches the address it is, through the range. */
	static const char *const spellings[] = { "127.0.0.1", "0x7f.1", "2130706433",
						 "0177.0.0.1", "127.1", "[::ffff:127.0.0.1]",
						 "sub.allowed.test", "mapped.test", "127.0.0.1." };
	for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
		snprintf(head, sizeof head, "CONNECT %s:%d HTTP/1.1\r\n\r\n", spellings[i], echo.port);
		fd = proxy_request(f, head, 0, &status, NULL, 0);
		bool ok = status == 200 && send_str(fd, "x") && recv_exact(fd, buf, 1) && buf[0] == 'x';
		tap_ok(ok, "CONNECT %s:port reaches the echo server (status %d)", spellings[i], status);
		if (fd >= 0)
			close(fd);
	}
}

struct refusal {
	const char *head; /* %d: the echo port, %o: the origin port, %x: the dead port */
	size_t len;       /* 0: strlen; set for heads with a NUL */
	int status;
	const char *reason;
	const char *raw; /* what the report must say the client wrote; NULL: not checked */
	size_t raw_len;
};

#define R(h, s, why, raw) { h, 0, s, why, raw, 0 }

static const struct refusal refusals[] = {
	R("CONNECT evil.test:443 HTTP/1.1\r\n\r\n", 403, "host not on the allowlist", "evil.test:443"),
	R("CONNECT evil.test HTTP/1.1\r\n\r\n", 403, "host not on the allowlist", "evil.test"),
	R("CONNECT allowed.test:22 HTTP/1.1\r\n\r\n", 403, "port not allowed", "allowed.test:22"),
	R("CONNECT allowed.test HTTP/1.1\r\n\r\n", 403, "port not allowed", "allowed.test"),
	R("CONNECT allowed.test.evil.test:%d HTTP/1.1\r\n\r\n", 403, "not on the allowlist", NULL),
	R("CONNECT 127.0.0.2:%d HTTP/1.1\r\n\r\n", 403, "address not in an allowed range", NULL),
	R("CONNECT 0x7f.0.0.2:%d HTTP/1.1\r\n\r\n", 403, "address not in an allowed range", NULL),
	R("CONNECT 10.0.0.1:%d HTTP/1.1\r\n\r\n", 403, "address not in an allowed range", NULL),
	R("CONNECT [::1]:%d HTTP/1.1\r\n\r\n", 403, "address not in an allowed range", NULL),
	R("CONNECT inward.test:%d HTTP/1.1\r\n\r\n", 403,
	  "name resolves to a loopback address (127.0.0.2)", NULL),
	R("CONNECT rebind.test:%d HTTP/1.1\r\n\r\n", 403,
	  "name resolves to a private address (10.0.0.1)", NULL),
	{ "CONNECT allowed.test\0.evil.test:443 HTTP/1.1\r\n\r\n",
	  sizeof "CONNECT allowed.test\0.evil.test:443 HTTP/1.1\r\n\r\n" - 1, 403, "NUL byte in host",
	  "allowed.test\0.evil.test:443", sizeof "allowed.test\0.evil.test:443" - 1 },
	R("CONNECT allowed%%2etest:%d HTTP/1.1\r\n\r\n", 403, "percent encoding", NULL),
	R("CONNECT user@allowed.test:%d HTTP/1.1\r\n\r\n", 403, "userinfo", NULL),
	R("CONNECT allowed.test\x01:%d HTTP/1.1\r\n\r\n", 403, "control byte", NULL),
	R("CONNECT allowed.test\xc2\xa0:%d HTTP/1.1\r\n\r\n", 403, "non-ASCII", NULL),
	R("CONNECT allowed.test:%d HTTP/1.1\r\nHost: evil.test\r\n\r\n", 403,
	  "Host header names another host", NULL),
	R("CONNECT allowed.test:%d HTTP/1.1\r\nHost: allowed.test%%00\r\n\r\n", 403,
	  "percent encoding", NULL),
	R("CONNECT allowed.test:%d HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400,
	  "more than one Host header", NULL),
	R("CONNECT allowed.test:%d HTTP/1.1\r\n folded: x\r\n\r\n", 400, "folded header", NULL),
	R("CONNECT allowed.test:%d HTTP/1.1\r\nX-Nul: a\x01b\r\n\r\n", 400, "control byte", NULL),
	R("CONNECT allowed.test:%d HTTP/1.1\nHost: x\n\n", 400, "not ended by CRLF", NULL),
	R("CONNECT allowed.test:%d HTTP/2.0\r\n\r\n", 400, "unsupported HTTP version", NULL),
	R("CONNECT  allowed.test:%d HTTP/1.1\r\n\r\n", 400, "empty request target", NULL),
	R("CONNECT allowed.test:%x HTTP/1.1\r\n\r\n", 502, "connection refused", NULL),
	R("CONNECT nxdomain.test HTTP/1.1\r\n\r\n", 502, "does not resolve", "nxdomain.test"),
	R("GET http://evil.test/ HTTP/1.1\r\n\r\n", 403, "host not on the allowlist", "evil.test"),
	R("GET http://evil.test:%o/x HTTP/1.1\r\n\r\n", 403, "not on the allowlist", NULL),
	R("GET http://allowed.test\\@evil.test/ HTTP/1.1\r\n\r\n", 403, "userinfo",
	  "allowed.test\\@evil.test"),
	R("GET http://allowed.test:%o@evil.test/ HTTP/1.1\r\n\r\n", 403, "userinfo", NULL),
	R("GET http://allowed.test:%o#@evil.test/ HTTP/1.1\r\n\r\n", 400, "fragment", NULL),
	R("GET http://allowed.test:%o/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", 403,
	  "Host header names another host", NULL),
	R("GET http://allowed.test:%o/ HTTP/1.1\r\nContent-Length: 1\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n",
	  400, "both Content-Length and Transfer-Encoding", NULL),
	R("GET https://allowed.test/ HTTP/1.1\r\n\r\n", 400, "through CONNECT", NULL),
	R("GET ftp://allowed.test/ HTTP/1.1\r\n\r\n", 400, "only http://", NULL),
	R("GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400, "not a proxy request", NULL),
	R("GET http:///x HTTP/1.1\r\n\r\n", 403, "empty host", ""),
};

/* The head with the test's ports put in. */
static size_t fill_ports(const struct refusal *r, char *out, size_t size)
{
	size_t in_len = r->len ? r->len : strlen(r->head), n = 0;

	for (size_t i = 0; i < in_len && n + 8 < size; i++) {
		if (r->head[i] == '%' && i + 1 < in_len && strchr("dox%", r->head[i + 1])) {
			char c = r->head[++i];
			int port = c == 'd' ? echo.port : c == 'o' ? origin.port : dead_port;
			n += c == '%' ? (size_t)snprintf(out + n, size - n, "%%")
				      : (size_t)snprintf(out + n, size - n, "%d", port);
		} else {
			out[n++] = r->head[i];
		}
	}
	return n;
}

static void test_refusals(const struct fixture *f)
{
	for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
		const struct refusal *r = &refusals[i];
		char head[512], response[1024], shown[600], body[512];
		int status;
		size_t len = fill_ports(r, head, sizeof head);

		dest_escape(head, len, shown, sizeof shown);
		int fd = proxy_request(f, head, len, &status, response, sizeof response);
		recv_all(fd, body, sizeof body);
		struct logged l = last_report();
		bool ok = status == r->status && strstr(body, r->reason) && l.status == r->status &&
			  strstr(l.reason, r->reason);
		if (r->raw) {
			size_t raw_len = r->raw_len ? r->raw_len : strlen(r->raw);
			ok = ok && l.raw_len == raw_len && memcmp(l.raw, r->raw, raw_len) == 0;
		}
		if (!tap_ok(ok, "%d for %s", r->status, shown))
			tap_diag("got %d, body \"%s\", report %d \"%s\" host \"%s\"", status, body,
				 l.status, l.reason, l.host);
		if (fd >= 0)
			close(fd);
	}
}

/* ---- plain HTTP ------------------------------------------------------------------- */

static void test_forward(const struct fixture *f)
{
	char head[1024], want[512], body[1024], got[8192];
	int status;

	snprintf(head, sizeof head,
		 "GET http://Allowed.Test:%d/path?q=1 HTTP/1.1\r\n"
		 "Host: allowed.test:%d\r\n"
		 "Proxy-Connection: keep-alive\r\n"
		 "Connection: keep-alive, X-Drop\r\n"
		 "Keep-Alive: 300\r\n"
		 "X-Drop: secret\r\n"
		 "Proxy-Authorization: Basic eA==\r\n"
		 "TE: trailers\r\n"
		 "Upgrade: h2c\r\n"
		 "X-Keep: 1\r\n"
		 "Accept: */*\r\n\r\n",
		 origin.port, origin.port);
	int fd = proxy_request(f, head, 0, &status, NULL, 0);
	recv_all(fd, body, sizeof body);
	close(fd);
	pthread_mutex_lock(&origin_lock);
	snprintf(got, sizeof got, "%s", origin_last_head);
	pthread_mutex_unlock(&origin_lock);
	snprintf(want, sizeof want,
		 "GET /path?q=1 HTTP/1.1\r\nHost: allowed.test:%d\r\nX-Keep: 1\r\nAccept: */*\r\n"
		 "Connection: close\r\n\r\n",
		 origin.port);
	tap_ok(status == 200 && strcmp(body, "origin:") == 0, "absolute-form GET answered (%d)",
	       status);
	if (!tap_ok(strcmp(got, want) == 0,
		    "rewritten to origin-form, canonical Host, hop-by-hop headers dropped"))
		tap_diag("upstream saw: %s", got);

	snprintf(head, sizeof head,
		 "POST http://allowed.test:%d HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
		 origin.port);
	fd = proxy_request(f, head, 0, &status, NULL, 0);
	recv_all(fd, body, sizeof body);
	close(fd);
	pthread_mutex_lock(&origin_lock);
	snprintf(got, sizeof got, "%s", origin_last_head);
	pthread_mutex_unlock(&origin_lock);
	snprintf(want, sizeof want,
		 "POST / HTTP/1.1\r\nHost: allowed.test:%d\r\nContent-Length: 5\r\n"
		 "Connection: close\r\n\r\n",
		 origin.port);
	tap_ok(status == 200 && strcmp(got, want) == 0 && strcmp(body, "origin:hello") == 0,
	       "a body sent with the head follows the rewritten head (%s)", body);

	snprintf(head, sizeof head, "GET http://127.1:%d?x=1 HTTP/1.0\r\n\r\n", origin.port);
	fd = proxy_request(f, head, 0, &status, NULL, 0);
	recv_all(fd, body, sizeof body);
	close(fd);
	pthread_mutex_lock(&origin_lock);
	snprintf(got, sizeof got, "%s", origin_last_head);
	pthread_mutex_unlock(&origin_lock);
	snprintf(want, sizeof want, "GET /?x=1 HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n"
				    "Connection: close\r\n\r\n", origin.port);
	tap_ok(status == 200 && strcmp(got, want) == 0,
	       "a query without a path gets \"/\", an address host its canonical form");
}

/*
 * One request per connection, checked: a second request pipelined behind a
 * forwarded one never reaches the upstream. The echo server shows what the
 * upstream got.
 */
static void test_pipelining(const struct fixture *f)
{
	char head[512], got[2048];
	int status;

	snprintf(head, sizeof head,
		 "GET http://allowed.test:%d/ HTTP/1.1\r\n\r\n"
		 "GET http://127.0.0.1:%d/second HTTP/1.1\r\n\r\n",
		 origin.port, echo.port);
	int fd = proxy_request(f, head, 0, &status, got, sizeof got);
	if (fd >= 0)
		close(fd);
	tap_ok(status == 400 && strstr(last_report().reason, "pipelining"),
	       "a second request in the same write as the first is refused (%d: %s)", status,
	       last_report().reason);

	snprintf(head, sizeof head, "POST http://allowed.test:%d/ HTTP/1.1\r\n"
				    "Transfer-Encoding: chunked\r\n\r\n", origin.port);
	fd = proxy_request(f, head, 0, &status, got, sizeof got);
	if (fd >= 0)
		close(fd);
	tap_ok(status == 411, "a forwarded body without Content-Length is refused (%d)", status);

	/* The body in a later write, with a request behind it: only the body passes. */
	fd = connect_loopback(f->port);
	snprintf(head, sizeof head,
		 "POST http://allowed.test:%d/ HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
		 echo.port);
	size_t len = 0;
	got[0] = '\0';
	bool head_back = fd >= 0 && send_str(fd, head);
	while (head_back && !strstr(got, "\r\n\r\n") && len + 1 < sizeof got) {
		ssize_t n = recv(fd, got + len, sizeof got - 1 - len, 0);
		head_back = n > 0;
		len += n > 0 ? (size_t)n : 0;
		got[len] = '\0';
	}
	tap_ok(head_back, "the upstream gets the forwarded head");
	/*
	 * The proxy reads the 5 bytes of the body and no more: what follows
	 * ends the connection. The echo shows everything the upstream got.
	 */
	bool sent = head_back && send_str(fd, "helloGET /second HTTP/1.1\r\n\r\n");
	size_t body_at = len;
	ssize_t n = 1;
	while (sent && n > 0 && len + 1 < sizeof got) {
		n = recv(fd, got + len, sizeof got - 1 - len, 0);
		len += n > 0 ? (size_t)n : 0;
		got[len] = '\0';
	}
	/* Closed with unread bytes, the connection may end in a reset. */
	bool ended = n == 0 || (n < 0 && errno == ECONNRESET);
	tap_ok(sent && ended && !strstr(got + body_at, "second") &&
		       strncmp(got + body_at, "hello", len - body_at) == 0,
	       "after the declared body nothing reaches the upstream: a pipelined request ends "
	       "the connection (upstream got '%s')",
	       got + body_at);
	if (fd >= 0)
		close(fd);
}

static void test_half_close(const struct fixture *f)
{
	char head[128], response[256], buf[16];
	int status;

	snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", echo.port);
	int fd = proxy_request(f, head, 0, &status, response, sizeof response);
	bool ok = status == 200 && send_str(fd, "half") && shutdown(fd, SHUT_WR) == 0 &&
		  recv_exact(fd, buf, 4) && memcmp(buf, "half", 4) == 0 && eof_within(fd);
	tap_ok(ok, "a client's half-close reaches the upstream, whose answer and FIN come back");
	close(fd);

	fd = connect_loopback(f->port);
	send_str(fd, "CONNECT allowed.test");
	shutdown(fd, SHUT_WR);
	status = recv_head(fd, response, sizeof response);
	tap_ok(status == 400, "half-closing before the head ends gets 400 (%d)", status);
	close(fd);
}

static void test_ipv6(const struct fixture *f)
{
	char head[128], response[256], buf[4];
	int status;

	if (!have_v6) {
		tap_skip("no IPv6 loopback here");
		return;
	}
	snprintf(head, sizeof head, "CONNECT v6.test:%d HTTP/1.1\r\n\r\n", echo6.port);
	int fd = proxy_request(f, head, 0, &status, response, sizeof response);
	tap_ok(status == 403, "a name resolving to ::1 is refused without a range (%d)", status);
	close(fd);

	char entry[64];
	const char *entries[] = { entry, "[::1]" };
	struct fixture v6 = { 0 };
	struct procage_error err;
	snprintf(entry, sizeof entry, "v6.test:%d", echo6.port);
	v6.listen_fd = listen_loopback(AF_INET, &v6.port);
	if (allowlist_new(entries, 2, &v6.list, &err) < 0 ||
	    proxy_start(v6.listen_fd, v6.list, &(struct proxy_options){ .resolver = &resolver },
			&v6.proxy, &err) < 0) {
		tap_ok(false, "IPv6 proxy: %s", err.message);
		return;
	}
	snprintf(head, sizeof head, "CONNECT v6.test:%d HTTP/1.1\r\n\r\n", echo6.port);
	fd = proxy_request(&v6, head, 0, &status, response, sizeof response);
	bool ok = status == 200 && send_str(fd, "6") && recv_exact(fd, buf, 1) && buf[0] == '6';
	close(fd);
	snprintf(head, sizeof head, "CONNECT [::1]:%d HTTP/1.1\r\n\r\n", echo6.port);
	fd = proxy_request(&v6, head, 0, &status, response, sizeof response);
	ok = ok && status == 200 && send_str(fd, "6") && recv_exact(fd, buf, 1);
	close(fd);
	tap_ok(ok, "with [::1] allowed, v6.test and [::1] tunnel to the IPv6 upstream");
	fixture_stop(&v6);
}

/* ---- the API's edges ---------------------------------------------------------------------- */

static void test_api(void)
{
	struct procage_error err;
	struct proxy *p = (struct proxy *)&p;
	struct allowlist *list;
	const char *entries[] = { "allowed.test" };
	int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	allowlist_new(entries, 1, &list, &err);
	int rc = proxy_start(sock, list, NULL, &p, &err);
	tap_ok(rc == -EINVAL && !p && strstr(err.message, "not a listening socket"),
	       "a socket that is not listening is refused: %s", err.message);
	rc = proxy_start(-1, list, NULL, &p, &err);
	tap_ok(rc < 0 && !p, "a bad descriptor is refused: %s", err.message);
	close(sock);
	allowlist_free(list);
	proxy_stop(NULL);
}

int main(void)
{
	struct fixture f;

	if (!tap_ok(servers_start(), "loopback upstream servers started") ||
	    !tap_ok(fixture_start(&f, (struct proxy_options){ 0 }), "proxy started"))
		return tap_done();
	test_api();
	test_connect(&f);
	test_refusals(&f);
	test_forward(&f);
	test_pipelining(&f);
	test_half_close(&f);
	test_ipv6(&f);
	wait_idle(&f, "proxy");
	fixture_stop(&f);
	servers_stop();
	return tap_done();
}
