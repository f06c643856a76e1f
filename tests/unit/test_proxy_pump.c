/*
 * One pump between two loopback TCP connections, driven by poll as the
 * proxy's loop drives it: a bulk transfer grows the pipe to 1 MiB (or to
 * what the kernel allows) and arrives whole and in order; a short one
 * keeps the default pipe; the copying pump, without a pipe, moves the same;
 * and both do to a local hop (proxy/local_hop.h), whose socket reports room
 * only while little of what it holds is unsent.
 *
 * The reader runs on a thread of its own and the pump waits on exactly what
 * it asks for (poll on its source or destination), so nothing waits a
 * fixed time.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "listeners.h"
#include "proxy/local_hop.h"
#include "proxy/pump.h"
#include "tap.h"

static void nonblocking(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static uint8_t pattern(uint64_t i)
{
	return (uint8_t)(i * 131 + (i >> 13));
}

struct writer {
	int fd;
	uint64_t bytes;
	bool ok;
};

/* Write the pattern, then close: the pump sees the end and passes it on. */
static void *writer_main(void *arg)
{
	struct writer *w = arg;
	static uint8_t chunk[1 << 16];
	uint64_t at = 0;
	w->ok = true;
	while (at < w->bytes) {
		size_t n = w->bytes - at < sizeof chunk ? (size_t)(w->bytes - at) : sizeof chunk;
		for (size_t i = 0; i < n; i++)
			chunk[i] = pattern(at + i);
		for (size_t off = 0; off < n;) {
			ssize_t k = send(w->fd, chunk + off, n - off, MSG_NOSIGNAL);
			if (k <= 0) {
				w->ok = false;
				goto out;
			}
			off += (size_t)k;
		}
		at += n;
	}
out:
	close(w->fd);
	return NULL;
}

struct reader {
	int fd;
	uint64_t got;
	bool in_order;
	bool eof;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	static uint8_t buf[1 << 16];
	r->in_order = true;
	for (;;) {
		ssize_t n = recv(r->fd, buf, sizeof buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r->eof = n == 0;
			return NULL;
		}
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != pattern(r->got + (uint64_t)i))
				r->in_order = false;
		r->got += (uint64_t)n;
	}
}

struct result {
	bool ran;
	enum pump_state end;
	size_t pipe_size, first_pipe_size;
	bool spliced;
	struct reader r;
	bool written;
};

/* bytes from a writer, through a pump, to a reader; local: the pump's
 * destination made a local hop as the proxy makes its client's side, so
 * that it reports room only while little is left unsent. */
static struct result transfer(uint64_t bytes, bool no_splice, bool local)
{
	struct result res = { 0 };
	int in[2], out[2];
	if (!tcp_pair(AF_INET, "127.0.0.1", "127.0.0.1", in))
		return res;
	if (!tcp_pair(AF_INET, "127.0.0.1", "127.0.0.1", out)) {
		close(in[0]);
		close(in[1]);
		return res;
	}
	struct writer w = { .fd = in[0], .bytes = bytes };
	res.r = (struct reader){ .fd = out[1] };
	struct pump p;
	nonblocking(in[1]);
	nonblocking(out[0]);
	if (local)
		local_hop_tune(out[0]);
	pthread_t wt, rt;
	if (pump_init(&p, in[1], out[0], NULL, 0, no_splice) != 0 ||
	    pthread_create(&wt, NULL, writer_main, &w) != 0)
		return res;
	if (pthread_create(&rt, NULL, reader_main, &res.r) != 0) {
		pthread_join(wt, NULL);
		return res;
	}
	res.spliced = p.pipe[0] >= 0;
	res.first_pipe_size = p.pipe_size;
	enum pump_state st = PUMP_WANT_READ;
	while (st == PUMP_WANT_READ || st == PUMP_WANT_WRITE) {
		struct pollfd pf = { st == PUMP_WANT_READ ? in[1] : out[0],
				     st == PUMP_WANT_READ ? POLLIN : POLLOUT, 0 };
		if (poll(&pf, 1, -1) < 0 && errno != EINTR)
			break;
		st = pump_run(&p, 8);
	}
	res.end = st;
	res.pipe_size = p.pipe_size;
	pthread_join(wt, NULL);
	pthread_join(rt, NULL);
	res.written = w.ok;
	res.ran = true;
	pump_free(&p);
	close(in[1]);
	close(out[0]);
	close(out[1]);
	return res;
}

/* What this process may grow a pipe to now, as the pump tries: 1 MiB, else
 * 256 KiB, else 0 (pipe-max-size or the user's pipe-user-pages limits). */
static size_t pipe_allowed(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return 0;
	int size = fcntl(p[0], F_SETPIPE_SZ, 1 << 20);
	if (size < 0)
		size = fcntl(p[0], F_SETPIPE_SZ, 256 << 10);
	close(p[0]);
	close(p[1]);
	return size > 0 ? (size_t)size : 0;
}

int main(void)
{
	const uint64_t bulk = 16u << 20, small = 100u << 10;
	struct result r = transfer(bulk, false, false);

	tap_ok(r.ran && r.spliced, "a pump between TCP sockets splices");
	tap_ok(r.end == PUMP_DONE && r.written && r.r.eof && r.r.got == bulk && r.r.in_order,
	       "16 MiB arrive whole and in order, and the end is passed on (%llu bytes)",
	       (unsigned long long)r.r.got);
	size_t want = pipe_allowed();
	if (want > r.first_pipe_size) {
		tap_ok(r.pipe_size == want, "a bulk transfer grows the pipe from %zu to %zu bytes (%zu)",
		       r.first_pipe_size, want, r.pipe_size);
	} else {
		tap_skip("the kernel lets this user grow no pipe past %zu bytes (pipe-max-size, "
			 "pipe-user-pages): the growth is not tried",
			 r.first_pipe_size);
	}

	r = transfer(small, false, false);
	tap_ok(r.end == PUMP_DONE && r.r.got == small && r.r.in_order,
	       "100 KiB arrive whole and in order");
	tap_ok(r.pipe_size == r.first_pipe_size,
	       "a short transfer keeps the default pipe (%zu bytes)", r.pipe_size);

	r = transfer(bulk, true, false);
	tap_ok(r.ran && !r.spliced && r.end == PUMP_DONE && r.r.got == bulk && r.r.in_order &&
		       r.r.eof,
	       "copying, without a pipe, 16 MiB arrive whole and in order");

	r = transfer(bulk, false, true);
	tap_ok(r.ran && r.end == PUMP_DONE && r.r.got == bulk && r.r.in_order && r.r.eof,
	       "to a local hop (little unsent), 16 MiB arrive whole and in order (%llu bytes)",
	       (unsigned long long)r.r.got);
	r = transfer(bulk, true, true);
	tap_ok(r.ran && r.end == PUMP_DONE && r.r.got == bulk && r.r.in_order && r.r.eof,
	       "copying to a local hop, the same");
	return tap_done();
}
