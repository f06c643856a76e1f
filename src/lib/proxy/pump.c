/*
 * Moving bytes one way between two non-blocking sockets. See pump.h.
 */
#include "pump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * The pipe starts at the kernel's default size and grows, once the pump has
 * moved PUMP_BULK_AFTER bytes, to 1 MiB (the default pipe-max-size):
 * a bulk transfer then costs the proxy a quarter of the splices and wake-ups
 * it did at 256 KiB, which measured about a fifth less of the proxy's time
 * (bench/README.md), while the many short connections of a run never hold
 * more than a default pipe against the user's pipe-user-pages limits. Where
 * the kernel refuses 1 MiB, 256 KiB is tried, and where that is refused too
 * the pipe stays as it is: slower, no less correct.
 */
#define PUMP_PIPE_BULK (1024 * 1024)
#define PUMP_PIPE_FALLBACK (256 * 1024)
#define PUMP_BULK_AFTER (256 * 1024)
#define PUMP_BUF_SIZE (64 * 1024)

int pump_init(struct pump *pump, int src, int dst, const char *prefix, size_t prefix_len,
	      bool no_splice)
{
	memset(pump, 0, sizeof *pump);
	pump->src = src;
	pump->dst = dst;
	pump->pipe[0] = pump->pipe[1] = -1;
	if (prefix_len) {
		pump->prefix = malloc(prefix_len);
		if (!pump->prefix)
			return -ENOMEM;
		memcpy(pump->prefix, prefix, prefix_len);
		pump->prefix_len = prefix_len;
	}
	if (!no_splice && pipe2(pump->pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
		int size = fcntl(pump->pipe[0], F_GETPIPE_SZ);
		pump->pipe_size = size > 0 ? (size_t)size : 4096;
		return 0;
	}
	pump->pipe[0] = pump->pipe[1] = -1;
	pump->buf = malloc(PUMP_BUF_SIZE);
	if (!pump->buf) {
		pump_free(pump);
		return -ENOMEM;
	}
	return 0;
}

void pump_free(struct pump *pump)
{
	if (pump->pipe[0] >= 0)
		close(pump->pipe[0]);
	if (pump->pipe[1] >= 0)
		close(pump->pipe[1]);
	pump->pipe[0] = pump->pipe[1] = -1;
	free(pump->buf);
	free(pump->prefix);
	pump->buf = pump->prefix = NULL;
}

static bool would_block(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK;
}

void pump_limit(struct pump *pump, uint64_t left)
{
	pump->limited = true;
	pump->src_left = left;
}

/* The transfer is a bulk one: worth a bigger pipe. */
static void pipe_grow(struct pump *pump)
{
	int size = fcntl(pump->pipe[0], F_SETPIPE_SZ, PUMP_PIPE_BULK);
	if (size < 0)
		size = fcntl(pump->pipe[0], F_SETPIPE_SZ, PUMP_PIPE_FALLBACK);
	if (size > 0)
		pump->pipe_size = (size_t)size;
	pump->pipe_grown = true; /* tried once: a refusal now is a refusal later */
}

/* Fill the pipe or buffer from the source: bytes, 0 at EOF, -1 with errno.
 * The pipe is empty here (everything pending was delivered first). */
static ssize_t take_in(struct pump *pump)
{
	if (pump->pipe[1] >= 0 && !pump->pipe_grown && pump->moved >= PUMP_BULK_AFTER)
		pipe_grow(pump);
	size_t want = pump->pipe[1] >= 0 ? pump->pipe_size : PUMP_BUF_SIZE;
	ssize_t n;
	if (pump->limited && pump->src_left < want)
		want = (size_t)pump->src_left;
	if (pump->pipe[1] >= 0) {
		n = splice(pump->src, NULL, pump->pipe[1], NULL, want,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	} else {
		pump->buf_off = 0;
		n = recv(pump->src, pump->buf, want, 0);
	}
	if (n > 0 && pump->limited)
		pump->src_left -= (uint64_t)n;
	return n;
}

/* Drain the pipe or buffer to the destination; MSG_NOSIGNAL spares the
 * supervising process a SIGPIPE (the proxy thread blocks it for splice). */
static ssize_t give_out(struct pump *pump)
{
	if (pump->pipe[0] >= 0)
		return splice(pump->pipe[0], NULL, pump->dst, NULL, pump->pending,
			      SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	return send(pump->dst, pump->buf + pump->buf_off, pump->pending, MSG_NOSIGNAL);
}

static enum pump_state fail(struct pump *pump, int error, bool writing)
{
	pump->error = error;
	pump->write_failed = writing;
	return PUMP_FAILED;
}

/* The source ended and all is delivered: pass the half-close on. */
static enum pump_state finish(struct pump *pump)
{
	if (!pump->dst_shut) {
		pump->dst_shut = true;
		/* ENOTCONN: the peer is gone already, which is an end as well. */
		if (shutdown(pump->dst, SHUT_WR) < 0 && errno != ENOTCONN)
			return fail(pump, errno, true);
	}
	return PUMP_DONE;
}

enum pump_state pump_run(struct pump *pump, unsigned budget)
{
	ssize_t n;

	for (unsigned round = 0; round < budget; round++) {
		if (pump->prefix_off < pump->prefix_len) {
			n = send(pump->dst, pump->prefix + pump->prefix_off,
				 pump->prefix_len - pump->prefix_off, MSG_NOSIGNAL);
			if (n < 0)
				return would_block() ? PUMP_WANT_WRITE : fail(pump, errno, true);
			pump->prefix_off += (size_t)n;
			continue;
		}
		if (pump->pending > 0) {
			n = give_out(pump);
			if (n < 0)
				return would_block() ? PUMP_WANT_WRITE : fail(pump, errno, true);
			pump->pending -= (size_t)n;
			pump->buf_off += (size_t)n;
			pump->moved += (uint64_t)n;
			continue;
		}
		if (pump->src_eof)
			return finish(pump);
		/*
		 * The limit reached: what the source sends after it is never
		 * passed on. Its end is (a FIN, as usual); a byte more fails the
		 * pump, which ends the connection; until then the source is
		 * watched, so that a client that hangs up is seen.
		 */
		if (pump->limited && pump->src_left == 0) {
			char more;
			n = recv(pump->src, &more, 1, MSG_PEEK | MSG_DONTWAIT);
			if (n < 0)
				return would_block() ? PUMP_WANT_READ : fail(pump, errno, false);
			if (n > 0)
				return fail(pump, EPROTO, false);
			pump->src_eof = true;
			continue;
		}
		n = take_in(pump);
		if (n < 0)
			return would_block() ? PUMP_WANT_READ : fail(pump, errno, false);
		if (n == 0)
			pump->src_eof = true;
		pump->pending = (size_t)n;
	}
	/* Out of budget, not out of work: level-triggered epoll reports the
	 * same readiness again after the other connections had their turn. */
	return pump->pending > 0 || pump->prefix_off < pump->prefix_len ? PUMP_WANT_WRITE
									: PUMP_WANT_READ;
}
