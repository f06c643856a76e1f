/* The probe's actions: Unix sockets by path through the broker. */
#include "probe.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

struct unix_race {
	struct sockaddr_un addr; /* what connect reads, flipped by the racer */
	struct sockaddr_un good, bad;
	atomic_bool stop;
	atomic_uint flips;
};

static void *unix_flip(void *arg)
{
	struct unix_race *r = arg;
	for (unsigned i = 0; !atomic_load(&r->stop); i++) {
		memcpy(&r->addr, i % 2 ? &r->good : &r->bad, sizeof r->addr);
		atomic_store(&r->flips, i + 1);
	}
	return NULL;
}

static bool unix_connect_once(const struct sockaddr_un *a)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	bool made = connect(fd, (const struct sockaddr *)a, sizeof *a) == 0 || errno == EINPROGRESS;
	close(fd);
	return made;
}

/*
 * connect-unix-race GOOD BAD N: N connects to a Unix address another
 * thread rewrites between the paths GOOD and BAD without end (the whole
 * sockaddr_un passed, so that both fit one length), then one to BAD.
 * Prints how many succeeded; the listener at BAD judges.
 */
int do_connect_unix_race(char **args)
{
	static struct unix_race r;
	long n;
	if (!parse_int(args[2], &n) || !unix_address(&r.good, args[0], false) ||
	    !unix_address(&r.bad, args[1], false))
		return usage_error("wants GOOD BAD N, got", args[0]);
	memcpy(&r.addr, &r.good, sizeof r.addr);
	pthread_t racer;
	if (pthread_create(&racer, NULL, unix_flip, &r) != 0)
		return usage_error("no thread:", strerror(errno));
	/* The connects start once the racer runs: a busy machine may start it late. */
	while (atomic_load(&r.flips) < 2)
		sched_yield();
	long made = 0;
	for (long i = 0; i < n; i++) {
		made += unix_connect_once(&r.addr);
		if (i % 16 == 0)
			sched_yield();
	}
	atomic_store(&r.stop, true);
	pthread_join(racer, NULL);
	/* As in connect-race: one last connect with BAD in place, for the control. */
	made += unix_connect_once(&r.bad);
	printf("%ld connects of %ld went out\n", made, n + 1);
	return made > 0 ? PROBE_DID_IT : PROBE_REFUSED;
}

/*
 * connect-unix-opath PATH: open PATH as O_PATH and connect to
 * /proc/self/fd/N of that descriptor (the kernel follows the magic link).
 */
int do_connect_unix_opath(char **args)
{
	int fd = open(args[0], O_PATH | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_CONNECT, "open O_PATH", args[0]);
	char path[64];
	struct sockaddr_un a;
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	socklen_t len = unix_address(&a, path, false);
	int rc = connect_to(AF_UNIX, &a, len, path);
	close(fd);
	return rc;
}

/* unix-dgram-send PATH: one datagram to the Unix datagram socket at PATH (sendto). */
/*
 * unix-dgram-send: sendto. unix-dgram-handover: sendmsg with the flags of
 * the cage's own listener hand-over (MSG_NOSIGNAL | MSG_PROBE), which Unix
 * sockets ignore.
 */
int do_unix_dgram_send(char **args)
{
	struct sockaddr_un a;
	socklen_t len = unix_address(&a, args[0], false);
	if (!len)
		return usage_error("socket path too long:", args[0]);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_CONNECT, "socket", args[0]);
	bool handover = strcmp(action_name, "unix-dgram-handover") == 0;
	struct iovec iov = {"x", 1};
	struct msghdr mh = {.msg_name = &a, .msg_namelen = len, .msg_iov = &iov, .msg_iovlen = 1};
	ssize_t sent = handover ? sendmsg(fd, &mh, MSG_NOSIGNAL | 0x10 /* MSG_PROBE */)
				: sendto(fd, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&a, len);
	int rc = sent == 1 ? PROBE_DID_IT
			   : failed(REFUSE_CONNECT, handover ? "sendmsg" : "sendto", args[0]);
	close(fd);
	return rc;
}

/* The descriptor one SCM_RIGHTS message on fd carries, or -1 (waits up to 10 s). */
static int fd_received(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	if (poll(&p, 1, 10000) != 1)
		return -1;
	char byte;
	struct iovec iov = {&byte, 1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf, .msg_controllen = sizeof c.buf};
	if (recvmsg(fd, &mh, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
	if (!h || h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
		return -1;
	int got;
	memcpy(&got, CMSG_DATA(h), sizeof got);
	return got;
}

/*
 * handed-abstract PATH NAME connect|bind|tcp: connect to the Unix socket
 * at PATH, take the socket its service hands over (SCM_RIGHTS: made in
 * the service's network namespace), then connect it to @NAME, or bind it
 * there (a name the host's programs would then reach); tcp: connect it
 * (a TCP socket then) to 127.0.0.1, port NAME.
 */
int do_handed_abstract(char **args)
{
	struct sockaddr_un a, b;
	socklen_t len = unix_address(&a, args[0], false);
	socklen_t abstract_len = unix_address(&b, args[1], true);
	bool bind_it = strcmp(args[2], "bind") == 0, tcp = strcmp(args[2], "tcp") == 0;
	long port = 0;
	if (!len || !abstract_len || (!bind_it && !tcp && strcmp(args[2], "connect") != 0) ||
	    (tcp && (!parse_int(args[1], &port) || port <= 0 || port > 65535)))
		return usage_error("wants PATH NAME connect|bind, or PATH PORT tcp, got", args[2]);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, len) != 0)
		return failed(REFUSE_CONNECT, "connect", args[0]);
	int handed = fd_received(s);
	close(s);
	if (handed < 0)
		return usage_error("no socket handed over at", args[0]);
	struct sockaddr_in in = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int rc = tcp	   ? connect(handed, (struct sockaddr *)&in, sizeof in)
		 : bind_it ? bind(handed, (struct sockaddr *)&b, abstract_len)
			   : connect(handed, (struct sockaddr *)&b, abstract_len);
	rc = rc == 0 ? PROBE_DID_IT : failed(REFUSE_CONNECT, bind_it ? "bind" : "connect", args[1]);
	close(handed);
	return rc;
}

/*
 * record-big N: one record of N bytes through a SOCK_SEQPACKET pair with
 * sendmsg (which the network broker carries where it judges sends).
 * Records keep their boundaries: it must arrive whole, or the send be
 * refused whole (EMSGSIZE); a shorter record arriving is an error.
 */
int do_record_big(char **args)
{
	long n;
	if (!parse_int(args[0], &n) || n <= 0 || n > (1L << 20))
		return usage_error("wants a size up to 1 MiB, got", args[0]);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return failed(REFUSE_SOCKET, "socketpair", "SOCK_SEQPACKET");
	int size = 4 << 20;
	(void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
	(void)setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	char *buf = calloc(1, (size_t)n + 1);
	if (!buf)
		return usage_error("out of memory for", args[0]);
	memset(buf, 'r', (size_t)n);
	struct iovec iov = {buf, (size_t)n};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t sent = sendmsg(sv[0], &mh, MSG_DONTWAIT);
	int rc;
	if (sent < 0 && errno == EMSGSIZE) {
		printf("refused whole (EMSGSIZE)\n");
		rc = PROBE_DID_IT;
	} else if (sent != n) {
		printf("sendmsg sent %zd of %ld bytes (%s)\n", sent, n, sent < 0 ? strerror(errno) : "short");
		rc = PROBE_ERROR;
	} else {
		ssize_t got = recv(sv[1], buf, (size_t)n + 1, MSG_DONTWAIT | MSG_TRUNC);
		printf("a record of %zd bytes arrived for %ld sent\n", got, n);
		rc = got == n ? PROBE_DID_IT : PROBE_ERROR;
	}
	free(buf);
	close(sv[0]);
	close(sv[1]);
	return rc;
}
