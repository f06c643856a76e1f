/*
 * The probe's action against the supervisor's availability.
 *
 * broker-stall MODE ADDR PORT: with MODE "hostile", four threads send
 * (sendmsg, blocking, passing a descriptor) into a Unix stream whose
 * buffer is full and never read, a fifth connects again and again to a
 * listener of its own whose backlog is full, and a sixth flips both
 * sockets' O_NONBLOCK and sets their send timeout to none, all the while:
 * the calls a loopback cage's broker performs on tier T2, on a shared
 * open file whose flags the cage changes between the broker's steps.
 * Meanwhile (MODE "quiet": the same without those threads) the main
 * thread makes rounds of the calls such a broker performs (a bind, a
 * datagram to an address, a TCP connect), each checked to have arrived,
 * timing the slowest; then sends one datagram to ADDR:PORT, another
 * address of the host the test listens on (refused in a loopback cage).
 * It prints "answered N of M rounds, slowest T ms" and returns at once,
 * its hostile threads still in their calls.
 */
#include "probe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/time.h>
#include <time.h>

#define STALL_ROUNDS 50
#define STALL_SENDERS 4
/* A failure bound on one round's arrivals, never waited out when all goes well. */
#define STALL_ARRIVAL_MS 5000

static int stall_full = -1, stall_kept = -1;
static atomic_int stall_connecting = -1;
static atomic_long stall_flips;
static struct sockaddr_in stall_backlog;

static long long stall_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static void flip(int fd)
{
	struct timeval none = {0, 0};
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl ^ O_NONBLOCK);
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
}

static void *stall_flipper(void *arg)
{
	for (;;) {
		flip(stall_full);
		int c = atomic_load(&stall_connecting);
		if (c >= 0)
			flip(c);
		atomic_fetch_add(&stall_flips, 1);
	}
	return arg;
}

/* Blocking sends, each passing the unread end itself, into the full stream. */
static void *stall_sender(void *arg)
{
	char byte = 'x';
	for (;;) {
		struct iovec iov = {&byte, 1};
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} control;
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = control.buf,
				   .msg_controllen = sizeof control.buf};
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &stall_kept, sizeof(int));
		(void)sendmsg(stall_full, &m, MSG_NOSIGNAL);
	}
	return arg;
}

/* Blocking connects to a listener that never accepts, its backlog full. */
static void *stall_connector(void *arg)
{
	for (;;) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			continue;
		atomic_store(&stall_connecting, s);
		(void)connect(s, (struct sockaddr *)&stall_backlog, sizeof stall_backlog);
		atomic_store(&stall_connecting, -1);
		close(s);
	}
	return arg;
}

/* A socket of type bound on 127.0.0.1, port picked, its address in a; or -1. */
static int stall_bound(int type, struct sockaddr_in *a)
{
	socklen_t len = sizeof *a;
	*a = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof *a) != 0 ||
	    getsockname(fd, (struct sockaddr *)a, &len) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static bool stall_hostile_start(void)
{
	int sv[2];
	char fill[4096] = {0};
	pthread_t t;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return false;
	stall_full = sv[0];
	stall_kept = sv[1];
	(void)fcntl(stall_full, F_SETFL, O_NONBLOCK);
	while (write(stall_full, fill, sizeof fill) > 0)
		;
	(void)fcntl(stall_full, F_SETFL, 0);
	int l = stall_bound(SOCK_STREAM, &stall_backlog);
	if (l < 0 || listen(l, 0) != 0)
		return false;
	/* Fill its backlog: connections nobody accepts. */
	for (int i = 0; i < 4; i++) {
		int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c >= 0)
			(void)connect(c, (struct sockaddr *)&stall_backlog, sizeof stall_backlog);
	}
	for (int i = 0; i < STALL_SENDERS; i++)
		if (pthread_create(&t, NULL, stall_sender, NULL) != 0)
			return false;
	if (pthread_create(&t, NULL, stall_connector, NULL) != 0 ||
	    pthread_create(&t, NULL, stall_flipper, NULL) != 0)
		return false;
	/* Under way: the flipper has been at it a while. */
	while (atomic_load(&stall_flips) < 100000)
		sched_yield();
	return true;
}

static bool stall_arrived(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	return poll(&p, 1, STALL_ARRIVAL_MS) == 1;
}

/* One round of the calls a T2 loopback broker performs, each checked. */
static bool stall_round(int listener, const struct sockaddr_in *at)
{
	struct sockaddr_in self;
	char got[2];
	bool ok = false;
	int u = stall_bound(SOCK_DGRAM, &self);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (u >= 0 && sendto(u, "r", 1, 0, (struct sockaddr *)&self, sizeof self) == 1 &&
	    stall_arrived(u) && recv(u, got, sizeof got, MSG_DONTWAIT) == 1 && c >= 0 &&
	    connect(c, (const struct sockaddr *)at, sizeof *at) == 0 && stall_arrived(listener)) {
		int a = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
		ok = a >= 0;
		if (a >= 0)
			close(a);
	}
	if (u >= 0)
		close(u);
	if (c >= 0)
		close(c);
	return ok;
}

int do_broker_stall(char **args)
{
	bool hostile = strcmp(args[0], "hostile") == 0;
	if (!hostile && strcmp(args[0], "quiet") != 0)
		return usage_error("not hostile or quiet:", args[0]);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(args[2]))};
	if (inet_pton(AF_INET, args[1], &to.sin_addr) != 1)
		return usage_error("not an IPv4 address:", args[1]);
	struct sockaddr_in at;
	int listener = stall_bound(SOCK_STREAM, &at);
	if (listener < 0 || listen(listener, 64) != 0)
		return failed(REFUSE_CONNECT, "listen", "127.0.0.1");
	if (hostile && !stall_hostile_start())
		return failed(REFUSE_CONNECT, "the hostile threads' start", "");
	int answered = 0;
	long long slowest = 0;
	for (int i = 0; i < STALL_ROUNDS; i++) {
		long long start = stall_ms();
		answered += stall_round(listener, &at);
		if (stall_ms() - start > slowest)
			slowest = stall_ms() - start;
	}
	printf("answered %d of %d rounds, slowest %lld ms\n", answered, STALL_ROUNDS, slowest);
	fflush(stdout);
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u < 0 || sendto(u, "elsewhere", 9, 0, (struct sockaddr *)&to, sizeof to) != 9)
		return failed(REFUSE_CONNECT, "sendto", args[1]);
	printf("sent a datagram to %s:%s\n", args[1], args[2]);
	return PROBE_DID_IT;
}
