/*
 * procage-proxy: the per-run HTTP proxy of network mode `proxy`.
 *
 * It serves CONNECT tunnels and absolute-form plain-HTTP requests on a
 * listening socket the caller made, lets through only what the allowlist
 * allows, and answers everything else with a refusal (never a 200). It runs
 * in a thread of its own inside the supervising process:
 *
 *   struct allowlist *list;
 *   allowlist_new(entries, n, &list, &err);
 *   struct proxy *proxy;
 *   proxy_start(listen_fd, list, &(struct proxy_options){ .report = on_refusal },
 *               &proxy, &err);
 *   ... the run ...
 *   proxy_stop(proxy);          // every connection closed, threads joined
 *   allowlist_free(list);
 *   close(listen_fd);
 *
 * Requests are read one at a time per connection: a plain-HTTP request is
 * sent upstream with "Connection: close", so a client that wants another one
 * opens another connection (and every request is checked).
 */
#ifndef PROCAGE_PROXY_PROXY_H
#define PROCAGE_PROXY_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "procage.h"
#include "allowlist.h"
#include "dest.h"

/* How many addresses of one name are kept (and checked, and tried). */
#define PROXY_MAX_ADDRS 16

/*
 * Name resolution. resolve is called from the proxy's resolver threads (it
 * may block) with a canonical host name, never an address; it writes up to
 * max addresses and returns how many, or a negative errno. It is no longer
 * called once proxy_stop has returned.
 */
struct proxy_resolver {
	int (*resolve)(void *ctx, const char *name, struct dest_addr *out, size_t max);
	void *ctx;
};

/* The system resolver (getaddrinfo), the default. */
int proxy_resolve_system(void *ctx, const char *name, struct dest_addr *out, size_t max);

/* A request the proxy did not serve. Valid during the callback only. */
struct proxy_report {
	int status;         /* the HTTP status it was answered with (403, 400, 502, ...) */
	const char *reason; /* short text, the same the client was sent */
	/* The host as the client wrote it: untrusted bytes, NUL and control
	 * bytes included, so use host_raw_len. host is the same text made
	 * printable (\xNN escapes) and cut to a sane length. Empty when the
	 * request was unreadable before a host. */
	const char *host_raw;
	size_t host_raw_len;
	const char *host;
	/* The canonical "host:port" when the host could be read, else "". */
	const char *canonical;
};

/* Called on the proxy thread; must not block for long or call proxy_stop. */
typedef void (*proxy_report_fn)(void *ctx, const struct proxy_report *report);

/* The caller's answer to a host the allowlist does not name (ask.h). */
enum proxy_answer {
	PROXY_ANSWER_DENY = 0,
	PROXY_ANSWER_ONCE = 1, /* the requests waiting for this answer */
	PROXY_ANSWER_RUN = 2,  /* this name and port for the rest of the run */
};
/*
 * Called on a thread of its own for each question (and so possibly for
 * several hosts at once), with a canonical name, never an address; may
 * block up to timeout_ms, after which its answer counts as a deny.
 * proxy_stop waits for every call under way to return.
 */
typedef int (*proxy_ask_fn)(void *ctx, const char *host, uint16_t port, unsigned timeout_ms);

struct proxy_options {
	const struct proxy_resolver *resolver; /* NULL: proxy_resolve_system */
	proxy_report_fn report;                /* NULL: refusals are not reported */
	void *report_ctx;
	/* Zero takes the default. */
	unsigned head_timeout_ms;    /* the whole request head: 10 s */
	unsigned resolve_timeout_ms; /* a name lookup: 15 s */
	unsigned connect_timeout_ms; /* each upstream address: 10 s */
	unsigned idle_timeout_ms;    /* a tunnel with no byte either way: 300 s */
	unsigned max_connections;    /* from RLIMIT_NOFILE, at most 4096 */
	bool no_splice;              /* copy through user space (tests, measurement) */
	/*
	 * When set, an accepted connection is served only if admit(admit_ctx,
	 * fd) says so, else closed at once (tier T2: a listener on the host's
	 * loopback, where other programs could connect).
	 */
	bool (*admit)(void *ctx, int fd);
	void *admit_ctx;
	/*
	 * When set, a request for a name the allowlist does not name (at
	 * that port) is held and asked about (ask.h); an approved name is
	 * then resolved and its addresses checked as any listed name's. An
	 * address written in a request is never asked about.
	 */
	proxy_ask_fn ask;
	void *ask_ctx;
	unsigned ask_timeout_ms; /* no answer in time is a deny: 60 s */
	/*
	 * Transparent egress (capture.h): the resolver and the listeners made
	 * in the run's network namespace, served with the rest; NULL: none.
	 * The caller frees it after proxy_stop.
	 */
	struct capture *capture;
};

struct proxy_stats {
	uint64_t accepted;  /* client connections taken */
	uint64_t active;    /* client connections open now */
	uint64_t tunnels;   /* requests let through (CONNECT and plain HTTP) */
	uint64_t refused;   /* requests answered with a refusal or an error */
	uint64_t bytes_up;  /* client to upstream, after the request head */
	uint64_t bytes_down;
};

struct proxy;
struct capture;

/*
 * Serve listen_fd (a listening stream socket; the proxy makes it
 * non-blocking and never closes it) until proxy_stop. allowlist must
 * outlive the proxy. The options are copied.
 */
int proxy_start(int listen_fd, const struct allowlist *allowlist,
		const struct proxy_options *options, struct proxy **out,
		struct procage_error *err);

/* Stop serving, close every connection, join the threads, free. NULL is fine. */
void proxy_stop(struct proxy *proxy);

void proxy_get_stats(const struct proxy *proxy, struct proxy_stats *out);

#endif
