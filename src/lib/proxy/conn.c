/*
 * One client connection of the proxy, from request head to closed (see
 * proxy.c for the loop that drives it, docs/proxy.md for the rules).
 *
 *   READ_HEAD ─► RESOLVING ─► CONNECTING ─► TUNNEL ─────────────────┐
 *       │            │            │                                 │
 *       └────────────┴────────────┴──► RESPOND (a refusal) ─► LINGER ─┴─► closed
 *
 * (CONN_READ_HEAD and so on in the code.)
 *
 * Each state waits on one fd in one direction (conn_update_events), and an
 * fd nothing waits on is out of the epoll set, so a stalled or half-closed
 * peer produces no events and holds back only its own connection.
 */
#include "conn.h"
#include "local_hop.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define LINGER_MS 1000
#define LINGER_MAX_BYTES (1024 * 1024)
#define PUMP_BUDGET 8

/* ---- closing ------------------------------------------------------------------- */

static void conn_drop_upstream(struct conn *c)
{
	if (c->upstream < 0)
		return;
	proxy_set_events(c->proxy, c->upstream, &c->upstream_events, 0, &c->upstream_tag);
	close(c->upstream);
	c->upstream = -1;
	c->upstream_events = 0;
}

/* Closed now, freed after the current batch of events, which may still
 * hold pointers to it. */
void conn_close(struct conn *c)
{
	struct proxy *p = c->proxy;

	if (c->dead)
		return;
	c->dead = true;
	if (c->job)
		c->job->owner = NULL; /* the answer, when it comes, is thrown away */
	c->job = NULL;
	c->question = NULL; /* the asker owns it */
	proxy_set_events(p, c->client, &c->client_events, 0, &c->client_tag);
	close(c->client);
	conn_drop_upstream(c);
	pump_free(&c->up);
	pump_free(&c->down);
	free(c->head);
	c->head = NULL;
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = p->graveyard;
	p->graveyard = c;
	p->n_conns--;
	proxy_stat_add(&p->stats.active, -1);
	if (!p->stopped && !p->listening && p->n_conns < p->opts.max_connections &&
	    proxy_now_ms() >= p->accept_resume_at)
		proxy_set_listening(p, true);
}

/* ---- refusing -------------------------------------------------------------------- */

static void conn_report(struct conn *c, int status, const char *reason)
{
	struct proxy *p = c->proxy;
	char shown[300], canonical[DEST_AUTHORITY_BUF] = "";
	const char *raw = c->req.host_raw ? c->req.host_raw : "";

	proxy_stat_add(&p->stats.refused, 1);
	if (!p->opts.report)
		return;
	dest_escape(raw, c->req.host_raw_len, shown, sizeof shown);
	if (c->req.dest.kind)
		dest_format_authority(&c->req.dest, canonical, sizeof canonical);
	struct proxy_report r = { .status = status, .reason = reason, .host_raw = raw,
				  .host_raw_len = c->req.host_raw_len, .host = shown,
				  .canonical = canonical };
	p->opts.report(p->opts.report_ctx, &r);
}

/* Answer with a refusal, then close: never a 200 for what is not allowed. */
static void conn_refuse(struct conn *c, int status, const char *reason)
{
	conn_report(c, status, reason);
	if (c->captured) { /* nothing to answer in: the client sees a reset */
		struct linger now = { 1, 0 };
		(void)setsockopt(c->client, SOL_SOCKET, SO_LINGER, &now, sizeof now);
		conn_close(c);
		return;
	}
	conn_drop_upstream(c);
	if (c->job)
		c->job->owner = NULL;
	c->job = NULL;
	c->response_len = http_format_refusal(status, reason, c->response, sizeof c->response);
	c->response_off = 0;
	c->state = CONN_RESPOND;
	c->deadline = proxy_now_ms() + LINGER_MS;
}

static void conn_respond(struct conn *c)
{
	while (c->response_off < c->response_len) {
		ssize_t n = send(c->client, c->response + c->response_off,
				 c->response_len - c->response_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				conn_close(c);
			return;
		}
		c->response_off += (size_t)n;
	}
	/* Closing with unread request bytes would reset the connection and
	 * could destroy the refusal before the client reads it: send FIN,
	 * then read and discard for a short while. */
	shutdown(c->client, SHUT_WR);
	c->state = CONN_LINGER;
}

static void conn_linger(struct conn *c)
{
	char scratch[4096];

	for (int round = 0; round < 16; round++) {
		ssize_t n = recv(c->client, scratch, sizeof scratch, 0);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		c->lingered += n > 0 ? (size_t)n : 0;
		if (n <= 0 || c->lingered > LINGER_MAX_BYTES) {
			conn_close(c);
			return;
		}
	}
}

/* ---- the tunnel ---------------------------------------------------------------- */

static void conn_run_pumps(struct conn *c, bool up, bool down)
{
	struct proxy *p = c->proxy;
	uint64_t up_before = c->up.moved, down_before = c->down.moved;

	if (up && c->up_state != PUMP_DONE)
		c->up_state = pump_run(&c->up, PUMP_BUDGET);
	if (down && c->down_state != PUMP_DONE)
		c->down_state = pump_run(&c->down, PUMP_BUDGET);
	if (c->up.moved != up_before || c->down.moved != down_before) {
		proxy_stat_add(&p->stats.bytes_up, (int64_t)(c->up.moved - up_before));
		proxy_stat_add(&p->stats.bytes_down, (int64_t)(c->down.moved - down_before));
		c->last_activity = proxy_now_ms();
	}
	/* An upstream that stops taking the request (it answered early, say
	 * 413, and closed) may still have an answer on its way back: stop
	 * reading the client and let that answer through. */
	if (c->up_state == PUMP_FAILED && c->up.write_failed && c->down_state != PUMP_FAILED)
		c->up_state = PUMP_DONE;
	if (c->up_state == PUMP_FAILED || c->down_state == PUMP_FAILED ||
	    (c->up_state == PUMP_DONE && c->down_state == PUMP_DONE))
		conn_close(c);
}

/* Run the pump that waits on the fd an event came for. */
static void conn_pump_event(struct conn *c, enum tag_kind side)
{
	bool client = side == TAG_CLIENT;
	bool up = (c->up_state == PUMP_WANT_READ) == client;
	bool down = (c->down_state == PUMP_WANT_WRITE) == client;

	conn_run_pumps(c, up, down);
}

static void conn_start_tunnel(struct conn *c)
{
	struct proxy *p = c->proxy;
	const char *rest = c->head + c->head_end;
	size_t rest_len = c->head_len - c->head_end;
	const char *up_prefix = rest, *down_prefix = http_connect_established;
	size_t up_len = rest_len, down_len = strlen(http_connect_established);
	char *rewritten = NULL;

	if (c->req.kind == HTTP_FORWARD) {
		/* The body, and nothing after it: a pipelined request is never passed on. */
		if (rest_len > c->req.body_len) {
			conn_refuse(c, 400, "a second request in the same connection (pipelining) "
					    "is not forwarded");
			return;
		}
		size_t cap = c->head_end + HTTP_REWRITE_EXTRA + rest_len;
		rewritten = malloc(cap);
		size_t n = rewritten ? http_rewrite_forward(c->head, &c->req, rewritten, cap) : 0;
		if (!n) {
			free(rewritten);
			conn_refuse(c, 503, "cannot rewrite the request");
			return;
		}
		memcpy(rewritten + n, rest, rest_len); /* a body already read goes after */
		up_prefix = rewritten;
		up_len = n + rest_len;
		down_prefix = NULL;
		down_len = 0;
	}
	if (c->captured) {
		down_prefix = NULL;
		down_len = 0;
	}
	local_hop_tune(c->client);
	if (local_hop_is_loopback(c->upstream))
		local_hop_tune(c->upstream);
	int rc = pump_init(&c->up, c->client, c->upstream, up_prefix, up_len, p->opts.no_splice);
	if (rc == 0 && c->req.kind == HTTP_FORWARD)
		pump_limit(&c->up, c->req.body_len - rest_len);
	if (rc == 0)
		rc = pump_init(&c->down, c->upstream, c->client, down_prefix, down_len,
			       p->opts.no_splice);
	free(rewritten);
	if (rc < 0) {
		conn_refuse(c, 503, "out of memory");
		return;
	}
	free(c->head);
	c->head = NULL;
	memset(&c->req, 0, sizeof c->req); /* its spans pointed into the head */
	proxy_stat_add(&p->stats.tunnels, 1);
	c->state = CONN_TUNNEL;
	c->deadline = 0;
	c->last_activity = proxy_now_ms();
	c->up_state = c->down_state = PUMP_WANT_READ;
	conn_run_pumps(c, true, true);
}

/* ---- connecting ------------------------------------------------------------------ */

static const char *connect_error_text(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return "cannot connect to the host: connection refused";
	case ETIMEDOUT:
		return "cannot connect to the host: timed out";
	case ENETUNREACH:
	case EHOSTUNREACH:
		return "cannot connect to the host: unreachable";
	default:
		return "cannot connect to the host";
	}
}

/* Try the checked addresses in order; only these are ever connected to. */
static void conn_connect_next(struct conn *c)
{
	while (c->next_addr < c->n_addrs) {
		const struct dest_addr *a = &c->addrs[c->next_addr++];
		struct sockaddr_storage ss = { 0 };
		socklen_t len;

		if (a->family == AF_INET) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
			sin->sin_family = AF_INET;
			sin->sin_port = htons(c->req.dest.port);
			memcpy(&sin->sin_addr, a->bytes, 4);
			len = sizeof *sin;
		} else {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
			sin6->sin6_family = AF_INET6;
			sin6->sin6_port = htons(c->req.dest.port);
			memcpy(&sin6->sin6_addr, a->bytes, 16);
			len = sizeof *sin6;
		}
		int fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			c->connect_errno = errno;
			continue;
		}
		int one = 1;
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		c->upstream = fd;
		if (connect(fd, (struct sockaddr *)&ss, len) == 0) {
			conn_start_tunnel(c);
			return;
		}
		if (errno == EINPROGRESS) {
			c->state = CONN_CONNECTING;
			c->deadline = proxy_now_ms() + c->proxy->opts.connect_timeout_ms;
			return;
		}
		c->connect_errno = errno;
		conn_drop_upstream(c);
	}
	conn_refuse(c, 502, connect_error_text(c->connect_errno));
}

static void conn_connect_done(struct conn *c)
{
	int e = 0;
	socklen_t len = sizeof e;
	struct sockaddr_storage peer;
	socklen_t peer_len = sizeof peer;

	if (getsockopt(c->upstream, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
		e = errno;
	if (e == 0 && getpeername(c->upstream, (struct sockaddr *)&peer, &peer_len) < 0) {
		if (errno == ENOTCONN)
			return; /* a stale event: this attempt is still under way */
		e = errno;
	}
	if (e == 0) {
		conn_start_tunnel(c);
		return;
	}
	c->connect_errno = e;
	conn_drop_upstream(c);
	conn_connect_next(c);
}

/* ---- routing a request ----------------------------------------------------------- */

/* Every address the name resolved to is checked; one inward is enough to
 * refuse the name, as a name mixing both is a rebinding setup. */
static void conn_check_answer(struct conn *c, const struct resolver_job *job)
{
	const struct allowlist *list = c->proxy->allowlist;

	c->job = NULL;
	if (job->result <= 0) {
		conn_refuse(c, 502, "the host name does not resolve");
		return;
	}
	for (int i = 0; i < job->result; i++) {
		struct dest_addr a = job->addrs[i];
		char text[64];
		if (a.family != AF_INET && a.family != AF_INET6) {
			conn_refuse(c, 502, "the resolver returned an unknown address family");
			return;
		}
		dest_addr_unmap(&a);
		if (allowlist_check_resolved(list, &a, c->req.dest.port) != ALLOWLIST_ALLOWED) {
			dest_addr_format(&a, text, sizeof text);
			snprintf(c->reason, sizeof c->reason, "name resolves to a %s address (%s)",
				 allowlist_special_class(&a), text);
			conn_refuse(c, 403, c->reason);
			return;
		}
		/* The host's own services, like loopback's, unless listed by address. */
		char interface[24];
		if (!allowlist_range_allows(list, &a, c->req.dest.port) &&
		    allowlist_host_interface(&a, interface, sizeof interface)) {
			dest_addr_format(&a, text, sizeof text);
			snprintf(c->reason, sizeof c->reason,
				 "name resolves to one of this host's own addresses (%s on %s)", text,
				 interface);
			conn_refuse(c, 403, c->reason);
			return;
		}
		c->addrs[c->n_addrs++] = a;
	}
	conn_connect_next(c);
}

/* ---- asking about a host ---------------------------------------------------------- */

static void conn_resolve(struct conn *c);

/* Only a name the list does not name is asked about, never an address. */
static bool conn_may_ask(const struct conn *c, enum allowlist_verdict v)
{
	return c->proxy->asker && c->req.dest.kind == DEST_NAME &&
	       (v == ALLOWLIST_NAME_NOT_LISTED || v == ALLOWLIST_PORT_NOT_LISTED);
}

static void conn_ask(struct conn *c)
{
	struct proxy *p = c->proxy;
	const char *why = NULL;

	if (ask_approved(p->asker, c->req.dest.text, c->req.dest.port)) {
		conn_resolve(c);
		return;
	}
	struct ask_question *q = ask_question_for(p->asker, c->req.dest.text, c->req.dest.port,
						  &why);
	if (!q) {
		conn_refuse(c, 403, why);
		return;
	}
	c->question = q;
	c->state = CONN_ASKING;
	c->deadline = q->deadline;
}

void conn_asked(struct conn *c, int answer)
{
	c->question = NULL;
	if (answer == PROXY_ANSWER_ONCE || answer == PROXY_ANSWER_RUN)
		conn_resolve(c);
	else
		conn_refuse(c, 403, "not on the allowlist; the caller denied it");
	if (!c->dead)
		conn_update_events(c);
}

static void conn_route(struct conn *c)
{
	const char *reason;
	int status = http_parse_request(c->head, c->head_end, &c->req, &reason);

	if (status) {
		conn_refuse(c, status, reason);
		return;
	}
	conn_route_dest(c);
}

void conn_route_dest(struct conn *c)
{
	struct proxy *p = c->proxy;
	enum allowlist_verdict v = allowlist_check_host(p->allowlist, &c->req.dest);
	if (v != ALLOWLIST_ALLOWED && conn_may_ask(c, v)) {
		conn_ask(c);
		return;
	}
	if (v != ALLOWLIST_ALLOWED) {
		conn_refuse(c, 403, allowlist_verdict_text(v));
		return;
	}
	if (c->req.dest.kind != DEST_NAME) {
		c->addrs[0] = c->req.dest.addr;
		c->n_addrs = 1;
		conn_connect_next(c);
		return;
	}
	conn_resolve(c);
}

/* A listed (or approved) name: looked up once, off the loop. */
static void conn_resolve(struct conn *c)
{
	struct proxy *p = c->proxy;
	struct resolver_job *job = calloc(1, sizeof *job);
	if (!job) {
		conn_refuse(c, 503, "out of memory");
		return;
	}
	strcpy(job->name, c->req.dest.text); /* both DEST_NAME_MAX_LEN + 1 */
	job->owner = c;
	c->job = job;
	c->state = CONN_RESOLVING;
	c->deadline = proxy_now_ms() + p->opts.resolve_timeout_ms;
	resolver_pool_submit(p->pool, job);
}

static void conn_read_head(struct conn *c)
{
	for (int round = 0; round < 4; round++) {
		size_t room = HTTP_HEAD_MAX - c->head_len;
		if (room == 0) {
			conn_refuse(c, 431, "request head larger than 16 KiB");
			return;
		}
		ssize_t n = recv(c->client, c->head + c->head_len, room, 0);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0 || (n == 0 && c->head_len == 0)) {
			conn_close(c);
			return;
		}
		if (n == 0) {
			conn_refuse(c, 400, "connection half-closed before the request head ended");
			return;
		}
		c->head_len += (size_t)n;
		long end = http_head_end(c->head, c->head_len, c->head_scanned);
		c->head_scanned = c->head_len;
		if (end < 0) {
			conn_refuse(c, 400, "malformed request head (a line not ended by CRLF)");
			return;
		}
		if (end > 0) {
			c->head_end = (size_t)end;
			conn_route(c);
			return;
		}
	}
}

/* ---- events ------------------------------------------------------------------------ */

void conn_update_events(struct conn *c)
{
	struct proxy *p = c->proxy;
	uint32_t cw = 0, uw = 0;

	switch (c->state) {
	case CONN_READ_HEAD:
	case CONN_LINGER:
		cw = EPOLLIN;
		break;
	case CONN_ASKING:
	case CONN_RESOLVING:
		break;
	case CONN_CONNECTING:
		uw = EPOLLOUT;
		break;
	case CONN_TUNNEL:
		cw |= c->up_state == PUMP_WANT_READ ? EPOLLIN : 0;
		uw |= c->up_state == PUMP_WANT_WRITE ? EPOLLOUT : 0;
		uw |= c->down_state == PUMP_WANT_READ ? EPOLLIN : 0;
		cw |= c->down_state == PUMP_WANT_WRITE ? EPOLLOUT : 0;
		break;
	case CONN_RESPOND:
		cw = EPOLLOUT;
		break;
	}
	if (!proxy_set_events(p, c->client, &c->client_events, cw, &c->client_tag) ||
	    (c->upstream >= 0 &&
	     !proxy_set_events(p, c->upstream, &c->upstream_events, uw, &c->upstream_tag)))
		conn_close(c); /* epoll out of memory: this connection cannot go on */
}

void conn_event(struct conn *c, enum tag_kind side)
{
	switch (c->state) {
	case CONN_READ_HEAD:
		if (side == TAG_CLIENT)
			conn_read_head(c);
		break;
	case CONN_CONNECTING:
		if (side == TAG_UPSTREAM)
			conn_connect_done(c);
		break;
	case CONN_TUNNEL:
		conn_pump_event(c, side);
		break;
	case CONN_RESPOND:
		conn_respond(c);
		break;
	case CONN_LINGER:
		conn_linger(c);
		break;
	case CONN_ASKING:
	case CONN_RESOLVING:
		break;
	}
	if (!c->dead)
		conn_update_events(c);
}

void conn_timeout(struct conn *c)
{
	switch (c->state) {
	case CONN_READ_HEAD:
		conn_refuse(c, 408, "request head not complete in time");
		break;
	case CONN_RESOLVING:
		conn_refuse(c, 504, "the host name lookup timed out");
		break;
	case CONN_ASKING:
		c->question = NULL;
		conn_refuse(c, 403, "not on the allowlist; no answer in time");
		break;
	case CONN_CONNECTING:
		c->connect_errno = ETIMEDOUT;
		conn_drop_upstream(c);
		conn_connect_next(c);
		break;
	default:
		conn_close(c);
		return;
	}
	if (!c->dead)
		conn_update_events(c);
}

struct conn *conn_new(struct proxy *p, int fd)
{
	struct conn *c = calloc(1, sizeof *c);
	int one = 1;

	if (c)
		c->head = malloc(HTTP_HEAD_MAX);
	if (!c || !c->head) {
		free(c);
		close(fd);
		return NULL;
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	c->proxy = p;
	c->client = fd;
	c->upstream = -1;
	c->client_tag = (struct tag){ TAG_CLIENT, c };
	c->upstream_tag = (struct tag){ TAG_UPSTREAM, c };
	c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
	c->state = CONN_READ_HEAD;
	c->deadline = proxy_now_ms() + p->opts.head_timeout_ms;
	c->next = p->conns;
	if (p->conns)
		p->conns->prev = c;
	p->conns = c;
	p->n_conns++;
	proxy_stat_add(&p->stats.accepted, 1);
	proxy_stat_add(&p->stats.active, 1);
	conn_update_events(c);
	return c;
}

void conn_resolved(struct conn *c, const struct resolver_job *job)
{
	conn_check_answer(c, job);
	if (!c->dead)
		conn_update_events(c);
}
