/*
 * Transparent egress: the stand-in addresses and the captured connections
 * (capture.h). The resolver that hands the addresses out is dns.c.
 */
#include "capture.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/error.h"

/* ---- the map ------------------------------------------------------------------ */

uint32_t capture_map_address(struct capture_map *map, const char *name)
{
	uint32_t addr = 0;

	pthread_mutex_lock(&map->lock);
	for (size_t i = 0; i < map->n && !addr; i++)
		if (strcmp(map->names[i], name) == 0)
			addr = CAPTURE_STANDIN_NET + 1 + (uint32_t)i;
	if (!addr && map->n < CAPTURE_MAX_NAMES) {
		if (map->n == map->cap) {
			size_t cap = map->cap ? map->cap * 2 : 16;
			void *grown = realloc(map->names, cap * sizeof *map->names);
			if (!grown)
				goto out;
			map->names = grown;
			map->cap = cap;
		}
		snprintf(map->names[map->n], sizeof *map->names, "%s", name);
		addr = CAPTURE_STANDIN_NET + 1 + (uint32_t)map->n++;
	}
out:
	pthread_mutex_unlock(&map->lock);
	return addr;
}

bool capture_map_name(struct capture_map *map, uint32_t addr, char *out, size_t size)
{
	bool found = false;

	if ((addr & CAPTURE_STANDIN_MASK) != CAPTURE_STANDIN_NET || addr == CAPTURE_STANDIN_NET)
		return false;
	size_t i = addr - CAPTURE_STANDIN_NET - 1;
	pthread_mutex_lock(&map->lock);
	if (i < map->n) {
		snprintf(out, size, "%s", map->names[i]);
		found = true;
	}
	pthread_mutex_unlock(&map->lock);
	return found;
}

/* ---- the ports -------------------------------------------------------------------- */

static size_t port_add(uint16_t port, uint16_t skip, uint16_t *out, size_t n, size_t max)
{
	if (port == 0 || port == skip || n == max)
		return n;
	for (size_t i = 0; i < n; i++)
		if (out[i] == port)
			return n;
	out[n] = port;
	return n + 1;
}

/* The port of a "name:port" entry; 0 for any other kind of entry. */
static uint16_t entry_port(const char *entry)
{
	const char *colon = strchr(entry, ':');
	uint16_t port = 0;

	if (!colon || strchr(colon + 1, ':') || strchr(entry, '[') || strchr(entry, '/'))
		return 0;
	if (dest_parse_port(colon + 1, strlen(colon + 1), &port) != DEST_OK)
		return 0;
	return port;
}

size_t capture_ports(const char *const *entries, size_t n_entries, uint16_t skip, uint16_t *out,
		     size_t max)
{
	size_t n = port_add(443, skip, out, 0, max);
	n = port_add(80, skip, out, n, max);
	for (size_t i = 0; i < n_entries; i++)
		n = port_add(entry_port(entries[i]), skip, out, n, max);
	return n;
}

/* ---- the sockets ---------------------------------------------------------------- */

static int capture_take(struct capture *c, int fd, struct procage_error *err)
{
	int type = 0, listening = 0;
	socklen_t len = sizeof type;
	struct sockaddr_storage a;
	socklen_t alen = sizeof a;

	/* The resolver's socket is IPv4; a listener may be dual-stack IPv6 too. */
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0 ||
	    (a.ss_family != AF_INET && (a.ss_family != AF_INET6 || type != SOCK_STREAM))) {
		close(fd);
		return error_set(err, -EINVAL, "capture: descriptor %d is not an IPv4 socket", fd);
	}
	if (type == SOCK_DGRAM && c->dns_fd < 0) {
		c->dns_fd = fd;
		return 0;
	}
	len = sizeof listening;
	if (type != SOCK_STREAM || c->n_listeners == CAPTURE_MAX_SOCKETS ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0 || !listening) {
		close(fd);
		return error_set(err, -EINVAL, "capture: descriptor %d is not a listener", fd);
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		close(fd);
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "capture: a listener");
	}
	struct capture_listener *l = &c->listeners[c->n_listeners++];
	l->tag.kind = TAG_CAPTURE;
	l->tag.conn = NULL;
	l->fd = fd;
	l->port = a.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&a)->sin_port)
					 : ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
	return 0;
}

int capture_new(const int *fds, size_t n, struct capture **out, struct procage_error *err)
{
	struct capture *c = calloc(1, sizeof *c);
	int rc = 0;

	*out = NULL;
	if (!c) {
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return error_set(err, -ENOMEM, "capture: out of memory");
	}
	pthread_mutex_init(&c->map.lock, NULL);
	c->dns_fd = c->stop_fd = -1;
	for (size_t i = 0; i < n; i++) {
		int r = rc == 0 ? capture_take(c, fds[i], err) : (close(fds[i]), 0);
		if (r < 0)
			rc = r;
	}
	if (rc < 0) {
		capture_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void capture_free(struct capture *c)
{
	if (!c)
		return;
	capture_dns_stop(c);
	if (c->dns_fd >= 0)
		close(c->dns_fd);
	for (size_t i = 0; i < c->n_listeners; i++)
		close(c->listeners[i].fd);
	free(c->map.names);
	pthread_mutex_destroy(&c->map.lock);
	free(c);
}

/* ---- captured connections ---------------------------------------------------------- */

/* A connection that names no host procage handed out: reported, closed. */
static void capture_refuse(struct proxy *p, const char *shown, const char *reason)
{
	proxy_stat_add(&p->stats.refused, 1);
	if (!p->opts.report)
		return;
	struct proxy_report r = {.status = 403,
				 .reason = reason,
				 .host_raw = shown,
				 .host_raw_len = strlen(shown),
				 .host = shown,
				 .canonical = ""};
	p->opts.report(p->opts.report_ctx, &r);
}

static void capture_refuse_address(struct proxy *p, const struct sockaddr_in *local)
{
	char addr[INET_ADDRSTRLEN] = "?", shown[INET_ADDRSTRLEN + 8];

	inet_ntop(AF_INET, &local->sin_addr, addr, sizeof addr);
	snprintf(shown, sizeof shown, "%s:%u", addr, ntohs(local->sin_port));
	capture_refuse(p, shown,
		       "a connection to an address procage's resolver did not hand out "
		       "(a program that ignores the proxy settings reaches names only)");
}

/*
 * The resolver hands out IPv4 stand-ins only (AAAA questions get no
 * record), so an IPv6 address was never procage's: written by the program,
 * or its own resolver's. Said as such, since "no route" would hide why.
 */
static void capture_refuse_address6(struct proxy *p, const struct sockaddr_in6 *local)
{
	char addr[INET6_ADDRSTRLEN] = "?", shown[INET6_ADDRSTRLEN + 10];

	inet_ntop(AF_INET6, &local->sin6_addr, addr, sizeof addr);
	snprintf(shown, sizeof shown, "[%s]:%u", addr, ntohs(local->sin6_port));
	capture_refuse(p, shown,
		       "a connection to an IPv6 address: transparent egress carries names "
		       "over IPv4 only (procage's resolver answers IPv4), never addresses");
}

/* Closed with a reset: the client sees a refusal, never an empty answer. */
void capture_reset(int fd)
{
	struct linger now = {1, 0};
	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &now, sizeof now);
	close(fd);
}

static void capture_take_connection(struct proxy *p, int fd)
{
	struct sockaddr_storage any;
	struct sockaddr_in local = {.sin_family = AF_INET};
	socklen_t len = sizeof any;
	char name[DEST_NAME_MAX_LEN + 1];

	if (getsockname(fd, (struct sockaddr *)&any, &len) < 0) {
		close(fd);
		return;
	}
	if (any.ss_family == AF_INET6) {
		/* On a dual-stack listener IPv4 arrives mapped (::ffff:a.b.c.d). */
		const struct sockaddr_in6 *six = (const struct sockaddr_in6 *)&any;
		if (!IN6_IS_ADDR_V4MAPPED(&six->sin6_addr)) {
			capture_refuse_address6(p, six);
			capture_reset(fd);
			return;
		}
		memcpy(&local.sin_addr, &six->sin6_addr.s6_addr[12], 4);
		local.sin_port = six->sin6_port;
	} else if (any.ss_family == AF_INET) {
		memcpy(&local, &any, sizeof local);
	} else {
		close(fd);
		return;
	}
	if (!capture_map_name(&p->capture->map, ntohl(local.sin_addr.s_addr), name, sizeof name)) {
		capture_refuse_address(p, &local);
		capture_reset(fd);
		return;
	}
	struct conn *c = conn_new(p, fd);
	if (!c)
		return;
	/* The request a CONNECT to name:port would have made, from procage's record. */
	c->captured = true;
	c->req.kind = HTTP_CONNECT;
	c->req.dest.kind = DEST_NAME;
	snprintf(c->req.dest.text, sizeof c->req.dest.text, "%s", name);
	c->req.dest.port = ntohs(local.sin_port);
	c->req.host_raw = c->req.dest.text;
	c->req.host_raw_len = strlen(c->req.dest.text);
	conn_route_dest(c);
	if (!c->dead)
		conn_update_events(c);
}

void capture_accept(struct proxy *p, struct capture_listener *l)
{
	for (int i = 0; i < 32; i++) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0 && p->n_conns >= p->opts.max_connections) {
			close(fd); /* full: a level-triggered listener left waiting would spin */
			continue;
		}
		if (fd >= 0) {
			capture_take_connection(p, fd);
			continue;
		}
		if (errno != ECONNABORTED && errno != EINTR && errno != EPROTO)
			return;
	}
}
