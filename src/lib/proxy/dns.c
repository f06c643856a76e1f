/*
 * The run's resolver under transparent egress (capture.h): a small DNS
 * server on the datagram socket made at 127.0.0.53:53 in the run's network
 * namespace, served by a thread of the supervising process.
 *
 * It answers only what it must: one question per query, class IN. A name
 * the allowlist allows at some captured port (or any name when the caller
 * is asked about hosts: the question comes when the connection does) gets
 * its stand-in address for A and an empty answer for every other type, so
 * that clients fall back to IPv4. Any other name gets NXDOMAIN, and a
 * refusal report naming it, once per name. Nothing is ever forwarded to a
 * real resolver: the run learns no real address.
 */
#include "capture.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/error.h"

#define DNS_HEADER 12
#define DNS_MAX_PACKET 1500
#define DNS_TTL 60
#define DNS_REPORTED_MAX 256

enum { RCODE_OK = 0, RCODE_FORMERR = 1, RCODE_SERVFAIL = 2, RCODE_NXDOMAIN = 3, RCODE_REFUSED = 5 };

struct dns_query {
	uint16_t id, flags;
	size_t question_end; /* the offset after the question's type and class */
	char name[DEST_NAME_MAX_LEN + 2];
	uint16_t type, class;
};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The one question, read strictly: no compression, no empty label but the root,
 * no dot or NUL inside a label. */
static int dns_parse(const uint8_t *pkt, size_t len, struct dns_query *q)
{
	size_t off = DNS_HEADER, out = 0;

	if (len < DNS_HEADER)
		return -1;
	q->id = get16(pkt);
	q->flags = get16(pkt + 2);
	if (q->flags & 0x8000)
		return -1; /* an answer: never replied to */
	if (((q->flags >> 11) & 0xf) != 0 || get16(pkt + 4) != 1)
		return RCODE_FORMERR;
	for (;;) {
		if (off >= len)
			return RCODE_FORMERR;
		uint8_t label = pkt[off++];
		if (label == 0)
			break;
		if (label > 63 || off + label > len || out + label + 1 > DEST_NAME_MAX_LEN + 1)
			return RCODE_FORMERR;
		/* A dot or a NUL inside a label would make the text another name. */
		if (memchr(pkt + off, '.', label) || memchr(pkt + off, '\0', label))
			return RCODE_FORMERR;
		if (out)
			q->name[out++] = '.';
		memcpy(q->name + out, pkt + off, label);
		out += label;
		off += label;
	}
	q->name[out] = '\0';
	if (off + 4 > len || out == 0)
		return RCODE_FORMERR;
	q->type = get16(pkt + off);
	q->class = get16(pkt + off + 2);
	q->question_end = off + 4;
	return RCODE_OK;
}

/* The answer: the question copied, and an A record when addr is set. */
static size_t dns_answer(const uint8_t *pkt, const struct dns_query *q, int rcode, uint32_t addr,
			 uint8_t *out)
{
	size_t n = q->question_end;

	memcpy(out, pkt, n);
	/* QR, AA, RD as asked, RA; opcode 0. */
	put16(out + 2, (uint16_t)(0x8400 | (q->flags & 0x0100) | 0x0080 | rcode));
	put16(out + 4, 1);
	put16(out + 6, addr ? 1 : 0);
	put16(out + 8, 0);
	put16(out + 10, 0);
	if (addr) {
		static const uint8_t head[] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, DNS_TTL, 0, 4};
		memcpy(out + n, head, sizeof head);
		n += sizeof head;
		uint32_t be = htonl(addr);
		memcpy(out + n, &be, 4);
		n += 4;
	}
	return n;
}

/* Allowed at a port some capture listener serves, or asked about later. */
static bool dns_name_allowed(const struct capture *c, const struct dest *name)
{
	struct proxy *p = c->proxy;

	if (p->asker)
		return true;
	for (size_t i = 0; i < c->n_listeners; i++) {
		struct dest at = *name;
		at.port = c->listeners[i].port;
		if (allowlist_check_host(p->allowlist, &at) == ALLOWLIST_ALLOWED)
			return true;
	}
	return false;
}

struct dns_reported {
	char (*names)[DEST_NAME_MAX_LEN + 1];
	size_t n;
};

/* A refusal report, once per name: clients ask twice (A, AAAA) and retry. */
static void dns_report(struct capture *c, struct dns_reported *seen, const char *name)
{
	struct proxy *p = c->proxy;
	char shown[300];

	for (size_t i = 0; i < seen->n; i++)
		if (strcmp(seen->names[i], name) == 0)
			return;
	if (seen->names && seen->n < DNS_REPORTED_MAX)
		snprintf(seen->names[seen->n++], sizeof *seen->names, "%s", name);
	proxy_stat_add(&p->stats.refused, 1);
	if (!p->opts.report)
		return;
	dest_escape(name, strlen(name), shown, sizeof shown);
	struct proxy_report r = {
	    .status = 403,
	    .reason = "not on the allowlist (looked up by a program that ignores the proxy "
		      "settings)",
	    .host_raw = name,
	    .host_raw_len = strlen(name),
	    .host = shown,
	    .canonical = name};
	p->opts.report(p->opts.report_ctx, &r);
}

static int dns_decide(struct capture *c, struct dns_reported *seen, const struct dns_query *q,
		      uint32_t *addr)
{
	struct dest name;

	*addr = 0;
	if (q->class != 1)
		return RCODE_REFUSED;
	if (dest_parse_plain(q->name, strlen(q->name), &name) != DEST_OK || name.kind != DEST_NAME)
		return RCODE_NXDOMAIN; /* an address spelled as a name resolves to nothing */
	if (!dns_name_allowed(c, &name)) {
		dns_report(c, seen, name.text);
		return RCODE_NXDOMAIN;
	}
	uint32_t a = capture_map_address(&c->map, name.text);
	if (!a)
		return RCODE_SERVFAIL;
	if (q->type == 1)
		*addr = a;
	return RCODE_OK;
}

static void dns_serve_one(struct capture *c, struct dns_reported *seen)
{
	uint8_t pkt[DNS_MAX_PACKET], out[DNS_MAX_PACKET + 16];
	struct sockaddr_storage from;
	socklen_t from_len = sizeof from;
	struct dns_query q;
	uint32_t addr = 0;

	ssize_t n =
	    recvfrom(c->dns_fd, pkt, sizeof pkt, MSG_DONTWAIT, (struct sockaddr *)&from, &from_len);
	if (n <= 0)
		return;
	int rcode = dns_parse(pkt, (size_t)n, &q);
	if (rcode < 0)
		return;
	if (rcode == RCODE_FORMERR) {
		/* Only the header goes back. */
		q.question_end = DNS_HEADER;
		size_t len = dns_answer(pkt, &q, rcode, 0, out);
		put16(out + 4, 0);
		sendto(c->dns_fd, out, len, MSG_DONTWAIT, (struct sockaddr *)&from, from_len);
		return;
	}
	rcode = dns_decide(c, seen, &q, &addr);
	size_t len = dns_answer(pkt, &q, rcode, addr, out);
	sendto(c->dns_fd, out, len, MSG_DONTWAIT, (struct sockaddr *)&from, from_len);
}

static void *dns_main(void *arg)
{
	struct capture *c = arg;
	struct dns_reported seen = {calloc(DNS_REPORTED_MAX, sizeof *seen.names), 0};

	for (;;) {
		struct pollfd fds[2] = {{c->stop_fd, POLLIN, 0}, {c->dns_fd, POLLIN, 0}};
		int n = poll(fds, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || fds[0].revents)
			break;
		if (fds[1].revents & POLLIN)
			for (int i = 0; i < 64; i++)
				dns_serve_one(c, &seen);
		else if (fds[1].revents)
			break; /* the socket itself failed */
	}
	free(seen.names);
	return NULL;
}

int capture_dns_start(struct capture *c, struct proxy *proxy, struct procage_error *err)
{
	sigset_t all, old;

	c->proxy = proxy;
	if (c->dns_fd < 0)
		return 0;
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->stop_fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "capture: eventfd");
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&c->dns_thread, NULL, dns_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		return error_set_sys(err, e, PROCAGE_STEP_NONE, "capture: starting the resolver");
	c->dns_started = true;
	return 0;
}

void capture_dns_stop(struct capture *c)
{
	uint64_t one = 1;

	if (c->dns_started) {
		if (write(c->stop_fd, &one, sizeof one) < 0)
			(void)0; /* only fails when a stop is already pending */
		pthread_join(c->dns_thread, NULL);
		c->dns_started = false;
	}
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	c->stop_fd = -1;
}
