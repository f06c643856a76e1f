/* The probe's actions: loopback-only networking (R-36 on both tiers). */
#include "probe.h"

#include <pthread.h>
#include <stdatomic.h>

/* ADDR (IPv4 or IPv6) and PORT into ss; its length, or 0. */
static socklen_t address_of(const char *addr, long port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		return sizeof *a4;
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		return sizeof *a6;
	}
	return 0;
}

/* An address missing from the cage's network (its own namespace) is out of reach. */
static int refused_or_failed(const char *what, const char *target)
{
	if (errno == EADDRNOTAVAIL) {
		fprintf(stderr, "probe: %s %s: refused by %s: EADDRNOTAVAIL\n", action_name, target,
			what);
		return PROBE_REFUSED;
	}
	return failed(REFUSE_CONNECT, what, target);
}

/*
 * loopback-self ADDR: a server and its client in the same run: bind ADDR
 * (port 0), listen, connect to it with a blocking socket, send, accept,
 * read back what was sent.
 */
int do_loopback_self(char **args)
{
	struct sockaddr_storage ss;
	socklen_t len = address_of(args[0], 0, &ss);
	if (!len)
		return usage_error("not an address:", args[0]);
	int srv = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv < 0)
		return failed(REFUSE_SOCKET, "socket", args[0]);
	if (bind(srv, (struct sockaddr *)&ss, len) != 0 || listen(srv, 4) != 0 ||
	    getsockname(srv, (struct sockaddr *)&ss, &len) != 0) {
		int rc = refused_or_failed("bind", args[0]);
		close(srv);
		return rc;
	}
	int cli = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc = PROBE_ERROR;
	char buf[8] = "";
	if (cli >= 0 && connect(cli, (struct sockaddr *)&ss, len) == 0) {
		int c = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
		if (c >= 0 && send(cli, "ping", 4, 0) == 4 && recv(c, buf, 4, MSG_WAITALL) == 4 &&
		    memcmp(buf, "ping", 4) == 0)
			rc = PROBE_DID_IT;
		if (c >= 0)
			close(c);
	} else {
		rc = failed(REFUSE_CONNECT, "connect", args[0]);
	}
	if (cli >= 0)
		close(cli);
	close(srv);
	if (rc == PROBE_DID_IT)
		printf("served and reached %s\n", args[0]);
	return rc;
}

/* udp-self ADDR: one datagram from one socket to another, both on ADDR. */
int do_udp_self(char **args)
{
	struct sockaddr_storage ss;
	socklen_t len = address_of(args[0], 0, &ss);
	if (!len)
		return usage_error("not an address:", args[0]);
	int rx = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int tx = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = PROBE_ERROR;
	char buf[8] = "";
	if (rx < 0 || tx < 0)
		rc = failed(REFUSE_SOCKET, "socket", args[0]);
	else if (bind(rx, (struct sockaddr *)&ss, len) != 0 ||
		 getsockname(rx, (struct sockaddr *)&ss, &len) != 0)
		rc = refused_or_failed("bind", args[0]);
	else if (sendto(tx, "dgram", 5, 0, (struct sockaddr *)&ss, len) != 5)
		rc = failed(REFUSE_CONNECT, "sendto", args[0]);
	else if (recv(rx, buf, sizeof buf, 0) == 5 && memcmp(buf, "dgram", 5) == 0)
		rc = PROBE_DID_IT;
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	return rc;
}

/* udp-sendmsg ADDR PORT TEXT: one datagram, its address in the message. */
int do_udp_sendmsg(char **args)
{
	struct sockaddr_storage ss;
	long port;
	socklen_t len = parse_int(args[1], &port) ? address_of(args[0], port, &ss) : 0;
	if (!len)
		return usage_error("wants an address and a port, got", args[0]);
	int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_SOCKET, "socket", args[0]);
	struct iovec iov = { args[2], strlen(args[2]) };
	struct msghdr m = { .msg_name = &ss, .msg_namelen = len, .msg_iov = &iov, .msg_iovlen = 1 };
	int rc = sendmsg(fd, &m, 0) >= 0 ? PROBE_DID_IT : failed(REFUSE_CONNECT, "sendmsg", args[0]);
	close(fd);
	return rc;
}

/* bind-tcp ADDR: bind a TCP socket there (port 0) and listen. */
int do_bind_tcp(char **args)
{
	struct sockaddr_storage ss;
	socklen_t len = address_of(args[0], 0, &ss);
	if (!len)
		return usage_error("not an address:", args[0]);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_SOCKET, "socket", args[0]);
	int rc = bind(fd, (struct sockaddr *)&ss, len) == 0 && listen(fd, 1) == 0
		     ? PROBE_DID_IT
		     : refused_or_failed("bind", args[0]);
	close(fd);
	return rc;
}

/* listen-any: listen on a TCP socket never bound; print the address it got. */
int do_listen_any(char **args)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_SOCKET, "socket", "AF_INET");
	if (listen(fd, 1) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		int rc = failed(REFUSE_CONNECT, "listen", "AF_INET");
		close(fd);
		return rc;
	}
	char text[INET_ADDRSTRLEN];
	printf("listening on %s\n", inet_ntop(AF_INET, &a.sin_addr, text, sizeof text));
	close(fd);
	return PROBE_DID_IT;
}

/*
 * source-route ADDR PORT: a loose source route through ADDR (IP option
 * LSRR, ADDR then 127.0.0.1), then connect to 127.0.0.1:PORT: the
 * kernel would send the SYN to ADDR, the route's first hop.
 */
int do_source_route(char **args)
{
	struct in_addr hop;
	long port;
	if (inet_pton(AF_INET, args[0], &hop) != 1 || !parse_int(args[1], &port))
		return usage_error("wants an IPv4 address and a port, got", args[0]);
	unsigned char opt[12] = { 1 /* NOP */, 0x83 /* LSRR */, 11, 4 };
	memcpy(opt + 4, &hop, 4);
	in_addr_t last = htonl(INADDR_LOOPBACK);
	memcpy(opt + 8, &last, 4);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return failed(REFUSE_SOCKET, "socket", args[0]);
	if (setsockopt(fd, IPPROTO_IP, IP_OPTIONS, opt, sizeof opt) != 0) {
		int rc = failed(REFUSE_CONNECT, "setsockopt(IP_OPTIONS)", args[0]);
		close(fd);
		return rc;
	}
	close(fd);
	printf("a source route through %s is set\n", args[0]);
	return PROBE_DID_IT;
}

/* ---- connect-race ------------------------------------------------------- */

struct race {
	struct sockaddr_storage addr; /* what connect reads, flipped by the racer */
	struct sockaddr_storage good, bad;
	socklen_t len;
	atomic_bool stop;
	atomic_uint flips;
};

static void *flip(void *arg)
{
	struct race *r = arg;
	for (unsigned i = 0; !atomic_load(&r->stop); i++) {
		memcpy(&r->addr, i % 2 ? &r->good : &r->bad, r->len);
		atomic_store(&r->flips, i + 1);
	}
	return NULL;
}

/*
 * connect-race GOOD GPORT BAD BPORT N: N connects to a sockaddr that
 * another thread rewrites between GOOD:GPORT and BAD:BPORT without end.
 * Prints how many connects succeeded; the listener at BAD judges.
 */
int do_connect_race(char **args)
{
	static struct race r;
	long gport, bport, n;
	if (!parse_int(args[1], &gport) || !parse_int(args[3], &bport) || !parse_int(args[4], &n))
		return usage_error("wants GOOD GPORT BAD BPORT N, got", args[0]);
	socklen_t gl = address_of(args[0], gport, &r.good), bl = address_of(args[2], bport, &r.bad);
	if (!gl || gl != bl || r.good.ss_family != r.bad.ss_family)
		return usage_error("two addresses of one family wanted, got", args[2]);
	r.len = gl;
	memcpy(&r.addr, &r.good, gl);
	pthread_t racer;
	if (pthread_create(&racer, NULL, flip, &r) != 0)
		return usage_error("no thread:", strerror(errno));
	/* The connects start once the racer runs: a busy machine may start it late. */
	while (atomic_load(&r.flips) < 2)
		sched_yield();
	long made = 0;
	for (long i = 0; i < n; i++) {
		int fd = socket(r.good.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			break;
		if (connect(fd, (struct sockaddr *)&r.addr, r.len) == 0 || errno == EINPROGRESS)
			made++;
		close(fd);
		if (i % 16 == 0)
			sched_yield(); /* let the racer interleave */
	}
	atomic_store(&r.stop, true);
	pthread_join(racer, NULL);
	/*
	 * A busy machine may have left the racer asleep through the loop: one
	 * last connect with the address at BAD, so that without a cage
	 * something always arrives there (the control), and with one nothing.
	 */
	memcpy(&r.addr, &r.bad, r.len);
	int fd = socket(r.good.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0 && (connect(fd, (struct sockaddr *)&r.addr, r.len) == 0 || errno == EINPROGRESS))
		made++;
	if (fd >= 0)
		close(fd);
	printf("%ld connects of %ld went out\n", made, n + 1);
	return made > 0 ? PROBE_DID_IT : PROBE_REFUSED;
}

/* ---- sendmsg-swap ------------------------------------------------------- */

struct swap {
	int slot, unix_end, udp;
	atomic_bool stop;
	atomic_uint swaps;
};

static void *swap_descriptors(void *arg)
{
	struct swap *w = arg;
	for (unsigned i = 0; !atomic_load(&w->stop); i++) {
		(void)dup2(i % 2 ? w->udp : w->unix_end, w->slot);
		atomic_store(&w->swaps, i + 1);
	}
	return NULL;
}

/*
 * sendmsg-swap ADDR PORT N: N datagrams to ADDR:PORT through one
 * descriptor number that another thread makes, without end, a socketpair's
 * end (whose sends a broker might let the kernel perform) and a UDP socket.
 * The receiver at ADDR:PORT judges.
 */
int do_sendmsg_swap(char **args)
{
	static struct swap w;
	struct sockaddr_storage ss;
	long port, n;
	int pair[2];
	socklen_t len = parse_int(args[1], &port) && parse_int(args[2], &n)
			    ? address_of(args[0], port, &ss)
			    : 0;
	if (!len)
		return usage_error("wants ADDR PORT N, got", args[0]);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
		return failed(REFUSE_SOCKET, "socketpair", args[0]);
	w.unix_end = pair[0];
	w.udp = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (w.udp < 0)
		return failed(REFUSE_SOCKET, "socket", args[0]);
	w.slot = dup(pair[0]);
	pthread_t swapper;
	if (w.slot < 0 || pthread_create(&swapper, NULL, swap_descriptors, &w) != 0)
		return usage_error("no descriptor or thread:", strerror(errno));
	while (atomic_load(&w.swaps) < 2)
		sched_yield();
	long sent = 0;
	for (long i = 0; i < n; i++) {
		struct iovec iov = { "x", 1 };
		struct msghdr m = { .msg_name = &ss, .msg_namelen = len, .msg_iov = &iov,
				    .msg_iovlen = 1 };
		if (sendmsg(w.slot, &m, MSG_DONTWAIT) == 1)
			sent++;
		if (i % 16 == 0)
			sched_yield(); /* let the swapper interleave */
	}
	atomic_store(&w.stop, true);
	pthread_join(swapper, NULL);
	/* As in connect-race: one last send with the UDP socket in place. */
	struct iovec iov = { "x", 1 };
	struct msghdr m = { .msg_name = &ss, .msg_namelen = len, .msg_iov = &iov, .msg_iovlen = 1 };
	if (dup2(w.udp, w.slot) >= 0 && sendmsg(w.slot, &m, MSG_DONTWAIT) == 1)
		sent++;
	printf("%ld sends of %ld succeeded\n", sent, n + 1);
	return sent > 0 ? PROBE_DID_IT : PROBE_REFUSED;
}

/* env-to-file NAME PATH: write $NAME into PATH (a run's proxy URL, for the test outside). */
int do_env_to_file(char **args)
{
	const char *v = getenv(args[0]);
	if (!v)
		return usage_error("not in the environment:", args[0]);
	int fd = open(args[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[1]);
	int rc = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? PROBE_DID_IT
							      : failed(REFUSE_FILE, "write", args[1]);
	close(fd);
	return rc;
}
