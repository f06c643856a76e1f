/*
 * Inside the proxy: the state shared by its event loop (proxy.c) and the
 * connection state machine (conn.c). Nothing outside src/lib/proxy uses it.
 */
#ifndef PROCAGE_PROXY_CONN_H
#define PROCAGE_PROXY_CONN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ask.h"
#include "http.h"
#include "proxy.h"
#include "pump.h"
#include "resolver.h"

enum conn_state { CONN_READ_HEAD, CONN_ASKING, CONN_RESOLVING, CONN_CONNECTING, CONN_TUNNEL, CONN_RESPOND, CONN_LINGER };
enum tag_kind { TAG_LISTENER, TAG_STOP, TAG_RESOLVER, TAG_ASKER, TAG_CLIENT, TAG_UPSTREAM, TAG_CAPTURE };

/* What an epoll event points at. */
struct tag {
	enum tag_kind kind;
	struct conn *conn;
};

struct conn {
	struct proxy *proxy;
	struct conn *prev, *next;
	enum conn_state state;
	bool dead;
	/* Captured (capture.h): no request head, no HTTP answer; a refusal closes. */
	bool captured;
	int client, upstream;
	struct tag client_tag, upstream_tag;
	uint32_t client_events, upstream_events; /* as registered; 0: not in the set */
	uint64_t deadline;                       /* ms, monotonic; 0: none */
	uint64_t last_activity;
	char *head; /* HTTP_HEAD_MAX bytes until the tunnel starts */
	size_t head_len, head_scanned, head_end;
	struct http_request req;
	struct resolver_job *job;
	struct ask_question *question; /* CONN_ASKING: the answer it waits for */
	struct dest_addr addrs[PROXY_MAX_ADDRS];
	size_t n_addrs, next_addr;
	int connect_errno;
	struct pump up, down; /* client to upstream, upstream to client */
	enum pump_state up_state, down_state;
	char reason[160];
	char response[HTTP_RESPONSE_MAX];
	size_t response_len, response_off, lingered;
};

struct proxy {
	int listen_fd, epoll_fd, stop_fd;
	const struct allowlist *allowlist;
	struct proxy_options opts;
	struct proxy_resolver resolver;
	struct resolver_pool *pool;
	struct asker *asker; /* NULL: nothing is asked */
	struct capture *capture; /* NULL: nothing is captured */
	pthread_t thread;
	struct conn *conns, *graveyard;
	unsigned n_conns;
	bool listening;
	bool stopped; /* the loop is gone: nothing is registered any more */
	uint64_t accept_resume_at;
	struct tag listener_tag, stop_tag, resolver_tag, asker_tag;
	struct proxy_stats stats;
};

uint64_t proxy_now_ms(void);
void proxy_stat_add(uint64_t *counter, int64_t delta);
/* Register fd for want (0: take it out of the set); *have is what is registered. */
bool proxy_set_events(struct proxy *p, int fd, uint32_t *have, uint32_t want, struct tag *tag);
void proxy_set_listening(struct proxy *p, bool on);

/* A new client connection, waiting for its request head; NULL: out of memory (fd closed). */
struct conn *conn_new(struct proxy *p, int fd);
/* Route c's request (c->req.dest set): allowlist, question, lookup, connect. */
void conn_route_dest(struct conn *c);
void conn_update_events(struct conn *c);
/* An event for the client or upstream side of c. */
void conn_event(struct conn *c, enum tag_kind side);
/* The lookup c waited for is answered. */
void conn_resolved(struct conn *c, const struct resolver_job *job);
/* The question c waited on is answered (enum proxy_answer). */
void conn_asked(struct conn *c, int answer);
/* c's deadline passed. */
void conn_timeout(struct conn *c);
/* Close now; the memory goes to the graveyard, freed between batches. */
void conn_close(struct conn *c);

#endif
