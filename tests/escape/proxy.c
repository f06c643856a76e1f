/*
 * Proxy-only networking: a caged child whose network mode is
 * "proxy" reaches the hosts of its allowlist through its run's own proxy,
 * with every host read one way, and has no other route.
 *
 * The upstream is an HTTP server this test runs on a loopback port of the
 * host (a thread of the suite, bounded); nothing else is ever contacted.
 * The allowlists hold address ranges only, so no name is ever resolved
 * through /etc/hosts or a resolver: names are refused as not listed.
 *
 * On tier T2 the proxy listens on the host's loopback at a port of the
 * run's own and the broker performs every connect of the cage, to that
 * address only; the proxy serves only connections the broker made (a
 * program of the host connecting there gets nothing). A T2 host without
 * seccomp user notification refuses the cage before any child runs.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include "escape.h"
#include "listeners.h"

/* ---- the upstream: a small HTTP server on 127.0.0.1 ------------------- */

struct upstream {
	int fd;
	int port;
	char body[64];
	atomic_int requests; /* connections accepted */
	atomic_bool stop;
	pthread_t thread;
	bool running;
};

static void *upstream_serve(void *arg)
{
	struct upstream *u = arg;
	while (!atomic_load(&u->stop)) {
		struct pollfd p = {u->fd, POLLIN, 0};
		if (poll(&p, 1, 100) != 1)
			continue;
		int c = accept4(u->fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		atomic_fetch_add(&u->requests, 1);
		char buf[4096];
		size_t have = 0;
		/* Read the request head, 2 s at most. */
		while (have + 1 < sizeof buf) {
			struct pollfd q = {c, POLLIN, 0};
			if (poll(&q, 1, 2000) != 1)
				break;
			ssize_t r = read(c, buf + have, sizeof buf - 1 - have);
			if (r <= 0)
				break;
			have += (size_t)r;
			buf[have] = 0;
			if (strstr(buf, "\r\n\r\n"))
				break;
		}
		char resp[256];
		int n = snprintf(resp, sizeof resp,
				 "HTTP/1.0 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
				 strlen(u->body), u->body);
		(void)!write(c, resp, (size_t)n);
		close(c);
	}
	return NULL;
}

static bool upstream_start(const struct tier *t, struct upstream *u, const char *id)
{
	memset(u, 0, sizeof *u);
	u->fd = listen_tcp_loopback(&u->port);
	if (!fixture(t, u->fd >= 0, "%s: an upstream listens on loopback", id))
		return false;
	snprintf(u->body, sizeof u->body, "upstream-%s-%d-content", id, u->port);
	u->running = pthread_create(&u->thread, NULL, upstream_serve, u) == 0;
	return fixture(t, u->running, "%s: the upstream's thread runs", id);
}

static void upstream_stop(struct upstream *u)
{
	atomic_store(&u->stop, true);
	if (u->running)
		pthread_join(u->thread, NULL);
	u->running = false;
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

/* ---- policies and reports --------------------------------------------- */

/* A proxy-only policy allowing these entries; false (a fixture failure) if refused. */
static bool proxy_policy(const struct tier *t, struct caged_ws *ws, const char *id,
			 const char *const *entries)
{
	struct procage_error err = {0};
	if (!policy_network(t, ws, id, PROCAGE_NET_PROXY))
		return false;
	for (; *entries; entries++)
		if (!fixture(t, procage_policy_allow_host(ws->policy, *entries, &err) == 0,
			     "%s: the policy allows %s (%s)", id, *entries, err.message))
			return false;
	return fixture(t, procage_policy_set_reports(ws->policy, true, &err) == 0,
		       "%s: reports on (%s)", id, err.message);
}

/*
 * On T2 the broker keeps a proxy cage to its proxy (seccomp user
 * notification); a T2 host without it refuses the cage before a child
 * runs, naming the missing piece: true when the canary should stop there.
 */
static bool proxy_refused_on_t2(const struct tier *t, struct caged_ws *ws, const char *id)
{
	if (tier_is_t1(t) || t->facts.seccomp_user_notif)
		return false;
	struct caged_result r = run_caged(ws, NULL, "print", "the probe ran", NULL);
	check(t, refused_before_any_child(&r) && !strstr(r.out, "the probe ran") &&
		     (strstr(r.error, "network namespaces") || strstr(r.error, "tier T1")),
	      &r, "%s: a proxy-only cage is refused before any child runs, naming the missing "
		  "network namespaces (tier T1)", id);
	return true;
}

/* Count the proxy refusals in a run's JSON report file. */
static int proxy_reports(const char *path)
{
	static char buf[65536];
	int n = 0;
	if (caged_read_file(path, buf, sizeof buf) < 0)
		return 0;
	for (const char *p = buf; (p = strstr(p, "\"proxy\"")); p++)
		n++;
	return n;
}

/*
 * One request through the caged child's proxy. REQ and TUNNEL are C-escaped
 * (the probe reads \r \n \0 \xHH); reports go to a fresh file.
 */
static struct caged_result proxy_request(struct caged_ws *ws, const char *report, const char *req,
					 const char *tunnel)
{
	struct caged_opts o = {.report_json_path = report, .timeout_ms = 15000};
	(void)unlink(report);
	if (tunnel)
		return run_caged(ws, &o, "proxy-request", req, tunnel, NULL);
	return run_caged(ws, &o, "proxy-request", req, NULL);
}

/* A host spelling from the tables below, "%d" its port. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void spell(char *out, size_t size, const char *pattern, int port)
{
	snprintf(out, size, pattern, port);
}
#pragma GCC diagnostic pop

/* A CONNECT or absolute-form request for the authority HOSTPORT. */
static void request_text(char *out, size_t size, bool connect, const char *hostport)
{
	if (connect)
		snprintf(out, size, "CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n", hostport,
			 hostport);
	else
		snprintf(out, size,
			 "GET http://%s/ HTTP/1.1\\r\\nHost: %s\\r\\nConnection: close\\r\\n\\r\\n",
			 hostport, hostport);
}

static const char tunnel_get[] = "GET / HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n";

/*
 * Each spelling is refused: 403 (never 200) in both request forms, a proxy
 * report for it, and nothing reaches the upstream.
 */
static void refuse_spellings(const struct tier *t, struct caged_ws *ws, struct upstream *u,
			     const char *report, const char *allowed, const char *const *hosts,
			     size_t n)
{
	char hostport[256], req[700];
	for (size_t i = 0; i < n; i++) {
		spell(hostport, sizeof hostport, hosts[i], u->port);
		for (int form = 0; form < 2; form++) {
			int before = atomic_load(&u->requests);
			request_text(req, sizeof req, form == 0, hostport);
			struct caged_result r =
			    proxy_request(ws, report, req, form == 0 ? tunnel_get : NULL);
			int reports = proxy_reports(report);
			check(t,
			      refused(&r) && strstr(r.out, " 403 ") && !strstr(r.out, " 200 ") &&
				  !strstr(r.out, u->body) && reports >= 1 &&
				  atomic_load(&u->requests) == before,
			      &r,
			      "r35: with only %s allowed, %s %s is answered 403, reported (%d), "
			      "and never reaches the upstream",
			      allowed, form == 0 ? "CONNECT" : "GET http://", hostport, reports);
		}
	}
}

void r35_a_host_is_read_one_way(const struct tier *t)
{
	struct upstream u = {.fd = -1};
	char report[PATH_MAX], hostport[256], req[700];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r35");
	struct caged_ws *other = workspace(t, "r35");
	static const char *const loopback_one[] = {"127.0.0.1/32", NULL};
	static const char *const other_one[] = {"127.0.0.2/32", NULL};
	if (!ws || !other || cage_refused_here(t, ws, "r35") ||
	    !proxy_policy(t, ws, "r35", loopback_one) || !proxy_policy(t, other, "r35", other_one) ||
	    proxy_refused_on_t2(t, ws, "r35") || !upstream_start(t, &u, "r35") ||
	    !path_join(t, report, ws->root, "reports.json"))
		goto out;

	/* Control: the allowed spelling reaches the upstream, in both forms. */
	snprintf(hostport, sizeof hostport, "127.0.0.1:%d", u.port);
	request_text(req, sizeof req, true, hostport);
	r = proxy_request(ws, report, req, tunnel_get);
	check_role(t, ROLE_NEEDS_CAGE, did_it(&r) && strstr(r.out, u.body), &r,
		   "r35: control: CONNECT %s tunnels to the upstream and returns its content",
		   hostport);
	request_text(req, sizeof req, false, hostport);
	r = proxy_request(ws, report, req, NULL);
	check_role(t, ROLE_NEEDS_CAGE, did_it(&r) && strstr(r.out, u.body), &r,
		   "r35: control: GET http://%s/ through the proxy returns the upstream's content",
		   hostport);

	/* Other notations of the same address are that address: one reading. */
	static const char *const same[] = {"2130706433:%d", "0x7f.1:%d", "127.1:%d",
					   "0177.0.0.1:%d", "0x7f000001:%d",
					   "[::ffff:127.0.0.1]:%d"};
	for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
		spell(hostport, sizeof hostport, same[i], u.port);
		request_text(req, sizeof req, false, hostport);
		r = proxy_request(ws, report, req, NULL);
		check(t, did_it(&r) && strstr(r.out, u.body), &r,
		      "r35: %s is read as 127.0.0.1, the address it is, and reaches the upstream",
		      hostport);
	}

	/* Spellings that must be refused with 127.0.0.1/32 allowed. */
	static const char *const bad[] = {
	    "127.0.0.1\\0.example.com:%d", /* NUL */
	    "127.0.0.%%31:%d",		   /* percent encoding */
	    "user:pw@127.0.0.1:%d",	   /* userinfo */
	    "127.0.0.1@127.0.0.2:%d",	   /* userinfo the other way */
	    "127.0.0.1\\x01:%d",	   /* a control byte */
	    "127.0.0.1\\\\.x:%d",	   /* a backslash */
	    "127.0.0.2:%d",		   /* outside the range */
	    "0x7f.2:%d",		   /* 127.0.0.2 in hex */
	    "2130706434:%d",		   /* 127.0.0.2 in decimal */
	    "127.2:%d",			   /* 127.0.0.2 short */
	    "[::1]:%d",			   /* IPv6 loopback: not in the range */
	    "[::ffff:127.0.0.2]:%d",	   /* mapped, outside */
	    "localhost:%d",		   /* a name: not listed (never resolved) */
	    "LocalHost.:%d",		   /* its case and trailing-dot variant */
	    "127.0.0.1..:%d",		   /* an empty label */
	    "\\xc0\\xae127.0.0.1:%d",	   /* non-ASCII */
	    "256.0.0.1:%d",		   /* not an address */
	};
	refuse_spellings(t, ws, &u, report, "127.0.0.1/32", bad, sizeof bad / sizeof *bad);

	/* With only 127.0.0.2/32 allowed, every notation of 127.0.0.1 is refused. */
	static const char *const notations[] = {
	    "127.0.0.1:%d", "127.1:%d",	     "0x7f.1:%d",   "2130706433:%d",
	    "0177.0.0.1:%d", "127.0.0.1.:%d", "0X7F.0.0.1:%d", "[::ffff:127.0.0.1]:%d",
	    "[::ffff:7f00:1]:%d",
	};
	if (path_join(t, report, other->root, "reports.json"))
		refuse_spellings(t, other, &u, report, "127.0.0.2/32", notations,
				 sizeof notations / sizeof *notations);

	/* A Host header naming another host than the request line is refused. */
	snprintf(req, sizeof req,
		 "GET http://127.0.0.1:%d/ HTTP/1.1\\r\\nHost: 127.0.0.2:%d\\r\\n\\r\\n", u.port,
		 u.port);
	if (path_join(t, report, ws->root, "reports.json")) {
		int before = atomic_load(&u.requests);
		r = proxy_request(ws, report, req, NULL);
		check(t,
		      refused(&r) && strstr(r.out, " 403 ") && !strstr(r.out, u.body) &&
			  atomic_load(&u.requests) == before,
		      &r, "r35: a Host header that names another host is refused, never relayed");
	}
out:
	upstream_stop(&u);
	caged_ws_free(other);
	caged_ws_free(ws);
}

/* ---- R-36 --------------------------------------------------------------- */

static int udp_loopback(int family, int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	memset(&ss, 0, sizeof ss);
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&ss, len) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	*port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					: ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

static int tcp6_loopback(int *port)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	socklen_t len = sizeof a;
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 8) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	*port = ntohs(a.sin6_port);
	return fd;
}

/*
 * Datagrams waiting (and drained), or connections waiting (accepted and
 * closed). Loopback delivers from a softirq that a busy machine may run a
 * little after the sender's call returned: a control, which expects an
 * arrival, waits up to wait_ms for the first (a bound on failure only).
 */
static int arrivals_within(int fd, bool stream, int wait_ms)
{
	int n = 0;
	char buf[512];
	struct pollfd first = {fd, POLLIN, 0};
	if (wait_ms > 0)
		(void)poll(&first, 1, wait_ms);
	for (int i = 0; i < 64; i++) {
		if (stream) {
			struct pollfd p = {fd, POLLIN, 0};
			if (poll(&p, 1, 0) != 1)
				break;
			int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (c < 0)
				break;
			close(c);
		} else if (recv(fd, buf, sizeof buf, MSG_DONTWAIT) < 0) {
			break;
		}
		n++;
	}
	return n;
}

/* What a canary counts: what is there now, expecting nothing. */
static int arrivals(int fd, bool stream)
{
	return arrivals_within(fd, stream, 0);
}

#define CONTROL_WAIT_MS 10000

/*
 * Tier T2: the run's proxy listens on the host's loopback, where any
 * program of the host can connect; it serves only the connections the
 * broker made for the cage. A program of the host (this test) asks it for
 * the upstream: the connection is closed unanswered, and the upstream
 * sees nothing. Its control: the cage itself gets the upstream through it.
 */
static void host_program_is_not_served(const struct tier *t, struct caged_ws *ws,
				       struct upstream *u)
{
	char file[PATH_MAX], url[128] = "", req[256], got[512] = "";
	long port = 0;
	if (!path_join(t, file, ws->rw, "proxy-url"))
		return;
	struct caged_proc *a = start_caged(ws, NULL, "env-to-file", "HTTP_PROXY", file, "then",
					   "print", "ready", "then", "linger", "r36", "0", NULL);
	bool up = a && caged_proc_wait_for(a, "ready\n", 10000) &&
		  caged_read_file(file, url, sizeof url) >= 0 &&
		  sscanf(url, "http://127.0.0.1:%ld", &port) == 1;
	/* (Without the cage there is no proxy, and the canary fails: no fixture.) */
	int before = atomic_load(&u->requests);
	if (up) {
		struct sockaddr_in addr = {.sin_family = AF_INET,
					   .sin_port = htons((uint16_t)port),
					   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		snprintf(req, sizeof req, "GET http://127.0.0.1:%d/ HTTP/1.0\r\n\r\n", u->port);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
		    write(fd, req, strlen(req)) == (ssize_t)strlen(req)) {
			struct pollfd p = {fd, POLLIN, 0};
			/* Closed at once; the bound is for a failure only. */
			if (poll(&p, 1, 10000) == 1)
				(void)!read(fd, got, sizeof got - 1);
		}
		if (fd >= 0)
			close(fd);
	}
	check(t, up && !strstr(got, "200") && atomic_load(&u->requests) == before, NULL,
	      "r36: on T2 a program of the host connecting to the run's proxy (port %ld, from "
	      "%s) is not served (got \"%.40s\")",
	      port, url[0] ? url : "no URL", got);
	if (a) {
		caged_proc_kill(a);
		(void)caged_proc_finish(a);
	}
}

void r36_a_proxy_only_child_has_no_other_route(const struct tier *t)
{
	struct upstream u = {.fd = -1};
	int udp_fd = -1, tcp6_fd = -1, other_fd = -1, udp_port = 0, tcp6_port = 0, other_port = 0;
	char up[16], udp[16], tcp6[16], otherp[16], hostport[64], req[700], report[PATH_MAX];
	char raw[3][8];
	struct caged_result r;
	struct caged_proc *a = NULL;
	struct caged_ws *ws = workspace(t, "r36");
	struct caged_ws *ws_a = workspace(t, "r36");
	static const char *const loopback_one[] = {"127.0.0.1/32", NULL};
	static const char *const elsewhere[] = {"127.0.0.2/32", NULL};
	if (!ws || !ws_a || cage_refused_here(t, ws, "r36") ||
	    !proxy_policy(t, ws, "r36", loopback_one) || !proxy_policy(t, ws_a, "r36", elsewhere) ||
	    proxy_refused_on_t2(t, ws, "r36") || !upstream_start(t, &u, "r36") ||
	    !fixture(t, (udp_fd = udp_loopback(AF_INET, &udp_port)) >= 0,
		     "r36: a UDP socket on 127.0.0.1") ||
	    !fixture(t, (other_fd = listen_tcp_loopback(&other_port)) >= 0,
		     "r36: another loopback TCP listener") ||
	    !path_join(t, report, ws->root, "reports.json"))
		goto out;
	tcp6_fd = tcp6_loopback(&tcp6_port);
	if (tcp6_fd < 0)
		diag("r36: no IPv6 loopback on this host (%s): the IPv6 route is not tried",
		     strerror(-tcp6_fd));
	snprintf(up, sizeof up, "%d", u.port);
	snprintf(udp, sizeof udp, "%d", udp_port);
	snprintf(tcp6, sizeof tcp6, "%d", tcp6_port);
	snprintf(otherp, sizeof otherp, "%d", other_port);
	snprintf(raw[0], sizeof raw[0], "%d", AF_INET);
	snprintf(raw[1], sizeof raw[1], "%d", SOCK_RAW);
	snprintf(raw[2], sizeof raw[2], "%d", IPPROTO_ICMP);

	int before = atomic_load(&u.requests);
	r = run_caged(ws, NULL, "connect-tcp", "127.0.0.1", up, NULL);
	check(t, refused(&r) && atomic_load(&u.requests) == before, &r,
	      "r36: a direct TCP connection to the upstream's loopback port is refused");
	r = run_caged(ws, NULL, "tfo-send", "127.0.0.1", up, "GET / HTTP/1.0\r\n\r\n", NULL);
	check(t, !did_it(&r) && atomic_load(&u.requests) == before, &r,
	      "r36: TCP Fast Open to the upstream reaches nothing");
	r = run_caged(ws, NULL, "connect-mptcp", "127.0.0.1", up, NULL);
	check(t, !did_it(&r) && atomic_load(&u.requests) == before, &r,
	      "r36: MPTCP to the upstream reaches nothing");
	/* (Counted, and drained, whatever the probe says: the controls count anew.) */
	r = run_caged(ws, NULL, "connect-tcp", "127.0.0.1", otherp, NULL);
	int got = arrivals(other_fd, true);
	check(t, refused(&r) && got == 0, &r,
	      "r36: another loopback port of the host is not reached");
	/* A real service's port, when one listens there (else nothing would be proven). */
	r = run_uncaged(ws, NULL, "connect-tcp", "127.0.0.1", "22", NULL);
	if (did_it(&r)) {
		r = run_caged(ws, NULL, "connect-tcp", "127.0.0.1", "22", NULL);
		check(t, !did_it(&r), &r, "r36: loopback port 22 (a service of the host) is not "
					  "reached");
	} else {
		diag("r36: nothing listens on loopback port 22 here (%s): the test's own "
		     "listener above stands for a service of the host",
		     r.summary);
	}
	r = run_caged(ws, NULL, "udp-send", "127.0.0.1", udp, "datagram", NULL);
	check(t, arrivals(udp_fd, false) == 0, &r, "r36: a UDP datagram to the host's loopback "
						    "arrives nowhere");
	/* A DNS query of the child's own, to a "resolver" on the host's loopback. */
	r = run_caged(ws, NULL, "udp-send", "127.0.0.1", udp,
		      "\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x07example\\x03com"
		      "\\x00\\x00\\x01\\x00\\x01",
		      NULL);
	check(t, arrivals(udp_fd, false) == 0, &r,
	      "r36: the child's own DNS query reaches no resolver on the host");
	if (tcp6_fd >= 0) {
		r = run_caged(ws, NULL, "connect-tcp6", "::1", tcp6, NULL);
		got = arrivals(tcp6_fd, true);
		check(t, !did_it(&r) && got == 0, &r,
		      "r36: TCP over IPv6 to the host's [::1] reaches nothing");
	}
	r = run_caged(ws, NULL, "socket", raw[0], raw[1], raw[2], NULL);
	check(t, refused(&r), &r, "r36: no raw socket can be made");
	/* Its control at once: uid 65534 lacks CAP_NET_RAW, and so the canary proves nothing. */
	r = run_uncaged(ws, NULL, "socket", raw[0], raw[1], raw[2], NULL);
	control_or_skip(t, "r36", HOST_NET_RAW, &r, "a raw socket without the cage");

	/*
	 * Another proxy run, concurrent, whose list allows the upstream: a run
	 * whose list does not (ws_a) asks for it at 127.0.0.1:3128 and meets
	 * only its own proxy.
	 */
	a = start_caged(ws, NULL, "print", "ready", "then", "linger", "r36", "0", NULL);
	if (fixture(t, a && caged_proc_wait_for(a, "ready\n", 10000),
		    "r36: a concurrent run allowing the upstream is alive")) {
		struct caged_opts o = {.timeout_ms = 15000};
		snprintf(hostport, sizeof hostport, "127.0.0.1:%d", u.port);
		request_text(req, sizeof req, false, hostport);
		before = atomic_load(&u.requests);
		r = run_caged(ws_a, &o, "proxy-request", req, NULL);
		check(t, refused(&r) && !strstr(r.out, u.body) && atomic_load(&u.requests) == before,
		      &r,
		      "r36: a run whose list lacks the upstream does not reach it through the "
		      "listener of a concurrent run that allows it");
	}
	if (a) {
		caged_proc_kill(a);
		(void)caged_proc_finish(a);
		a = NULL;
	}
	if (!tier_is_t1(t))
		host_program_is_not_served(t, ws, &u);

	/* Controls: through the proxy the upstream answers; without the cage, directly. */
	snprintf(hostport, sizeof hostport, "127.0.0.1:%d", u.port);
	request_text(req, sizeof req, false, hostport);
	r = proxy_request(ws, report, req, NULL);
	check_role(t, ROLE_NEEDS_CAGE, did_it(&r) && strstr(r.out, u.body), &r,
		   "r36: control: the same upstream is reached through the proxy");
	r = run_uncaged(ws, NULL, "connect-tcp", "127.0.0.1", up, NULL);
	check(t, did_it(&r), &r, "r36: control: without the cage the upstream port is reached");
	r = run_uncaged(ws, NULL, "udp-send", "127.0.0.1", udp, "datagram", NULL);
	check(t, did_it(&r) && arrivals_within(udp_fd, false, CONTROL_WAIT_MS) >= 1, &r,
	      "r36: control: without the cage the datagram arrives");
	r = run_uncaged(ws, NULL, "connect-tcp", "127.0.0.1", otherp, NULL);
	check(t, did_it(&r) && arrivals_within(other_fd, true, CONTROL_WAIT_MS) >= 1, &r,
	      "r36: control: without the cage the other loopback port is reached");
	if (tcp6_fd >= 0) {
		r = run_uncaged(ws, NULL, "connect-tcp6", "::1", tcp6, NULL);
		check(t, did_it(&r) && arrivals_within(tcp6_fd, true, CONTROL_WAIT_MS) >= 1, &r,
		      "r36: control: without the cage [::1] is reached");
	}
	r = run_uncaged(ws, NULL, "connect-mptcp", "127.0.0.1", up, NULL);
	control_or_skip(t, "r36", HOST_FAMILY, &r, "MPTCP to the upstream without the cage");
out:
	if (a) {
		caged_proc_kill(a);
		(void)caged_proc_finish(a);
	}
	upstream_stop(&u);
	listen_close(udp_fd, NULL);
	listen_close(tcp6_fd, NULL);
	listen_close(other_fd, NULL);
	caged_ws_free(ws_a);
	caged_ws_free(ws);
}

/*
 * Transparent egress, tier T1: the run's resolver gives allowed
 * names stand-in addresses and a connection to one is carried to the
 * proxy as the name it stands for, at the port the run dialled. The run
 * cannot turn that into an address: an allowed name at another captured
 * port, the namespace's own loopback address at a captured port, a
 * stand-in never handed out, an address spelled as a name: none reaches
 * the host's listener there. Tier T2 captures nothing (r36: every route
 * but the proxy is closed).
 */
void r54_capture_reaches_names_not_addresses(const struct tier *t)
{
	struct upstream u = {.fd = -1};
	int other_fd = -1, other_port = 0, standin_fd = -1;
	char up[16], otherp[16], localhost_up[40], decoy[48];
	const char *get = "GET / HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n";
	struct caged_result r;
	struct caged_ws *ws = NULL;

	if (!tier_is_t1(t)) {
		skip(t, "r54: tier T2 has no network namespace to capture in; r36 closes every "
			"route there but the proxy");
		return;
	}
	ws = workspace(t, "r54");
	if (!ws || cage_refused_here(t, ws, "r54") || !upstream_start(t, &u, "r54") ||
	    !fixture(t, (other_fd = listen_tcp_loopback(&other_port)) >= 0,
		     "r54: another loopback TCP listener"))
		goto out;
	/* The host's own 127.100.0.200 at that port: what a stand-in means outside the run. */
	struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((uint16_t)other_port),
				 .sin_addr.s_addr = htonl(0x7f6400c8)};
	standin_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!fixture(t, standin_fd >= 0 && bind(standin_fd, (struct sockaddr *)&at, sizeof at) == 0 &&
			    listen(standin_fd, 16) == 0,
		     "r54: a listener on the host's 127.100.0.200"))
		goto out;
	snprintf(up, sizeof up, "%d", u.port);
	snprintf(otherp, sizeof otherp, "%d", other_port);
	/* The decoy entry makes the other port one the run's namespace captures. */
	snprintf(localhost_up, sizeof localhost_up, "localhost:%d", u.port);
	snprintf(decoy, sizeof decoy, "decoy.invalid:%d", other_port);
	const char *const entries[] = {localhost_up, decoy, NULL};
	if (!proxy_policy(t, ws, "r54", entries))
		goto out;

	/*
	 * The resolver at 127.0.0.53 is the run's own: without the cage there
	 * is none to ask, so these two are counted, not judged by the
	 * sandbox-off pass (the connects below are).
	 */
	r = run_caged(ws, NULL, "dns-connect", "localhost", otherp, get, NULL);
	int got = arrivals(other_fd, true);
	check_role(t, ROLE_NEEDS_CAGE, !did_it(&r) && got == 0, &r,
		   "r54: an allowed name's stand-in address at another captured port reaches "
		   "nothing");
	r = run_caged(ws, NULL, "connect-tcp", "127.0.0.1", otherp, NULL);
	got = arrivals(other_fd, true);
	check(t, got == 0, &r,
	      "r54: the namespace's own 127.0.0.1 at a captured port reaches nothing of the host");
	r = run_caged(ws, NULL, "connect-tcp", "127.100.0.200", otherp, NULL);
	got = arrivals(standin_fd, true) + arrivals(other_fd, true);
	check(t, got == 0, &r, "r54: a stand-in address never handed out reaches nothing");
	r = run_caged(ws, NULL, "dns-connect", "127.0.0.1", otherp, get, NULL);
	got = arrivals(other_fd, true);
	check_role(t, ROLE_NEEDS_CAGE, !did_it(&r) && got == 0, &r,
		   "r54: an address spelled as a name gets no stand-in address");

	/* Controls: the capture carries an allowed name; without the cage the port is reached. */
	r = run_caged(ws, NULL, "dns-connect", "localhost", up, get, NULL);
	check_role(t, ROLE_NEEDS_CAGE, did_it(&r) && strstr(r.out, u.body), &r,
		   "r54: control: the allowed name at its port reaches the upstream by capture");
	r = run_uncaged(ws, NULL, "connect-tcp", "127.0.0.1", otherp, NULL);
	check(t, did_it(&r) && arrivals_within(other_fd, true, CONTROL_WAIT_MS) >= 1, &r,
	      "r54: control: without the cage the other loopback port is reached");
	r = run_uncaged(ws, NULL, "connect-tcp", "127.100.0.200", otherp, NULL);
	check(t, did_it(&r) && arrivals_within(standin_fd, true, CONTROL_WAIT_MS) >= 1, &r,
	      "r54: control: without the cage the host's 127.100.0.200 is reached");
out:
	upstream_stop(&u);
	listen_close(other_fd, NULL);
	listen_close(standin_fd, NULL);
	caged_ws_free(ws);
}
