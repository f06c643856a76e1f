/*
 * The relay of published ports: one thread per run accepts on the host's
 * listeners and asks the reaper for a socket of the run's namespace per
 * connection; one thread per connection connects that socket to the
 * run's listener and copies bytes both ways until either side is done.
 * A connection the run refuses (nothing listens yet) is closed at once,
 * as the host would close it. Stopping writes an eventfd every thread
 * polls, then joins them all: nothing is left when the run is gone.
 */
#include "publish.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/error.h"
#include "reaper.h"
#include "policy/policy.h"

/* The most connections relayed at once; one more is closed when accepted. */
#define PUBLISH_MAX_CONNECTIONS 64
#define PUBLISH_BUFFER 16384

struct publish_conn {
	struct publish_relay *relay;
	pthread_t thread;
	int host; /* accepted on the host's listener */
	int run;  /* the reaper's socket, connected into the run */
	uint16_t port;
	bool used, done;
};

struct publish_relay {
	int listeners[POLICY_PUBLISH_MAX];
	uint16_t ports[POLICY_PUBLISH_MAX];
	size_t n;
	int factory;
	int stop; /* eventfd: readable once the relay stops */
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	struct publish_conn conns[PUBLISH_MAX_CONNECTIONS];
};

int publish_listen(const uint16_t *ports, size_t n, struct publish_relay **out,
		   struct procage_error *err)
{
	struct publish_relay *r = calloc(1, sizeof *r);
	*out = NULL;
	if (!r)
		return error_set(err, -ENOMEM, "out of memory");
	r->factory = -1;
	pthread_mutex_init(&r->lock, NULL);
	r->stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->stop < 0) {
		int rc = error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "publishing ports");
		publish_stop(r);
		return rc;
	}
	for (; r->n < n; r->n++) {
		struct sockaddr_in a = {.sin_family = AF_INET,
					.sin_port = htons(ports[r->n]),
					.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		/* Reuse lets a port left in TIME_WAIT by the last run be bound; a listener still
		 * refuses it. */
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
		    bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			int rc = error_set_sys(err, e, PROCAGE_STEP_PREPARE,
					       "publishing port %u: listening on the host's "
					       "127.0.0.1:%u%s",
					       (unsigned)ports[r->n], (unsigned)ports[r->n],
					       e == EADDRINUSE ? " (another program listens there; "
								 "publish another port)"
							       : "");
			publish_stop(r);
			return rc;
		}
		r->listeners[r->n] = fd;
		r->ports[r->n] = ports[r->n];
	}
	*out = r;
	return 0;
}

/* Ask the reaper for a socket of the run's namespace: the descriptor, or a negative errno. */
static int socket_request(struct publish_relay *r)
{
	struct reaper_message m = {REAPER_PUBLISH_SOCKET, 0};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = {&m, sizeof m};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (send(r->factory, &m, sizeof m, MSG_NOSIGNAL) != (ssize_t)sizeof m)
		return -errno;
	struct pollfd p[2] = {{r->factory, POLLIN, 0}, {r->stop, POLLIN, 0}};
	while (poll(p, 2, -1) < 0)
		if (errno != EINTR)
			return -errno;
	if (p[1].revents)
		return -ECANCELED;
	mh.msg_control = control.buf;
	mh.msg_controllen = sizeof control.buf;
	ssize_t n = recvmsg(r->factory, &mh, MSG_CMSG_CLOEXEC);
	if (n != (ssize_t)sizeof m)
		return n == 0 ? -EPIPE : -EIO;
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	int fd = -1;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd >= 0 ? fd : (m.value < 0 ? m.value : -EIO);
}

/* Connect s to 127.0.0.1:port in the run's namespace, giving up when the relay stops. */
static int run_connect(struct publish_relay *r, int s, uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int e = 0;
	socklen_t len = sizeof e;
	if (fcntl(s, F_SETFL, O_NONBLOCK) != 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&a, sizeof a) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	struct pollfd p[2] = {{s, POLLOUT, 0}, {r->stop, POLLIN, 0}};
	while (poll(p, 2, -1) < 0)
		if (errno != EINTR)
			return -errno;
	if (p[1].revents)
		return -ECANCELED;
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
		return -errno;
	return -e;
}

/* One direction's bytes in flight. */
struct flow {
	int from, to;
	char buf[PUBLISH_BUFFER];
	size_t len, off;
	bool eof; /* from has ended, and what it sent is delivered: to was shut down */
};

/* Move what can be moved now; false when the connection is over (an error). */
static bool flow_step(struct flow *f)
{
	if (f->len == f->off && !f->eof) {
		ssize_t n = recv(f->from, f->buf, sizeof f->buf, MSG_DONTWAIT);
		if (n == 0) {
			f->eof = true;
			shutdown(f->to, SHUT_WR);
			return true;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		f->len = (size_t)n;
		f->off = 0;
	}
	while (f->off < f->len) {
		ssize_t n =
		    send(f->to, f->buf + f->off, f->len - f->off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		f->off += (size_t)n;
	}
	return true;
}

static void flow_events(const struct flow *f, struct pollfd *from, struct pollfd *to)
{
	if (f->off < f->len)
		to->events |= POLLOUT;
	else if (!f->eof)
		from->events |= POLLIN;
}

static void *conn_main(void *arg)
{
	struct publish_conn *c = arg;
	struct flow *up = malloc(sizeof *up), *down = malloc(sizeof *down);
	if (up && down && run_connect(c->relay, c->run, c->port) == 0) {
		*up = (struct flow){.from = c->host, .to = c->run};
		*down = (struct flow){.from = c->run, .to = c->host};
		while (!(up->eof && down->eof)) {
			struct pollfd p[3] = {
			    {c->host, 0, 0}, {c->run, 0, 0}, {c->relay->stop, POLLIN, 0}};
			flow_events(up, &p[0], &p[1]);
			flow_events(down, &p[1], &p[0]);
			if (poll(p, 3, -1) < 0 && errno != EINTR)
				break;
			if (p[2].revents || !flow_step(up) || !flow_step(down))
				break;
		}
	}
	free(up);
	free(down);
	close(c->host);
	close(c->run);
	pthread_mutex_lock(&c->relay->lock);
	c->done = true;
	pthread_mutex_unlock(&c->relay->lock);
	return NULL;
}

/* Join the connections that are over, freeing their slots; all of them when all. */
static void conns_reap(struct publish_relay *r, bool all)
{
	for (size_t i = 0; i < PUBLISH_MAX_CONNECTIONS; i++) {
		struct publish_conn *c = &r->conns[i];
		pthread_mutex_lock(&r->lock);
		bool join = c->used && (c->done || all);
		pthread_mutex_unlock(&r->lock);
		if (join) {
			pthread_join(c->thread, NULL);
			c->used = c->done = false;
		}
	}
}

/* Hand one accepted connection to a thread of its own, or close it. */
static void conn_begin(struct publish_relay *r, int host, uint16_t port)
{
	struct publish_conn *c = NULL;
	conns_reap(r, false);
	for (size_t i = 0; !c && i < PUBLISH_MAX_CONNECTIONS; i++)
		if (!r->conns[i].used)
			c = &r->conns[i];
	int s = c ? socket_request(r) : -EMFILE;
	if (s < 0) {
		close(host);
		return;
	}
	*c = (struct publish_conn){.relay = r, .host = host, .run = s, .port = port, .used = true};
	if (pthread_create(&c->thread, NULL, conn_main, c) != 0) {
		c->used = false;
		close(host);
		close(s);
	}
}

static void *relay_main(void *arg)
{
	struct publish_relay *r = arg;
	struct pollfd p[POLICY_PUBLISH_MAX + 1];
	for (;;) {
		for (size_t i = 0; i < r->n; i++)
			p[i] = (struct pollfd){r->listeners[i], POLLIN, 0};
		p[r->n] = (struct pollfd){r->stop, POLLIN, 0};
		if (poll(p, r->n + 1, -1) < 0 && errno != EINTR)
			break;
		if (p[r->n].revents)
			break;
		for (size_t i = 0; i < r->n; i++) {
			if (!p[i].revents)
				continue;
			int host =
			    accept4(r->listeners[i], NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (host >= 0)
				conn_begin(r, host, r->ports[i]);
		}
	}
	conns_reap(r, true);
	return NULL;
}

int publish_start(struct publish_relay *r, int factory, struct procage_error *err)
{
	r->factory = factory;
	int e = pthread_create(&r->thread, NULL, relay_main, r);
	if (e != 0)
		return error_set_sys(err, e, PROCAGE_STEP_PREPARE,
				     "starting the relay of published ports");
	r->started = true;
	return 0;
}

void publish_stop(struct publish_relay *r)
{
	if (!r)
		return;
	uint64_t one = 1;
	/* One write to a fresh eventfd cannot fail: it never overflows. */
	if (r->stop >= 0 && write(r->stop, &one, sizeof one) < 0) {
	}
	if (r->started)
		pthread_join(r->thread, NULL);
	for (size_t i = 0; i < r->n; i++)
		close(r->listeners[i]);
	if (r->factory >= 0)
		close(r->factory);
	if (r->stop >= 0)
		close(r->stop);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
