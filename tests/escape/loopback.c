/*
 * Loopback-only networking (R-36 on both tiers): a caged child whose
 * network mode is "loopback" serves and reaches loopback addresses, and
 * nothing else: not another address of this host, by TCP, UDP (sendto or
 * sendmsg), TCP Fast Open, MPTCP or a raw socket, nor by a sockaddr
 * another thread rewrites while the connect is pending, nor by a source
 * route; on tier T2 it binds and listens on loopback only.
 *
 * "Elsewhere" is one of this host's own non-loopback IPv4 addresses,
 * where the test listens: traffic to it never leaves the machine, and
 * the listener outside the cage judges what arrived. Tier T1: the run's
 * loopback is its own, so a service on the host's 127.0.0.1 is out of
 * reach too; tier T2: it is the host's loopback (the approximation
 * host-loopback, without which the cage is refused).
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "listeners.h"

#define CONTROL_WAIT_MS 10000

/* The first address of an interface up that is not loopback, as text; false if none. */
static bool host_address(char *out, size_t size)
{
	struct ifaddrs *all, *i;
	bool found = false;
	if (getifaddrs(&all) != 0)
		return false;
	for (i = all; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
		    (i->ifa_flags & IFF_LOOPBACK))
			continue;
		found = inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out,
				  (socklen_t)size) != NULL;
	}
	freeifaddrs(all);
	return found;
}

/* A TCP listener or a UDP socket bound on addr, port picked by the kernel; fd or -errno. */
static int bound_at(const char *addr, int type, int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof a;
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return -EINVAL;
	int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 64) != 0) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/*
 * Connections waiting (accepted and closed) or datagrams (drained). A
 * control, expecting an arrival, waits up to wait_ms for the first (a
 * bound on failure only); a canary counts what is there.
 */
static int arrivals_within(int fd, bool stream, int wait_ms)
{
	int n = 0;
	char buf[512];
	struct pollfd first = {fd, POLLIN, 0};
	if (wait_ms > 0)
		(void)poll(&first, 1, wait_ms);
	for (int i = 0; i < 4096; i++) {
		/* (Listeners made elsewhere may block: look before taking.) */
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 0) != 1)
			break;
		if (stream) {
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

static int arrivals(int fd, bool stream)
{
	return arrivals_within(fd, stream, 0);
}

/* Tier T2: without host-loopback accepted the cage is refused, naming it. */
static bool t2_acceptance(const struct tier *t, struct caged_ws *ws, const char *id)
{
	if (tier_is_t1(t))
		return true;
	struct caged_result r = run_caged(ws, NULL, "print", "the probe ran", NULL);
	check(t, refused_before_any_child(&r) && strstr(r.error, "host-loopback"), &r,
	      "%s: on T2 a loopback cage without the approximation host-loopback is refused "
	      "before any child runs, naming it",
	      id);
	return policy_accept(t, ws, id, "host-loopback");
}

struct elsewhere {
	char addr[INET_ADDRSTRLEN];
	int tcp, udp, tcp_port, udp_port;
	char tcp_text[16], udp_text[16];
};

/* The ways out to another address of the host, each judged by its listener. */
static void canaries_elsewhere(const struct tier *t, struct caged_ws *ws, struct elsewhere *e)
{
	struct caged_result r;
	r = run_caged(ws, NULL, "connect-tcp", e->addr, e->tcp_text, NULL);
	check(t, refused(&r) && arrivals(e->tcp, true) == 0, &r,
	      "r36: a TCP connection to this host's %s is refused and arrives nowhere", e->addr);
	r = run_caged(ws, NULL, "udp-send", e->addr, e->udp_text, "datagram", NULL);
	check(t, arrivals(e->udp, false) == 0, &r,
	      "r36: a UDP datagram (sendto) to %s arrives nowhere", e->addr);
	r = run_caged(ws, NULL, "udp-sendmsg", e->addr, e->udp_text, "datagram", NULL);
	check(t, arrivals(e->udp, false) == 0, &r,
	      "r36: a UDP datagram (sendmsg, its address in the message) to %s arrives nowhere",
	      e->addr);
	r = run_caged(ws, NULL, "tfo-send", e->addr, e->tcp_text, "GET / HTTP/1.0\r\n\r\n", NULL);
	check(t, !did_it(&r) && arrivals(e->tcp, true) == 0, &r,
	      "r36: TCP Fast Open to %s reaches nothing", e->addr);
	r = run_caged(ws, NULL, "connect-mptcp", e->addr, e->tcp_text, NULL);
	check(t, !did_it(&r) && arrivals(e->tcp, true) == 0, &r,
	      "r36: MPTCP to %s reaches nothing", e->addr);
	r = run_caged(ws, NULL, "bind-tcp", e->addr, NULL);
	check(t, refused(&r), &r, "r36: no socket can listen on this host's %s", e->addr);
	/* Another thread flips the sockaddr between a loopback and this address. */
	r = run_caged(ws, NULL, "connect-race", "127.0.0.1", "9", e->addr, e->tcp_text, "3000",
		      NULL);
	int got = arrivals(e->tcp, true);
	check(t, got == 0, &r,
	      "r36: 3000 connects to a sockaddr another thread rewrites between 127.0.0.1 and "
	      "%s (then one to it) reach %s %d times",
	      e->addr, e->addr, got);
	r = run_caged(ws, NULL, "sendmsg-swap", e->addr, e->udp_text, "3000", NULL);
	check(t, arrivals(e->udp, false) == 0, &r,
	      "r36: 3000 sendmsg to %s through a descriptor another thread swaps between a "
	      "socketpair's end and a UDP socket (then one through the UDP socket) arrive "
	      "nowhere",
	      e->addr);
}

static void controls_elsewhere(const struct tier *t, struct caged_ws *ws, struct elsewhere *e)
{
	struct caged_result r;
	r = run_uncaged(ws, NULL, "connect-tcp", e->addr, e->tcp_text, NULL);
	check(t, did_it(&r) && arrivals_within(e->tcp, true, CONTROL_WAIT_MS) >= 1, &r,
	      "r36: control: without the cage %s is reached over TCP", e->addr);
	r = run_uncaged(ws, NULL, "udp-send", e->addr, e->udp_text, "datagram", NULL);
	check(t, did_it(&r) && arrivals_within(e->udp, false, CONTROL_WAIT_MS) >= 1, &r,
	      "r36: control: without the cage the datagram (sendto) arrives");
	r = run_uncaged(ws, NULL, "udp-sendmsg", e->addr, e->udp_text, "datagram", NULL);
	check(t, did_it(&r) && arrivals_within(e->udp, false, CONTROL_WAIT_MS) >= 1, &r,
	      "r36: control: without the cage the datagram (sendmsg) arrives");
	r = run_uncaged(ws, NULL, "bind-tcp", e->addr, NULL);
	check(t, did_it(&r), &r, "r36: control: without the cage a socket listens on %s",
	      e->addr);
	r = run_uncaged(ws, NULL, "connect-race", "127.0.0.1", "9", e->addr, e->tcp_text, "3000",
			NULL);
	check(t, arrivals_within(e->tcp, true, CONTROL_WAIT_MS) >= 1, &r,
	      "r36: control: without the cage the raced connects reach %s", e->addr);
	r = run_uncaged(ws, NULL, "sendmsg-swap", e->addr, e->udp_text, "3000", NULL);
	check(t, arrivals_within(e->udp, false, CONTROL_WAIT_MS) >= 1, &r,
	      "r36: control: without the cage the swapped descriptor's datagrams arrive");
	r = run_uncaged(ws, NULL, "connect-mptcp", e->addr, e->tcp_text, NULL);
	(void)arrivals_within(e->tcp, true, did_it(&r) ? CONTROL_WAIT_MS : 0);
	control_or_skip(t, "r36", HOST_FAMILY, &r, "MPTCP without the cage");
}

/* What only tier T2 has to enforce: the host's own wildcard, listen, options, SCTP. */
static void canaries_t2(const struct tier *t, struct caged_ws *ws)
{
	struct caged_result r;
	char sctp[3][8];
	snprintf(sctp[0], sizeof sctp[0], "%d", AF_INET);
	snprintf(sctp[1], sizeof sctp[1], "%d", SOCK_STREAM);
	snprintf(sctp[2], sizeof sctp[2], "%d", IPPROTO_SCTP);
	r = run_caged(ws, NULL, "bind-tcp", "0.0.0.0", NULL);
	check(t, refused(&r), &r, "r36: no socket can listen on every interface (0.0.0.0)");
	r = run_caged(ws, NULL, "listen-any", NULL);
	check(t, did_it(&r) && strstr(r.out, "listening on 127.0.0.1"), &r,
	      "r36: a socket listening without a bind gets 127.0.0.1, not every interface");
	r = run_uncaged(ws, NULL, "bind-tcp", "0.0.0.0", NULL);
	check(t, did_it(&r), &r, "r36: control: without the cage a socket listens on 0.0.0.0");
	/* Each canary the host may refuse too is followed by its own control. */
	r = run_caged(ws, NULL, "source-route", "192.0.2.1", "9", NULL);
	check(t, refused(&r), &r, "r36: no source route (IP option LSRR) can be set");
	/* (The kernel asks CAP_NET_RAW for a source route: a root cage's way out.) */
	r = run_uncaged(ws, NULL, "source-route", "192.0.2.1", "9", NULL);
	control_or_skip(t, "r36", HOST_NET_RAW, &r, "a source route without the cage");
	r = run_caged(ws, NULL, "socket", sctp[0], sctp[1], sctp[2], NULL);
	check(t, refused(&r), &r, "r36: no SCTP socket (which connects through options) can be "
				  "made");
	r = run_uncaged(ws, NULL, "socket", sctp[0], sctp[1], sctp[2], NULL);
	control_or_skip(t, "r36", HOST_FAMILY, &r, "an SCTP socket without the cage");
}

/* A service of the host on its 127.0.0.1: the run's own loopback (T1) or the host's (T2). */
static void host_service(const struct tier *t, struct caged_ws *ws)
{
	int port = 0, fd = listen_tcp_loopback(&port);
	char text[16];
	if (!fixture(t, fd >= 0, "r36: a service of the host listens on 127.0.0.1"))
		return;
	snprintf(text, sizeof text, "%d", port);
	struct caged_result r = run_caged(ws, NULL, "connect-tcp", "127.0.0.1", text, NULL);
	int got = arrivals(fd, true);
	if (tier_is_t1(t))
		check(t, refused(&r) && got == 0, &r,
		      "r36: on T1 the run's loopback is its own: the host's service on "
		      "127.0.0.1:%d is not reached",
		      port);
	else
		check_role(t, ROLE_CONTROL,
			   did_it(&r) && (got >= 1 || arrivals_within(fd, true, 2000) >= 1), &r,
			   "r36: control: on T2 (host-loopback accepted) the host's service on "
			   "127.0.0.1:%d is reached, as the approximation says",
			   port);
	listen_close(fd, NULL);
}

void r36_a_loopback_child_reaches_loopback_only(const struct tier *t)
{
	struct elsewhere e = {.tcp = -1, .udp = -1};
	struct caged_result r;
	char raw[3][8];
	struct caged_ws *ws = workspace(t, "r36");
	if (!ws || cage_refused_here(t, ws, "r36") ||
	    !policy_network(t, ws, "r36", PROCAGE_NET_LOOPBACK) || !t2_acceptance(t, ws, "r36"))
		goto out;

	r = run_caged(ws, NULL, "loopback-self", "127.0.0.1", NULL);
	check(t, did_it(&r), &r, "r36: control: a server and its client on 127.0.0.1 in one run");
	r = run_caged(ws, NULL, "udp-self", "127.0.0.1", NULL);
	check(t, did_it(&r), &r, "r36: control: a datagram between two sockets on 127.0.0.1");
	r = run_uncaged(ws, NULL, "loopback-self", "::1", NULL);
	if (did_it(&r)) {
		r = run_caged(ws, NULL, "loopback-self", "::1", NULL);
		check(t, did_it(&r), &r, "r36: control: a server and its client on [::1] in one run");
	} else {
		diag("r36: no IPv6 loopback on this host (%s): [::1] is not tried", r.summary);
	}
	snprintf(raw[0], sizeof raw[0], "%d", AF_INET);
	snprintf(raw[1], sizeof raw[1], "%d", SOCK_RAW);
	snprintf(raw[2], sizeof raw[2], "%d", IPPROTO_ICMP);
	r = run_caged(ws, NULL, "socket", raw[0], raw[1], raw[2], NULL);
	check(t, refused(&r), &r, "r36: no raw socket can be made");
	r = run_uncaged(ws, NULL, "socket", raw[0], raw[1], raw[2], NULL);
	control_or_skip(t, "r36", HOST_NET_RAW, &r, "a raw socket without the cage");
	r = run_caged(ws, NULL, "io-uring", NULL);
	check(t, refused(&r), &r, "r36: io_uring, whose sends seccomp never sees, is refused");
	r = run_uncaged(ws, NULL, "io-uring", NULL);
	control_or_skip(t, "r36", HOST_IO_URING, &r, "io_uring without the cage");
	host_service(t, ws);

	if (!host_address(e.addr, sizeof e.addr)) {
		skip(t, "r36: this host has no non-loopback IPv4 address up: the routes to "
			"another address are not tried");
	} else if (fixture(t, (e.tcp = bound_at(e.addr, SOCK_STREAM, &e.tcp_port)) >= 0 &&
				  (e.udp = bound_at(e.addr, SOCK_DGRAM, &e.udp_port)) >= 0,
			   "r36: listeners on this host's %s", e.addr)) {
		snprintf(e.tcp_text, sizeof e.tcp_text, "%d", e.tcp_port);
		snprintf(e.udp_text, sizeof e.udp_text, "%d", e.udp_port);
		canaries_elsewhere(t, ws, &e);
		controls_elsewhere(t, ws, &e);
	}
	if (!tier_is_t1(t))
		canaries_t2(t, ws);
out:
	listen_close(e.tcp, NULL);
	listen_close(e.udp, NULL);
	caged_ws_free(ws);
}

/*
 * The supervisor's availability. A run's every brokered call is
 * answered by one supervisor thread: a caller that could hold it (a send
 * into a full buffer, a connect to a full backlog, on a socket whose
 * O_NONBLOCK and send timeout another thread flips, as they are the
 * cage's own) would keep every other call unanswered and the run from
 * ending. The run is made in a child of ours, so that one never ending
 * fails the bound below and not the suite.
 */
#define STALL_RUN_BOUND_MS 20000
#define STALL_ROUND_BOUND_MS 3000

static long long stall_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* True when the run ended (r filled) within STALL_RUN_BOUND_MS. */
static bool run_caged_bounded(struct caged_ws *ws, const char *const *args, struct caged_result *r)
{
	struct caged_opts slow = {.timeout_ms = 4 * STALL_RUN_BOUND_MS};
	int p[2];
	size_t have = 0;
	memset(r, 0, sizeof *r);
	if (pipe2(p, O_CLOEXEC) != 0)
		return false;
	long long deadline = stall_now_ms() + STALL_RUN_BOUND_MS;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		static struct caged_result got;
		got = run_caged_argv(ws, &slow, args);
		(void)!write(p[1], &got, sizeof got);
		_exit(0);
	}
	close(p[1]);
	while (pid > 0 && have < sizeof *r) {
		long long left = deadline - stall_now_ms();
		struct pollfd pf = {p[0], POLLIN, 0};
		if (left <= 0 || poll(&pf, 1, (int)left) != 1)
			break;
		ssize_t n = read(p[0], (char *)r + have, sizeof *r - have);
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	if (pid > 0 && have < sizeof *r)
		kill(pid, SIGKILL);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	close(p[0]);
	if (have < sizeof *r)
		snprintf(r->summary, sizeof r->summary, "the run did not end within %d ms",
			 STALL_RUN_BOUND_MS);
	return have == sizeof *r;
}

/* "answered 50 of 50 rounds, slowest N ms", N under the bound. */
static bool stall_rounds_answered(const struct caged_result *r)
{
	int answered = 0, rounds = 0;
	long long slowest = -1;
	const char *line = strstr(r->out, "answered ");
	return line &&
	       sscanf(line, "answered %d of %d rounds, slowest %lld ms", &answered, &rounds,
		      &slowest) == 3 &&
	       rounds > 0 && answered == rounds && slowest < STALL_ROUND_BOUND_MS;
}

static void stall_runs(const struct tier *t, struct caged_ws *ws, struct elsewhere *e)
{
	const char *hostile[] = {"broker-stall", "hostile", e->addr, e->udp_text, NULL};
	const char *quiet[] = {"broker-stall", "quiet", e->addr, e->udp_text, NULL};
	struct caged_result r;
	bool ended = run_caged_bounded(ws, hostile, &r);
	check(t, ended && stall_rounds_answered(&r) && refused(&r) && arrivals(e->udp, false) == 0,
	      &r,
	      "r45: beside threads sending into a full buffer and connecting to a full backlog "
	      "while another flips their sockets' O_NONBLOCK and send timeout, every round of "
	      "brokered calls is answered within %d ms, a datagram to %s is still refused, and "
	      "the run ends within %d ms",
	      STALL_ROUND_BOUND_MS, e->addr, STALL_RUN_BOUND_MS);
	ended = run_caged_bounded(ws, quiet, &r);
	check_role(t, ROLE_CONTROL, ended && stall_rounds_answered(&r), &r,
		   "r45: control: the same program without the hostile threads: every round "
		   "answered, the run ended");
	r = run_uncaged_argv(ws, NULL, quiet);
	check(t, did_it(&r) && arrivals_within(e->udp, false, CONTROL_WAIT_MS) >= 1, &r,
	      "r45: control: without the cage the same program's datagram reaches %s", e->addr);
}

/*
 * On tier T2 the network broker performs the sends and connects; on tier
 * T1 (a network namespace of the run's own) none of them is brokered,
 * and the same program shows that the run still ends and its calls are
 * answered, the kernel's own.
 */
void r45_a_hostile_caller_stalls_neither_other_calls_nor_the_run(const struct tier *t)
{
	struct elsewhere e = {.tcp = -1, .udp = -1};
	struct caged_ws *ws = workspace(t, "r45");
	if (!ws || cage_refused_here(t, ws, "r45") ||
	    !policy_network(t, ws, "r45", PROCAGE_NET_LOOPBACK) || !t2_acceptance(t, ws, "r45"))
		goto out;
	if (!host_address(e.addr, sizeof e.addr)) {
		skip(t, "r45: this host has no non-loopback IPv4 address up: the broker's "
			"availability is not tried");
	} else if (fixture(t, (e.udp = bound_at(e.addr, SOCK_DGRAM, &e.udp_port)) >= 0,
			   "r45: a UDP socket on this host's %s", e.addr)) {
		snprintf(e.udp_text, sizeof e.udp_text, "%d", e.udp_port);
		stall_runs(t, ws, &e);
	}
out:
	listen_close(e.udp, NULL);
	caged_ws_free(ws);
}
