/*
 * The HTTP the proxy speaks: reading a request head (CONNECT or an
 * absolute-form http:// request), rewriting a plain-HTTP request toward
 * its upstream, and the short responses the proxy answers with itself.
 *
 * Pure code over byte buffers: no sockets, no allocation.
 */
#ifndef PROCAGE_PROXY_HTTP_H
#define PROCAGE_PROXY_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dest.h"

/* A request head larger than this is refused (431). */
#define HTTP_HEAD_MAX 16384
/* What a rewritten head may grow by: a canonical Host and "Connection: close". */
#define HTTP_REWRITE_EXTRA 320
/* Room for any response http_format_refusal writes. */
#define HTTP_RESPONSE_MAX 512

enum http_kind {
	HTTP_CONNECT = 1, /* a tunnel to host:port */
	HTTP_FORWARD,     /* GET http://host/path and other methods, one request */
};

struct http_request {
	enum http_kind kind;
	struct dest dest; /* the canonical host: the one value checked and connected to */
	/* Spans inside the head, valid while the head is: */
	const char *host_raw; /* the authority as the client wrote it */
	size_t host_raw_len;
	const char *method;
	size_t method_len;
	const char *path; /* FORWARD: origin-form target ("/" when the URL had none) */
	size_t path_len;
	bool path_needs_slash; /* the URL's path began with '?': "/" goes first */
	const char *version;   /* "HTTP/1.1" or "HTTP/1.0" */
	size_t head_len;       /* the whole head, the blank line included */
	/*
	 * FORWARD: the body's length, from Content-Length (0 without one).
	 * Nothing past it reaches the upstream: a second request in the same
	 * connection would not have been checked.
	 */
	uint64_t body_len;
};

/*
 * Where the head ends in buf[0..len): its length with the final CRLF CRLF,
 * 0 when more bytes are needed, -1 when the bytes can never be a head (a
 * bare LF, a NUL). Scanning restarts at from, the length seen last time, so
 * a head arriving byte by byte costs linear time.
 */
long http_head_end(const char *buf, size_t len, size_t from);

/*
 * Read a complete head. Returns 0, or the status to refuse with (400 for
 * HTTP that is not understood, 403 for a host that is refused) and the
 * reason in *reason. req->host_raw is set as soon as it is known, so that
 * a refusal can name what the client wrote.
 */
int http_parse_request(const char *head, size_t head_len, struct http_request *req,
		       const char **reason);

/*
 * The head sent upstream for a FORWARD request: origin-form target, the
 * client's headers without hop-by-hop ones (and without any the client's
 * Connection header names), a Host header with the canonical host, and
 * "Connection: close" since the proxy serves one request per connection.
 * out needs head_len + HTTP_REWRITE_EXTRA bytes. Returns the length, or 0
 * when out is too small.
 */
size_t http_rewrite_forward(const char *head, const struct http_request *req, char *out,
			    size_t size);

/* A complete response with a one-line plain-text body; returns its length. */
size_t http_format_refusal(int status, const char *reason, char *out, size_t size);

/* The answer to a CONNECT whose tunnel is up. */
extern const char http_connect_established[];

#endif
