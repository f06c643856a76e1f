/* The run's SSH agent filter: sockets and threads (agent_filter.h, R-53). */
#include "agent_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent_msg.h"
#include "base/error.h"

/* Connections served at once; more wait in the listen queue. */
#define AGENT_MAX_CONNS 32
/* An agent answers at once; a client gets this long between requests. */
#define AGENT_UPSTREAM_TIMEOUT_MS 30000

struct agent_conn {
	struct agent_filter *filter;
	int client, upstream;
	pthread_t thread;
	bool used, done;
	struct agent_conn_state state;
	uint8_t msg[AGENT_MSG_MAX];
};

struct agent_filter {
	int listen_fd, stop_pipe[2];
	struct agent_filter_options opts;
	char upstream[sizeof((struct sockaddr_un *)0)->sun_path];
	pthread_t thread;
	pthread_mutex_t lock;
	bool stopping;
	struct agent_conn *conns[AGENT_MAX_CONNS];
};

/* Read exactly len bytes, waiting at most timeout_ms for each (-1: forever). */
static int read_full(int fd, uint8_t *buf, size_t len, int timeout_ms)
{
	for (size_t got = 0; got < len;) {
		struct pollfd p = {fd, POLLIN, 0};
		int r = poll(&p, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? -ETIMEDOUT : -errno;
		ssize_t n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? -EPIPE : -errno;
		got += (size_t)n;
	}
	return 0;
}

static int write_full(int fd, const uint8_t *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}

/* One framed message into c->msg: its length, or a negative errno. */
static long frame_read(int fd, struct agent_conn *c, int timeout_ms)
{
	uint8_t header[4];
	uint32_t len;
	int rc = read_full(fd, header, 4, timeout_ms);
	if (rc < 0)
		return rc;
	/* Never trusted: an empty or oversized frame ends the connection. */
	if ((rc = agent_frame_length(header, &len)) < 0)
		return rc;
	rc = read_full(fd, c->msg, len, timeout_ms);
	return rc < 0 ? rc : (long)len;
}

static int frame_write(int fd, const uint8_t *msg, size_t len)
{
	uint8_t header[4] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
			     (uint8_t)len};
	int rc = write_full(fd, header, 4);
	return rc < 0 ? rc : write_full(fd, msg, len);
}

static int upstream_connect(struct agent_conn *c)
{
	if (c->upstream >= 0)
		return 0;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	memcpy(a.sun_path, c->filter->upstream, sizeof a.sun_path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	c->upstream = fd;
	return 0;
}

static bool key_known(void *ctx, const uint8_t *blob, size_t len)
{
	return known_keys_has(ctx, blob, len);
}

/* One request: judged, then relayed or answered with a failure. */
static int request_serve(struct agent_conn *c, size_t len)
{
	static const uint8_t failure[1] = {AGENT_FAILURE};
	struct agent_filter *f = c->filter;
	char why[256];
	if (agent_judge(&c->state, c->msg, len, key_known, (void *)f->opts.keys, why, sizeof why) ==
	    AGENT_REFUSE) {
		if (f->opts.report)
			f->opts.report(f->opts.report_ctx, agent_type_name(c->msg[0]), why);
		return frame_write(c->client, failure, 1);
	}
	int rc = upstream_connect(c);
	long answer = rc;
	if (rc == 0 && (rc = frame_write(c->upstream, c->msg, len)) == 0)
		answer = frame_read(c->upstream, c, AGENT_UPSTREAM_TIMEOUT_MS);
	if (rc < 0 || answer < 0) {
		/* The caller's agent is gone or spoke nonsense: a failure, and no bind. */
		c->state.bind_pending = false;
		if (c->upstream >= 0)
			close(c->upstream);
		c->upstream = -1;
		return frame_write(c->client, failure, 1);
	}
	agent_answered(&c->state, c->msg, (size_t)answer);
	return frame_write(c->client, c->msg, (size_t)answer);
}

static void *conn_thread(void *arg)
{
	struct agent_conn *c = arg;
	for (;;) {
		long len = frame_read(c->client, c, -1);
		if (len == -EMSGSIZE && c->filter->opts.report)
			c->filter->opts.report(c->filter->opts.report_ctx, "message",
					       "an empty message or one above 256 KiB (the "
					       "connection is closed)");
		if (len < 0 || request_serve(c, (size_t)len) < 0)
			break;
	}
	pthread_mutex_lock(&c->filter->lock);
	/* The caller's agent sees its connection end with the run's. */
	shutdown(c->client, SHUT_RDWR);
	if (c->upstream >= 0)
		shutdown(c->upstream, SHUT_RDWR);
	c->done = true;
	pthread_mutex_unlock(&c->filter->lock);
	return NULL;
}

/* Join and free the connections that ended (lock held). */
static void conns_reap(struct agent_filter *f, bool all)
{
	for (size_t i = 0; i < AGENT_MAX_CONNS; i++) {
		struct agent_conn *c = f->conns[i];
		if (!c || (!c->done && !all))
			continue;
		shutdown(c->client, SHUT_RDWR);
		if (c->upstream >= 0)
			shutdown(c->upstream, SHUT_RDWR);
		pthread_mutex_unlock(&f->lock);
		pthread_join(c->thread, NULL);
		pthread_mutex_lock(&f->lock);
		close(c->client);
		if (c->upstream >= 0)
			close(c->upstream);
		free(c);
		f->conns[i] = NULL;
	}
}

static void conn_start(struct agent_filter *f, int fd)
{
	pthread_mutex_lock(&f->lock);
	conns_reap(f, false);
	size_t slot = AGENT_MAX_CONNS;
	for (size_t i = 0; i < AGENT_MAX_CONNS && slot == AGENT_MAX_CONNS; i++)
		if (!f->conns[i])
			slot = i;
	struct agent_conn *c = slot < AGENT_MAX_CONNS ? calloc(1, sizeof *c) : NULL;
	if (c) {
		c->filter = f;
		c->client = fd;
		c->upstream = -1;
		if (pthread_create(&c->thread, NULL, conn_thread, c) == 0) {
			f->conns[slot] = c;
			fd = -1;
		} else {
			free(c);
		}
	}
	pthread_mutex_unlock(&f->lock);
	if (fd >= 0)
		close(fd); /* no room: the client sees the agent gone */
}

static void *accept_thread(void *arg)
{
	struct agent_filter *f = arg;
	for (;;) {
		struct pollfd p[2] = {{f->listen_fd, POLLIN, 0}, {f->stop_pipe[0], POLLIN, 0}};
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		int fd = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			conn_start(f, fd);
	}
	return NULL;
}

int agent_filter_start(int listen_fd, const struct agent_filter_options *options,
		       struct agent_filter **out, struct procage_error *err)
{
	*out = NULL;
	struct agent_filter *f = calloc(1, sizeof *f);
	if (!f)
		return error_set(err, -ENOMEM, "starting the ssh agent filter: out of memory");
	if (strlen(options->upstream) >= sizeof f->upstream) {
		free(f);
		return error_set(err, -ENAMETOOLONG,
				 "SSH_AUTH_SOCK %.200s: too long for a socket path",
				 options->upstream);
	}
	snprintf(f->upstream, sizeof f->upstream, "%s", options->upstream);
	f->opts = *options;
	f->opts.upstream = f->upstream;
	f->listen_fd = listen_fd;
	pthread_mutex_init(&f->lock, NULL);
	int flags = fcntl(listen_fd, F_GETFL);
	if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
	    pipe2(f->stop_pipe, O_CLOEXEC) != 0) {
		int e = errno;
		pthread_mutex_destroy(&f->lock);
		free(f);
		return error_set_sys(err, e, PROCAGE_STEP_NONE, "starting the ssh agent filter");
	}
	if (pthread_create(&f->thread, NULL, accept_thread, f) != 0) {
		close(f->stop_pipe[0]);
		close(f->stop_pipe[1]);
		pthread_mutex_destroy(&f->lock);
		free(f);
		return error_set(err, -EAGAIN, "starting the ssh agent filter: no thread");
	}
	*out = f;
	return 0;
}

void agent_filter_stop(struct agent_filter *f)
{
	if (!f)
		return;
	ssize_t w;
	do
		w = write(f->stop_pipe[1], "x", 1);
	while (w < 0 && errno == EINTR);
	pthread_join(f->thread, NULL);
	pthread_mutex_lock(&f->lock);
	conns_reap(f, true);
	pthread_mutex_unlock(&f->lock);
	close(f->stop_pipe[0]);
	close(f->stop_pipe[1]);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
