/*
 * The proxy tests' loopback world, shared by test_proxy.c and
 * test_proxy_load.c: upstream servers on 127.0.0.1 and [::1] (echo, a byte
 * source, a one-request HTTP origin), a resolver that knows only test names,
 * a log of the proxy's reports, and proxies on loopback listeners whose
 * allowlist names the test servers and allows 127.0.0.1/32.
 *
 * No address other than loopback is ever contacted: the resolver's only
 * other answer (10.0.0.1 for rebind.test) is refused before any connect.
 */
#ifndef PROCAGE_TEST_PROXY_FIXTURE_H
#define PROCAGE_TEST_PROXY_FIXTURE_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proxy/allowlist.h"
#include "proxy/proxy.h"
#include "tap.h"

/*
 * Every socket's receive and send timeout: a bound on a failure only (a
 * loaded machine must never make a test fail by being slow).
 */
#define IO_TIMEOUT_S 30

/* ---- sockets ---------------------------------------------------------------- */

static __attribute__((unused)) void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* A listener on the loopback address of family, on an ephemeral port. */
static int listen_loopback(int family, int *port)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof *sin;
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_loopback;
		len = sizeof *sin6;
	}
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 512) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					: ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

static int connect_loopback(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	set_timeouts(fd);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static __attribute__((unused)) bool send_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static __attribute__((unused)) bool send_str(int fd, const char *s)
{
	return send_all(fd, s, strlen(s));
}

/* Exactly len bytes, or false on EOF, error or timeout. */
static __attribute__((unused)) bool recv_exact(int fd, void *buf, size_t len)
{
	char *p = buf;
	while (len > 0) {
		ssize_t n = recv(fd, p, len, 0);
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* Everything until EOF (or size - 1 bytes, or a timeout), NUL-terminated. */
static __attribute__((unused)) size_t recv_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	while (len + 1 < size && (n = recv(fd, buf + len, size - 1 - len, 0)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	return len;
}

/* A response head, one byte at a time so no tunnel byte is taken with it. */
static int recv_head(int fd, char *buf, size_t size)
{
	size_t len = 0;
	while (len + 1 < size) {
		if (recv(fd, buf + len, 1, 0) != 1)
			break;
		len++;
		if (len >= 4 && memcmp(buf + len - 4, "\r\n\r\n", 4) == 0)
			break;
	}
	buf[len] = '\0';
	int status = 0;
	return sscanf(buf, "HTTP/1.%*d %d", &status) == 1 ? status : 0;
}

static __attribute__((unused)) bool eof_within(int fd)
{
	char c;
	return recv(fd, &c, 1, 0) == 0;
}

static __attribute__((unused)) double seconds_since(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* ---- upstream servers --------------------------------------------------------- */

enum server_kind { ECHO, SOURCE, HTTP_ORIGIN };

struct server {
	enum server_kind kind;
	int fd, port;
	pthread_t thread;
};

static pthread_mutex_t origin_lock = PTHREAD_MUTEX_INITIALIZER;
static char origin_last_head[8192];
static int origin_requests;

/* Echo until EOF, then pass the half-close back. */
static __attribute__((unused)) void serve_echo(int fd)
{
	char buf[65536];
	ssize_t n;
	while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
		if (!send_all(fd, buf, (size_t)n))
			return;
	shutdown(fd, SHUT_WR);
	while (recv(fd, buf, sizeof buf, 0) > 0)
		;
}

/*
 * The byte source says when a send finds its socket full (the one reading
 * at the other end has stopped): a byte on this pipe each time, made by
 * servers_start, and source_waiting true for as long as it then waits for
 * room. The flag is the state a test can check; the byte only wakes it.
 */
static int source_blocked[2] = { -1, -1 };
static atomic_bool source_waiting;

/* Read an 8-byte count, send that many bytes, close. */
static __attribute__((unused)) void serve_source(int fd)
{
	static char block[1 << 20];
	uint64_t want = 0;
	if (!recv_exact(fd, &want, sizeof want))
		return;
	while (want > 0) {
		size_t n = want < sizeof block ? (size_t)want : sizeof block;
		ssize_t sent = send(fd, block, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			atomic_store(&source_waiting, true);
			(void)!write(source_blocked[1], "b", 1);
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			int ready = poll(&p, 1, IO_TIMEOUT_S * 1000);
			atomic_store(&source_waiting, false);
			if (ready != 1)
				return;
			continue;
		}
		if (sent <= 0)
			return;
		want -= (uint64_t)sent;
	}
}

/* One request: record its head, echo a body of Content-Length bytes. */
static __attribute__((unused)) void serve_origin(int fd)
{
	char head[8192], body[1024] = "", reply[2048];
	size_t len = 0, body_len = 0;

	while (len + 1 < sizeof head && recv(fd, head + len, 1, 0) == 1)
		if (++len >= 4 && memcmp(head + len - 4, "\r\n\r\n", 4) == 0)
			break;
	head[len] = '\0';
	const char *cl = strstr(head, "Content-Length: ");
	if (cl)
		body_len = strtoul(cl + 16, NULL, 10);
	if (body_len >= sizeof body || !recv_exact(fd, body, body_len))
		body_len = 0;
	body[body_len] = '\0';
	pthread_mutex_lock(&origin_lock);
	snprintf(origin_last_head, sizeof origin_last_head, "%s", head);
	origin_requests++;
	pthread_mutex_unlock(&origin_lock);
	int n = snprintf(reply, sizeof reply,
			 "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n"
			 "origin:%s",
			 strlen("origin:") + body_len, body);
	send_all(fd, reply, (size_t)n);
}

struct handler_arg {
	enum server_kind kind;
	int fd;
};

static __attribute__((unused)) void *handler_main(void *arg)
{
	struct handler_arg a = *(struct handler_arg *)arg;
	free(arg);
	set_timeouts(a.fd);
	if (a.kind == ECHO)
		serve_echo(a.fd);
	else if (a.kind == SOURCE)
		serve_source(a.fd);
	else
		serve_origin(a.fd);
	close(a.fd);
	return NULL;
}

/* Accepts until its listener is shut down; a thread per connection. */
static __attribute__((unused)) void *server_main(void *arg)
{
	struct server *s = arg;
	for (;;) {
		int fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		struct handler_arg *a = malloc(sizeof *a);
		pthread_t t;
		if (!a) {
			close(fd);
			continue;
		}
		*a = (struct handler_arg){ s->kind, fd };
		if (pthread_create(&t, NULL, handler_main, a) != 0) {
			free(a);
			close(fd);
			continue;
		}
		pthread_detach(t);
	}
}

static __attribute__((unused)) bool server_start(struct server *s, enum server_kind kind, int family)
{
	s->kind = kind;
	s->fd = listen_loopback(family, &s->port);
	return s->fd >= 0 && pthread_create(&s->thread, NULL, server_main, s) == 0;
}

static __attribute__((unused)) void server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR); /* wakes accept with EINVAL */
	pthread_join(s->thread, NULL);
	close(s->fd);
}

/* ---- the test resolver and the report log -------------------------------------- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int resolve_calls_allowed;

static __attribute__((unused)) void put_addr(struct dest_addr *a, const char *text)
{
	memset(a, 0, sizeof *a);
	if (inet_pton(AF_INET, text, a->bytes) == 1) {
		a->family = AF_INET;
	} else {
		a->family = AF_INET6;
		inet_pton(AF_INET6, text, a->bytes);
	}
}

/*
 * slow.test: a lookup that lasts until the test lets it go. It says it has
 * begun (a byte on slow_started), then waits for slow_gate to be readable
 * (the test closes its write end), within a bound that only ends a
 * failure. Both pipes are made by servers_start.
 */
static int slow_started[2] = { -1, -1 }, slow_gate[2] = { -1, -1 };

static void slow_lookup_wait(void)
{
	struct pollfd p = { .fd = slow_gate[0], .events = POLLIN };
	(void)!write(slow_started[1], "s", 1);
	while (poll(&p, 1, IO_TIMEOUT_S * 1000) < 0 && errno == EINTR)
		;
}

/* Let every slow.test lookup, waiting or to come, go on. */
static __attribute__((unused)) void slow_lookups_release(void)
{
	if (slow_gate[1] >= 0)
		close(slow_gate[1]);
	slow_gate[1] = -1;
}

/* Wait for a byte on fd (within the I/O bound); false if none came. */
static __attribute__((unused)) bool event_within(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;
	int n;
	while ((n = poll(&p, 1, IO_TIMEOUT_S * 1000)) < 0 && errno == EINTR)
		;
	return n == 1 && read(fd, &c, 1) == 1;
}

/* Drop the bytes already on fd (a non-blocking pipe). */
static __attribute__((unused)) void events_drain(int fd)
{
	char buf[256];
	while (read(fd, buf, sizeof buf) > 0)
		;
}

/* Test names only; anything else does not exist. */
static int test_resolve(void *ctx, const char *name, struct dest_addr *out, size_t max)
{
	static const struct {
		const char *name, *first, *second;
	} names[] = {
		{ "allowed.test", "127.0.0.1", NULL },    { "inward.test", "127.0.0.2", NULL },
		{ "rebind.test", "127.0.0.1", "10.0.0.1" }, { "mapped.test", "::ffff:127.0.0.1", NULL },
		{ "v6.test", "::1", NULL },                { "slow.test", "127.0.0.1", NULL },
		{ "sub.allowed.test", "127.0.0.1", NULL }, { "asked.test", "127.0.0.1", NULL },
	};

	if (max < 2)
		return -ENOSPC;
	if (strcmp(name, "allowed.test") == 0)
		__atomic_add_fetch(&resolve_calls_allowed, 1, __ATOMIC_SEQ_CST);
	if (strcmp(name, "slow.test") == 0)
		slow_lookup_wait();
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strcmp(names[i].name, name) != 0)
			continue;
		put_addr(&out[0], names[i].first);
		if (!names[i].second)
			return 1;
		put_addr(&out[1], names[i].second);
		return 2;
	}
	return -ENOENT;
}

static const struct proxy_resolver resolver = { test_resolve, NULL };

struct logged {
	int status;
	char reason[200];
	char raw[300];
	size_t raw_len;
	char host[300];
	char canonical[DEST_AUTHORITY_BUF];
};

static struct logged reports[512];
static int n_reports;

static __attribute__((unused)) void on_report(void *ctx, const struct proxy_report *r)
{
	pthread_mutex_lock(&log_lock);
	if (n_reports < (int)(sizeof reports / sizeof reports[0])) {
		struct logged *l = &reports[n_reports++];
		l->status = r->status;
		snprintf(l->reason, sizeof l->reason, "%s", r->reason);
		l->raw_len = r->host_raw_len < sizeof l->raw ? r->host_raw_len : sizeof l->raw;
		memcpy(l->raw, r->host_raw, l->raw_len);
		snprintf(l->host, sizeof l->host, "%s", r->host);
		snprintf(l->canonical, sizeof l->canonical, "%s", r->canonical);
	}
	pthread_mutex_unlock(&log_lock);
}

static __attribute__((unused)) struct logged last_report(void)
{
	struct logged l = { 0 };
	pthread_mutex_lock(&log_lock);
	if (n_reports > 0)
		l = reports[n_reports - 1];
	pthread_mutex_unlock(&log_lock);
	return l;
}

/* ---- fixtures ------------------------------------------------------------------- */

static struct server echo, source, origin, echo6;
static bool have_v6;
static int dead_port;

struct fixture {
	int listen_fd, port;
	struct allowlist *list;
	struct proxy *proxy;
};

static __attribute__((unused)) bool fixture_start(struct fixture *f, struct proxy_options opts)
{
	char e[10][64];
	const char *entries[12];
	size_t n = 0;
	struct procage_error err;

	snprintf(e[0], sizeof e[0], "allowed.test:%d", echo.port);
	snprintf(e[1], sizeof e[1], "allowed.test:%d", source.port);
	snprintf(e[2], sizeof e[2], "allowed.test:%d", origin.port);
	snprintf(e[3], sizeof e[3], "allowed.test:%d", dead_port);
	snprintf(e[4], sizeof e[4], "*.allowed.test:%d", echo.port);
	snprintf(e[5], sizeof e[5], "inward.test:%d", echo.port);
	snprintf(e[6], sizeof e[6], "rebind.test:%d", echo.port);
	snprintf(e[7], sizeof e[7], "mapped.test:%d", echo.port);
	snprintf(e[8], sizeof e[8], "slow.test:%d", echo.port);
	snprintf(e[9], sizeof e[9], "v6.test:%d", echo6.port);
	for (; n < 10; n++)
		entries[n] = e[n];
	entries[n++] = "nxdomain.test";
	entries[n++] = "127.0.0.1/32";
	if (allowlist_new(entries, n, &f->list, &err) < 0) {
		tap_diag("allowlist: %s", err.message);
		return false;
	}
	f->listen_fd = listen_loopback(AF_INET, &f->port);
	opts.resolver = &resolver;
	opts.report = on_report;
	if (f->listen_fd < 0 || proxy_start(f->listen_fd, f->list, &opts, &f->proxy, &err) < 0) {
		tap_diag("proxy_start: %s", err.message);
		return false;
	}
	return true;
}

static __attribute__((unused)) void fixture_stop(struct fixture *f)
{
	proxy_stop(f->proxy);
	allowlist_free(f->list);
	close(f->listen_fd);
}

/* Send a request head to the proxy; returns the fd and the status answered. */
static int proxy_request(const struct fixture *f, const char *head, size_t len, int *status,
			 char *response, size_t size)
{
	int fd = connect_loopback(f->port);
	char local[1024];

	if (!response) {
		response = local;
		size = sizeof local;
	}
	*status = 0;
	if (fd < 0)
		return -1;
	if (!send_all(fd, head, len ? len : strlen(head))) {
		close(fd);
		return -1;
	}
	*status = recv_head(fd, response, size);
	return fd;
}

/* A CONNECT to allowed.test's echo server and one round trip through it. */
static __attribute__((unused)) bool echo_round_trip(const struct fixture *f, size_t bytes)
{
	char head[256], response[1024];
	int status;
	bool ok;

	snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\nHost: allowed.test:%d\r\n\r\n",
		 echo.port, echo.port);
	int fd = proxy_request(f, head, 0, &status, response, sizeof response);
	if (fd < 0)
		return false;
	char *out = malloc(bytes), *in = malloc(bytes);
	for (size_t i = 0; out && i < bytes; i++)
		out[i] = (char)(i * 7 + 3);
	ok = status == 200 && out && in && send_all(fd, out, bytes) && recv_exact(fd, in, bytes) &&
	     memcmp(out, in, bytes) == 0;
	free(out);
	free(in);
	close(fd);
	return ok;
}


/* Start the servers; false when loopback is not usable. */
static __attribute__((unused)) bool servers_start(void)
{
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(source_blocked, O_CLOEXEC | O_NONBLOCK) != 0 ||
	    pipe2(slow_started, O_CLOEXEC | O_NONBLOCK) != 0 || pipe2(slow_gate, O_CLOEXEC) != 0)
		return false;
	bool up = server_start(&echo, ECHO, AF_INET) && server_start(&source, SOURCE, AF_INET) &&
		  server_start(&origin, HTTP_ORIGIN, AF_INET);
	int dead_fd = listen_loopback(AF_INET, &dead_port);
	close(dead_fd); /* a port where nothing listens */
	have_v6 = server_start(&echo6, ECHO, AF_INET6);
	return up && dead_fd >= 0;
}

static __attribute__((unused)) void servers_stop(void)
{
	server_stop(&echo);
	server_stop(&source);
	server_stop(&origin);
	if (have_v6)
		server_stop(&echo6);
}

static __attribute__((unused)) bool nothing_to_read(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) == 0;
}

static __attribute__((unused)) void wait_idle(const struct fixture *f, const char *name)
{
	struct proxy_stats s;
	/* Polled: the count has no event; the bound only ends a failure. */
	for (int i = 0; i < IO_TIMEOUT_S * 100; i++) {
		proxy_get_stats(f->proxy, &s);
		if (s.active == 0)
			break;
		usleep(10 * 1000);
	}
	proxy_get_stats(f->proxy, &s);
	tap_ok(s.active == 0, "%s: every connection closed afterwards (%llu accepted, %llu "
			      "tunnels, %llu refused, %llu open)",
	       name, (unsigned long long)s.accepted, (unsigned long long)s.tunnels,
	       (unsigned long long)s.refused, (unsigned long long)s.active);
}


#endif
